//! Graph algorithms of the blame graph: union-find for alias classes,
//! strongly connected components with bit-mask reachability, and the flow
//! sensitivity of may-definitions.

use crate::ir::*;
use crate::HashMap;

pub(super) fn find(uf: &mut [u32], mut x: u32) -> u32 {
    while uf[x as usize] != x {
        uf[x as usize] = uf[uf[x as usize] as usize];
        x = uf[x as usize];
    }
    x
}

/// One node's edges while the graph is made: up to four in place, no
/// allocation (most nodes of a function's graph have one or two).
pub(super) type EdgeList = smallvec::SmallVec<[u32; 4]>;

/// The edges of every node of a graph, flat (each node's list after the
/// previous node's): a graph of a million nodes in two allocations instead
/// of a million small vectors (a third of the memory of a large function's
/// analysis). `edges[n]` is node `n`'s list.
pub(super) struct Edges {
    start: Vec<usize>,
    to: Vec<u32>,
}

impl Edges {
    /// The lists of `lists`, each freed as it is copied.
    pub(super) fn from_lists(lists: Vec<EdgeList>) -> Edges {
        let mut start = Vec::with_capacity(lists.len() + 1);
        let mut to = Vec::with_capacity(lists.iter().map(|l| l.len()).sum());
        start.push(0);
        for list in lists {
            to.extend_from_slice(&list);
            start.push(to.len());
        }
        Edges { start, to }
    }

    /// The number of nodes.
    pub(super) fn len(&self) -> usize {
        self.start.len() - 1
    }
}

impl std::ops::Index<usize> for Edges {
    type Output = [u32];
    fn index(&self, n: usize) -> &[u32] {
        &self.to[self.start[n]..self.start[n + 1]]
    }
}

/// The strongly connected components of a graph (Tarjan's algorithm,
/// iterative), numbered in reverse topological order: an edge from a node of
/// component `a` to one of component `b` has `a >= b`.
pub(super) struct Components {
    comp: Vec<u32>,
    /// Nodes grouped by component: those of component `c` are
    /// `nodes[start[c]..start[c + 1]]`.
    nodes: Vec<u32>,
    start: Vec<u32>,
}

impl Components {
    pub(super) fn new<I: Iterator<Item = u32>>(n: usize, succs: impl Fn(u32) -> I) -> Components {
        const UNSEEN: u32 = u32::MAX;
        let mut index = vec![UNSEEN; n];
        let mut low = vec![0u32; n];
        let mut on_stack = vec![false; n];
        let mut comp = vec![0u32; n];
        let mut stack: Vec<u32> = Vec::new();
        let mut calls: Vec<(u32, I)> = Vec::new();
        let mut next_index = 0u32;
        let mut count = 0u32;
        for root in 0..n as u32 {
            if index[root as usize] != UNSEEN {
                continue;
            }
            let mut enter = Some(root);
            loop {
                if let Some(v) = enter.take() {
                    index[v as usize] = next_index;
                    low[v as usize] = next_index;
                    next_index += 1;
                    on_stack[v as usize] = true;
                    stack.push(v);
                    calls.push((v, succs(v)));
                }
                let Some(top) = calls.len().checked_sub(1) else {
                    break;
                };
                let v = calls[top].0;
                match calls[top].1.next() {
                    Some(w) if index[w as usize] == UNSEEN => enter = Some(w),
                    Some(w) => {
                        if on_stack[w as usize] {
                            low[v as usize] = low[v as usize].min(index[w as usize]);
                        }
                    }
                    None => {
                        calls.pop();
                        if let Some(&(u, _)) = calls.last() {
                            low[u as usize] = low[u as usize].min(low[v as usize]);
                        }
                        if low[v as usize] == index[v as usize] {
                            while let Some(w) = stack.pop() {
                                on_stack[w as usize] = false;
                                comp[w as usize] = count;
                                if w == v {
                                    break;
                                }
                            }
                            count += 1;
                        }
                    }
                }
            }
        }
        let mut start = vec![0u32; count as usize + 1];
        for &c in &comp {
            start[c as usize + 1] += 1;
        }
        for c in 0..count as usize {
            start[c + 1] += start[c];
        }
        let mut fill = start.clone();
        let mut nodes = vec![0u32; n];
        for (v, &c) in comp.iter().enumerate() {
            nodes[fill[c as usize] as usize] = v as u32;
            fill[c as usize] += 1;
        }
        Components { comp, nodes, start }
    }

