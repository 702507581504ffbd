//! Symbolized frames stored once: a process's (or a run's) distinct frames
//! in a table, and stacks as lists of `u32` ids into it. A context of 40
//! frames is then 160 bytes of ids instead of 40 frames of two strings each.

use crate::borrowed_keys::{Borrowed, FxKeyMap};
use crate::input::symbolize::{fold_startup, startup_kind, Symbolizer};
use blame_formats::results::{FrameRef, SymFrame};
use blame_formats::stream::Mapping;
use rustc_hash::FxHashMap;
use std::cmp::Ordering;

/// Distinct frames, each with its id (its index in `frames`).
#[derive(Debug, Clone, Default)]
pub struct FrameTable {
    pub frames: Vec<SymFrame>,
    ids: FxKeyMap<SymFrame, u32>,
}

impl FrameTable {
    /// The id of `frame`, added when new.
    pub fn intern(&mut self, frame: SymFrame) -> u32 {
        if let Some(&id) = self.ids.get(&frame) {
            return id;
        }
        let id = self.frames.len() as u32;
        self.ids.insert(frame.clone(), id);
        self.frames.push(frame);
        id
    }

    /// The id of the borrowed `frame`, made and added when new (a merge
    /// finds nearly every frame of a partial result already there).
    pub fn intern_ref(&mut self, frame: FrameRef<'_>) -> u32 {
        match self.ids.get(&Borrowed(frame)) {
            Some(&id) => id,
            None => self.intern(frame.to_frame()),
        }
    }

    /// The ids of a stack's frames, in order.
    pub fn intern_stack(&mut self, frames: Vec<SymFrame>) -> Vec<u32> {
        frames.into_iter().map(|f| self.intern(f)).collect()
    }

    /// The frames, without the lookup table.
    pub fn into_frames(self) -> Vec<SymFrame> {
        self.frames
    }
}

/// Symbolizes the stacks of one process into ids of its own frame table,
/// each distinct address symbolized and its frames interned once: a stack
/// of 40 frames is then 40 lookups of an address, not 40 frames of two
/// strings cloned and hashed (the ranks of an MPI run repeat the same few
/// hundred addresses in thousands of stacks).
#[derive(Default)]
pub struct StackInterner {
    table: FrameTable,
    /// (address, is_return) → the ids of its frames; a leaf's (`false`)
    /// with the sampled line filled in where the line table says 0.
    memo: FxHashMap<(u64, bool), Vec<u32>>,
}

impl StackInterner {
    /// The frames of a stack (innermost first: the sampled PC, then return
    /// addresses) as ids, exactly as [`Symbolizer::stack`] followed by
    /// [`crate::input::skid_insns::resolve_leaf_line`] and [`FrameTable::intern_stack`] give them.
    pub fn stack(
        &mut self,
        symbolizer: &mut Symbolizer,
        mappings: &[Mapping],
        addresses: &[u64],
    ) -> Vec<u32> {
        let mut ids = Vec::with_capacity(addresses.len() + 4);
        let mut leaf_frames = 0;
        for (i, &a) in addresses.iter().enumerate() {
            let key = (a, i > 0);
            if let Some(known) = self.memo.get(&key) {
                ids.extend_from_slice(known);
            } else {
                let mut frames = symbolizer.frames_for(mappings, a, i > 0);
                if i == 0 {
                    crate::input::skid_insns::resolve_leaf_line(
                        symbolizer,
                        mappings,
                        &mut frames,
                        a,
                    );
                }
                let known: Vec<u32> = frames.into_iter().map(|f| self.table.intern(f)).collect();
                ids.extend_from_slice(&known);
                self.memo.insert(key, known);
            }
            if i == 0 {
                leaf_frames = ids.len();
            }
        }
        let table = &self.table;
        let folded_first = fold_startup(&mut ids, |&id| startup_kind(&table.frames[id as usize]));
        if folded_first || (leaf_frames == 0 && !ids.is_empty()) {
            // The leaf's line fix belongs to whichever frame ends up
            // innermost: take the whole stack the plain way.
            let mut frames = symbolizer.stack(mappings, addresses);
            if let Some(&leaf) = addresses.first() {
                crate::input::skid_insns::resolve_leaf_line(
                    symbolizer,
                    mappings,
                    &mut frames,
                    leaf,
                );
            }
            return self.table.intern_stack(frames);
        }
        ids
    }

    /// The frame table of `items`, whose stacks (`stack_of`) this
    /// interner symbolized: frames no stack names (folded startup frames)
    /// are left out and the stacks' ids renumbered, order kept.
    pub fn into_frames<T>(
        self,
        items: &mut [T],
        stack_of: impl Fn(&mut T) -> &mut Vec<u32>,
    ) -> Vec<SymFrame> {
        let mut used = vec![false; self.table.frames.len()];
        for item in items.iter_mut() {
            for &f in stack_of(item).iter() {
                used[f as usize] = true;
            }
        }
        if used.iter().all(|&u| u) {
            return self.table.into_frames();
        }
        let mut new_id = vec![u32::MAX; used.len()];
        let mut frames = Vec::new();
        for (i, f) in self.table.frames.into_iter().enumerate() {
            if used[i] {
                new_id[i] = frames.len() as u32;
                frames.push(f);
            }
        }
        for item in items.iter_mut() {
            for f in stack_of(item).iter_mut() {
                *f = new_id[*f as usize];
            }
        }
        frames
    }

    /// The table, for ordering stacks while they are symbolized.
    pub fn table(&self) -> &FrameTable {
        &self.table
    }
}

/// Compares two stacks of ids into `frames` as their frames compare.
pub fn cmp_stacks(frames: &[SymFrame], a: &[u32], b: &[u32]) -> Ordering {
    a.iter()
        .map(|&f| &frames[f as usize])
        .cmp(b.iter().map(|&f| &frames[f as usize]))
}
