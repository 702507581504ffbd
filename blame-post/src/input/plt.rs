//! Names of an object's PLT stubs, as perf names them: `memcpy@plt` for
//! the stub that jumps through the GOT slot `memcpy` is bound to. No
//! symbol table covers the `.plt`, `.plt.sec` and `.plt.got` sections, so
//! without these names a sample in a stub (a call into a shared library
//! through it, or libc calling its own ifuncs) was a raw address.

use blame_capture::locate::with_object;
use object::{Object, ObjectSection, ObjectSymbol, ObjectSymbolTable, RelocationTarget};
use std::collections::HashMap;
use std::path::Path;

/// The stubs of the object at `path` as (start, end, name), sorted by
/// start. A stub whose slot no relocation names (the first entry of
/// `.plt`, which calls the dynamic linker) is named `<object>@plt`.
pub fn plt_stubs(path: &Path) -> Vec<(u64, u64, String)> {
    let base = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    with_object(path, |file| {
        let slots = slot_names(file);
        let mut stubs = Vec::new();
        for name in [".plt", ".plt.sec", ".plt.got"] {
            let Some(section) = file.section_by_name(name) else {
                continue;
            };
            let Ok(code) = section.data() else {
                continue;
            };
            let size = entry_size(name, code);
            for (i, entry) in code.chunks(size).enumerate() {
                let start = section.address() + (i * size) as u64;
                let named = jump_slot(entry, start)
                    .and_then(|slot| slots.get(&slot))
                    .map_or_else(|| format!("{base}@plt"), |n| format!("{n}@plt"));
                stubs.push((start, start + entry.len() as u64, named));
            }
        }
        stubs.sort();
        stubs
    })
    .unwrap_or_default()
}

/// Bytes of one stub of the PLT section `name` whose code is `code`: 16,
/// but 8 in a `.plt.got` without `endbr64` (built without CET).
fn entry_size(name: &str, code: &[u8]) -> usize {
    const ENDBR64: [u8; 4] = [0xf3, 0x0f, 0x1e, 0xfa];
    match name == ".plt.got" && !code.starts_with(&ENDBR64) {
        true => 8,
        false => 16,
    }
}

/// The GOT slot a stub at `address` jumps through: its `jmp *disp32(%rip)`
/// (`ff 25`, after an `endbr64` or a `bnd` prefix where there is one).
fn jump_slot(entry: &[u8], address: u64) -> Option<u64> {
    let at = entry.windows(2).position(|w| w == [0xff, 0x25])?;
    let disp = entry.get(at + 2..at + 6)?;
    let disp = i32::from_le_bytes(disp.try_into().ok()?);
    let next = address + (at + 6) as u64;
    Some(next.wrapping_add_signed(i64::from(disp)))
}

/// The name of the function each GOT slot is bound to, by the slot's
/// address: a relocation's symbol, or for an ifunc's (`IRELATIVE`, no
/// symbol) the symbol at its resolver.
fn slot_names<'data, R: object::ReadRef<'data>>(
    file: &object::File<'data, R>,
) -> HashMap<u64, String> {
    let mut at_address: HashMap<u64, String> = HashMap::new();
    for sym in file.dynamic_symbols().chain(file.symbols()) {
        if sym.kind() == object::SymbolKind::Text {
            if let Ok(name) = sym.name() {
                at_address
                    .entry(sym.address())
                    .or_insert_with(|| name.to_string());
            }
        }
    }
    let dynamic = file.dynamic_symbol_table();
    let mut slots = HashMap::new();
    for (slot, reloc) in file.dynamic_relocations().into_iter().flatten() {
        let name = match reloc.target() {
            RelocationTarget::Symbol(index) => dynamic
                .as_ref()
                .and_then(|t| t.symbol_by_index(index).ok())
                .and_then(|s| s.name().ok().map(str::to_string)),
            RelocationTarget::Absolute => u64::try_from(reloc.addend())
                .ok()
                .and_then(|resolver| at_address.get(&resolver).cloned()),
            _ => None,
        };
        if let Some(name) = name.filter(|n| !n.is_empty()) {
            slots.insert(slot, name);
        }
    }
    slots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stub_jumps_through_its_slot() {
        // endbr64; bnd jmp *0x2fe2(%rip) at 0x1030: the slot is 0x1030 + 11 + 0x2fe2.
        let entry = [
            0xf3, 0x0f, 0x1e, 0xfa, 0xf2, 0xff, 0x25, 0xe2, 0x2f, 0x00, 0x00, 0x0f, 0x1f, 0x44,
            0x00, 0x00,
        ];
        assert_eq!(jump_slot(&entry, 0x1030), Some(0x1030 + 11 + 0x2fe2));
        // jmp *-0x10(%rip); push $0; jmp PLT0
        let entry = [0xff, 0x25, 0xf0, 0xff, 0xff, 0xff, 0x68, 0, 0, 0, 0];
        assert_eq!(jump_slot(&entry, 0x2000), Some(0x2000 + 6 - 0x10));
        assert_eq!(jump_slot(&[0x90; 16], 0), None);
    }

    /// libc calls its own ifuncs (memcpy, strlen, ...) through its PLT:
    /// every stub but the first is named after the function it reaches.
    #[test]
    fn libcs_stubs_are_named_after_their_functions() {
        let libc = Path::new("/lib/x86_64-linux-gnu/libc.so.6");
        if !libc.exists() {
            return;
        }
        let stubs = plt_stubs(libc);
        assert!(stubs.len() > 10, "{} stubs", stubs.len());
        let unnamed = stubs.iter().filter(|s| s.2 == "libc.so.6@plt").count();
        assert!(unnamed <= 2, "{unnamed} of {} stubs unnamed", stubs.len());
        assert!(
            stubs
                .iter()
                .any(|s| s.2 == "memcpy@plt" || s.2 == "memmove@plt"),
            "{stubs:?}"
        );
        assert!(stubs.windows(2).all(|w| w[0].1 <= w[1].0), "stubs overlap");
    }
}