    pub(super) fn count(&self) -> usize {
        self.start.len() - 1
    }

    pub(super) fn of(&self, n: u32) -> usize {
        self.comp[n as usize] as usize
    }

    /// Closes per-component bit masks under reachability: afterwards each
    /// component's mask includes the masks of every component reaching it.
    #[cfg(test)]
    pub(super) fn propagate<I: Iterator<Item = u32>>(
        &self,
        masks: &mut [u64],
        succs: impl Fn(u32) -> I,
    ) {
        for c in (0..self.count()).rev() {
            let bits = masks[c];
            if bits == 0 {
                continue;
            }
            for &n in &self.nodes[self.start[c] as usize..self.start[c + 1] as usize] {
                for d in succs(n) {
                    masks[self.comp[d as usize] as usize] |= bits;
                }
            }
        }
    }
}

impl Components {
    /// The nodes of component `c`.
    pub(super) fn nodes(&self, c: usize) -> &[u32] {
        &self.nodes[self.start[c] as usize..self.start[c + 1] as usize]
    }

    /// [`Self::propagate`] over the components reached from those in
    /// `touched` (marked in `queued`) only, in the same order: a batch of
    /// variables whose writes reach a small part of a large graph costs
    /// that part. Adds each component reached to `touched` and `queued`.
    pub(super) fn propagate_from<I: Iterator<Item = u32>>(
        &self,
        masks: &mut [u64],
        touched: &mut Vec<usize>,
        queued: &mut [bool],
        succs: impl Fn(u32) -> I,
    ) {
        // Edges go from higher to lower components: the highest one
        // waiting has every mask that reaches it.
        let mut heap: std::collections::BinaryHeap<usize> = touched.iter().copied().collect();
        while let Some(c) = heap.pop() {
            let bits = masks[c];
            if bits == 0 {
                continue;
            }
            for &n in self.nodes(c) {
                for d in succs(n) {
                    let cd = self.comp[d as usize] as usize;
                    masks[cd] |= bits;
                    if !queued[cd] {
                        queued[cd] = true;
                        touched.push(cd);
                        heap.push(cd);
                    }
                }
            }
        }
    }
}

/// Bitset helpers for reaching definitions.
pub(super) fn bit(s: &[u64], i: usize) -> bool {
    s[i / 64] >> (i % 64) & 1 == 1
}

/// Per call instruction, the root variables it may write, and those it
/// reads through its pointer arguments.
pub(super) type CallRoots = (HashMap<InstId, Vec<u32>>, HashMap<InstId, Vec<u32>>);

/// Flow sensitivity of may-definitions (stores through pointers, call
/// outputs): a read sees a write only when the write can execute before it,
/// that is when the write is earlier in the read's block or the read's block
/// is reachable from the write's. The memory-object node of all writes to a
/// location is used when every write is visible; otherwise a node of the
/// visible subset is made (shared by all reads that see the same subset),
/// so a read in straight-line code no longer depends on a call made after it.
pub(super) struct MayDefVisibility<'a> {
    f: &'a Function,
    cfg: &'a crate::cfg::Cfg,
    /// Per call, the variables it may write and those it reads (through
    /// its pointer arguments): a call's write that reaches another call
    /// only around a loop's back edge, and reads what that call writes, is
    /// a recurrence the reading call does not see (see [`Self::sees`]).
    call_writes: &'a HashMap<InstId, Vec<u32>>,
    call_reads: &'a HashMap<InstId, Vec<u32>>,
    /// Blocks reachable within one iteration of the loops around the
    /// reading block, per (block, innermost loop of the reading block).
    reach_in_iteration: HashMap<(u32, Option<usize>), Vec<u64>>,
    innermost: Vec<Option<usize>>,
    ni: usize,
    np: usize,
    out_node_info: &'a [(InstId, u32)],
    /// Position of each instruction in its block.
    pos: Vec<u32>,
    /// Blocks reachable from a block over one edge or more, per block asked for.
    reach: HashMap<u32, Vec<u64>>,
    /// Objects of visible subsets, by their writes.
    subsets: HashMap<Vec<u32>, u32>,
    /// Per (object, reading block) with no write of the object in that block: the answer.
    cache: HashMap<(u32, u32), Option<u32>>,
    /// Objects with many writes, or any object of a function with many
    /// blocks: the writes visible at each point as merge nodes (see
    /// [`Flow`]) instead of a subset per read, which costs writes × reads
    /// edges (a read in straight-line code sees every write before it).
    flows: HashMap<u32, Flow>,
}

