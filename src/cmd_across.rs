//! `blame diff` and `blame scaling`: blame across runs.

use crate::cmd_post::{emit, results_of, RowFilters};
use crate::failure::Failure;
use anyhow::{bail, Context, Result};
use blame_report::across::{diff, scaling};
use blame_report::render;
use blame_report::views::{Filters, OutputFormat};
use std::path::{Path, PathBuf};

/// Row filters shared by `diff` and `scaling`.
#[derive(clap::Args)]
pub struct AcrossFilters {
    #[command(flatten)]
    rows: RowFilters,
    /// Static db used to post runs without stored results [default: $BLAME_DB, else .blame/static.db].
    #[arg(long = "static")]
    static_db: Option<PathBuf>,
    /// Directory to look for the recorded binaries and libraries in first (repeatable).
    #[arg(long = "binary-path")]
    binary_paths: Vec<PathBuf>,
}

impl AcrossFilters {
    fn filters(&self, min_percent: f64) -> Result<Filters> {
        self.rows.filters(min_percent, None)
    }
}

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The first run (a run directory, or a results file).
    run_a: PathBuf,
    /// The second run; its build may differ (variables match by function, name and type).
    run_b: PathBuf,
    #[command(flatten)]
    filters: AcrossFilters,
    /// Static db of the second run, when its build differs [default: --static].
    #[arg(long = "static-b")]
    static_b: Option<PathBuf>,
    /// Only variables with at least P percent of either run.
    #[arg(long, default_value_t = 0.0)]
    min_percent: f64,
    /// text, json, csv or html (a self-contained page).
    #[arg(long, default_value = "text")]
    format: DiffFormat,
    /// Output file [default: standard output].
    #[arg(short, long)]
    output: Option<PathBuf>,
}

fn label(path: &Path) -> String {
    path.display().to_string()
}

pub fn run_diff(args: DiffArgs) -> Result<()> {
    let filters = args.filters.filters(args.min_percent)?;
    let f = &args.filters;
    let a = results_of(&args.run_a, f.static_db.clone(), &f.binary_paths)?;
    let b = results_of(
        &args.run_b,
        args.static_b.clone().or_else(|| f.static_db.clone()),
        &f.binary_paths,
    )?;
    let view = diff::diff(&a, &label(&args.run_a), &b, &label(&args.run_b), &filters)?;
    let text = match args.format {
        DiffFormat::Html => blame_report::html::diff_html(&view),
        DiffFormat::Text => render::render_diff(&view, OutputFormat::Text),
        DiffFormat::Json => render::render_diff(&view, OutputFormat::Json),
        DiffFormat::Csv => render::render_diff(&view, OutputFormat::Csv),
    };
    emit(&text, &args.output)
}

/// What `blame diff` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    Text,
    Json,
    Csv,
    /// A page of its own (both runs' tables and the change).
    Html,
}

#[derive(clap::Args)]
pub struct ScalingArgs {
    /// The runs (run directories or results files), at least two; runs with the same
    /// parameters are repetitions.
    #[arg(required = true, num_args = 2..)]
    runs: Vec<PathBuf>,
    /// A parameter of the runs, once per run in run order (`--param n=1000 --param n=2000`),
    /// or all values at once (`--param n=1000,2000`). The MPI ranks are parameter `p` when
    /// they differ between the runs.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
    #[command(flatten)]
    filters: AcrossFilters,
    /// Only variables with at least P percent of some run.
    #[arg(long, default_value_t = 1.0)]
    min_percent: f64,
    /// The time a share is multiplied by: cpu (the run's samples × the sampling period) or
    /// wall (the recording's wall-clock time from the manifest).
    #[arg(long, value_enum, default_value = "cpu")]
    time: scaling::TimeBase,
    /// Extra-P's command [default: $BLAME_EXTRAP, else `extrap` on the PATH].
    #[arg(long)]
    extrap: Option<PathBuf>,
    /// Keep Extra-P's input (its text format) in this file.
    #[arg(long, value_name = "FILE")]
    extrap_input: Option<PathBuf>,
    /// text, json or csv.
    #[arg(long, default_value = "text")]
    format: OutputFormat,
    /// Output file [default: standard output].
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// `--param` values, per run: `n=1` `n=2` or `n=1,2`, assigned in run order per name.
pub(crate) fn params_per_run(params: &[String], runs: usize) -> Result<Vec<Vec<(String, f64)>>> {
    let mut out: Vec<Vec<(String, f64)>> = vec![Vec::new(); runs];
    let mut next: std::collections::BTreeMap<String, usize> = Default::default();
    for p in params {
        let Some((name, values)) = p.split_once('=') else {
            bail!("--param {p}: give NAME=VALUE");
        };
        let name = name.trim();
        if name.is_empty()
            || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            || name.starts_with(|c: char| c.is_ascii_digit())
        {
            bail!(
                "--param {p}: a parameter name is letters, digits and _, not starting with a digit"
            );
        }
        for v in values.split(',') {
            let x: f64 = v
                .trim()
                .parse()
                .with_context(|| format!("--param {p}: {v:?} is not a number"))?;
            let k = next.entry(name.to_string()).or_default();
            if *k >= runs {
                bail!("--param {name}: more values than the {runs} runs");
            }
            out[*k].push((name.to_string(), x));
            *k += 1;
        }
    }
    for (name, k) in &next {
        if *k != runs {
            bail!("--param {name}: {k} values for {runs} runs; give one per run, in run order");
        }
    }
    Ok(out)
}

/// The recording's wall-clock time, from the run directory's manifest.
fn wall_seconds(run: &Path) -> Option<f64> {
    let m = blame_formats::manifest::Manifest::of_run(run).ok()?;
    (m.end_unix_ns > m.start_unix_ns).then(|| (m.end_unix_ns - m.start_unix_ns) as f64 * 1e-9)
}

pub fn run_scaling(args: ScalingArgs) -> Result<(), Failure> {
    let filters = args.filters.filters(args.min_percent)?;
    let f = &args.filters;
    let params = params_per_run(&args.params, args.runs.len())?;
    let results = args
        .runs
        .iter()
        .map(|r| results_of(r, f.static_db.clone(), &f.binary_paths))
        .collect::<Result<Vec<_>>>()?;
    let runs: Vec<scaling::ScalingRun> = args
        .runs
        .iter()
        .zip(&results)
        .zip(params)
        .map(|((path, results), params)| scaling::ScalingRun {
            label: label(path),
            results,
            params,
            wall_seconds: wall_seconds(path),
        })
        .collect();
    let extrap = args
        .extrap
        .clone()
        .or_else(|| std::env::var_os("BLAME_EXTRAP").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("extrap"));
    let view = scaling::scaling(
        &runs,
        &scaling::ScalingOptions {
            filters,
            time: args.time,
            extrap,
            extrap_input: args.extrap_input.clone(),
        },
    )?;
    Ok(emit(
        &render::render_scaling(&view, args.format),
        &args.output,
    )?)
}
