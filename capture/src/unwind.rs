//! Unwinding of copied user stacks with framehop: the `.eh_frame`,
//! `.eh_frame_hdr` and `.debug_frame` of every executable mapping, read
//! from the mapped files (loaded once per file and shared by all processes
//! that map it), and one framehop unwinder per address space. The recorder
//! memory-maps the files ([`ObjectCache::new`] takes how); the perf.data
//! importer reads them ([`read_file`]).

use framehop::x86_64::{CacheX86_64, UnwindRegsX86_64, UnwinderX86_64};
use framehop::{ExplicitModuleSectionInfo, FrameAddress, Module, Unwinder};

use object::{Object, ObjectSection, ObjectSegment};
use std::cell::Cell;
use std::collections::HashMap;
use std::ops::{Deref, Range};
use std::path::Path;
use std::sync::Arc;

/// The most frames one stack may have (deeper stacks are cut at the outermost end).
pub const MAX_FRAMES: usize = 512;

/// The bytes of a whole object file, memory-mapped or read.
pub type FileBytes = Arc<dyn Deref<Target = [u8]> + Send + Sync>;

/// How an [`ObjectCache`] loads an object file's bytes.
pub type ObjectLoader = fn(&Path) -> std::io::Result<FileBytes>;

/// Reads the whole file (no memory map: the importer's loader).
pub fn read_file(path: &Path) -> std::io::Result<FileBytes> {
    Ok(Arc::new(std::fs::read(path)?))
}

/// Bytes of one section of a loaded object file.
#[derive(Clone)]
pub struct SectionBytes {
    map: FileBytes,
    range: Range<usize>,
}

impl Deref for SectionBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.map[self.range.clone()]
    }
}

/// What the unwinder needs from one object file.
pub struct ObjectInfo {
    pub build_id: Vec<u8>,
    /// (file offset, file size, virtual address) of each loadable segment.
    segments: Vec<(u64, u64, u64)>,
    sections: ExplicitModuleSectionInfo<SectionBytes>,
}

impl ObjectInfo {
    fn open(path: &Path, load: ObjectLoader) -> Option<ObjectInfo> {
        let map = load(path).ok()?;
        let obj = object::File::parse(&map[..]).ok()?;
        let section = |name: &str| -> (Option<Range<u64>>, Option<SectionBytes>) {
            let Some(s) = obj.section_by_name(name) else {
                return (None, None);
            };
            let svma = s.address()..s.address() + s.size();
            let bytes = s.file_range().map(|(off, len)| SectionBytes {
                map: map.clone(),
                range: off as usize..(off + len) as usize,
            });
            (Some(svma), bytes)
        };
        let (text_svma, text) = section(".text");
        let (eh_frame_svma, eh_frame) = section(".eh_frame");
        let (eh_frame_hdr_svma, eh_frame_hdr) = section(".eh_frame_hdr");
        let (got_svma, _) = section(".got");
        let (_, debug_frame) = section(".debug_frame");
        let sections = ExplicitModuleSectionInfo {
            base_svma: 0,
            text_svma,
            text,
            got_svma,
            eh_frame_svma,
            eh_frame,
            eh_frame_hdr_svma,
            eh_frame_hdr,
            debug_frame,
            stubs_svma: None,
            stub_helper_svma: None,
            unwind_info: None,
            text_segment_svma: None,
            text_segment: None,
        };
        let segments = obj
            .segments()
            .map(|s| {
                let (off, size) = s.file_range();
                (off, size, s.address())
            })
            .collect();
        Some(ObjectInfo {
            build_id: obj.build_id().ok().flatten().unwrap_or_default().to_vec(),
            segments,
            sections,
        })
    }

    /// The load bias of a mapping of this file at `start` from file offset `pgoff`.
    fn bias(&self, start: u64, pgoff: u64) -> Option<u64> {
        let &(off, _, vaddr) = self
            .segments
            .iter()
            .find(|(off, size, _)| pgoff >= *off && pgoff < off + size.max(&1))?;
        Some(start.wrapping_sub(pgoff - off + vaddr))
    }
}

/// Object files by path, opened once per recording.
pub struct ObjectCache {
    objects: HashMap<String, Option<Arc<ObjectInfo>>>,
    load: ObjectLoader,
}

impl ObjectCache {
    /// An empty cache whose files are loaded with `load`.
    pub fn new(load: ObjectLoader) -> ObjectCache {
        ObjectCache {
            objects: HashMap::new(),
            load,
        }
    }

    pub fn get(&mut self, path: &str) -> Option<Arc<ObjectInfo>> {
        self.objects
            .entry(path.to_string())
            .or_insert_with(|| {
                if path.starts_with('[') || path.is_empty() {
                    return None;
                }
                ObjectInfo::open(Path::new(path), self.load).map(Arc::new)
            })
            .clone()
    }
}

