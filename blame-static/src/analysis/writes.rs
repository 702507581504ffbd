//! The writes of a function (phase 1 of its summary): the graph's nodes
//! beyond the instructions (one per parameter, one per call output),
//! killing definitions and may-definitions, the variables each write
//! targets, pointer copies (alias pairs), the library models of calls, and
//! which stores record a number.

use super::defined::DefinedFunctions;
use super::is_ptr_value;
use super::locations::{Key, Loc, Resolver, Root};
use super::variables::Vars;
use super::write_sets;
use crate::ir::*;
use crate::library_models::{self as library, LibModel};
use crate::HashMap;
use std::collections::{BTreeMap, BTreeSet};

/// True when store `store` records a number: its value is computed (through
/// arithmetic, casts and merges) from constants, call results, scalar
/// variables and the stored location itself (an accumulation `times[0] +=
/// t`), and loads no other memory of a data structure (`a[i] = a[i - 1] *
/// 2` or `y[i] = b[i]` compute data, they do not record it).
/// `Some` of a nonempty set when it would record a number if those local
/// arrays or structs it copies an element of (`timing[1] +=
/// rec[step].seconds`) are records themselves; `None` when it computes data.
fn records_a_number(
    f: &Function,
    res: &mut Resolver,
    vars: &Vars,
    store: &Inst,
) -> Option<BTreeSet<u32>> {
    let mut from: BTreeSet<u32> = BTreeSet::new();
    let addr = &store.args[1];
    let mut stack = vec![store.args[0].clone()];
    let mut seen: BTreeSet<InstId> = BTreeSet::new();
    while let Some(v) = stack.pop() {
        let Value::Inst(i) = v else { continue };
        if !seen.insert(i) || seen.len() > 64 {
            continue;
        }
        let inst = &f.insts[i as usize];
        match &inst.op {
            Op::Load => {
                if &inst.args[0] == addr {
                    continue;
                }
                // One fixed element of a data structure (`hist[k] =
                // work[NX + 1]`, a probe of the solution) is a number taken
                // from it; an element chosen by a loop's index is data.
                if fixed_element(f, &inst.args[0]) || probed_element(f, &inst.args[0]) {
                    continue;
                }
                for l in res.locs(&inst.args[0]) {
                    let scalar = l.deref == 0
                        && vars
                            .by_key
                            .get(&(l.root, l.path.clone()))
                            .is_some_and(|&v| vars.out[v as usize].is_scalar);
                    if scalar {
                        continue;
                    }
                    // An element of a local array or struct (no pointer
                    // on the way): a number if that local is a record.
                    let local = match l.root {
                        Root::Var(_) if l.deref == 0 => {
                            vars.by_key.get(&(l.root, Vec::new())).filter(|&&v| {
                                vars.out[v as usize].kind
                                    == blame_formats::static_db::VarKind::Local
                            })
                        }
                        _ => None,
                    };
                    from.insert(*local?);
                }
            }
            // Arithmetic in a call's clothes (`llvm.fmuladd` of `y[i] +=
            // a * x[i]`, `sqrt(x[i])`) computes from its arguments; any
            // other call's result is a number it returned.
            Op::Call { callee: Some(name) } if library::is_arithmetic(name) => {
                stack.extend(inst.args.iter().cloned());
            }
            Op::Call { .. } => {}
            Op::Binary { .. } | Op::Cast | Op::Select | Op::Phi | Op::Other(_) => {
                stack.extend(inst.args.iter().cloned());
            }
            _ => return None,
        }
    }
    Some(from)
}

