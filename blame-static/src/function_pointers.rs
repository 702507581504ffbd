//! Calls through function pointers by the slot the pointer comes from: a
//! struct's field (`v->ops->linear_sum(..)` is a call of `*NVectorOps+24`)
//! or a parameter (`atimes(..)` in `GmresSolve` is `*GmresSolve#2`). The
//! loader names such calls by their slot and keeps what each unit stores
//! in slots (`llvm_loader::function_pointers`); the static db keeps every
//! unit's facts (`FunctionSummary::unit_function_pointers`). A call through
//! a slot calls the functions the whole program stores there, followed
//! through the slots they are copied from (`nm->resid = F` takes
//! `NewtonCreate`'s parameter, which `main` hands `BratuResidual`): its
//! write and read sets are the union of theirs (`analysis::pointer_sets`),
//! as are the places its returned pointer points.

use crate::HashMap;
use std::collections::{BTreeMap, BTreeSet};

/// A slot's source that is not followed (a pointer returned by a call, a
/// load through a pointer of no known field): the slot may hold anything.
pub const UNFOLLOWED: &str = "?";

/// The slot of parameter `k` of function `f`.
pub fn param_slot(f: &str, k: u32) -> String {
    format!("*{f}#{k}")
}

/// True for a slot's name (never a symbol's).
pub fn is_slot(name: &str) -> bool {
    name.starts_with('*')
}

/// The slot facts of a program: per slot, what is stored in it.
#[derive(Debug, Default, Clone)]
pub struct SlotFacts {
    sources: HashMap<String, Vec<String>>,
}

impl SlotFacts {
    /// Facts from pairs (slot, function, slot or `?`).
    pub fn new<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut out = SlotFacts::default();
        out.extend(pairs);
        out
    }

    pub fn extend<'a>(&mut self, pairs: impl IntoIterator<Item = (&'a str, &'a str)>) {
        for (slot, source) in pairs {
            let v = self.sources.entry(slot.to_string()).or_default();
            if !v.iter().any(|s| s == source) {
                v.push(source.to_string());
            }
        }
    }

    /// The facts of every unit the db holds except `skip` (the unit being
    /// analyzed, whose facts come from its IR).
    pub fn of_db(db: &blame_formats::static_db::StaticDb, skip: &str) -> Self {
        SlotFacts::new(
            db.functions
                .values()
                .filter(|s| s.unit != skip)
                .flat_map(|s| &s.unit_function_pointers)
                .map(|(a, b)| (a.as_str(), b.as_str())),
        )
    }

    /// The functions a call through `slot` may call: those stored in it,
    /// directly or through the slots it takes values from. `None` when
    /// none is known or one of its sources is not followed: the call may
    /// call anything.
    pub fn targets(&self, slot: &str) -> Option<BTreeSet<String>> {
        let mut out = BTreeSet::new();
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        let mut todo = vec![slot];
        while let Some(s) = todo.pop() {
            if !seen.insert(s) {
                continue;
            }
            for source in self.sources.get(s)? {
                if source == UNFOLLOWED {
                    return None;
                }
                if is_slot(source) {
                    // A parameter's slot no call hands anything is a
                    // callback this program never installs: nothing.
                    if self.sources.contains_key(source.as_str()) {
                        todo.push(source);
                    }
                } else {
                    out.insert(source.clone());
                }
            }
        }
        (!out.is_empty()).then_some(out)
    }
}

/// The functions each slot called in the static db may call, kept up to
/// date as units are analyzed: rebuilt from every unit's facts only when a
/// unit's facts or the slots called change (most units store no function
/// pointer), so tracking slots costs no scan of the db per unit.
#[derive(Debug, Default)]
pub struct SlotIndex {
    by_unit: BTreeMap<String, Vec<(String, String)>>,
    called: BTreeSet<String>,
    targets: HashMap<String, Option<BTreeSet<String>>>,
}