/// How a hybrid walk (copied stack bytes, then the kernel's frame-pointer
/// callchain) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HybridWalk {
    /// The copy held the whole stack (or the unwinder found its root).
    Complete,
    /// Unwound from the copy up to a frame with a frame pointer, then continued with the callchain.
    Stitched,
    /// Stopped at the end of the copy in a frame the callchain cannot continue
    /// (no frame pointer there, or the frame-pointer chain was broken at the sample).
    Cut,
    /// The unwinder stopped inside the copy (no unwind information, a bad address).
    Stopped,
}

/// The unwinder of one address space.
pub struct ProcessUnwinder {
    unwinder: UnwinderX86_64<SectionBytes>,
    cache: CacheX86_64,
    modules: Vec<Range<u64>>,
    /// Frame-pointer chain through the copy (scratch of `unwind_hybrid`).
    frame_bases: Vec<u64>,
}

impl Default for ProcessUnwinder {
    fn default() -> Self {
        ProcessUnwinder {
            unwinder: UnwinderX86_64::new(),
            cache: CacheX86_64::new(),
            modules: Vec::new(),
            frame_bases: Vec::new(),
        }
    }
}

impl Clone for ProcessUnwinder {
    /// A forked child starts with its parent's modules and a fresh cache.
    fn clone(&self) -> Self {
        ProcessUnwinder {
            unwinder: self.unwinder.clone(),
            cache: CacheX86_64::new(),
            modules: self.modules.clone(),
            frame_bases: Vec::new(),
        }
    }
}

impl ProcessUnwinder {
    /// Adds an executable mapping; returns false when the object has no unwind information.
    pub fn add_mapping(
        &mut self,
        objects: &mut ObjectCache,
        path: &str,
        start: u64,
        end: u64,
        pgoff: u64,
    ) -> bool {
        let Some(obj) = objects.get(path) else {
            return false;
        };
        let Some(bias) = obj.bias(start, pgoff) else {
            return false;
        };
        if let Some(i) = self.modules.iter().position(|r| r.start == start) {
            self.unwinder.remove_module(start);
            self.modules.swap_remove(i);
        }
        self.unwinder.add_module(Module::new(
            path.to_string(),
            start..end,
            bias,
            obj.sections.clone(),
        ));
        self.modules.push(start..end);
        true
    }

    /// Forgets every module (the process exec'd a new image).
    pub fn clear(&mut self) {
        *self = ProcessUnwinder::default();
    }

    /// Unwinds a stack copied at `sp` with registers (ip, sp, bp) into
    /// `out`: the ip first, then return addresses, innermost first. Returns
    /// true when the walk stopped because it needed stack memory past the
    /// end of the copy (the stack is cut short: frames with large locals or
    /// a deep chain put the outer return addresses beyond the copied bytes).
    pub fn unwind(&mut self, ip: u64, sp: u64, bp: u64, stack: &[u8], out: &mut Vec<u64>) -> bool {
        out.clear();
        // A read just past the copy (not a wild address from a garbage frame pointer).
        const NEAR: usize = 1 << 20;
        let mut past_end = false;
        let mut read_stack = |addr: u64| -> Result<u64, ()> {
            let off = addr.checked_sub(sp).ok_or(())? as usize;
            match stack.get(off..off.checked_add(8).ok_or(())?) {
                Some(word) => Ok(u64::from_le_bytes(word.try_into().map_err(|_| ())?)),
                None => {
                    past_end |= off < stack.len() + NEAR;
                    Err(())
                }
            }
        };
        let regs = UnwindRegsX86_64::new(ip, sp, bp);
        let mut stopped_by_error = false;
        {
            let mut frames = self
                .unwinder
                .iter_frames(ip, regs, &mut self.cache, &mut read_stack);
            loop {
                match frames.next() {
                    Ok(Some(frame)) => {
                        out.push(frame.address());
                        if out.len() >= MAX_FRAMES {
                            break;
                        }
                    }
                    Ok(None) => break,
                    Err(_) => {
                        stopped_by_error = true;
                        break;
                    }
                }
            }
        }
        if out.is_empty() {
            out.push(ip);
        }
        stopped_by_error && past_end
    }
}

