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
use std::collections::BTreeSet;

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
}