impl SlotIndex {
    /// The index of what `db` holds.
    pub fn of_db(db: &blame_formats::static_db::StaticDb) -> Self {
        let mut out = SlotIndex::default();
        for s in db.functions.values() {
            if !s.unit_function_pointers.is_empty() {
                out.by_unit
                    .entry(s.unit.clone())
                    .or_default()
                    .extend(s.unit_function_pointers.iter().cloned());
            }
            out.called.extend(
                s.call_sites
                    .iter()
                    .filter_map(|c| c.callee.as_deref())
                    .filter(|n| is_slot(n))
                    .map(str::to_string),
            );
        }
        out.rebuild();
        out
    }

    fn rebuild(&mut self) {
        let facts = SlotFacts::new(
            self.by_unit
                .values()
                .flatten()
                .map(|(a, b)| (a.as_str(), b.as_str())),
        );
        self.targets = self
            .called
            .iter()
            .map(|n| (n.clone(), facts.targets(n)))
            .collect();
    }

    /// Takes unit `unit`'s facts and the slots its summaries call; returns
    /// the called slots whose functions changed.
    pub fn update<'a>(
        &mut self,
        unit: &str,
        facts: &[(String, String)],
        calls: impl IntoIterator<Item = &'a str>,
    ) -> BTreeSet<String> {
        let before_called = self.called.len();
        self.called
            .extend(calls.into_iter().filter(|n| is_slot(n)).map(str::to_string));
        let old = self.by_unit.get(unit).map(Vec::as_slice).unwrap_or(&[]);
        if old == facts && self.called.len() == before_called {
            return BTreeSet::new();
        }
        if facts.is_empty() {
            self.by_unit.remove(unit);
        } else {
            self.by_unit.insert(unit.to_string(), facts.to_vec());
        }
        let before = std::mem::take(&mut self.targets);
        self.rebuild();
        self.targets
            .iter()
            // (A slot newly called with no function known is no change.)
            .filter(|(n, t)| before.get(*n).map_or(t.is_some(), |b| b != *t))
            .map(|(n, _)| n.clone())
            .collect()
    }

    /// The called slots one of whose functions is in `names`.
    pub fn calling_any(&self, names: &BTreeSet<String>) -> Vec<String> {
        self.targets
            .iter()
            .filter(|(_, t)| t.iter().flatten().any(|f| names.contains(f)))
            .map(|(n, _)| n.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_calls_what_is_stored_in_it_through_the_slots_it_copies() {
        let facts = SlotFacts::new([
            ("*Ops+16", "par_array_pointer"),
            ("*Mem+0", "*NewtonCreate#2"),
            ("*NewtonCreate#2", "BratuResidual"),
            ("*Gmres#2", "jtimes"),
            ("*Gmres#2", "*Other#1"),
            ("*Open+8", "f"),
            ("*Open+8", UNFOLLOWED),
        ]);
        let set = |v: &[&str]| Some(v.iter().map(|s| s.to_string()).collect());
        assert_eq!(facts.targets("*Ops+16"), set(&["par_array_pointer"]));
        assert_eq!(facts.targets("*Mem+0"), set(&["BratuResidual"]));
        assert_eq!(facts.targets("*Gmres#2"), set(&["jtimes"]));
        assert_eq!(facts.targets("*Open+8"), None);
        assert_eq!(facts.targets("*Unknown+0"), None);
        assert!(is_slot(&param_slot("f", 1)));
    }

    #[test]
    fn the_index_says_which_called_slots_a_unit_changes() {
        let mut index = SlotIndex::default();
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        // A unit calling through a slot nothing is stored in yet.
        assert_eq!(
            index.update("solver.c", &[pair("*S+0", "*set#1")], ["*S+0", "lib"]),
            BTreeSet::new(),
            "still no function: no change"
        );
        // The unit installing a callback changes the slot.
        let changed = index.update("main.c", &[pair("*set#1", "cb")], []);
        assert_eq!(changed, BTreeSet::from(["*S+0".to_string()]));
        // The same facts again change nothing.
        assert!(index
            .update("main.c", &[pair("*set#1", "cb")], [])
            .is_empty());
        assert_eq!(
            index.calling_any(&BTreeSet::from(["cb".to_string()])),
            vec!["*S+0".to_string()]
        );
    }
}
