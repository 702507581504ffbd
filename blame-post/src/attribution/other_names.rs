//! The names a report row's data structure is also reached as: element
//! pointers and list cursors (`bp = &blocks[n]`, `p = p->next`) and the
//! links of a linked structure (`plist.next.x`), which results count under
//! the variable that owns the memory (`aggregate::variable_key`). Reports
//! list them under the owner ("also reached as") so that a reader finds
//! the names of the source in the row that holds their blame.

use crate::attribution::keys::variable_key;
use crate::attribution::static_index::StaticIndex;
use std::collections::{BTreeSet, HashMap};

/// Per owning row, as results key it (function, variable path; the
/// function is empty for a global), the other names its blame comes
/// through, each `function::path`, sorted.
pub type OtherNames = HashMap<(String, String), Vec<String>>;

/// At most this many other names per row (a row reached through one
/// element pointer in each of 200 routines lists the first of them).
pub const MAX_OTHER_NAMES: usize = 12;

/// [`OtherNames`] of every variable of every summary in `index`.
pub fn other_names(index: &StaticIndex) -> OtherNames {
    let mut found: HashMap<(String, String), BTreeSet<String>> = HashMap::new();
    for (fi, f) in index.functions.iter().enumerate() {
        for (vi, v) in f.variables.iter().enumerate() {
            let key = variable_key(index, (fi as u32, vi as u32), 0);
            // Its own row (a global's row has no function).
            if key.name == v.name && (key.function == f.name || key.function.is_empty()) {
                continue;
            }
            found
                .entry((key.function, key.name))
                .or_default()
                .insert(format!("{}::{}", f.name, v.name));
        }
    }
    found
        .into_iter()
        .map(|(k, names)| (k, names.into_iter().take(MAX_OTHER_NAMES).collect()))
        .collect()
}
