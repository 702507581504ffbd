//! The comparison of a memory event's attribution methods against a
//! baseline (`--compare`): each method's values and ranks per variable, and
//! their correlation with the baseline's.

use super::by_variable::keep_key;
use super::scope::Scope;
use super::{Filters, ViewError};
use blame_formats::results::Results;
use serde::Serialize;
use std::collections::BTreeMap;

/// One variable across attribution methods.
#[derive(Debug, Clone, Serialize)]
pub struct CompareRow {
    pub name: String,
    pub function: String,
    #[serde(rename = "type")]
    pub type_name: String,
    pub values: BTreeMap<String, f64>,
    /// 1 = most misses under that method.
    pub ranks: BTreeMap<String, usize>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CompareView {
    pub event: String,
    pub baseline: String,
    pub methods: Vec<String>,
    /// Pearson correlation of each method's values against the baseline's,
    /// over every variable either attributes to; `None` when undefined.
    pub correlation: BTreeMap<String, Option<f64>>,
    pub variables: Vec<CompareRow>,
}

/// Pearson's correlation coefficient; `None` for fewer than two points or no variance.
pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len().min(y.len());
    if n < 2 {
        return None;
    }
    let (mx, my) = (
        x[..n].iter().sum::<f64>() / n as f64,
        y[..n].iter().sum::<f64>() / n as f64,
    );
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for i in 0..n {
        let (dx, dy) = (x[i] - mx, y[i] - my);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx.sqrt() * syy.sqrt()))
}

/// Compares every attribution method of a memory event against `baseline`
/// (`direct`: attribution by data address, 5.3.4).
pub fn compare(
    results: &Results,
    filters: &Filters,
    baseline: &str,
) -> Result<CompareView, ViewError> {
    let scope = Scope::new(
        results,
        &Filters {
            method: None,
            ..filters.clone()
        },
    )?;
    let memory = results
        .header
        .events
        .get(scope.event as usize)
        .is_some_and(|e| e.memory);
    if !memory {
        return Err(ViewError::CompareOfTimeEvent {
            event: scope.event_name.clone(),
        });
    }
    let mut rows: Vec<CompareRow> = results
        .variables
        .iter()
        .filter(|v| v.key.event == scope.event && keep_key(filters, &v.key))
        .map(|v| CompareRow {
            name: v.key.name.clone(),
            function: v.key.function.clone(),
            type_name: v.key.type_name.clone(),
            values: scope.methods(&v.values),
            ranks: BTreeMap::new(),
        })
        .filter(|r| r.values.values().any(|&x| x > 0.0))
        .collect();
    let mut methods: Vec<String> = rows.iter().flat_map(|r| r.values.keys().cloned()).collect();
    methods.sort();
    methods.dedup();
    if !methods.iter().any(|m| m == baseline) {
        return Err(ViewError::NoBaseline {
            baseline: baseline.to_string(),
        });
    }
    for m in &methods {
        let mut order: Vec<usize> = (0..rows.len()).collect();
        order.sort_by(|&a, &b| {
            let v = |i: usize| rows[i].values.get(m).copied().unwrap_or(0.0);
            v(b).total_cmp(&v(a)).then(rows[a].name.cmp(&rows[b].name))
        });
        for (rank, i) in order.into_iter().enumerate() {
            rows[i].ranks.insert(m.clone(), rank + 1);
        }
    }
    let column = |m: &str| -> Vec<f64> {
        rows.iter()
            .map(|r| r.values.get(m).copied().unwrap_or(0.0))
            .collect()
    };
    let base = column(baseline);
    let correlation = methods
        .iter()
        .filter(|m| *m != baseline)
        .map(|m| (m.clone(), pearson(&base, &column(m))))
        .collect();
    rows.sort_by_key(|r| r.ranks[baseline]);
    if let Some(n) = filters.top {
        rows.truncate(n);
    }
    Ok(CompareView {
        event: scope.event_name,
        baseline: baseline.to_string(),
        methods,
        correlation,
        variables: rows,
    })
}
