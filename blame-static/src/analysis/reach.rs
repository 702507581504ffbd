//! Reachability over the blame graph: each variable's explicit lines (over
//! data edges from its writes) and implicit lines (once a control edge is
//! taken), who reaches the nodes of call bindings and of parameter reads,
//! and which roots feed other variables.

use super::data_edges::Graph;
use super::graph::Components;
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

pub(super) fn reach(
    f: &Function,
    cfg: &Cfg,
    graph: &Graph,
    w: &Writes,
    param_reads: &HashMap<InstId, Vec<ParamRead>>,
    vars: &mut Vars,
    var_writes: &[Vec<u32>],
) -> Reach {
    let ni = f.insts.len();
    let np = f.params.len();
    let nv = vars.out.len();
    let (data, first_obj) = (&graph.data, graph.first_obj);
    let nn = data.len();
    let (node_line, node_block, out_node_info) = (&w.node_line, &w.node_block, &w.out_node_info);
    // Control edges: terminators of the blocks each block depends on.
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
    let no_ctrl: Vec<u32> = Vec::new();
    let ctrl = |n: u32| -> &[u32] {
        match node_block[n as usize] {
            u32::MAX => &no_ctrl,
            b => &block_ctrl[b as usize],
        }
    };

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
    let all_comp = Components::new(nn, |n| data[n as usize].iter().chain(ctrl(n)).copied());
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
    // The nodes whose reach matters beyond their line: non-void calls (return
    // bindings), loads of parameter memory and parameter values (side
    // effects), call outputs (argument bindings).
    enum Hit {
        Ret(InstId),
        Params(Vec<ParamRead>),
        Out((InstId, u32)),
    }
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
    // Per hit node, the variables reaching it, ascending (batches and bits
    // are visited in order).
    let mut hit_vars: Vec<Vec<u32>> = vec![Vec::new(); hits.len()];
    // The same over data edges only (explicit blame).
    let mut hit_explicit: Vec<Vec<u32>> = vec![Vec::new(); hits.len()];
    let mut explicit: Vec<Vec<u32>> = vec![Vec::new(); nv];
    let mut implicit: Vec<Vec<u32>> = vec![Vec::new(); nv];
    let mut m1 = vec![0u64; data_comp.count()];
    let mut m2 = vec![0u64; all_comp.count()];
    let mut acc = vec![0u64; line_list.len()];
    // Calls `f` with the variable of each set bit of `bits`, in ascending order.
    fn each_var(base: usize, mut bits: u64, mut f: impl FnMut(usize)) {
        while bits != 0 {
            f(base + bits.trailing_zeros() as usize);
            bits &= bits - 1;
        }
    }
    // Which roots' writes each write node is (for `feeds_other`); an
    // element pointer's root is its owner's.
    let root_of: Vec<u32> = (0..nv as u32)
        .map(|mut v| {
            for _ in 0..nv {
                let var = &vars.out[v as usize];
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
    let mut feeds_other = vec![false; nv];
    // (`full`: the root feeds more than FED_ROOTS others.)
    let mut fed_roots: Vec<Vec<u32>> = vec![Vec::new(); nv];
    let mut full = vec![false; nv];
    // Only a result's candidates (locals of no scalar type) need the roots
    // they feed; the others stop at the first.
    let listed: Vec<bool> = vars
        .out
        .iter()
        .map(|v| v.kind == VarKind::Local && v.parent.is_none() && !v.is_scalar)
        .collect();
    // Each batch visits only the components its writes reach (a function
    // with thousands of variables, each local to a loop nest, is not
    // variables x graph): the writers, control edges, lines and hits of
    // each component, found by component.
    let (mut touched1, mut touched2) = (Vec::new(), Vec::new());
    let mut queued1 = vec![false; data_comp.count()];
    let mut queued2 = vec![false; all_comp.count()];
    let mut writers_of: HashMap<usize, Vec<u32>> = HashMap::default();
    for &n in writers.keys() {
        writers_of.entry(data_comp.of(n)).or_default().push(n);
    }
    let mut hits_of1: HashMap<usize, Vec<usize>> = HashMap::default();
    let mut hits_of2: HashMap<usize, Vec<usize>> = HashMap::default();
    for (h, (n, _)) in hits.iter().enumerate() {
        hits_of1.entry(data_comp.of(*n)).or_default().push(h);
        hits_of2.entry(all_comp.of(*n)).or_default().push(h);
    }
    let mut hit_seen = vec![false; hits.len()];
    let mut lines_touched: Vec<usize> = Vec::new();
    for base in (0..nv).step_by(64) {
        let batch = (nv - base).min(64);
        for (b, v) in (base..base + batch).enumerate() {
            for &w in &var_writes[v] {
                let c = data_comp.of(w);
                m1[c] |= 1 << b;
                if !queued1[c] {
                    queued1[c] = true;
                    touched1.push(c);
                }
            }
        }
        data_comp.propagate_from(&mut m1, &mut touched1, &mut queued1, |n| {
            data[n as usize].iter().copied()
        });
        // A write of root r reached (backward) from another root's writes:
        // what r holds flows into that other variable.
        for &c in &touched1 {
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
                        let w = &vars.out[root_of[v] as usize];
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
        for &c in &touched1 {
            let bits = m1[c];
            if bits == 0 {
                continue;
            }
            for &n in data_comp.nodes(c) {
                for &t in ctrl(n) {
                    let c2 = all_comp.of(t);
                    m2[c2] |= bits;
                    if !queued2[c2] {
                        queued2[c2] = true;
                        touched2.push(c2);
                    }
                }
            }
        }
        all_comp.propagate_from(&mut m2, &mut touched2, &mut queued2, |n| {
            data[n as usize].iter().chain(ctrl(n)).copied()
        });
        // Lines, in ascending order per variable.
        for (comps, masks, touched, out) in [
            (&data_comp, &m1, &touched1, &mut explicit),
            (&all_comp, &m2, &touched2, &mut implicit),
        ] {
            for &c in touched {
                let bits = masks[c];
                for &n in comps.nodes(c) {
                    let k = line_index[n as usize];
                    if k != u32::MAX && bits != 0 {
                        if acc[k as usize] == 0 {
                            lines_touched.push(k as usize);
                        }
                        acc[k as usize] |= bits;
                    }
                }
            }
            lines_touched.sort_unstable();
            for &k in &lines_touched {
                each_var(base, acc[k], |v| out[v].push(line_list[k]));
                acc[k] = 0;
            }
            lines_touched.clear();
        }
        let mut batch_hits: Vec<usize> = Vec::new();
        for (touched, of) in [(&touched1, &hits_of1), (&touched2, &hits_of2)] {
            for c in touched.iter() {
                for &h in of.get(c).into_iter().flatten() {
                    if !hit_seen[h] {
                        hit_seen[h] = true;
                        batch_hits.push(h);
                    }
                }
            }
        }
        for h in batch_hits {
            hit_seen[h] = false;
            let n = hits[h].0;
            let explicit = m1[data_comp.of(n)];
            let bits = explicit | m2[all_comp.of(n)];
            each_var(base, bits, |v| hit_vars[h].push(v as u32));
            each_var(base, explicit, |v| hit_explicit[h].push(v as u32));
        }
        for c in touched1.drain(..) {
            m1[c] = 0;
            queued1[c] = false;
        }
        for c in touched2.drain(..) {
            m2[c] = 0;
            queued2[c] = false;
        }
    }
    // (total, explicit) per binding.
    let mut ret_bind: HashMap<InstId, (Vec<u32>, Vec<u32>)> = HashMap::default();
    let mut arg_bind: HashMap<(InstId, u32), (Vec<u32>, Vec<u32>)> = HashMap::default();
    let mut reads_param: Vec<BTreeSet<ParamRead>> = vec![BTreeSet::new(); nv];
    let mut reads_param_explicit: Vec<BTreeSet<ParamRead>> = vec![BTreeSet::new(); nv];
    for ((_, hit), (vs, xs)) in hits.into_iter().zip(hit_vars.into_iter().zip(hit_explicit)) {
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
    Reach {
        ret_bind,
        arg_bind,
        reads_param,
        reads_param_explicit,
        feeds_other,
        fed_roots,
    }
}
