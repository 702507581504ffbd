//! The walk of one calling context in one mode (3.3.3): from the sampled
//! line of the innermost frame with a summary outwards, frame by frame,
//! through the call sites' transfer functions (or the library model of
//! code without IR) until no exit variable is blamed; what each frame
//! keeps and what it lifts to its caller.

use super::binding::{bind, Reach};
use super::call_sites::{
    call_sites_at, library_call_on_line, library_outputs, only_callee_on_line,
};
use super::closure::close;
use super::exits::{as_outputs, exit_roots};
use super::unexplained::{is_runtime_lifecycle, Unexplained};
use super::{DerivedField, Mode, OutputPath, Paths, VarRef};
use crate::attribution::static_index::StaticIndex;
use blame_formats::results::SymFrame;
use blame_formats::static_db::{CallOutput, FunctionSummary, VarKind};
use std::collections::BTreeSet;
use std::ops::ControlFlow;

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
pub(super) struct Walk {
    pub(super) blamed: BTreeSet<VarRef>,
    pub(super) derived: BTreeSet<DerivedField>,
    pub(super) exclusive: Vec<VarRef>,
    pub(super) exclusive_derived: BTreeSet<DerivedField>,
    pub(super) code_only: bool,
    pub(super) unexplained: Option<Unexplained>,
}

/// The frame-by-frame application of transfer functions (3.3.3) in one mode.
pub(super) fn walk(index: &StaticIndex, frames: &[&SymFrame], mode: Mode) -> Walk {
    let mut walker = Walker {
        index,
        frames,
        mode,
        out: Walk::default(),
        pending: None,
        seen_known: false,
        carried: Vec::new(),
        carried_derived: Vec::new(),
        exclusive_outputs: BTreeSet::new(),
        carried_exclusive: Vec::new(),
        carried_exclusive_derived: Vec::new(),
    };
    for (depth, frame) in frames.iter().enumerate() {
        if walker.frame(depth, frame).is_break() {
            break;
        }
    }
    walker.finish()
}

/// A [`walk`] between two frames: its answer so far, what flows on to the
/// next frame, and what stays where it is if no caller takes it.
struct Walker<'a> {
    index: &'a StaticIndex,
    frames: &'a [&'a SymFrame],
    mode: Mode,
    out: Walk,
    pending: Option<Pending>,
    seen_known: bool,
    // The previous frame's variables whose blame moved on to this frame: kept
    // there when this frame cannot take it (no call site found).
    carried: Vec<VarRef>,
    carried_derived: Vec<DerivedField>,
    // The same for the variables the sampled line writes: their outputs,
    // and where they stay if no caller takes them.
    exclusive_outputs: BTreeSet<OutputPath>,
    carried_exclusive: Vec<VarRef>,
    carried_exclusive_derived: Vec<DerivedField>,
}

/// What one frame with a summary blames: the variables and field paths
/// its blame reaches, and those whose memory it writes.
#[derive(Default)]
struct FrameBlame {
    here: BTreeSet<u32>,
    derived: Paths,
    written: BTreeSet<u32>,
    written_derived: Paths,
}