/// Above this many writes of one object, or this many blocks in the
/// function, reads see the object's writes through [`Flow`] nodes.
const FLOW_WRITES: usize = 256;
const FLOW_BLOCKS: usize = 2048;

/// A block's writes of an object as (position, node), in block order, and
/// the chain nodes made so far (see [`Flow`]).
type BlockWrites = (Vec<(u32, u32)>, Vec<u32>);

/// The writes of one object visible in a function, as nodes of the graph
/// that reach exactly those writes: a block's entry sees what its
/// predecessors' exits see (a merge node where there are several, nothing
/// where there are none), a block's exit its entry and its own writes, and a
/// read its block's entry and the writes before it in its block (a chain of
/// nodes, one per write, shared by the reads after it). Reachability over
/// these nodes is the visibility of [`MayDefVisibility::sees`]; the nodes
/// are linear in blocks and writes.
struct Flow {
    /// Per block, the node of the writes visible at its entry.
    entry: Vec<Option<u32>>,
    /// Per block with writes: the writes in block order, and the chain
    /// nodes made so far (the k-th: the entry and the first k + 1 writes).
    in_block: HashMap<u32, BlockWrites>,
    /// Writes that no instruction of a block makes: visible everywhere.
    always: Option<u32>,
    /// The node of `always` and a point's node, per point node.
    with_always: HashMap<Option<u32>, u32>,
}

impl<'a> MayDefVisibility<'a> {
    pub(super) fn new(
        f: &'a Function,
        cfg: &'a crate::cfg::Cfg,
        (call_writes, call_reads): &'a CallRoots,
        ni: usize,
        np: usize,
        out_node_info: &'a [(InstId, u32)],
    ) -> Self {
        let mut pos = vec![0u32; f.insts.len()];
        for b in &f.blocks {
            for (k, &i) in b.insts.iter().enumerate() {
                pos[i as usize] = k as u32;
            }
        }
        MayDefVisibility {
            f,
            cfg,
            call_writes,
            call_reads,
            reach_in_iteration: HashMap::default(),
            innermost: cfg.innermost_loop_of_blocks(f.blocks.len()),
            ni,
            np,
            out_node_info,
            pos,
            reach: HashMap::default(),
            subsets: HashMap::default(),
            cache: HashMap::default(),
            flows: HashMap::default(),
        }
    }

