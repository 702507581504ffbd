//! Per-parameter write and read sets: where each function of a module may
//! write, and what it may read, through each of its pointer parameters, as
//! field paths below the memory the argument points to (a fixed point over
//! the module's calls).
//!
//! A caller uses the write sets as the may-definitions of a call:
//! `kernel(dom)` whose body writes only `dom->fx[..]` may-defines
//! `dom.m_fx`'s elements, not every field of `dom`, so `dom.cycle++` after
//! the kernels reads no kernel's output (without write sets every later
//! read of `dom` depended on every earlier call that took `dom`). The read
//! sets are what a call reads: an accessor (`Index_t &cycle() { return
//! m_cycle; }`) computes an address and reads nothing, so the address it
//! returns does not depend on the kernels' writes either.

use super::locations::{variable_bindings, Loc, Resolver, ReturnsInto, Root};
use crate::ir::*;
use crate::library_models as library;
use crate::HashMap;
use std::collections::BTreeSet;

/// A write through a pointer parameter: the memory `path` fields and
/// `deref` pointer loads below what the argument points to, and everything
/// reachable from there (a call's may-definitions cover what lies below
/// them). `([], 0)` is the whole argument.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ParamWrite {
    pub path: Vec<String>,
    pub deref: u32,
}

impl ParamWrite {
    /// The whole memory the argument reaches.
    pub fn whole() -> ParamWrite {
        ParamWrite {
            path: Vec::new(),
            deref: 0,
        }
    }

    /// True when a write here also covers `other` (a prefix of its path,
    /// no deeper).
    fn covers(&self, other: &ParamWrite) -> bool {
        self.deref <= other.deref && other.path.starts_with(&self.path)
    }
}

/// Longest path and deepest dereference kept; deeper writes are cut to
/// their prefix (which covers them), so recursive walks reach a fixed point.
const MAX_PATH: usize = 6;
const MAX_DEREF: u32 = 4;
/// Writes kept per parameter before they collapse into the whole argument.
const MAX_WRITES: usize = 24;
/// Rounds of the fixed point; functions still changing after them write
/// their whole arguments.
const MAX_ROUNDS: usize = 10;

/// Per defined function, per parameter position, where it may write (or read).
pub type WriteSets = HashMap<String, Vec<Vec<ParamWrite>>>;

/// A function's write and read sets as the static db stores them
/// (`FunctionSummary::param_writes`, `param_reads`).
pub type StoredSets = (
    Option<Vec<Vec<blame_formats::static_db::ParamAccess>>>,
    Option<Vec<Vec<blame_formats::static_db::ParamAccess>>>,
);

/// A module's write sets and read sets.
#[derive(Debug, Default)]
pub struct AccessSets {
    pub writes: WriteSets,
    pub reads: WriteSets,
    /// Per function whose summary is known, per parameter `k`: the other
    /// parameters whose values or pointees its writes through `k` are
    /// computed from (explicit side effects): a per-output transfer
    /// function, so a call's outputs do not all depend on all its inputs.
    pub flows: HashMap<String, Vec<Vec<u32>>>,
    /// Per function whose summary is known, the parameters through which
    /// it only records numbers (`summary_record_params`): a call writing a
    /// history or a timing vector through one writes a record.
    pub records: HashMap<String, Vec<(u32, bool)>>,
    /// Per function of another unit, where the pointer it returns points
    /// (`FunctionSummary::returns_into`), and per slot called through
    /// whose targets are all of other units, the union of theirs.
    pub returns: HashMap<String, Vec<ReturnsInto>>,
    /// Per function-pointer slot the module calls through, the functions
    /// it may call, when all are known (`pointer_sets`).
    pub slots: HashMap<String, BTreeSet<String>>,
    /// Per slot whose functions are all of other units, per parameter, the
    /// parameters any of them computes its writes through it from: what a
    /// wrapper forwarding its parameters to the slot passes on
    /// (`side_effects::forwarded`). Not the call's transfer function: a
    /// function's flows are its explicit side effects, not its callees'.
    pub slot_flows: HashMap<String, Vec<Vec<u32>>>,
}

