//! `blame scaling RUN...`: per variable, the blame against the parameters
//! the runs differ in (MPI ranks, input sizes), with a performance model of
//! each fitted by Extra-P (PyPI `extrap`), which this module runs: it writes
//! Extra-P's text input (PARAMETER, POINTS, METRIC, REGION, DATA lines; one
//! region per variable, two metrics: `time` and `share`), runs
//! `extrap --text FILE --print ...` and reads the models and their fit
//! quality back. No model is fitted here.
//!
//! - `share`: the variable's blame in percent of its run's samples
//!   (explicit blame unless ranked by total, as `report`);
//! - `time`: share × the run's time in seconds: CPU time (the run's samples
//!   × the sampling period, over all ranks) by default, or the manifest's
//!   wall-clock time.
//!
//! Runs with the same parameter values are repetitions of one point.
//! A variable's share *grows with scale* when Extra-P's share model is not
//! constant and predicts, from the smallest to the largest parameters, a
//! rise of at least [`GROWTH_POINTS`] percentage points and
//! [`GROWTH_FACTOR`] times.

use super::match_rows;
use crate::views::{self, Filters, RankBy, VariableRow, ViewError};
use blame_formats::results::Results;
use blame_formats::stream::Sampling;
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Rise of the share model (percentage points) that flags a variable.
pub const GROWTH_POINTS: f64 = 0.5;
/// Relative rise of the share model that flags a variable.
pub const GROWTH_FACTOR: f64 = 1.1;

/// The name of the parameter made from the runs' MPI ranks.
pub const RANKS_PARAMETER: &str = "p";

/// The time a run's share is multiplied by.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum TimeBase {
    /// CPU time: the run's samples × the sampling period, over all ranks.
    #[default]
    Cpu,
    /// The recording's wall-clock time, from the run's manifest.
    Wall,
}

/// One run of a scaling study.
pub struct ScalingRun<'a> {
    pub label: String,
    pub results: &'a Results,
    /// Parameters given for this run (`--param NAME=VALUE`).
    pub params: Vec<(String, f64)>,
    /// The recording's wall-clock time (manifest), if known.
    pub wall_seconds: Option<f64>,
}

pub struct ScalingOptions {
    pub filters: Filters,
    pub time: TimeBase,
    /// The `extrap` command.
    pub extrap: PathBuf,
    /// Where to write Extra-P's input (kept); else a temporary file.
    pub extrap_input: Option<PathBuf>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ScalingPoint {
    /// One value per parameter, in the order of `ScalingView::parameters`.
    pub values: Vec<f64>,
    /// The runs measured at this point (repetitions).
    pub runs: Vec<String>,
    /// Each run's time in seconds (the base the shares are multiplied by).
    pub seconds: Vec<f64>,
}

/// One factor of a model term: `param^exponent * log2(param)^log_exponent`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ModelFactor {
    pub parameter: String,
    pub exponent: f64,
    pub log_exponent: f64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ModelTerm {
    pub coefficient: f64,
    pub factors: Vec<ModelFactor>,
}

/// A model Extra-P returned, with the fit quality it reported.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Model {
    /// Extra-P's own rendering, e.g. `0.02 + 0.1 * n^(1)`.
    pub function: String,
    pub constant: f64,
    /// The terms read back from `function` (empty for a constant model).
    pub terms: Vec<ModelTerm>,
    pub adjusted_r2: Option<f64>,
    pub smape: Option<f64>,
    pub rss: Option<f64>,
    pub re: Option<f64>,
}

impl Model {
    /// The model at `point` (values in the order of `parameters`), or
    /// `None` when a factor names an unknown parameter.
    pub fn eval(&self, parameters: &[String], point: &[f64]) -> Option<f64> {
        let mut y = self.constant;
        for t in &self.terms {
            let mut x = t.coefficient;
            for f in &t.factors {
                let p = point[parameters.iter().position(|n| *n == f.parameter)?];
                x *= p.powf(f.exponent) * p.log2().powf(f.log_exponent);
            }
            y += x;
        }
        Some(y)
    }

