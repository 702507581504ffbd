//! Blame resolution of one calling context (dissertation 3.3.3, 3.4.3).
//!
//! The innermost frame with a static summary blames the variables whose
//! blamed lines contain the sampled line. Blamed exit variables become call
//! outputs (argument N's memory, the return value) that the caller's call
//! site binds to caller variables: the transfer function, applied frame by
//! frame up the stack until no exit variable is blamed. Frames without a
//! summary (libraries without IR) pass blame through the library model
//! recorded at the call site. At every frame, side effects and parameter
//! aliases of the calls it makes are applied, then aliases and containers
//! (container resolution: a field's blame lifts to every enclosing variable).

use crate::attribution::static_index::{plain_type, root_of, StaticIndex};
use blame_formats::results::SymFrame;
use blame_formats::static_db::{CallOutput, CallSite, FunctionSummary, OutputBinding, VarKind};
use std::collections::BTreeSet;
use std::sync::Arc;

pub use crate::attribution::static_index::VarRef;

/// A field path below a caller variable that the caller's own code never
/// names, reached because a callee blamed that field of its parameter:
/// `base` is `sim.fields`, `suffix` `.temperature`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct DerivedField {
    pub base: VarRef,
    pub suffix: String,
    /// Type from the callee's debug info; empty for intermediate paths.
    pub type_name: String,
}

/// What one calling context blames.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Resolution {
    /// Variables to report (exit variables whose blame moved to a caller are
    /// left out): total blame, explicit and implicit.
    pub blamed: Vec<VarRef>,
    /// Field paths below blamed variables, carried over from callees.
    pub derived: Vec<DerivedField>,
    /// The variables of `blamed` (and paths of `derived`) that the sample
    /// reaches over data flow alone: explicit blame (3.1, Table 3.4).
    pub explicit: Vec<VarRef>,
    pub explicit_derived: Vec<DerivedField>,
    /// Variables whose own memory the sampled line writes (where their
    /// blame is lifted to, when it is: `a.fx` written through `Particle &a =
    /// parts_[i]` is the caller's `sys.parts_.fx`).
    pub exclusive: Vec<VarRef>,
    pub exclusive_derived: Vec<DerivedField>,
    /// True when no frame had a static summary: the sample counts for code views only.
    pub code_only: bool,
    /// Why the sample blames no variable (`None` when it blames one).
    pub unexplained: Option<Unexplained>,
}

/// Why a sample reached no named variable: the coverage report's reasons.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Unexplained {
    /// No frame of the stack has a static summary (code built without
    /// `blame cc`); `function` is the innermost frame.
    NoSummary { function: String },
    /// A frame without symbols (no symbol table or debug info for the object).
    NoSymbols { function: String },
    /// The sampled line of a summarised function is in no variable's blame
    /// (line 0, a line the IR does not have, a statement that computes nothing).
    LineBlamesNothing { function: String, line: u32 },
    /// The caller has no call to the callee at the frame's line.
    CallSiteNotFound {
        function: String,
        line: u32,
        callee: String,
    },
    /// The call's outputs reach no variable of the caller.
    NothingBound { function: String, callee: String },
    /// A thread of a library or runtime (its stack starts in the thread
    /// library and holds none of the program's code): a worker waiting or
    /// spinning between the program's calls; `function` is the innermost frame.
    RuntimeThread { function: String },
    /// The MPI runtime starting or shutting down (`MPI_Init`, `MPI_Finalize`
    /// and their kin): time the program spends on no data of its own.
    RuntimeLifecycle { function: String, callee: String },
}

/// Whether `callee` starts or shuts down the MPI runtime: `MPI_Init`,
/// `MPI_Init_thread`, `MPI_Finalize` as C, profiling (`PMPI_`) or Fortran
/// entry points, or Open MPI's and MPICH's internal routines they tail-call.
pub fn is_runtime_lifecycle(callee: &str) -> bool {
    let name = callee.to_ascii_lowercase();
    let name = name.trim_end_matches('_');
    let name = name.strip_prefix('p').unwrap_or(name);
    matches!(
        name,
        "mpi_init"
            | "mpi_init_thread"
            | "mpi_finalize"
            | "ompi_mpi_init"
            | "ompi_mpi_finalize"
            | "mpir_init_thread"
            | "mpid_finalize"
    )
}

impl std::fmt::Display for Unexplained {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let d = crate::input::symbolize::demangle;
        match self {
            Unexplained::NoSummary { function } => write!(
                f,
                "no static summary for {} or its callers (not built with blame cc)",
                d(function)
            ),
            Unexplained::NoSymbols { function } => {
                // `[libomp.so.5+0x7d6d2]`: one reason per object, not per address.
                let object = function
                    .trim_start_matches('[')
                    .split('+')
                    .next()
                    .unwrap_or(function)
                    .trim_end_matches(']');
                write!(f, "code without symbols or debug info in {object}")
            }
            Unexplained::LineBlamesNothing { function, line } => {
                write!(f, "line {line} of {} blames no variable", d(function))
            }
            Unexplained::CallSiteNotFound {
                function,
                line,
                callee,
            } => write!(
                f,
                "no call to {} found at line {line} of {}",
                d(callee),
                d(function)
            ),
            Unexplained::NothingBound { function, callee } => write!(
                f,
                "the call to {} in {} reaches no variable",
                d(callee),
                d(function)
            ),
            Unexplained::RuntimeThread { function } => write!(
                f,
                "a library's or runtime's own thread, outside the program's code (idle or spinning worker, in {})",
                d(function)
            ),
            Unexplained::RuntimeLifecycle { function, callee } => write!(
                f,
                "MPI start-up or shut-down (the call to {} in {}): the runtime's own work, on no data of the program",
                d(callee),
                d(function)
            ),
        }
    }
}

/// Which blame a resolution follows: data flow only, or data and control flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Explicit,
    Total,
}

/// A blamed call output and the field path below it that was blamed
/// (empty for the whole output), with that field's type and the type of the
/// callee's parameter (or return value) the path starts from.
type OutputPath = (CallOutput, String, String, String);

/// What flows from a frame to its caller.
enum Pending {
    /// Outputs of a callee with a summary.
    Outputs {
        callee: String,
        outputs: BTreeSet<OutputPath>,
    },
    /// The sample is inside (or below) a function without IR, called as `callee`.
    Library { callee: String },
    /// Outputs of a callee with a summary reached through functions without
    /// IR, the outermost called as `fork` (`__kmpc_fork_call` running an
    /// outlined parallel region).
    Forked {
        fork: String,
        outputs: BTreeSet<OutputPath>,
    },
}

/// One mode's answer.
#[derive(Default)]
struct Walk {
    blamed: BTreeSet<VarRef>,
    derived: BTreeSet<DerivedField>,
    exclusive: Vec<VarRef>,
    exclusive_derived: BTreeSet<DerivedField>,
    code_only: bool,
    unexplained: Option<Unexplained>,
}