/// The parameters of a summary through which its function only records
/// numbers: its exit parameters judged records (`hist[it] = norm(r)`,
/// `history.push_back(sqrt(rr))`), each with whether it is the object
/// the function returns by value (a named return value, not a pointer).
pub fn summary_record_params(s: &blame_formats::static_db::FunctionSummary) -> Vec<(u32, bool)> {
    let mut out: Vec<(u32, bool)> = s
        .variables
        .iter()
        .filter(|v| v.parent.is_none() && v.is_exit_param() && v.is_record)
        .filter_map(|v| v.param_index.map(|k| (k, !v.is_pointer)))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The per-parameter flows of a summary (`AccessSets::flows`): from its
/// explicit side effects.
pub fn summary_flows(s: &blame_formats::static_db::FunctionSummary) -> Vec<Vec<u32>> {
    let params = s
        .variables
        .iter()
        .filter_map(|v| v.param_index)
        .chain(
            s.side_effects
                .iter()
                .map(|e| e.blamed_param.max(e.from_param)),
        )
        .map(|k| k as usize + 1)
        .max()
        .unwrap_or(0);
    let mut flows: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); params];
    for e in s.side_effects.iter().filter(|e| !e.implicit) {
        if e.from_param != e.blamed_param {
            flows[e.blamed_param as usize].insert(e.from_param);
        }
    }
    flows.into_iter().map(|f| f.into_iter().collect()).collect()
}

/// Removes writes covered by others and bounds the set.
pub(super) fn normalize(ws: BTreeSet<ParamWrite>) -> Vec<ParamWrite> {
    let ws: Vec<ParamWrite> = ws
        .into_iter()
        .map(|mut w| {
            w.path.truncate(MAX_PATH);
            w.deref = w.deref.min(MAX_DEREF);
            w
        })
        .collect();
    let mut out: Vec<ParamWrite> = Vec::new();
    for w in &ws {
        if ws.iter().any(|o| o != w && o.covers(w)) {
            continue;
        }
        if !out.contains(w) {
            out.push(w.clone());
        }
    }
    out.sort();
    if out.len() > MAX_WRITES {
        return vec![ParamWrite::whole()];
    }
    out
}

impl AccessSets {
    /// The sets of the functions `db` holds summaries of, by linkage name,
    /// for the names `m` calls but has no body of (functions of other
    /// translation units analyzed before). A name with more than one
    /// summary (a `static` function of several files) is left out: which
    /// one a call reaches is not known.
    pub fn external(m: &Module, db: &blame_formats::static_db::StaticDb) -> AccessSets {
        let mut out = AccessSets::default();
        let (declared, defined) = (m.function_names(true), m.function_names(false));
        for name in declared.difference(&defined) {
            let Some(s) = db.only(name) else {
                continue;
            };
            if let Some(ws) = &s.param_writes {
                out.writes.insert(name.to_string(), from_stored(ws));
            }
            if let Some(rs) = &s.param_reads {
                out.reads.insert(name.to_string(), from_stored(rs));
            }
            out.flows.insert(name.to_string(), summary_flows(s));
            out.records
                .insert(name.to_string(), summary_record_params(s));
            if !s.returns_into.is_empty() {
                out.returns.insert(name.to_string(), ReturnsInto::stored(s));
            }
        }
        out
    }

    /// `name`'s sets as the static db stores them.
    pub fn stored(&self, name: &str) -> StoredSets {
        let convert = |sets: &Vec<Vec<ParamWrite>>| {
            sets.iter()
                .map(|ws| {
                    ws.iter()
                        .map(|w| blame_formats::static_db::ParamAccess {
                            path: w.path.clone(),
                            deref: w.deref,
                        })
                        .collect()
                })
                .collect()
        };
        (
            self.writes.get(name).map(convert),
            self.reads.get(name).map(convert),
        )
    }
}

