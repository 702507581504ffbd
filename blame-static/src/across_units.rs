//! The static db's write and read sets as a fixed point across units: the
//! sets the db stores for the functions a unit calls, the order to analyze
//! modules in (callees first), and the units calling a function whose
//! stored sets changed, analyzed again from their kept IR (at most
//! `MAX_UNIT_ROUNDS` rounds, then worst case).

use crate::{
    analysis, analyze_module, ir, llvm_loader, unit_name, DbUpdate, HashMap, LoadError, StaticError,
};
use blame_formats::static_db::StaticDb;
use std::collections::BTreeSet;
use std::time::Instant;

/// Rounds of re-analysis across units: a function whose sets still change
/// after them, and every function calling it through other units, get no
/// stored sets (their callers assume anything their arguments reach).
const MAX_UNIT_ROUNDS: usize = 16;

/// The sets the db stores per linkage name (a name with several summaries,
/// a `static` function of many files, is not looked up across units).
/// A function's stored write and read sets, its per-parameter flows and
/// the parameters it only records numbers through.
type StoredAccess = (analysis::StoredSets, Vec<Vec<u32>>, Vec<(u32, bool)>);

fn stored_sets(db: &StaticDb, names: &BTreeSet<String>) -> HashMap<String, Option<StoredAccess>> {
    names
        .iter()
        .map(|n| {
            let sets = db.only(n).map(|s| {
                (
                    (s.param_writes.clone(), s.param_reads.clone()),
                    analysis::summary_flows(s),
                    analysis::summary_record_params(s),
                )
            });
            (n.clone(), sets)
        })
        .collect()
}

/// The units with a function calling one of `changed` defined in another
/// unit (a unit's calls to its own functions are closed over already).
fn callers_units(db: &StaticDb, changed: &BTreeSet<String>) -> BTreeSet<String> {
    let unit_of: HashMap<&str, &str> = db
        .functions
        .values()
        .filter(|s| changed.contains(&s.linkage_name))
        .map(|s| (s.linkage_name.as_str(), s.unit.as_str()))
        .collect();
    // A virtual call is named by the method its class declares; it takes
    // the sets of the overrides (`virtual_methods`), so a unit calling a
    // method that no unit defines (a pure virtual one) is a caller of
    // every changed function of its signature.
    let signatures: HashMap<String, Vec<&str>> = {
        let mut out: HashMap<String, Vec<&str>> = HashMap::default();
        for (n, u) in &unit_of {
            if let Some(sig) = crate::virtual_methods::method_signature(n) {
                out.entry(sig).or_default().push(u);
            }
        }
        out
    };
    let mut overridden: HashMap<&str, Vec<&str>> = HashMap::default();
    let overrides_in = |n: &str| -> Vec<&str> {
        if signatures.is_empty()
            || !n.starts_with("_ZN")
            || db
                .functions
                .range((n.to_string(), String::new())..)
                .next()
                .is_some_and(|((k, _), _)| k == n)
        {
            return Vec::new();
        }
        crate::virtual_methods::method_signature(n)
            .and_then(|sig| signatures.get(&sig).cloned())
            .unwrap_or_default()
    };
    db.functions
        .values()
        .filter(|s| !s.unit.is_empty())
        .filter(|s| {
            s.call_sites.iter().any(|c| {
                let Some(n) = c.callee.as_deref() else {
                    return false;
                };
                // A slot's functions (or their sets) changed.
                if crate::function_pointers::is_slot(n) {
                    return changed.contains(n);
                }
                if unit_of.get(n).is_some_and(|u| *u != s.unit) {
                    return true;
                }
                overridden
                    .entry(n)
                    .or_insert_with(|| overrides_in(n))
                    .iter()
                    .any(|u| *u != s.unit)
            })
        })
        .map(|s| s.unit.clone())
        .collect()
}