    /// A model without terms: the blame does not change with the parameters.
    pub fn is_constant(&self) -> bool {
        self.terms.is_empty()
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct ScalingRow {
    pub name: String,
    pub function: String,
    #[serde(rename = "type")]
    pub type_name: String,
    pub kind: String,
    pub file: String,
    pub line: u32,
    pub derived: bool,
    /// Per point, per repetition: share of the run in percent.
    pub share: Vec<Vec<f64>>,
    /// Per point, per repetition: seconds.
    pub time: Vec<Vec<f64>>,
    pub time_model: Option<Model>,
    pub share_model: Option<Model>,
    /// The share model's prediction at the smallest and largest parameters.
    pub share_range: Option<(f64, f64)>,
    /// The share grows with scale (see the module's documentation).
    pub grows: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct ScalingView {
    pub event: String,
    pub rank_by: RankBy,
    pub time: TimeBase,
    pub parameters: Vec<String>,
    pub points: Vec<ScalingPoint>,
    pub variables: Vec<ScalingRow>,
    /// The Extra-P that fitted the models (`extrap --version`).
    pub modeler: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ScalingError {
    #[error("{0}")]
    View(#[from] ViewError),
    #[error(transparent)]
    Usage(#[from] ScalingUsage),
    #[error("Extra-P: {0}")]
    Extrap(#[from] ExtrapFailure),
}

/// Runs that make no scaling study, or options that do not fit them.
#[derive(Debug, thiserror::Error)]
pub enum ScalingUsage {
    #[error(
        "a scaling study needs at least two runs (Extra-P asks for five points per parameter)"
    )]
    TooFewRuns,
    #[error("blame scaling models time blame; {event} is a memory event")]
    MemoryEvent { event: String },
    #[error("run {run} has no value of parameter {name}: give --param {name}=VALUE once per run, in run order")]
    MissingParameter { run: String, name: String },
    #[error("the runs differ in no parameter: their MPI ranks are the same; give the varying one with --param NAME=VALUE per run")]
    NoVaryingParameter,
    #[error("run {run}: parameters must be positive numbers for the models ({values})")]
    NotPositive { run: String, values: String },
    #[error("run {run}: {event} is not sampled at a rate of time, so its samples give no CPU time; use --time wall")]
    NoCpuTime { run: String, event: String },
    #[error("run {run}: no manifest with the recording's wall-clock time; use --time cpu")]
    NoWallTime { run: String },
    #[error("no variable has {min_percent}% of a run; lower --min-percent")]
    NothingAbove { min_percent: f64 },
}

/// What went wrong running Extra-P.
#[derive(Debug, thiserror::Error)]
pub enum ExtrapFailure {
    #[error("cannot run {}: {error}; install Extra-P (`pip install extrap`, or scripts/test-tools.sh) and give its path with --extrap or $BLAME_EXTRAP", path.display())]
    CannotRun {
        path: std::path::PathBuf,
        error: std::io::Error,
    },
    #[error("{} --text {} failed ({status}): {stderr}", path.display(), input.display())]
    Failed {
        path: std::path::PathBuf,
        input: std::path::PathBuf,
        status: std::process::ExitStatus,
        stderr: String,
    },
    #[error("cannot write its input {}: {error}", path.display())]
    Input {
        path: std::path::PathBuf,
        error: std::io::Error,
    },
    #[error("no models in its output:\n{output}")]
    NoModels { output: String },
}

/// Seconds per sample of an event sampled at a fixed rate of time
/// (a frequency, or a period in ns), else `None`.
pub(crate) fn seconds_per_sample(results: &Results, event: &str) -> Option<f64> {
    let e = results.header.events.iter().find(|e| e.name == event)?;
    match e.sampling {
        Sampling::Frequency(f) if f > 0 => Some(1.0 / f as f64),
        Sampling::Period(p) if e.unit == "ns" => Some(p as f64 * 1e-9),
        _ => None,
    }
}

/// MPI ranks of the run's application processes (1 without MPI).
pub fn ranks_of(results: &Results) -> f64 {
    let ranks: BTreeSet<u32> = results
        .header
        .processes
        .iter()
        .filter(|p| !p.launcher)
        .filter_map(|p| p.rank)
        .collect();
    ranks.len().max(1) as f64
}

/// A region name Extra-P keeps as it is: `function::name`, without its
/// call-path separator `->` or line breaks; `#2`... for a second variable
/// of the same name in one function.
fn region_name(function: &str, name: &str, taken: &mut BTreeSet<String>) -> String {
    let base = if function.is_empty() {
        name.to_string()
    } else {
        format!("{function}::{name}")
    };
    let base: String = base
        .replace("->", "-")
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut name = base.clone();
    let mut k = 2;
    while !taken.insert(name.clone()) {
        name = format!("{base} #{k}");
        k += 1;
    }
    name
}

/// A number in the form Extra-P's text format reads (no exponent).
fn number(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        "0".into()
    }
}

/// Extra-P's text input for the regions (one per row) and their
/// per-point values of each metric.
pub fn extrap_text(
    parameters: &[String],
    points: &[ScalingPoint],
    regions: &[String],
    metrics: &[(&str, Vec<&Vec<Vec<f64>>>)],
) -> String {
    let mut s = String::from(
        "# blame scaling: per-variable blame (time in seconds, share in percent of the run)\n",
    );
    s.push_str(&format!("PARAMETER {}\n", parameters.join(" ")));
    s.push_str("POINTS");
    for p in points {
        let coords: Vec<String> = p.values.iter().map(|v| number(*v)).collect();
        s.push_str(&format!(" ( {} )", coords.join(" ")));
    }
    s.push('\n');
    for (metric, data) in metrics {
        s.push_str(&format!("METRIC {metric}\n"));
        for (region, values) in regions.iter().zip(data) {
            s.push_str(&format!("REGION {region}\n"));
            for per_point in values.iter() {
                let v: Vec<String> = per_point.iter().map(|x| number(*x)).collect();
                s.push_str(&format!("DATA {}\n", v.join(" ")));
            }
        }
    }
    s
}

/// `1`, `4/5`, `-1/2`, `1.5`.
fn fraction(s: &str) -> Option<f64> {
    match s.split_once('/') {
        Some((a, b)) => Some(a.trim().parse::<f64>().ok()? / b.trim().parse::<f64>().ok()?),
        None => s.trim().parse().ok(),
    }
}

/// Reads one of Extra-P's model renderings back: terms joined by ` + `,
/// each a coefficient (left out when 1) times factors `n^(E)` and `log2(n)^(E)`.
pub fn parse_model(function: &str) -> Option<(f64, Vec<ModelTerm>)> {
    let mut constant = 0.0;
    let mut terms = Vec::new();
    for term in function.split(" + ") {
        // A coefficient of 1 is left out (`p^(1)`); numbers multiply wherever they stand.
        let mut coefficient = 1.0;
        let mut factors: Vec<ModelFactor> = Vec::new();
        for f in term.split(" * ") {
            let f = f.trim();
            if let Ok(x) = f.parse::<f64>() {
                coefficient *= x;
                continue;
            }
            let (base, exp) = match f.rsplit_once("^(") {
                Some((b, e)) => (b, fraction(e.strip_suffix(')')?)?),
                None => return None,
            };
            let (parameter, log) = match base.strip_prefix("log2(") {
                Some(rest) => (rest.strip_suffix(')')?, true),
                None => (base, false),
            };
            let slot = match factors.iter_mut().find(|x| x.parameter == parameter) {
                Some(x) => x,
                None => {
                    factors.push(ModelFactor {
                        parameter: parameter.to_string(),
                        exponent: 0.0,
                        log_exponent: 0.0,
                    });
                    factors.last_mut().expect("just pushed")
                }
            };
            if log {
                slot.log_exponent += exp;
            } else {
                slot.exponent += exp;
            }
        }
        if factors.is_empty() {
            constant += coefficient;
        } else {
            terms.push(ModelTerm {
                coefficient,
                factors,
            });
        }
    }
    Some((constant, terms))
}

/// What `--print` asks Extra-P for: one tab-separated line per region and metric.
const PRINT_FORMAT: &str = "@@\t{callpath}\t{metric}\t{model}\t{ar2}\t{smape}\t{rss}\t{re}";

/// (region, metric) → model, from Extra-P's output.
pub fn parse_extrap_output(out: &str) -> Vec<(String, String, Model)> {
    out.lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            if f.len() != 8 || f[0] != "@@" {
                return None;
            }
            let opt = |s: &str| s.trim().parse::<f64>().ok().filter(|x| x.is_finite());
            let (constant, terms) = parse_model(f[3]).unwrap_or((f64::NAN, Vec::new()));
            Some((
                f[1].to_string(),
                f[2].to_string(),
                Model {
                    function: f[3].to_string(),
                    constant,
                    terms,
                    adjusted_r2: opt(f[4]),
                    smape: opt(f[5]),
                    rss: opt(f[6]),
                    re: opt(f[7]),
                },
            ))
        })
        .collect()
}

fn run_extrap(extrap: &Path, input: &Path) -> Result<(String, String), ScalingError> {
    let missing = |error: std::io::Error| ExtrapFailure::CannotRun {
        path: extrap.to_path_buf(),
        error,
    };
    let version = Command::new(extrap)
        .arg("--version")
        .output()
        .map_err(missing)?;
    let version = String::from_utf8_lossy(&version.stdout).trim().to_string();
    let out = Command::new(extrap)
        .args(["--disable-progress", "--text"])
        .arg(input)
        .args(["--print", PRINT_FORMAT])
        .output()
        .map_err(missing)?;
    if !out.status.success() {
        return Err(ExtrapFailure::Failed {
            path: extrap.to_path_buf(),
            input: input.to_path_buf(),
            status: out.status,
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        }
        .into());
    }
    Ok((version, String::from_utf8_lossy(&out.stdout).into_owned()))
}

/// The scaling study: variables matched across the runs, their blame per
/// point, and Extra-P's models of each.
pub fn scaling(runs: &[ScalingRun], options: &ScalingOptions) -> Result<ScalingView, ScalingError> {
    if runs.len() < 2 {
        return Err(ScalingUsage::TooFewRuns.into());
    }
    let filters = &options.filters;
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
    let value_of = |k: usize, name: &str| -> f64 {
        runs[k]
            .params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
            .unwrap_or(ranks[k])
    };
    // Drop parameters that do not vary; at least one must.
    parameters.retain(|name| {
        let v0 = value_of(0, name);
        (1..runs.len()).any(|k| value_of(k, name) != v0)
    });
    if parameters.is_empty() {
        return Err(ScalingUsage::NoVaryingParameter.into());
    }
    // Points, and each run's point.
    let mut points: Vec<ScalingPoint> = Vec::new();
    let mut point_of_run = Vec::new();
    for (k, r) in runs.iter().enumerate() {
        let values: Vec<f64> = parameters.iter().map(|n| value_of(k, n)).collect();
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
        let seconds = match options.time {
            TimeBase::Cpu => seconds_per_sample(r.results, &event)
                .map(|s| s * views_[k].total_samples)
                .ok_or_else(|| ScalingUsage::NoCpuTime {
                    run: r.label.clone(),
                    event: event.clone(),
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
                    let mut m = vec![None; runs.len()];
                    m[k] = Some(j);
                    members.push(m);
                }
                _ => {}
            }
        }
    }
    let share_of = |r: &VariableRow| match filters.rank_by {
        RankBy::Explicit => r.explicit_percent,
        RankBy::Total => r.percent,
    };
    let mut rows: Vec<ScalingRow> = Vec::new();
    for (c, m) in canon.iter().zip(&members) {
        let mut share: Vec<Vec<f64>> = points.iter().map(|p| vec![0.0; p.runs.len()]).collect();
        let mut time = share.clone();
        let mut derived = false;
        for (k, j) in m.iter().enumerate() {
            let (p, rep) = (point_of_run[k], rep_of_run[k]);
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
    // Extra-P.
    let mut taken = BTreeSet::new();
    let regions: Vec<String> = rows
        .iter()
        .map(|r| region_name(&r.function, &r.name, &mut taken))
        .collect();
    let text = extrap_text(
        &parameters,
        &points,
        &regions,
        &[
            ("time", rows.iter().map(|r| &r.time).collect()),
            ("share", rows.iter().map(|r| &r.share).collect()),
        ],
    );
    // Extra-P's input: where asked (written atomically), else a private
    // temporary file (0600, random name), removed once Extra-P has read it.
    let input_error = |path: &std::path::Path, error: std::io::Error| ExtrapFailure::Input {
        path: path.to_path_buf(),
        error,
    };
    let result = match &options.extrap_input {
        Some(p) => {
            blame_formats::files::write_atomic(p, text.as_bytes())
                .map_err(|e| input_error(p, e))?;
            run_extrap(&options.extrap, p)
        }
        None => {
            let tmp =
                blame_formats::files::private_temp_file("blame-scaling-", ".txt", text.as_bytes())
                    .map_err(|e| input_error(&std::env::temp_dir(), e))?;
            run_extrap(&options.extrap, &tmp)
        }
    };
    let (modeler, out) = result?;
    let models = parse_extrap_output(&out);
    if models.is_empty() {
        return Err(ExtrapFailure::NoModels {
            output: out.trim().to_string(),
        }
        .into());
    }
    let low: Vec<f64> = (0..parameters.len())
        .map(|i| {
            points
                .iter()
                .map(|p| p.values[i])
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    let high: Vec<f64> = (0..parameters.len())
        .map(|i| points.iter().map(|p| p.values[i]).fold(0.0, f64::max))
        .collect();
    for (row, region) in rows.iter_mut().zip(&regions) {
        let find = |metric: &str| {
            models
                .iter()
                .find(|(r, m, _)| r == region && m == metric)
                .map(|(_, _, model)| model.clone())
        };
        row.time_model = find("time");
        row.share_model = find("share");
        if let Some(m) = &row.share_model {
            if let (Some(a), Some(b)) = (m.eval(&parameters, &low), m.eval(&parameters, &high)) {
                row.share_range = Some((a, b));
                row.grows = !m.is_constant() && b - a >= GROWTH_POINTS && b >= GROWTH_FACTOR * a;
            }
        }
    }
    Ok(ScalingView {
        event,
        rank_by: filters.rank_by,
        time: options.time,
        parameters,
        points,
        variables: rows,
        modeler,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_read_back_with_fractions_logs_and_negative_coefficients() {
        let (c, t) = parse_model("-4.3 + 0.05 * n^(4/5) + -1e-05 * p^(1) * log2(p)^(2)").unwrap();
        assert_eq!(c, -4.3);
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].factors[0].parameter, "n");
        assert!((t[0].factors[0].exponent - 0.8).abs() < 1e-12);
        assert_eq!(t[1].coefficient, -1e-05);
        assert_eq!(
            t[1].factors[0],
            ModelFactor {
                parameter: "p".into(),
                exponent: 1.0,
                log_exponent: 2.0
            }
        );
        assert_eq!(parse_model("3.01").unwrap(), (3.01, vec![]));
        let (c, t) = parse_model("4e-16 + p^(1)").unwrap();
        assert_eq!(
            (c, t[0].coefficient, t[0].factors[0].exponent),
            (4e-16, 1.0, 1.0)
        );
        assert!(parse_model("0.5 * what").is_none());
    }

    #[test]
    fn extrap_output_lines_become_models() {
        let out = "@@\tmain::a\ttime\t0.002 + 0.0998 * n^(1)\t0.99995\t1.39\t5.6e-05\t0.0137\n\n";
        let m = parse_extrap_output(out);
        assert_eq!(m.len(), 1);
        let (region, metric, model) = &m[0];
        assert_eq!((region.as_str(), metric.as_str()), ("main::a", "time"));
        assert_eq!(model.adjusted_r2, Some(0.99995));
        let params = vec!["n".to_string()];
        assert!((model.eval(&params, &[10.0]).unwrap() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn text_input_has_one_data_line_per_point_with_repetitions() {
        let points = vec![
            ScalingPoint {
                values: vec![1.0, 1000.0],
                runs: vec!["a".into(), "b".into()],
                seconds: vec![1.0, 1.0],
            },
            ScalingPoint {
                values: vec![2.0, 1000.0],
                runs: vec!["c".into()],
                seconds: vec![1.0],
            },
        ];
        let data = vec![vec![0.5, 0.25], vec![1.5]];
        let text = extrap_text(
            &["p".into(), "n".into()],
            &points,
            &["main::x".into()],
            &[("time", vec![&data])],
        );
        assert!(text.contains("PARAMETER p n\nPOINTS ( 1 1000 ) ( 2 1000 )\nMETRIC time\nREGION main::x\nDATA 0.5 0.25\nDATA 1.5\n"), "{text}");
    }
}
