//! The judgement of result records (3.1's derived variables, beyond
//! scalars) among a function's locals and globals, pass by pass: a local,
//! whatever its type (an array of norms, a timing vector, a struct of
//! statistics), that only records numbers computed elsewhere and feeds
//! nothing back. Every write into it stores a number (never a pointer: a
//! record holds no links; only its own freshly allocated buffer), or is a
//! call that computes what it writes through that argument from nothing
//! else the call is given but numbers (`solve(.., times)` adding its own
//! timer differences, a constructor sizing it from a count and an
//! allocator temporary, `memset`), or that writes a number through a
//! pointer to one of its scalars, or only scalar fields of it (statistics
//! kept by a `thermo(atoms, .., &stats)`); and nothing stored in it flows
//! into another variable (it is only printed, or accumulates into itself).
//! A vector written by a kernel from the matrix and the vectors it is given
//! is no record, nor is anything read later to compute something else.
//! What each write records is `records`'s to say.

use super::records::{
    call_writes_by_root, feeds_through_call, holds_an_address, receives_returned_pointer,
    records_write, Feeds,
};
use super::writes::{ArgTarget, Writes};
use super::*;
use crate::library_models as library;
use std::collections::BTreeMap;

/// Passes of the record judgement: the first judges every variable, each
/// further one those feeding only variables judged records by then.
const MAX_RECORD_PASSES: usize = 4;

/// Marks `Variable::is_record` and `Variable::is_result` of `f`'s locals
/// and globals (see the module's documentation).
pub(super) fn result_records(
    f: &Function,
    defined: &DefinedFunctions,
    vars: &mut [Variable],
    var_writes: &[Vec<u32>],
    w: &Writes,
    first_obj: usize,
    feeds: &Feeds,
) {
    let roots: Vec<u32> = (0..vars.len() as u32).map(|t| root_of(vars, t)).collect();
    let call_writes_of = call_writes_by_root(w, &roots);
    let args_of_call = w.args_by_call();
    let mut judge = Judge {
        f,
        defined,
        var_writes,
        w,
        first_obj,
        feeds,
        roots,
        call_writes_of,
        args_of_call,
        second: Vec::new(),
        assumptions: Vec::new(),
    };
    // A variable judged a record lets what feeds only it (and other
    // records) be judged again: a residual whose norm is kept in a history
    // (`hist[it] = norm(r)`) feeds nothing back either; nor do the step
    // records whose times are summed into a timing array that is reduced
    // into the maxima printed (`rec` -> `timing` -> `tmax`), a pass each.
    // Variables feeding each other (a Jacobi pair) are never judged again.
    for pass in 0..MAX_RECORD_PASSES {
        let order = judge.order(vars, pass);
        if pass > 0 && order.is_empty() {
            // Variables waiting for each other's verdicts (a statistics
            // struct whose counter indexes the force history summed into
            // it) and for nothing else are judged together.
            if !judge.judge_group(vars, pass) {
                break;
            }
            continue;
        }
        for v in order {
            judge.one(vars, v, pass);
        }
    }
    judge.undo_assumptions(vars);
    judge.split_results(vars);
}

/// What every judgement of one function shares: each variable's root, the
/// calls that may write each root, each call's pointer arguments; the
/// variables waiting for another pass and the records judged on an
/// assumption.
struct Judge<'a> {
    f: &'a Function,
    defined: &'a DefinedFunctions<'a>,
    var_writes: &'a [Vec<u32>],
    w: &'a Writes,
    first_obj: usize,
    feeds: &'a Feeds,
    roots: Vec<u32>,
    call_writes_of: HashMap<u32, Vec<u32>>,
    args_of_call: BTreeMap<InstId, Vec<&'a ArgTarget>>,
    second: Vec<usize>,
    /// (record, the locals it was judged on, whether it may be a result)
    assumptions: Vec<(usize, BTreeSet<u32>, bool)>,
}

