//! Control-flow facts of one function: dominators and post-dominators
//! (Cooper–Harvey–Kennedy), control dependence (Ferrante et al., from the
//! post-dominator tree) and natural loops. Everything is linear or near
//! linear in the number of blocks and edges for real code; control
//! dependence is kept as direct dependences only (transitive implicit blame
//! follows from the blame graph itself), so nothing is quadratic in blocks.

use crate::ir::{Function, Op};

pub const NONE: u32 = u32::MAX;

/// Opcodes (as the loader names them) that begin an exception-handling block.
const EH_PADS: &[&str] = &[
    "LLVMLandingPad",
    "LLVMCatchSwitch",
    "LLVMCatchPad",
    "LLVMCleanupPad",
];

/// Reverse post-order of the nodes reachable from `entry`.
fn rpo(n: usize, entry: u32, succs: &dyn Fn(u32) -> Vec<u32>) -> Vec<u32> {
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut stack: Vec<(u32, Vec<u32>, usize)> = Vec::new();
    seen[entry as usize] = true;
    stack.push((entry, succs(entry), 0));
    while let Some((node, ss, i)) = stack.last_mut() {
        if *i < ss.len() {
            let s = ss[*i];
            *i += 1;
            if !seen[s as usize] {
                seen[s as usize] = true;
                let next = succs(s);
                stack.push((s, next, 0));
            }
        } else {
            order.push(*node);
            stack.pop();
        }
    }
    order.reverse();
    order
}

/// Immediate dominators of a graph (NONE for unreachable nodes and the entry's own idom is itself).
pub fn idoms(
    n: usize,
    entry: u32,
    succs: &dyn Fn(u32) -> Vec<u32>,
    preds: &dyn Fn(u32) -> Vec<u32>,
) -> Vec<u32> {
    let order = rpo(n, entry, succs);
    let mut po_num = vec![NONE; n];
    for (i, &b) in order.iter().enumerate() {
        po_num[b as usize] = (order.len() - 1 - i) as u32;
    }
    let mut idom = vec![NONE; n];
    idom[entry as usize] = entry;
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().skip(1) {
            let mut new = NONE;
            for p in preds(b) {
                if idom[p as usize] == NONE {
                    continue;
                }
                new = if new == NONE {
                    p
                } else {
                    let (mut a, mut c) = (p, new);
                    while a != c {
                        while po_num[a as usize] < po_num[c as usize] {
                            a = idom[a as usize];
                        }
                        while po_num[c as usize] < po_num[a as usize] {
                            c = idom[c as usize];
                        }
                    }
                    a
                };
            }
            if new != NONE && idom[b as usize] != new {
                idom[b as usize] = new;
                changed = true;
            }
        }
    }
    idom
}

/// Per node of `n`, its predecessors (in order of the nodes) given each
/// node's successors.
fn reverse_edges<'a>(succs: impl Iterator<Item = &'a Vec<u32>>, n: usize) -> Vec<Vec<u32>> {
    let mut preds = vec![Vec::new(); n];
    for (b, ss) in succs.enumerate() {
        for &s in ss {
            preds[s as usize].push(b as u32);
        }
    }
    preds
}

/// Per block, its successors by normal control flow (all of them when
/// none is). Post-dominance and control dependence follow normal control
/// flow only: the unwind edge of an `invoke` (to a landing pad) would make
/// everything after every C++ call control dependent on that call.
fn normal_successors(f: &Function) -> Vec<Vec<u32>> {
    let is_pad = |b: u32| {
        f.blocks[b as usize].insts.first().is_some_and(
            |&i| matches!(&f.insts[i as usize].op, Op::Other(op) if EH_PADS.contains(&op.as_str())),
        )
    };
    f.blocks
        .iter()
        .map(|blk| {
            let normal: Vec<u32> = blk.succs.iter().copied().filter(|&s| !is_pad(s)).collect();
            if normal.is_empty() {
                blk.succs.clone()
            } else {
                normal
            }
        })
        .collect()
}

