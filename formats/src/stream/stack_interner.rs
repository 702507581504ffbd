//! Stacks interned into the stream's parent-linked stack table
//! ([`StackInterner`]): a node per (caller's node, address), and a bounded
//! cache of whole stacks that answers a repeated stack with one lookup.

use super::records::StackNode;
use std::collections::HashMap;

/// (parent id, address) keys hashed by FxHash (rustc-hash): the keys come
/// from the profiled program's own code addresses, so the DoS resistance of
/// the default SipHash buys nothing here and costs half the writer's time.
type NodeMap = HashMap<(u32, u64), u32, rustc_hash::FxBuildHasher>;

/// Words of frames the whole-stack cache of [`StackInterner`] may hold (8 MiB).
const STACK_CACHE_WORDS: usize = 1 << 20;

/// Interns stacks (outermost caller last) into parent-linked nodes.
///
/// A cache of whole stacks (hash of all frames → id, frames kept in an arena
/// to confirm the match) answers a repeated stack with one lookup instead of
/// one per frame; it is cleared when it reaches `STACK_CACHE_WORDS`, so its
/// memory is bounded however many distinct stacks a program has.
#[derive(Default)]
pub struct StackInterner {
    nodes: NodeMap,
    next_id: u32,
    /// Hash of a whole stack → (id, start in `arena`, depth).
    whole: HashMap<u64, (u32, u32, u32), rustc_hash::FxBuildHasher>,
    arena: Vec<u64>,
}

fn hash_frames(frames: &[u64]) -> u64 {
    let mut h = (frames.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    for &f in frames {
        h = (h.rotate_left(23) ^ f).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    h ^ (h >> 31)
}

impl StackInterner {
    /// Returns the id of `frames` (innermost first) and pushes any new nodes to `new_nodes`.
    pub fn intern(&mut self, frames: &[u64], new_nodes: &mut Vec<StackNode>) -> u32 {
        let hash = hash_frames(frames);
        if let Some(&(id, start, len)) = self.whole.get(&hash) {
            let start = start as usize;
            if self.arena.get(start..start + len as usize) == Some(frames) {
                return id;
            }
        }
        let id = self.intern_frames(frames, new_nodes);
        if frames.len() <= STACK_CACHE_WORDS / 16 {
            if self.arena.len() + frames.len() > STACK_CACHE_WORDS {
                self.arena.clear();
                self.whole.clear();
            }
            let start = self.arena.len() as u32;
            self.arena.extend_from_slice(frames);
            self.whole.insert(hash, (id, start, frames.len() as u32));
        }
        id
    }

    /// The frame-by-frame walk: one lookup per frame, from the outermost.
    fn intern_frames(&mut self, frames: &[u64], new_nodes: &mut Vec<StackNode>) -> u32 {
        let mut parent = 0u32;
        for &address in frames.iter().rev() {
            parent = match self.nodes.get(&(parent, address)) {
                Some(&id) => id,
                None => {
                    self.next_id += 1;
                    let id = self.next_id;
                    self.nodes.insert((parent, address), id);
                    new_nodes.push(StackNode {
                        id,
                        parent,
                        address,
                    });
                    id
                }
            };
        }
        parent
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole-stack cache must give exactly the ids of the frame-by-frame
    /// walk, before and after it is cleared for being full.
    #[test]
    fn whole_stack_cache_agrees_with_the_frame_walk() {
        let mut cached = StackInterner::default();
        let mut walk = StackInterner::default();
        let mut nodes = Vec::new();
        let stack = |i: u64| -> Vec<u64> {
            let depth = 1 + (i % 23) as usize;
            (0..depth as u64)
                .map(|d| 0x4000 + d * 16 + (i * 7919) % (d + 3))
                .collect()
        };
        // Enough distinct words to overflow the cache at least once.
        let n = (STACK_CACHE_WORDS / 8) as u64;
        for round in 0..2 {
            for i in 0..n {
                let f = stack(i);
                let a = cached.intern(&f, &mut nodes);
                let b = walk.intern_frames(&f, &mut Vec::new());
                assert_eq!(a, b, "stack {i} round {round}");
            }
        }
        assert_eq!(cached.len(), walk.len());
        // Every node was announced exactly once, in id order.
        assert_eq!(nodes.len(), cached.len());
        assert!(nodes
            .iter()
            .enumerate()
            .all(|(i, n)| n.id as usize == i + 1));
        assert_eq!(cached.intern(&[], &mut nodes), 0);
    }
}
