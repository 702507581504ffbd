//! Result records (3.1's derived variables, beyond scalars): the locals,
//! globals and fields of objects that only record numbers computed
//! elsewhere (norm histories, timing arrays, a solver's statistics) and
//! feed nothing back. Stage of the per-function analysis, after the
//! reaching and side-effect passes: what each write records, the record
//! parameters and fields, and what feeds data; `result_records` marks
//! `Variable::is_record`, which post ranks with the derived scalars, and
//! `Variable::is_result` (locals computed from data that feed nothing
//! back), which post ranks with them when their blame is inherited.

use super::data_edges::Graph;
use super::later_writes::SplitFeeds;
use super::locations::{Key, Loc};
use super::writes::{is_fresh_allocation, ArgTarget, Writes};
use super::*;
use crate::library_models as library;
use std::collections::BTreeMap;

/// True when write node `n` is a call that writes nothing through that
/// argument: a release (`free`, blamed on the memory as a send is on its
/// buffer) or a function whose write set there is empty.
fn writes_nothing(f: &Function, defined: &DefinedFunctions, w: &Writes, n: u32) -> bool {
    let Some((c, k)) = w.call_of(f, n) else {
        return false;
    };
    let Op::Call { callee: Some(name) } = &f.insts[c as usize].op else {
        return false;
    };
    matches!(name.as_str(), "free" | "cfree")
        || defined
            .param_writes(name, k)
            .is_some_and(|ws| ws.is_empty())
}

/// Per root variable, the calls that may write it.
pub(super) fn call_writes_by_root(w: &Writes, roots: &[u32]) -> HashMap<u32, Vec<u32>> {
    let mut out: HashMap<u32, Vec<u32>> = HashMap::default();
    for (n, ts) in &w.may_write_nodes {
        let mut rs: Vec<u32> = ts.iter().map(|&t| roots[t as usize]).collect();
        rs.sort_unstable();
        rs.dedup();
        for r in rs {
            out.entry(r).or_default().push(*n);
        }
    }
    out
}

/// The exit parameters through which the function only records numbers:
/// every write into what one points to (its own stores, and the calls that
/// may write it) records a number (`hist[it] = sqrt(rr)`,
/// `history.push_back(norm / bnorm)`). Marked records, so a caller handing
/// it a history or a timing vector writes a record there
/// (`DefinedFunctions::record_params`); whether that feeds anything is the
/// caller's to judge.
pub(super) fn record_params(
    f: &Function,
    defined: &DefinedFunctions,
    vars: &mut [Variable],
    var_writes: &[Vec<u32>],
    w: &Writes,
    first_obj: usize,
) {
    let params: Vec<usize> = (0..vars.len())
        .filter(|&v| vars[v].parent.is_none() && vars[v].is_exit_param() && !vars[v].is_scalar)
        .collect();
    if params.is_empty() {
        return;
    }
    // (The parameter's own value stored in its slot is no write of what it
    // points to.)
    let binds_itself = |n: &u32| {
        f.insts.get(*n as usize).is_some_and(|i| {
            matches!(i.op, Op::Store) && matches!(i.args.first(), Some(Value::Arg(_)))
        })
    };
    // Per root, its own writes and those of its fields (`rec->traces[..] =
    // ..`), and the calls that may write it.
    let roots: Vec<u32> = (0..vars.len() as u32).map(|t| root_of(vars, t)).collect();
    let mut writes_of: HashMap<u32, Vec<u32>> = call_writes_by_root(w, &roots);
    for (t, ws) in var_writes.iter().enumerate() {
        let Some(&r) = roots.get(t) else { continue };
        writes_of
            .entry(r)
            .or_default()
            .extend(ws.iter().copied().filter(|n| !binds_itself(n)));
    }
    // A call that writes nothing there (`free(gw->H)`, a destructor of a
    // member that only releases it) records nothing: a function that only
    // releases what its parameter holds (`GmresWorkFree(gw)`) has no
    // verdict on it.
    for ws in writes_of.values_mut() {
        ws.retain(|&n| !writes_nothing(f, defined, w, n));
    }
    for v in params {
        let writes = writes_of.get(&(v as u32)).map(Vec::as_slice).unwrap_or(&[]);
        if !writes.is_empty()
            && writes
                .iter()
                .all(|&n| records_write(f, defined, w, first_obj, n as usize, false, false))
        {
            vars[v].is_record = true;
        }
    }
}