/// The order to analyze `modules` in: a module after the modules defining
/// what it calls (depth-first, callees first; modules calling each other
/// in a cycle keep their input order), so that a caller sees its callees'
/// write and read sets instead of assuming the worst and being analyzed
/// again when they arrive.
fn callees_first(modules: &[ir::Module]) -> Vec<usize> {
    let defined_in: HashMap<&str, usize> = modules
        .iter()
        .enumerate()
        .flat_map(|(i, m)| {
            m.functions
                .iter()
                .filter(|f| !f.is_declaration)
                .map(move |f| (f.name.as_str(), i))
        })
        .collect();
    let calls: Vec<BTreeSet<usize>> = modules
        .iter()
        .enumerate()
        .map(|(i, m)| {
            m.functions
                .iter()
                .filter(|f| f.is_declaration)
                .filter_map(|f| defined_in.get(f.name.as_str()).copied())
                .filter(|&j| j != i)
                .collect()
        })
        .collect();
    let mut order = Vec::with_capacity(modules.len());
    let mut seen = vec![false; modules.len()];
    for root in 0..modules.len() {
        if seen[root] {
            continue;
        }
        // Iterative post-order: (module, its callees not yet walked).
        seen[root] = true;
        let mut stack = vec![(root, calls[root].iter())];
        while let Some((i, next)) = stack.last_mut() {
            match next.next() {
                Some(&j) if !seen[j] => {
                    seen[j] = true;
                    stack.push((j, calls[j].iter()));
                }
                Some(_) => {}
                None => {
                    order.push(*i);
                    stack.pop();
                }
            }
        }
    }
    order
}

/// Analyzes `modules` into `db`, callees first (each with the sets the db
/// holds for the functions of other units it calls); returns, in the order
/// they were analyzed, each module's unit and the names whose stored sets
/// its analysis changed.
pub(crate) fn analyze_modules_into(
    modules: &[ir::Module],
    db: &mut StaticDb,
    up: &mut DbUpdate,
    record: bool,
) -> Vec<(String, BTreeSet<String>)> {
    let mut out = Vec::with_capacity(modules.len());
    let mut slots = crate::function_pointers::SlotIndex::of_db(db);
    for i in callees_first(modules) {
        let m = &modules[i];
        let names: BTreeSet<String> = m
            .functions
            .iter()
            .filter(|f| !f.is_declaration)
            .map(|f| f.name.clone())
            .collect();
        let before = stored_sets(db, &names);
        let t = Instant::now();
        let r = analyze_module(m, Some(db));
        up.analysis_time += t.elapsed();
        up.reused += r.reused;
        up.analyzed += r.timings.len();
        up.timings.extend(r.timings);
        for s in r.summaries {
            if record {
                if !s.has_line_info {
                    up.functions_without_lines += 1;
                }
                up.db.insert(s.clone());
            }
            db.insert(s);
        }
        let after = stored_sets(db, &names);
        let mut changed: BTreeSet<String> = names
            .into_iter()
            .filter(|n| before.get(n) != after.get(n))
            .collect();
        // A slot whose functions changed (this unit stores another in it),
        // or one of whose functions' sets changed, changes its callers.
        let unit = unit_name(m);
        changed.extend(slots.update(&unit, &m.function_pointers, m.function_names(true)));
        changed.extend(slots.calling_any(&changed));
        out.push((unit, changed));
    }
    out
}

/// The units to analyze again after `analyzed` (units in analysis order,
/// each with the names its analysis changed): those calling a changed name
/// that were analyzed before the change (earlier in the list, or in an
/// earlier update); a unit analyzed after it saw the change already.
fn units_to_analyze_again(
    db: &StaticDb,
    analyzed: &[(String, BTreeSet<String>)],
) -> BTreeSet<String> {
    let position: HashMap<&str, usize> = analyzed
        .iter()
        .enumerate()
        .map(|(p, (u, _))| (u.as_str(), p))
        .collect();
    let mut out = BTreeSet::new();
    for (p, (_, changed)) in analyzed.iter().enumerate() {
        if changed.is_empty() {
            continue;
        }
        for unit in callers_units(db, changed) {
            if position.get(unit.as_str()).is_none_or(|&q| q < p) {
                out.insert(unit);
            }
        }
    }
    out
}

