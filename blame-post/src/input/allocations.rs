//! A process's allocation log as `blame post` reads it beside the samples:
//! the heap blocks with their allocation sites symbolized. The footprints
//! (`attribution::footprints`) and memory blame (`attribution::memory`)
//! are computed from it.

use crate::input::heap_blocks::HeapBlocks;
use crate::input::symbolize::Symbolizer;
use blame_formats::alloc_log::AllocLog;
use blame_formats::results::SymFrame;
use blame_formats::stream::Mapping;

/// A process's heap blocks with their allocation sites symbolized, as
/// `blame post` reads them from the allocation log beside a stream.
#[derive(Debug, Clone, Default)]
pub struct Allocations {
    pub blocks: HeapBlocks,
    /// Parallel to `blocks.sites`: (allocation function, symbolized stack).
    pub sites: Vec<(String, Vec<SymFrame>)>,
}

impl Allocations {
    pub fn new(blocks: HeapBlocks, symbolizer: &mut Symbolizer, mappings: &[Mapping]) -> Self {
        let maps = if blocks.maps.is_empty() {
            mappings
        } else {
            &blocks.maps
        };
        let sites = blocks
            .sites
            .iter()
            .map(|(function, frames)| {
                let frames = frames
                    .iter()
                    .flat_map(|&a| symbolizer.frames_for(maps, a, true))
                    .collect();
                (function.clone(), frames)
            })
            .collect();
        Allocations { blocks, sites }
    }
}

/// One process's allocation log with its sites symbolized, as `blame post`
/// reads it beside the process's samples.
#[derive(Debug, Clone)]
pub struct MemoryInput {
    pub log: AllocLog,
    /// `blocks.sites` parallel to (kind, log site) in order of first use
    /// (`HeapBlocks::site_keys`), symbolized in `sites`.
    pub allocations: Allocations,
}
