//! The data edges of the blame graph (Table 3.1): operands, the stores and
//! may-definitions each read sees (through memory-object nodes, so edges
//! stay linear), what calls read through their arguments, and per-output
//! transfer functions at calls whose callee's flows are known.

use super::defined::DefinedFunctions;
use super::graph::{CallRoots, EdgeList, Edges, MayDefVisibility};
use super::is_ptr_value;
use super::locations::{Key, Loc, Resolver, Root};
use super::slots::{self, SlotValues};
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
    let n_out = out_node_info.len();
    let (obj_edges, objects) = object_nodes(
        may_defs,
        kill_defs,
        def_node,
        ni + np,
        node_line,
        node_block,
    );
    let def_number: HashMap<InstId, u32> = def_node
        .iter()
        .enumerate()
        .map(|(d, &n)| (n, d as u32))
        .collect();
    let visible = MayDefVisibility::new(f, cfg, call_roots, ni, np, out_node_info);

    // Data edges.
    let slots = exact_slot_values(
        f, cfg, res, kill_defs, def_node, kill_key, node_line, node_block,
    );
    let first_obj = ni + np + n_out;
    let data = initial_edges(node_line.len(), &slots, obj_edges, first_obj);
    let mut builder = EdgeBuilder {
        f,
        defined,
        res,
        element_roots,
        def_node,
        kill_key,
        out_nodes,
        out_node_info,
        objects,
        def_number,
        visible,
        slots,
        ni,
        np,
        first_obj,
        data,
        load_locs: HashMap::default(),
        current: HashMap::default(),
        per_output: Vec::new(),
    };
    for (b, blk) in f.blocks.iter().enumerate() {
        builder.current.clear();
        for &i in &blk.insts {
            builder.inst(b as u32, i);
        }
    }
    let (data, load_locs) = builder.finish();
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

/// The memory-object nodes of the writes: per may-defined location all its
/// writes (and the calls among them), per exactly stored location all its
/// stores.
struct ObjectNodes {
    may: HashMap<(Key, u32), u32>,
    call: HashMap<(Key, u32), u32>,
    kill_all: HashMap<Key, u32>,
}

/// Memory-object nodes keep the edges linear: a read depends on the
/// object, the object on every write to it (instead of reads x writes
/// edges). Numbered after the nodes of `node_line`; returns each object's
/// edges, in node order, with the objects.
fn object_nodes(
    may_defs: &HashMap<(Key, u32), Vec<u32>>,
    kill_defs: &HashMap<Key, Vec<u32>>,
    def_node: &[u32],
    first_call_output: usize,
    node_line: &mut Vec<u32>,
    node_block: &mut Vec<u32>,
) -> (Vec<Vec<u32>>, ObjectNodes) {
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
            .filter(|&n| n as usize >= first_call_output)
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
    let objects = ObjectNodes {
        may: may_obj,
        call: call_obj,
        kill_all: kill_all_obj,
    };
    (obj_edges, objects)
}

/// The values reads of exact slots see: stores, or merges of them (the
/// merge nodes added to the node tables).
#[allow(clippy::too_many_arguments)]
fn exact_slot_values(
    f: &Function,
    cfg: &Cfg,
    res: &mut Resolver,
    kill_defs: &HashMap<Key, Vec<u32>>,
    def_node: &[u32],
    kill_key: &HashMap<InstId, Key>,
    node_line: &mut Vec<u32>,
    node_block: &mut Vec<u32>,
) -> SlotValues {
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
    slots
}

/// Every node's edges before the instructions': the merges' inputs and the
/// memory objects' writes.
fn initial_edges(
    nn: usize,
    slots: &SlotValues,
    obj_edges: Vec<Vec<u32>>,
    first_obj: usize,
) -> Vec<EdgeList> {
    let mut data: Vec<EdgeList> = vec![EdgeList::new(); nn];
    for (node, ins) in &slots.merges {
        data[*node as usize] = EdgeList::from_slice(ins);
    }
    for (j, e) in obj_edges.into_iter().enumerate() {
        data[first_obj + j] = e.into();
    }
    data
}

/// The node of value `v`, if it has one, onto `edges`.
fn push_val(edges: &mut Vec<u32>, v: &Value, ni: usize) {
    match v {
        Value::Inst(j) => edges.push(*j),
        Value::Arg(k) => edges.push((ni + *k as usize) as u32),
        _ => {}
    }
}

/// What one instruction reads: its operands' nodes and the locations it
/// reads. For a call: the argument each read location comes from, and
/// per argument the nodes it brings in (its value, what is read through
/// it), for outputs whose callee says which arguments flow into them.
#[derive(Default)]
struct InstReads {
    edges: Vec<u32>,
    read_locs: Vec<Loc>,
    loc_arg: Vec<u32>,
    per_arg: Vec<Vec<u32>>,
}