/// Blame of stacks already resolved, by their frames as ids of a table
/// shared by the processes of a shard: the ranks of one binary share most
/// of their calling contexts, and each distinct stack is resolved once.
pub(crate) type ResolutionCache = rustc_hash::FxHashMap<Vec<u32>, Arc<Resolution>>;

/// Resolves every calling context of a process, in parallel: blame where
/// the context has samples of time events (from `cache` when a process
/// before it had the same stack: `keys[i]` are context `i`'s frames as
/// ids of the shard's table), the approximate data-centric attribution of
/// chapter 5 where it has samples of memory events (not cached: it
/// depends on the context's skid window too).
#[allow(clippy::too_many_arguments)]
pub(crate) fn resolve_contexts(
    index: &StaticIndex,
    frames: &[SymFrame],
    contexts: &[crate::input::Context],
    keys: &[&[u32]],
    cache: &mut ResolutionCache,
    memory_events: &[bool],
    memory: &crate::MemoryOptions,
    heap: Option<&crate::attribution::footprints::HeapFootprints>,
) -> Vec<(Arc<Resolution>, MemoryResolution)> {
    use rayon::prelude::*;
    let is_memory = |e: usize| memory_events.get(e).copied().unwrap_or(false);
    let has = |c: &crate::input::Context, memory: bool| {
        c.counts
            .iter()
            .enumerate()
            .any(|(e, &n)| n > 0.0 && is_memory(e) == memory)
    };
    let none = Arc::new(Resolution::default());
    let known: &ResolutionCache = cache;
    let resolved: Vec<(Arc<Resolution>, bool, MemoryResolution)> = contexts
        .par_iter()
        .zip(keys)
        .map(|(c, key)| {
            let stack =
                || -> Vec<&SymFrame> { c.frames.iter().map(|&f| &frames[f as usize]).collect() };
            let (blame, new) = if !has(c, false) {
                (none.clone(), false)
            } else if let Some(r) = known.get(*key) {
                (r.clone(), false)
            } else {
                (Arc::new(resolve_stack(index, &stack())), true)
            };
            let attributed = if has(c, true) {
                resolve_memory(index, &stack(), memory, c.skid_window.as_ref(), heap)
            } else {
                MemoryResolution::default()
            };
            (blame, new, attributed)
        })
        .collect();
    resolved
        .into_iter()
        .zip(keys)
        .map(|((blame, new, attributed), key)| {
            if new {
                cache.insert(key.to_vec(), blame.clone());
            }
            (blame, attributed)
        })
        .collect()
}

/// Resolves a stack (innermost frame first), explicit and total blame.
pub fn resolve(index: &StaticIndex, frames: &[SymFrame]) -> Resolution {
    resolve_stack(index, &frames.iter().collect::<Vec<_>>())
}

/// [`resolve`] of a stack whose frames live in a table.
pub fn resolve_stack(index: &StaticIndex, frames: &[&SymFrame]) -> Resolution {
    let total = walk(index, frames, Mode::Total);
    let explicit = walk(index, frames, Mode::Explicit);
    let mut exclusive = total.exclusive;
    exclusive.sort_unstable();
    exclusive.dedup();
    let unexplained = if total.blamed.is_empty() && total.derived.is_empty() {
        total.unexplained
    } else {
        None
    };
    Resolution {
        blamed: total.blamed.into_iter().collect(),
        derived: total.derived.into_iter().collect(),
        explicit: explicit.blamed.into_iter().collect(),
        explicit_derived: explicit.derived.into_iter().collect(),
        exclusive,
        exclusive_derived: total.exclusive_derived.into_iter().collect(),
        code_only: total.code_only,
        unexplained,
    }
}

