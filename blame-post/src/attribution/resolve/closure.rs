//! A frame's blame closed under its calls' side effects and parameter
//! aliases, variable aliases and container resolution, to a fixed point;
//! which calls may follow the sampled line, what it reads, and which
//! stack objects hold references to other variables.

use super::binding::{blame_path, is_below};
use super::call_sites::passed_vars;
use super::{Mode, Paths};
use crate::attribution::static_index::{root_of, StaticIndex};
use blame_formats::static_db::{CallSite, FunctionSummary, VarKind};
use std::collections::BTreeSet;

/// Applies side effects and parameter aliases of `f`'s calls, variable
/// aliases and container resolution until nothing changes. A side effect
/// of a call (the callee computes its parameter `k` from its parameter `j`)
/// blames the variable passed as `k` when the variable passed as `j` is
/// blamed: the variables the arguments point into, not everything the
/// arguments flow into later (a header read `header(name, &m, &n)` followed
/// by a guard on `m` must not pass the guard's implicit blame around).
#[allow(clippy::too_many_arguments)]
pub(super) fn close(
    index: &StaticIndex,
    f: &FunctionSummary,
    mode: Mode,
    here: &mut BTreeSet<u32>,
    derived: &mut Paths,
    bound_line: Option<u32>,
    at_line: u32,
) {
    let mut closure = Closure {
        f,
        mode,
        at_line,
        // What the sampled line reads, once a side effect around a loop asks.
        read_here: None,
        // The data structures the line computes (before the closure).
        computed_roots: here.iter().map(|&v| root_of(f, v)).collect(),
        // Reference members of holders bound to other variables.
        bound_members: Vec::new(),
    };
    loop {
        let before = (here.len(), derived.len());
        for c in &f.call_sites {
            let Some(callee) = c.callee.as_deref().and_then(|n| index.callee(n)) else {
                continue;
            };
            let callee = &index.functions[callee];
            closure.side_effects(c, callee, here, derived);
            closure.param_aliases(c, callee, here, derived);
        }
        aliases_and_containers(f, here, bound_line);
        if (here.len(), derived.len()) == before {
            break;
        }
    }
    let bound_members = closure.bound_members;
    derived.retain(|(b, suffix, _)| {
        !bound_members
            .iter()
            .any(|(v, p)| v == b && (suffix == p || suffix.starts_with(&format!("{p}."))))
    });
}

/// What [`close`] keeps from one round over a frame's calls to the next.
struct Closure<'a> {
    f: &'a FunctionSummary,
    mode: Mode,
    at_line: u32,
    read_here: Option<BTreeSet<u32>>,
    computed_roots: BTreeSet<u32>,
    bound_members: Vec<(u32, String)>,
}

impl Closure<'_> {
    /// Fires the side effects of call `c` (to `callee`) whose inputs are
    /// blamed, on the paths they write.
    fn side_effects(
        &mut self,
        c: &CallSite,
        callee: &FunctionSummary,
        here: &mut BTreeSet<u32>,
        derived: &mut Paths,
    ) {
        let (f, at_line) = (self.f, self.at_line);
        // What is computed at `at_line` reaches a call's side effects
        // only if the call can run after it: a later line, or a line of
        // a loop around both (`generate_problem(A, &b, &xexact)` before
        // the solve loop does not make `xexact` of the solve).
        let after = may_follow(f, at_line, c.line);
        // Only in the next iteration (an earlier line of a loop around
        // both), a side effect does not blame what the sampled line
        // itself reads: that is a recurrence (the time loop's
        // `rightHandSide(u, f, b)` makes the next step's `b` from the
        // `u` that `solve(A, b, u)` computed from `b`), and the input is
        // blamed for its own computation, not for the solve it feeds
        // (within one data structure the line computes, the blame is
        // the structure's either way).
        let next_iteration = at_line != 0 && c.line != 0 && c.line < at_line;
        for se in callee.side_effects.iter().filter(|_| after) {
            if next_iteration && {
                let read_here = self.read_here.get_or_insert_with(|| reads_at(f, at_line));
                passed_vars(c, se.blamed_param).any(|t| {
                    read_here.contains(&t) && !self.computed_roots.contains(&root_of(f, t))
                })
            } {
                continue;
            }
            if self.mode == Mode::Explicit && se.implicit {
                continue;
            }
            // The callee reads `from_path` below the argument: the side
            // effect fires when that memory is blamed here (`xl` filled
            // from `dom.m_x` is not blamed for the lines computing
            // `dom.m_fx`).
            let fires = passed_vars(c, se.from_param).any(|v| {
                if se.from_path.is_empty() {
                    here.contains(&v)
                } else {
                    path_blamed(f, here, derived, v, &se.from_path)
                }
            });
            if fires {
                // What it writes: `blamed_path` below the argument.
                let add: Vec<u32> = passed_vars(c, se.blamed_param).collect();
                for t in add {
                    if se.blamed_path.is_empty() || f.variables[t as usize].is_scalar {
                        here.insert(t);
                    } else {
                        blame_path(f, t, &se.blamed_path, &se.blamed_type, here, derived);
                    }
                }
            }
        }
    }

    /// Parameters that alias, on the field paths that do (`this.mesh_`
    /// holds `mesh`: the mesh is blamed with `solver.mesh_`, not
    /// with every field of `solver`).
    fn param_aliases(
        &mut self,
        c: &CallSite,
        callee: &FunctionSummary,
        here: &mut BTreeSet<u32>,
        derived: &mut Paths,
    ) {
        let f = self.f;
        for (i, &(a, b)) in callee.param_aliases.iter().enumerate() {
            let (pa, pb) = callee
                .param_alias_paths
                .get(i)
                .map(|(x, y)| (x.as_str(), y.as_str()))
                .unwrap_or(("", ""));
            for (x, px, y, py) in [(a, pa, b, pb), (b, pb, a, pa)] {
                let fires = passed_vars(c, x).any(|v| {
                    if px.is_empty() {
                        here.contains(&v)
                    } else {
                        path_blamed(f, here, derived, v, px)
                    }
                });
                if fires {
                    // The holder's reference member is the variable it
                    // holds: no path of its own (see `is_holder`).
                    if !px.is_empty() && py.is_empty() {
                        for v in passed_vars(c, x).filter(|&v| is_holder(f, v)) {
                            self.bound_members.push((v, px.to_string()));
                        }
                    }
                    let add: Vec<u32> = passed_vars(c, y).collect();
                    for t in add {
                        let tv = &f.variables[t as usize];
                        if py.is_empty() || tv.is_scalar {
                            here.insert(t);
                        } else if px.is_empty() && is_holder(f, t) {
                            // The memory is the referenced variable's.
                        } else {
                            blame_path(f, t, py, "", here, derived);
                        }
                    }
                }
            }
        }
    }
}

