//! Reachability over the blame graph: each variable's explicit lines (over
//! data edges from its writes) and implicit lines (once a control edge is
//! taken), who reaches the nodes of call bindings and of parameter reads,
//! and which roots feed other variables.

use super::data_edges::Graph;
use super::graph::{Components, Edges};
use super::locations::{Loc, Resolver, Root};
use super::variables::Vars;
use super::write_sets;
use super::writes::Writes;
use crate::cfg::Cfg;
use crate::ir::*;
use crate::HashMap;
use blame_formats::static_db::*;
use std::collections::{BTreeMap, BTreeSet};

/// What reachability found beyond each variable's lines: who reaches the
/// nodes of call bindings and of parameter reads, (total, explicit).
pub(super) struct Reach {
    pub(super) ret_bind: HashMap<InstId, (Vec<u32>, Vec<u32>)>,
    pub(super) arg_bind: HashMap<(InstId, u32), (Vec<u32>, Vec<u32>)>,
    pub(super) reads_param: Vec<BTreeSet<ParamRead>>,
    pub(super) reads_param_explicit: Vec<BTreeSet<ParamRead>>,
    /// Per root variable: true when what is stored in it (or in its
    /// fields) flows, over data edges, into another variable's writes.
    pub(super) feeds_other: Vec<bool>,
    /// Per root variable that feeds others, the roots it feeds when they
    /// are few (at most `FED_ROOTS`; empty: more, or not known).
    pub(super) fed_roots: Vec<Vec<u32>>,
}

/// How many fed roots `Reach::fed_roots` lists before it gives up.
const FED_ROOTS: usize = 8;

/// The non-void call whose returned pointer `addr` is (through casts and
/// constant-offset or indexed GEPs), if any.
fn returned_address(f: &Function, addr: &Value) -> Option<InstId> {
    let mut v = addr.clone();
    for _ in 0..8 {
        let Value::Inst(i) = v else { return None };
        let inst = &f.insts[i as usize];
        match inst.op {
            Op::Call { .. } if !inst.is_void && inst.is_pointer => return Some(i),
            Op::Cast | Op::Gep { .. } => v = inst.args.first()?.clone(),
            _ => return None,
        }
    }
    None
}

/// A read of a parameter: its position, and the field path (`.m_x`) below
/// what it points to that the read loads, `None` for its value (the
/// pointer itself, or a parameter passed by value).
pub(super) type ParamRead = (u32, Option<String>);

/// Per load of a parameter's memory, the parameters and paths it reads,
/// also through local copies of pointers into it (`const double *c =
/// app->coords; .. c[i]` reads `.coords` below `app`).
pub(super) fn param_reads(
    f: &Function,
    res: &mut Resolver,
    param_of: &HashMap<u32, u32>,
    load_locs: &HashMap<InstId, Vec<Loc>>,
) -> HashMap<InstId, Vec<ParamRead>> {
    let bases = write_sets::param_bases(f, res);
    let slots = write_sets::slot_stores(f, res);
    let mut out: HashMap<InstId, Vec<ParamRead>> = HashMap::default();
    for (&i, locs) in load_locs {
        let mut reads: Vec<ParamRead> = Vec::new();
        for l in locs {
            let param = match l.root {
                Root::Var(x) => param_of.get(&x).copied(),
                Root::RawArg(k) => Some(k),
                _ => None,
            };
            let found: Vec<ParamRead> = match param.map(|k| (k, bases.get(k as usize))) {
                // The parameter's own slot: its value.
                Some((k, Some(Some(b)))) if l.deref < b.deref => vec![(k, None)],
                Some((k, Some(None))) => vec![(k, None)],
                _ => write_sets::to_params(res, param_of, &bases, &slots, l.clone(), 0)
                    .into_iter()
                    .map(|(k, w)| {
                        let path: String = w.path.iter().map(|c| format!(".{c}")).collect();
                        (k, Some(path))
                    })
                    .collect(),
            };
            for r in found {
                if !reads.contains(&r) {
                    reads.push(r);
                }
            }
        }
        if !reads.is_empty() {
            out.insert(i, reads);
        }
    }
    out
}

