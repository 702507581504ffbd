//! The call sites a frame may have returned from, the library model of a
//! call into code without IR, and the variables a call's arguments bind.

use blame_formats::static_db::{CallOutput, CallSite, FunctionSummary, OutputBinding};
use std::collections::BTreeSet;

/// The call sites of `f` a frame returning to `line`:`column` may have come
/// from. Two calls of one callee on a line (`touch(a, n) + touch(b, m)`)
/// are told apart by the return address's column when the binary's line
/// table has it. A frame at line 0 (the compiler merged identical calls
/// from several lines into one) or at a line without such a call stands for
/// every call of that callee in the function.
pub(super) fn call_sites_at<'a>(
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

/// The library routine a sample on `line` itself is spent calling, when
/// the line blames no variable of its own: the line's calls into code
/// without IR that have a model with outputs, all to one routine (a
/// `free` or `operator delete` whose frame the unwinder did not see: a
/// tail call, the PLT stub).
pub(super) fn library_call_on_line(f: &FunctionSummary, line: u32) -> Option<String> {
    only_callee_on_line(f, line, |c| c.model.as_ref().is_some_and(|m| !m.is_empty()))
        .map(str::to_string)
}

/// The one callee of the calls on `line` that `keep` accepts, when they
/// all call it (by name).
pub(super) fn only_callee_on_line(
    f: &FunctionSummary,
    line: u32,
    keep: impl Fn(&CallSite) -> bool,
) -> Option<&str> {
    let mut callees = f
        .call_sites
        .iter()
        .filter(|c| line > 0 && c.line == line && keep(c))
        .map(|c| c.callee.as_deref());
    let first = callees.next()??;
    callees.all(|c| c == Some(first)).then_some(first)
}

/// Outputs a sample inside a library function `callee` called from `line` blames.
pub(super) fn library_outputs(
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

pub(super) fn output_vars<'a>(c: &'a CallSite, k: u32) -> impl Iterator<Item = u32> + 'a {
    arg_bindings(c, k).flat_map(|b| b.blamed.iter().copied())
}

/// The variables argument `k` of call `c` points into (the binding's
/// pointees; what it reaches when those are unknown).
pub(super) fn passed_vars<'a>(c: &'a CallSite, k: u32) -> impl Iterator<Item = u32> + 'a {
    arg_bindings(c, k).flat_map(|b| {
        if b.pointees.is_empty() {
            b.blamed.iter().copied()
        } else {
            b.pointees.iter().copied()
        }
    })
}

/// The bindings of argument `k` of call `c`.
pub(super) fn arg_bindings<'a>(
    c: &'a CallSite,
    k: u32,
) -> impl Iterator<Item = &'a OutputBinding> + 'a {
    c.outputs
        .iter()
        .filter(move |b| b.output == CallOutput::Arg(k))
}
