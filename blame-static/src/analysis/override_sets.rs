//! The write and read sets of a virtual call's name (the method the
//! object's class declares at the slot, `llvm_loader::virtual_calls`): the
//! union of those of its overrides, found by signature, of other units
//! (from the static db) and of the module.

use super::write_sets::{from_stored, normalize, AccessSets, ParamWrite};
use crate::ir::Module;
use std::collections::BTreeSet;

/// The sets of the module's virtual call names from their overrides of
/// other units that `db` holds (after `AccessSets::external`).
pub fn add_from_db(m: &Module, db: &blame_formats::static_db::StaticDb, out: &mut AccessSets) {
    if m.virtual_callees.is_empty() {
        return;
    }
    let defined = m.function_names(false);
    for v in &m.virtual_callees {
        from_db(out, v, db, &defined);
    }
}

/// The sets of virtual call name `v`: the union of those of its
/// overrides of other units that `db` holds (none when one of them has
/// no stored sets: it may write anything its arguments reach).
fn from_db(
    out: &mut AccessSets,
    v: &str,
    db: &blame_formats::static_db::StaticDb,
    defined: &BTreeSet<&str>,
) {
    let Some(sig) = crate::virtual_methods::method_signature(v) else {
        return;
    };
    let method = crate::virtual_methods::mangled_method(crate::virtual_methods::method_name(&sig));
    let (mut writes, mut reads) = (Vec::new(), Vec::new());
    for s in db.functions.values() {
        let n = s.linkage_name.as_str();
        if defined.contains(n)
            || !crate::virtual_methods::may_override(n, &method)
            || crate::virtual_methods::method_signature(n).as_deref() != Some(&sig)
        {
            continue;
        }
        let (Some(ws), Some(rs)) = (&s.param_writes, &s.param_reads) else {
            return;
        };
        writes.push(from_stored(ws));
        reads.push(from_stored(rs));
    }
    if !writes.is_empty() {
        out.writes.insert(v.to_string(), union_of(writes));
        out.reads.insert(v.to_string(), union_of(reads));
    }
}

/// The union, for each virtual call name of `m`, of the sets the module's
/// own overrides have in `sets` (besides those of other units).
pub(super) fn of_module(m: &Module, sets: &mut AccessSets) {
    // A virtual call writes and reads what any override of the module may,
    // besides those of other units.
    let signatures: Vec<(Option<String>, &str)> = if m.virtual_callees.is_empty() {
        Vec::new()
    } else {
        m.functions
            .iter()
            .filter(|f| !f.is_declaration)
            .map(|f| {
                (
                    crate::virtual_methods::method_signature(&f.name),
                    f.name.as_str(),
                )
            })
            .collect()
    };
    for v in &m.virtual_callees {
        let Some(sig) = crate::virtual_methods::method_signature(v) else {
            continue;
        };
        let overrides: Vec<&str> = signatures
            .iter()
            .filter(|(s, n)| *n != v && s.as_deref() == Some(&sig))
            .map(|&(_, n)| n)
            .collect();
        for table in [&mut sets.writes, &mut sets.reads] {
            let found: Vec<Vec<Vec<ParamWrite>>> = overrides
                .iter()
                .chain(std::iter::once(&v.as_str()))
                .filter_map(|n| table.get(*n).cloned())
                .collect();
            if !overrides.is_empty() && !found.is_empty() {
                table.insert(v.clone(), union_of(found));
            }
        }
    }
}

/// Per parameter, the union of several functions' sets.
pub(super) fn union_of(sets: Vec<Vec<Vec<ParamWrite>>>) -> Vec<Vec<ParamWrite>> {
    let params = sets.iter().map(Vec::len).max().unwrap_or(0);
    (0..params)
        .map(|k| {
            normalize(
                sets.iter()
                    .filter_map(|s| s.get(k))
                    .flatten()
                    .cloned()
                    .collect(),
            )
        })
        .collect()
}