/// Reachability over the blame graph, 64 variables at a time: each
/// variable's explicit and implicit lines, who reaches the nodes of call
/// bindings and parameter reads, and which roots feed other variables.
pub(super) fn reach(
    f: &Function,
    cfg: &Cfg,
    graph: &Graph,
    w: &Writes,
    param_reads: &HashMap<InstId, Vec<ParamRead>>,
    vars: &mut Vars,
    var_writes: &[Vec<u32>],
) -> Reach {
    let nv = vars.out.len();
    let data = &graph.data;
    let nn = data.len();
    let ctrl = ControlEdges::new(f, cfg, &w.node_block);

    // Reachability, for 64 variables at a time. Phase 1 (explicit blame):
    // the nodes reached from a variable's writes over data edges. Phase 2
    // (implicit blame): the nodes reached over data and control edges from
    // the terminators that phase-1 nodes are control dependent on.
    //
    // Each phase runs on the graph's strongly connected components: every
    // node of a component is reached by the same variables, so one bit mask
    // per component, pushed along the edges in topological order, gives in
    // one pass what a depth-first search per variable gives. A batch costs
    // O(nodes + edges), whatever the loops and however many variables reach
    // a node (an interpreter loop with 700 variables and 14,000 nodes takes
    // milliseconds, not the seconds of a search per variable).
    let data_comp = Components::new(nn, |n| data[n as usize].iter().copied());
    let all_comp = Components::new(nn, |n| data[n as usize].iter().chain(ctrl.of(n)).copied());
    let mut lines = LineSets::new(&w.node_line);
    let hit_list = hit_nodes(f, param_reads, graph.first_obj, &w.out_node_info);
    let mut hits = HitSets::new(hit_list, &data_comp, &all_comp);
    let mut explicit: Vec<Vec<u32>> = vec![Vec::new(); nv];
    let mut implicit: Vec<Vec<u32>> = vec![Vec::new(); nv];
    let mut masks = BatchMasks::new(data_comp.count(), all_comp.count());
    // Each batch visits only the components its writes reach (a function
    // with thousands of variables, each local to a loop nest, is not
    // variables x graph): the writers, control edges, lines and hits of
    // each component, found by component.
    let mut feeds = RootFeeds::new(&vars.out, var_writes, w, &data_comp);
    // Per variable, the output nodes of the calls that write it (by their
    // write sets or models; not every call it is handed to).
    let mut call_writes: Vec<Vec<u32>> = vec![Vec::new(); nv];
    for (n, ts) in &w.known_write_nodes {
        for &t in ts {
            if let Some(cw) = call_writes.get_mut(t as usize) {
                cw.push(*n);
            }
        }
    }
    for base in (0..nv).step_by(64) {
        let batch = (nv - base).min(64);
        masks.explicit(base, batch, var_writes, data, &data_comp);
        feeds.batch(base, &masks.touched1, &masks.m1);
        masks.implicit(
            base,
            batch,
            &call_writes,
            data,
            &ctrl,
            &data_comp,
            &all_comp,
        );
        // Lines, in ascending order per variable.
        lines.collect(base, &data_comp, &masks.m1, &masks.touched1, &mut explicit);
        lines.collect(base, &all_comp, &masks.m2, &masks.touched2, &mut implicit);
        hits.batch(base, &masks, &data_comp, &all_comp);
        masks.clear();
    }
    let (feeds_other, fed_roots) = (feeds.feeds_other, feeds.fed_roots);
    set_lines(vars, explicit, implicit);
    hits.into_reach(nv, feeds_other, fed_roots)
}

/// Calls `f` with the variable of each set bit of `bits`, in ascending order.
fn each_var(base: usize, mut bits: u64, mut f: impl FnMut(usize)) {
    while bits != 0 {
        f(base + bits.trailing_zeros() as usize);
        bits &= bits - 1;
    }
}

/// Control edges: per block, the terminators of the blocks it depends on; a
/// node of no block (a parameter, a memory object) has none.
struct ControlEdges<'a> {
    node_block: &'a [u32],
    block_ctrl: Vec<Vec<u32>>,
}