/// True when address `a` is an element at an index read from an array
/// (`wf->vz[rec->cell[r]]`: a station's sample of the wavefield, a probe
/// list): the value is taken from the data at a chosen point, as a fixed
/// element is. (Whether the copies feed anything is judged apart: a halo's
/// packed buffer, filled the same way, is read back into the data.)
fn probed_element(f: &Function, a: &Value) -> bool {
    let strip = |v: &Value| -> Value {
        let mut v = v.clone();
        for _ in 0..8 {
            match v {
                Value::Inst(i) if matches!(f.insts[i as usize].op, Op::Cast) => {
                    v = f.insts[i as usize].args[0].clone();
                }
                _ => break,
            }
        }
        v
    };
    let Value::Inst(g) = strip(a) else {
        return false;
    };
    let gep = &f.insts[g as usize];
    if !matches!(gep.op, Op::Gep { .. }) {
        return false;
    }
    gep.args.iter().skip(1).any(|idx| {
        let Value::Inst(l) = strip(idx) else {
            return false;
        };
        let load = &f.insts[l as usize];
        matches!(load.op, Op::Load)
            && matches!(strip(&load.args[0]), Value::Inst(p)
                if matches!(f.insts[p as usize].op, Op::Gep { .. }))
    })
}

/// True when address `a` is one element of a variable at constant indices
/// (`work[NX + 1]`, `grid[0][5]`, `s->hist[3]`): element pointers stepped
/// by constants from a variable's own storage, a pointer variable's value
/// or a parameter.
fn fixed_element(f: &Function, a: &Value) -> bool {
    let mut a = a.clone();
    let mut stepped = false;
    for _ in 0..16 {
        let Value::Inst(i) = a else {
            return stepped && matches!(a, Value::Global(_) | Value::Arg(_));
        };
        let inst = &f.insts[i as usize];
        match &inst.op {
            Op::Gep { .. } => {
                if !inst.args[1..]
                    .iter()
                    .all(|x| matches!(x, Value::ConstInt(_)))
                {
                    return false;
                }
                stepped = true;
                a = inst.args[0].clone();
            }
            Op::Cast => a = inst.args[0].clone(),
            // The value of a pointer variable: its own storage.
            Op::Load => {
                return stepped
                    && (matches!(&inst.args[0], Value::Global(_))
                        || matches!(&inst.args[0], Value::Inst(j)
                            if matches!(f.insts[*j as usize].op, Op::Alloca { .. })));
            }
            Op::Alloca { .. } => return stepped,
            _ => return false,
        }
    }
    false
}

/// The variable of the module's global named `name` (as summaries name
/// it: its source name), if the module declares it.
fn global_variable(m: &Module, vars: &mut Vars, name: &str) -> Option<u32> {
    let g = m.globals.iter().position(|gl| {
        !gl.artificial
            && gl.function.is_none()
            && gl.source_name.as_deref().unwrap_or(gl.name.as_str()) == name
    })?;
    let ty = m.globals[g].ty;
    vars.get(Root::Global(g as u32), &[], ty)
}

/// True when `v` is the address a call to an allocator returned (through
/// casts): a record's own buffer (`stats.values = new double[n]`), not a
/// link to other data.
pub(super) fn is_fresh_allocation(f: &Function, v: &Value) -> bool {
    let mut v = v.clone();
    for _ in 0..8 {
        let Value::Inst(i) = v else { return false };
        let inst = &f.insts[i as usize];
        match &inst.op {
            Op::Call { callee: Some(c) } => return library::is_allocator(c),
            Op::Cast => v = inst.args[0].clone(),
            _ => return false,
        }
    }
    false
}

