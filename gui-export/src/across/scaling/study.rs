//! The steps of a scaling study before any model: every run's view, the
//! parameters that vary, the points and each run's place among them, the
//! variables matched across the runs, and their rows of share and time.

use super::{
    ranks_of, seconds_per_sample, ScalingError, ScalingPoint, ScalingRow, ScalingRun, ScalingUsage,
    TimeBase, RANKS_PARAMETER,
};
use crate::across::match_rows;
use crate::views::{self, Filters, RankBy, VariableRow, VariableView};

/// Every run's by-variable view of the first run's event (all rows), and
/// that event; a memory event is refused.
pub(super) fn run_views(
    runs: &[ScalingRun],
    filters: &Filters,
) -> Result<(String, Vec<VariableView>), ScalingError> {
    let all = Filters {
        top: None,
        min_percent: 0.0,
        ..filters.clone()
    };
    // Every run's view of the first run's event.
    let first = views::by_variable(runs[0].results, &all)?;
    if first.method.is_some() {
        return Err(ScalingUsage::MemoryEvent {
            event: first.event.clone(),
        }
        .into());
    }
    let event = first.event.clone();
    let mut views_ = vec![first];
    for r in &runs[1..] {
        views_.push(
            views::by_variable(
                r.results,
                &Filters {
                    event: Some(event.clone()),
                    ..all.clone()
                },
            )
            .map_err(|e| e.of_run(&r.label))?,
        );
    }
    Ok((event, views_))
}

/// The study's parameters: the given ones (every run needs each), plus the
/// ranks when they vary, keeping those that vary; and each run's ranks.
pub(super) fn varying_parameters(
    runs: &[ScalingRun],
) -> Result<(Vec<String>, Vec<f64>), ScalingError> {
    // Parameters: the given ones (every run needs each), plus the ranks when they vary.
    let mut parameters: Vec<String> = Vec::new();
    for r in runs {
        for (name, _) in &r.params {
            if !parameters.contains(name) {
                parameters.push(name.clone());
            }
        }
    }
    for name in &parameters {
        if let Some(r) = runs
            .iter()
            .find(|r| !r.params.iter().any(|(n, _)| n == name))
        {
            return Err(ScalingUsage::MissingParameter {
                run: r.label.clone(),
                name: name.clone(),
            }
            .into());
        }
    }
    let ranks: Vec<f64> = runs.iter().map(|r| ranks_of(r.results)).collect();
    let ranks_vary = ranks.iter().any(|&p| p != ranks[0]);
    if ranks_vary && !parameters.iter().any(|n| n == RANKS_PARAMETER) {
        parameters.insert(0, RANKS_PARAMETER.to_string());
    }
    // Drop parameters that do not vary; at least one must.
    parameters.retain(|name| {
        let v0 = parameter_value(runs, &ranks, 0, name);
        (1..runs.len()).any(|k| parameter_value(runs, &ranks, k, name) != v0)
    });
    if parameters.is_empty() {
        return Err(ScalingUsage::NoVaryingParameter.into());
    }
    Ok((parameters, ranks))
}

/// The value of parameter `name` for run `k`: given, else its ranks.
fn parameter_value(runs: &[ScalingRun], ranks: &[f64], k: usize, name: &str) -> f64 {
    runs[k]
        .params
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| *v)
        .unwrap_or(ranks[k])
}

/// The study's points in order of their values, and where each run is
/// among them: its point and its repetition within that point.
pub(super) struct StudyPoints {
    pub(super) points: Vec<ScalingPoint>,
    point_of_run: Vec<usize>,
    rep_of_run: Vec<usize>,
}

