//! Side effects (3.3.1.3) of a function: which pointer parameters' writes
//! read which other parameters, with the field paths written and read; and
//! the parameter alias pairs with the path of each side.

use super::alias_classes::Classes;
use super::reach::{ParamRead, Reach};
use super::variables::Vars;
use blame_formats::static_db::*;
use std::collections::{BTreeMap, BTreeSet};

/// Side effects (blamed, from) -> explicit, and parameter alias pairs.
/// (blamed param, path written below it, that path's type, from param, path
/// read below it) → explicit; and the parameter alias pairs.
pub(super) type SideEffects = (
    BTreeMap<(u32, String, String, u32, String), bool>,
    BTreeSet<(u32, String, u32, String)>,
);

/// Distinct paths read below one parameter kept per written variable; more
/// collapse into the whole parameter.
const MAX_FROM_PATHS: usize = 8;

pub(super) fn side_effects(vars: &Vars, classes: &Classes, reach: &Reach) -> SideEffects {
    let nv = vars.out.len();
    let (reads_param, reads_param_explicit) = (&reach.reads_param, &reach.reads_param_explicit);
    let param_is_pointer: BTreeSet<u32> = vars
        .out
        .iter()
        .filter(|v| v.kind == VarKind::Param && v.parent.is_none() && v.is_pointer)
        .filter_map(|v| v.param_index)
        .collect();
    // Side effects (3.3.1.3): a pointer parameter whose writes read another
    // parameter, with the field path written and the paths read (`y.x`
    // computed from `a.vals`: the caller blames its `y.x` when its `a.vals`
    // is blamed, not when anything of `a` is). A read of the other
    // parameter's value only (the pointer, or a value parameter) reads it
    // all. Explicit: true when some write reads the path over data edges.
    let mut side: BTreeMap<(u32, String, String, u32, String), bool> = BTreeMap::new();
    for v in 0..nv as u32 {
        let var = &vars.out[v as usize];
        if !var.is_exit {
            continue;
        }
        let Some(k) = root_param(&vars.out, v) else {
            continue;
        };
        let root_name = &vars.out[root_of(&vars.out, v) as usize].name;
        let blamed_path = var
            .name
            .strip_prefix(root_name.as_str())
            .unwrap_or("")
            .to_string();
        let blamed_type = if blamed_path.is_empty() {
            String::new()
        } else {
            var.type_name.clone()
        };
        let params: BTreeSet<u32> = reads_param[v as usize].iter().map(|(j, _)| *j).collect();
        for j in params.into_iter().filter(|&j| j != k) {
            let reads: Vec<&ParamRead> = reads_param[v as usize]
                .iter()
                .filter(|(x, _)| *x == j)
                .collect();
            // A pointer parameter's address stored in a pointer or reference
            // member (a constructor's `timers_(timers)`, `s->x = x`) binds
            // the member, it computes no data below it: the parameter alias
            // says what the member holds (`param_aliases`), and the member
            // is no field path of its own for what the pointee's computation
            // costs. (The whole parameter keeps its side effect, Figure
            // 3.13's `absorbEV`.)
            let address_only = reads.iter().all(|(_, p)| p.is_none());
            if address_only
                && !blamed_path.is_empty()
                && param_is_pointer.contains(&j)
                && vars.out[v as usize].is_pointer
            {
                continue;
            }
            let mut paths: BTreeSet<String> = reads.iter().filter_map(|(_, p)| p.clone()).collect();
            if paths.is_empty() || paths.contains("") || paths.len() > MAX_FROM_PATHS {
                paths = [String::new()].into_iter().collect();
            }
            let explicit_reads = &reads_param_explicit[v as usize];
            for from_path in paths {
                let explicit = explicit_reads.iter().any(|(x, p)| {
                    *x == j
                        && (from_path.is_empty()
                            || p.as_deref()
                                .is_none_or(|p| p.starts_with(from_path.as_str())))
                });
                *side
                    .entry((k, blamed_path.clone(), blamed_type.clone(), j, from_path))
                    .or_default() |= explicit;
            }
        }
    }
    let param_aliases = param_alias_pairs(&vars.out, &classes.members);
    (side, param_aliases)
}

/// Root (through containers) of a variable.
fn root_of(vars: &[Variable], mut v: u32) -> u32 {
    for _ in 0..64 {
        match vars[v as usize].parent {
            Some(p) => v = p,
            None => break,
        }
    }
    v
}

/// The parameter whose memory a variable is (or is a field of).
fn root_param(vars: &[Variable], v: u32) -> Option<u32> {
    let r = &vars[root_of(vars, v) as usize];
    if r.kind == VarKind::Param {
        r.param_index
    } else {
        None
    }
}

