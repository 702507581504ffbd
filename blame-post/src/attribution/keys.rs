//! The report key of a variable the resolution blames: its identity in
//! results (name, function, file, line, type, kind, and whether it ranks
//! with the derived). Element pointers add to their owner, the links of a
//! linked structure fold, a global is one identity across the files that
//! declare it, and a derived field path keys every path above it.

use crate::attribution::resolve::VarRef;
use crate::attribution::static_index::{root_of, StaticIndex};
use blame_formats::names::SMALL_ARRAY;
use blame_formats::results::VariableKey;
use blame_formats::static_db::VarKind;

/// True when `v`'s root is a result (`Variable::is_result`): a local
/// computed from data that feeds nothing back. (A scalar field of it, the
/// solver's `mass_`, is judged as any scalar.)
pub(crate) fn is_result(index: &StaticIndex, (fi, vi): VarRef) -> bool {
    let f = &index.functions[fi as usize];
    f.variables[root_of(f, vi) as usize].is_result && !f.variables[vi as usize].is_scalar
}

/// A heap block whose allocation site has no static summary: named by the
/// site's innermost frame, e.g. `[heap from read_mesh:42]`.
pub(crate) fn heap_site_key(
    function: &str,
    frames: &[blame_formats::results::SymFrame],
    event: u16,
) -> VariableKey {
    let at = frames.iter().find(|f| f.line > 0).or(frames.first());
    VariableKey {
        name: match at {
            Some(f) => format!("[{function} in {}:{}]", f.function, f.line),
            None => format!("[{function}]"),
        },
        function: at.map(|f| f.function.clone()).unwrap_or_default(),
        file: at.map(|f| f.file.clone()).unwrap_or_default(),
        line: at.map(|f| f.line).unwrap_or(0),
        type_name: String::new(),
        kind: "heap".into(),
        scalar: false,
        event,
    }
}

/// The report keys of a derived field path and of every path between it and its base.
pub fn derived_keys(
    index: &StaticIndex,
    d: &crate::attribution::resolve::DerivedField,
    event: u16,
) -> Vec<VariableKey> {
    derived_keys_and_records(index, d, event)
        .into_iter()
        .map(|(k, _)| k)
        .collect()
}

/// [`derived_keys`], each key with whether a result record is on its path
/// (`driver.diag_` of a driver's diagnostics, and the histories below it).
pub fn derived_keys_and_records(
    index: &StaticIndex,
    d: &crate::attribution::resolve::DerivedField,
    event: u16,
) -> Vec<(VariableKey, bool)> {
    let f = &index.functions[d.base.0 as usize];
    // A path that holds another variable of the function (`solver.reg_`,
    // bound to `reg` by the constructor): that variable's, one data
    // structure.
    let local = index
        .has_member_aliases(d.base.0)
        .then(|| format!("{}{}", f.variables[d.base.1 as usize].name, d.suffix));
    if let Some((v, rest)) = local
        .as_deref()
        .and_then(|l| index.member_alias(d.base.0, l))
    {
        if v != d.base.1 {
            let mut keys = vec![(variable_key(index, (d.base.0, v), event), false)];
            if !rest.is_empty() {
                let below = crate::attribution::resolve::DerivedField {
                    base: (d.base.0, v),
                    suffix: rest.to_string(),
                    type_name: d.type_name.clone(),
                };
                keys.extend(derived_keys_and_records(index, &below, event));
            }
            return keys;
        }
    }
    let base = variable_key(index, d.base, event);
    let base_type = &f.variables[d.base.1 as usize].type_name;
    let parts: Vec<&str> = d.suffix.split('.').filter(|p| !p.is_empty()).collect();
    // Each member's declared type on the way down (the leaf's is the
    // path's): `diag_` of a `Driver` is its `Diagnostics`, whatever other
    // class has a `diag_`.
    let mut parent = base_type.clone();
    let types: Vec<Option<String>> = parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let t = if i + 1 == parts.len() {
                Some(d.type_name.clone())
            } else {
                index.field_type(&parent, p).map(str::to_string)
            };
            parent = t.clone().unwrap_or_default();
            t
        })
        .collect();
    let mut seen: Vec<String> = vec![base.name.clone()];
    (1..=parts.len())
        .filter_map(|n| {
            let leaf = n == parts.len();
            // Links of a linked structure folded: `plist.next.x` is `plist.x`.
            let name = index.fold_links(
                &format!("{}.{}", base.name, parts[..n].join(".")),
                &base.name,
                base_type,
            );
            if seen.contains(&name) {
                return None;
            }
            seen.push(name.clone());
            // A result record on the path (`solver.stats_`, and below it
            // `solver.stats_.residual_history`) ranks with the derived.
            let record =
                (1..=n).any(|m| index.is_record_field(parts[m - 1], types[m - 1].as_deref()));
            let key = VariableKey {
                name,
                type_name: if leaf {
                    d.type_name.clone()
                } else {
                    String::new()
                },
                kind: "field".into(),
                // A path below a variable leads through aggregates; its
                // leaf is a scalar when its type is (`app.ksp.rnorm`, a
                // `PetscReal`, is a derived scalar like any other norm).
                // Below a record of results (`kstats`, derived as a whole),
                // its arrays (`kstats.sum`) are results too.
                scalar: (leaf && index.is_scalar_type(&d.type_name))
                    || record
                    || is_result(index, d.base)
                    || base.scalar,
                ..base.clone()
            };
            Some((key, record))
        })
        .collect()
}