/// Post-dominators on the reverse graph with a virtual exit (`n`) that
/// every returning block, and every block stuck in an endless loop, reaches.
fn post_dominators(n: usize, nsuccs: &[Vec<u32>], npreds: &[Vec<u32>]) -> Vec<u32> {
    let exit = n as u32;
    let mut to_exit = vec![false; n];
    for (b, ss) in nsuccs.iter().enumerate() {
        if ss.is_empty() {
            to_exit[b] = true;
        }
    }
    // Blocks that cannot reach a return get an edge to the exit too.
    let mut reaches = vec![false; n];
    let mut stack: Vec<u32> = (0..n as u32).filter(|&b| to_exit[b as usize]).collect();
    for &b in &stack {
        reaches[b as usize] = true;
    }
    while let Some(b) = stack.pop() {
        for &p in &npreds[b as usize] {
            if !reaches[p as usize] {
                reaches[p as usize] = true;
                stack.push(p);
            }
        }
    }
    for b in 0..n {
        if !reaches[b] {
            to_exit[b] = true;
        }
    }
    let rsucc = |b: u32| -> Vec<u32> {
        if b == exit {
            (0..n as u32).filter(|&x| to_exit[x as usize]).collect()
        } else {
            npreds[b as usize].clone()
        }
    };
    let rpred = |b: u32| -> Vec<u32> {
        if b == exit {
            vec![]
        } else {
            let mut v = nsuccs[b as usize].clone();
            if to_exit[b as usize] {
                v.push(exit);
            }
            v
        }
    };
    idoms(n + 1, exit, &rsucc, &rpred)
}

/// Direct control dependence: for an edge a->s where s does not
/// post-dominate a, the blocks from s up the post-dominator tree to
/// (excluding) ipdom(a) depend on a's terminator.
fn control_dependences(nsuccs: &[Vec<u32>], ipdom: &[u32]) -> Vec<Vec<u32>> {
    let n = nsuccs.len();
    let exit = n as u32;
    let mut control_deps = vec![Vec::new(); n];
    for a in 0..n {
        let succs = &nsuccs[a];
        if succs.len() < 2 {
            continue;
        }
        let stop = ipdom[a];
        for &s in succs {
            let mut r = s;
            let mut steps = 0;
            while r != stop && r != exit && r != NONE && steps <= n {
                let deps = &mut control_deps[r as usize];
                if deps.last() != Some(&(a as u32)) {
                    deps.push(a as u32);
                }
                r = ipdom[r as usize];
                steps += 1;
            }
        }
    }
    for d in &mut control_deps {
        d.sort_unstable();
        d.dedup();
    }
    control_deps
}

/// Dominator-tree pre/post numbers for O(1) dominance tests.
fn dominator_tree_numbers(idom: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let n = idom.len();
    let mut children = vec![Vec::new(); n];
    for b in 1..n {
        if idom[b] != NONE && idom[b] as usize != b {
            children[idom[b] as usize].push(b as u32);
        }
    }
    let mut pre = vec![0u32; n];
    let mut post = vec![0u32; n];
    if n > 0 {
        let mut clock = 0u32;
        let mut st: Vec<(u32, usize)> = vec![(0, 0)];
        pre[0] = clock;
        clock += 1;
        while let Some((b, i)) = st.last_mut() {
            if *i < children[*b as usize].len() {
                let c = children[*b as usize][*i];
                *i += 1;
                pre[c as usize] = clock;
                clock += 1;
                st.push((c, 0));
            } else {
                post[*b as usize] = clock;
                clock += 1;
                st.pop();
            }
        }
    }
    (pre, post)
}

pub struct Cfg {
    pub preds: Vec<Vec<u32>>,
    pub idom: Vec<u32>,
    /// Immediate post-dominator; `exit` (= number of blocks) is the virtual exit.
    pub ipdom: Vec<u32>,
    /// Per block, the blocks whose terminator it is directly control dependent on.
    pub control_deps: Vec<Vec<u32>>,
    pub loops: Vec<Loop>,
    pre: Vec<u32>,
    post: Vec<u32>,
}

pub struct Loop {
    pub header: u32,
    /// Sorted blocks of the loop, the header included.
    pub blocks: Vec<u32>,
    pub parent: Option<usize>,
}

impl Cfg {
    /// The innermost loop of each of `nblocks` blocks (`None`: not in a loop).
    pub fn innermost_loop_of_blocks(&self, nblocks: usize) -> Vec<Option<usize>> {
        let mut innermost: Vec<Option<usize>> = vec![None; nblocks];
        for (li, l) in self.loops.iter().enumerate() {
            for &b in &l.blocks {
                if let Some(slot) = innermost.get_mut(b as usize) {
                    if slot.is_none_or(|cur| l.blocks.len() < self.loops[cur].blocks.len()) {
                        *slot = Some(li);
                    }
                }
            }
        }
        innermost
    }