/// The writes of a function (phase 1): nodes beyond the instructions (one
/// per parameter, one per call output), killing and may-definitions, what
/// each write reaches, pointer copies (alias pairs) and the library models
/// of calls.
#[derive(Default)]
pub(super) struct Writes {
    pub(super) node_line: Vec<u32>,
    pub(super) node_block: Vec<u32>,
    /// (call, arg) -> output node.
    pub(super) out_nodes: HashMap<(InstId, u32), u32>,
    pub(super) out_node_info: Vec<(InstId, u32)>,
    pub(super) kill_key: HashMap<InstId, Key>,
    /// Location -> numbers of the exact stores to it.
    pub(super) kill_defs: HashMap<Key, Vec<u32>>,
    pub(super) def_node: Vec<u32>,
    pub(super) may_defs: HashMap<(Key, u32), Vec<u32>>,
    /// Store/out node -> direct target variables.
    pub(super) writes: Vec<(u32, Vec<u32>)>,
    /// The writes (indices into `writes`) that store a pointer: they bind
    /// their targets to memory (`const Node &a = nodes[i]`, `p->next = q`),
    /// and write the targets themselves, not what the targets alias.
    pub(super) pointer_stores: BTreeSet<usize>,
    pub(super) alias_pairs: Vec<(u32, u32)>,
    pub(super) own_writes: Vec<(u32, u32)>,
    pub(super) call_models: HashMap<InstId, (Option<String>, Option<LibModel>)>,
    /// Per variable stored into as a whole pointer (`bp = ...`): the
    /// variables the stored addresses point into (`None`: unknown).
    pub(super) pointer_sources: BTreeMap<u32, BTreeSet<Option<u32>>>,
    /// The (call, argument) pairs whose argument points into a variable
    /// that is no scalar (a data structure, not a temporary or a number).
    pub(super) data_args: BTreeSet<(InstId, u32)>,
    /// Stores of a number that records a result: computed from scalars,
    /// call results and the stored location itself (`times[0] += t`,
    /// `norms[it] = solve(..)`), not from other memory of data structures.
    pub(super) numeric_stores: BTreeSet<InstId>,
    /// Stores that record a number if the local arrays or structs it is
    /// copied from are records (`timing[1] += rec[step].seconds`).
    pub(super) numeric_from: BTreeMap<InstId, BTreeSet<u32>>,
    /// Call outputs that may write what their argument points to, with
    /// the argument's target variables (writes or not).
    pub(super) may_write_nodes: Vec<(u32, Vec<u32>)>,
    /// Call outputs that do write there, by the callee's write set or its
    /// library model, with the variables they write.
    pub(super) known_write_nodes: Vec<(u32, Vec<u32>)>,
    /// Every pointer argument of a call.
    pub(super) arg_targets: Vec<ArgTarget>,
}

/// A pointer argument of a call: (call, argument, its target variables,
/// whether the call may write through it).
pub(super) type ArgTarget = (InstId, u32, Vec<u32>, bool);

pub(super) fn collect_writes(
    m: &Module,
    defined: &DefinedFunctions,
    f: &Function,
    res: &mut Resolver,
    vars: &mut Vars,
) -> Writes {
    let mut c = WriteCollector {
        m,
        defined,
        f,
        res,
        vars,
        w: Writes::numbered(f),
    };
    for (i, inst) in f.insts.iter().enumerate() {
        let i = i as InstId;
        match &inst.op {
            Op::Store => c.store(i, inst),
            Op::Call { .. } => {
                if let Some(name) = callee_name(inst) {
                    c.call(i, inst, name);
                }
            }
            _ => {}
        }
    }
    c.w
}

impl Writes {
    /// The call and argument whose output write node `n` is (`None` for a
    /// store, a parameter, or an object node).
    pub(super) fn call_of(&self, f: &Function, n: u32) -> Option<(InstId, u32)> {
        (n as usize)
            .checked_sub(f.insts.len() + f.params.len())
            .and_then(|o| self.out_node_info.get(o))
            .copied()
    }

    /// Each call's pointer arguments, by call.
    pub(super) fn args_by_call(&self) -> BTreeMap<InstId, Vec<&ArgTarget>> {
        let mut out: BTreeMap<InstId, Vec<&ArgTarget>> = BTreeMap::new();
        for a in &self.arg_targets {
            out.entry(a.0).or_default().push(a);
        }
        out
    }

    /// No writes yet. Node numbering: instructions, parameters, call
    /// outputs (added as the calls are met).
    fn numbered(f: &Function) -> Writes {
        let np = f.params.len();
        let mut node_line: Vec<u32> = f.insts.iter().map(|i| i.line).collect();
        let mut node_block: Vec<u32> = f.insts.iter().map(|i| i.block).collect();
        node_line.extend(std::iter::repeat_n(0, np));
        node_block.extend(std::iter::repeat_n(u32::MAX, np));
        Writes {
            node_line,
            node_block,
            ..Writes::default()
        }
    }