/// What each root variable's stored values flow into (the reaching pass's
/// verdict, and the globals read into data).
pub(super) struct Feeds {
    /// True when what is stored in it flows into another variable's writes.
    pub(super) other: Vec<bool>,
    /// The roots it feeds, when they are few (empty: more, or not known).
    pub(super) roots: Vec<Vec<u32>>,
    /// The locals whose writes computed from data feed apart from their
    /// writes of numbers (`later_writes`), with what those feed.
    pub(super) split: BTreeMap<u32, SplitFeeds>,
}

/// A pointer that owns no allocation: it holds an address, not results (a
/// cursor walking a tree, `n = n->left`).
pub(super) fn holds_an_address(v: &Variable) -> bool {
    v.is_pointer && v.heap_bytes == 0
}

/// True when a write of the variable stores the pointer a call of the
/// program returns (`all = receivers_gather(&rec, 0)`, memory the callee
/// allocated): it owns what it points to, as an allocation of its own.
pub(super) fn receives_returned_pointer(f: &Function, writes: &[u32]) -> bool {
    writes.iter().any(|&n| {
        f.insts.get(n as usize).is_some_and(|i| {
            matches!(i.op, Op::Store)
                && matches!(i.args.first(), Some(Value::Inst(c))
                    if matches!(f.insts.get(*c as usize).map(|c| &c.op), Some(Op::Call { callee: Some(_) })))
        })
    })
}

/// Whether write node `n` (a store or a call's output) records a number:
/// a store of a number (or of its own fresh buffer), or a call that computes
/// what it writes through that argument from nothing else the call is
/// given but numbers. `fields`: the written object is a field of another,
/// whose own methods may be handed the numbers it keeps.
pub(super) fn records_write(
    f: &Function,
    defined: &DefinedFunctions,
    w: &Writes,
    first_obj: usize,
    n: usize,
    fields: bool,
    strict: bool,
) -> bool {
    let (ni, np) = (f.insts.len(), f.params.len());
    if n < ni {
        let inst = &f.insts[n];
        return matches!(inst.op, Op::Store)
            && (w.numeric_stores.contains(&(n as InstId))
                || is_fresh_allocation(f, &inst.args[0]));
    }
    if (ni + np..first_obj).contains(&n) {
        let (c, k) = w.out_node_info[n - ni - np];
        let Op::Call { callee: Some(name) } = &f.insts[c as usize].op else {
            return false;
        };
        // Sized or filled from numbers passed by value (a
        // constructor's count, a fill value) is still a record.
        // (Without the callee's flows: from every other argument.)
        let args = &f.insts[c as usize].args;
        // An object's own method computes its state itself (`drv.run()`): no
        // record; a field's may be given the numbers it keeps
        // (`stats_.record_iteration(rnorm / bnorm)`).
        let own_method = k == 0 && library::is_own_method_call(name, args.len());
        if own_method && !fields {
            return false;
        }
        // A callee that only records numbers there (a solver appending its
        // residual norms to the history it is given), or, judged `strict`,
        // whose write set there is empty (`print_trace_summary(all, &rec)`
        // only reads; a write set can miss what an OpenMP region writes,
        // so only a variable already found to feed nothing but records and
        // results is judged so).
        if defined.record_params(name).iter().any(|(p, _)| *p == k)
            || (strict
                && defined
                    .param_writes(name, k)
                    .is_some_and(|ws| ws.is_empty()))
        {
            return true;
        }
        // A number written through a pointer to a scalar
        // (`force(.., &stats.npairs)`), or a struct's scalar fields
        // written by a function that keeps statistics in them
        // (`thermo(atoms, .., &stats)` setting `st->ke`, `st->temp`).
        let scalar_fields = defined.param_writes(name, k).is_some_and(|ws| {
            !ws.is_empty() && ws.iter().all(|w| !w.path.is_empty() && w.deref == 0)
        });
        if !w.data_args.contains(&(c, k)) || scalar_fields {
            return true;
        }
        if own_method {
            let given: Vec<&u32> = defined
                .param_flows(name, 0)
                .map(|from| from.iter().filter(|&&j| j != 0).collect())
                .unwrap_or_default();
            return !given.is_empty()
                && given
                    .iter()
                    .all(|&&j| args.get(j as usize).is_some_and(|a| !is_ptr_value(f, a)));
        }
        let every: Vec<u32> = (0..args.len() as u32).filter(|&j| j != k).collect();
        let from = defined.param_flows(name, k).unwrap_or(&every);
        // `strict`: a callee said to write the output from none of its
        // arguments while it is handed data (`cg_solve(A, data, b, x)`,
        // whose writes into `x` go through its own callees) is not known
        // to write numbers.
        let data_given = (0..args.len() as u32).any(|j| {
            j != k
                && w.data_args.contains(&(c, j))
                && args.get(j as usize).is_some_and(|a| is_ptr_value(f, a))
        });
        if strict && from.is_empty() && data_given {
            return false;
        }
        // A callee writing through a pointer member of it (`solve(&s,
        // comm)` computing `s->grid.u[..]` from `s` itself) computes
        // a data structure, whatever else it is given.
        let through_members = defined
            .param_writes(name, k)
            .is_some_and(|ws| ws.iter().any(|w| !w.path.is_empty() && w.deref >= 1));
        // (A container's own store, `history.push_back(norm)`, writes its
        // elements through its members from what it is given.)
        return matches!(name.as_str(), "memset" | "bzero")
            || name.starts_with("llvm.memset")
            || ((!through_members || library::stores_values(name))
                && from.iter().all(|&j| {
                    args.get(j as usize).is_some_and(|a| !is_ptr_value(f, a))
                        || !w.data_args.contains(&(c, j))
                }));
    }
    false
}

