//! Online unwinding of copied user stacks with framehop: the `.eh_frame`,
//! `.eh_frame_hdr` and `.debug_frame` of every executable mapping, read
//! from the mapped files (memory-mapped once per file and shared by all
//! processes that map it), and one framehop unwinder per address space.

use framehop::x86_64::{CacheX86_64, UnwindRegsX86_64, UnwinderX86_64};
use framehop::{ExplicitModuleSectionInfo, Module, Unwinder};
use memmap2::Mmap;

use object::{Object, ObjectSection, ObjectSegment};
use std::collections::HashMap;
use std::ops::{Deref, Range};
use std::path::Path;
use std::sync::Arc;

/// The most frames one stack may have (deeper stacks are cut at the outermost end).
pub const MAX_FRAMES: usize = 512;

/// Bytes of one section of a memory-mapped object file.
#[derive(Clone)]
pub struct SectionBytes {
    map: Arc<Mmap>,
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
    fn open(path: &Path) -> Option<ObjectInfo> {
        let file = std::fs::File::open(path).ok()?;
        let map = Arc::new(crate::sys::map_readonly(&file).ok()?);
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
#[derive(Default)]
pub struct ObjectCache {
    objects: HashMap<String, Option<Arc<ObjectInfo>>>,
}

impl ObjectCache {
    pub fn get(&mut self, path: &str) -> Option<Arc<ObjectInfo>> {
        self.objects
            .entry(path.to_string())
            .or_insert_with(|| {
                if path.starts_with('[') || path.is_empty() {
                    return None;
                }
                ObjectInfo::open(Path::new(path)).map(Arc::new)
            })
            .clone()
    }
}

/// The unwinder of one address space.
pub struct ProcessUnwinder {
    unwinder: UnwinderX86_64<SectionBytes>,
    cache: CacheX86_64,
    modules: Vec<Range<u64>>,
}

impl Default for ProcessUnwinder {
    fn default() -> Self {
        ProcessUnwinder {
            unwinder: UnwinderX86_64::new(),
            cache: CacheX86_64::new(),
            modules: Vec::new(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_binary_has_unwind_tables_and_a_bias() {
        let exe = std::env::current_exe().unwrap();
        let mut cache = ObjectCache::default();
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
        let mut cache = ObjectCache::default();
        assert!(cache.get("[vdso]").is_none());
        assert!(cache.get("/nonexistent/lib.so").is_none());
    }
}