    /// A new node: the output of call `i` through its argument `k`.
    fn output_node(&mut self, i: InstId, k: u32, inst: &Inst) -> u32 {
        let node = self.node_line.len() as u32;
        self.node_line.push(inst.line);
        self.node_block.push(inst.block);
        self.out_nodes.insert((i, k), node);
        self.out_node_info.push((i, k));
        node
    }
}

/// The callee a call goes by in the library models (an intrinsic as the
/// libc function it stands for; `Some(None)`: an indirect call), or
/// `None` for an instruction that is no call, or an intrinsic of no
/// libc function.
fn callee_name(inst: &Inst) -> Option<Option<String>> {
    match &inst.op {
        Op::Call { callee: Some(c) } if c.starts_with("llvm.") => {
            library::intrinsic_as_libc(c).map(|n| Some(n.to_string()))
        }
        Op::Call { callee } => Some(callee.clone()),
        _ => None,
    }
}

/// The writes of a function, instruction by instruction.
struct WriteCollector<'a, 'r, 'm, 'v> {
    m: &'a Module,
    defined: &'a DefinedFunctions<'a>,
    f: &'a Function,
    res: &'r mut Resolver<'m>,
    vars: &'r mut Vars<'v>,
    w: Writes,
}

impl WriteCollector<'_, '_, '_, '_> {
    /// A store: its targets, its killing or may-definitions, the pointer
    /// copy it makes, and whether it records a number.
    fn store(&mut self, i: InstId, inst: &Inst) {
        let f = self.f;
        let locs = self.res.locs(&inst.args[1]);
        let targets = self.store_targets(inst, &locs);
        self.store_defs(i, &locs);
        if is_ptr_value(f, &inst.args[0]) {
            self.pointer_copy(inst, &locs, &targets);
            self.w.pointer_stores.insert(self.w.writes.len());
        } else if let Some(from) = records_a_number(f, self.res, self.vars, inst) {
            if from.is_empty() {
                self.w.numeric_stores.insert(i);
            } else {
                self.w.numeric_from.insert(i, from);
            }
        }
        self.w.writes.push((i, targets));
    }

    /// The variables a store to `locs` writes, and its exclusive writes.
    fn store_targets(&mut self, inst: &Inst, locs: &[Loc]) -> Vec<u32> {
        let mut targets = Vec::new();
        for l in locs {
            if let Some(v) = self.vars.get(l.root, &l.path, l.ty) {
                targets.push(v);
                // Exclusive blame: a store into the variable's own storage
                // (not into memory it points to). A field reached through
                // its root pointer (`g->energy = ...`, no index on the way)
                // is stored in the pointee: one dereference is its own.
                let field_of_pointee = l.deref == 1 && l.exact && !l.path.is_empty();
                if (l.deref == 0 || field_of_pointee) && inst.line > 0 {
                    self.w.own_writes.push((v, inst.line));
                }
            }
        }
        targets
    }

    /// Writes: a killing definition (an exact store to a slot) or
    /// may-definitions of every location stored to.
    fn store_defs(&mut self, i: InstId, locs: &[Loc]) {
        let w = &mut self.w;
        if locs.len() == 1 && locs[0].deref == 0 && locs[0].exact {
            let key = (locs[0].root, locs[0].path.clone());
            let d = w.def_node.len() as u32;
            w.def_node.push(i);
            w.kill_defs.entry(key.clone()).or_default().push(d);
            w.kill_key.insert(i, key);
        } else {
            for l in locs {
                w.may_defs
                    .entry(((l.root, l.path.clone()), l.deref))
                    .or_default()
                    .push(i);
            }
        }
    }

