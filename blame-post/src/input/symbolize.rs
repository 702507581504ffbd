//! Symbolization: runtime addresses to functions, files and lines, with
//! inlined frames expanded, using the objects' DWARF through `addr2line`.
//!
//! The object for an address is found through the recording's mappings; the
//! file is looked up as the capture layer's locator says
//! ([`blame_capture::locate`]: `--binary-path` directories first, then its
//! recorded path, then `/usr/lib/debug/.build-id`). A file whose build-id
//! differs from the recorded one is refused.

use crate::error::{hex, PostError, Result, Warning};
use crate::input::fde_functions::range_holding;
use blame_capture::locate::{debug_file, locate, with_object, ObjectError, VDSO_MAPPING};
use blame_formats::results::SymFrame;
use blame_formats::stream::Mapping;
use object::{Object, ObjectSection, ObjectSegment, ObjectSymbol};
use std::cell::OnceCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One object file opened for symbolization. Opening reads the DWARF
/// (through `addr2line`, which maps the file) and the program headers only;
/// the symbol tables and the code are read on first use, since only the
/// data-address and instruction-skid passes need them.
struct ObjectSymbols {
    path: PathBuf,
    loader: addr2line::Loader,
    /// (file offset, file size, virtual address) of each loadable segment.
    segments: Vec<(u64, u64, u64)>,
    /// Data objects (globals, statics) as (start, end, name) in the
    /// object's virtual addresses, sorted by start; functions as (start,
    /// end) virtual addresses, sorted.
    symbols: OnceCell<SymbolTables>,
    /// Executable sections: (virtual address, bytes).
    code: OnceCell<Vec<(u64, Vec<u8>)>>,
    /// Symbols (start, end, name) of the separate debug file
    /// (`/usr/lib/debug`, by build-id or `.gnu_debuglink`), read on first
    /// use when the object's own tables do not name an address: a stripped
    /// `libc.so.6` exports no `__libc_start_call_main`.
    debug_functions: OnceCell<Vec<(u64, u64, String)>>,
    /// Its PLT stubs, named after the functions they reach ([`crate::input::plt`]).
    plt: OnceCell<Vec<(u64, u64, String)>>,
    /// Its functions' bounds from its unwind tables ([`crate::input::fde_functions`]).
    fde_functions: OnceCell<Vec<(u64, u64)>>,
    /// The object has DWARF line information (`.debug_line`).
    has_debug_info: bool,
}

/// Libraries of the system, which rarely carry debug info and are not
/// what the user profiles: no note for them.
fn is_system_library(path: &Path) -> bool {
    [
        "/lib/",
        "/lib64/",
        "/usr/lib/",
        "/usr/lib64/",
        "/usr/libexec/",
    ]
    .iter()
    .any(|d| path.starts_with(d))
}

#[derive(Default)]
struct SymbolTables {
    data: Vec<(u64, u64, String)>,
    functions: Vec<(u64, u64)>,
}

impl ObjectSymbols {
    fn symbols(&self) -> &SymbolTables {
        self.symbols
            .get_or_init(|| read_symbol_tables(&self.path).unwrap_or_default())
    }

    fn code(&self) -> &[(u64, Vec<u8>)] {
        self.code
            .get_or_init(|| read_code(&self.path).unwrap_or_default())
    }

    /// The function symbol of the separate debug file that holds `vaddr`.
    fn debug_function(&self, build_id: &[u8], vaddr: u64) -> Option<&str> {
        let syms = self.debug_functions.get_or_init(|| {
            debug_file(&self.path, build_id)
                .and_then(|p| read_function_symbols(&p).ok())
                .unwrap_or_default()
        });
        range_holding(syms, vaddr, |&(start, end, _)| (start, end)).map(|s| s.2.as_str())
    }

    /// The name of the PLT stub that holds `vaddr`.
    fn plt_function(&self, vaddr: u64) -> Option<&str> {
        let stubs = self
            .plt
            .get_or_init(|| crate::input::plt::plt_stubs(&self.path));
        range_holding(stubs, vaddr, |&(start, end, _)| (start, end)).map(|s| s.2.as_str())
    }