/// The frame-by-frame application of transfer functions (3.3.3) in one mode.
fn walk(index: &StaticIndex, frames: &[&SymFrame], mode: Mode) -> Walk {
    let mut out = Walk::default();
    let mut pending: Option<Pending> = None;
    let mut seen_known = false;
    // The previous frame's variables whose blame moved on to this frame: kept
    // there when this frame cannot take it (no call site found).
    let mut carried: Vec<VarRef> = Vec::new();
    let mut carried_derived: Vec<DerivedField> = Vec::new();
    // The same for the variables the sampled line writes: their outputs,
    // and where they stay if no caller takes them.
    let mut exclusive_outputs: BTreeSet<OutputPath> = BTreeSet::new();
    let mut carried_exclusive: Vec<VarRef> = Vec::new();
    let mut carried_exclusive_derived: Vec<DerivedField> = Vec::new();

    for (depth, frame) in frames.iter().enumerate() {
        let Some(fi) = index.lookup(&frame.function, &frame.file) else {
            if !seen_known || pending.is_some() {
                // Blame passes through code without IR via the model of the
                // outermost such function, applied at the next known call site;
                // an OpenMP runtime passes the outputs of the outlined region
                // it runs on to the variables the fork call shares.
                pending = Some(match pending.take() {
                    Some(Pending::Outputs { outputs, .. })
                    | Some(Pending::Forked { outputs, .. }) => Pending::Forked {
                        fork: frame.function.clone(),
                        outputs,
                    },
                    _ => Pending::Library {
                        callee: frame.function.clone(),
                    },
                });
                continue;
            }
            break;
        };
        let f = &index.functions[fi];
        let fi = fi as u32;
        let mut here: BTreeSet<u32> = BTreeSet::new();
        let mut derived = Paths::new();
        let mut written: BTreeSet<u32> = BTreeSet::new();
        let mut written_derived = Paths::new();
        // The variables the frame's own line blames (the sampled line of
        // the innermost known frame).
        let at_line = |here: &mut BTreeSet<u32>, exclusive: &mut BTreeSet<u32>| {
            for (vi, v) in f.variables.iter().enumerate() {
                let hit = v.explicit_lines.binary_search(&frame.line).is_ok()
                    || (mode == Mode::Total && v.implicit_lines.binary_search(&frame.line).is_ok());
                if hit {
                    here.insert(vi as u32);
                }
                if depth == 0 && v.write_lines.binary_search(&frame.line).is_ok() {
                    exclusive.insert(vi as u32);
                }
            }
        };
        match pending.take() {
            None if !seen_known => {
                at_line(&mut here, &mut written);
                if here.is_empty()
                    && is_prologue_or_epilogue(f, frame.line)
                    && caller_can_bind(index, &frames[depth + 1..])
                {
                    // The call's own cost (saving registers, loading
                    // constants, returning): it serves what the call
                    // computes for its caller, so it needs a caller to
                    // take it (else it stays unexplained).
                    here.extend(computed_exits(f, mode));
                }
                if here.is_empty() {
                    out.unexplained = Some(Unexplained::LineBlamesNothing {
                        function: frame.function.clone(),
                        line: frame.line,
                    });
                }
            }
            None => break,
            Some(Pending::Library { callee })
                if !seen_known
                    && call_sites_at(f, frame.line, frame.column, &callee).is_empty() =>
            {
                // The binary calls a library routine where the IR has code of
                // its own (a loop the compiler turned into `memset`, an
                // inlined template calling into libc): the routine does the
                // frame's line.
                at_line(&mut here, &mut written);
                if here.is_empty() {
                    out.unexplained = Some(Unexplained::LineBlamesNothing {
                        function: frame.function.clone(),
                        line: frame.line,
                    });
                }
            }
            Some(pending) => {
                let (callee, outputs) = match pending {
                    Pending::Outputs { callee, outputs } => (callee, outputs),
                    Pending::Forked { fork, outputs } if is_fork(&fork) => {
                        // The outlined function's parameter k (after the
                        // two thread ids) is the fork's argument k + 1
                        // (after the location, the count and the function).
                        let outputs = outputs
                            .into_iter()
                            .filter_map(|(o, path, ty, root_ty)| match o {
                                CallOutput::Arg(k) if k >= 2 => {
                                    Some((CallOutput::Arg(k + 1), path, ty, root_ty))
                                }
                                _ => None,
                            })
                            .collect();
                        (fork, outputs)
                    }
                    Pending::Forked { fork: callee, .. } | Pending::Library { callee } => {
                        let outputs = library_outputs(f, frame.line, frame.column, &callee)
                            .into_iter()
                            .map(|o| (o, String::new(), String::new(), String::new()))
                            .collect();
                        (callee, outputs)
                    }
                };
                let sites = call_sites_at(f, frame.line, frame.column, &callee);
                bind(
                    f,
                    &sites,
                    Reach::Blame(mode),
                    &outputs,
                    &mut here,
                    &mut derived,
                );
                let taken = std::mem::take(&mut exclusive_outputs);
                bind(
                    f,
                    &sites,
                    Reach::Memory,
                    &taken,
                    &mut written,
                    &mut written_derived,
                );
                if here.is_empty() && derived.is_empty() {
                    seen_known = true;
                    out.unexplained = Some(if sites.is_empty() {
                        Unexplained::CallSiteNotFound {
                            function: frame.function.clone(),
                            line: frame.line,
                            callee: callee.clone(),
                        }
                    } else if is_runtime_lifecycle(&callee) {
                        Unexplained::RuntimeLifecycle {
                            function: frame.function.clone(),
                            callee: callee.clone(),
                        }
                    } else {
                        Unexplained::NothingBound {
                            function: frame.function.clone(),
                            callee: callee.clone(),
                        }
                    });
                    // The callee's own variables keep the blame.
                    out.blamed.extend(carried.drain(..));
                    out.derived.extend(carried_derived.drain(..));
                    out.exclusive.append(&mut carried_exclusive);
                    out.exclusive_derived
                        .extend(carried_exclusive_derived.drain(..));
                    break;
                }
            }
        }
        carried.clear();
        carried_derived.clear();
        if !written.is_empty() || !written_derived.is_empty() {
            carried_exclusive.clear();
            carried_exclusive_derived.clear();
        }
        seen_known = true;
        // The sampled line itself (innermost frame): a pointer it binds
        // (`const Node &b = nodes[..]`) is blamed for the address, not
        // for the memory its aliases share.
        let bound_line = (depth == 0).then_some(frame.line);
        close(
            index,
            f,
            mode,
            &mut here,
            &mut derived,
            bound_line,
            frame.line,
        );

        // A local pointer bound on the sampled line (`const Node &b =
        // nodes[..]`) is blamed for computing the address: it stays here,
        // not lifted to the memory it points into.
        // An element pointer or cursor into a parameter's memory (`for (n =
        // tree; n; n = n->left)`) is that parameter's, where it is bound too.
        let binds = |vi: u32| {
            let v = &f.variables[vi as usize];
            bound_line.is_some_and(|l| {
                v.kind == VarKind::Local
                    && v.is_pointer
                    && v.write_lines.binary_search(&l).is_ok()
                    && v.element_of.is_none_or(|o| exit_roots(f, o).is_empty())
            })
        };
        // Exit variables flow on to the caller; find which outputs (and
        // which field paths below them) they are.
        let outputs = outputs_of(f, &here, &derived, |vi| !binds(vi));
        let caller_binds = !outputs.is_empty() && caller_can_bind(index, &frames[depth + 1..]);
        let lifted = |vi: u32| caller_binds && !binds(vi) && !exit_roots(f, vi).is_empty();
        // What the line writes goes where its variables' blame goes.
        exclusive_outputs = outputs_of(f, &written, &written_derived, lifted);
        split_lifted(
            fi,
            here,
            derived,
            lifted,
            (&mut carried, &mut carried_derived),
            (&mut out.blamed, &mut out.derived),
        );
        split_lifted(
            fi,
            written,
            written_derived,
            lifted,
            (&mut carried_exclusive, &mut carried_exclusive_derived),
            (&mut out.exclusive, &mut out.exclusive_derived),
        );
        if outputs.is_empty() {
            break;
        }
        pending = Some(Pending::Outputs {
            callee: f.linkage_name.clone(),
            outputs,
        });
    }
    // Outputs no caller took (the stack ended): the callee keeps them.
    out.blamed.extend(carried);
    out.derived.extend(carried_derived);
    out.exclusive.extend(carried_exclusive);
    out.exclusive_derived.extend(carried_exclusive_derived);
    out.code_only = !seen_known;
    if out.code_only {
        let function = frames
            .first()
            .map(|f| f.function.clone())
            .unwrap_or_default();
        // A thread started by a library (OpenMP, OpenBLAS) that never
        // entered the program's code: nothing to rebuild.
        let runtime_thread = frames.last().is_some_and(|f| {
            matches!(
                f.function.as_str(),
                "start_thread" | "clone" | "clone3" | "__clone" | "__clone3" | "__GI___clone3"
            )
        }) && frames.iter().all(|f| f.line == 0);
        out.unexplained = Some(if runtime_thread {
            Unexplained::RuntimeThread { function }
        } else if function.starts_with('[') || function.is_empty() {
            Unexplained::NoSymbols { function }
        } else {
            Unexplained::NoSummary { function }
        });
    }
    out
}

/// Field paths below a frame's variables: (variable, path, type).
type Paths = BTreeSet<(u32, String, String)>;

/// The call outputs that variables `vars` (those `keep` accepts) and the
/// field paths below them stand for.
fn outputs_of(
    f: &FunctionSummary,
    vars: &BTreeSet<u32>,
    paths: &Paths,
    keep: impl Fn(u32) -> bool,
) -> BTreeSet<OutputPath> {
    let mut outputs = BTreeSet::new();
    for &vi in vars.iter().filter(|&&vi| keep(vi)) {
        outputs.extend(as_outputs(f, vi, "", ""));
    }
    for (base, suffix, ty) in paths.iter().filter(|(b, _, _)| keep(*b)) {
        outputs.extend(as_outputs(f, *base, suffix, ty));
    }
    outputs
}