    /// The [`Flow`] of object `obj`, its nodes added to `data`.
    fn flow(&self, obj: u32, data: &mut Vec<EdgeList>) -> Flow {
        let f = self.f;
        let nb = f.blocks.len();
        let node = |edges: Vec<u32>, data: &mut Vec<EdgeList>| {
            data.push(edges.into());
            (data.len() - 1) as u32
        };
        let mut in_block: HashMap<u32, BlockWrites> = HashMap::default();
        let mut always = Vec::new();
        for &w in &data[obj as usize] {
            match self.inst_of(w) {
                Some(i) if (f.insts[i as usize].block as usize) < nb => {
                    let b = f.insts[i as usize].block;
                    in_block
                        .entry(b)
                        .or_default()
                        .0
                        .push((self.pos[i as usize], w));
                }
                _ => always.push(w),
            }
        }
        for (writes, _) in in_block.values_mut() {
            writes.sort_unstable();
        }
        let mut preds: Vec<Vec<u32>> = vec![Vec::new(); nb];
        for (b, blk) in f.blocks.iter().enumerate() {
            for &s in &blk.succs {
                if (s as usize) < nb {
                    preds[s as usize].push(b as u32);
                }
            }
        }
        // Nodes of merges (entries of blocks with several predecessors) and
        // of blocks' exits with writes, made empty first (loops refer to
        // exits not yet filled).
        let mut merge: Vec<Option<u32>> = vec![None; nb];
        let mut exit_node: Vec<Option<u32>> = vec![None; nb];
        for b in 0..nb {
            if preds[b].len() > 1 {
                merge[b] = Some(node(Vec::new(), data));
            }
            if in_block.contains_key(&(b as u32)) {
                exit_node[b] = Some(node(Vec::new(), data));
            }
        }
        // A block's entry: its merge, else its one predecessor's exit
        // (followed back through blocks without writes), else nothing.
        let mut entry: Vec<Option<u32>> = vec![None; nb];
        let mut done = vec![false; nb];
        for start in 0..nb {
            let mut path = Vec::new();
            let mut b = start;
            let found = loop {
                if done[b] {
                    break entry[b];
                }
                if merge[b].is_some() || preds[b].is_empty() {
                    entry[b] = merge[b];
                    done[b] = true;
                    break merge[b];
                }
                if path.len() > nb {
                    break None; // a cycle of blocks with one predecessor each
                }
                path.push(b);
                let p = preds[b][0] as usize;
                if exit_node[p].is_some() {
                    break exit_node[p];
                }
                b = p; // no writes: its exit is its entry
            };
            for b in path {
                entry[b] = found;
                done[b] = true;
            }
        }
        let exit = |b: usize| exit_node[b].or(entry[b]);
        for b in 0..nb {
            if let Some(m) = merge[b] {
                let mut edges: Vec<u32> =
                    preds[b].iter().filter_map(|&p| exit(p as usize)).collect();
                edges.sort_unstable();
                edges.dedup();
                data[m as usize] = edges.into();
            }
            if let Some(x) = exit_node[b] {
                let mut edges: Vec<u32> = entry[b].into_iter().collect();
                edges.extend(in_block[&(b as u32)].0.iter().map(|&(_, w)| w));
                data[x as usize] = edges.into();
            }
        }
        let always = (!always.is_empty()).then(|| node(always, data));
        Flow {
            entry,
            in_block,
            always,
            with_always: HashMap::default(),
        }
    }

    /// [`Self::object`] through the object's [`Flow`].
    fn object_flow(&mut self, obj: u32, read: InstId, data: &mut Vec<EdgeList>) -> Option<u32> {
        if !self.flows.contains_key(&obj) {
            let flow = self.flow(obj, data);
            self.flows.insert(obj, flow);
        }
        let rb = self.f.insts[read as usize].block;
        let pos = self.pos[read as usize];
        let flow = self.flows.get_mut(&obj).expect("made above");
        let entry = flow.entry.get(rb as usize).copied().flatten();
        let point = match flow.in_block.get_mut(&rb) {
            None => entry,
            Some((writes, chain)) => {
                let k = writes.partition_point(|&(p, _)| p < pos);
                while chain.len() < k {
                    let prev = chain.last().copied().or(entry);
                    let w = writes[chain.len()].1;
                    data.push(prev.into_iter().chain([w]).collect());
                    chain.push((data.len() - 1) as u32);
                }
                k.checked_sub(1).map(|k| chain[k]).or(entry)
            }
        };
        let Some(always) = flow.always else {
            return point;
        };
        Some(
            *flow
                .with_always
                .entry(point)
                .or_insert_with(|| match point {
                    None => always,
                    Some(p) => {
                        data.push(EdgeList::from_slice(&[always, p]));
                        (data.len() - 1) as u32
                    }
                }),
        )
    }

