//! `blame post`, `blame merge`, `blame report` and `blame dump`: resolution
//! of recorded (or JSON-lines) samples against the static db, sharding
//! across a cluster, and the report views.
//!
//! This module holds the four commands' arguments (and the filters `diff`,
//! `scaling` and `export` share); each command, and what several of them
//! share, is a module of its own.

mod diagnostics;
mod dump;
mod emptier;
mod merge;
mod outputs;
mod post;
mod report;
mod results;

pub use dump::run_dump;
pub use merge::run_merge;
pub(crate) use outputs::{emit, refuse_destroying_inputs};
pub use post::run_post;
pub use report::run_report;
pub(crate) use results::{results_for_report, results_of};

use crate::post_config::InputArgs;
use anyhow::{Context, Result};
use blame_formats::results::Results;
use blame_formats::run_dir;
use blame_report::views::{self, Filters, OutputFormat};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct PostArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Process the I-th of N slices (0-based), e.g. 0/4, or `auto`: from the launcher's environment even outside a Slurm job step [default: from an srun job step (SLURM_STEP_ID, SLURM_PROCID, SLURM_STEP_NUM_TASKS), mpirun (OMPI_COMM_WORLD_RANK/SIZE) or PMI (PMI_RANK/SIZE) with more than one task].
    #[arg(long)]
    shard: Option<String>,
    /// Output file [default: RUN_DIR/results.bres, SAMPLES.bres, or PERF.bres for PERF.data].
    #[arg(short, long)]
    output: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct MergeArgs {
    /// Run directory (or the results path given to `blame post -o`) whose shard results to reduce.
    target: PathBuf,
    /// Sum the application's calling contexts over ranks (for the root of a
    /// hierarchical merge): the result's size and the merge's memory no longer
    /// grow with the ranks. Variables, functions and their rank statistics stay
    /// per rank; per-rank call paths (`--rank` drill-downs, HTML, Speedscope,
    /// Firefox, Cube4) are then read from the shard results it was merged from.
    #[arg(long)]
    sum_contexts: bool,
    /// Write the merged results here [default: the results the shards are of].
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Replace the results even with merged results that reach fewer
    /// variables (shards posted without their static db), which merge
    /// refuses otherwise.
    #[arg(short, long)]
    force: bool,
}

/// Functions hidden from every view (`report`, `export`): Score-P filters
/// and region classes ([`blame_report::regions`]).
#[derive(clap::Args, Clone, Default)]
pub struct HideArgs {
    /// Score-P filter file (SCOREP_REGION_NAMES_BEGIN/END, EXCLUDE/INCLUDE [MANGLED],
    /// wildcards; also SCOREP_FILE_NAMES_BEGIN/END): excluded functions are hidden,
    /// their samples folded into their callers.
    #[arg(long, value_name = "FILE")]
    pub filter: Option<PathBuf>,
    /// Only functions of these region classes (comma-separated: MPI, WRP, COM, USR);
    /// the others are hidden like filtered ones.
    #[arg(
        long = "class",
        value_name = "CLASSES",
        value_delimiter = ',',
        ignore_case = true
    )]
    pub classes: Vec<blame_report::regions::RegionClass>,
}

impl HideArgs {
    /// `results` with the hidden functions folded into their callers.
    pub fn apply(&self, results: Results) -> Result<Results> {
        let hide = blame_report::regions::Hide {
            filter: self
                .filter
                .as_deref()
                .map(blame_report::scorep_filter::Filter::read)
                .transpose()?,
            classes: (!self.classes.is_empty()).then(|| self.classes.iter().copied().collect()),
        };
        Ok(if hide.is_empty() {
            results
        } else {
            blame_report::regions::apply(&results, &hide)
        })
    }
}

/// Which variables a view shows, shared by `report`, `diff` and `scaling`.
#[derive(clap::Args, Clone)]
pub struct RowFilters {
    /// Order variables by explicit blame (data flow only) or total blame
    /// (with the implicit blame of loop and branch tests).
    #[arg(long, value_enum, default_value = "explicit")]
    rank_by: views::RankBy,
    /// Event to show [default: the first recorded event with samples (of the first run)].
    #[arg(short, long)]
    event: Option<String>,
    /// Only variables whose type matches REGEX.
    #[arg(long = "type", value_name = "REGEX")]
    type_re: Option<String>,
    /// Only variables defined in (or functions) matching REGEX.
    #[arg(long = "function", value_name = "REGEX")]
    function_re: Option<String>,
    /// Only the process with this MPI rank.
    #[arg(long)]
    rank: Option<u32>,
    /// At most N rows.
    #[arg(long)]
    top: Option<usize>,
    /// Also variables with internal names, left out by default: macro temporaries and
    /// reserved identifiers (a dotted part containing `__`, such as hypre__nx, xxx__i,
    /// __range1, or starting with `_` and an uppercase letter, such as _M_impl).
    #[arg(long)]
    all_variables: bool,
}

