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
//!
//! This module holds the study's types, its errors and `scaling` itself;
//! its steps (`study`), the models (`model`) and Extra-P's input, run and
//! output (`extrap`) are modules of their own.

mod extrap;
mod model;
mod study;

pub use extrap::{extrap_text, parse_extrap_output, parse_model};
pub use model::{Model, ModelFactor, ModelTerm};

use extrap::fit_models;
use study::{matched_variables, run_views, scaling_rows, varying_parameters, StudyPoints};

use crate::views::{Filters, RankBy, ViewError};
use blame_formats::results::Results;
use blame_formats::stream::Sampling;
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::PathBuf;

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

/// The scaling study: variables matched across the runs, their blame per
/// point, and Extra-P's models of each.
pub fn scaling(runs: &[ScalingRun], options: &ScalingOptions) -> Result<ScalingView, ScalingError> {
    if runs.len() < 2 {
        return Err(ScalingUsage::TooFewRuns.into());
    }
    let filters = &options.filters;
    let (event, views_) = run_views(runs, filters)?;
    let (parameters, ranks) = varying_parameters(runs)?;
    let study = StudyPoints::of(runs, &parameters, &ranks, &views_, &event, options.time)?;
    let (canon, members) = matched_variables(runs.len(), &views_);
    let mut rows = scaling_rows(&canon, &members, &views_, &study, filters)?;
    let modeler = fit_models(&mut rows, &parameters, &study.points, options)?;
    Ok(ScalingView {
        event,
        rank_by: filters.rank_by,
        time: options.time,
        parameters,
        points: study.points,
        variables: rows,
        modeler,
    })
}