/// The write and read sets of every defined function of `m` with pointer
/// parameters, calls to functions of other units (`external`, from the
/// static db) through their stored sets; the result holds those external
/// sets too.
pub(super) fn access_sets(
    m: &Module,
    rets: &HashMap<String, Vec<ReturnsInto>>,
    names: &HashMap<&str, bool>,
    const_params: &HashMap<&str, Vec<u32>>,
    external: &AccessSets,
) -> AccessSets {
    let mut sets = AccessSets {
        writes: write_sets(
            m,
            rets,
            names,
            const_params,
            &external.writes,
            Access::Write,
        ),
        reads: write_sets(
            m,
            rets,
            names,
            &HashMap::default(),
            &external.reads,
            Access::Read,
        ),
        flows: external.flows.clone(),
        records: external.records.clone(),
        returns: external.returns.clone(),
        slots: external.slots.clone(),
        slot_flows: external.slot_flows.clone(),
    };
    // MPI routines move data by their prototypes: a received buffer from
    // the buffer sent, requests and handles from no data.
    for g in m.functions.iter().filter(|g| g.is_declaration) {
        if !sets.flows.contains_key(&g.name) {
            if let Some(fl) = crate::library_models::mpi_flows(&g.name) {
                sets.flows.insert(g.name.clone(), fl);
            }
        }
    }
    let own = |n: &str| names.get(n).copied().unwrap_or(false);
    for (n, ws) in &external.writes {
        if !own(n) {
            sets.writes.insert(n.clone(), ws.clone());
        }
    }
    for (n, rs) in &external.reads {
        if !own(n) {
            sets.reads.insert(n.clone(), rs.clone());
        }
    }
    sets
}

/// A function's sets as the static db stores them, per parameter.
pub(super) fn from_stored(
    sets: &[Vec<blame_formats::static_db::ParamAccess>],
) -> Vec<Vec<ParamWrite>> {
    sets.iter()
        .map(|ws| {
            ws.iter()
                .map(|w| ParamWrite {
                    path: w.path.clone(),
                    deref: w.deref,
                })
                .collect()
        })
        .collect()
}

/// What one fixed point computes: which accesses, with the sets of the
/// functions of other units.
#[derive(Clone, Copy)]
struct Pass<'a> {
    access: Access,
    external: &'a WriteSets,
}

/// Which accesses a set holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    Write,
    Read,
}

fn write_sets(
    m: &Module,
    rets: &HashMap<String, Vec<ReturnsInto>>,
    names: &HashMap<&str, bool>,
    const_params: &HashMap<&str, Vec<u32>>,
    external: &WriteSets,
    access: Access,
) -> WriteSets {
    let candidates: Vec<&Function> = m
        .functions
        .iter()
        .filter(|f| !f.is_declaration && f.params.iter().any(|p| p.is_pointer))
        .collect();
    let mut sets: WriteSets = HashMap::default();
    let mut changed: BTreeSet<&str> = BTreeSet::new();
    // A function's sets depend only on the sets of the functions it names
    // (callees, intrinsics as their libc routine, OpenMP regions passed):
    // one none of which changed since its last evaluation would compute
    // the same again, and is skipped (the same rounds, the same results,
    // without evaluating every function in every round).
    let uses: Vec<Vec<&str>> = candidates.iter().map(|f| names_used(f)).collect();
    // The evaluation step (round by position) of each function's last
    // evaluation, and of each name's last change.
    let mut evaluated: Vec<Option<usize>> = vec![None; candidates.len()];
    let mut changed_at: HashMap<&str, usize> = HashMap::default();
    let t0 = std::time::Instant::now();
    for round in 0..MAX_ROUNDS {
        if std::env::var_os("BLAME_PROFILE").is_some() {
            eprintln!(
                "access sets: round {round}, {} changed, {:?}",
                changed.len(),
                t0.elapsed()
            );
        }
        changed.clear();
        for (k, f) in candidates.iter().enumerate() {
            let step = round * candidates.len() + k;
            // (A function's own change at its last evaluation counts: it
            // used its older sets.)
            let stale = evaluated[k].is_none_or(|last| {
                uses[k]
                    .iter()
                    .any(|u| changed_at.get(u).is_some_and(|&c| c >= last))
            });
            evaluated[k] = Some(step);
            if !stale {
                continue;
            }
            let pass = Pass { access, external };
            let ws = function_writes(m, f, rets, names, const_params, &sets, pass);
            if sets.get(&f.name) != Some(&ws) {
                sets.insert(f.name.clone(), ws);
                changed.insert(f.name.as_str());
                changed_at.insert(f.name.as_str(), step);
            }
        }
        if changed.is_empty() {
            return sets;
        }
    }
    // No fixed point (writes deepening along a recursion): those functions
    // may write anything their pointer arguments reach.
    for name in changed {
        if let (Some(ws), Some(f)) = (
            sets.get_mut(name),
            candidates.iter().find(|f| f.name == name),
        ) {
            for (k, w) in ws.iter_mut().enumerate() {
                if f.params[k].is_pointer {
                    *w = vec![ParamWrite::whole()];
                }
            }
        }
    }
    sets
}