impl Judge<'_> {
    /// The variables pass `pass` judges: all in the first; then those
    /// waiting whose fed variables are all records or results by now.
    fn order(&mut self, vars: &[Variable], pass: usize) -> Vec<usize> {
        if pass == 0 {
            return (0..vars.len()).collect();
        }
        let fed_roots = &self.feeds.roots;
        let (ready, waiting): (Vec<usize>, Vec<usize>) = std::mem::take(&mut self.second)
            .into_iter()
            .partition(|&v| {
                fed_roots[v].iter().all(|&t| {
                    vars.get(t as usize)
                        .is_some_and(|t| t.is_record || t.is_result)
                })
            });
        self.second = waiting;
        ready
    }

    /// True when a call other than a copy or a fill writes `v`
    /// (`rec[step] = (StepRecord){..}` copies a temporary; `u_prev = u`
    /// assigns a vector), nor a destructor, nor a constructor given only
    /// numbers (`StepRecord rec;` setting its members' defaults, a vector
    /// sized).
    fn computed_by_calls(&self, v: u32) -> bool {
        let f = self.f;
        self.call_writes_of.get(&v).is_some_and(|ns| {
            ns.iter().any(|&n| {
                let Some((c, _)) = self.w.call_of(f, n) else {
                    return true;
                };
                let inst = &f.insts[c as usize];
                let Op::Call { callee: Some(name) } = &inst.op else {
                    return true;
                };
                let numbers_only = || inst.args.iter().skip(1).all(|a| !is_ptr_value(f, a));
                // A copy, a destructor, or a constructor given only numbers
                // (sizing a vector, setting a struct's defaults) computes
                // nothing of the data.
                let copies_or_sizes = match library::special_member(name) {
                    Some(library::SpecialMember::Assigns | library::SpecialMember::Destroys) => {
                        true
                    }
                    Some(library::SpecialMember::Constructs) => numbers_only(),
                    None => false,
                };
                !(library::is_memory_copy_or_fill(name) || copies_or_sizes)
            })
        })
    }

    /// True when `v` may be judged in pass `pass`.
    fn candidate(&self, var: &Variable, v: usize, pass: usize) -> bool {
        // A global is written and read by many functions, each of which
        // sees only its own part: each function gives its verdict (its
        // writes, if any, record numbers; nothing it reads of the global
        // flows into other data), and post takes a global for a record
        // when every function that names it agrees and one writes it
        // (`StaticIndex::is_global_record`).
        let global = var.kind == VarKind::Global;
        (var.kind == VarKind::Local || global)
            && var.parent.is_none()
            && !var.is_scalar
            && !var.is_exit_param()
            && var.element_of.is_none()
            && (pass > 0 || !self.feeds.other.get(v).copied().unwrap_or(true))
            // Past the second pass, only what its own stores fill (a step
            // record, a timing array): what calls write (particles a push
            // moves, whose other outputs are globals the callees write)
            // may feed data this function does not see.
            && (pass < 2 || !self.computed_by_calls(v as u32))
            // (A global only read here may be named after the writes were
            // numbered.)
            && (self.var_writes.get(v).map_or(global, |ws| global || !ws.is_empty())
                // (Or written only by calls that may write it:
                // `compute_diagnostics(&grid, &diag)`.)
                || self.call_writes_of.contains_key(&(v as u32)))
    }

    /// The largest group of the waiting variables that wait for nothing
    /// but each other (and records and results): each is judged, those
    /// it copies from or reduces taken for records while they wait (an
    /// assumption checked at the end), in rounds until no verdict changes.
    /// False when there is no such group.
    fn judge_group(&mut self, vars: &mut [Variable], pass: usize) -> bool {
        let mut group: BTreeSet<usize> = self.second.iter().copied().collect();
        loop {
            let outside: Vec<usize> = group
                .iter()
                .copied()
                .filter(|&v| {
                    self.feeds.roots[v].iter().any(|&t| {
                        let t = t as usize;
                        !group.contains(&t) && !vars[t].is_record && !vars[t].is_result
                    })
                })
                .collect();
            if outside.is_empty() {
                break;
            }
            for v in outside {
                group.remove(&v);
            }
        }
        if group.is_empty() {
            return false;
        }
        for _ in 0..group.len().min(MAX_RECORD_PASSES) {
            let open: Vec<usize> = group
                .iter()
                .copied()
                .filter(|&v| !vars[v].is_record && !vars[v].is_result)
                .collect();
            let before = open.len();
            // (As in the second pass: a group may be reached later, and
            // what calls write is judged by their known flows.)
            for v in open {
                self.one(vars, v, pass.min(1));
            }
            let after = group
                .iter()
                .filter(|&&v| !vars[v].is_record && !vars[v].is_result)
                .count();
            if after == before {
                break;
            }
        }
        // Each was judged taking the others for records: one that feeds a
        // member found to be data after all is no record either (a
        // builder feeding the solution and the matrix of a recurrence).
        loop {
            let undone: Vec<usize> = group
                .iter()
                .copied()
                .filter(|&v| {
                    vars[v].is_record
                        && self.feeds.roots[v].iter().any(|&t| {
                            let t = t as usize;
                            group.contains(&t) && !vars[t].is_record && !vars[t].is_result
                        })
                })
                .collect();
            if undone.is_empty() {
                break;
            }
            for v in undone {
                vars[v].is_record = false;
            }
        }
        self.second.retain(|v| !group.contains(v));
        true
    }

    /// True when write `n` of `v` is a call's output computed (by the
    /// callee's known flows) from numbers and from variables that are
    /// records or results, or wait to be judged (`assumed`) without `v`
    /// feeding them: `MPI_Allreduce(force, &force_hist[2 * k], ..)` records
    /// the reduction of a result. A callee writing through pointer members
    /// there builds a data structure.
    fn records_reduction(
        &self,
        vars: &[Variable],
        v: usize,
        n: u32,
        assumed: &mut BTreeSet<u32>,
    ) -> bool {
        let f = self.f;
        let Some((c, k)) = self.w.call_of(f, n) else {
            return false;
        };
        let Op::Call { callee: Some(name) } = &f.insts[c as usize].op else {
            return false;
        };
        let Some(from) = self.defined.param_flows(name, k) else {
            return false;
        };
        let through_members = self
            .defined
            .param_writes(name, k)
            .is_some_and(|ws| ws.iter().any(|w| !w.path.is_empty() && w.deref >= 1));
        if through_members {
            return false;
        }
        let args = &f.insts[c as usize].args;
        let fed_by_v = |t: usize| {
            let fed = &self.feeds.roots[v];
            fed.contains(&(t as u32)) || (fed.is_empty() && self.feeds.other[v])
        };
        let mut waits: Vec<u32> = Vec::new();
        // (A reduction of something: at least one buffer it reads.)
        let reads_data = from
            .iter()
            .any(|&j| j != k && args.get(j as usize).is_some_and(|a| is_ptr_value(f, a)));
        let judged = reads_data
            && from.iter().filter(|&&j| j != k).all(|&j| {
                let Some(a) = args.get(j as usize) else {
                    return false;
                };
                if !is_ptr_value(f, a) {
                    return true;
                }
                let Some(targets) = self
                    .args_of_call
                    .get(&c)
                    .and_then(|ts| ts.iter().find(|t| t.1 == j).map(|t| &t.2))
                else {
                    return false;
                };
                !targets.is_empty()
                    && targets.iter().all(|&t| {
                        let r = self.roots[t as usize] as usize;
                        if r == v || vars[r].is_record || vars[r].is_result {
                            return true;
                        }
                        let ok = self.second.contains(&r) && !fed_by_v(r);
                        if ok {
                            waits.push(r as u32);
                        }
                        ok
                    })
            });
        if judged {
            assumed.extend(waits);
        }
        judged
    }

    /// Judges variable `v` in pass `pass`.
    fn one(&mut self, vars: &mut [Variable], v: usize, pass: usize) {
        let global = vars[v].kind == VarKind::Global;
        if !self.candidate(&vars[v], v, pass) {
            if pass == 0 && !global && self.feeds.roots.get(v).is_some_and(|t| !t.is_empty()) {
                self.second.push(v);
            }
            return;
        }
        // Every call that may write it counts, whether or not the caller
        // takes it for a write (an OpenMP region computing it).
        let mut writes: Vec<u32> = self.var_writes.get(v).cloned().unwrap_or_default();
        writes.extend(self.call_writes_of.get(&(v as u32)).into_iter().flatten());
        if self.feeds_through_call(vars, v, pass) {
            // Written by its own stores only (a timing array), judged
            // again once what the call fills is judged (the maxima
            // `MPI_Reduce(timing, tmax, ..)` fills): a variable calls
            // write (particles a push moves) stays data.
            if pass == 0 && !self.computed_by_calls(v as u32) {
                self.second.push(v);
            }
            return;
        }
        let mut assumed: BTreeSet<u32> = BTreeSet::new();
        let records = self.records_all(vars, v, &writes, false, &mut assumed);

        // Feeding a result (not only records), a variable is judged
        // a record or nothing: the seismograms a rank keeps, summed
        // into the traces gathered for a printout, are records; the
        // solution a check is computed from stays data.
        let feeds_a_result = pass > 0
            && self.feeds.roots[v]
                .iter()
                .any(|&t| vars.get(t as usize).is_some_and(|t| !t.is_record));
        let may_be_result = !feeds_a_result && !global && self.may_hold_results(&vars[v], v);
        if records && (pass == 0 || self.records_all(vars, v, &writes, true, &mut assumed)) {
            vars[v].is_record = true;
            if !assumed.is_empty() {
                self.assumptions.push((v, assumed, may_be_result));
            }
        } else if may_be_result && !records {
            // Computed from data but feeding nothing back (`residual = b -
            // A * x` checked and printed; the grid's min, max and mean
            // kept to print): a result, which post lists with the derived
            // when its blame is mostly inherited from its function's data.
            vars[v].is_result = true;
        }
    }

    /// Handed to a call that may write something else from it (an OpenMP
    /// region reading it into another array; a callee whose flows are
    /// unknown), `v` feeds that: no record. Writes into local scalars (a
    /// reduction's result to print) do not count, nor, once judged, into
    /// records (`MPI_Reduce(timing, tmax, ..)` fills the maxima printed).
    fn feeds_through_call(&self, vars: &[Variable], v: usize, pass: usize) -> bool {
        self.feeds_through_calls(vars, v, pass, |_| true)
    }

    /// `feeds_through_call` over the calls `counts` says count.
    fn feeds_through_calls(
        &self,
        vars: &[Variable],
        v: usize,
        pass: usize,
        counts: impl Fn(InstId) -> bool,
    ) -> bool {
        let roots = &self.roots;
        feeds_through_call(
            self.f,
            self.defined,
            self.w,
            &self.args_of_call,
            counts,
            |t| roots[t as usize] == v as u32,
            |t| {
                let tv = &vars[roots[t as usize] as usize];
                (tv.is_scalar && tv.kind == VarKind::Local)
                    || (pass > 0 && (tv.is_record || tv.is_result))
            },
        )
    }

    /// True when every write of `v` records a number. A store copying an
    /// element of another local (`timing[1] += rec[step].seconds`) does if
    /// that local is a record: assumed (into `assumed`) for one still
    /// waiting to be judged, checked once every pass is done, as for `v`
    /// itself.
    fn records_all(
        &self,
        vars: &[Variable],
        v: usize,
        writes: &[u32],
        strict: bool,
        assumed: &mut BTreeSet<u32>,
    ) -> bool {
        let (f, w) = (self.f, self.w);
        writes.iter().all(|&n| {
            if records_write(
                f,
                self.defined,
                w,
                self.first_obj,
                n as usize,
                false,
                strict,
            ) {
                return true;
            }
            let Some(from) = w.numeric_from.get(&n) else {
                return self.records_reduction(vars, v, n, assumed);
            };
            from.iter().all(|&t| {
                let judged = vars[t as usize].is_record || vars[t as usize].is_result;
                let ok = t == v as u32 || judged || self.second.contains(&(t as usize));
                if ok && t != v as u32 && !judged {
                    assumed.insert(t);
                }
                ok
            })
        })
    }

    /// True when `var` (number `v`) may hold results: not a pointer that
    /// only holds an address, unless it receives a pointer a call returns
    /// (memory the callee allocated).
    fn may_hold_results(&self, var: &Variable, v: usize) -> bool {
        let stores = self.var_writes.get(v).map_or(&[][..], Vec::as_slice);
        !holds_an_address(var) || receives_returned_pointer(self.f, stores)
    }

    /// The locals left without a verdict that are results by the feeds of
    /// their writes computed from data alone (`later_writes`): those
    /// feed nothing but records and local numbers, also through the calls
    /// after them; only their writes of numbers feed data.
    fn split_results(&self, vars: &mut [Variable]) {
        for (&v, split) in &self.feeds.split {
            let v = v as usize;
            let var = &vars[v];
            if var.is_record
                || var.is_result
                || !self.may_hold_results(var, v)
                || !split.fed.iter().all(|&t| vars[t as usize].is_record)
                || self.feeds_through_calls(vars, v, 1, |c| split.later_calls.contains(&c))
            {
                continue;
            }
            vars[v].is_result = true;
        }
    }

    /// An assumption that did not hold (the local copied from was no
    /// record after all) undoes the records judged on it, transitively;
    /// computed from data after all (`z[i] = 2 * y[i]`, `y` no record),
    /// each may be a result.
    fn undo_assumptions(&self, vars: &mut [Variable]) {
        loop {
            let undone: Vec<(usize, bool)> = self
                .assumptions
                .iter()
                .filter(|(v, from, _)| {
                    vars[*v].is_record
                        && from.iter().any(|&t| {
                            let t = &vars[t as usize];
                            !t.is_record && !t.is_result
                        })
                })
                .map(|&(v, _, result)| (v, result))
                .collect();
            if undone.is_empty() {
                break;
            }
            for (v, result) in undone {
                vars[v].is_record = false;
                vars[v].is_result = result;
            }
        }
    }
}
