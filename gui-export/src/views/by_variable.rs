//! The flat data-centric view (by variable): its rows, their other names,
//! the coverage of the event, and which variables a view keeps.

use super::scope::{RankStats, Scope};
use super::{is_internal_name, Filters, RankBy, ViewError};
use blame_formats::results::{Results, VariableKey};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize)]
pub struct VariableRow {
    pub name: String,
    pub function: String,
    pub file: String,
    pub line: u32,
    #[serde(rename = "type")]
    pub type_name: String,
    pub kind: String,
    /// Explicit blame (data flow only), in samples: the `samples` column of
    /// every view (text, CSV, HTML and JSON's `samples`), and what data-tree
    /// exports weigh. For memory events, the attributed value.
    #[serde(rename = "samples")]
    pub explicit: f64,
    /// Explicit blame in percent of the run's samples (`explicit %`).
    pub explicit_percent: f64,
    /// Total blame (explicit and implicit) in percent of the run's samples
    /// (`total %`; JSON `total_percent`).
    #[serde(rename = "total_percent")]
    pub percent: f64,
    /// Samples that wrote the variable's own memory, in percent (`excl %`).
    pub exclusive_percent: f64,
    /// Total blame in samples (JSON `total`).
    #[serde(rename = "total")]
    pub samples: f64,
    /// Exclusive blame in samples (JSON `exclusive`).
    pub exclusive: f64,
    /// A derived scalar: a scalar (iteration count, timer, norm, flop
    /// counter) whose blame is mostly inherited: from data structures
    /// computed in the same samples, or through control flow.
    /// Listed after the data structures.
    pub derived: bool,
    pub ranks: RankStats,
    /// Memory events: the attributed count under each method.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub methods: BTreeMap<String, f64>,
    /// The other names this data structure's blame comes through, each
    /// `function::path`: element pointers, list cursors, links of a linked
    /// structure (JSON `also_reached_as`; see [`name_other_names`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also_reached_as: Vec<String>,
}

/// Per row as results key it (function, variable path), the other names
/// of its data structure (`blame_post::other_names`, computed from the
/// static db the results were posted with).
pub type OtherNames = std::collections::HashMap<(String, String), Vec<String>>;

