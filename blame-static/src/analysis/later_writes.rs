//! What a variable's writes computed from data feed, apart from its other
//! writes: flow-sensitively, in the order of the function's blocks. Stage
//! of the record judgement (`result_records`), after the reaching pass.
//!
//! The reaching pass sees a local array's writes as one: `w`, set to the
//! initial condition, transformed into the state `w_hat`, and at the end
//! overwritten with the final field computed from `w_hat`, feeds `w_hat`
//! by its first write, so its last (which inherits the whole time loop)
//! counts as feeding it too. Only the reads a write can reach in the
//! control flow see it: when the writes that feed other variables are
//! computed from numbers alone (nothing inherited through them) and the
//! writes computed from data feed nothing but records, results and local
//! scalars, the variable is a result at heart (3.1's derived variables):
//! its inherited blame comes through writes that feed nothing back.

use super::data_edges::Graph;
use super::writes::Writes;
use super::*;
use std::collections::BTreeMap;

/// How many variables of one function are split (each costs a walk of the
/// graph): a function of thousands of local arrays stays linear.
const MAX_SPLIT_VARIABLES: usize = 32;

/// How many writes a split variable may have (a buffer reused for a
/// result has a few; each costs a walk of the blocks).
const MAX_WRITES: usize = 32;

/// The numeric base types a small array counts as scalars of.
const NUMBER_TYPES: &[&str] = &[
    "double",
    "float",
    "long double",
    "int",
    "unsigned int",
    "unsigned",
    "long",
    "unsigned long",
    "long long",
    "unsigned long long",
    "short",
    "unsigned short",
    "size_t",
    "int64_t",
    "int32_t",
    "uint64_t",
    "uint32_t",
    "double _Complex",
    "float _Complex",
    "complex",
];

/// True when what flows into `v` feeds nothing back: a local of one
/// point's or one reduction's numbers (a scalar, or a local array of at
/// most `SMALL_ARRAY` numbers, `double wloc[2]`) that is not handed back to
/// the caller.
pub(super) fn only_local_numbers(v: &Variable) -> bool {
    v.kind == VarKind::Local
        && !v.is_exit
        && (v.is_scalar || (v.parent.is_none() && small_number_array(&v.type_name)))
}

/// True for the type name of an array of at most `SMALL_ARRAY` numbers
/// (`double [2]`, `int [3][3]`).
fn small_number_array(type_name: &str) -> bool {
    blame_formats::names::array_elements(type_name).is_some_and(|(base, n)| {
        n <= blame_formats::names::SMALL_ARRAY && NUMBER_TYPES.contains(&base)
    })
}

/// A variable whose feeds are narrowed to its writes computed from data.
pub(super) struct SplitFeeds {
    /// The roots those writes feed (the reaching pass's `fed_roots`, for
    /// them alone; empty: nothing).
    pub(super) fed: Vec<u32>,
    /// The calls those writes reach (a call may read the variable to
    /// write something else only after them).
    pub(super) later_calls: BTreeSet<InstId>,
    /// What the writes store reaches a store of a pointer into another
    /// variable (`s->levels[l] = lev`): the address is shared.
    address_stored: bool,
}

/// Per candidate root (a local that is no scalar and feeds other
/// variables, by the reaching pass, or is handed to calls), whose writes
/// `records_a_number` splits into writes of numbers and writes computed
/// from data, the feeds of its writes computed from
/// data, when some of its other writes (computed from numbers) are what
/// feeds: see the module's documentation.
#[allow(clippy::too_many_arguments)]
pub(super) fn split_feeds(
    f: &Function,
    defined: &DefinedFunctions,
    vars: &[Variable],
    var_writes: &[Vec<u32>],
    w: &Writes,
    graph: &Graph,
    feeds_other: &[bool],
    records_a_number: impl Fn(u32) -> bool,
) -> BTreeMap<u32, SplitFeeds> {
    let mut out = BTreeMap::new();
    let roots: Vec<u32> = (0..vars.len() as u32)
        .map(|mut v| {
            for _ in 0..vars.len() {
                let var = &vars[v as usize];
                match var.parent.or(var.element_of) {
                    Some(p) if p != v => v = p,
                    _ => break,
                }
            }
            v
        })
        .collect();
    // (Handed to a call, a variable may feed what the call writes from it
    // without the reaching pass seeing it: `records::feeds_through_call`.)
    let handed: BTreeSet<u32> = w
        .arg_targets
        .iter()
        .flat_map(|(_, _, ts, _)| ts.iter().map(|&t| roots[t as usize]))
        .collect();
    let candidates: Vec<u32> = (0..vars.len() as u32)
        .filter(|&v| {
            let var = &vars[v as usize];
            var.kind == VarKind::Local
                && var.parent.is_none()
                && var.element_of.is_none()
                && !only_local_numbers(var)
                && (feeds_other.get(v as usize).copied().unwrap_or(false) || handed.contains(&v))
        })
        .take(MAX_SPLIT_VARIABLES)
        .collect();
    if candidates.is_empty() {
        return out;
    }
    let writes_roots = roots_written(var_writes, w, &roots);
    let mut writes_of: HashMap<u32, Vec<u32>> = HashMap::default();
    for (&n, rs) in &writes_roots {
        for &r in rs {
            writes_of.entry(r).or_default().push(n);
        }
    }
    let users = users_of(&graph.data);
    let order = BlockOrder::new(f);
    let walk = FeedWalk {
        f,
        defined,
        w,
        vars,
        roots: &roots,
        writes_roots: &writes_roots,
        users: &users,
        deps: &graph.data,
        first_obj: graph.first_obj,
        order: &order,
    };
    for v in candidates {
        let Some(ws) = writes_of.get_mut(&v) else {
            continue;
        };
        if ws.len() > MAX_WRITES {
            continue;
        }
        ws.sort_unstable();
        let (data, numbers): (Vec<u32>, Vec<u32>) = ws.iter().partition(|&&n| !records_a_number(n));
        // A write that updates v from itself (`run(&atm, ..)` advancing
        // the state it is handed, `x[i] += ..`) is v's own computation:
        // v is a state, not a result.
        if data.is_empty() || numbers.is_empty() || data.iter().any(|&n| walk.in_place(v, n)) {
            continue;
        }
        // A pointer whose address leaves the function (a factory's
        // object, returned or stored into a parameter's) is no buffer of
        // it: what its writes of numbers feed, through the address, is the
        // caller's.
        let by_numbers = walk.feeds_of(v, &numbers);
        let escapes = by_numbers.address_stored
            || by_numbers.fed.iter().any(|&r| {
                let t = &vars[r as usize];
                t.is_exit || t.kind != VarKind::Local
            });
        if escapes {
            continue;
        }
        let s = walk.feeds_of(v, &data);
        out.insert(v, s);
    }
    out
}