/// Aliases and containers of the variables `here`: what aliases share
/// through a pointer, and every variable enclosing a blamed field.
fn aliases_and_containers(f: &FunctionSummary, here: &mut BTreeSet<u32>, bound_line: Option<u32>) {
    let snapshot: Vec<u32> = here.iter().copied().collect();
    for vi in snapshot {
        let v = &f.variables[vi as usize];
        // Aliases share what is written through a pointer. A returned
        // address (an accessor's `return m_x[i]`) is blamed through the
        // call's return binding, on what the caller stores through it
        // or computes from what it loads through it; a pointer bound on
        // the sampled line is blamed for computing the address.
        let binds_here =
            v.is_pointer && bound_line.is_some_and(|l| v.write_lines.binary_search(&l).is_ok());
        if v.kind != VarKind::Return && !binds_here {
            here.extend(v.aliases.iter().copied());
        }
        let mut p = v.parent;
        let mut steps = 0;
        while let Some(pi) = p {
            here.insert(pi);
            p = f.variables[pi as usize].parent;
            steps += 1;
            if steps > f.variables.len() {
                break;
            }
        }
    }
}

/// What line `line` of `f` reads: the variables its calls are passed and
/// its reads of memory.
fn reads_at(f: &FunctionSummary, line: u32) -> BTreeSet<u32> {
    f.call_sites
        .iter()
        .filter(|c| c.line == line)
        .flat_map(|c| (0..c.arg_count).flat_map(move |k| passed_vars(c, k)))
        .chain(
            f.reads
                .iter()
                .filter(|r| r.line == line)
                .flat_map(|r| r.reads.iter().map(|m| m.variable)),
        )
        .collect()
}

/// An object on a frame's stack (a by-value local, no pointer) that may
/// hold references to other variables (a `ScopedTimer timer(timers_, ..)`'s
/// `TimerMap &`, a `Solver s(mesh)`'s `mesh_`): what its constructor bound
/// to a member is the referenced variable's memory, so blame does not flow
/// from that variable to the member, and a write through the member is the
/// variable's, not a field path of the holder.
pub(super) fn is_holder(f: &FunctionSummary, v: u32) -> bool {
    let v = &f.variables[v as usize];
    v.kind == VarKind::Local && v.parent.is_none() && !v.is_pointer
}

/// True when field path `path` below the caller's variable `p` is blamed:
/// a blamed variable or derived path on it (at it, above it below `p`, or
/// below it), or `p` itself with nothing below it blamed (blamed as a
/// whole). When only other fields of `p` are blamed (`dom.m_fx`), the path
/// (`dom.m_x`) is not.
fn path_blamed(
    f: &FunctionSummary,
    here: &BTreeSet<u32>,
    derived: &Paths,
    p: u32,
    path: &str,
) -> bool {
    let base = &f.variables[p as usize].name;
    let full = format!("{base}{path}");
    let on_path = |name: &str| {
        name == full
            || name.starts_with(&format!("{full}."))
            || full.starts_with(&format!("{name}."))
    };
    let mut below = false;
    for &q in here {
        if q != p && is_below(f, q, p) {
            below = true;
            if on_path(&f.variables[q as usize].name) {
                return true;
            }
        }
    }
    for (b, suffix, _) in derived {
        if *b == p || is_below(f, *b, p) {
            below = true;
            if on_path(&format!("{}{suffix}", f.variables[*b as usize].name)) {
                return true;
            }
        }
    }
    !below && here.contains(&p)
}

/// True when code of `to` (a call's line) may run after code of `from` in
/// function `f`: a later line, or both in one loop; unknown lines (0) may.
fn may_follow(f: &FunctionSummary, from: u32, to: u32) -> bool {
    from == 0
        || to == 0
        || to >= from
        || f.loops
            .iter()
            .any(|l| l.lines.binary_search(&from).is_ok() && l.lines.binary_search(&to).is_ok())
}
