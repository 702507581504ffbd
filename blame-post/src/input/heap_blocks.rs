//! What a data address is in, as the samples are read: the heap blocks of
//! a process's allocation log (`--track-allocations`) with their lifetimes
//! and allocation sites, and the target a sample's data address was found
//! in (a block's site, a global's symbol, or nothing known). Naming the
//! variable a target belongs to is the attribution's (`attribution::by_address`).

use blame_formats::alloc_log::{AllocKind, AllocLog};
use blame_formats::stream::Mapping;
use std::collections::HashMap;

/// What a data address was found in.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DirectTarget {
    /// Index into [`HeapBlocks::sites`]: the allocation site.
    Heap(u32),
    /// A global or static, by symbol name.
    Global(String),
    /// Stack, unmapped memory, or a block the log does not know.
    Unattributed,
}

/// One heap block's lifetime.
#[derive(Debug, Clone, PartialEq)]
pub struct HeapBlock {
    pub start: u64,
    pub end: u64,
    pub alloc_ns: u64,
    pub free_ns: u64,
    /// Index into [`HeapBlocks::sites`].
    pub site: u32,
}

/// Every heap block of one process, and the distinct allocation sites.
#[derive(Debug, Clone, Default)]
pub struct HeapBlocks {
    /// Sorted by start address.
    pub blocks: Vec<HeapBlock>,
    /// (allocation function, return addresses innermost first).
    pub sites: Vec<(String, Vec<u64>)>,
    /// Parallel to `sites`: the (kind, site of the log) each one is.
    pub site_keys: Vec<(AllocKind, u32)>,
    /// The process's mappings as the tracer saw them.
    pub maps: Vec<Mapping>,
}

impl HeapBlocks {
    /// Pairs allocations with frees (a realloc frees its old block).
    pub fn from_log(log: &AllocLog) -> Self {
        let mut out = HeapBlocks::default();
        let mut site_ids: HashMap<(AllocKind, u32), u32> = HashMap::new();
        let mut live: HashMap<u64, usize> = HashMap::new();
        let close =
            |blocks: &mut Vec<HeapBlock>, live: &mut HashMap<u64, usize>, addr: u64, time: u64| {
                if let Some(i) = live.remove(&addr) {
                    blocks[i].free_ns = time;
                }
            };
        let mut blocks = Vec::new();
        for e in &log.events {
            match e.kind {
                AllocKind::Free => close(&mut blocks, &mut live, e.address, e.time_ns),
                kind => {
                    if kind == AllocKind::Realloc && e.old_address != 0 {
                        close(&mut blocks, &mut live, e.old_address, e.time_ns);
                    }
                    let next = site_ids.len() as u32;
                    let site = *site_ids.entry((kind, e.site)).or_insert_with(|| {
                        out.sites
                            .push((kind.function().to_string(), log.frames(e).to_vec()));
                        out.site_keys.push((kind, e.site));
                        next
                    });
                    // An address reused without a logged free (a torn log): close the old block.
                    close(&mut blocks, &mut live, e.address, e.time_ns);
                    blocks.push(HeapBlock {
                        start: e.address,
                        end: e.address + e.size.max(1),
                        alloc_ns: e.time_ns,
                        free_ns: u64::MAX,
                        site,
                    });
                    live.insert(e.address, blocks.len() - 1);
                }
            }
        }
        blocks.sort_by_key(|b| (b.start, b.alloc_ns));
        out.blocks = blocks;
        // The files mapped, as the tracer's copy of /proc/self/maps says.
        out.maps = log
            .maps
            .iter()
            .flat_map(|l| blame_capture::maps::parse_maps(log.pid, l))
            .filter(|e| e.file)
            .map(|e| e.mapping)
            .collect();
        out
    }

    /// The block holding `address` at `time_ns`. When no block was alive
    /// then (clocks not comparable), the latest block holding it.
    pub fn find(&self, address: u64, time_ns: u64) -> Option<&HeapBlock> {
        let upto = self.blocks.partition_point(|b| b.start <= address);
        let holding = self.blocks[..upto]
            .iter()
            .rev()
            .take(4096)
            .filter(|b| address < b.end);
        let mut latest: Option<&HeapBlock> = None;
        for b in holding {
            if b.alloc_ns <= time_ns && time_ns < b.free_ns {
                return Some(b);
            }
            if latest.is_none_or(|l| b.alloc_ns > l.alloc_ns) {
                latest = Some(b);
            }
        }
        latest
    }
}