/// Splits the variables and field paths of frame `fi` into those whose
/// blame is lifted to the caller (`carried`, kept here only if no caller
/// takes them) and those the frame keeps.
fn split_lifted(
    fi: u32,
    vars: BTreeSet<u32>,
    paths: Paths,
    lifted: impl Fn(u32) -> bool,
    carried: (&mut Vec<VarRef>, &mut Vec<DerivedField>),
    kept: (&mut impl Extend<VarRef>, &mut impl Extend<DerivedField>),
) {
    for vi in vars {
        if lifted(vi) {
            carried.0.push((fi, vi));
        } else {
            kept.0.extend([(fi, vi)]);
        }
    }
    for (base, suffix, type_name) in paths {
        let d = DerivedField {
            base: (fi, base),
            suffix,
            type_name,
        };
        if lifted(base) {
            carried.1.push(d);
        } else {
            kept.1.extend([d]);
        }
    }
}

/// True for the lines of a function's prologue and epilogue: its own
/// declaration line and its last line (the closing brace), when they blame
/// no variable.
fn is_prologue_or_epilogue(f: &FunctionSummary, line: u32) -> bool {
    line != 0 && (line == f.line || f.lines.last() == Some(&line))
}

/// The exit variables (parameters reached through pointers, their fields,
/// the return value) that the function computes: what a call of it is for.
fn computed_exits(f: &FunctionSummary, mode: Mode) -> impl Iterator<Item = u32> + '_ {
    f.variables.iter().enumerate().filter_map(move |(vi, v)| {
        let computed =
            !v.explicit_lines.is_empty() || (mode == Mode::Total && !v.implicit_lines.is_empty());
        (computed && v.is_exit && !exit_roots(f, vi as u32).is_empty()).then_some(vi as u32)
    })
}

/// The exit variables a variable's blame leaves its function through, with
/// its path below each: its root when that is an exit parameter or the
/// return value; else the parameters and the return value its root aliases
/// (`Data *d = (Data *)vdata;` gives `d.x` the path `.x` below `vdata`; a
/// returned `p` leaves through the return value).
///
/// Each comes with the variable whose type the path ends in: the variable
/// itself, or for a local that holds what an exit variable's field points
/// to (`Particle &a = parts_[i]` is `.parts_` below `this`), that field.
fn exit_roots(f: &FunctionSummary, vi: u32) -> Vec<(u32, String, u32)> {
    exit_roots_at(f, vi, 0)
}

/// [`exit_roots`], `depth` element pointers deep.
fn exit_roots_at(f: &FunctionSummary, vi: u32, depth: usize) -> Vec<(u32, String, u32)> {
    let v = &f.variables[vi as usize];
    let root = root_of(f, vi);
    let rv = &f.variables[root as usize];
    let path = v
        .name
        .strip_prefix(rv.name.as_str())
        .unwrap_or("")
        .to_string();
    let is_exit_root = |r: &blame_formats::static_db::Variable| {
        r.parent.is_none()
            && r.is_exit
            && matches!(r.kind, VarKind::Param | VarKind::Return)
            && (r.kind == VarKind::Return || r.param_index.is_some())
    };
    if is_exit_root(rv) {
        return if v.is_exit {
            vec![(root, path, vi)]
        } else {
            vec![]
        };
    }
    if rv.kind == VarKind::Global {
        return vec![];
    }
    // An element pointer or cursor into a parameter's memory (`bp =
    // &blocks[n]`, `for (n = tree; n; n = n->left)`, `Particle &p : parts`)
    // is that parameter's: its paths continue below the owner's.
    // (An element object's own fields are no paths of its owner.)
    if let Some(owner) = rv.element_of.filter(|&o| o != root && depth < 4) {
        let path = if crate::attribution::static_index::is_element_object(rv) {
            ""
        } else {
            path.as_str()
        };
        let below_owner: Vec<(u32, String, u32)> = exit_roots_at(f, owner, depth + 1)
            .into_iter()
            .map(|(r, p, leaf)| {
                (
                    r,
                    format!("{p}{path}"),
                    if path.is_empty() { leaf } else { vi },
                )
            })
            .collect();
        if !below_owner.is_empty() {
            return below_owner;
        }
    }
    // A local holding a parameter, the return value, or a field of a
    // parameter (`Level *lev = mg->levels[l]`): its paths continue there.
    // So does a field of a record on the stack holding one (`Collision c;
    // c.fbank = fbank` makes `c.fbank.site` the parameter's `.site`): the
    // nearest holder on the way up from the variable decides. (A field of
    // an object reached through a local pointer, `panel->trail` into the
    // matrix, stays the object's.)
    let mut out = Vec::new();
    let mut holder = if is_holder(f, root) { vi } else { root };
    for _ in 0..f.variables.len() {
        let hv = &f.variables[holder as usize];
        let rest = v.name.strip_prefix(hv.name.as_str()).unwrap_or("");
        for &a in &hv.aliases {
            let av = &f.variables[a as usize];
            let ar = root_of(f, a);
            let arv = &f.variables[ar as usize];
            if !is_exit_root(arv) || !av.is_exit {
                continue;
            }
            let prefix = av.name.strip_prefix(arv.name.as_str()).unwrap_or("");
            let leaf = if rest.is_empty() { a } else { vi };
            let entry = (ar, format!("{prefix}{rest}"), leaf);
            if !out.contains(&entry) {
                out.push(entry);
            }
        }
        match hv.parent {
            Some(p) if out.is_empty() => holder = p,
            _ => break,
        }
    }
    out
}

/// The call outputs a blamed variable (or a field path `extra` below it,
/// of type `type_name`) of `f` stands for.
fn as_outputs(f: &FunctionSummary, vi: u32, extra: &str, type_name: &str) -> Vec<OutputPath> {
    // The type the path starts from: the variable's own root (a local
    // `Data *d` says more than the `void *` parameter it aliases).
    let root_ty = f.variables[root_of(f, vi) as usize].type_name.clone();
    exit_roots(f, vi)
        .into_iter()
        .filter_map(|(r, path, leaf)| {
            let ty = if extra.is_empty() {
                f.variables[leaf as usize].type_name.clone()
            } else {
                type_name.to_string()
            };
            let r = &f.variables[r as usize];
            let output = match r.kind {
                VarKind::Return => CallOutput::Return,
                _ => CallOutput::Arg(r.param_index?),
            };
            Some((
                output,
                format!("{path}{extra}"),
                ty.clone(),
                root_ty.clone(),
            ))
        })
        .collect()
}

/// An OpenMP runtime entry that runs an outlined parallel region with the
/// shared variables as its trailing arguments (clang's libomp interface).
fn is_fork(name: &str) -> bool {
    matches!(name, "__kmpc_fork_call" | "__kmpc_fork_teams")
}

/// True when some caller frame further up has a summary to take the blame.
fn caller_can_bind(index: &StaticIndex, callers: &[&SymFrame]) -> bool {
    callers
        .iter()
        .any(|c| index.lookup(&c.function, &c.file).is_some())
}