    /// The start of the function (by the unwind tables) that holds `vaddr`.
    fn fde_function_start(&self, vaddr: u64) -> Option<u64> {
        let functions = self
            .fde_functions
            .get_or_init(|| crate::input::fde_functions::fde_functions(&self.path));
        crate::input::fde_functions::function_start(functions, vaddr)
    }

    fn file_offset_to_vaddr(&self, offset: u64) -> Option<u64> {
        self.segments
            .iter()
            .find(|(off, size, _)| offset >= *off && offset < off + size)
            .map(|(off, _, vaddr)| offset - off + vaddr)
    }
}

/// Symbolizes addresses of one recording, caching objects and addresses.
pub struct Symbolizer {
    search_dirs: Vec<PathBuf>,
    objects: HashMap<String, Option<ObjectSymbols>>,
    /// Keyed by (object id, offset in the object, is_return), so processes
    /// of the same binary (at different ASLR addresses) share lookups.
    cache: rustc_hash::FxHashMap<(u32, u64, bool), Vec<SymFrame>>,
    object_ids: rustc_hash::FxHashMap<String, u32>,
    /// Build-ids of the files checked by [`Self::verify_build_ids`] (`None`: the file has none).
    build_ids: HashMap<PathBuf, Option<Vec<u8>>>,
    /// Objects that could not be found or read, with the reason (reported once).
    pub warnings: Vec<Warning>,
    /// Kernel symbols (address, name) from the recording's `kallsyms`, sorted; loaded on first use.
    kernel_symbols: Option<Vec<(u64, String)>>,
}

/// The pseudo-path of the kernel mapping `blame record --kernel` writes.
pub const KERNEL_MAPPING: &str = "[kernel.kallsyms]";

/// Parses /proc/kallsyms text: text symbols as (address, name), sorted.
pub fn parse_kallsyms(text: &str) -> Vec<(u64, String)> {
    let mut syms: Vec<(u64, String)> = text
        .lines()
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            let addr = u64::from_str_radix(parts.next()?, 16).ok()?;
            let kind = parts.next()?;
            let name = parts.next()?;
            (addr != 0 && matches!(kind, "t" | "T" | "w" | "W")).then(|| (addr, name.to_string()))
        })
        .collect();
    syms.sort();
    syms
}

impl Symbolizer {
    pub fn new(search_dirs: Vec<PathBuf>) -> Self {
        Symbolizer {
            search_dirs,
            objects: HashMap::new(),
            cache: Default::default(),
            object_ids: Default::default(),
            build_ids: HashMap::new(),
            warnings: Vec::new(),
            kernel_symbols: None,
        }
    }

    /// Opens the objects of `mappings` (their DWARF: `addr2line::Loader::new`
    /// is most of a small run's symbolization) ahead of the lookups, so
    /// that it can run beside the counting of samples. Does nothing when a
    /// build-id does not match: the lookups report that.
    pub fn preload(&mut self, mappings: &[Mapping]) {
        if self.verify_build_ids(mappings, Path::new("")).is_err() {
            return;
        }
        for m in mappings {
            if m.path != KERNEL_MAPPING {
                self.object(m);
            }
        }
    }