impl<'a> ControlEdges<'a> {
    fn new(f: &Function, cfg: &Cfg, node_block: &'a [u32]) -> Self {
        let term: Vec<u32> = f
            .blocks
            .iter()
            .map(|b| b.insts.last().copied().unwrap_or(u32::MAX))
            .collect();
        let block_ctrl: Vec<Vec<u32>> = cfg
            .control_deps
            .iter()
            .map(|deps| {
                deps.iter()
                    .map(|&a| term[a as usize])
                    .filter(|&t| t != u32::MAX)
                    .collect()
            })
            .collect();
        ControlEdges {
            node_block,
            block_ctrl,
        }
    }

    /// The terminators node `n` is control dependent on.
    fn of(&self, n: u32) -> &[u32] {
        match self.node_block[n as usize] {
            u32::MAX => &[],
            b => &self.block_ctrl[b as usize],
        }
    }
}

/// The source lines of the graph's nodes, numbered, and per line the
/// variables of the current batch that reach it.
struct LineSets {
    line_list: Vec<u32>,
    line_index: Vec<u32>,
    acc: Vec<u64>,
    lines_touched: Vec<usize>,
}

impl LineSets {
    fn new(node_line: &[u32]) -> Self {
        let mut line_list: Vec<u32> = node_line.iter().copied().filter(|&l| l > 0).collect();
        line_list.sort_unstable();
        line_list.dedup();
        let line_index: Vec<u32> = node_line
            .iter()
            .map(|&l| match line_list.binary_search(&l) {
                Ok(k) if l > 0 => k as u32,
                _ => u32::MAX,
            })
            .collect();
        let acc = vec![0u64; line_list.len()];
        LineSets {
            line_list,
            line_index,
            acc,
            lines_touched: Vec::new(),
        }
    }

    /// Appends to `out` of each variable of the batch at `base` the lines of
    /// the nodes of the `touched` components whose masks name it, ascending.
    fn collect(
        &mut self,
        base: usize,
        comps: &Components,
        masks: &[u64],
        touched: &[usize],
        out: &mut [Vec<u32>],
    ) {
        for &c in touched {
            let bits = masks[c];
            for &n in comps.nodes(c) {
                let k = self.line_index[n as usize];
                if k != u32::MAX && bits != 0 {
                    if self.acc[k as usize] == 0 {
                        self.lines_touched.push(k as usize);
                    }
                    self.acc[k as usize] |= bits;
                }
            }
        }
        self.lines_touched.sort_unstable();
        for &k in &self.lines_touched {
            each_var(base, self.acc[k], |v| out[v].push(self.line_list[k]));
            self.acc[k] = 0;
        }
        self.lines_touched.clear();
    }
}

/// One batch's bit masks per component: of the data graph (explicit blame,
/// `m1`) and of the data and control graph (total, `m2`), with the
/// components each touched.
struct BatchMasks {
    m1: Vec<u64>,
    queued1: Vec<bool>,
    touched1: Vec<usize>,
    m2: Vec<u64>,
    queued2: Vec<bool>,
    touched2: Vec<usize>,
}

impl BatchMasks {
    fn new(data_comps: usize, all_comps: usize) -> Self {
        BatchMasks {
            m1: vec![0u64; data_comps],
            queued1: vec![false; data_comps],
            touched1: Vec::new(),
            m2: vec![0u64; all_comps],
            queued2: vec![false; all_comps],
            touched2: Vec::new(),
        }
    }

    /// Phase 1: the data components the writes of the batch's variables
    /// reach over data edges.
    fn explicit(
        &mut self,
        base: usize,
        batch: usize,
        var_writes: &[Vec<u32>],
        data: &Edges,
        data_comp: &Components,
    ) {
        for (b, v) in (base..base + batch).enumerate() {
            for &w in &var_writes[v] {
                let c = data_comp.of(w);
                self.m1[c] |= 1 << b;
                if !self.queued1[c] {
                    self.queued1[c] = true;
                    self.touched1.push(c);
                }
            }
        }
        data_comp.propagate_from(&mut self.m1, &mut self.touched1, &mut self.queued1, |n| {
            data[n as usize].iter().copied()
        });
    }