    /// The instruction a write node stands for (a store, or the call of an output).
    fn inst_of(&self, node: u32) -> Option<InstId> {
        let n = node as usize;
        if n < self.ni {
            Some(node)
        } else if n >= self.ni + self.np && n - self.ni - self.np < self.out_node_info.len() {
            Some(self.out_node_info[n - self.ni - self.np].0)
        } else {
            None
        }
    }

    fn reaches(&mut self, from: u32, to: u32) -> bool {
        let nb = self.f.blocks.len();
        let f = self.f;
        let bits = self.reach.entry(from).or_insert_with(|| {
            let mut bits = vec![0u64; nb.div_ceil(64)];
            let mut stack: Vec<u32> = f.blocks[from as usize].succs.clone();
            while let Some(b) = stack.pop() {
                if bits[b as usize / 64] >> (b % 64) & 1 == 1 {
                    continue;
                }
                bits[b as usize / 64] |= 1 << (b % 64);
                stack.extend(&f.blocks[b as usize].succs);
            }
            bits
        });
        bit(bits, to as usize)
    }

    /// Whether block `to` is reachable from block `from` within one
    /// iteration of each loop that holds `to` (around the back edges of
    /// other loops: a write in a loop before `to` reaches it).
    fn reaches_in_iteration(&mut self, from: u32, to: u32) -> bool {
        let nb = self.f.blocks.len();
        let (f, cfg) = (self.f, self.cfg);
        let inner = self.innermost[to as usize];
        let bits = self
            .reach_in_iteration
            .entry((from, inner))
            .or_insert_with(|| {
                let mut bits = vec![0u64; nb.div_ceil(64)];
                let forward = |b: u32| {
                    f.blocks[b as usize]
                        .succs
                        .iter()
                        .copied()
                        .filter(move |&s| !cfg.back_edge_around(b, s, to))
                };
                let mut stack: Vec<u32> = forward(from).collect();
                while let Some(b) = stack.pop() {
                    if bits[b as usize / 64] >> (b % 64) & 1 == 1 {
                        continue;
                    }
                    bits[b as usize / 64] |= 1 << (b % 64);
                    stack.extend(forward(b));
                }
                bits
            });
        bit(bits, to as usize)
    }

    /// True when call `read` writes a data structure that call `w` reads,
    /// and the two write no data structure in common (within one
    /// structure, `compute_rhs(&s->grid)` and `update(&s->grid)`, the
    /// blame is the structure's either way).
    fn feeds(&self, read: InstId, w: InstId) -> bool {
        let none = Vec::new();
        let w_writes = self.call_writes.get(&w).unwrap_or(&none);
        match (self.call_writes.get(&read), self.call_reads.get(&w)) {
            (Some(out), Some(ins)) => {
                out.iter().any(|v| ins.contains(v)) && !out.iter().any(|v| w_writes.contains(v))
            }
            _ => false,
        }
    }

    /// Whether the write `node` can execute before instruction `read`.
    /// A call's write seen only in a later iteration of a loop around both
    /// is not seen by a call that writes what the first one reads: that
    /// is a recurrence, not what the reading call computes (a time loop's
    /// `rhs(u, b)` before `solve(A, b, u)` computes `b` from `u`, but not
    /// from the solve that `b` itself feeds).
    fn sees(&mut self, node: u32, read: InstId) -> bool {
        let Some(w) = self.inst_of(node) else {
            return true;
        };
        let (wb, rb) = (
            self.f.insts[w as usize].block,
            self.f.insts[read as usize].block,
        );
        if wb as usize >= self.f.blocks.len() || rb as usize >= self.f.blocks.len() {
            return true;
        }
        let earlier = wb == rb && self.pos[w as usize] < self.pos[read as usize];
        if !earlier && !self.reaches(wb, rb) {
            return false;
        }
        earlier || !self.feeds(read, w) || self.reaches_in_iteration(wb, rb)
    }