/// The parameter whose memory variable `v` is, with `v`'s field path below
/// it: through `v`'s containers, and through a local pointer holding the
/// parameter or one of its fields (`NewtonMem *nm = (NewtonMem *)nls`
/// makes `nm.u` the parameter's `.u`).
/// The third value says whether a local copy was on the way.
fn param_path(vars: &[Variable], v: u32) -> Option<(u32, String, bool)> {
    let r = root_of(vars, v);
    let root = &vars[r as usize];
    let rest = vars[v as usize]
        .name
        .strip_prefix(root.name.as_str())
        .unwrap_or("");
    if root.kind == VarKind::Param {
        return Some((root.param_index?, rest.to_string(), false));
    }
    if root.kind != VarKind::Local || root.element_of.is_none() {
        return None;
    }
    // Only a copy of the whole parameter: a local pointing into an
    // element of one of its arrays (`fine = mg->levels[0]`) names one
    // element of many, whose members are not the parameter's.
    root.aliases
        .iter()
        .filter(|&&a| a != r)
        .map(|&a| &vars[a as usize])
        .find(|a| a.kind == VarKind::Param && a.parent.is_none())
        .and_then(|a| a.param_index)
        .map(|p| (p, rest.to_string(), true))
}

/// The parameter alias pairs of the alias classes `classes`.
fn param_alias_pairs(
    vars: &[Variable],
    classes: &[Vec<u32>],
) -> BTreeSet<(u32, String, u32, String)> {
    // Parameter aliases, with the field path of each side (`this.mesh_`
    // holds what `mesh` points to: `(".mesh_", "")`).
    let mut param_aliases: BTreeSet<(u32, String, u32, String)> = BTreeSet::new();
    for members in classes {
        // (parameter, path, reached through a local copy of a parameter,
        // the member's type)
        let ps: BTreeSet<(u32, String, bool, &str)> = members
            .iter()
            .filter_map(|&m| {
                let (p, path, through) = param_path(vars, m)?;
                Some((p, path, through, vars[m as usize].type_name.as_str()))
            })
            .collect();
        let ps: Vec<(u32, String, bool, &str)> = ps.into_iter().collect();
        for a in 0..ps.len() {
            for b in a + 1..ps.len() {
                // Through a local copy (`nm.u` of `nm = (NewtonMem *)nls`),
                // a member holding the other parameter has its type (not
                // a per-level array with it in one slot: `x_l[0] = x`).
                let through = ps[a].2 || ps[b].2;
                if ps[a].0 != ps[b].0 && (!through || ps[a].3 == ps[b].3) {
                    param_aliases.insert((ps[a].0, ps[a].1.clone(), ps[b].0, ps[b].1.clone()));
                }
            }
        }
    }
    param_aliases
}

/// Side effects a function passes on from a call through a function
/// pointer handed its own parameters: a wrapper (`N_VLinearSum(a, x, b,
/// y, z)` calling `z->ops->linear_sum(a, x, b, y, z)`, a static inline
/// function of a header) writes through `z` what the functions stored in
/// the slot compute there from `x` and `y` (their flows,
/// `DefinedFunctions::slot_flows`), so a caller blaming its `x` blames its
/// `z` too, as it would for the function called. (A direct call passes
/// blame through its own transfer function at post time, as chapter 3
/// has it; a call through a slot has no summary there.)
pub(super) fn forwarded(
    defined: &super::DefinedFunctions,
    vars: &[Variable],
    call_sites: &[CallSite],
    side: &mut BTreeMap<(u32, String, String, u32, String), bool>,
) {
    // The parameter an argument is, when it is one whole parameter.
    let param = |b: &OutputBinding| -> Option<u32> {
        match b.pointees.as_slice() {
            [v] => {
                let v = &vars[*v as usize];
                (v.kind == VarKind::Param && v.parent.is_none())
                    .then_some(v.param_index)
                    .flatten()
            }
            _ => None,
        }
    };
    for c in call_sites {
        let Some(name) = c
            .callee
            .as_deref()
            .filter(|n| crate::function_pointers::is_slot(n))
        else {
            continue;
        };
        let arg = |k: u32| {
            c.outputs
                .iter()
                .find(|b| b.output == CallOutput::Arg(k) && b.field.is_empty())
        };
        for b in &c.outputs {
            let (CallOutput::Arg(k), Some(to)) = (b.output, param(b)) else {
                continue;
            };
            if !vars
                .iter()
                .any(|v| v.param_index == Some(to) && v.parent.is_none() && v.is_pointer)
            {
                continue;
            }
            for &j in defined.slot_flows(name, k).unwrap_or(&[]) {
                if let Some(from) = arg(j).and_then(param).filter(|&p| p != to) {
                    side.insert(
                        (to, String::new(), String::new(), from, String::new()),
                        true,
                    );
                }
            }
        }
    }
}
