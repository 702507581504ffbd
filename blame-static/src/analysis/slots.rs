//! The values of exact slots (the Temp-Blame set of Table 3.1, with kills)
//! as SSA values: which store, or which merge of stores, a read of a
//! variable's own storage sees.
//!
//! A merge is a node of the blame graph of its own (a phi at the iterated
//! dominance frontier of the slot's stores), so a read depends on one value
//! node, and a merge on the values flowing into it. Reachability over these
//! nodes reaches exactly the stores that reach the read, as dense
//! reaching-definition sets would, but the graph stays linear in the size
//! of the function: a chain of 20,000 `if (..) s += k;` has 20,000 merges of
//! two values each, not 10^8 (read, store) edges.

use super::locations::{Key, Resolver};
use crate::cfg::Cfg;
use crate::ir::*;
use crate::HashMap;

/// The SSA values of a function's exact slots.
pub(super) struct SlotValues {
    key_id: HashMap<Key, u32>,
    /// (block, slot) -> the value node live at the block's entry, for the
    /// slots the block reads.
    entry: HashMap<(u32, u32), u32>,
    /// Merge nodes and the value nodes flowing into each.
    pub(super) merges: Vec<(u32, Vec<u32>)>,
}

impl SlotValues {
    /// The value of `key` at the entry of block `b` (`None`: no store reaches).
    pub(super) fn at_entry(&self, b: u32, key: &Key) -> Option<u32> {
        let k = *self.key_id.get(key)?;
        self.entry.get(&(b, k)).copied()
    }
}

/// Places merges and finds the value each block reads. `stores` gives, per
/// slot, the store instructions that write it exactly; merge nodes are
/// numbered from `next_node` on (the caller adds them to its node tables).
pub(super) fn slot_values(
    f: &Function,
    cfg: &Cfg,
    res: &mut Resolver,
    stores: &HashMap<Key, Vec<InstId>>,
    kill_key: &HashMap<InstId, Key>,
    next_node: u32,
) -> SlotValues {
    let nb = f.blocks.len();
    let mut key_id: HashMap<Key, u32> =
        HashMap::with_capacity_and_hasher(stores.len(), Default::default());
    let mut keys: Vec<&Key> = stores.keys().collect();
    keys.sort();
    for (i, k) in keys.iter().enumerate() {
        key_id.insert((*k).clone(), i as u32);
    }
    let nk = keys.len();
    let mut out = SlotValues {
        key_id,
        entry: HashMap::default(),
        merges: Vec::new(),
    };
    if nk == 0 || nb == 0 {
        return out;
    }
    let frontier = dominance_frontiers(cfg, nb);
    let merges_at = place_merges(f, cfg, &keys, stores, &frontier, next_node, &mut out.merges);
    let mut renaming = Renaming {
        f,
        res,
        kill_key,
        merges_at,
        next_node,
        live: vec![Vec::new(); nk],
        pushed: Vec::new(),
    };
    renaming.walk(cfg, &mut out);
    out.entry.retain(|_, v| *v != u32::MAX);
    for (_, ins) in &mut out.merges {
        ins.sort_unstable();
        ins.dedup();
    }
    out
}

/// Dominance frontiers (Cooper, Harvey and Kennedy).
fn dominance_frontiers(cfg: &Cfg, nb: usize) -> Vec<Vec<u32>> {
    let reachable = |b: usize| cfg.reachable(b as u32);
    let mut frontier: Vec<Vec<u32>> = vec![Vec::new(); nb];
    for b in (0..nb).filter(|&b| reachable(b)) {
        let preds: Vec<u32> = cfg.preds[b]
            .iter()
            .copied()
            .filter(|&p| reachable(p as usize))
            .collect();
        if preds.len() < 2 {
            continue;
        }
        for p in preds {
            let mut runner = p;
            while runner != cfg.idom[b] {
                let fr = &mut frontier[runner as usize];
                if fr.last() != Some(&(b as u32)) {
                    fr.push(b as u32);
                }
                let up = cfg.idom[runner as usize];
                if up == runner {
                    break;
                }
                runner = up;
            }
        }
    }
    for fr in &mut frontier {
        fr.sort_unstable();
        fr.dedup();
    }
    frontier
}