/// Handed to a call that may write something else from it (an OpenMP
/// region reading it into another array; a callee whose flows are
/// unknown), the subject (the variables `inside` says are it) feeds that.
/// Only the calls `call_counts` says count.
/// Writes into what `harmless` says (local scalars: a reduction's result to
/// print) do not count.
pub(super) fn feeds_through_call(
    f: &Function,
    defined: &DefinedFunctions,
    w: &Writes,
    args_of_call: &BTreeMap<InstId, Vec<&ArgTarget>>,
    call_counts: impl Fn(InstId) -> bool,
    inside: impl Fn(u32) -> bool,
    harmless: impl Fn(u32) -> bool,
) -> bool {
    w.arg_targets
        .iter()
        .filter(|(c, _, ts, _)| call_counts(*c) && ts.iter().any(|&t| inside(t)))
        .any(|&(c, j, _, _)| {
            let callee = match &f.insts[c as usize].op {
                Op::Call { callee } => callee.as_deref(),
                _ => None,
            };
            args_of_call[&c]
                .iter()
                .filter(|&&&(_, k, ref ts, may)| {
                    k != j && may && ts.iter().any(|&t| !inside(t) && !harmless(t))
                })
                .any(|&&(_, k, _, _)| {
                    callee
                        .and_then(|n| defined.param_flows(n, k))
                        .is_none_or(|from| from.contains(&j))
                })
        })
}

