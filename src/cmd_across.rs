//! `blame diff`: blame across runs.

use crate::cmd_post::{compile_re, results_of};
use anyhow::{Context, Result};
use blame_gui_export::across::diff;
use blame_gui_export::render;
use blame_gui_export::views::{Filters, OutputFormat, RankBy};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Row filters shared by `diff` and `scaling`.
#[derive(clap::Args)]
pub struct AcrossFilters {
    /// Order variables by the change of explicit blame (data flow only) or total blame.
    #[arg(long, value_enum, default_value = "explicit")]
    rank_by: RankBy,
    /// Event to compare [default: the first recorded event with samples in the first run].
    #[arg(short, long)]
    event: Option<String>,
    /// Only variables whose type matches REGEX.
    #[arg(long = "type", value_name = "REGEX")]
    type_re: Option<String>,
    /// Only variables defined in functions matching REGEX.
    #[arg(long = "function", value_name = "REGEX")]
    function_re: Option<String>,
    /// Only the processes with this MPI rank.
    #[arg(long)]
    rank: Option<u32>,
    /// At most N variables.
    #[arg(long)]
    top: Option<usize>,
    /// Also variables with internal names (macro temporaries, reserved identifiers).
    #[arg(long)]
    all_variables: bool,
    /// Static db used to post runs without stored results [default: $BLAME_DB, else .blame/static.db].
    #[arg(long = "static")]
    static_db: Option<PathBuf>,
    /// Directory to look for the recorded binaries and libraries in first (repeatable).
    #[arg(long = "binary-path")]
    binary_paths: Vec<PathBuf>,
}

impl AcrossFilters {
    fn filters(&self, min_percent: f64) -> Result<Filters> {
        Ok(Filters {
            rank_by: self.rank_by,
            type_re: compile_re(&self.type_re, "type")?,
            function_re: compile_re(&self.function_re, "function")?,
            rank: self.rank,
            top: self.top,
            min_percent,
            event: self.event.clone(),
            method: None,
            all_variables: self.all_variables,
        })
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
    format: String,
    /// Output file [default: standard output].
    #[arg(short, long)]
    output: Option<PathBuf>,
}

fn label(path: &Path) -> String {
    path.display().to_string()
}

fn emit(text: &str, output: &Option<PathBuf>) -> Result<()> {
    match output {
        Some(p) => {
            std::fs::write(p, text).with_context(|| format!("cannot write {}", p.display()))?;
            eprintln!("blame: wrote {} ({} bytes)", p.display(), text.len());
            Ok(())
        }
        None => Ok(std::io::stdout().write_all(text.as_bytes())?),
    }
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
    let text = match args.format.as_str() {
        "html" => blame_gui_export::html::diff_html(&view),
        other => {
            let format: OutputFormat = other
                .parse()
                .map_err(|e: String| anyhow::anyhow!("{e} (or html)"))?;
            render::render_diff(&view, format)
        }
    };
    emit(&text, &args.output)
}