/// The call sites of `f` a frame returning to `line`:`column` may have come
/// from. Two calls of one callee on a line (`touch(a, n) + touch(b, m)`)
/// are told apart by the return address's column when the binary's line
/// table has it. A frame at line 0 (the compiler merged identical calls
/// from several lines into one) or at a line without such a call stands for
/// every call of that callee in the function.
fn call_sites_at<'a>(
    f: &'a FunctionSummary,
    line: u32,
    column: u32,
    callee: &str,
) -> Vec<&'a CallSite> {
    let names_match = |c: &CallSite| match &c.callee {
        Some(name) => {
            name == callee
                || crate::input::symbolize::demangle(name) == callee
                || callee.starts_with(&format!("{name}("))
        }
        None => false,
    };
    let on_line: Vec<&CallSite> = f
        .call_sites
        .iter()
        .filter(|c| line > 0 && c.line == line)
        .collect();
    let named: Vec<&CallSite> = on_line.iter().copied().filter(|c| names_match(c)).collect();
    if named.len() > 1 && column > 0 {
        let exact: Vec<&CallSite> = named
            .iter()
            .copied()
            .filter(|c| c.column == column)
            .collect();
        if !exact.is_empty() {
            return exact;
        }
    }
    if !named.is_empty() {
        return named;
    }
    if !on_line.is_empty() {
        // Indirect calls, or a callee known by another name (an alias, a
        // library entry point): every call on the line may be the one.
        return on_line;
    }
    // The binary's line table may differ from the IR's (optimized binary,
    // -O0 IR, calls merged at line 0): the calls to that callee anywhere in
    // the function.
    f.call_sites.iter().filter(|c| names_match(c)).collect()
}

/// Outputs a sample inside a library function `callee` called from `line` blames.
fn library_outputs(
    f: &FunctionSummary,
    line: u32,
    column: u32,
    callee: &str,
) -> BTreeSet<CallOutput> {
    let mut out = BTreeSet::new();
    for c in call_sites_at(f, line, column, callee) {
        match &c.model {
            Some(model) => out.extend(model.iter().copied()),
            // A callee that should have had a summary but has none here:
            // without its transfer function, every output may be blamed.
            None => out.extend(c.outputs.iter().map(|o| o.output)),
        }
    }
    out
}

/// What an output binding blames in `mode`.
fn bound(b: &OutputBinding, mode: Mode) -> &[u32] {
    match mode {
        Mode::Total => &b.blamed,
        Mode::Explicit => &b.explicit,
    }
}

/// What a bound output stands for in the caller.
#[derive(Clone, Copy)]
enum Reach {
    /// Its blame: every variable it writes or flows into.
    Blame(Mode),
    /// Its memory: what an argument points into, what a return value is
    /// stored into (exclusive blame: whose own memory the callee wrote).
    Memory,
}

fn reached(b: &OutputBinding, reach: Reach) -> &[u32] {
    match (reach, b.output) {
        (Reach::Blame(mode), _) => bound(b, mode),
        (Reach::Memory, CallOutput::Return) => &b.explicit,
        // Pointees unknown (a temporary, an unnamed object): the written
        // memory is what the output is computed into, so the exclusive
        // blame follows the inclusive blame to the caller instead of
        // staying on the callee's variable.
        (Reach::Memory, _) if b.pointees.is_empty() => &b.explicit,
        (Reach::Memory, _) => &b.pointees,
    }
}

/// Blames the caller variables bound to blamed call outputs. A blamed field
/// path below an output continues below each variable passed there: to the
/// caller's own variable of that name, or else as a derived field path. The
/// passed variable's other fields are not blamed: when the callee wrote
/// `g->u`, the caller's `s.grid.u` is blamed, not `s.grid.rhs`.
fn bind(
    f: &FunctionSummary,
    sites: &[&CallSite],
    reach: Reach,
    outputs: &BTreeSet<OutputPath>,
    here: &mut BTreeSet<u32>,
    derived: &mut BTreeSet<(u32, String, String)>,
) {
    for c in sites {
        for b in &c.outputs {
            let reached = reached(b, reach);
            for (_, suffix, type_name, param_type) in
                outputs.iter().filter(|(o, _, _, _)| *o == b.output)
            {
                // A binding of one capture of a lambda's closure: the
                // outputs below its member, with the rest of their path
                // below the captured variable (the closure as a whole is
                // a temporary: nothing).
                let (suffix, param_type) = if b.field.is_empty() {
                    (suffix.as_str(), param_type.as_str())
                } else if b.field == "*" {
                    // A handle copied for the call: the data it reaches.
                    ("", "")
                } else {
                    match suffix
                        .strip_prefix('.')
                        .and_then(|s| s.strip_prefix(b.field.as_str()))
                    {
                        Some(rest) if rest.is_empty() || rest.starts_with('.') => (rest, ""),
                        _ => continue,
                    }
                };
                if suffix.is_empty() {
                    here.extend(reached.iter().copied());
                    continue;
                }
                let passed = passed_variables(f, b, reached, suffix, param_type);
                // What the output reaches, except fields of the passed
                // variables off the blamed path (those on it are added below
                // and their containers by container resolution).
                here.extend(
                    reached
                        .iter()
                        .copied()
                        .filter(|&t| !passed.iter().any(|&p| is_below(f, t, p))),
                );
                for &t in &passed {
                    blame_path(f, t, suffix, type_name, here, derived);
                }
            }
        }
    }
}