/// The globals whose values, loaded in this function, flow into another
/// variable's writes (a data structure, a parameter, a global, the return;
/// not a local scalar): what this function computes from them. A global's
/// own writes elsewhere are not seen here, so its reads decide (`reach`'s
/// `feeds_other` follows only writes made in this function). One backward
/// walk from every such write over the data edges, each node keeping at
/// most two of the roots it reaches.
pub(super) fn globals_read_into_data(
    graph: &Graph,
    vars: &Vars,
    var_writes: &[Vec<u32>],
) -> Vec<u32> {
    let out = &vars.out;
    let root = |v: u32| -> u32 {
        let mut v = v;
        for _ in 0..out.len() {
            match out[v as usize].parent {
                Some(p) => v = p,
                None => break,
            }
        }
        v
    };
    // Only data-structure globals can be records.
    let has_global = out
        .iter()
        .any(|v| v.kind == VarKind::Global && v.parent.is_none() && !v.is_scalar);
    if !has_global {
        return Vec::new();
    }
    let nn = graph.data.len();
    // Per node, up to two roots whose writes it flows into.
    let mut reaches: Vec<[u32; 2]> = vec![[u32::MAX; 2]; nn];
    let mut stack: Vec<u32> = Vec::new();
    let add = |reaches: &mut Vec<[u32; 2]>, stack: &mut Vec<u32>, n: u32, r: u32| {
        let slot = &mut reaches[n as usize];
        if slot.contains(&r) || slot[1] != u32::MAX {
            return;
        }
        if slot[0] == u32::MAX {
            slot[0] = r;
        } else {
            slot[1] = r;
        }
        stack.push(n);
    };
    for (v, ws) in var_writes.iter().enumerate() {
        let r = root(v as u32);
        let rv = &out[r as usize];
        if rv.is_scalar && !rv.is_exit && rv.kind == VarKind::Local {
            continue;
        }
        for &n in ws {
            if (n as usize) < nn {
                add(&mut reaches, &mut stack, n, r);
            }
        }
    }
    while let Some(n) = stack.pop() {
        let here = reaches[n as usize];
        for &p in &graph.data[n as usize] {
            for r in here.into_iter().filter(|&r| r != u32::MAX) {
                add(&mut reaches, &mut stack, p, r);
            }
        }
    }
    let mut feeding: BTreeSet<u32> = BTreeSet::new();
    for (&i, locs) in &graph.load_locs {
        let Some(here) = reaches.get(i as usize) else {
            continue;
        };
        for l in locs {
            if !matches!(l.root, Root::Global(_)) {
                continue;
            }
            let Some(&g) = vars.by_key.get(&(l.root, Vec::new())) else {
                continue;
            };
            if here.iter().any(|&r| r != u32::MAX && r != g) {
                feeding.insert(g);
            }
        }
    }
    feeding.into_iter().collect()
}

/// Result records among fields: a member of an object (`this->stats_`, a
/// solver's statistics with its timers and residual history) that this
/// function writes, every write recording numbers (stores of numbers into
/// it or its fields, its own methods handed numbers, calls filling it from
/// numbers), and whose values, read here, flow into nothing but itself and
/// the function's locals (`is_record`). Returns the names of the fields
/// whose values, read here, flow into other data (every member on the
/// read path: `stats` and `hist` of `s->stats.hist[0]`), the vetoes post
/// weighs those verdicts against (`StaticIndex::is_record_field`).
pub(super) fn record_fields(
    f: &Function,
    defined: &DefinedFunctions,
    vars: &mut Vars,
    var_writes: &[Vec<u32>],
    w: &Writes,
    graph: &Graph,
) -> Vec<String> {
    let out = &vars.out;
    let keys: HashMap<u32, &Key> = vars.by_key.iter().map(|(k, &v)| (v, k)).collect();
    let (read_groups, call_groups) = field_reads(vars, &keys, graph, w);
    let candidates: Vec<u32> = (0..out.len() as u32)
        .filter(|&v| {
            let var = &out[v as usize];
            var.kind == VarKind::Field
                && !var.is_scalar
                && !var.is_pointer
                && var.element_of.is_none()
        })
        .collect();
    if read_groups.is_empty() && call_groups.is_empty() && candidates.is_empty() {
        return Vec::new();
    }
    let fields = FieldRecords {
        f,
        defined,
        out,
        var_writes,
        w,
        graph,
        roots: (0..out.len() as u32).map(|t| root_of(out, t)).collect(),
        keys,
        decl_ty: &vars.decl_ty,
    };
    let mut fed = fields.fed(&read_groups, false);
    for (k, hits) in fields.fed(&call_groups, true) {
        match (fed.entry(k).or_insert_with(|| Some(BTreeSet::new())), hits) {
            (Some(all), Some(hits)) => all.extend(hits),
            (all, None) => *all = None,
            (None, _) => {}
        }
    }
    fed.retain(|_, hits| hits.as_ref().is_none_or(|h| !h.is_empty()));
    let vetoed = fields.vetoed_names(&fed);
    let records = fields.records(&candidates, &fed);
    for v in records {
        vars.out[v as usize].is_record = true;
    }
    // Each vetoed member by its name and declared type (`diag_` the matrix
    // diagonal of one class is not `diag_` the diagnostics of another).
    let mut names: BTreeSet<String> = BTreeSet::new();
    for key in vetoed {
        let Some(name) = key.1.last() else {
            continue;
        };
        names.insert(match vars.by_key.get(&key) {
            Some(&v) if !vars.out[v as usize].type_name.is_empty() => {
                blame_formats::static_db::field_with_type(name, &vars.out[v as usize].type_name)
            }
            _ => name.clone(),
        });
    }
    names.into_iter().collect()
}