impl RowFilters {
    /// The views' filters, with the regular expressions compiled.
    pub(crate) fn filters(&self, min_percent: f64, method: Option<String>) -> Result<Filters> {
        Ok(Filters {
            rank_by: self.rank_by,
            type_re: compile_re(&self.type_re, "type")?,
            function_re: compile_re(&self.function_re, "function")?,
            rank: self.rank,
            top: self.top,
            min_percent,
            event: self.event.clone(),
            method,
            all_variables: self.all_variables,
        })
    }
}

#[derive(clap::Args)]
pub struct ReportArgs {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    hide: HideArgs,
    /// Flat data-centric view: variables by descending blame (the default).
    #[arg(long, group = "view")]
    by_variable: bool,
    /// Code-centric view: functions, inclusive and exclusive.
    #[arg(long, group = "view")]
    by_function: bool,
    /// Blame points: functions whose variables cannot be lifted further, plus explicit ones.
    #[arg(long, group = "view")]
    blame_points: bool,
    /// Drill down into a variable (`name` or `function::name`): its contexts and lines.
    #[arg(long, group = "view", value_name = "PATH")]
    variable: Option<String>,
    /// Memory blame: heap memory per variable of a run recorded with --track-allocations (allocations, bytes, live at the peak, own peak, leaked, mean lifetime).
    #[arg(long, group = "view")]
    memory: bool,
    /// With --memory: rank the variables by bytes live at the peak, allocation calls, bytes leaked or bytes allocated.
    #[arg(long, value_enum, requires = "memory", value_name = "COLUMN")]
    sort: Option<blame_report::memory::MemorySort>,
    /// Memory events: compare every attribution method with BASELINE (direct): values, rank order, Pearson correlation.
    #[arg(long, group = "view", value_name = "BASELINE")]
    compare: Option<String>,
    /// With --blame-points: also functions holding a variable over P percent.
    #[arg(long, value_name = "P")]
    blame_point_threshold: Option<f64>,
    #[arg(long, default_value = "text")]
    format: OutputFormat,
    #[command(flatten)]
    rows: RowFilters,
    /// Only rows with at least P percent of the run.
    #[arg(long, default_value_t = 0.0)]
    min_percent: f64,
    /// For memory events: the attribution method shown, raw, loop, skid, skid+loop, loop+access, skid+loop+access or all (columns side by side) [default: skid+loop+access with --skid, else loop+access].
    #[arg(long)]
    method: Option<String>,
    /// Directories to find source files in for drill-downs (repeatable) [default: current directory].
    #[arg(long = "source-root")]
    source_roots: Vec<PathBuf>,
    /// Output file [default: standard output].
    #[arg(short, long)]
    output: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct DumpArgs {
    /// A run directory, one node file (.bnode) or one sample stream (.bstream).
    #[arg(default_value = run_dir::DEFAULT_RUN_DIR)]
    input: PathBuf,
    #[arg(long = "binary-path")]
    binary_paths: Vec<PathBuf>,
    /// Output file [default: standard output].
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Refuse a damaged stream instead of dumping what is intact.
    #[arg(long)]
    strict: bool,
}

/// Compiles a `--type`/`--function` regular expression.
pub(crate) fn compile_re(re: &Option<String>, what: &str) -> Result<Option<regex::Regex>> {
    re.as_deref()
        .map(|r| {
            regex::Regex::new(r)
                .with_context(|| format!("--{what} {r:?} is not a valid regular expression"))
        })
        .transpose()
}

/// The run directories a command reads (for root on another user's run).
impl PostArgs {
    pub(crate) fn run_dirs(&self) -> Vec<&Path> {
        self.input.run_dir.as_deref().into_iter().collect()
    }
}

impl ReportArgs {
    pub(crate) fn run_dirs(&self) -> Vec<&Path> {
        self.input.run_dir.as_deref().into_iter().collect()
    }
}

impl DumpArgs {
    pub(crate) fn run_dirs(&self) -> Vec<&Path> {
        if self.input.is_dir() {
            vec![self.input.as_path()]
        } else {
            vec![blame_formats::files::parent_dir(&self.input)]
        }
    }
}

impl MergeArgs {
    pub(crate) fn run_dirs(&self) -> Vec<&Path> {
        if self.target.is_dir() {
            vec![self.target.as_path()]
        } else {
            vec![blame_formats::files::parent_dir(&self.target)]
        }
    }
}