impl StudyPoints {
    pub(super) fn of(
        runs: &[ScalingRun],
        parameters: &[String],
        ranks: &[f64],
        views_: &[VariableView],
        event: &str,
        time: TimeBase,
    ) -> Result<StudyPoints, ScalingError> {
        // Points, and each run's point.
        let mut points: Vec<ScalingPoint> = Vec::new();
        let mut point_of_run = Vec::new();
        for (k, r) in runs.iter().enumerate() {
            let values: Vec<f64> = parameters
                .iter()
                .map(|n| parameter_value(runs, ranks, k, n))
                .collect();
            if values.iter().any(|v| !v.is_finite() || *v <= 0.0) {
                return Err(ScalingUsage::NotPositive {
                    run: r.label.clone(),
                    values: parameters
                        .iter()
                        .zip(&values)
                        .map(|(n, v)| format!("{n}={v}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                }
                .into());
            }
            let seconds = match time {
                TimeBase::Cpu => seconds_per_sample(r.results, event)
                    .map(|s| s * views_[k].total_samples)
                    .ok_or_else(|| ScalingUsage::NoCpuTime {
                        run: r.label.clone(),
                        event: event.to_string(),
                    })?,
                TimeBase::Wall => r.wall_seconds.ok_or_else(|| ScalingUsage::NoWallTime {
                    run: r.label.clone(),
                })?,
            };
            let at = match points.iter().position(|p| p.values == values) {
                Some(i) => i,
                None => {
                    points.push(ScalingPoint {
                        values,
                        runs: Vec::new(),
                        seconds: Vec::new(),
                    });
                    points.len() - 1
                }
            };
            points[at].runs.push(r.label.clone());
            points[at].seconds.push(seconds);
            point_of_run.push(at);
        }
        Ok(StudyPoints::sorted(points, point_of_run))
    }

    /// Points in order of their values; runs' point indices follow, and
    /// each run's repetition within its point.
    fn sorted(points: Vec<ScalingPoint>, point_of_run: Vec<usize>) -> StudyPoints {
        // Points in order of their values; runs' point indices follow.
        let mut order: Vec<usize> = (0..points.len()).collect();
        order.sort_by(|&a, &b| {
            points[a]
                .values
                .partial_cmp(&points[b].values)
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        let new_index: Vec<usize> = {
            let mut v = vec![0; points.len()];
            for (new, &old) in order.iter().enumerate() {
                v[old] = new;
            }
            v
        };
        let points: Vec<ScalingPoint> = order.iter().map(|&i| points[i].clone()).collect();
        let point_of_run: Vec<usize> = point_of_run.iter().map(|&p| new_index[p]).collect();
        // Repetition index of each run within its point.
        let mut rep_of_run = Vec::new();
        let mut seen = vec![0usize; points.len()];
        for &p in &point_of_run {
            rep_of_run.push(seen[p]);
            seen[p] += 1;
        }
        StudyPoints {
            points,
            point_of_run,
            rep_of_run,
        }
    }
}

/// Variables matched across the runs: a canonical list grown run by run,
/// and per canonical variable, per run, its row index in that run's view.
pub(super) fn matched_variables(
    nruns: usize,
    views_: &[VariableView],
) -> (Vec<VariableRow>, Vec<Vec<Option<usize>>>) {
    // Variables matched across the runs: a canonical list grown run by run.
    let mut canon: Vec<VariableRow> = Vec::new();
    // canonical index → per run: the row index in that run's view.
    let mut members: Vec<Vec<Option<usize>>> = Vec::new();
    for (k, v) in views_.iter().enumerate() {
        let pairs = match_rows(&canon, &v.variables);
        for (c, j) in pairs {
            match (c, j) {
                (Some(c), Some(j)) => {
                    members[c][k] = Some(j);
                    canon[c] = v.variables[j].clone();
                }
                (None, Some(j)) => {
                    canon.push(v.variables[j].clone());
                    let mut m = vec![None; nruns];
                    m[k] = Some(j);
                    members.push(m);
                }
                _ => {}
            }
        }
    }
    (canon, members)
}

/// A row per matched variable with its share and time at every point
/// (those over `--min-percent` somewhere), largest share at the largest
/// point first, derived scalars last, at most `--top`; none is refused.
pub(super) fn scaling_rows(
    canon: &[VariableRow],
    members: &[Vec<Option<usize>>],
    views_: &[VariableView],
    study: &StudyPoints,
    filters: &Filters,
) -> Result<Vec<ScalingRow>, ScalingError> {
    let points = &study.points;
    let share_of = |r: &VariableRow| match filters.rank_by {
        RankBy::Explicit => r.explicit_percent,
        RankBy::Total => r.percent,
    };
    let mut rows: Vec<ScalingRow> = Vec::new();
    for (c, m) in canon.iter().zip(members) {
        let mut share: Vec<Vec<f64>> = points.iter().map(|p| vec![0.0; p.runs.len()]).collect();
        let mut time = share.clone();
        let mut derived = false;
        for (k, j) in m.iter().enumerate() {
            let (p, rep) = (study.point_of_run[k], study.rep_of_run[k]);
            if let Some(j) = j {
                let row = &views_[k].variables[*j];
                share[p][rep] = share_of(row);
                derived |= row.derived;
            }
            time[p][rep] = share[p][rep] / 100.0 * points[p].seconds[rep];
        }
        let max_share = share.iter().flatten().copied().fold(0.0, f64::max);
        if max_share < filters.min_percent || max_share <= 0.0 {
            continue;
        }
        rows.push(ScalingRow {
            name: c.name.clone(),
            function: c.function.clone(),
            type_name: c.type_name.clone(),
            kind: c.kind.clone(),
            file: c.file.clone(),
            line: c.line,
            derived,
            share,
            time,
            time_model: None,
            share_model: None,
            share_range: None,
            grows: false,
        });
    }
    // Largest share at the largest point first; derived scalars last.
    let last = |r: &ScalingRow| {
        let v = &r.share[points.len() - 1];
        v.iter().sum::<f64>() / v.len().max(1) as f64
    };
    rows.sort_by(|a, b| {
        a.derived
            .cmp(&b.derived)
            .then_with(|| last(b).total_cmp(&last(a)))
            .then_with(|| a.name.cmp(&b.name))
    });
    if let Some(n) = filters.top {
        rows.truncate(n);
    }
    if rows.is_empty() {
        return Err(ScalingUsage::NothingAbove {
            min_percent: filters.min_percent,
        }
        .into());
    }
    Ok(rows)
}