/// Locations read: the loads of each field path (directly, or through
/// a local pointing into a field: `xs = x.data_.data(); .. xs[i]`), and
/// the calls handed a field's address, whose results are what they read
/// of it (a container member read through its methods: `sorted(entries.
/// begin(), entries.end())`).
fn field_reads(
    vars: &Vars,
    keys: &HashMap<u32, &Key>,
    graph: &Graph,
    w: &Writes,
) -> (BTreeMap<Key, Vec<u32>>, BTreeMap<Key, Vec<u32>>) {
    let out = &vars.out;
    let field_key = |l: &Loc| -> Option<Key> {
        if !l.path.is_empty() {
            return Some((l.root, l.path.clone()));
        }
        let mut t = *vars.by_key.get(&(l.root, Vec::new()))?;
        for _ in 0..4 {
            match out[t as usize].element_of {
                Some(o) if o != t => t = o,
                _ => break,
            }
        }
        let k = keys.get(&t)?;
        (!k.1.is_empty()).then(|| (*k).clone())
    };
    let mut read_groups: BTreeMap<Key, Vec<u32>> = BTreeMap::new();
    for (&i, locs) in &graph.load_locs {
        for l in locs {
            if let Some(k) = field_key(l) {
                read_groups.entry(k).or_default().push(i);
            }
        }
    }
    let mut call_groups: BTreeMap<Key, Vec<u32>> = BTreeMap::new();
    for (c, _, targets, _) in &w.arg_targets {
        for t in targets {
            if let Some(k) = keys.get(t).filter(|k| !k.1.is_empty()) {
                call_groups.entry((*k).clone()).or_default().push(*c);
            }
        }
    }
    for g in read_groups.values_mut().chain(call_groups.values_mut()) {
        g.sort_unstable();
        g.dedup();
    }
    (read_groups, call_groups)
}

/// What each read field feeds (`None`: unknown, anything).
type Fed<'k> = BTreeMap<&'k Key, Option<BTreeSet<u32>>>;

/// The facts the verdicts on a function's fields are drawn from.
struct FieldRecords<'a, 'k> {
    f: &'a Function,
    defined: &'a DefinedFunctions<'a>,
    out: &'a [Variable],
    var_writes: &'a [Vec<u32>],
    w: &'a Writes,
    graph: &'a Graph,
    /// Per variable, its root variable.
    roots: Vec<u32>,
    /// Per variable, its location.
    keys: HashMap<u32, &'k Key>,
    /// Per variable, its declared type.
    decl_ty: &'a [Option<TypeId>],
}