impl ProcessUnwinder {
    /// Hybrid unwinding: `stack` is a small copy of the user stack at `sp`
    /// taken with registers (ip, sp, bp), and `chain` the kernel's
    /// frame-pointer callchain of the same sample (`chain[0]` the ip,
    /// `chain[i + 1]` the return address stored at frame base `b_i`, where
    /// `b_0 = bp` and `b_{i+1} = *b_i`). Frames are unwound from DWARF CFI
    /// as far as the copy reaches; this is what walks leaf functions built
    /// without frame pointers (libc, libm, MPI, BLAS), which the callchain
    /// skips or, when they use `rbp` for data, derails on. When the walk needs
    /// memory past the copy in a frame whose return address sits at its frame
    /// pointer (the unwinder reads `bp` or `bp + 8`), that `bp` is one of the
    /// frame bases `b_i` (found by following the chain through the copy), and
    /// the callchain from `chain[i + 1]` holds the remaining return
    /// addresses: the two walks are joined on the frame's address, not on
    /// return addresses (which repeat in recursion). Outer addresses outside
    /// every mapped object (a broken chain past `main`) are dropped.
    pub fn unwind_hybrid(
        &mut self,
        ip: u64,
        sp: u64,
        bp: u64,
        stack: &[u8],
        chain: &[u64],
        out: &mut Vec<u64>,
    ) -> HybridWalk {
        out.clear();
        let word = |addr: u64| -> Option<u64> {
            let off = usize::try_from(addr.checked_sub(sp)?).ok()?;
            let bytes = stack.get(off..off.checked_add(8)?)?;
            Some(u64::from_le_bytes(bytes.try_into().ok()?))
        };
        // The frame bases the kernel walked, as far as the copy shows them:
        // the last one is the first whose record lies past the copy.
        let bases = &mut self.frame_bases;
        bases.clear();
        if chain.first() == Some(&ip) {
            let mut base = bp;
            while bases.len() + 1 < chain.len() {
                bases.push(base);
                match word(base) {
                    Some(next) if next > base => base = next,
                    _ => break,
                }
            }
        }
        // First address read past the copy while unwinding the current frame.
        const NEAR: u64 = 1 << 20;
        let end = sp.saturating_add(stack.len() as u64);
        let missed: Cell<Option<u64>> = Cell::new(None);
        let mut read_stack = |addr: u64| -> Result<u64, ()> {
            match word(addr) {
                Some(w) => Ok(w),
                None => {
                    if missed.get().is_none() && addr >= end && addr < end + NEAR {
                        missed.set(Some(addr));
                    }
                    Err(())
                }
            }
        };
        let mut regs = UnwindRegsX86_64::new(ip, sp, bp);
        let mut address = FrameAddress::from_instruction_pointer(ip);
        out.push(ip);
        let mut passed_root = false;
        loop {
            let frame_bp = regs.bp();
            missed.set(None);
            match self
                .unwinder
                .unwind_frame(address, &mut regs, &mut self.cache, &mut read_stack)
            {
                Ok(Some(ret)) => {
                    out.push(ret);
                    passed_root |= regs.bp() == 0;
                    match FrameAddress::from_return_address(ret) {
                        Some(a) if out.len() < MAX_FRAMES => address = a,
                        _ => return HybridWalk::Complete,
                    }
                }
                Ok(None) => return HybridWalk::Complete,
                Err(_) => {
                    let Some(at) = missed.get() else {
                        // The unwinder stopped inside the copy at the sampled
                        // address (an address it cannot unwind from): the
                        // callchain alone.
                        if out.len() == 1 && chain.first() == Some(&ip) {
                            out.extend(chain.iter().skip(1).take(MAX_FRAMES - 1));
                        }
                        return HybridWalk::Stopped;
                    };
                    let at_frame_pointer = at == frame_bp || at == frame_bp.wrapping_add(8);
                    let joined = at_frame_pointer
                        .then(|| bases.iter().position(|&b| b == frame_bp))
                        .flatten();
                    let modules = &self.modules;
                    let mapped = |a: &u64| modules.iter().any(|m| m.contains(a));
                    let Some(i) = joined else {
                        // Past main (whose caller's frame pointer is 0 by
                        // the ABI) the walk only misses the startup frames,
                        // which the callchain lacks too: not cut. Nor is a
                        // walk that stopped within the last frames of the
                        // callchain, past the outermost frame it reached
                        // (main's return into libc's start, whose frame
                        // pointer holds data): the copy ended where the
                        // callchain did. (A callchain broken early, by a
                        // library using rbp for data, ends far below.)
                        const PAST_CHAIN: usize = 3;
                        let outermost = chain.iter().rev().find(|a| mapped(a));
                        let reached = out
                            .iter()
                            .skip(1)
                            .rposition(|a| Some(a) == outermost)
                            .is_some_and(|i| out.len() - 1 - i <= PAST_CHAIN);
                        return if passed_root || reached {
                            HybridWalk::Complete
                        } else {
                            HybridWalk::Cut
                        };
                    };
                    let rest = chain[i + 1..].iter().take_while(|a| mapped(a));
                    out.extend(rest.take(MAX_FRAMES.saturating_sub(out.len())));
                    return HybridWalk::Stitched;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_binary_has_unwind_tables_and_a_bias() {
        let exe = std::env::current_exe().unwrap();
        let mut cache = ObjectCache::new(read_file);
        let obj = cache.get(exe.to_str().unwrap()).expect("test binary opens");
        assert!(obj.sections.eh_frame.is_some());
        let text = obj
            .segments
            .iter()
            .find(|(off, _, _)| *off > 0)
            .copied()
            .unwrap();
        assert_eq!(
            obj.bias(0x5555_0000_0000 + text.2, text.0),
            Some(0x5555_0000_0000)
        );
    }

    #[test]
    fn missing_and_pseudo_files_have_no_object() {
        let mut cache = ObjectCache::new(read_file);
        assert!(cache.get("[vdso]").is_none());
        assert!(cache.get("/nonexistent/lib.so").is_none());
    }
}
