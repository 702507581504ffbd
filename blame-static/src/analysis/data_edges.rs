//! The data edges of the blame graph (Table 3.1): operands, the stores and
//! may-definitions each read sees (through memory-object nodes, so edges
//! stay linear), what calls read through their arguments, and per-output
//! transfer functions at calls whose callee's flows are known.

use super::defined::DefinedFunctions;
use super::graph::{CallRoots, EdgeList, Edges, MayDefVisibility};
use super::is_ptr_value;
use super::locations::{Key, Loc, Resolver, Root};
use super::slots;
use super::writes::Writes;
use crate::cfg::Cfg;
use crate::ir::*;
use crate::{HashMap, HashSet};
use std::collections::BTreeSet;

/// The data edges of the blame graph.
pub(super) struct Graph {
    /// Per node, the nodes it depends on.
    pub(super) data: Edges,
    /// Per load, the locations it reads.
    pub(super) load_locs: HashMap<InstId, Vec<Loc>>,
    /// The first memory-object node.
    pub(super) first_obj: usize,
}

pub(super) fn data_edges(
    f: &Function,
    cfg: &Cfg,
    defined: &DefinedFunctions,
    res: &mut Resolver,
    w: &mut Writes,
    element_roots: &HashSet<Root>,
    call_roots: &CallRoots,
) -> Graph {
    let ni = f.insts.len();
    let np = f.params.len();
    let arg_node = |k: u32| (ni + k as usize) as u32;
    let Writes {
        node_line,
        node_block,
        out_nodes,
        out_node_info,
        kill_key,
        kill_defs,
        def_node,
        may_defs,
        ..
    } = w;
    // Memory-object nodes keep the edges linear: a read depends on the
    // object, the object on every write to it (instead of reads x writes edges).
    let n_out = out_node_info.len();
    let mut obj_edges: Vec<Vec<u32>> = Vec::new();
    let mut new_obj = |edges: Vec<u32>, node_line: &mut Vec<u32>, node_block: &mut Vec<u32>| {
        let id = node_line.len() as u32;
        node_line.push(0);
        node_block.push(u32::MAX);
        obj_edges.push(edges);
        id
    };
    let mut may_obj: HashMap<(Key, u32), u32> = HashMap::default();
    let mut call_obj: HashMap<(Key, u32), u32> = HashMap::default();
    for (k, ns) in may_defs.iter() {
        may_obj.insert(k.clone(), new_obj(ns.clone(), node_line, node_block));
        let calls: Vec<u32> = ns
            .iter()
            .copied()
            .filter(|&n| n as usize >= ni + np)
            .collect();
        if !calls.is_empty() {
            call_obj.insert(k.clone(), new_obj(calls, node_line, node_block));
        }
    }
    let mut kill_all_obj: HashMap<Key, u32> = HashMap::default();
    for (k, ds) in kill_defs.iter() {
        let nodes = ds.iter().map(|&d| def_node[d as usize]).collect();
        kill_all_obj.insert(k.clone(), new_obj(nodes, node_line, node_block));
    }
    let def_number: HashMap<InstId, u32> = def_node
        .iter()
        .enumerate()
        .map(|(d, &n)| (n, d as u32))
        .collect();
    let mut visible = MayDefVisibility::new(f, cfg, call_roots, ni, np, out_node_info);

    // Data edges.
    // The values reads of exact slots see: stores, or merges of them.
    let stores: HashMap<Key, Vec<InstId>> = kill_defs
        .iter()
        .map(|(k, ds)| {
            (
                k.clone(),
                ds.iter().map(|&d| def_node[d as usize]).collect(),
            )
        })
        .collect();
    let slots = slots::slot_values(f, cfg, res, &stores, kill_key, node_line.len() as u32);
    node_line.resize(node_line.len() + slots.merges.len(), 0);
    node_block.resize(node_block.len() + slots.merges.len(), u32::MAX);

    let nn = node_line.len();
    let first_obj = ni + np + n_out;
    let mut data: Vec<EdgeList> = vec![EdgeList::new(); nn];
    for (node, ins) in &slots.merges {
        data[*node as usize] = EdgeList::from_slice(ins);
    }
    for (j, e) in obj_edges.into_iter().enumerate() {
        data[first_obj + j] = e.into();
    }
    let push_val = |edges: &mut Vec<u32>, v: &Value| match v {
        Value::Inst(j) => edges.push(*j),
        Value::Arg(k) => edges.push(arg_node(*k)),
        _ => {}
    };
    // Reads of a location: reaching exact defs, then every other write to it or an enclosing object.
    let mut load_locs: HashMap<InstId, Vec<Loc>> = HashMap::default();
    let mut current: HashMap<Key, u32> = HashMap::default();
    // Call outputs with their own inputs (per-output transfer functions).
    let mut per_output: Vec<(u32, Vec<u32>)> = Vec::new();
    for (b, blk) in f.blocks.iter().enumerate() {
        current.clear();
        for &i in &blk.insts {
            let inst = &f.insts[i as usize];
            let mut edges = Vec::new();
            let mut read_locs: Vec<Loc> = Vec::new();
            // For a call: the argument each read location comes from, and
            // per argument the nodes it brings in (its value, what is read
            // through it), for outputs whose callee says which arguments
            // flow into them.
            let mut loc_arg: Vec<u32> = Vec::new();
            let mut per_arg: Vec<Vec<u32>> = Vec::new();
            match &inst.op {
                Op::Load => {
                    read_locs = res.locs(&inst.args[0]);
                    push_val(&mut edges, &inst.args[0]);
                }
                Op::Store => {
                    push_val(&mut edges, &inst.args[0]);
                    push_val(&mut edges, &inst.args[1]);
                }
                Op::Call { callee } => {
                    // A body of the module reads only its read set through
                    // each argument (an accessor reads nothing: it returns
                    // an address); anything else reads what they reach.
                    let reads_of = |k: u32| match callee.as_deref() {
                        Some(n) => defined.param_reads(n, k),
                        _ => None,
                    };
                    // Per-argument inputs only for a callee whose flows are known.
                    let flows_known = callee
                        .as_deref()
                        .is_some_and(|n| defined.param_flows(n, 0).is_some());
                    if flows_known {
                        per_arg = vec![Vec::new(); inst.args.len()];
                    }
                    for (k, a) in inst.args.iter().enumerate() {
                        push_val(&mut edges, a);
                        if let Some(p) = per_arg.get_mut(k) {
                            push_val(p, a);
                        }
                        if !is_ptr_value(f, a) {
                            continue;
                        }
                        match reads_of(k as u32) {
                            Some(rs) => {
                                for l in res.locs(a) {
                                    for r in rs {
                                        let mut l = l.clone();
                                        l.path.extend(r.path.iter().cloned());
                                        l.deref += r.deref;
                                        read_locs.push(l);
                                    }
                                }
                            }
                            None => read_locs.extend(res.locs(a)),
                        }
                        if flows_known {
                            loc_arg.resize(read_locs.len(), k as u32);
                        }
                    }
                }
                Op::DbgDeclare { .. } | Op::DbgValue { .. } | Op::Alloca { .. } => {}
                _ => {
                    for a in &inst.args {
                        push_val(&mut edges, a);
                    }
                }
            }
            for (li, l) in read_locs.iter().enumerate() {
                let before = edges.len();
                let key = (l.root, l.path.clone());
                // A read through an element pointer depends on its binding
                // (the address computed into the owner, `&nodes[c.n[k]]`):
                // what the read computes is what the binding was for.
                if l.deref > 0 && element_roots.contains(&l.root) {
                    let bound = (l.root, Vec::new());
                    if let Some(&d) = current.get(&bound) {
                        edges.push(def_node[d as usize]);
                    } else if let Some(v) = slots.at_entry(b as u32, &bound) {
                        edges.push(v);
                    }
                }
                if l.deref == 0 {
                    if let Some(&d) = current.get(&key) {
                        edges.push(def_node[d as usize]);
                    } else if let Some(v) = slots.at_entry(b as u32, &key) {
                        edges.push(v);
                    }
                    // Exact writes to enclosing objects (whole-struct stores).
                    for k in 0..l.path.len() {
                        if let Some(&o) = kill_all_obj.get(&(l.root, l.path[..k].to_vec())) {
                            edges.push(o);
                        }
                    }
                }
                if matches!(inst.op, Op::Call { .. }) {
                    // A call reads what its pointer argument reaches, at
                    // any depth: writes below the argument (`g->u[i]`,
                    // a callee's write set `.u`) are read too.
                    for ((key, d), &o) in may_obj.iter() {
                        let below = key.0 == l.root
                            && key.1.starts_with(&l.path)
                            && *d >= l.deref
                            && (key.1.len() > l.path.len() || *d > l.deref);
                        if below {
                            if let Some(o) = visible.object(o, i, &mut data, first_obj) {
                                edges.push(o);
                            }
                        }
                    }
                }
                for k in 0..=l.path.len() {
                    let pk = (l.root, l.path[..k].to_vec());
                    for d in 0..=l.deref {
                        let obj = if d == l.deref {
                            may_obj.get(&(pk.clone(), d))
                        } else {
                            call_obj.get(&(pk.clone(), d))
                        };
                        if let Some(&o) = obj {
                            if let Some(o) = visible.object(o, i, &mut data, first_obj) {
                                edges.push(o);
                            }
                        }
                    }
                }
                if let Some(&k) = loc_arg.get(li) {
                    per_arg[k as usize].extend_from_slice(&edges[before..]);
                }
            }
            if matches!(inst.op, Op::Load) && !read_locs.is_empty() {
                read_locs.shrink_to_fit();
                load_locs.insert(i, read_locs);
            }
            if let Some(key) = kill_key.get(&i) {
                let d = def_number[&i];
                current.insert(key.clone(), d);
            }
            edges.sort_unstable();
            edges.dedup();
            edges.retain(|&e| e != i);
            if let Op::Call { callee } = &inst.op {
                // A call reads its pointer arguments before it writes them.
                let before_call = |e: &u32| {
                    let e = *e as usize;
                    if e == i as usize {
                        return false;
                    }
                    if (ni + np..first_obj).contains(&e) {
                        return out_node_info[e - ni - np].0 != i;
                    }
                    if e >= first_obj {
                        // An object written by this call only.
                        return data[e].iter().any(|&w| {
                            let w = w as usize;
                            !(ni + np..first_obj).contains(&w) || out_node_info[w - ni - np].0 != i
                        });
                    }
                    true
                };
                edges.retain(before_call);
                // Per-output transfer functions: when the callee says which
                // of its arguments flow into what it writes through
                // argument k (`dot(n, x, y, &result, &time)` computes
                // `result` from x and y, `time` from a timer), the output
                // depends on those arguments only, not on the whole call.
                if let Some(name) = callee.as_deref() {
                    for k in 0..inst.args.len() as u32 {
                        let (Some(&node), Some(from)) =
                            (out_nodes.get(&(i, k)), defined.param_flows(name, k))
                        else {
                            continue;
                        };
                        let mut out: Vec<u32> = Vec::new();
                        for j in from.iter().copied().chain([k]) {
                            if let Some(e) = per_arg.get(j as usize) {
                                out.extend(e.iter().copied().filter(before_call));
                            }
                        }
                        out.sort_unstable();
                        out.dedup();
                        per_output.push((node, out));
                    }
                }
            }
            data[i as usize] = edges.into();
        }
    }
    let mut own_flows: BTreeSet<u32> = BTreeSet::new();
    for (node, out) in per_output {
        data[node as usize] = out.into();
        own_flows.insert(node);
    }
    for (&(c, _), &node) in out_nodes.iter() {
        if !own_flows.contains(&node) {
            data[node as usize].push(c);
        }
    }
    // Objects of visible subsets were added while reading.
    let nn = data.len();
    node_line.resize(nn, 0);
    node_block.resize(nn, u32::MAX);

    Graph {
        data: Edges::from_lists(data),
        load_locs,
        first_obj,
    }
}