    /// Checks every mapped object with a recorded build-id against the file
    /// that would be used, so a changed binary is refused before any work.
    /// Each file's build-id is read once (its notes, not the whole file).
    pub fn verify_build_ids(&mut self, mappings: &[Mapping], recording: &Path) -> Result<()> {
        let mut seen = std::collections::HashSet::new();
        for m in mappings {
            if m.build_id.is_empty() || !seen.insert(&m.path) {
                continue;
            }
            if let Some(path) = self.locate(m) {
                let found = match self.build_ids.get(&path) {
                    Some(found) => found.clone(),
                    None => {
                        blame_formats::files::open_regular(&path)
                            .map_err(crate::error::io(&path))?;
                        let found = with_object(&path, |file| {
                            file.build_id().ok().flatten().map(<[u8]>::to_vec)
                        })
                        .ok()
                        .flatten();
                        self.build_ids.insert(path.clone(), found.clone());
                        found
                    }
                };
                if let Some(found) = found {
                    if found != m.build_id {
                        return Err(PostError::BuildIdMismatch {
                            path,
                            recorded: hex(&m.build_id),
                            found: hex(&found),
                            recording: recording.to_path_buf(),
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// Where the object of mapping `m` is on this machine, if anywhere.
    fn locate(&self, m: &Mapping) -> Option<PathBuf> {
        locate(&self.search_dirs, &m.path, &m.build_id)
    }

    /// `name [kernel]` for a kernel address, from the `kallsyms` the recorder saved.
    fn kernel_symbol(&mut self, address: u64) -> String {
        if self.kernel_symbols.is_none() {
            let text = self
                .search_dirs
                .iter()
                .map(|d| d.join(blame_formats::run_dir::KALLSYMS_FILE))
                .find_map(|p| std::fs::read_to_string(p).ok());
            if text.is_none() {
                self.warnings.push(Warning::NoKallsyms);
            }
            self.kernel_symbols = Some(text.as_deref().map(parse_kallsyms).unwrap_or_default());
        }
        let syms = self.kernel_symbols.as_deref().unwrap_or_default();
        match syms.partition_point(|(a, _)| *a <= address) {
            0 => format!("[kernel {address:#x}]"),
            i => format!("{} [kernel]", syms[i - 1].1),
        }
    }

    fn object(&mut self, m: &Mapping) -> Option<&ObjectSymbols> {
        // The vDSO: the recorder's copy, if it saved one (recordings of
        // earlier builds did not; nothing to warn about, and a copy of
        // kernel code has no debug information).
        let vdso = m.path == VDSO_MAPPING;
        if m.path.starts_with('[') && !vdso {
            // [vsyscall]: no file to read.
            return None;
        }
        if !self.objects.contains_key(&m.path) {
            let opened = match self.locate(m) {
                None => {
                    if !vdso {
                        self.warnings.push(Warning::BinaryNotFound {
                            path: m.path.clone(),
                        });
                    }
                    None
                }
                Some(path) => match open_object(&path) {
                    Ok(o) => {
                        if !vdso
                            && !o.has_debug_info
                            && !is_system_library(&path)
                            // A launcher (mpirun, orterun, srun) is expected
                            // without debug info: none of its samples is the
                            // application's.
                            && !blame_formats::stream::is_launcher(&[path
                                .display()
                                .to_string()])
                            && debug_file(&path, &m.build_id).is_none()
                        {
                            self.warnings
                                .push(Warning::NoDebugInfo { path: path.clone() });
                        }
                        Some(o)
                    }
                    Err(e) => {
                        self.warnings.push(Warning::BinaryUnreadable {
                            path: path.clone(),
                            error: e.to_string(),
                        });
                        None
                    }
                },
            };
            self.objects.insert(m.path.clone(), opened);
        }
        self.objects.get(&m.path).and_then(|o| o.as_ref())
    }

    /// Frames for one runtime address (inlined frames first, then the
    /// enclosing function). `is_return` addresses are looked up one byte
    /// earlier so they land on the call instruction.
    pub fn frames_for(
        &mut self,
        mappings: &[Mapping],
        address: u64,
        is_return: bool,
    ) -> Vec<SymFrame> {
        self.cached_frames(mappings, address, is_return).to_vec()
    }

    /// [`Self::frames_for`], borrowed from the cache.
    fn cached_frames(
        &mut self,
        mappings: &[Mapping],
        address: u64,
        is_return: bool,
    ) -> &[SymFrame] {
        let probe = if is_return {
            address.saturating_sub(1)
        } else {
            address
        };
        let key = match mappings
            .iter()
            .rev()
            .find(|m| probe >= m.start && probe < m.end)
        {
            Some(m) => {
                let id = match self.object_ids.get(&m.path) {
                    Some(&id) => id,
                    None => {
                        let id = self.object_ids.len() as u32 + 1;
                        self.object_ids.insert(m.path.clone(), id);
                        id
                    }
                };
                (id, probe - m.start + m.file_offset, is_return)
            }
            None => (0, address, is_return),
        };
        if !self.cache.contains_key(&key) {
            let frames = self.lookup(mappings, address, is_return);
            self.cache.insert(key, frames);
        }
        &self.cache[&key]
    }

    fn lookup(&mut self, mappings: &[Mapping], address: u64, is_return: bool) -> Vec<SymFrame> {
        let probe_addr = if is_return {
            address.saturating_sub(1)
        } else {
            address
        };
        let unknown = |what: String| {
            vec![SymFrame {
                function: what,
                file: String::new(),
                line: 0,
                column: 0,
                inlined: false,
            }]
        };
        let Some(m) = mappings
            .iter()
            .rev()
            .find(|m| probe_addr >= m.start && probe_addr < m.end)
        else {
            return unknown(format!("[unknown {address:#x}]"));
        };
        if m.path == KERNEL_MAPPING {
            return unknown(self.kernel_symbol(probe_addr));
        }
        let offset = probe_addr - m.start + m.file_offset;
        let base = Path::new(&m.path)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let m = m.clone();
        let Some(obj) = self.object(&m) else {
            return unknown(format!("[{base}+{offset:#x}]"));
        };
        let Some(vaddr) = obj.file_offset_to_vaddr(offset) else {
            return unknown(format!("[{base}+{offset:#x}]"));
        };
        let mut out = Vec::new();
        if let Ok(mut iter) = obj.loader.find_frames(vaddr) {
            while let Ok(Some(frame)) = iter.next() {
                let function = frame
                    .function
                    .as_ref()
                    .and_then(|f| f.raw_name().ok().map(|n| n.into_owned()))
                    .unwrap_or_default();
                let (file, line, column) = frame
                    .location
                    .as_ref()
                    .map(|l| {
                        (
                            l.file.unwrap_or("").to_string(),
                            l.line.unwrap_or(0),
                            l.column.unwrap_or(0),
                        )
                    })
                    .unwrap_or_default();
                out.push(SymFrame {
                    function,
                    file,
                    line,
                    column,
                    inlined: true,
                });
            }
        }
        if let Some(last) = out.last_mut() {
            last.inlined = false;
        }
        if out.is_empty() || out.last().is_some_and(|f| f.function.is_empty()) {
            // No DWARF for this address: fall back to the symbol table, then
            // to the separate debug file's.
            let name = obj
                .loader
                .find_symbol(vaddr)
                .or_else(|| obj.debug_function(&m.build_id, vaddr))
                .or_else(|| obj.plt_function(vaddr))
                .map(str::to_string);
            match (out.last_mut(), name) {
                (Some(last), Some(n)) => last.function = n,
                (None, Some(n)) => out.push(SymFrame {
                    function: n,
                    file: String::new(),
                    line: 0,
                    column: 0,
                    inlined: false,
                }),
                // No name: the start of its function when the unwind
                // tables know it (one frame per function, not per address).
                (None, None) => {
                    let start = obj
                        .fde_function_start(vaddr)
                        .map_or(offset, |start| offset - (vaddr - start));
                    return unknown(format!("[{base}+{start:#x}]"));
                }
                (Some(_), None) => {}
            }
        }
        out
    }

    /// Every instruction of the function enclosing `address`, as (runtime
    /// address, is a call), in order. `None` when the code cannot be read.
    pub fn function_instructions(
        &mut self,
        mappings: &[Mapping],
        address: u64,
    ) -> Option<Vec<(u64, bool)>> {
        let m = mappings
            .iter()
            .rev()
            .find(|m| address >= m.start && address < m.end)?
            .clone();
        let obj = self.object(&m)?;
        let vaddr = obj.file_offset_to_vaddr(address - m.start + m.file_offset)?;
        let bias = address - vaddr;
        let (fstart, fend) = *range_holding(&obj.symbols().functions, vaddr, |&r| r)?;
        let (sec_addr, bytes) = obj
            .code()
            .iter()
            .find(|(a, d)| fstart >= *a && fend <= a + d.len() as u64)?;
        let body = &bytes[(fstart - sec_addr) as usize..(fend - sec_addr) as usize];
        let mut decoder =
            iced_x86::Decoder::with_ip(64, body, fstart, iced_x86::DecoderOptions::NONE);
        let mut out = Vec::new();
        while decoder.can_decode() {
            let ins = decoder.decode();
            out.push((ins.ip() + bias, ins.mnemonic() == iced_x86::Mnemonic::Call));
        }
        Some(out)
    }

    /// The instructions of the enclosing function up to and including the
    /// one at `address`, oldest first; at most `limit` of them. `None` when
    /// the code cannot be read or `address` is not an instruction boundary.
    pub fn instructions_before(
        &mut self,
        mappings: &[Mapping],
        address: u64,
        limit: usize,
    ) -> Option<Vec<(u64, bool)>> {
        let all = self.function_instructions(mappings, address)?;
        let end = all.iter().position(|i| i.0 == address)? + 1;
        Some(all[end.saturating_sub(limit)..end].to_vec())
    }

    /// The global or static variable whose memory holds `address`, by its
    /// symbol name (demangled), searching every object mapped in the process.
    /// `.bss` past the file-backed pages is found through the object's load bias.
    pub fn data_symbol(&mut self, mappings: &[Mapping], address: u64) -> Option<String> {
        let mut seen = std::collections::HashSet::new();
        for m in mappings {
            if !seen.insert(m.path.clone()) {
                continue;
            }
            let m = m.clone();
            let Some(obj) = self.object(&m) else { continue };
            let Some(vaddr) = obj.file_offset_to_vaddr(m.file_offset) else {
                continue;
            };
            let bias = m.start.wrapping_sub(vaddr);
            let svma = address.wrapping_sub(bias);
            let data_symbols = &obj.symbols().data;
            if let Some((_, _, name)) =
                range_holding(data_symbols, svma, |&(start, end, _)| (start, end))
            {
                return Some(demangle(name));
            }
        }
        None
    }

    /// Symbolizes a whole stack (innermost first): the first address is the
    /// sampled PC, the others return addresses. Inlined frames are expanded.
    pub fn stack(&mut self, mappings: &[Mapping], addresses: &[u64]) -> Vec<SymFrame> {
        let mut out = Vec::with_capacity(addresses.len() + 4);
        for (i, &a) in addresses.iter().enumerate() {
            out.extend_from_slice(self.cached_frames(mappings, a, i > 0));
        }
        fold_startup_frames(&mut out);
        out
    }
}

/// An unnamed libc frame directly below `__libc_start_main` is libc's
/// startup code (`__libc_start_call_main`, not exported, so unnamed without
/// a symbol table or debug file): it is folded into `__libc_start_main`,
/// never shown as a raw `[libc.so.6+0x27249]` above `main`.
pub fn fold_startup_frames(frames: &mut Vec<SymFrame>) {
    fold_startup(frames, startup_kind);
}

/// What a frame is to [`fold_startup`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum StartupKind {
    /// An unnamed libc frame (`[libc.so.6+0x27249]`).
    RawLibc,
    LibcStartMain,
    Other,
}

pub fn startup_kind(f: &SymFrame) -> StartupKind {
    if f.function.starts_with("[libc") && f.function.contains("+0x") && f.file.is_empty() {
        StartupKind::RawLibc
    } else if f.function.starts_with("__libc_start_main") {
        StartupKind::LibcStartMain
    } else {
        StartupKind::Other
    }
}

/// [`fold_startup_frames`] of a stack of any items that name a frame (ids
/// into a frame table), `kind` telling what each is. Returns whether the
/// innermost item was folded.
pub fn fold_startup<T>(stack: &mut Vec<T>, kind: impl Fn(&T) -> StartupKind) -> bool {
    let mut i = 0;
    let mut folded_first = false;
    while i + 1 < stack.len() {
        if kind(&stack[i]) == StartupKind::RawLibc
            && stack[i + 1..]
                .iter()
                .map(&kind)
                .find(|&k| k != StartupKind::RawLibc)
                == Some(StartupKind::LibcStartMain)
        {
            stack.remove(i);
            folded_first |= i == 0;
        } else {
            i += 1;
        }
    }
    folded_first
}

/// The symbols of an object as (start, end, name), sorted by start; a
/// symbol without a size (`_start`) ends where the next one starts.
fn read_function_symbols(path: &Path) -> std::result::Result<Vec<(u64, u64, String)>, ObjectError> {
    with_object(path, |file| {
        file.symbol_map()
            .symbols()
            .iter()
            .map(|sym| {
                (
                    sym.address(),
                    sym.address() + sym.size(),
                    sym.name().to_string(),
                )
            })
            .collect()
    })
}

fn open_object(path: &Path) -> std::result::Result<ObjectSymbols, OpenObjectError> {
    let (segments, has_debug_info) = with_object(path, |file| {
        let segments = file
            .segments()
            .map(|s| {
                let (off, size) = s.file_range();
                (off, size, s.address())
            })
            .collect();
        (segments, file.section_by_name(".debug_line").is_some())
    })?;
    let loader = addr2line::Loader::new(path).map_err(|e| OpenObjectError::DebugInfo {
        reason: e.to_string(),
    })?;
    Ok(ObjectSymbols {
        path: path.to_path_buf(),
        loader,
        segments,
        symbols: OnceCell::new(),
        code: OnceCell::new(),
        debug_functions: OnceCell::new(),
        plt: OnceCell::new(),
        fde_functions: OnceCell::new(),
        has_debug_info,
    })
}

fn read_symbol_tables(path: &Path) -> std::result::Result<SymbolTables, ObjectError> {
    with_object(path, |file| {
        let mut data: Vec<(u64, u64, String)> = file
            .symbols()
            .filter(|sym| sym.kind() == object::SymbolKind::Data && sym.size() > 0)
            .filter_map(|sym| {
                sym.name()
                    .ok()
                    .map(|n| (sym.address(), sym.address() + sym.size(), n.to_string()))
            })
            .collect();
        data.sort();
        let mut functions: Vec<(u64, u64)> = file
            .symbols()
            .filter(|sym| sym.kind() == object::SymbolKind::Text && sym.size() > 0)
            .map(|sym| (sym.address(), sym.address() + sym.size()))
            .collect();
        functions.sort();
        SymbolTables { data, functions }
    })
}

fn read_code(path: &Path) -> std::result::Result<Vec<(u64, Vec<u8>)>, ObjectError> {
    with_object(path, |file| {
        file.sections()
            .filter(|sec| sec.kind() == object::SectionKind::Text)
            .filter_map(|sec| sec.data().ok().map(|d| (sec.address(), d.to_vec())))
            .collect()
    })
}

/// Why a binary's symbols cannot be read.
#[derive(Debug, thiserror::Error)]
enum OpenObjectError {
    #[error(transparent)]
    Object(#[from] ObjectError),
    /// addr2line's loader gives its error only as text.
    #[error("{reason}")]
    DebugInfo { reason: String },
}

/// One demangler for every stage (`blame_formats::names`).
pub use blame_formats::names::demangle;

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(function: &str) -> SymFrame {
        SymFrame {
            function: function.into(),
            file: if function.starts_with('[') {
                String::new()
            } else {
                "t.c".into()
            },
            line: 0,
            column: 0,
            inlined: false,
        }
    }

    fn names(frames: &[SymFrame]) -> Vec<&str> {
        frames.iter().map(|f| f.function.as_str()).collect()
    }

    /// libc's unexported `__libc_start_call_main`, unnamed without a debug
    /// file, is folded into `__libc_start_main`; other raw frames stay.
    #[test]
    fn an_unnamed_libc_frame_below_libc_start_main_is_folded_into_it() {
        let mut stack: Vec<SymFrame> = [
            "fill",
            "main",
            "[libc.so.6+0x27249]",
            "__libc_start_main",
            "_start",
        ]
        .map(frame)
        .to_vec();
        fold_startup_frames(&mut stack);
        assert_eq!(
            names(&stack),
            ["fill", "main", "__libc_start_main", "_start"]
        );
        // A raw libc frame elsewhere (no debug file for a callee of main) stays.
        let mut stack: Vec<SymFrame> = [
            "[libc.so.6+0x9a1f0]",
            "main",
            "[libc.so.6+0x27249]",
            "__libc_start_main_impl",
            "_start",
        ]
        .map(frame)
        .to_vec();
        fold_startup_frames(&mut stack);
        assert_eq!(
            names(&stack),
            [
                "[libc.so.6+0x9a1f0]",
                "main",
                "__libc_start_main_impl",
                "_start"
            ]
        );
    }

    /// With the separate debug file of this machine's libc (libc6-dbg), the
    /// startup frame has its own name.
    #[test]
    fn the_debug_file_names_what_the_object_does_not_export() {
        let libc = Path::new("/lib/x86_64-linux-gnu/libc.so.6");
        let Some(debug) = libc.is_file().then(|| debug_file(libc, &[])).flatten() else {
            eprintln!("skipping: no separate debug file for {}", libc.display());
            return;
        };
        let syms = read_function_symbols(&debug).unwrap();
        let start_call = syms
            .iter()
            .find(|(_, _, n)| n == "__libc_start_call_main")
            .expect("the debug file's symbol table has the static function");
        let obj = open_object(libc).unwrap();
        let inside = start_call.0 + 4;
        assert_eq!(obj.loader.find_symbol(inside), None, "not exported");
        assert_eq!(
            obj.debug_function(&[], inside),
            Some("__libc_start_call_main")
        );
    }

    /// An address in a PLT stub, which no symbol table covers, is named
    /// after the function the stub reaches, as perf names it.
    #[test]
    fn a_plt_stub_is_named_after_the_function_it_reaches() {
        let libc = Path::new("/lib/x86_64-linux-gnu/libc.so.6");
        if !libc.is_file() {
            return;
        }
        let obj = open_object(libc).unwrap();
        let stubs = crate::input::plt::plt_stubs(libc);
        let (start, _, name) = stubs
            .iter()
            .find(|(_, _, n)| n.starts_with("mem"))
            .expect("libc calls its memory functions through its PLT");
        assert_eq!(
            obj.loader.find_symbol(start + 6),
            None,
            "no symbol covers it"
        );
        assert_eq!(obj.plt_function(start + 6), Some(name.as_str()));
        assert_eq!(obj.plt_function(0), None);
    }

    /// Samples in a function no symbol names (a stripped library's static
    /// function) are one frame, at the function's start by the unwind
    /// tables, whatever instruction they hit.
    #[test]
    fn unnamed_code_is_one_frame_per_function() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("t.c");
        std::fs::write(
            &src,
            "static int __attribute__((noinline)) helper(int *a, int n) {\n\
             int s = 0; for (int i = 0; i < n; i++) s += a[i] * i; return s; }\n\
             int exported(int *a, int n) { return helper(a, n) + 1; }\n",
        )
        .unwrap();
        let lib = dir.path().join("libt.so");
        let built = std::process::Command::new("clang-19")
            .args(["-O1", "-shared", "-fPIC", "-o"])
            .arg(&lib)
            .arg(&src)
            .status()
            .is_ok_and(|s| s.success())
            && std::process::Command::new("strip")
                .arg("--strip-all")
                .arg(&lib)
                .status()
                .is_ok_and(|s| s.success());
        if !built {
            eprintln!("skipping: no clang-19 or strip");
            return;
        }
        let obj = open_object(&lib).unwrap();
        let functions = crate::input::fde_functions::fde_functions(&lib);
        // helper: a function of the unwind tables that no symbol covers.
        let &(start, end) = functions
            .iter()
            .find(|(start, end)| {
                obj.loader.find_symbol(*start).is_none()
                    && obj.loader.find_symbol(end - 1).is_none()
                    && obj.plt_function(*start).is_none()
            })
            .expect("the static function has unwind information and no symbol");
        assert!(end - start >= 8, "{start:#x}..{end:#x}");
        let (off, size, vaddr) = *obj
            .segments
            .iter()
            .find(|(_, size, vaddr)| start >= *vaddr && start < vaddr + size)
            .unwrap();
        let base = 0x7f00_0000_0000;
        let mapping = Mapping {
            pid: 1,
            start: base + vaddr,
            end: base + vaddr + size,
            file_offset: off,
            path: lib.display().to_string(),
            build_id: Vec::new(),
        };
        let mut symbolizer = Symbolizer::new(Vec::new());
        let mut name = |at: u64| {
            let frames = symbolizer.frames_for(std::slice::from_ref(&mapping), base + at, false);
            names(&frames).join(" ")
        };
        let expected = format!("[libt.so+{:#x}]", start - vaddr + off);
        assert_eq!(name(start + 2), expected);
        assert_eq!(name(end - 1), expected);
    }
}