/// The names whose sets `f`'s sets may depend on: its callees (an
/// intrinsic also as the libc routine it stands for) and the functions
/// its instructions take as values (an OpenMP fork's region).
fn names_used(f: &Function) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for inst in &f.insts {
        if let Op::Call { callee: Some(c) } = &inst.op {
            out.push(c);
            if c.starts_with("llvm.") {
                out.extend(library::intrinsic_as_libc(c));
            }
        }
        for a in &inst.args {
            if let Value::Func(r) = a {
                out.push(r);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// One round for one function: its stores and its calls (through the
/// callees' current sets) mapped to its parameters.
fn function_writes(
    m: &Module,
    f: &Function,
    rets: &HashMap<String, Vec<ReturnsInto>>,
    names: &HashMap<&str, bool>,
    const_params: &HashMap<&str, Vec<u32>>,
    sets: &WriteSets,
    pass: Pass,
) -> Vec<Vec<ParamWrite>> {
    let Pass { access, external } = pass;
    let (alloca_var, arg_var, param_of, _) = variable_bindings(f);
    let mut res = Resolver::new(m, f, rets, alloca_var, arg_var);
    let np = f.params.len();
    let bases = param_bases(f, &mut res);
    let slot_stores = slot_stores(f, &mut res);
    let mut fw = FunctionWrites {
        m,
        f,
        names,
        const_params,
        sets,
        access,
        external,
        res,
        param_of: &param_of,
        bases,
        slot_stores,
        seen: HashMap::default(),
        out: vec![BTreeSet::new(); np],
    };
    for inst in &f.insts {
        match &inst.op {
            Op::Store if access == Access::Write => {
                for l in fw.res.locs(&inst.args[1]) {
                    fw.written(l);
                }
            }
            Op::Load if access == Access::Read => {
                for l in fw.res.locs(&inst.args[0]) {
                    fw.written(l);
                }
            }
            Op::Call { callee } => fw.call(inst, callee.as_deref()),
            _ => {}
        }
    }
    fw.out.into_iter().map(normalize).collect()
}

/// One function's round: the facts its accesses are mapped to its
/// parameters with, and the sets found so far.
struct FunctionWrites<'a, 'p> {
    m: &'a Module,
    f: &'a Function,
    names: &'p HashMap<&'p str, bool>,
    const_params: &'p HashMap<&'p str, Vec<u32>>,
    sets: &'p WriteSets,
    access: Access,
    external: &'p WriteSets,
    res: Resolver<'a>,
    param_of: &'p HashMap<u32, u32>,
    bases: Vec<Option<Loc>>,
    slot_stores: Vec<(Loc, Value)>,
    /// A function writes (or reads) the same locations on many lines: each
    /// location is followed to the parameters once (the resolver keeps what
    /// it resolved, so a second walk would find the same).
    seen: HashMap<Loc, Vec<(u32, ParamWrite)>>,
    out: Vec<BTreeSet<ParamWrite>>,
}

impl FunctionWrites<'_, '_> {
    /// Location `l` is accessed: what it is below each parameter joins
    /// that parameter's set.
    fn written(&mut self, l: Loc) {
        let found = match self.seen.get(&l) {
            Some(found) => found,
            None => {
                let found = to_params(
                    &mut self.res,
                    self.param_of,
                    &self.bases,
                    &self.slot_stores,
                    l.clone(),
                    0,
                );
                self.seen.entry(l).or_insert(found)
            }
        };
        for (k, w) in found {
            self.out[*k as usize].insert(w.clone());
        }
    }

    /// A call: what it accesses below each pointer argument, through the
    /// callee's current sets or its model.
    fn call(&mut self, inst: &Inst, callee: Option<&str>) {
        let (f, names) = (self.f, self.names);
        let name = match callee {
            Some(c) if c.starts_with("llvm.") => match library::intrinsic_as_libc(c) {
                Some(n) => Some(n),
                None => return,
            },
            other => other,
        };
        let has_body = name.is_some_and(|n| names.get(n).copied().unwrap_or(false));
        let model = match name {
            Some(n) if !has_body => self.library_model(n, inst),
            _ => None,
        };
        for (j, a) in inst.args.iter().enumerate() {
            let j = j as u32;
            if !is_pointer(f, a) {
                continue;
            }
            let Some(through) = self.through(inst, a, j, name, has_body, model.as_ref()) else {
                continue;
            };
            for l in self.res.locs(a) {
                for w in &through {
                    self.written(l.below(&w.path, w.deref));
                }
            }
        }
    }

    /// The model of a call to `n`, which has no body in the module.
    fn library_model(&self, n: &str, inst: &Inst) -> Option<library::LibModel> {
        let (names, sets) = (self.names, self.sets);
        library::known(n)
            .or_else(|| {
                let outputs = library::omp_fork_written(n, &inst.args, |r, k| {
                    if !names.get(r).copied().unwrap_or(false) {
                        return None;
                    }
                    Some(
                        sets.get(r)
                            .and_then(|ws| ws.get(k as usize))
                            .is_some_and(|w| !w.is_empty()),
                    )
                })?;
                Some(library::LibModel::new(outputs, false))
            })
            .or_else(|| library::omp_fork(n, inst.args.len() as u32))
    }

    /// What a call accesses below pointer argument `j` (`a`); `None`:
    /// nothing.
    fn through(
        &mut self,
        inst: &Inst,
        a: &Value,
        j: u32,
        name: Option<&str>,
        has_body: bool,
        model: Option<&library::LibModel>,
    ) -> Option<Vec<ParamWrite>> {
        let (m, access, external) = (self.m, self.access, self.external);
        // An OpenMP fork of a region of the module accesses below each
        // shared argument what the region does below its parameter (the
        // region writes `(*u)[i]` through the `double **` it is handed).
        let region = name
            .and_then(|n| library::omp_fork_region(n, &inst.args))
            .filter(|r| self.names.get(*r).copied().unwrap_or(false));
        if let (Some(r), true) = (region, j >= 3) {
            let ws = self
                .sets
                .get(r)
                .and_then(|ws| ws.get(j as usize - 1))
                .cloned()
                .unwrap_or_default();
            return (!ws.is_empty()).then_some(ws);
        }
        Some(match (name, model) {
            (Some(n), _) if has_body => {
                if self.const_params.get(n).is_some_and(|ks| ks.contains(&j)) {
                    return None;
                }
                // Not computed yet (this round): nothing so far.
                self.sets
                    .get(n)
                    .and_then(|ws| ws.get(j as usize))
                    .cloned()
                    .unwrap_or_default()
            }
            // A function of another unit: its stored set.
            (Some(n), _) if external.contains_key(n) => external
                .get(n)
                .and_then(|ws| ws.get(j as usize))
                .cloned()
                .unwrap_or_else(|| vec![ParamWrite::whole()]),
            // A library routine may read anything its pointer
            // arguments reach.
            (_, Some(_)) if access == Access::Read => vec![ParamWrite::whole()],
            (_, Some(md)) => {
                if md.may_write(j) {
                    vec![ParamWrite::whole()]
                } else {
                    return None;
                }
            }
            // A routine without a model, or a call through a
            // pointer: anything below a writable argument.
            _ => {
                let locs = self.res.locs(a);
                let mangled_const = name
                    .and_then(|n| library::const_pointer_params(n, inst.args.len()))
                    .is_some_and(|c| c[j as usize]);
                if access == Access::Write
                    && (mangled_const
                        || (!locs.is_empty() && locs.iter().all(|l| m.is_const(l.ty))))
                {
                    return None;
                }
                vec![ParamWrite::whole()]
            }
        })
    }
}

/// Pointer-valued stores into the function's own storage (locals, spilled
/// parameters): where a local pointer points.
pub(super) fn slot_stores(f: &Function, res: &mut Resolver) -> Vec<(Loc, Value)> {
    let mut out: Vec<(Loc, Value)> = Vec::new();
    for inst in f.insts.iter().filter(|i| matches!(i.op, Op::Store)) {
        if !is_pointer(f, &inst.args[0]) {
            continue;
        }
        for a in res.locs(&inst.args[1]) {
            if a.deref == 0 && !matches!(a.root, Root::Global(_)) {
                out.push((a, inst.args[0].clone()));
            }
        }
    }
    out
}

/// The parameters' own locations (what each pointer argument points to).
pub(super) fn param_bases(f: &Function, res: &mut Resolver) -> Vec<Option<Loc>> {
    (0..f.params.len() as u32)
        .map(|k| {
            if f.params[k as usize].is_pointer {
                res.locs(&Value::Arg(k)).into_iter().next()
            } else {
                None
            }
        })
        .collect()
}

fn is_pointer(f: &Function, v: &Value) -> bool {
    match v {
        Value::Inst(i) => f.insts[*i as usize].is_pointer,
        Value::Arg(k) => f.params.get(*k as usize).is_some_and(|p| p.is_pointer),
        Value::Global(_) => true,
        _ => false,
    }
}

/// The parameters whose memory a written location `l` is, relative to what
/// each points to. A location below a local pointer is followed to where
/// the pointers stored in that local point (`double *u = s->grid.u; u[i] =
/// ..` writes below parameter `s`, `.grid.u`, two dereferences down).
pub(super) fn to_params(
    res: &mut Resolver,
    param_of: &HashMap<u32, u32>,
    bases: &[Option<Loc>],
    slot_stores: &[(Loc, Value)],
    l: Loc,
    depth: u32,
) -> Vec<(u32, ParamWrite)> {
    let param = match l.root {
        Root::Var(x) => param_of.get(&x).copied(),
        Root::RawArg(k) => Some(k),
        _ => None,
    };
    if let Some(k) = param {
        let Some(b) = bases.get(k as usize).and_then(Option::as_ref) else {
            return vec![];
        };
        if l.root == b.root && l.deref >= b.deref && l.path.starts_with(&b.path) {
            return vec![(
                k,
                ParamWrite {
                    path: l.path[b.path.len()..].to_vec(),
                    deref: l.deref - b.deref,
                },
            )];
        }
        if l.deref < b.deref {
            // The parameter's own slot (a spilled copy of the pointer).
            return vec![];
        }
    }
    if l.deref == 0 || depth >= 4 {
        // The function's own storage (or a chain too long to follow).
        return vec![];
    }
    let mut out = Vec::new();
    for (slot, value) in slot_stores {
        if slot.root != l.root || !l.path.starts_with(&slot.path) {
            continue;
        }
        let rest = &l.path[slot.path.len()..];
        for target in res.locs(value) {
            let mut path = target.path.clone();
            path.extend(rest.iter().cloned());
            let next = Loc {
                root: target.root,
                path,
                deref: target.deref + l.deref - 1,
                ty: None,
                exact: false,
            };
            if next.root == l.root && next.deref >= l.deref {
                continue;
            }
            for w in to_params(res, param_of, bases, slot_stores, next, depth + 1) {
                if !out.contains(&w) {
                    out.push(w);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(path: &[&str], deref: u32) -> ParamWrite {
        ParamWrite {
            path: path.iter().map(|s| s.to_string()).collect(),
            deref,
        }
    }

    #[test]
    fn covered_writes_are_dropped_and_long_paths_cut() {
        let set: BTreeSet<ParamWrite> = [w(&["fx"], 1), w(&["fx"], 2), w(&["cycle"], 0)]
            .into_iter()
            .collect();
        assert_eq!(normalize(set), vec![w(&["cycle"], 0), w(&["fx"], 1)]);
        let long: BTreeSet<ParamWrite> = [w(&["a", "b", "c", "d", "e", "f", "g"], 9)]
            .into_iter()
            .collect();
        assert_eq!(normalize(long), vec![w(&["a", "b", "c", "d", "e", "f"], 4)]);
        let many: BTreeSet<ParamWrite> = (0..30).map(|i| w(&[&format!("f{i}")], 0)).collect();
        assert_eq!(normalize(many), vec![ParamWrite::whole()]);
    }
}
