//! Symbolized frames stored once: a process's (or a run's) distinct frames
//! in a table, and stacks as lists of `u32` ids into it. A context of 40
//! frames is then 160 bytes of ids instead of 40 frames of two strings each.

use crate::merge::FxHashMap;
use blame_formats::results::SymFrame;
use std::cmp::Ordering;

/// Distinct frames, each with its id (its index in `frames`).
#[derive(Debug, Clone, Default)]
pub struct FrameTable {
    pub frames: Vec<SymFrame>,
    ids: FxHashMap<SymFrame, u32>,
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

    /// The ids of a stack's frames, in order.
    pub fn intern_stack(&mut self, frames: Vec<SymFrame>) -> Vec<u32> {
        frames.into_iter().map(|f| self.intern(f)).collect()
    }

    /// The frames, without the lookup table.
    pub fn into_frames(self) -> Vec<SymFrame> {
        self.frames
    }
}

/// Compares two stacks of ids into `frames` as their frames compare.
pub fn cmp_stacks(frames: &[SymFrame], a: &[u32], b: &[u32]) -> Ordering {
    a.iter()
        .map(|&f| &frames[f as usize])
        .cmp(b.iter().map(|&f| &frames[f as usize]))
}