/// Fills each row's `also_reached_as` from `names`.
pub fn name_other_names<'a>(
    rows: impl IntoIterator<Item = &'a mut VariableRow>,
    names: &OtherNames,
) {
    for r in rows {
        if let Some(n) = names.get(&(r.function.clone(), r.name.clone())) {
            r.also_reached_as = n.clone();
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct VariableView {
    pub event: String,
    /// Memory events: the method behind `samples`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    pub total_samples: f64,
    /// The blame the rows are ordered by.
    pub rank_by: RankBy,
    /// How many of the event's samples reached a named variable, and why
    /// the others did not (absent in results of older versions).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<CoverageView>,
    pub variables: Vec<VariableRow>,
}

/// Coverage of one event: samples that reached a named variable.
#[derive(Debug, Clone, Serialize)]
pub struct CoverageView {
    pub samples: f64,
    pub resolved: f64,
    pub percent: f64,
    pub reasons: Vec<CoverageReason>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CoverageReason {
    pub reason: String,
    pub samples: f64,
    pub percent: f64,
}

impl CoverageView {
    fn of(results: &Results, event: u16) -> Option<CoverageView> {
        let c = results.header.coverage.iter().find(|c| c.event == event)?;
        let pct = |x: f64| {
            if c.samples > 0.0 {
                100.0 * x / c.samples
            } else {
                0.0
            }
        };
        let mut reasons: Vec<CoverageReason> = c
            .reasons
            .iter()
            .map(|(reason, n)| CoverageReason {
                reason: reason.clone(),
                samples: *n,
                percent: pct(*n),
            })
            .collect();
        reasons.sort_by(|a, b| {
            b.samples
                .total_cmp(&a.samples)
                .then(a.reason.cmp(&b.reason))
        });
        Some(CoverageView {
            samples: c.samples,
            resolved: c.resolved,
            percent: c.percent(),
            reasons,
        })
    }
}

/// A scalar whose own blame (explicit, in samples that blame no data
/// structure) is under half of its total blame is a derived scalar.
pub(crate) fn is_derived(key: &VariableKey, total: f64, explicit: f64, inherited: f64) -> bool {
    key.scalar && total > 0.0 && (explicit - inherited) < 0.5 * total
}

pub(super) fn keep_key(filters: &Filters, key: &VariableKey) -> bool {
    // No variable without a name is shown, whatever produced it.
    !key.name.is_empty()
        && (filters.all_variables || !is_internal_name(&key.name))
        && filters
            .type_re
            .as_ref()
            .is_none_or(|re| re.is_match(&key.type_name))
        && filters
            .function_re
            .as_ref()
            .is_none_or(|re| re.is_match(&key.function))
}

pub(super) fn variable_rows(
    results: &Results,
    filters: &Filters,
    scope: &Scope,
) -> Vec<VariableRow> {
    let mut rows: Vec<VariableRow> = results
        .variables
        .iter()
        .filter(|v| v.key.event == scope.event && keep_key(filters, &v.key))
        .filter_map(|v| {
            let (inc, exc) = scope.sum(&v.values);
            let (explicit, inherited) = scope.sum_explicit(&v.values);
            (inc > 0.0 || exc > 0.0).then(|| VariableRow {
                name: v.key.name.clone(),
                function: v.key.function.clone(),
                file: v.key.file.clone(),
                line: v.key.line,
                type_name: v.key.type_name.clone(),
                kind: v.key.kind.clone(),
                samples: inc,
                percent: scope.percent(inc),
                explicit,
                explicit_percent: scope.percent(explicit),
                exclusive: exc,
                exclusive_percent: scope.percent(exc),
                derived: is_derived(&v.key, inc, explicit, inherited),
                ranks: scope.rank_stats(results, &v.values),
                methods: scope.methods(&v.values),
                also_reached_as: Vec::new(),
            })
        })
        .filter(|r| r.percent >= filters.min_percent)
        .collect();
    let rank = |r: &VariableRow| match filters.rank_by {
        RankBy::Explicit => r.explicit,
        RankBy::Total => r.samples,
    };
    // Data structures first, then derived scalars; each by the chosen blame.
    rows.sort_by(|a, b| {
        a.derived
            .cmp(&b.derived)
            .then_with(|| rank(b).total_cmp(&rank(a)))
            .then_with(|| b.samples.total_cmp(&a.samples))
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| a.function.cmp(&b.function))
    });
    rows
}

/// The flat data-centric view: variables by descending blame.
pub fn by_variable(results: &Results, filters: &Filters) -> Result<VariableView, ViewError> {
    let scope = Scope::new(results, filters)?;
    let mut rows = variable_rows(results, filters, &scope);
    if let Some(n) = filters.top {
        rows.truncate(n);
    }
    let memory = results
        .header
        .events
        .get(scope.event as usize)
        .is_some_and(|e| e.memory);
    Ok(VariableView {
        method: memory.then(|| {
            scope.method.clone().unwrap_or_else(|| {
                // Without --method, `samples` is what post reported: the
                // most refined method it computed (skid needs a skid model,
                // access weights a static db with access patterns).
                ["skid+loop+access", "skid+loop", "loop+access", "loop"]
                    .into_iter()
                    .find(|m| rows.iter().any(|r| r.methods.contains_key(*m)))
                    .unwrap_or("loop")
                    .to_string()
            })
        }),
        event: scope.event_name,
        total_samples: scope.total,
        rank_by: filters.rank_by,
        coverage: CoverageView::of(results, scope.event),
        variables: rows,
    })
}
