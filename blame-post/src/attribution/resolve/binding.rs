//! Blamed call outputs bound to the caller's variables: what an output
//! reaches (its blame, or its memory), and a field path below an output
//! continued below the variables passed there.

use super::{Mode, OutputPath, Paths};
use crate::attribution::static_index::plain_type;
use blame_formats::static_db::{CallOutput, CallSite, FunctionSummary, OutputBinding};
use std::collections::BTreeSet;

/// What an output binding blames in `mode`.
fn bound(b: &OutputBinding, mode: Mode) -> &[u32] {
    match mode {
        Mode::Total => &b.blamed,
        Mode::Explicit => &b.explicit,
    }
}

/// What a bound output stands for in the caller.
#[derive(Clone, Copy)]
pub(super) enum Reach {
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
pub(super) fn bind(
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
pub(super) fn blame_path(
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
    if (tv.parent.is_none() && crate::attribution::static_index::is_element_object(tv))
        || holds_numbers(tv)
    {
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

/// True when `t` is a field (at any depth) of `p`.
pub(super) fn is_below(f: &FunctionSummary, t: u32, p: u32) -> bool {
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

/// True for a pointer to or an array of numbers (`double *energy_hist`):
/// it has no fields for a path to continue below. A `void *` is a handle
/// to an object of any type (`void *nls` from a factory): paths continue.
fn holds_numbers(v: &blame_formats::static_db::Variable) -> bool {
    let ty = plain_type(&v.type_name);
    let elem = ty.split('[').next().unwrap_or("").replace(['*', '&'], "");
    let elem = elem.trim();
    !elem.is_empty()
        && !elem.split_whitespace().any(|w| w == "void")
        && crate::attribution::static_index::is_basic_type(elem)
}