    /// The object node the read `read` should depend on instead of `obj`
    /// (all writes to a location), or `None` when it sees none of them.
    pub(super) fn object(
        &mut self,
        obj: u32,
        read: InstId,
        data: &mut Vec<EdgeList>,
        first_obj: usize,
    ) -> Option<u32> {
        if data[obj as usize].len() > FLOW_WRITES || self.f.blocks.len() > FLOW_BLOCKS {
            return self.object_flow(obj, read, data);
        }
        let rb = self.f.insts[read as usize].block;
        let writes = data[obj as usize].clone();
        // A read by a call in a loop may see less than its block does
        // (`sees`: a recurrence around the loop): no cached answer.
        let in_block = (self.innermost[rb as usize].is_some()
            && self.call_writes.contains_key(&read))
            || writes.iter().any(|&w| {
                self.inst_of(w)
                    .is_some_and(|i| self.f.insts[i as usize].block == rb)
            });
        if !in_block {
            if let Some(&o) = self.cache.get(&(obj, rb)) {
                return o;
            }
        }
        let seen: Vec<u32> = writes
            .iter()
            .copied()
            .filter(|&w| self.sees(w, read))
            .collect();
        let o = if seen.len() == writes.len() {
            Some(obj)
        } else if seen.is_empty() {
            None
        } else if let Some(&o) = self.subsets.get(&seen) {
            Some(o)
        } else {
            let o = data.len() as u32;
            debug_assert!(o as usize >= first_obj);
            data.push(EdgeList::from_slice(&seen));
            self.subsets.insert(seen, o);
            Some(o)
        };
        if !in_block {
            self.cache.insert((obj, rb), o);
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::Components;

    /// Random graphs with cycles: component numbering is a reverse
    /// topological order, and propagating masks over components gives, for
    /// every node, exactly the start nodes a search from each start reaches.
    #[test]
    fn component_propagation_equals_a_search_per_start_node() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rand = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for round in 0..200 {
            let n = 1 + rand(60) as usize;
            let edges = rand(3 * n as u64 + 1) as usize;
            let mut succ: Vec<Vec<u32>> = vec![Vec::new(); n];
            for _ in 0..edges {
                let (a, b) = (rand(n as u64) as usize, rand(n as u64) as u32);
                succ[a].push(b);
            }
            let comps = Components::new(n, |v| succ[v as usize].iter().copied());
            for (a, ss) in succ.iter().enumerate() {
                for &b in ss {
                    assert!(comps.of(a as u32) >= comps.of(b), "round {round}");
                }
            }
            let starts: Vec<u32> = (0..n.min(64) as u32).filter(|_| rand(3) == 0).collect();
            let mut masks = vec![0u64; comps.count()];
            for (bit, &s) in starts.iter().enumerate() {
                masks[comps.of(s)] |= 1 << bit;
            }
            // From the start components only: the same masks.
            let mut sparse = masks.clone();
            let mut touched: Vec<usize> = starts.iter().map(|&s| comps.of(s)).collect();
            touched.sort_unstable();
            touched.dedup();
            let mut queued = vec![false; comps.count()];
            for &c in &touched {
                queued[c] = true;
            }
            comps.propagate_from(&mut sparse, &mut touched, &mut queued, |v| {
                succ[v as usize].iter().copied()
            });
            comps.propagate(&mut masks, |v| succ[v as usize].iter().copied());
            assert_eq!(sparse, masks, "round {round}");
            for (bit, &s) in starts.iter().enumerate() {
                let mut seen = vec![false; n];
                let mut stack = vec![s];
                seen[s as usize] = true;
                while let Some(v) = stack.pop() {
                    for &w in &succ[v as usize] {
                        if !seen[w as usize] {
                            seen[w as usize] = true;
                            stack.push(w);
                        }
                    }
                }
                for v in 0..n {
                    let got = masks[comps.of(v as u32)] >> bit & 1 == 1;
                    assert_eq!(got, seen[v], "round {round}: start {s}, node {v}");
                }
            }
        }
    }
}
