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

use crate::static_index::StaticIndex;
use blame_formats::results::SymFrame;
use blame_formats::static_db::{CallOutput, CallSite, FunctionSummary, VarKind};
use std::collections::BTreeSet;

/// A variable of one function summary: (function index, variable index).
pub type VarRef = (u32, u32);

/// What one calling context blames.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Resolution {
    /// Variables to report (exit variables whose blame moved to a caller are left out).
    pub blamed: Vec<VarRef>,
    /// Variables whose own memory the sampled line writes.
    pub exclusive: Vec<VarRef>,
    /// True when no frame had a static summary: the sample counts for code views only.
    pub code_only: bool,
}

/// What flows from a frame to its caller.
enum Pending {
    /// Outputs of a callee with a summary.
    Outputs { callee: String, outputs: BTreeSet<CallOutput> },
    /// The sample is inside (or below) a function without IR, called as `callee`.
    Library { callee: String },
}

/// Resolves a stack (innermost frame first).
pub fn resolve(index: &StaticIndex, frames: &[SymFrame]) -> Resolution {
    let mut out = Resolution::default();
    let mut pending: Option<Pending> = None;
    let mut seen_known = false;
    let mut blamed: BTreeSet<VarRef> = BTreeSet::new();

    for (depth, frame) in frames.iter().enumerate() {
        let Some(fi) = index.lookup(&frame.function, &frame.file) else {
            if !seen_known || pending.is_some() {
                // Blame passes through code without IR via the model of the
                // outermost such function, applied at the next known call site.
                pending = Some(Pending::Library {
                    callee: frame.function.clone(),
                });
                continue;
            }
            break;
        };
        let f = &index.functions[fi];
        let fi = fi as u32;
        let mut here: BTreeSet<u32> = BTreeSet::new();
        match pending.take() {
            None if !seen_known => {
                for (vi, v) in f.variables.iter().enumerate() {
                    if v.explicit_lines.binary_search(&frame.line).is_ok() || v.implicit_lines.binary_search(&frame.line).is_ok() {
                        here.insert(vi as u32);
                    }
                    if depth == 0 && v.write_lines.binary_search(&frame.line).is_ok() {
                        out.exclusive.push((fi, vi as u32));
                    }
                }
            }
            None => break,
            Some(Pending::Outputs { callee, outputs }) => {
                bind(index, f, frame.line, &callee, &outputs, &mut here);
            }
            Some(Pending::Library { callee }) => {
                let outputs = library_outputs(f, frame.line, &callee);
                bind(index, f, frame.line, &callee, &outputs, &mut here);
            }
        }
        seen_known = true;
        close(index, f, &mut here);

        // Exit variables flow on to the caller; find which outputs they are.
        let mut outputs = BTreeSet::new();
        for &vi in &here {
            let v = &f.variables[vi as usize];
            if !v.is_exit {
                continue;
            }
            let root = root_of(f, vi);
            match f.variables[root as usize].kind {
                VarKind::Param => {
                    if let Some(k) = f.variables[root as usize].param_index {
                        outputs.insert(CallOutput::Arg(k));
                    }
                }
                VarKind::Return => {
                    outputs.insert(CallOutput::Return);
                }
                _ => {}
            }
        }
        let caller_binds = !outputs.is_empty() && caller_can_bind(index, &frames[depth + 1..]);
        for &vi in &here {
            let v = &f.variables[vi as usize];
            let root_kind = f.variables[root_of(f, vi) as usize].kind;
            let lifted = v.is_exit && matches!(root_kind, VarKind::Param | VarKind::Return) && caller_binds;
            if !lifted {
                blamed.insert((fi, vi));
            }
        }
        if outputs.is_empty() {
            break;
        }
        pending = Some(Pending::Outputs {
            callee: f.linkage_name.clone(),
            outputs,
        });
    }
    out.code_only = !seen_known;
    out.blamed = blamed.into_iter().collect();
    out.exclusive.sort_unstable();
    out.exclusive.dedup();
    out
}

/// True when some caller frame further up has a summary to take the blame.
fn caller_can_bind(index: &StaticIndex, callers: &[SymFrame]) -> bool {
    callers.iter().any(|c| index.lookup(&c.function, &c.file).is_some())
}

fn root_of(f: &FunctionSummary, mut vi: u32) -> u32 {
    let mut steps = 0;
    while let Some(p) = f.variables[vi as usize].parent {
        vi = p;
        steps += 1;
        if steps > f.variables.len() {
            break;
        }
    }
    vi
}

/// The call sites of `f` that a frame at `line` calling `callee` stands for.
fn call_sites_at<'a>(f: &'a FunctionSummary, line: u32, callee: &str) -> Vec<&'a CallSite> {
    let names_match = |c: &CallSite| match &c.callee {
        Some(name) => name == callee || crate::symbolize::demangle(name) == callee || callee.starts_with(&format!("{name}(")),
        None => false,
    };
    let on_line: Vec<&CallSite> = f.call_sites.iter().filter(|c| c.line == line).collect();
    let named: Vec<&CallSite> = on_line.iter().copied().filter(|c| names_match(c)).collect();
    if !named.is_empty() {
        return named;
    }
    if !on_line.is_empty() {
        // Indirect calls, or a callee known by another name (an alias, a
        // library entry point): every call on the line may be the one.
        return on_line;
    }
    // The binary's line table may differ from the IR's (optimized binary,
    // -O0 IR): a unique call to that callee elsewhere in the function is it.
    let anywhere: Vec<&CallSite> = f.call_sites.iter().filter(|c| names_match(c)).collect();
    if anywhere.len() == 1 {
        anywhere
    } else {
        Vec::new()
    }
}