    /// A pointer stored to `locs`: where a local pointer's own slot points
    /// (element owners), and the alias pairs of the copy.
    fn pointer_copy(&mut self, inst: &Inst, locs: &[Loc], targets: &[u32]) {
        let f = self.f;
        // A store into a local pointer's own slot: where the
        // pointers it holds point (element owners).
        let own_slot =
            (locs.len() == 1 && locs[0].deref == 0 && locs[0].exact && locs[0].path.is_empty())
                .then(|| targets.first().copied())
                .flatten();
        let srcs = self.res.locs(&inst.args[0]);
        if let Some(t) = own_slot {
            let entry = self.w.pointer_sources.entry(t).or_default();
            // A fresh allocation makes it an owner of memory,
            // never an element pointer (`u = calloc(..)`, or a
            // factory's `src = lattice_create(..)`, then swapped
            // with `unew` through `tmp`).
            if srcs.is_empty()
                || is_fresh_allocation(f, &inst.args[0])
                || self.res.returns_fresh(&inst.args[0])
            {
                entry.insert(None);
            }
        }
        for src in srcs {
            let sv = self.vars.get(src.root, &src.path, src.ty);
            if let Some(t) = own_slot {
                self.w.pointer_sources.entry(t).or_default().insert(sv);
            }
            if let Some(sv) = sv {
                for &t in targets {
                    if t != sv {
                        self.w.alias_pairs.push((sv, t));
                    }
                }
            }
        }
    }

    /// A call: the globals its callee writes, its library model, and an
    /// output node per pointer argument that points somewhere.
    fn call(&mut self, i: InstId, inst: &Inst, name: Option<String>) {
        let (f, defined) = (self.f, self.defined);
        if let Some(n) = name.as_deref() {
            self.global_writes(i, n);
        }
        let has_body = name.as_deref().is_some_and(|n| defined.contains(n));
        let ptr_args: Vec<u32> = (0..inst.args.len() as u32)
            .filter(|&k| is_ptr_value(f, &inst.args[k as usize]))
            .collect();
        let model = match &name {
            Some(n) if !has_body => Some(self.library_model(n, inst, &ptr_args)),
            _ => None,
        };
        for &k in &ptr_args {
            self.call_output(i, inst, k, name.as_deref(), has_body, model.as_ref());
        }
        self.w.call_models.insert(i, (name, model));
    }

    /// The data-structure globals callee `n` writes: written by the call,
    /// from what it is given.
    fn global_writes(&mut self, i: InstId, n: &str) {
        let mut written: Vec<u32> = Vec::new();
        for g in self.defined.global_writes(n) {
            if let Some(v) = global_variable(self.m, self.vars, g) {
                if !self.vars.out[v as usize].is_scalar {
                    written.push(v);
                }
            }
        }
        if !written.is_empty() {
            self.w.writes.push((i, written));
        }
    }

    /// The model of a call to `n`, which has no body in the module.
    fn library_model(&mut self, n: &str, inst: &Inst, ptr_args: &[u32]) -> LibModel {
        let (m, defined) = (self.m, self.defined);
        library::known(n)
            .or_else(|| {
                // A fork of a region of this module: the
                // shared variables the region writes.
                let outputs = library::omp_fork_written(n, &inst.args, |r, k| {
                    if !defined.contains(r) {
                        return None;
                    }
                    defined.param_writes(r, k).map(|ws| !ws.is_empty())
                })?;
                Some(LibModel::new(outputs, false))
            })
            .or_else(|| library::omp_fork(n, inst.args.len() as u32))
            .unwrap_or_else(|| {
                // A library routine cannot write through a
                // pointer to const (`dgemm`'s `const double
                // *a`, or a C++ function of another unit
                // whose mangled name says `double const*`):
                // only the others take its blame.
                let consts = library::const_pointer_params(n, inst.args.len());
                let writable: Vec<u32> = ptr_args
                    .iter()
                    .copied()
                    .filter(|&k| {
                        if consts.as_ref().is_some_and(|c| c[k as usize]) {
                            return false;
                        }
                        let locs = self.res.locs(&inst.args[k as usize]);
                        locs.is_empty() || !locs.iter().all(|l| m.is_const(l.ty))
                    })
                    .collect();
                let blamed = if writable.is_empty() && inst.is_void {
                    ptr_args
                } else {
                    &writable
                };
                library::heuristic(blamed, !inst.is_void)
            })
    }