/// Merges at the iterated dominance frontier of each slot's stores: per
/// block, its (slot, merge node) pairs; the merges numbered from
/// `next_node` on, pushed onto `merges` without their inputs.
fn place_merges(
    f: &Function,
    cfg: &Cfg,
    keys: &[&Key],
    stores: &HashMap<Key, Vec<InstId>>,
    frontier: &[Vec<u32>],
    next_node: u32,
    merges: &mut Vec<(u32, Vec<u32>)>,
) -> Vec<Vec<(u32, u32)>> {
    let nb = f.blocks.len();
    let reachable = |b: usize| cfg.reachable(b as u32);
    let mut merges_at: Vec<Vec<(u32, u32)>> = vec![Vec::new(); nb];
    let mut has_merge = vec![u32::MAX; nb];
    let mut queued = vec![u32::MAX; nb];
    let mut work: Vec<u32> = Vec::new();
    for (k, key) in keys.iter().enumerate() {
        let k = k as u32;
        for &s in &stores[*key] {
            let b = f.insts[s as usize].block;
            if (b as usize) < nb && reachable(b as usize) && queued[b as usize] != k {
                queued[b as usize] = k;
                work.push(b);
            }
        }
        while let Some(b) = work.pop() {
            for &d in &frontier[b as usize] {
                if has_merge[d as usize] == k {
                    continue;
                }
                has_merge[d as usize] = k;
                let node = next_node + merges.len() as u32;
                merges.push((node, Vec::new()));
                merges_at[d as usize].push((k, node));
                if queued[d as usize] != k {
                    queued[d as usize] = k;
                    work.push(d);
                }
            }
        }
    }
    merges_at
}

/// Renaming over the dominator tree: per slot, a stack of the values live.
struct Renaming<'a, 'r, 'm> {
    f: &'a Function,
    res: &'r mut Resolver<'m>,
    kill_key: &'a HashMap<InstId, Key>,
    merges_at: Vec<Vec<(u32, u32)>>,
    next_node: u32,
    live: Vec<Vec<u32>>,
    /// The undo log: the slots pushed onto `live`, in order.
    pushed: Vec<u32>,
}

impl Renaming<'_, '_, '_> {
    /// Walks the dominator tree from the entry block.
    fn walk(&mut self, cfg: &Cfg, out: &mut SlotValues) {
        let nb = self.f.blocks.len();
        let reachable = |b: usize| cfg.reachable(b as u32);
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); nb];
        for b in (1..nb).filter(|&b| reachable(b)) {
            let d = cfg.idom[b];
            if d as usize != b && (d as usize) < nb {
                children[d as usize].push(b as u32);
            }
        }
        // (block, index in the undo log at entry), or a marker to leave a block.
        enum Step {
            Enter(u32),
            Leave(usize),
        }
        let mut steps = vec![Step::Enter(0)];
        while let Some(step) = steps.pop() {
            let b = match step {
                Step::Leave(mark) => {
                    while self.pushed.len() > mark {
                        let k = self.pushed.pop().expect("pushed");
                        self.live[k as usize].pop();
                    }
                    continue;
                }
                Step::Enter(b) => b,
            };
            steps.push(Step::Leave(self.pushed.len()));
            self.block(b, out);
            for &c in children[b as usize].iter().rev() {
                steps.push(Step::Enter(c));
            }
        }
    }

    /// Block `b`: its merges become live, its instructions read and
    /// write slots, and its successors' merges take the values live at
    /// its end.
    fn block(&mut self, b: u32, out: &mut SlotValues) {
        let f = self.f;
        for &(k, node) in &self.merges_at[b as usize] {
            self.live[k as usize].push(node);
            self.pushed.push(k);
        }
        for &i in &f.blocks[b as usize].insts {
            self.inst(b, i, out);
        }
        for &s in &f.blocks[b as usize].succs {
            for &(k, node) in &self.merges_at[s as usize] {
                if let Some(&v) = self.live[k as usize].last() {
                    out.merges[(node - self.next_node) as usize].1.push(v);
                }
            }
        }
    }

    /// Instruction `i` of block `b`: the slots it reads, and the one it
    /// stores to exactly.
    fn inst(&mut self, b: u32, i: InstId, out: &mut SlotValues) {
        let inst = &self.f.insts[i as usize];
        // The slots this instruction reads: their value at entry, when
        // the block has not written them yet.
        let read: Vec<Value> = match &inst.op {
            Op::Load => vec![inst.args[0].clone()],
            Op::Call { .. } => inst.args.clone(),
            _ => Vec::new(),
        };
        for a in &read {
            for l in self.res.locs(a) {
                if l.deref != 0 {
                    continue;
                }
                let Some(&k) = out.key_id.get(&(l.root, l.path.clone())) else {
                    continue;
                };
                if let Some(&v) = self.live[k as usize].last() {
                    out.entry.entry((b, k)).or_insert(v);
                }
            }
        }
        if let Some(key) = self.kill_key.get(&i) {
            if let Some(&k) = out.key_id.get(key) {
                // Reads later in the block see this store directly; the
                // entry value recorded above stays the block's entry value.
                out.entry.entry((b, k)).or_insert(u32::MAX);
                self.live[k as usize].push(i);
                self.pushed.push(k);
            }
        }
    }
}