    pub fn new(f: &Function) -> Cfg {
        let n = f.blocks.len();
        let preds = reverse_edges(f.blocks.iter().map(|blk| &blk.succs), n);
        let succ = |b: u32| f.blocks[b as usize].succs.clone();
        let pred = |b: u32| preds[b as usize].clone();
        let idom = if n > 0 {
            idoms(n, 0, &succ, &pred)
        } else {
            vec![]
        };
        let nsuccs = normal_successors(f);
        let npreds = reverse_edges(nsuccs.iter(), n);
        let ipdom = post_dominators(n, &nsuccs, &npreds);
        let control_deps = control_dependences(&nsuccs, &ipdom);
        let (pre, post) = dominator_tree_numbers(&idom);
        let mut cfg = Cfg {
            preds,
            idom,
            ipdom,
            control_deps,
            loops: Vec::new(),
            pre,
            post,
        };
        cfg.loops = cfg.natural_loops(f);
        cfg
    }

    pub fn reachable(&self, b: u32) -> bool {
        self.idom.get(b as usize).is_some_and(|&d| d != NONE)
    }

    /// True when edge `from -> to` is the back edge of a loop that holds
    /// block `b`: within one iteration of that loop, seen from `b`, no
    /// value crosses it.
    pub fn back_edge_around(&self, from: u32, to: u32, b: u32) -> bool {
        self.dominates(to, from)
            && self
                .loops
                .binary_search_by_key(&to, |l| l.header)
                .is_ok_and(|li| self.loops[li].blocks.binary_search(&b).is_ok())
    }

    /// True when `a` dominates `b` (both reachable).
    pub fn dominates(&self, a: u32, b: u32) -> bool {
        self.reachable(a)
            && self.reachable(b)
            && self.pre[a as usize] <= self.pre[b as usize]
            && self.post[b as usize] <= self.post[a as usize]
    }

    /// The dominator-tree interval of a reachable block: `a` dominates `b`
    /// when `a`'s entry number is at most `b`'s and its exit number at least
    /// `b`'s (the intervals of a tree nest or are disjoint).
    pub fn dom_interval(&self, b: u32) -> Option<(u32, u32)> {
        self.reachable(b)
            .then(|| (self.pre[b as usize], self.post[b as usize]))
    }

    fn natural_loops(&self, f: &Function) -> Vec<Loop> {
        let n = f.blocks.len();
        let mut by_header: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
        for b in 0..n as u32 {
            for &h in &f.blocks[b as usize].succs {
                if self.dominates(h, b) {
                    by_header.entry(h).or_default().push(b);
                }
            }
        }
        let mut loops = Vec::new();
        let mut mark = vec![NONE; n];
        for (li, (h, latches)) in by_header.into_iter().enumerate() {
            let mut blocks = vec![h];
            mark[h as usize] = li as u32;
            let mut stack = Vec::new();
            for l in latches {
                if mark[l as usize] != li as u32 {
                    mark[l as usize] = li as u32;
                    blocks.push(l);
                    stack.push(l);
                }
            }
            while let Some(b) = stack.pop() {
                for &p in &self.preds[b as usize] {
                    if mark[p as usize] != li as u32 && self.reachable(p) {
                        mark[p as usize] = li as u32;
                        blocks.push(p);
                        stack.push(p);
                    }
                }
            }
            blocks.sort_unstable();
            loops.push(Loop {
                header: h,
                blocks,
                parent: None,
            });
        }
        // The parent is the smallest other loop containing the header (the
        // loops containing each block listed once: not loops x loops).
        let mut containing: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (j, l) in loops.iter().enumerate() {
            for &b in &l.blocks {
                containing[b as usize].push(j);
            }
        }
        for i in 0..loops.len() {
            let h = loops[i].header;
            let parent = containing[h as usize]
                .iter()
                .copied()
                .filter(|&j| j != i)
                .filter(|&j| loops[j].blocks.len() > loops[i].blocks.len())
                .min_by_key(|&j| loops[j].blocks.len());
            loops[i].parent = parent;
        }
        loops
    }
}
