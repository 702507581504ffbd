//! Blame points (3.5.1.2): the functions where blame stops, with their
//! variables.

use super::by_variable::{variable_rows, VariableRow};
use super::scope::Scope;
use super::{Filters, ViewError};
use blame_formats::results::Results;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize)]
pub struct BlamePoint {
    pub function: String,
    /// `implicit` (no exit variables) or `explicit` (over the threshold).
    pub reason: String,
    pub variables: Vec<VariableRow>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BlamePointView {
    pub event: String,
    pub total_samples: f64,
    pub blame_points: Vec<BlamePoint>,
}

/// Blame points (3.5.1.2): implicit ones from the results (functions whose
/// variables cannot be lifted further, and `main`), explicit ones for every
/// function holding a variable over `threshold` percent.
pub fn blame_points(
    results: &Results,
    filters: &Filters,
    threshold: Option<f64>,
) -> Result<BlamePointView, ViewError> {
    let scope = Scope::new(results, filters)?;
    let rows = variable_rows(results, filters, &scope);
    let mut by_function: BTreeMap<String, Vec<VariableRow>> = BTreeMap::new();
    for r in rows {
        by_function.entry(r.function.clone()).or_default().push(r);
    }
    let mut points = Vec::new();
    for (function, mut vars) in by_function {
        if function.is_empty() {
            continue;
        }
        // `main` is one by definition (results of older posts lack it).
        let implicit = results.header.blame_points.contains(&function) || function == "main";
        let explicit = threshold.is_some_and(|t| vars.iter().any(|v| v.percent >= t));
        if !(implicit || explicit) {
            continue;
        }
        if let Some(n) = filters.top {
            vars.truncate(n);
        }
        points.push(BlamePoint {
            function,
            reason: if implicit { "implicit" } else { "explicit" }.to_string(),
            variables: vars,
        });
    }
    points.sort_by(|a, b| {
        let top = |p: &BlamePoint| p.variables.first().map(|v| v.samples).unwrap_or(0.0);
        top(b)
            .total_cmp(&top(a))
            .then_with(|| a.function.cmp(&b.function))
    });
    Ok(BlamePointView {
        event: scope.event_name,
        total_samples: scope.total,
        blame_points: points,
    })
}