    /// The output node of call `i` through pointer argument `k`, if the
    /// argument points somewhere: what it may define, the variables it
    /// reaches, and whether they take the call's writes.
    fn call_output(
        &mut self,
        i: InstId,
        inst: &Inst,
        k: u32,
        name: Option<&str>,
        has_body: bool,
        model: Option<&LibModel>,
    ) {
        let defined = self.defined;
        let locs = self.res.locs(&inst.args[k as usize]);
        if locs.is_empty() {
            return;
        }
        let node = self.w.output_node(i, k, inst);
        // A library call may write only what its model says it
        // writes (MPI_Comm_rank writes the rank, not the
        // communicator); a call with a body may write anything
        // reachable from its pointer arguments.
        // Nor can a body write through a parameter it declares
        // as a pointer to const (`CalcElemVolume(const Real_t
        // *const x, ...)` leaves the caller's `xl` as it was).
        let const_param = has_body && name.is_some_and(|n| defined.is_const_param(n, k));
        let may_write = !const_param && model.is_none_or(|md| md.may_write(k));
        // A body of the module writes only where its write set
        // says (`kernel(dom)` writing `dom->fx[..]` leaves
        // `dom.cycle` as it was).
        // So does a function of another unit whose write set
        // the static db holds.
        let through: Option<&[write_sets::ParamWrite]> = match name {
            Some(n) => defined.param_writes(n, k),
            _ => None,
        };
        let targets = self.output_targets(node, &locs, may_write, through);
        // A library call writes what its model says. A value
        // type's own operations (a user-written `operator=` or
        // copy constructor writing its `this`, an operator
        // returning through a hidden result pointer) write where
        // their write sets say, as the compiler's copies would,
        // so what flows into them reaches the assigned element.
        // Other calls pass blame through their transfer
        // functions (3.3.3): their writes are not the caller's.
        let written = model.is_some_and(|md| md.writes_arg(k))
            || (may_write
                && through.is_some_and(|ws| !ws.is_empty())
                && name.is_some_and(|n| {
                    library::moves_values(n)
                        || library::is_cxx_method_of_program(n)
                        || library::stores_values(n)
                }));
        let w = &mut self.w;
        // (A struct of numbers handed by address, `receivers_init(&g, ..)`
        // with a grid's sizes, passes numbers, not data.)
        let (m, vars) = (self.m, &*self.vars);
        let numbers = |t: u32| {
            let v = &vars.out[t as usize];
            v.is_scalar
                || (v.parent.is_none()
                    && !v.is_pointer
                    && m.is_struct_of_scalars(vars.decl_ty.get(t as usize).copied().flatten()))
        };
        if targets.iter().any(|&t| !numbers(t)) {
            w.data_args.insert((i, k));
        }
        if may_write {
            w.may_write_nodes.push((node, targets.clone()));
            if model.is_some_and(|md| md.writes_arg(k)) || through.is_some_and(|ws| !ws.is_empty())
            {
                w.known_write_nodes.push((node, targets.clone()));
            }
        }
        w.arg_targets.push((i, k, targets.clone(), may_write));
        if written {
            w.writes.push((node, targets));
        }
    }

    /// The may-definitions of output `node` at `locs` (below each, where
    /// the callee's write set says, if known), and the variables of `locs`.
    fn output_targets(
        &mut self,
        node: u32,
        locs: &[Loc],
        may_write: bool,
        through: Option<&[write_sets::ParamWrite]>,
    ) -> Vec<u32> {
        let mut targets = Vec::new();
        for l in locs {
            if may_write {
                let may_defs = &mut self.w.may_defs;
                match through {
                    Some(ws) => {
                        for pw in ws {
                            let mut path = l.path.clone();
                            path.extend(pw.path.iter().cloned());
                            may_defs
                                .entry(((l.root, path), l.deref + pw.deref))
                                .or_default()
                                .push(node);
                        }
                    }
                    None => may_defs
                        .entry(((l.root, l.path.clone()), l.deref))
                        .or_default()
                        .push(node),
                }
            }
            if let Some(v) = self.vars.get(l.root, &l.path, l.ty) {
                targets.push(v);
            }
        }
        targets
    }
}
