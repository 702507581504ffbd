//! Footprints of heap memory, for the access-pattern weights: how many
//! bytes of heap blocks each variable holds. A read through a pointer has no
//! size the static pass can see (`x[k]` with `x` a parameter), yet whether
//! its object stays in the L1 decides whether the read misses. The run
//! knows: the allocation log (`--track-allocations`) has every block with
//! its size, and direct attribution names the variable that received it.
//!
//! A variable's footprint is the peak of the bytes alive at once in the
//! blocks it received: one block for `x = malloc(n)`, all rows for `bus[i] =
//! malloc(..)` in a loop (the rows are one object to the cache, 1,200 rows
//! of 160 bytes are not a 160-byte array).

use crate::attribution::static_index::{StaticIndex, VarRef};
use crate::input::heap_blocks::HeapBlocks;
use blame_formats::static_db::VarKind;
use std::collections::HashMap;

/// Peak bytes of heap blocks per receiving variable.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HeapFootprints {
    /// Locals, parameters and fields, by function and variable.
    by_var: HashMap<VarRef, u64>,
    /// Globals by name: every function that reads a global has its own
    /// variable for it.
    by_global: HashMap<String, u64>,
}

impl HeapFootprints {
    /// The footprints of `heap`'s blocks, each site named by `site_names`
    /// (parallel to [`HeapBlocks::sites`]; `None`: no variable received it).
    pub fn from_blocks(
        index: &StaticIndex,
        heap: &HeapBlocks,
        site_names: &[Option<VarRef>],
    ) -> Self {
        // +size at allocation, -size at free, per variable, in time order.
        let mut events: Vec<(u64, bool, VarRef, u64)> = Vec::new();
        for b in &heap.blocks {
            let Some(Some(v)) = site_names.get(b.site as usize) else {
                continue;
            };
            let size = b.end - b.start;
            events.push((b.alloc_ns, true, *v, size));
            if b.free_ns != u64::MAX {
                events.push((b.free_ns, false, *v, size));
            }
        }
        // Frees before allocations at one time stamp (a realloc's old block).
        events.sort_by_key(|&(t, alloc, v, _)| (t, alloc, v));
        let mut live: HashMap<VarRef, u64> = HashMap::new();
        let mut out = HeapFootprints::default();
        for (_, alloc, v, size) in events {
            let now = live.entry(v).or_default();
            if alloc {
                *now += size;
                let peak = out.by_var.entry(v).or_default();
                *peak = (*peak).max(*now);
            } else {
                *now = now.saturating_sub(size);
            }
        }
        // Globals by name, whichever function allocated them.
        for (&(fi, vi), &bytes) in &out.by_var {
            let var = &index.functions[fi as usize].variables[vi as usize];
            if var.kind == VarKind::Global {
                let peak = out.by_global.entry(var.name.clone()).or_default();
                *peak = (*peak).max(bytes);
            }
        }
        out
    }

    /// Records `bytes` for a variable (largest wins).
    pub fn insert(&mut self, index: &StaticIndex, v: VarRef, bytes: u64) {
        let var = &index.functions[v.0 as usize].variables[v.1 as usize];
        let slot = if var.kind == VarKind::Global {
            self.by_global.entry(var.name.clone()).or_default()
        } else {
            self.by_var.entry(v).or_default()
        };
        *slot = (*slot).max(bytes);
    }

    /// The heap bytes variable `v` holds, when the run says.
    pub fn get(&self, index: &StaticIndex, v: VarRef) -> Option<u64> {
        let var = index
            .functions
            .get(v.0 as usize)?
            .variables
            .get(v.1 as usize)?;
        if var.kind == VarKind::Global {
            return self.by_global.get(&var.name).copied();
        }
        self.by_var.get(&v).copied()
    }

    pub fn is_empty(&self) -> bool {
        self.by_var.is_empty() && self.by_global.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::heap_blocks::HeapBlock;
    use crate::tests_fig3_14::{func, var};
    use blame_formats::static_db::StaticDb;

    fn block(start: u64, size: u64, alloc_ns: u64, free_ns: u64, site: u32) -> HeapBlock {
        HeapBlock {
            start,
            end: start + size,
            alloc_ns,
            free_ns,
            site,
        }
    }

    /// Rows allocated one by one are one object; a block freed and
    /// allocated again counts once; a global is found from any function.
    #[test]
    fn peak_live_bytes_per_receiving_variable() {
        let mut db = StaticDb::default();
        let init = func(
            "init",
            vec![
                var("rows", VarKind::Global, None, None, true, &[]),
                var("tmp", VarKind::Local, None, None, false, &[]),
            ],
            vec![],
        );
        let user = func(
            "use_rows",
            vec![var("rows", VarKind::Global, None, None, true, &[])],
            vec![],
        );
        for f in [init, user] {
            db.functions
                .insert((f.linkage_name.clone(), f.file.clone()), f);
        }
        let index = StaticIndex::new(db);
        let fi = |name: &str| index.functions.iter().position(|f| f.name == name).unwrap() as u32;
        let (init, user) = (fi("init"), fi("use_rows"));
        let heap = HeapBlocks {
            blocks: (0..10)
                .map(|i| block(0x1000 + i * 0x100, 160, 10 + i, u64::MAX, 0))
                .chain([
                    block(0x9000, 4096, 1, 5, 1),
                    block(0x9000, 4096, 6, 8, 1),
                    block(0xa000, 64, 7, u64::MAX, 2),
                ])
                .collect(),
            ..Default::default()
        };
        let names = [Some((init, 0)), Some((init, 1)), None];
        let fp = HeapFootprints::from_blocks(&index, &heap, &names);
        assert_eq!(fp.get(&index, (init, 0)), Some(1600));
        assert_eq!(fp.get(&index, (user, 0)), Some(1600), "the same global");
        assert_eq!(fp.get(&index, (init, 1)), Some(4096));
        assert!(!fp.is_empty());
        assert_eq!(HeapFootprints::default().get(&index, (init, 1)), None);
    }
}