/// True when `type_name` is a fixed-size array of at most [`SMALL_ARRAY`]
/// (`blame_formats::names::SMALL_ARRAY`)
/// elements of a scalar type (`double [9]`, `const double [3][3]`): a
/// local of that type ranks as a scalar does, with the derived variables
/// when its blame is mostly inherited.
pub(crate) fn small_scalar_array(index: &StaticIndex, type_name: &str) -> bool {
    blame_formats::names::array_elements(type_name)
        .is_some_and(|(base, n)| n <= SMALL_ARRAY && index.is_scalar_type(base))
}

/// True when `vi` or a field it is below is a result record
/// (`StaticIndex::is_record_field`): `this.stats_.t_solve`.
fn record_field_on_path(
    index: &StaticIndex,
    f: &blame_formats::static_db::FunctionSummary,
    vi: u32,
) -> bool {
    let mut t = vi;
    for _ in 0..f.variables.len() {
        let v = &f.variables[t as usize];
        let Some(p) = v.parent else { return false };
        let name = v.name.rsplit('.').next().unwrap_or(&v.name);
        if index.is_record_field(name, Some(&v.type_name)) {
            return true;
        }
        t = p;
    }
    false
}

/// The report key of a summary variable.
pub fn variable_key(index: &StaticIndex, v: VarRef, event: u16) -> VariableKey {
    owned_key(index, v, event, 0)
}

/// The owner of variable `vi` of `f` when its root is an element pointer
/// (`bp = &blocks[n]`: `bp.array` is `blocks.array`): the owner and the
/// path below the local (`.array`).
fn element_owner(f: &blame_formats::static_db::FunctionSummary, vi: u32) -> Option<(u32, &str)> {
    let v = &f.variables[vi as usize];
    let root = &f.variables[root_of(f, vi) as usize];
    let owner = root.element_of?;
    let suffix = v.name.strip_prefix(root.name.as_str())?;
    Some((owner, suffix))
}

fn owned_key(index: &StaticIndex, (fi, vi): VarRef, event: u16, depth: usize) -> VariableKey {
    let f = &index.functions[fi as usize];
    let v = &f.variables[vi as usize];
    if depth < 8 && v.parent.is_some() {
        // The links of a linked structure folded (`plist.next.x` is
        // `plist.x`): the variable of the folded path, if any.
        let root = &f.variables[root_of(f, vi) as usize];
        let folded = index.fold_links(&v.name, &root.name, &root.type_name);
        if folded != v.name {
            if let Some(o) = f.variables.iter().position(|x| x.name == folded) {
                return owned_key(index, (fi, o as u32), event, depth + 1);
            }
        }
    }
    if depth < 8 {
        if let Some((owner, suffix)) = element_owner(f, vi) {
            // The owner's own field of that name when the summary has
            // one; else the owner's key with the path appended.
            let name = format!("{}{suffix}", f.variables[owner as usize].name);
            if let Some(o) = f.variables.iter().position(|x| x.name == name) {
                if o as u32 != vi {
                    return owned_key(index, (fi, o as u32), event, depth + 1);
                }
            }
            let mut key = owned_key(index, (fi, owner), event, depth + 1);
            // (An element object's own fields are no paths of its owner.)
            let element_root = &f.variables[root_of(f, vi) as usize];
            if !suffix.is_empty()
                && !crate::attribution::static_index::is_element_object(element_root)
            {
                let owner_var = &f.variables[owner as usize];
                let name = format!("{}{suffix}", key.name);
                let folded = index.fold_links(&name, &key.name, &owner_var.type_name);
                if folded == key.name {
                    return key;
                }
                key.name = folded;
                key.kind = "field".into();
                key.type_name = v.type_name.clone();
                key.scalar = v.is_scalar;
            }
            return key;
        }
    }
    let root = &f.variables[root_of(f, vi) as usize];
    let global = root.kind == VarKind::Global;
    // A result record (and its fields) ranks as derived scalars do: the
    // report's `scalar` says "a scalar or a record of results".
    let scalar = v.is_scalar
        || root.is_record
        || root.is_result
        || record_field_on_path(index, f, vi)
        || (v.kind == VarKind::Local
            && v.parent.is_none()
            && small_scalar_array(index, &v.type_name));
    let kind = match v.kind {
        VarKind::Global => "global",
        VarKind::Field => "field",
        VarKind::Param if v.is_pointer => "heap-via-pointer",
        VarKind::Param => "param",
        VarKind::Return => "return",
        VarKind::Local if v.is_pointer => "heap-via-pointer",
        VarKind::Local => "local",
    };
    if global {
        // One identity per global across the files that use it: the
        // definition's file, line and type.
        let def = index.global_def(&v.name, crate::attribution::static_index::unit_of(f));
        return VariableKey {
            name: v.name.clone(),
            function: String::new(),
            file: def.map(|d| d.unit.clone()).unwrap_or_default(),
            line: def.map_or(v.line, |d| d.line),
            type_name: match def {
                Some(d) => d.type_name.clone(),
                None => v.type_name.clone(),
            },
            kind: kind.to_string(),
            // The definition decides, whichever unit names the global; a
            // global result record (and its fields) ranks with the
            // derived scalars.
            // (A global's `is_record` is one function's verdict only.)
            scalar: def.map_or(v.is_scalar, |d| d.scalar) || index.is_global_record(&root.name, f),
            event,
        };
    }
    VariableKey {
        name: v.name.clone(),
        function: f.name.clone(),
        file: f.file.clone(),
        line: v.line,
        type_name: v.type_name.clone(),
        kind: kind.to_string(),
        scalar,
        event,
    }
}
