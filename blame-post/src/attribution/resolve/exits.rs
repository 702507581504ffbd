//! The exit variables a variable's blame leaves its function through
//! (parameters reached through pointers, their fields, the return value)
//! and the call outputs they stand for in a caller.

use super::closure::is_holder;
use super::OutputPath;
use crate::attribution::static_index::root_of;
use blame_formats::static_db::{CallOutput, FunctionSummary, VarKind};

/// The exit variables a variable's blame leaves its function through, with
/// its path below each: its root when that is an exit parameter or the
/// return value; else the parameters and the return value its root aliases
/// (`Data *d = (Data *)vdata;` gives `d.x` the path `.x` below `vdata`; a
/// returned `p` leaves through the return value).
///
/// Each comes with the variable whose type the path ends in: the variable
/// itself, or for a local that holds what an exit variable's field points
/// to (`Particle &a = parts_[i]` is `.parts_` below `this`), that field.
pub(super) fn exit_roots(f: &FunctionSummary, vi: u32) -> Vec<(u32, String, u32)> {
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
pub(super) fn as_outputs(
    f: &FunctionSummary,
    vi: u32,
    extra: &str,
    type_name: &str,
) -> Vec<OutputPath> {
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