/// The instructions' data edges, block by block, with the state they share.
struct EdgeBuilder<'a, 'r, 'm> {
    f: &'a Function,
    defined: &'a DefinedFunctions<'a>,
    res: &'r mut Resolver<'m>,
    element_roots: &'a HashSet<Root>,
    def_node: &'a [u32],
    kill_key: &'a HashMap<InstId, Key>,
    out_nodes: &'a HashMap<(InstId, u32), u32>,
    out_node_info: &'a [(InstId, u32)],
    objects: ObjectNodes,
    def_number: HashMap<InstId, u32>,
    visible: MayDefVisibility<'a>,
    slots: SlotValues,
    ni: usize,
    np: usize,
    first_obj: usize,
    data: Vec<EdgeList>,
    /// Per load, the locations it reads.
    load_locs: HashMap<InstId, Vec<Loc>>,
    /// Reads of a location: reaching exact defs, then every other write
    /// to it or an enclosing object. The exact def of each location so
    /// far in the block.
    current: HashMap<Key, u32>,
    /// Call outputs with their own inputs (per-output transfer functions).
    per_output: Vec<(u32, Vec<u32>)>,
}

impl EdgeBuilder<'_, '_, '_> {
    /// The data edges of instruction `i` of block `b`.
    fn inst(&mut self, b: u32, i: InstId) {
        let f = self.f;
        let inst = &f.insts[i as usize];
        let InstReads {
            mut edges,
            mut read_locs,
            loc_arg,
            mut per_arg,
        } = self.operands(inst);
        for (li, l) in read_locs.iter().enumerate() {
            let before = edges.len();
            self.location_edges(b, i, inst, l, &mut edges);
            if let Some(&k) = loc_arg.get(li) {
                per_arg[k as usize].extend_from_slice(&edges[before..]);
            }
        }
        if matches!(inst.op, Op::Load) && !read_locs.is_empty() {
            read_locs.shrink_to_fit();
            self.load_locs.insert(i, read_locs);
        }
        if let Some(key) = self.kill_key.get(&i) {
            let d = self.def_number[&i];
            self.current.insert(key.clone(), d);
        }
        edges.sort_unstable();
        edges.dedup();
        edges.retain(|&e| e != i);
        if let Op::Call { callee } = &inst.op {
            // A call reads its pointer arguments before it writes them.
            edges.retain(|&e| self.before_call(i, e));
            if let Some(name) = callee.as_deref() {
                self.output_flows(i, inst, name, &per_arg);
            }
        }
        self.data[i as usize] = edges.into();
    }

    /// The nodes of `inst`'s operands and the locations it reads.
    fn operands(&mut self, inst: &Inst) -> InstReads {
        let ni = self.ni;
        let mut r = InstReads::default();
        match &inst.op {
            Op::Load => {
                r.read_locs = self.res.locs(&inst.args[0]);
                push_val(&mut r.edges, &inst.args[0], ni);
            }
            Op::Store => {
                push_val(&mut r.edges, &inst.args[0], ni);
                push_val(&mut r.edges, &inst.args[1], ni);
            }
            Op::Call { callee } => self.call_operands(inst, callee.as_deref(), &mut r),
            Op::DbgDeclare { .. } | Op::DbgValue { .. } | Op::Alloca { .. } => {}
            _ => {
                for a in &inst.args {
                    push_val(&mut r.edges, a, ni);
                }
            }
        }
        r
    }

    /// A call's arguments and what it reads through them.
    fn call_operands(&mut self, inst: &Inst, callee: Option<&str>, r: &mut InstReads) {
        let (f, defined, ni) = (self.f, self.defined, self.ni);
        // A body of the module reads only its read set through
        // each argument (an accessor reads nothing: it returns
        // an address); anything else reads what they reach.
        let reads_of = |k: u32| match callee {
            Some(n) => defined.param_reads(n, k),
            _ => None,
        };
        // Per-argument inputs only for a callee whose flows are known.
        let flows_known = callee.is_some_and(|n| defined.param_flows(n, 0).is_some());
        if flows_known {
            r.per_arg = vec![Vec::new(); inst.args.len()];
        }
        for (k, a) in inst.args.iter().enumerate() {
            push_val(&mut r.edges, a, ni);
            if let Some(p) = r.per_arg.get_mut(k) {
                push_val(p, a, ni);
            }
            if !is_ptr_value(f, a) {
                continue;
            }
            match reads_of(k as u32) {
                Some(rs) => {
                    for l in self.res.locs(a) {
                        for r2 in rs {
                            let mut l = l.clone();
                            l.path.extend(r2.path.iter().cloned());
                            l.deref += r2.deref;
                            r.read_locs.push(l);
                        }
                    }
                }
                None => r.read_locs.extend(self.res.locs(a)),
            }
            if flows_known {
                r.loc_arg.resize(r.read_locs.len(), k as u32);
            }
        }
    }

    /// The nodes instruction `i` of block `b` depends on by reading `l`.
    fn location_edges(&mut self, b: u32, i: InstId, inst: &Inst, l: &Loc, edges: &mut Vec<u32>) {
        let key = (l.root, l.path.clone());
        // A read through an element pointer depends on its binding
        // (the address computed into the owner, `&nodes[c.n[k]]`):
        // what the read computes is what the binding was for.
        if l.deref > 0 && self.element_roots.contains(&l.root) {
            let bound = (l.root, Vec::new());
            if let Some(&d) = self.current.get(&bound) {
                edges.push(self.def_node[d as usize]);
            } else if let Some(v) = self.slots.at_entry(b, &bound) {
                edges.push(v);
            }
        }
        if l.deref == 0 {
            if let Some(&d) = self.current.get(&key) {
                edges.push(self.def_node[d as usize]);
            } else if let Some(v) = self.slots.at_entry(b, &key) {
                edges.push(v);
            }
            // Exact writes to enclosing objects (whole-struct stores).
            for k in 0..l.path.len() {
                if let Some(&o) = self.objects.kill_all.get(&(l.root, l.path[..k].to_vec())) {
                    edges.push(o);
                }
            }
        }
        if matches!(inst.op, Op::Call { .. }) {
            self.call_reads_below(i, l, edges);
        }
        for k in 0..=l.path.len() {
            let pk = (l.root, l.path[..k].to_vec());
            for d in 0..=l.deref {
                let obj = if d == l.deref {
                    self.objects.may.get(&(pk.clone(), d))
                } else {
                    self.objects.call.get(&(pk.clone(), d))
                };
                if let Some(&o) = obj {
                    if let Some(o) = self.visible.object(o, i, &mut self.data, self.first_obj) {
                        edges.push(o);
                    }
                }
            }
        }
    }

    /// A call reads what its pointer argument reaches, at any depth:
    /// writes below the argument (`g->u[i]`, a callee's write set `.u`)
    /// are read too.
    fn call_reads_below(&mut self, i: InstId, l: &Loc, edges: &mut Vec<u32>) {
        for ((key, d), &o) in self.objects.may.iter() {
            let below = key.0 == l.root
                && key.1.starts_with(&l.path)
                && *d >= l.deref
                && (key.1.len() > l.path.len() || *d > l.deref);
            if below {
                if let Some(o) = self.visible.object(o, i, &mut self.data, self.first_obj) {
                    edges.push(o);
                }
            }
        }
    }

    /// Whether call `i` reads node `e` before it writes: not the call, not
    /// one of its outputs, not an object written by this call only.
    fn before_call(&self, i: InstId, e: u32) -> bool {
        let (ni, np, first_obj) = (self.ni, self.np, self.first_obj);
        let out_node_info = self.out_node_info;
        let e = e as usize;
        if e == i as usize {
            return false;
        }
        if (ni + np..first_obj).contains(&e) {
            return out_node_info[e - ni - np].0 != i;
        }
        if e >= first_obj {
            // An object written by this call only.
            return self.data[e].iter().any(|&w| {
                let w = w as usize;
                !(ni + np..first_obj).contains(&w) || out_node_info[w - ni - np].0 != i
            });
        }
        true
    }

    /// Per-output transfer functions: when the callee says which of its
    /// arguments flow into what it writes through argument k (`dot(n, x,
    /// y, &result, &time)` computes `result` from x and y, `time` from a
    /// timer), the output depends on those arguments only, not on the
    /// whole call.
    fn output_flows(&mut self, i: InstId, inst: &Inst, name: &str, per_arg: &[Vec<u32>]) {
        for k in 0..inst.args.len() as u32 {
            let (Some(&node), Some(from)) = (
                self.out_nodes.get(&(i, k)),
                self.defined.param_flows(name, k),
            ) else {
                continue;
            };
            let mut out: Vec<u32> = Vec::new();
            for j in from.iter().copied().chain([k]) {
                if let Some(e) = per_arg.get(j as usize) {
                    out.extend(e.iter().copied().filter(|&e| self.before_call(i, e)));
                }
            }
            out.sort_unstable();
            out.dedup();
            self.per_output.push((node, out));
        }
    }

    /// The edges of every node and the locations of every load: call
    /// outputs depend on their own inputs when known, else on the call.
    fn finish(self) -> (Vec<EdgeList>, HashMap<InstId, Vec<Loc>>) {
        let mut data = self.data;
        let mut own_flows: BTreeSet<u32> = BTreeSet::new();
        for (node, out) in self.per_output {
            data[node as usize] = out.into();
            own_flows.insert(node);
        }
        for (&(c, _), &node) in self.out_nodes.iter() {
            if !own_flows.contains(&node) {
                data[node as usize].push(c);
            }
        }
        (data, self.load_locs)
    }
}
