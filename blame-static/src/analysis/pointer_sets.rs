//! The write and read sets of a call through a function-pointer slot
//! (`crate::function_pointers`), and where the pointer it returns points:
//! the union of those of the functions the program stores in the slot,
//! whether they are defined in the module or in other units (from the
//! static db).

use super::locations::ReturnsInto;
use super::override_sets::union_of;
use super::write_sets::{from_stored, summary_flows, AccessSets};
use crate::function_pointers::{is_slot, SlotFacts};
use crate::ir::Module;
use crate::HashMap;
use blame_formats::static_db::StaticDb;
use std::collections::BTreeSet;

/// For each slot the module calls through whose targets are all known
/// (defined in the module, or in `db` with stored sets): its targets in
/// `out.slots`; each target of another unit's sets and returned pointers
/// under its own name, and, when every target is of another unit, their
/// union under the slot's name (the module's targets are added by
/// [`of_module`] once their sets are computed).
pub fn add_from_db(m: &Module, db: Option<&StaticDb>, facts: &SlotFacts, out: &mut AccessSets) {
    let defined = m.function_names(false);
    for slot in m
        .functions
        .iter()
        .filter(|f| f.is_declaration && is_slot(&f.name))
        .map(|f| f.name.as_str())
    {
        let Some(targets) = facts.targets(slot) else {
            continue;
        };
        let mut external = Vec::new();
        let mut flows: Vec<Vec<Vec<u32>>> = Vec::new();
        let complete = targets.iter().all(|t| {
            if defined.contains(t.as_str()) {
                return true;
            }
            let Some(s) = db.and_then(|db| db.only(t)) else {
                return false;
            };
            let (Some(ws), Some(rs)) = (&s.param_writes, &s.param_reads) else {
                return false;
            };
            external.push((
                t.as_str(),
                from_stored(ws),
                from_stored(rs),
                ReturnsInto::stored(s),
            ));
            flows.push(summary_flows(s));
            true
        });
        if !complete {
            continue;
        }
        let local = targets.iter().any(|t| defined.contains(t.as_str()));
        if !local {
            let writes = external.iter().map(|(_, w, _, _)| w.clone()).collect();
            let reads = external.iter().map(|(_, _, r, _)| r.clone()).collect();
            out.writes.insert(slot.to_string(), union_of(writes));
            out.reads.insert(slot.to_string(), union_of(reads));
            // Each output computed from what any of them computes it from
            // (for the wrappers forwarding to the slot: `side_effects::forwarded`).
            let params = flows.iter().map(Vec::len).max().unwrap_or(0);
            let union: Vec<Vec<u32>> = (0..params)
                .map(|k| {
                    let from: BTreeSet<u32> = flows
                        .iter()
                        .filter_map(|f| f.get(k))
                        .flatten()
                        .copied()
                        .collect();
                    from.into_iter().collect()
                })
                .collect();
            out.slot_flows.insert(slot.to_string(), union);
            let returns: BTreeSet<ReturnsInto> =
                external.iter().flat_map(|(_, _, _, r)| r.clone()).collect();
            if !returns.is_empty() {
                out.returns
                    .insert(slot.to_string(), returns.into_iter().collect());
            }
        }
        for (t, w, r, ret) in external {
            out.writes.entry(t.to_string()).or_insert(w);
            out.reads.entry(t.to_string()).or_insert(r);
            if !ret.is_empty() {
                out.returns.entry(t.to_string()).or_insert(ret);
            }
        }
        out.slots.insert(slot.to_string(), targets);
    }
}

/// The sets of each slot with a target in the module: the union of its
/// targets' (the module's own, computed in `sets`, and other units', put
/// there by [`add_from_db`]).
pub(super) fn of_module(slots: &HashMap<String, BTreeSet<String>>, sets: &mut AccessSets) {
    for (slot, targets) in slots {
        if sets.writes.contains_key(slot) {
            // Every target of another unit: their union is there already.
            continue;
        }
        for table in [&mut sets.writes, &mut sets.reads] {
            let found: Option<Vec<_>> = targets.iter().map(|t| table.get(t).cloned()).collect();
            if let Some(found) = found {
                table.insert(slot.clone(), union_of(found));
            }
        }
    }
}

/// Where each slot with a target in the module returns pointers into: the
/// union of its targets' (`rets`, the module's and other units').
pub(super) fn returns_of_module(
    slots: &HashMap<String, BTreeSet<String>>,
    rets: &mut HashMap<String, Vec<ReturnsInto>>,
) {
    for (slot, targets) in slots {
        let found: BTreeSet<ReturnsInto> = targets
            .iter()
            .filter_map(|t| rets.get(t))
            .flatten()
            .cloned()
            .collect();
        if !found.is_empty() {
            rets.insert(slot.clone(), found.into_iter().collect());
        }
    }
}
