//! The code-centric view: functions by inclusive samples.

use super::scope::Scope;
use super::{Filters, ViewError};
use blame_formats::results::Results;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct FunctionRow {
    pub function: String,
    pub file: String,
    /// Region class (`MPI`, `WRP`, `COM`, `USR`, `FLT`; see [`crate::regions`]).
    pub class: crate::regions::RegionClass,
    pub inclusive: f64,
    pub inclusive_percent: f64,
    pub exclusive: f64,
    pub exclusive_percent: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct FunctionView {
    pub event: String,
    pub total_samples: f64,
    pub functions: Vec<FunctionRow>,
}

/// The code-centric view: functions by inclusive samples.
pub fn by_function(results: &Results, filters: &Filters) -> Result<FunctionView, ViewError> {
    let scope = Scope::new(results, filters)?;
    let classes = crate::regions::classes(results);
    let mut rows: Vec<FunctionRow> = results
        .functions
        .iter()
        .filter(|f| f.key.event == scope.event)
        .filter(|f| {
            filters
                .function_re
                .as_ref()
                .is_none_or(|re| re.is_match(&f.key.name))
        })
        .filter_map(|f| {
            let (inc, exc) = scope.sum(&f.values);
            (inc > 0.0).then(|| FunctionRow {
                function: f.key.name.clone(),
                file: f.key.file.clone(),
                class: classes
                    .get(&f.key.name)
                    .copied()
                    .unwrap_or(crate::regions::RegionClass::Usr),
                inclusive: inc,
                inclusive_percent: scope.percent(inc),
                exclusive: exc,
                exclusive_percent: scope.percent(exc),
            })
        })
        .filter(|r| r.inclusive_percent >= filters.min_percent)
        .collect();
    rows.sort_by(|a, b| {
        b.inclusive
            .total_cmp(&a.inclusive)
            .then_with(|| b.exclusive.total_cmp(&a.exclusive))
            .then_with(|| a.function.cmp(&b.function))
    });
    if let Some(n) = filters.top {
        rows.truncate(n);
    }
    Ok(FunctionView {
        event: scope.event_name,
        total_samples: scope.total,
        functions: rows,
    })
}