/// Blames field path `suffix` (`.x.array`) below the caller's variable `t`:
/// the deepest variable of `f` on the path, and the rest of the path (if
/// any) as a derived field path below it (never below a scalar).
fn blame_path(
    f: &FunctionSummary,
    t: u32,
    suffix: &str,
    type_name: &str,
    here: &mut BTreeSet<u32>,
    derived: &mut Paths,
) {
    // An element object (a view, an iterator): the blame is its, and
    // through it its owner's; its own fields are no paths of that data.
    let tv = &f.variables[t as usize];
    if tv.parent.is_none() && crate::attribution::static_index::is_element_object(tv) {
        here.insert(t);
        return;
    }
    let base = &tv.name;
    let full = format!("{base}{suffix}");
    // The deepest variable of this function on the path: the
    // rest of the path (if any) is derived below it.
    let deepest = f
        .variables
        .iter()
        .enumerate()
        .filter(|(_, v)| {
            v.name.starts_with(base.as_str())
                && (full == v.name || full.starts_with(&format!("{}.", v.name)))
        })
        .max_by_key(|(_, v)| v.name.len())
        .map(|(i, _)| i as u32)
        .unwrap_or(t);
    here.insert(deepest);
    let rest = &full[f.variables[deepest as usize].name.len()..];
    if !rest.is_empty() && !f.variables[deepest as usize].is_scalar {
        derived.insert((deepest, rest.to_string(), type_name.to_string()));
        // The path continues in a variable that holds the
        // same object (`fine = mg->levels[0]; fine->x = x`
        // makes `mg.levels.x` the caller's `fine.x`).
        for &a in &f.variables[deepest as usize].aliases {
            let name = format!("{}{rest}", f.variables[a as usize].name);
            if let Some(i) = f.variables.iter().position(|v| v.name == name) {
                here.insert(i as u32);
            }
        }
    }
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

/// True when `t` is a field (at any depth) of `p`.
fn is_below(f: &FunctionSummary, t: u32, p: u32) -> bool {
    let mut cur = f.variables[t as usize].parent;
    let mut steps = 0;
    while let Some(c) = cur {
        if c == p {
            return true;
        }
        cur = f.variables[c as usize].parent;
        steps += 1;
        if steps > f.variables.len() {
            break;
        }
    }
    false
}

/// The caller variables passed in an output's position, below which the
/// callee's field path `suffix` continues: the variables the argument
/// points into when the static pass knew them, else among those the output
/// reaches (which also holds variables computed from the argument after the
/// call: a residual computed from a grid; the path means nothing below
/// those). Scalars never take a field path. Among the candidates, passed
/// variables are found by type (the caller's object is what the callee's
/// parameter points to), else as the variables whose own fields the path
/// names, else as the candidates that contain none of the others.
fn passed_variables(
    f: &FunctionSummary,
    binding: &OutputBinding,
    reached: &[u32],
    suffix: &str,
    param_type: &str,
) -> Vec<u32> {
    let pool = if binding.pointees.is_empty() {
        reached
    } else {
        &binding.pointees
    };
    let blamed: Vec<u32> = pool
        .iter()
        .copied()
        .filter(|&t| !f.variables[t as usize].is_scalar)
        .collect();
    let param = plain_type(param_type);
    if !param.is_empty() {
        let pointee = param
            .strip_suffix('*')
            .or_else(|| param.strip_suffix('&'))
            .map(str::trim_end);
        let by_type: Vec<u32> = blamed
            .iter()
            .copied()
            .filter(|&t| {
                let ty = plain_type(&f.variables[t as usize].type_name);
                !ty.is_empty() && (ty == param || Some(ty.as_str()) == pointee)
            })
            .collect();
        if !by_type.is_empty() {
            return by_type;
        }
    }
    let by_name: Vec<u32> = blamed
        .iter()
        .copied()
        .filter(|&t| {
            let base = &f.variables[t as usize].name;
            let full = format!("{base}{suffix}");
            f.variables.iter().any(|v| {
                v.name.len() > base.len()
                    && (v.name == full || full.starts_with(&format!("{}.", v.name)))
                    && v.name.starts_with(&format!("{base}."))
            })
        })
        .collect();
    if !by_name.is_empty() {
        return by_name;
    }
    // The variables passed, not their containers.
    let containers: BTreeSet<u32> = blamed
        .iter()
        .filter_map(|&t| f.variables[t as usize].parent)
        .collect();
    blamed
        .iter()
        .copied()
        .filter(|t| !containers.contains(t))
        .collect()
}

fn output_vars<'a>(c: &'a CallSite, k: u32) -> impl Iterator<Item = u32> + 'a {
    arg_bindings(c, k).flat_map(|b| b.blamed.iter().copied())
}

/// The variables argument `k` of call `c` points into (the binding's
/// pointees; what it reaches when those are unknown).
fn passed_vars<'a>(c: &'a CallSite, k: u32) -> impl Iterator<Item = u32> + 'a {
    arg_bindings(c, k).flat_map(|b| {
        if b.pointees.is_empty() {
            b.blamed.iter().copied()
        } else {
            b.pointees.iter().copied()
        }
    })
}

/// The bindings of argument `k` of call `c`.
fn arg_bindings<'a>(c: &'a CallSite, k: u32) -> impl Iterator<Item = &'a OutputBinding> + 'a {
    c.outputs
        .iter()
        .filter(move |b| b.output == CallOutput::Arg(k))
}

/// Applies side effects and parameter aliases of `f`'s calls, variable
/// aliases and container resolution until nothing changes. A side effect
/// of a call (the callee computes its parameter `k` from its parameter `j`)
/// blames the variable passed as `k` when the variable passed as `j` is
/// blamed: the variables the arguments point into, not everything the
/// arguments flow into later (a header read `header(name, &m, &n)` followed
/// by a guard on `m` must not pass the guard's implicit blame around).
#[allow(clippy::too_many_arguments)]
fn close(
    index: &StaticIndex,
    f: &FunctionSummary,
    mode: Mode,
    here: &mut BTreeSet<u32>,
    derived: &mut Paths,
    bound_line: Option<u32>,
    at_line: u32,
) {
    // What the sampled line reads, once a side effect around a loop asks.
    let mut read_here: Option<BTreeSet<u32>> = None;
    // The data structures the line computes (before the closure).
    let computed_roots: BTreeSet<u32> = here.iter().map(|&v| root_of(f, v)).collect();
    // Reference members of holders bound to other variables.
    let mut bound_members: Vec<(u32, String)> = Vec::new();
    loop {
        let before = (here.len(), derived.len());
        for c in &f.call_sites {
            let Some(callee) = c.callee.as_deref().and_then(|n| index.callee(n)) else {
                continue;
            };
            let callee = &index.functions[callee];
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
                    let read_here = read_here.get_or_insert_with(|| reads_at(f, at_line));
                    passed_vars(c, se.blamed_param)
                        .any(|t| read_here.contains(&t) && !computed_roots.contains(&root_of(f, t)))
                } {
                    continue;
                }
                if mode == Mode::Explicit && se.implicit {
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
            // Parameters that alias, on the field paths that do (`this.mesh_`
            // holds `mesh`: the mesh is blamed with `solver.mesh_`, not
            // with every field of `solver`).
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
                                bound_members.push((v, px.to_string()));
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
        if (here.len(), derived.len()) == before {
            break;
        }
    }
    derived.retain(|(b, suffix, _)| {
        !bound_members
            .iter()
            .any(|(v, p)| v == b && (suffix == p || suffix.starts_with(&format!("{p}."))))
    });
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
fn is_holder(f: &FunctionSummary, v: u32) -> bool {
    let v = &f.variables[v as usize];
    v.kind == VarKind::Local && v.parent.is_none() && !v.is_pointer
}

/// Attribution of one memory-event sample under each method, by variable.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct MemoryResolution {
    /// (method, variable, share); shares of one method sum to at most 1.
    pub shares: Vec<(&'static str, VarRef, f64)>,
    pub skid_truncated: bool,
}

/// Method names as results and reports show them.
pub const METHOD_RAW: &str = "raw";
pub const METHOD_LOOP: &str = "loop";
pub const METHOD_SKID: &str = "skid";
pub const METHOD_SKID_LOOP: &str = "skid+loop";
pub const METHOD_LOOP_ACCESS: &str = "loop+access";
pub const METHOD_SKID_LOOP_ACCESS: &str = "skid+loop+access";
/// Attribution by the data address itself (the ground truth, 5.3.4).
pub const METHOD_DIRECT: &str = "direct";

/// Approximate data-centric attribution of a memory-event sample (ch. 5):
/// the innermost frame with a summary distributes the miss over the reads
/// near its line; reads through a parameter are mapped to the caller's
/// variables (interprocedural aliasing from the call stack, 5.1). `heap`:
/// the bytes of heap blocks each variable received in this process (from
/// its allocation log), which decide whether a read through a pointer
/// stays in the cache.
pub fn resolve_memory(
    index: &StaticIndex,
    frames: &[&SymFrame],
    options: &crate::MemoryOptions,
    instruction_window: Option<&crate::input::skid_model::SkidWindow>,
    heap: Option<&crate::attribution::footprints::HeapFootprints>,
) -> MemoryResolution {
    let mut out = MemoryResolution::default();
    let Some(depth) = frames
        .iter()
        .position(|fr| index.lookup(&fr.function, &fr.file).is_some())
    else {
        return out;
    };
    let fi = index
        .lookup(&frames[depth].function, &frames[depth].file)
        .expect("found above");
    let f = &index.functions[fi];
    // An instruction model was mapped to lines when the samples were loaded;
    // without code for this sample, the reported line stands alone.
    let window = match options.skid {
        Some(crate::input::skid_model::SkidModel::Lines(model)) => Some(
            crate::attribution::datacentric::skid_window(f, frames[depth].line, model),
        ),
        Some(crate::input::skid_model::SkidModel::Instructions(_)) => Some(
            instruction_window
                .cloned()
                .unwrap_or(crate::input::skid_model::SkidWindow {
                    lines: vec![(frames[depth].line, 1.0)],
                    ..Default::default()
                }),
        ),
        None => None,
    };
    let footprint_of = footprints_in(index, heap, frames, depth, fi as u32);
    let m = crate::attribution::datacentric::attribute_miss(
        f,
        frames[depth].line,
        options.loop_threshold,
        window.as_ref(),
        &options.cache,
        &footprint_of,
    );
    out.skid_truncated = m.skid_truncated;
    let methods: [(&'static str, &Vec<(u32, f64)>); 6] = [
        (METHOD_RAW, &m.raw),
        (METHOD_LOOP, &m.loop_adjusted),
        (METHOD_SKID, &m.skid),
        (METHOD_SKID_LOOP, &m.skid_loop),
        (METHOD_LOOP_ACCESS, &m.loop_access),
        (METHOD_SKID_LOOP_ACCESS, &m.skid_loop_access),
    ];
    let crosses = window.as_ref().is_some_and(|w| !w.inlined.is_empty());
    for (method, shares) in methods {
        if crosses && [METHOD_SKID, METHOD_SKID_LOOP, METHOD_SKID_LOOP_ACCESS].contains(&method) {
            continue;
        }
        for &(vi, share) in shares {
            for (target, part) in lift_through_callers(index, frames, depth, fi as u32, vi, share) {
                out.shares.push((method, target, part));
            }
        }
    }
    if let Some(window) = window.filter(|_| crosses) {
        skid_across_inlined(
            index, frames, depth, fi as u32, &window, options, heap, &mut out,
        );
    }
    out
}

/// A read's object as the run knows it, for reads of function `fi` at
/// `frames[depth]`: the blocks held by the variable itself, or by the
/// caller's variables passed for it (all of them known).
fn footprints_in<'a>(
    index: &'a StaticIndex,
    heap: Option<&'a crate::attribution::footprints::HeapFootprints>,
    frames: &'a [&'a SymFrame],
    depth: usize,
    fi: u32,
) -> impl Fn(u32) -> u64 + 'a {
    move |vi: u32| -> u64 {
        let heap = heap.filter(|h| !h.is_empty());
        // The run's heap blocks, else an array the target's function names
        // directly (a caller's `double macro[4]` passed as `xsout`), else
        // the block of a constant size it receives (`malloc(8192)`).
        let held = |v: VarRef| {
            with_containers(index, v).into_iter().find_map(|c| {
                heap.and_then(|h| h.get(index, c))
                    .or_else(|| array_bytes(index, c))
                    .or_else(|| static_heap_bytes(index, c))
            })
        };
        let targets = lift_through_callers(index, frames, depth, fi, vi, 1.0);
        targets
            .iter()
            .map(|&(t, _)| held(t))
            .try_fold(0u64, |most, b| b.map(|b| most.max(b)))
            .unwrap_or(0)
    }
}