    /// Phase 2: from the terminators phase-1 nodes are control dependent
    /// on, and those of the calls that write the batch's variables by
    /// their write sets or models (`call_writes`), over data and control
    /// edges.
    #[allow(clippy::too_many_arguments)]
    fn implicit(
        &mut self,
        base: usize,
        batch: usize,
        call_writes: &[Vec<u32>],
        data: &Edges,
        ctrl: &ControlEdges,
        data_comp: &Components,
        all_comp: &Components,
    ) {
        // A call writing a variable through a pointer (`interact(.., acc,
        // pot)` under the opening test of a tree walk) is a write of it
        // under the branches that decide whether the call runs, though
        // what the call computes reaches it through its transfer function.
        for (b, v) in (base..base + batch).enumerate() {
            for &n in call_writes.get(v).into_iter().flatten() {
                for &t in ctrl.of(n) {
                    let c2 = all_comp.of(t);
                    self.m2[c2] |= 1 << b;
                    if !self.queued2[c2] {
                        self.queued2[c2] = true;
                        self.touched2.push(c2);
                    }
                }
            }
        }
        for &c in &self.touched1 {
            let bits = self.m1[c];
            if bits == 0 {
                continue;
            }
            for &n in data_comp.nodes(c) {
                for &t in ctrl.of(n) {
                    let c2 = all_comp.of(t);
                    self.m2[c2] |= bits;
                    if !self.queued2[c2] {
                        self.queued2[c2] = true;
                        self.touched2.push(c2);
                    }
                }
            }
        }
        all_comp.propagate_from(&mut self.m2, &mut self.touched2, &mut self.queued2, |n| {
            data[n as usize].iter().chain(ctrl.of(n)).copied()
        });
    }

    /// Clears the batch's masks for the next.
    fn clear(&mut self) {
        for c in self.touched1.drain(..) {
            self.m1[c] = 0;
            self.queued1[c] = false;
        }
        for c in self.touched2.drain(..) {
            self.m2[c] = 0;
            self.queued2[c] = false;
        }
    }
}

/// Which roots feed other variables (`Reach::feeds_other`, `fed_roots`),
/// found batch by batch from the writes each batch reaches.
struct RootFeeds<'a> {
    vars: &'a [Variable],
    /// Which roots' writes each write node is; an element pointer's root is
    /// its owner's.
    root_of: Vec<u32>,
    /// Per write node, the variables it writes.
    writers: BTreeMap<u32, Vec<u32>>,
    /// The write nodes of each data component.
    writers_of: HashMap<usize, Vec<u32>>,
    feeds_other: Vec<bool>,
    fed_roots: Vec<Vec<u32>>,
    /// The root feeds more than FED_ROOTS others.
    full: Vec<bool>,
    /// Only a result's candidates (locals of no scalar type) need the roots
    /// they feed; the others stop at the first.
    listed: Vec<bool>,
}

impl<'a> RootFeeds<'a> {
    fn new(
        vars: &'a [Variable],
        var_writes: &[Vec<u32>],
        w: &Writes,
        data_comp: &Components,
    ) -> Self {
        let nv = vars.len();
        let root_of: Vec<u32> = (0..nv as u32)
            .map(|mut v| {
                for _ in 0..nv {
                    let var = &vars[v as usize];
                    match var.parent.or(var.element_of) {
                        Some(p) if p != v => v = p,
                        _ => break,
                    }
                }
                v
            })
            .collect();
        let mut writers: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for (v, ws) in var_writes.iter().enumerate() {
            for &n in ws {
                writers.entry(n).or_default().push(v as u32);
            }
        }
        // Calls that may write a variable without being its writes (an OpenMP
        // region filling it) hand on what it holds too.
        for (n, ts) in &w.may_write_nodes {
            let e = writers.entry(*n).or_default();
            for &t in ts {
                if !e.contains(&t) {
                    e.push(t);
                }
            }
        }
        let listed: Vec<bool> = vars
            .iter()
            .map(|v| v.kind == VarKind::Local && v.parent.is_none() && !v.is_scalar)
            .collect();
        let mut writers_of: HashMap<usize, Vec<u32>> = HashMap::default();
        for &n in writers.keys() {
            writers_of.entry(data_comp.of(n)).or_default().push(n);
        }
        RootFeeds {
            vars,
            root_of,
            writers,
            writers_of,
            feeds_other: vec![false; nv],
            fed_roots: vec![Vec::new(); nv],
            full: vec![false; nv],
            listed,
        }
    }