impl Walker<'_> {
    /// One frame of the stack (innermost first): its blame taken from the
    /// frame below (or its own line), closed, and handed on to its caller.
    /// `Break` ends the walk.
    fn frame(&mut self, depth: usize, frame: &SymFrame) -> ControlFlow<()> {
        let Some(fi) = self.index.lookup(&frame.function, &frame.file) else {
            if !self.seen_known || self.pending.is_some() {
                self.pass_through(frame);
                return ControlFlow::Continue(());
            }
            return ControlFlow::Break(());
        };
        let f = &self.index.functions[fi];
        // The sampled line in another file than its function's: optimized
        // code the line table gives to the caller it was inlined into (a
        // sort's comparator lambda at `stl_algo.h:1870`). The line is not
        // the function's, so its caller's call takes the sample.
        if !self.seen_known
            && self.pending.is_none()
            && f.has_line_info
            && !crate::attribution::static_index::same_file_name(&f.file, &frame.file)
        {
            self.pass_through(frame);
            return ControlFlow::Continue(());
        }
        let fi = fi as u32;
        let mut blame = FrameBlame::default();
        self.take(depth, frame, f, &mut blame)?;
        self.carried.clear();
        self.carried_derived.clear();
        if !blame.written.is_empty() || !blame.written_derived.is_empty() {
            self.carried_exclusive.clear();
            self.carried_exclusive_derived.clear();
        }
        self.seen_known = true;
        // The sampled line itself (innermost frame): a pointer it binds
        // (`const Node &b = nodes[..]`) is blamed for the address, not
        // for the memory its aliases share.
        let bound_line = (depth == 0).then_some(frame.line);
        close(
            self.index,
            f,
            self.mode,
            &mut blame.here,
            &mut blame.derived,
            bound_line,
            frame.line,
        );
        self.hand_on(depth, f, fi, blame, bound_line)
    }

    /// A frame without a summary: blame passes through code without IR via
    /// the model of the outermost such function, applied at the next known
    /// call site; an OpenMP runtime passes the outputs of the outlined
    /// region it runs on to the variables the fork call shares.
    fn pass_through(&mut self, frame: &SymFrame) {
        self.pending = Some(match self.pending.take() {
            Some(Pending::Outputs { outputs, .. }) | Some(Pending::Forked { outputs, .. }) => {
                Pending::Forked {
                    fork: frame.function.clone(),
                    outputs,
                }
            }
            _ => Pending::Library {
                callee: frame.function.clone(),
            },
        });
    }

    /// What frame `f` takes: the blame of its own line (the innermost frame
    /// with a summary), or what flows from the frame below through the
    /// call site. `Break` when nothing can flow on (the walk ends).
    fn take(
        &mut self,
        depth: usize,
        frame: &SymFrame,
        f: &FunctionSummary,
        blame: &mut FrameBlame,
    ) -> ControlFlow<()> {
        match self.pending.take() {
            None if !self.seen_known => {
                line_blames(
                    f,
                    frame,
                    depth,
                    self.mode,
                    &mut blame.here,
                    &mut blame.written,
                );
                if blame.here.is_empty()
                    && is_prologue_or_epilogue(f, frame.line)
                    && caller_can_bind(self.index, &self.frames[depth + 1..])
                {
                    // The call's own cost (saving registers, loading
                    // constants, returning): it serves what the call
                    // computes for its caller, so it needs a caller to
                    // take it (else it stays unexplained).
                    blame.here.extend(computed_exits(f, self.mode));
                }
                if blame.here.is_empty() {
                    // On a call into a library and nothing else: the call's.
                    if let Some(callee) = library_call_on_line(f, frame.line) {
                        return self.bind_outputs(Pending::Library { callee }, frame, f, blame);
                    }
                    // On a call of the program's and nothing else (its
                    // arguments set up, a recursive walk's descent): what
                    // the callee computes, as a sample in its prologue.
                    if let Some(pending) = self.call_of_line(f, frame.line) {
                        return self.bind_outputs(pending, frame, f, blame);
                    }
                    self.out.unexplained = Some(Unexplained::LineBlamesNothing {
                        function: frame.function.clone(),
                        line: frame.line,
                    });
                }
            }
            None => return ControlFlow::Break(()),
            Some(Pending::Library { callee })
                if !self.seen_known
                    && call_sites_at(f, frame.line, frame.column, &callee).is_empty() =>
            {
                // The binary calls a library routine where the IR has code of
                // its own (a loop the compiler turned into `memset`, an
                // inlined template calling into libc): the routine does the
                // frame's line.
                line_blames(
                    f,
                    frame,
                    depth,
                    self.mode,
                    &mut blame.here,
                    &mut blame.written,
                );
                if blame.here.is_empty() {
                    self.out.unexplained = Some(Unexplained::LineBlamesNothing {
                        function: frame.function.clone(),
                        line: frame.line,
                    });
                }
            }
            Some(pending) => return self.bind_outputs(pending, frame, f, blame),
        }
        ControlFlow::Continue(())
    }

    /// The one function with a summary that `line` of `f` calls (every
    /// call on the line is to it), as the outputs it computes for its
    /// caller; `None` when there is none or it computes none.
    fn call_of_line(&self, f: &FunctionSummary, line: u32) -> Option<Pending> {
        let name = only_callee_on_line(f, line, |_| true)?;
        let callee = &self.index.functions[self.index.callee(name)?];
        let exits: BTreeSet<u32> = computed_exits(callee, self.mode).collect();
        let outputs = outputs_of(callee, &exits, &Paths::new(), |_| true);
        (!outputs.is_empty()).then(|| Pending::Outputs {
            callee: name.to_string(),
            outputs,
        })
    }

    /// Binds what flows from the frame below (`pending`) at `f`'s call
    /// sites; when it reaches no variable, the callee's own variables keep
    /// the blame and the walk ends (`Break`).
    fn bind_outputs(
        &mut self,
        pending: Pending,
        frame: &SymFrame,
        f: &FunctionSummary,
        blame: &mut FrameBlame,
    ) -> ControlFlow<()> {
        let (callee, outputs) = pending_outputs(pending, frame, f);
        let sites = call_sites_at(f, frame.line, frame.column, &callee);
        bind(
            f,
            &sites,
            Reach::Blame(self.mode),
            &outputs,
            &mut blame.here,
            &mut blame.derived,
        );
        let taken = std::mem::take(&mut self.exclusive_outputs);
        bind(
            f,
            &sites,
            Reach::Memory,
            &taken,
            &mut blame.written,
            &mut blame.written_derived,
        );
        if blame.here.is_empty() && blame.derived.is_empty() {
            self.seen_known = true;
            self.out.unexplained = Some(if sites.is_empty() {
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
            self.out.blamed.extend(self.carried.drain(..));
            self.out.derived.extend(self.carried_derived.drain(..));
            self.out.exclusive.append(&mut self.carried_exclusive);
            self.out
                .exclusive_derived
                .extend(self.carried_exclusive_derived.drain(..));
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    /// Hands frame `fi`'s closed blame on: exit variables flow on to the
    /// caller as outputs (kept here if no caller takes them), the rest
    /// stays. `Break` when nothing flows on.
    fn hand_on(
        &mut self,
        depth: usize,
        f: &FunctionSummary,
        fi: u32,
        blame: FrameBlame,
        bound_line: Option<u32>,
    ) -> ControlFlow<()> {
        // A local pointer bound on the sampled line (`const Node &b =
        // nodes[..]`) is blamed for computing the address: it stays here,
        // not lifted to the memory it points into.
        // An element pointer or cursor into a parameter's memory (`for (n =
        // tree; n; n = n->left)`) is that parameter's, where it is bound too.
        // So is one pointing into one of several parameters' memory (`src
        // = r == 0 ? p->ghost_lo : ud + r * nx`): every variable it may
        // alias has exit roots, of two or more parameters (one owner's
        // reference, `const Node &b = nodes[..]`, computes an address).
        let into_params = |v: &blame_formats::static_db::Variable| {
            let mut roots: Vec<u32> = Vec::new();
            for &a in &v.aliases {
                let r = exit_roots(f, a);
                if r.is_empty() {
                    return false;
                }
                roots.extend(r.into_iter().map(|(root, _, _)| root));
            }
            roots.sort_unstable();
            roots.dedup();
            v.element_of.is_none() && roots.len() >= 2
        };
        let binds = |vi: u32| {
            let v = &f.variables[vi as usize];
            bound_line.is_some_and(|l| {
                v.kind == VarKind::Local
                    && v.is_pointer
                    && v.write_lines.binary_search(&l).is_ok()
                    && v.element_of.is_none_or(|o| exit_roots(f, o).is_empty())
                    && !into_params(v)
            })
        };
        // Exit variables flow on to the caller; find which outputs (and
        // which field paths below them) they are.
        let outputs = outputs_of(f, &blame.here, &blame.derived, |vi| !binds(vi));
        let caller_binds =
            !outputs.is_empty() && caller_can_bind(self.index, &self.frames[depth + 1..]);
        let lifted = |vi: u32| caller_binds && !binds(vi) && !exit_roots(f, vi).is_empty();
        // What the line writes goes where its variables' blame goes.
        self.exclusive_outputs = outputs_of(f, &blame.written, &blame.written_derived, lifted);
        split_lifted(
            fi,
            blame.here,
            blame.derived,
            lifted,
            (&mut self.carried, &mut self.carried_derived),
            (&mut self.out.blamed, &mut self.out.derived),
        );
        split_lifted(
            fi,
            blame.written,
            blame.written_derived,
            lifted,
            (
                &mut self.carried_exclusive,
                &mut self.carried_exclusive_derived,
            ),
            (&mut self.out.exclusive, &mut self.out.exclusive_derived),
        );
        if outputs.is_empty() {
            return ControlFlow::Break(());
        }
        self.pending = Some(Pending::Outputs {
            callee: f.linkage_name.clone(),
            outputs,
        });
        ControlFlow::Continue(())
    }

    /// The answer once the walk ends: outputs no caller took (the stack
    /// ended) stay with the callee; a stack without any summary says why.
    fn finish(self) -> Walk {
        let Walker {
            index,
            frames,
            mut out,
            seen_known,
            carried,
            carried_derived,
            carried_exclusive,
            carried_exclusive_derived,
            ..
        } = self;
        // Outputs no caller took (the stack ended): the callee keeps them.
        out.blamed.extend(carried);
        out.derived.extend(carried_derived);
        out.exclusive.extend(carried_exclusive);
        out.exclusive_derived.extend(carried_exclusive_derived);
        // The return value of `main` is the process's exit status, no data
        // of the program (its blame came from every line the status
        // depends on).
        let status = |&(fi, vi): &VarRef| exit_status(index, fi, vi);
        out.blamed.retain(|v| !status(v));
        out.exclusive.retain(|v| !status(v));
        out.derived.retain(|d| !status(&d.base));
        out.exclusive_derived.retain(|d| !status(&d.base));
        out.code_only = !seen_known;
        if out.code_only {
            out.unexplained = Some(code_only_reason(frames));
        }
        out
    }
}

/// True for `main`'s return value (and paths below it): the exit status.
fn exit_status(index: &StaticIndex, fi: u32, vi: u32) -> bool {
    let f = &index.functions[fi as usize];
    f.linkage_name == "main"
        && f.variables[crate::attribution::static_index::root_of(f, vi) as usize].kind
            == blame_formats::static_db::VarKind::Return
}

/// The variables frame `f`'s own line blames (the sampled line of the
/// innermost known frame), and at the sampled frame (`depth` 0) those
/// whose memory it writes.
fn line_blames(
    f: &FunctionSummary,
    frame: &SymFrame,
    depth: usize,
    mode: Mode,
    here: &mut BTreeSet<u32>,
    exclusive: &mut BTreeSet<u32>,
) {
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
}

/// What flows from the frame below as (callee, outputs) at `f`'s call
/// sites: a callee's outputs; an outlined region's, as its fork call's
/// arguments; else the library model of the call.
fn pending_outputs(
    pending: Pending,
    frame: &SymFrame,
    f: &FunctionSummary,
) -> (String, BTreeSet<OutputPath>) {
    match pending {
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
    }
}

/// Why a stack in which no frame has a summary blames no variable.
fn code_only_reason(frames: &[&SymFrame]) -> Unexplained {
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
    if runtime_thread {
        Unexplained::RuntimeThread { function }
    } else if function.starts_with('[') || function.is_empty() {
        Unexplained::NoSymbols { function }
    } else {
        Unexplained::NoSummary { function }
    }
}

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
    // (A signature over several lines: the line of the parameters the
    // prologue spills.)
    let declares_a_parameter = || {
        f.variables
            .iter()
            .any(|v| v.kind == VarKind::Param && v.line == line)
    };
    line != 0 && (line == f.line || f.lines.last() == Some(&line) || declares_a_parameter())
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