/// Analyzes again, from their kept IR, the units calling functions whose
/// sets changed before they were analyzed, until no set changes (at most
/// [`MAX_UNIT_ROUNDS`]): a fixed point of the write and read sets across
/// units. Units without kept IR keep their summaries.
pub(crate) fn reanalyze_callers(
    db_path: &std::path::Path,
    db: &mut StaticDb,
    up: &mut DbUpdate,
    analyzed: Vec<(String, BTreeSet<String>)>,
) {
    let mut changed: BTreeSet<String> = analyzed.iter().flat_map(|(_, c)| c.clone()).collect();
    let mut units = units_to_analyze_again(db, &analyzed);
    for _ in 0..MAX_UNIT_ROUNDS {
        if units.is_empty() {
            return;
        }
        let modules = load_units(db_path, &units, up);
        if modules.is_empty() {
            return;
        }
        up.reanalyzed_units += modules.len();
        let again = analyze_modules_into(&modules, db, up, false);
        changed = again.iter().flat_map(|(_, c)| c.clone()).collect();
        units = units_to_analyze_again(db, &again);
    }
    if units.is_empty() {
        return;
    }
    // Still changing (sets deepening along a recursion across units): the
    // functions that change and every function calling them through other
    // units get no stored sets, and their units are analyzed once more so
    // their callers assume anything their arguments reach.
    let mut top = changed;
    loop {
        let callers: BTreeSet<String> = db
            .functions
            .values()
            .filter(|s| {
                !top.contains(&s.linkage_name)
                    && s.call_sites
                        .iter()
                        .any(|c| c.callee.as_ref().is_some_and(|n| top.contains(n)))
            })
            .map(|s| s.linkage_name.clone())
            .collect();
        if callers.is_empty() {
            break;
        }
        top.extend(callers);
    }
    let clear = |db: &mut StaticDb| {
        for s in db.functions.values_mut() {
            if top.contains(&s.linkage_name) {
                s.param_writes = None;
                s.param_reads = None;
            }
        }
    };
    clear(db);
    let units: BTreeSet<String> = db
        .functions
        .values()
        .filter(|s| top.contains(&s.linkage_name) && !s.unit.is_empty())
        .map(|s| s.unit.clone())
        .collect();
    let modules = load_units(db_path, &units, up);
    up.reanalyzed_units += modules.len();
    analyze_modules_into(&modules, db, up, false);
    clear(db);
}

/// Loads the kept IR of `units` (those kept), completing their declarations
/// from each other. A kept file that cannot be read or loaded is no error
/// (the db update goes on, that unit keeps its summaries): it is listed in
/// [`DbUpdate::unreadable_units`].
fn load_units(
    db_path: &std::path::Path,
    units: &BTreeSet<String>,
    up: &mut DbUpdate,
) -> Vec<ir::Module> {
    let mut modules = Vec::new();
    for unit in units {
        let path = blame_formats::units::path_of(db_path, unit);
        let bytes = match blame_formats::units::load(db_path, unit) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => continue,
            Err(e) => {
                let e = StaticError::Io {
                    path: path.display().to_string(),
                    source: e,
                };
                up.unreadable_units.push(format!("{unit}: {e}"));
                continue;
            }
        };
        match llvm_loader::load_bytes(&bytes, unit) {
            Ok(m) => modules.push(m),
            Err(LoadError::Empty { .. }) => {}
            Err(e) => up
                .unreadable_units
                .push(format!("{unit} ({}): {e}", path.display())),
        }
    }
    complete_declarations(&mut modules);
    modules
}

/// A class only declared in one unit (clang homes its debug info where
/// its constructor or key function is) gets its members from another.
pub(crate) fn complete_declarations(modules: &mut [ir::Module]) {
    if modules.len() > 1 {
        for i in 0..modules.len() {
            let (before, rest) = modules.split_at_mut(i);
            let (m, after) = rest.split_first_mut().expect("i < len");
            let others: Vec<&ir::Module> = before.iter().chain(after.iter()).collect();
            m.complete_declarations(&others);
        }
    }
}