/// Per write node, the roots it writes (its own writes' and the calls'
/// that may write them).
fn roots_written(var_writes: &[Vec<u32>], w: &Writes, roots: &[u32]) -> HashMap<u32, Vec<u32>> {
    let mut writes_roots: HashMap<u32, Vec<u32>> = HashMap::default();
    let written = var_writes
        .iter()
        .enumerate()
        .flat_map(|(v, ws)| ws.iter().map(move |&n| (n, v as u32)))
        .chain(
            w.may_write_nodes
                .iter()
                .flat_map(|(n, ts)| ts.iter().map(move |&t| (*n, t))),
        );
    for (n, t) in written {
        let e = writes_roots.entry(n).or_default();
        if !e.contains(&roots[t as usize]) {
            e.push(roots[t as usize]);
        }
    }
    writes_roots
}

/// Per node of the data graph, the nodes that depend on it.
fn users_of(data: &super::graph::Edges) -> Vec<Vec<u32>> {
    let nn = data.len();
    let mut users: Vec<Vec<u32>> = vec![Vec::new(); nn];
    for n in 0..nn {
        for &p in &data[n] {
            if let Some(u) = users.get_mut(p as usize) {
                u.push(n as u32);
            }
        }
    }
    users
}

/// The instruction of node `n`: itself, or the call of a call output; none
/// for parameters and memory objects.
fn inst_of(f: &Function, w: &Writes, first_obj: usize, n: u32) -> Option<InstId> {
    let ni = f.insts.len();
    if (n as usize) < ni {
        Some(n)
    } else if (n as usize) < first_obj {
        w.call_of(f, n).map(|(c, _)| c)
    } else {
        None
    }
}

/// Whether one instruction may run after another: the blocks' successors
/// and each instruction's place in its block.
struct BlockOrder<'a> {
    f: &'a Function,
    place: HashMap<InstId, usize>,
}

impl<'a> BlockOrder<'a> {
    fn new(f: &'a Function) -> Self {
        let place = f
            .blocks
            .iter()
            .flat_map(|b| b.insts.iter().enumerate().map(|(k, &i)| (i, k)))
            .collect();
        BlockOrder { f, place }
    }

    /// The blocks reachable from `b`'s successors.
    fn after(&self, b: u32) -> Vec<bool> {
        let mut seen = vec![false; self.f.blocks.len()];
        let mut stack: Vec<u32> = self.f.blocks[b as usize].succs.clone();
        while let Some(s) = stack.pop() {
            if std::mem::replace(&mut seen[s as usize], true) {
                continue;
            }
            stack.extend(self.f.blocks[s as usize].succs.iter().copied());
        }
        seen
    }

    /// True when `later` may run after `first`, `after` being `first`'s
    /// block's reach.
    fn may_follow(&self, first: InstId, after: &[bool], later: InstId) -> bool {
        let (bf, bl) = (
            self.f.insts[first as usize].block,
            self.f.insts[later as usize].block,
        );
        after.get(bl as usize).copied().unwrap_or(true)
            || (bf == bl && self.place.get(&first) < self.place.get(&later))
    }
}