    /// A write of root r reached (backward) from another root's writes:
    /// what r holds flows into that other variable.
    fn batch(&mut self, base: usize, touched1: &[usize], m1: &[u64]) {
        let RootFeeds {
            vars,
            root_of,
            writers,
            writers_of,
            feeds_other,
            fed_roots,
            full,
            listed,
        } = self;
        for &c in touched1 {
            let bits = m1[c];
            if bits == 0 {
                continue;
            }
            for n in writers_of.get(&c).into_iter().flatten() {
                let ws = &writers[n];
                for r in ws.iter().map(|&v| root_of[v as usize]) {
                    if full[r as usize] || (feeds_other[r as usize] && !listed[r as usize]) {
                        continue;
                    }
                    let fed = &mut fed_roots[r as usize];
                    each_var(base, bits, |v| {
                        // Arithmetic into a local scalar (a mean to print, a
                        // reduction's operand) feeds nothing back; a data
                        // structure, a parameter, a global or the return does.
                        let w = &vars[root_of[v] as usize];
                        let feeds = !w.is_scalar || w.is_exit || w.kind != VarKind::Local;
                        if root_of[v] != r && !ws.contains(&(v as u32)) && feeds {
                            let t = root_of[v];
                            if !fed.contains(&t) {
                                fed.push(t);
                            }
                        }
                    });
                    if !fed.is_empty() {
                        feeds_other[r as usize] = true;
                    }
                    if fed.len() > FED_ROOTS {
                        full[r as usize] = true;
                        fed.clear();
                    }
                }
            }
        }
    }
}

/// A node whose reach matters beyond its line.
enum Hit {
    /// A non-void call (its return binding), or a load through the
    /// pointer it returned.
    Ret(InstId),
    /// A load of parameter memory or a parameter's value (side effects).
    Params(Vec<ParamRead>),
    /// A call output (its argument binding).
    Out((InstId, u32)),
}

/// The hit nodes of the graph: non-void calls (return bindings), loads of
/// parameter memory and parameter values (side effects), call outputs
/// (argument bindings).
fn hit_nodes(
    f: &Function,
    param_reads: &HashMap<InstId, Vec<ParamRead>>,
    first_obj: usize,
    out_node_info: &[(InstId, u32)],
) -> Vec<(u32, Hit)> {
    let ni = f.insts.len();
    let np = f.params.len();
    let mut hits: Vec<(u32, Hit)> = Vec::new();
    for n in 0..first_obj {
        if n < ni {
            match &f.insts[n].op {
                Op::Call { .. } if !f.insts[n].is_void => {
                    hits.push((n as u32, Hit::Ret(n as InstId)))
                }
                Op::Load => {
                    if let Some(ks) = param_reads.get(&(n as InstId)) {
                        hits.push((n as u32, Hit::Params(ks.clone())));
                    }
                    // A load through a pointer a call returned (an accessor
                    // read: `other = state_(nb, v)`): what the loaded value
                    // flows into is what the call's work is for.
                    if let Some(c) = returned_address(f, &f.insts[n].args[0]) {
                        hits.push((n as u32, Hit::Ret(c)));
                    }
                }
                _ => {}
            }
        } else if n < ni + np {
            hits.push((n as u32, Hit::Params(vec![((n - ni) as u32, None)])));
        } else {
            hits.push((n as u32, Hit::Out(out_node_info[n - ni - np])));
        }
    }
    hits
}

/// The hit nodes with, per hit, the variables reaching it (total, and over
/// data edges only: explicit), ascending (batches and bits are visited in
/// order).
struct HitSets {
    hits: Vec<(u32, Hit)>,
    /// The hits of each data component and of each data-and-control one.
    of1: HashMap<usize, Vec<usize>>,
    of2: HashMap<usize, Vec<usize>>,
    seen: Vec<bool>,
    total: Vec<Vec<u32>>,
    explicit: Vec<Vec<u32>>,
}

