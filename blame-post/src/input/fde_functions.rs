//! Where an object's functions begin and end by its call frame information
//! (the `.eh_frame` FDEs every function needs for unwinding), for code no
//! symbol names: a stripped library's internal functions (libomp's barrier
//! and spin-wait loops, libc's static helpers). Samples in one such
//! function are then one frame at its start, not one raw address per
//! instruction.

use addr2line::gimli::{self, BaseAddresses, CieOrFde, EhFrame, UnwindSection};
use blame_capture::locate::with_object;
use object::{Object, ObjectSection};
use std::path::Path;

/// The (start, end) virtual addresses of the functions the `.eh_frame`
/// of the object at `path` describes, sorted by start (empty when it has
/// none or it does not parse).
pub fn fde_functions(path: &Path) -> Vec<(u64, u64)> {
    with_object(path, |file| {
        let Some(section) = file.section_by_name(".eh_frame") else {
            return Vec::new();
        };
        let Ok(data) = section.data() else {
            return Vec::new();
        };
        let mut bases = BaseAddresses::default().set_eh_frame(section.address());
        if let Some(text) = file.section_by_name(".text") {
            bases = bases.set_text(text.address());
        }
        if let Some(got) = file.section_by_name(".got") {
            bases = bases.set_got(got.address());
        }
        let eh_frame = EhFrame::new(data, gimli::LittleEndian);
        let mut functions = Vec::new();
        let mut entries = eh_frame.entries(&bases);
        while let Ok(Some(entry)) = entries.next() {
            let CieOrFde::Fde(partial) = entry else {
                continue;
            };
            if let Ok(fde) = partial.parse(EhFrame::cie_from_offset) {
                if fde.len() > 0 {
                    let start = fde.initial_address();
                    functions.push((start, start.saturating_add(fde.len())));
                }
            }
        }
        functions.sort_unstable();
        functions
    })
    .unwrap_or_default()
}

/// The start of the function of `functions` ([`fde_functions`]) that holds
/// `vaddr`.
pub fn function_start(functions: &[(u64, u64)], vaddr: u64) -> Option<u64> {
    range_holding(functions, vaddr, |&r| r).map(|r| r.0)
}

/// The item of `sorted` (by start, not overlapping) whose `[start, end)`
/// (as `range` gives it) holds `at`.
pub(crate) fn range_holding<T>(
    sorted: &[T],
    at: u64,
    range: impl Fn(&T) -> (u64, u64),
) -> Option<&T> {
    let i = sorted.partition_point(|x| range(x).0 <= at);
    let item = sorted.get(i.checked_sub(1)?)?;
    (at < range(item).1).then_some(item)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_belongs_to_the_function_that_holds_it() {
        let f = [(0x100, 0x180), (0x180, 0x200), (0x300, 0x310)];
        assert_eq!(function_start(&f, 0x100), Some(0x100));
        assert_eq!(function_start(&f, 0x17f), Some(0x100));
        assert_eq!(function_start(&f, 0x180), Some(0x180));
        assert_eq!(function_start(&f, 0x250), None);
        assert_eq!(function_start(&f, 0x50), None);
        assert_eq!(function_start(&f, 0x310), None);
    }

    /// libc's call frame information covers its exported functions too:
    /// `memcpy`'s symbol starts a function of its FDEs.
    #[test]
    fn libcs_fdes_start_where_its_symbols_do() {
        let libc = Path::new("/lib/x86_64-linux-gnu/libc.so.6");
        if !libc.is_file() {
            return;
        }
        let functions = fde_functions(libc);
        assert!(functions.len() > 1000, "{} functions", functions.len());
        let symbols = with_object(libc, |file| {
            use object::ObjectSymbol;
            file.dynamic_symbols()
                .filter(|s| s.kind() == object::SymbolKind::Text && s.size() > 0)
                .map(|s| (s.address(), s.size()))
                .take(200)
                .collect::<Vec<_>>()
        })
        .unwrap();
        let starting = symbols
            .iter()
            .filter(|(a, size)| function_start(&functions, a + size / 2) == Some(*a))
            .count();
        assert!(
            starting * 10 >= symbols.len() * 9,
            "{starting} of {} symbols start an FDE's function",
            symbols.len()
        );
    }
}
