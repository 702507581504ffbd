//! The merger's table of call paths: each distinct path of frame ids
//! stored once in its stacks and found by a hash of its ids.

use super::Merger;
use blame_formats::results_flat::FlatStacks;

/// A call path of [`Merger::stacks`] as its hash table holds it: where its
/// frame ids are, so that a lookup compares them without first finding
/// where they start (one cache miss less per path of every part).
#[derive(Clone, Copy)]
pub(super) struct PathSlot {
    id: u32,
    len: u32,
    start: usize,
}

impl PathSlot {
    fn frames(self, stacks: &FlatStacks) -> &[u32] {
        stacks.frames_at((self.start, self.len as usize))
    }
}

/// The hash of a call path whose frames are `frames` (ids): FxHash's step
/// over pairs of ids in four independent lanes, so that its multiplications
/// overlap (a merge hashes every path of every part; one chain of steps,
/// an id at a time, was most of the time the merger took).
pub(super) fn path_hash(frames: &[u32]) -> u64 {
    #[inline(always)]
    fn step(state: u64, word: u64) -> u64 {
        (state.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
    }
    let pair = |p: &[u32]| p[0] as u64 | (p[1] as u64) << 32;
    let mut lanes = [0u64; 4];
    let mut blocks = frames.chunks_exact(8);
    for b in &mut blocks {
        lanes[0] = step(lanes[0], pair(&b[0..2]));
        lanes[1] = step(lanes[1], pair(&b[2..4]));
        lanes[2] = step(lanes[2], pair(&b[4..6]));
        lanes[3] = step(lanes[3], pair(&b[6..8]));
    }
    let mut h = step(frames.len() as u64, lanes[0]);
    for &l in &lanes[1..] {
        h = step(h, l);
    }
    for &f in blocks.remainder() {
        h = step(h, f as u64);
    }
    h
}

impl Merger {
    /// The id of the call path of `frames` (the merger's frame ids), whose
    /// [`path_hash`] is `hash`, in `stacks`, added when new.
    pub(super) fn intern_path(&mut self, hash: u64, frames: &[u32]) -> u32 {
        let stacks = &mut self.stacks;
        if let Some(slot) = self.path_ids.find(hash, |&slot| {
            slot.len as usize == frames.len() && slot.frames(stacks) == frames
        }) {
            return slot.id;
        }
        let id = stacks.push_path(frames);
        let (start, len) = stacks.path_span(id);
        let slot = PathSlot {
            id,
            len: len as u32,
            start,
        };
        self.path_ids
            .insert_unique(hash, slot, |&slot| path_hash(slot.frames(stacks)));
        id
    }
}