impl HitSets {
    fn new(hits: Vec<(u32, Hit)>, data_comp: &Components, all_comp: &Components) -> Self {
        let mut of1: HashMap<usize, Vec<usize>> = HashMap::default();
        let mut of2: HashMap<usize, Vec<usize>> = HashMap::default();
        for (h, (n, _)) in hits.iter().enumerate() {
            of1.entry(data_comp.of(*n)).or_default().push(h);
            of2.entry(all_comp.of(*n)).or_default().push(h);
        }
        let n = hits.len();
        HitSets {
            hits,
            of1,
            of2,
            seen: vec![false; n],
            total: vec![Vec::new(); n],
            explicit: vec![Vec::new(); n],
        }
    }

    /// Adds the batch's variables to the hits of the components it touched.
    fn batch(
        &mut self,
        base: usize,
        masks: &BatchMasks,
        data_comp: &Components,
        all_comp: &Components,
    ) {
        let mut batch_hits: Vec<usize> = Vec::new();
        for (touched, of) in [(&masks.touched1, &self.of1), (&masks.touched2, &self.of2)] {
            for c in touched.iter() {
                for &h in of.get(c).into_iter().flatten() {
                    if !self.seen[h] {
                        self.seen[h] = true;
                        batch_hits.push(h);
                    }
                }
            }
        }
        for h in batch_hits {
            self.seen[h] = false;
            let n = self.hits[h].0;
            let explicit = masks.m1[data_comp.of(n)];
            let bits = explicit | masks.m2[all_comp.of(n)];
            each_var(base, bits, |v| self.total[h].push(v as u32));
            each_var(base, explicit, |v| self.explicit[h].push(v as u32));
        }
    }

    /// The bindings and parameter reads the hits give, (total, explicit)
    /// per binding.
    fn into_reach(self, nv: usize, feeds_other: Vec<bool>, fed_roots: Vec<Vec<u32>>) -> Reach {
        let mut ret_bind: HashMap<InstId, (Vec<u32>, Vec<u32>)> = HashMap::default();
        let mut arg_bind: HashMap<(InstId, u32), (Vec<u32>, Vec<u32>)> = HashMap::default();
        let mut reads_param: Vec<BTreeSet<ParamRead>> = vec![BTreeSet::new(); nv];
        let mut reads_param_explicit: Vec<BTreeSet<ParamRead>> = vec![BTreeSet::new(); nv];
        let reached = self.total.into_iter().zip(self.explicit);
        for ((_, hit), (vs, xs)) in self.hits.into_iter().zip(reached) {
            if vs.is_empty() {
                continue;
            }
            match hit {
                Hit::Ret(i) => {
                    let (b, x) = ret_bind.entry(i).or_default();
                    for (to, from) in [(b, vs), (x, xs)] {
                        to.extend(from);
                        to.sort_unstable();
                        to.dedup();
                    }
                }
                Hit::Params(ks) => {
                    for v in vs {
                        reads_param[v as usize].extend(ks.iter().cloned());
                    }
                    for v in xs {
                        reads_param_explicit[v as usize].extend(ks.iter().cloned());
                    }
                }
                Hit::Out(key) => {
                    arg_bind.insert(key, (vs, xs));
                }
            }
        }
        Reach {
            ret_bind,
            arg_bind,
            reads_param,
            reads_param_explicit,
            feeds_other,
            fed_roots,
        }
    }
}

/// Each variable's explicit lines (with its declaration's line, when it is
/// declared here) and implicit lines; its write lines sorted.
fn set_lines(vars: &mut Vars, explicit: Vec<Vec<u32>>, implicit: Vec<Vec<u32>>) {
    for (v, (mut explicit, implicit)) in explicit.into_iter().zip(implicit).enumerate() {
        if vars.declared.contains(&(v as u32)) {
            let l = vars.out[v].line;
            if l > 0 {
                explicit.push(l);
                explicit.sort_unstable();
                explicit.dedup();
            }
        }
        let var = &mut vars.out[v];
        var.explicit_lines = explicit;
        var.implicit_lines = implicit;
        var.write_lines.sort_unstable();
        var.write_lines.dedup();
    }
}