impl<'k> FieldRecords<'_, 'k> {
    /// True when write node `n` is a call linking field `v`'s object to
    /// memory (`DefinedFunctions::writes_links`).
    fn links(&self, n: u32, v: u32) -> bool {
        let Some((c, k)) = self.w.call_of(self.f, n) else {
            return false;
        };
        let Op::Call { callee: Some(name) } = &self.f.insts[c as usize].op else {
            return false;
        };
        let ty = self.decl_ty.get(v as usize).copied().flatten();
        self.defined.writes_links(name, k, ty)
    }

    /// Is variable `t` at location `k` or below it?
    fn below(&self, t: u32, k: &Key) -> bool {
        self.keys
            .get(&t)
            .is_some_and(|kt| kt.0 == k.0 && kt.1.starts_with(&k.1))
    }

    /// Is variable `t` at location `k` or above it?
    fn above(&self, t: u32, k: &Key) -> bool {
        self.keys
            .get(&t)
            .is_some_and(|kt| kt.0 == k.0 && k.1.starts_with(&kt.1))
    }

    /// Is variable `t` variable `v` or below it?
    fn under(&self, t: u32, v: u32) -> bool {
        self.keys.get(&v).is_some_and(|k| self.below(t, k))
    }

    /// What a field's values may flow into and stay a record: local
    /// scalars, and (through a call, `local`) the function's own locals (a
    /// scoped timer given the accumulator it adds to when it ends).
    fn harmless(&self, t: u32) -> bool {
        let r = &self.out[self.roots[t as usize] as usize];
        r.is_scalar && r.kind == VarKind::Local && !r.is_exit
    }

    /// What the function hands its caller: its return value, or what it
    /// writes through a parameter (a copy of a history into the caller's
    /// array).
    fn handed_to_caller(&self, t: u32) -> bool {
        let r = &self.out[self.roots[t as usize] as usize];
        (r.kind == VarKind::Return && !r.is_pointer) || (r.kind == VarKind::Param && r.is_exit)
    }

    /// A local of the function, not its exit (see `harmless`).
    fn local(&self, t: u32) -> bool {
        let r = &self.out[self.roots[t as usize] as usize];
        r.kind == VarKind::Local && !r.is_exit
    }

    /// Per write node, the variables it writes.
    fn writers(&self) -> HashMap<u32, Vec<u32>> {
        let mut writers: HashMap<u32, Vec<u32>> = HashMap::default();
        for (t, ws) in self.var_writes.iter().enumerate() {
            for &node in ws {
                writers.entry(node).or_default().push(t as u32);
            }
        }
        for (node, ts) in &self.w.may_write_nodes {
            writers.entry(*node).or_default().extend(ts.iter().copied());
        }
        writers
    }

    /// Each read location followed forward over the data edges: the
    /// variables whose writes it reaches (but itself, what it is a field of,
    /// which the same write names, and local scalars). Past a bound on the
    /// walks, every location read is taken to feed data unknown (no record,
    /// and a veto on one elsewhere): that costs precision only.
    ///
    /// From calls handed the field (`calls`), what the function hands its
    /// caller is not counted: an accessor (`history.back()` returned by
    /// `final_residual()`, a history copied out by `memcpy`) gives it to
    /// its callers, who judge it.
    fn fed<'g>(&self, read_groups: &'g BTreeMap<Key, Vec<u32>>, calls: bool) -> Fed<'g> {
        let writers = self.writers();
        let nn = self.graph.data.len();
        // `None`: unknown, anything.
        let mut fed: Fed<'g> = BTreeMap::new();
        if read_groups.len().saturating_mul(nn) > 50_000_000 {
            fed.extend(read_groups.keys().map(|k| (k, None)));
        } else if !read_groups.is_empty() {
            let (start, succ) = forward_edges(self.graph);
            // Each walk clears only what it visited.
            let mut seen = vec![false; nn];
            let mut visited: Vec<u32> = Vec::new();
            for (k, starts) in read_groups {
                for &m in &visited {
                    seen[m as usize] = false;
                }
                visited.clear();
                let mut hits: BTreeSet<u32> = BTreeSet::new();
                let mut stack: Vec<u32> = starts
                    .iter()
                    .copied()
                    .filter(|&i| (i as usize) < nn)
                    .collect();
                while let Some(m) = stack.pop() {
                    if std::mem::replace(&mut seen[m as usize], true) {
                        continue;
                    }
                    visited.push(m);
                    if let Some(ts) = writers.get(&m) {
                        let handed = |t: u32| calls && self.handed_to_caller(t);
                        hits.extend(ts.iter().filter(|&&t| {
                            !(self.below(t, k) || self.above(t, k) || self.harmless(t) || handed(t))
                        }));
                    }
                    let next = &succ[start[m as usize]..start[m as usize + 1]];
                    stack.extend(next.iter().copied().filter(|&s| !seen[s as usize]));
                }
                if !hits.is_empty() {
                    fed.insert(k, Some(hits));
                }
            }
        }
        fed
    }

    /// The names vetoed: the members of a read path below where it parts
    /// from the path of what it feeds (`x` of `s->x` read into `s->y`;
    /// `nh` of `s->stats.nh` indexing `s->stats.hist`; `stats` and `hist`
    /// of `s->stats.hist[0]` read into `out`).
    fn vetoed_names(&self, fed: &Fed) -> BTreeSet<Key> {
        let mut names: BTreeSet<Key> = BTreeSet::new();
        for (k, hits) in fed {
            let common = match hits {
                None => 0,
                Some(ts) => ts
                    .iter()
                    .map(|t| match self.keys.get(t) {
                        Some(kt) if kt.0 == k.0 => {
                            k.1.iter().zip(&kt.1).take_while(|(a, b)| a == b).count()
                        }
                        _ => 0,
                    })
                    .min()
                    .unwrap_or(0),
            };
            for end in common.min(k.1.len())..k.1.len() {
                names.insert((k.0, k.1[..=end].to_vec()));
            }
        }
        names
    }

    /// The candidates that are records: read into no other data, handed
    /// to no call writing something else from them, and every write of
    /// them records numbers.
    fn records(&self, candidates: &[u32], fed: &Fed) -> Vec<u32> {
        let (f, defined, w) = (self.f, self.defined, self.w);
        let args_of_call = w.args_by_call();
        let mut records = Vec::new();
        for &v in candidates {
            let Some(&kv) = self.keys.get(&v) else {
                continue;
            };
            // Read into other data here (at it or below it, into anything not
            // below it); or handed to a call that writes something else from it.
            let feeds_other = fed.iter().any(|(k, hits)| {
                k.0 == kv.0
                    && k.1.starts_with(&kv.1)
                    && hits
                        .as_ref()
                        .is_none_or(|ts| ts.iter().any(|&t| !self.under(t, v)))
            });
            if feeds_other
                || feeds_through_call(
                    f,
                    defined,
                    w,
                    &args_of_call,
                    |_| true,
                    |t| self.under(t, v),
                    |t| self.local(t),
                )
            {
                continue;
            }
            let mut writes: Vec<u32> = (0..self.out.len() as u32)
                .filter(|&t| self.under(t, v))
                .flat_map(|t| {
                    self.var_writes
                        .get(t as usize)
                        .into_iter()
                        .flatten()
                        .copied()
                })
                .collect();
            writes.extend(
                w.may_write_nodes
                    .iter()
                    .filter(|(_, ts)| ts.iter().any(|&t| self.under(t, v)))
                    .map(|(node, _)| *node),
            );
            writes.retain(|&n| !writes_nothing(f, defined, w, n));
            if writes.iter().any(|&n| self.links(n, v)) {
                continue;
            }
            if !writes.is_empty()
                && writes.iter().all(|&node| {
                    records_write(
                        f,
                        defined,
                        w,
                        self.graph.first_obj,
                        node as usize,
                        true,
                        false,
                    )
                })
            {
                records.push(v);
            }
        }
        records
    }
}

/// The data edges forward, flat: node m's successors are
/// `succ[start[m]..start[m + 1]]`.
fn forward_edges(graph: &Graph) -> (Vec<usize>, Vec<u32>) {
    let nn = graph.data.len();
    let mut start = vec![0usize; nn + 1];
    for m in 0..nn {
        for &p in graph.data[m].iter().filter(|&&p| (p as usize) < nn) {
            start[p as usize + 1] += 1;
        }
    }
    for m in 0..nn {
        start[m + 1] += start[m];
    }
    let mut succ = vec![0u32; start[nn]];
    let mut fill = start.clone();
    for m in 0..nn {
        for &p in graph.data[m].iter().filter(|&&p| (p as usize) < nn) {
            succ[fill[p as usize]] = m as u32;
            fill[p as usize] += 1;
        }
    }
    (start, succ)
}