/// A forward walk over the data edges from a variable's writes.
struct FeedWalk<'a> {
    f: &'a Function,
    defined: &'a DefinedFunctions<'a>,
    w: &'a Writes,
    vars: &'a [Variable],
    roots: &'a [u32],
    writes_roots: &'a HashMap<u32, Vec<u32>>,
    users: &'a [Vec<u32>],
    deps: &'a super::graph::Edges,
    first_obj: usize,
    order: &'a BlockOrder<'a>,
}

impl FeedWalk<'_> {
    /// The roots (not `v`, not a local of a few numbers) whose writes the
    /// values of `v`'s writes `data` flow into, and the calls they reach.
    /// The first instruction on each way (a read of `v`, or a call handed
    /// it) must be able to run after the write.
    fn feeds_of(&self, v: u32, data: &[u32]) -> SplitFeeds {
        let (f, w) = (self.f, self.w);
        let mut fed: Vec<u32> = Vec::new();
        let mut later_calls: BTreeSet<InstId> = BTreeSet::new();
        let mut seen: HashSet<u32> = HashSet::default();
        let mut stack: Vec<u32> = Vec::new();
        for &d in data {
            let Some(first) = inst_of(f, w, self.first_obj, d) else {
                continue;
            };
            let after = self.order.after(f.insts[first as usize].block);
            // The reads of v that may see this write: through memory
            // objects to the first instruction.
            let mut near: Vec<u32> = vec![d];
            let mut near_seen: HashSet<u32> = HashSet::default();
            while let Some(n) = near.pop() {
                for &u in &self.users[n as usize] {
                    if !near_seen.insert(u) {
                        continue;
                    }
                    match inst_of(f, w, self.first_obj, u) {
                        None => near.push(u),
                        Some(i) if self.order.may_follow(first, &after, i) => {
                            if seen.insert(u) {
                                stack.push(u);
                            }
                        }
                        Some(_) => {}
                    }
                }
            }
            // The calls handed v after the write, and what they compute
            // from it (a call in a loop reads in the next iteration what
            // it wrote: the graph has no edge from a call to itself).
            for &(c, j, ref ts, _) in &w.arg_targets {
                if !ts.iter().any(|&t| self.roots[t as usize] == v)
                    || !self.order.may_follow(first, &after, c)
                {
                    continue;
                }
                later_calls.insert(c);
                let callee = match &f.insts[c as usize].op {
                    Op::Call { callee } => callee.as_deref(),
                    _ => None,
                };
                for k in (0..f.insts[c as usize].args.len() as u32).filter(|&k| k != j) {
                    let Some(&out) = w.out_nodes.get(&(c, k)) else {
                        continue;
                    };
                    let from_v = callee
                        .and_then(|n| self.defined.param_flows(n, k))
                        .is_none_or(|from| from.contains(&j));
                    if from_v && seen.insert(out) {
                        stack.push(out);
                    }
                }
            }
        }
        let mut address_stored = false;
        while let Some(n) = stack.pop() {
            let inst = f.insts.get(n as usize);
            if inst.is_some_and(|i| matches!(i.op, Op::Store) && is_ptr_value(f, &i.args[0]))
                && self
                    .writes_roots
                    .get(&n)
                    .is_some_and(|rs| rs.iter().any(|&r| r != v))
            {
                address_stored = true;
            }
            for &r in self.writes_roots.get(&n).into_iter().flatten() {
                if r != v && !fed.contains(&r) && !only_local_numbers(&self.vars[r as usize]) {
                    fed.push(r);
                }
            }
            for &u in &self.users[n as usize] {
                if seen.insert(u) {
                    stack.push(u);
                }
            }
        }
        fed.sort_unstable();
        SplitFeeds {
            fed,
            later_calls,
            address_stored,
        }
    }

    /// True when write node `n` of `v` computes v from its own contents:
    /// a call that reads what that argument points to (or whose reads are
    /// unknown), or a store of a value loaded from v a few steps
    /// back.
    fn in_place(&self, v: u32, n: u32) -> bool {
        let f = self.f;
        if let Some((c, k)) = self.w.call_of(f, n) {
            let Op::Call { callee: Some(name) } = &f.insts[c as usize].op else {
                return true;
            };
            // (The read sets name what a callee loads below each
            // argument, not whether the values it writes come from them:
            // any read counts.)
            return self
                .defined
                .param_reads(name, k)
                .is_none_or(|reads| !reads.is_empty());
        }
        // (The stored value's operands, through the loads to the writes
        // they see; not through other variables' writes.)
        const STEPS: usize = 6;
        let mut frontier: Vec<u32> = self.deps[n as usize].to_vec();
        let mut seen: HashSet<u32> = HashSet::default();
        for _ in 0..STEPS {
            let mut next = Vec::new();
            for d in frontier {
                if !seen.insert(d) {
                    continue;
                }
                if let Some(rs) = self.writes_roots.get(&d) {
                    if rs.contains(&v) {
                        return true;
                    }
                    continue;
                }
                next.extend_from_slice(&self.deps[d as usize]);
            }
            frontier = next;
        }
        false
    }
}