/// The bytes of variable `v` when its function's read table knows them (an
/// array named directly: a global, a stack array).
fn array_bytes(index: &StaticIndex, (fi, vi): VarRef) -> Option<u64> {
    index.functions[fi as usize]
        .reads
        .iter()
        .flat_map(|lr| lr.reads.iter().zip(&lr.costs))
        .filter(|(r, c)| r.variable == vi && c.footprint > 0)
        .map(|(_, c)| c.footprint)
        .max()
}

/// The bytes of the heap block variable `v` receives from an allocation of
/// a size known at compile time, when the static pass saw one.
fn static_heap_bytes(index: &StaticIndex, (fi, vi): VarRef) -> Option<u64> {
    let bytes = index.functions[fi as usize].variables[vi as usize].heap_bytes;
    (bytes > 0).then_some(bytes)
}

/// The skid methods of a window that crosses inline instances: each
/// instance's lines are read in its own function (the first of its inline
/// frames with a summary) and lifted through its own frames, the sample's
/// callers above the machine function being the same for all.
#[allow(clippy::too_many_arguments)]
fn skid_across_inlined(
    index: &StaticIndex,
    frames: &[&SymFrame],
    depth: usize,
    fi: u32,
    window: &crate::input::skid_model::SkidWindow,
    options: &crate::MemoryOptions,
    heap: Option<&crate::attribution::footprints::HeapFootprints>,
    out: &mut MemoryResolution,
) {
    // The sampled instruction's own inline frames end at the first frame
    // not expanded from inline info (the machine function).
    let own = frames
        .iter()
        .position(|f| !f.inlined)
        .map_or(frames.len(), |p| p + 1);
    let stacks: Vec<Vec<&SymFrame>> = window
        .inlined
        .iter()
        .map(|(chain, _)| chain.iter().chain(frames[own..].iter().copied()).collect())
        .collect();
    // (frames, depth, function, lines) of each part; the sampled frame first.
    type Part<'a> = (&'a [&'a SymFrame], usize, u32, Vec<(u32, f64)>);
    let mut parts: Vec<Part> = vec![(frames, depth, fi, window.lines.clone())];
    for (stack, (_, p)) in stacks.iter().zip(&window.inlined) {
        let Some((d, g)) = stack
            .iter()
            .enumerate()
            .find_map(|(d, fr)| index.lookup(&fr.function, &fr.file).map(|g| (d, g as u32)))
        else {
            continue;
        };
        parts.push((stack, d, g, vec![(stack[d].line, *p)]));
    }
    let footprints: Vec<Box<dyn Fn(u32) -> u64 + '_>> = parts
        .iter()
        .map(|&(fr, d, g, _)| {
            Box::new(footprints_in(index, heap, fr, d, g)) as Box<dyn Fn(u32) -> u64>
        })
        .collect();
    let window_parts: Vec<crate::attribution::datacentric::WindowPart> = parts
        .iter()
        .zip(&footprints)
        .map(
            |(&(_, _, g, ref lines), fp)| crate::attribution::datacentric::WindowPart {
                f: &index.functions[g as usize],
                lines: lines.clone(),
                footprint_of: fp.as_ref(),
            },
        )
        .collect();
    let shares = crate::attribution::datacentric::skid_parts(
        &window_parts,
        options.loop_threshold,
        &options.cache,
    );
    for (&(fr, d, g, _), s) in parts.iter().zip(&shares) {
        for (method, by_var) in [
            (METHOD_SKID, &s.skid),
            (METHOD_SKID_LOOP, &s.skid_loop),
            (METHOD_SKID_LOOP_ACCESS, &s.skid_loop_access),
        ] {
            for &(vi, share) in by_var {
                for (target, part) in lift_through_callers(index, fr, d, g, vi, share) {
                    out.shares.push((method, target, part));
                }
            }
        }
    }
}

/// Follows a read of a parameter's memory up the stack to the caller
/// variables passed in that position, splitting the share among them.
fn lift_through_callers(
    index: &StaticIndex,
    frames: &[&SymFrame],
    depth: usize,
    fi: u32,
    vi: u32,
    share: f64,
) -> Vec<(VarRef, f64)> {
    let f = &index.functions[fi as usize];
    let root = root_of(f, vi);
    let rv = &f.variables[root as usize];
    // A struct passed by value is the callee's copy, but the memory its
    // pointers reach is the caller's (`mesh.vx[c]` reads the block of the
    // caller's `mesh.vx`): lifted like a pointer parameter.
    let by_value_aggregate = !rv.is_scalar && !rv.is_pointer;
    let (VarKind::Param, Some(k), true) =
        (rv.kind, rv.param_index, rv.is_exit || by_value_aggregate)
    else {
        return vec![((fi, vi), share)];
    };
    let Some((cdepth, cfi)) = frames
        .iter()
        .enumerate()
        .skip(depth + 1)
        .find_map(|(d, fr)| index.lookup(&fr.function, &fr.file).map(|i| (d, i)))
    else {
        return vec![((fi, vi), share)];
    };
    let caller = &index.functions[cfi];
    let mut targets: BTreeSet<u32> = BTreeSet::new();
    let mut pointees: BTreeSet<u32> = BTreeSet::new();
    for c in call_sites_at(
        caller,
        frames[cdepth].line,
        frames[cdepth].column,
        &f.linkage_name,
    ) {
        targets.extend(output_vars(c, k));
        pointees.extend(arg_bindings(c, k).flat_map(|b| b.pointees.iter().copied()));
    }
    // Only the variables the argument points into, not those computed from
    // it later (`move(&world)` then `g = energy(&world)` puts `g` in the
    // binding of `move`'s argument): the binding's pointees when the static
    // pass knew them, else the candidates read on the call's line.
    let known = !pointees.is_empty();
    let targets = if known { pointees } else { targets };
    // Containers of other targets get their share through container resolution.
    let containers: BTreeSet<u32> = targets
        .iter()
        .filter_map(|&t| caller.variables[t as usize].parent)
        .collect();
    let direct: Vec<u32> = targets.difference(&containers).copied().collect();
    // Of variables holding pointers into one object (`akk = a + k * n + k`
    // aliases `a`), the memory is the first one's: the share is not split
    // among its aliases.
    let direct: Vec<u32> = direct
        .iter()
        .copied()
        .filter(|&t| {
            !caller.variables[t as usize]
                .aliases
                .iter()
                .any(|&a| a < t && direct.contains(&a))
        })
        .collect();
    let direct = if known {
        direct
    } else {
        crate::attribution::datacentric::passed_variables(caller, frames[cdepth].line, &direct)
    };
    if direct.is_empty() {
        return vec![((fi, vi), share)];
    }
    let part = share / direct.len() as f64;
    direct
        .into_iter()
        .flat_map(|t| lift_through_callers(index, frames, cdepth, cfi as u32, t, part))
        .collect()
}

/// The variable and all its containers (container resolution).
pub fn with_containers(index: &StaticIndex, (fi, vi): VarRef) -> Vec<VarRef> {
    let f = &index.functions[fi as usize];
    let mut out = vec![(fi, vi)];
    let mut p = f.variables[vi as usize].parent;
    while let Some(pi) = p {
        if out.len() > f.variables.len() {
            break;
        }
        out.push((fi, pi));
        p = f.variables[pi as usize].parent;
    }
    out
}

#[cfg(test)]
mod static_footprint_tests {
    use super::*;
    use crate::tests_fig3_14::{func, var};
    use blame_formats::static_db::{
        LineReads, MemRead, OuterReuse, ReadCost, ReadIndex, Reuse, StaticDb,
    };

    /// Without an allocation log, a table that received `malloc(8192)`
    /// (the static pass's `heap_bytes`) stays in the L1 beside a stream:
    /// the stream takes the miss. A table of unknown size is weighed as a
    /// gather (one miss per read).
    #[test]
    fn constant_allocation_sizes_are_footprints_without_a_log() {
        let shares = |table_bytes: u64| {
            let mut table = var("table", VarKind::Local, None, None, false, &[]);
            table.heap_bytes = table_bytes;
            let stream = var("density", VarKind::Local, None, None, false, &[]);
            let mut f = func("main", vec![table, stream], vec![]);
            let cost = |reuse| ReadCost {
                reuse,
                outer: OuterReuse::Unknown,
                footprint: 0,
                sweep: 0,
                swept_before: false,
            };
            f.reads = vec![LineReads {
                line: 7,
                reads: (0..2)
                    .map(|variable| MemRead {
                        variable,
                        index: ReadIndex::None,
                    })
                    .collect(),
                costs: vec![cost(Reuse::Irregular), cost(Reuse::Stride(8))],
            }];
            f.lines = vec![6, 7];
            f.loops = vec![blame_formats::static_db::LoopInfo {
                header_line: 6,
                lines: vec![6, 7],
                parent: None,
            }];
            let mut db = StaticDb::default();
            db.insert(f);
            let index = StaticIndex::new(db);
            let frame = SymFrame {
                function: "main".into(),
                file: "fig3_14.c".into(),
                line: 7,
                column: 0,
                inlined: false,
            };
            let options = crate::MemoryOptions {
                loop_threshold: 0.75,
                skid: None,
                cache: Default::default(),
            };
            let r = resolve_memory(&index, &[&frame], &options, None, None);
            r.shares
                .iter()
                .filter(|s| s.0 == METHOD_LOOP_ACCESS && s.1 .1 == 0)
                .map(|s| s.2)
                .sum::<f64>()
        };
        // 2% of a gather (first touches) against 1/8 of a line: ~14%.
        assert!(shares(8192) < 0.2, "{}", shares(8192));
        assert!(shares(0) > 0.8, "{}", shares(0));
    }
}

#[cfg(test)]
mod lifecycle_tests {
    use super::is_runtime_lifecycle;

    #[test]
    fn mpi_start_up_and_shut_down_in_every_binding() {
        for name in [
            "MPI_Init",
            "PMPI_Init",
            "MPI_Init_thread",
            "MPI_Finalize",
            "ompi_mpi_finalize",
            "ompi_mpi_init",
            "mpi_init_",
            "pmpi_finalize__",
            "MPI_FINALIZE",
        ] {
            assert!(is_runtime_lifecycle(name), "{name}");
        }
        for name in ["MPI_Send", "MPI_Initialized", "init", "finalize_grid"] {
            assert!(!is_runtime_lifecycle(name), "{name}");
        }
    }
}