/// Outputs a sample inside a library function `callee` called from `line` blames.
fn library_outputs(f: &FunctionSummary, line: u32, callee: &str) -> BTreeSet<CallOutput> {
    let mut out = BTreeSet::new();
    for c in call_sites_at(f, line, callee) {
        match &c.model {
            Some(model) => out.extend(model.iter().copied()),
            // A callee that should have had a summary but has none here:
            // without its transfer function, every output may be blamed.
            None => out.extend(c.outputs.iter().map(|o| o.output)),
        }
    }
    out
}

fn bind(_index: &StaticIndex, f: &FunctionSummary, line: u32, callee: &str, outputs: &BTreeSet<CallOutput>, here: &mut BTreeSet<u32>) {
    for c in call_sites_at(f, line, callee) {
        for b in &c.outputs {
            if outputs.contains(&b.output) {
                here.extend(b.blamed.iter().copied());
            }
        }
    }
}

fn output_vars<'a>(c: &'a CallSite, k: u32) -> impl Iterator<Item = u32> + 'a {
    c.outputs
        .iter()
        .filter(move |b| b.output == CallOutput::Arg(k))
        .flat_map(|b| b.blamed.iter().copied())
}

/// Applies side effects and parameter aliases of `f`'s calls, variable
/// aliases and container resolution until nothing changes.
fn close(index: &StaticIndex, f: &FunctionSummary, here: &mut BTreeSet<u32>) {
    loop {
        let before = here.len();
        for c in &f.call_sites {
            let Some(callee) = c.callee.as_deref().and_then(|n| index.callee(n)) else {
                continue;
            };
            let callee = &index.functions[callee];
            for se in &callee.side_effects {
                if output_vars(c, se.from_param).any(|v| here.contains(&v)) {
                    let add: Vec<u32> = output_vars(c, se.blamed_param).collect();
                    here.extend(add);
                }
            }
            for &(a, b) in &callee.param_aliases {
                for (x, y) in [(a, b), (b, a)] {
                    if output_vars(c, x).any(|v| here.contains(&v)) {
                        let add: Vec<u32> = output_vars(c, y).collect();
                        here.extend(add);
                    }
                }
            }
        }
        let snapshot: Vec<u32> = here.iter().copied().collect();
        for vi in snapshot {
            let v = &f.variables[vi as usize];
            here.extend(v.aliases.iter().copied());
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
        if here.len() == before {
            break;
        }
    }
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

/// Approximate data-centric attribution of a memory-event sample (ch. 5):
/// the innermost frame with a summary distributes the miss over the reads
/// near its line; reads through a parameter are mapped to the caller's
/// variables (interprocedural aliasing from the call stack, 5.1).
pub fn resolve_memory(index: &StaticIndex, frames: &[SymFrame], threshold: f64, skid: Option<crate::datacentric::LineSkid>) -> MemoryResolution {
    let mut out = MemoryResolution::default();
    let Some(depth) = frames.iter().position(|fr| index.lookup(&fr.function, &fr.file).is_some()) else {
        return out;
    };
    let fi = index.lookup(&frames[depth].function, &frames[depth].file).expect("found above");
    let f = &index.functions[fi];
    let m = crate::datacentric::attribute_miss(f, frames[depth].line, threshold, skid);
    out.skid_truncated = m.skid_truncated;
    let methods: [(&'static str, &Vec<(u32, f64)>); 4] = [(METHOD_RAW, &m.raw), (METHOD_LOOP, &m.loop_adjusted), (METHOD_SKID, &m.skid), (METHOD_SKID_LOOP, &m.skid_loop)];
    for (method, shares) in methods {
        for &(vi, share) in shares {
            for (target, part) in lift_through_callers(index, frames, depth, fi as u32, vi, share) {
                out.shares.push((method, target, part));
            }
        }
    }
    out
}

/// Follows a read of a parameter's memory up the stack to the caller
/// variables passed in that position, splitting the share among them.
fn lift_through_callers(index: &StaticIndex, frames: &[SymFrame], depth: usize, fi: u32, vi: u32, share: f64) -> Vec<(VarRef, f64)> {
    let f = &index.functions[fi as usize];
    let root = root_of(f, vi);
    let rv = &f.variables[root as usize];
    let (VarKind::Param, Some(k), true) = (rv.kind, rv.param_index, rv.is_exit) else {
        return vec![((fi, vi), share)];
    };
    let Some((cdepth, cfi)) = frames.iter().enumerate().skip(depth + 1).find_map(|(d, fr)| index.lookup(&fr.function, &fr.file).map(|i| (d, i))) else {
        return vec![((fi, vi), share)];
    };
    let caller = &index.functions[cfi];
    let mut targets: BTreeSet<u32> = BTreeSet::new();
    for c in call_sites_at(caller, frames[cdepth].line, &f.linkage_name) {
        targets.extend(output_vars(c, k));
    }
    // Containers of other targets get their share through container resolution.
    let containers: BTreeSet<u32> = targets.iter().filter_map(|&t| caller.variables[t as usize].parent).collect();
    let direct: Vec<u32> = targets.difference(&containers).copied().collect();
    if direct.is_empty() {
        return vec![((fi, vi), share)];
    }
    let part = share / direct.len() as f64;
    direct.into_iter().flat_map(|t| lift_through_callers(index, frames, cdepth, cfi as u32, t, part)).collect()
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
