//! `blame post`, `blame merge`, `blame report` and `blame dump`: resolution
//! of recorded (or JSON-lines) samples against the static db, sharding
//! across a cluster, and the report views.

use crate::post_config::{absolute, InputArgs, PostConfig};
use crate::progress::Progress;
use anyhow::{bail, Context, Result};
use blame_formats::jsonl::write_sample;
use blame_formats::results::{Results, ResultsHeader};
use blame_formats::results_flat::FlatResults;
use blame_formats::run_dir::{self, shard_files, ShardFile};
use blame_formats::static_db::StaticDb;
use blame_post::aggregation::merge::Part;
use blame_post::input::dump::{each_sample, DumpError, DumpOptions};
use blame_post::{post_with_progress, Run, ShardSpec, StaticIndex};
use blame_report::render;
use blame_report::source::SourceCache;
use blame_report::views::{self, Filters, OutputFormat};
use std::io::Write;
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

fn load_static(db: Option<PathBuf>) -> Result<(StaticIndex, Option<PathBuf>)> {
    match db {
        Some(path) => {
            crate::cmd_cc::wait_for_analysis(&path, "blame post");
            let (db, _) = StaticDb::read(&path)
                .with_context(|| format!("cannot read the static db {}", path.display()))?;
            Ok((StaticIndex::new(db), Some(path)))
        }
        None => Ok((StaticIndex::empty(), None)),
    }
}

/// Each warning once (every process of a run may warn the same).
fn print_warnings(warnings: &[blame_post::Warning]) {
    let mut seen = std::collections::BTreeSet::new();
    for w in warnings {
        let text = w.to_string();
        if !seen.contains(&text) {
            eprintln!("blame: warning: {text}");
            seen.insert(text);
        }
    }
}

/// Says loudly what a salvaging post left out of a damaged recording.
fn print_damage(damage: &[String], fresh: bool) {
    if damage.is_empty() {
        return;
    }
    let mut seen = std::collections::BTreeSet::new();
    for d in damage {
        if seen.insert(d) {
            eprintln!("blame: SKIPPED: {d}");
        }
    }
    eprintln!(
        "blame: the recording is damaged: {} {} left out (listed above); the results cover everything else{}",
        seen.len(),
        if seen.len() == 1 { "part was" } else { "parts were" },
        if fresh {
            ". `--strict` refuses damaged recordings instead"
        } else {
            ""
        }
    );
}

/// Resolves `input` with the static db at `db` and records what produced the results.
fn compute(
    config: &PostConfig,
    db: Option<PathBuf>,
    shard: ShardSpec,
) -> Result<blame_post::PostOutput> {
    let provenance = config.provenance(db.as_deref())?;
    let run = config.open_run()?;
    let missing = db.is_none().then(|| no_db_reason(config));
    if let Some(why) = &missing {
        eprintln!("blame: warning: {why}; variables need it, so only code views will have data");
    }
    let (index, _) = load_static(db)?;
    let mut out = post_run(&run, &index, shard, config.memory)?;
    if let Some(why) = &missing {
        explain_coverage(&mut out.results.header, why);
    }
    out.results.header.provenance = Some(provenance);
    print_warnings(&out.warnings);
    print_damage(&out.damage, true);
    Ok(out)
}

/// A temporary file of results unchanged this long is a killed post's.
const STALE_TEMPORARY_AGE: std::time::Duration = std::time::Duration::from_secs(600);

/// Why no static db resolves this post: the run's db is missing (the one
/// its manifest records), or none was found anywhere.
fn no_db_reason(config: &PostConfig) -> String {
    match config.run_dir().and_then(blame_formats::manifest::recorded_db_missing) {
        Some(db) => format!(
            "no static db: {}, the db this run's program was built with, is missing (moved or removed since the recording; name it with --static DB)",
            db.display()
        ),
        None => "no static db: none named (--static, $BLAME_DB), none recorded in the run's manifest, no .blame/static.db here (build with `blame cc`, or run `blame analyze`)".to_string(),
    }
}

/// Coverage reasons of a post without a static db: every "no static summary
/// for F (not built with blame cc)" is the missing db, said once.
fn explain_coverage(header: &mut ResultsHeader, why: &str) {
    for c in &mut header.coverage {
        let mut reasons: Vec<(String, f64)> = Vec::new();
        for (reason, n) in c.reasons.drain(..) {
            let reason = if reason.starts_with("no static summary for ") {
                why.to_string()
            } else {
                reason
            };
            match reasons.iter_mut().find(|(r, _)| *r == reason) {
                Some(slot) => slot.1 += n,
                None => reasons.push((reason, n)),
            }
        }
        reasons.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        c.reasons = reasons;
    }
}

/// Samples that reached a named variable.
fn covered(header: &ResultsHeader) -> f64 {
    header.coverage.iter().map(|c| c.resolved).sum()
}

/// Why `new` must not replace the results at `path` (unless `--force`):
/// the stored ones, of the same samples, reach more, and the db they were
/// computed with is gone (none found now, or another one found instead).
/// A db the user names (`--static`, `$BLAME_DB`), or the same db rebuilt,
/// gives results that replace the stored ones whatever they reach.
fn refuse_emptier(path: &Path, new: &FlatResults, why: Option<&str>) -> Option<String> {
    let old = Results::read(path).ok()?;
    let (old_prov, new_prov) = (&old.header.provenance, &new.header.provenance);
    let same_inputs = match (old_prov, new_prov) {
        (Some(a), Some(b)) => a.inputs == b.inputs,
        _ => true,
    };
    let db_of = |p: &Option<blame_formats::results::Provenance>| {
        p.as_ref()
            .and_then(|p| p.static_db.as_ref())
            .map(|d| d.path.clone())
    };
    let (old_db, new_db) = (db_of(old_prov), db_of(new_prov));
    let db_lost = match (&old_db, &new_db) {
        (_, None) => true,
        (Some(o), Some(n)) => o != n && !Path::new(o).exists(),
        (None, Some(_)) => false,
    };
    let (was, now) = (covered(&old.header), covered(&new.header));
    let emptier =
        (new.variables.is_empty() && !old.variables.is_empty()) || (now < 0.99 * was && was > 0.0);
    (same_inputs && emptier && db_lost).then(|| {
        format!(
            "not replacing {} ({} variables; {} samples reached one) with emptier results ({} variables; {} samples){}; --force replaces it",
            path.display(),
            old.variables.len(),
            was,
            new.variables.len(),
            now,
            why.map(|w| format!(": {w}")).unwrap_or_default()
        )
    })
}

/// Writes each traced process's memory profile (`memory-PID.json`) into
/// `dir`, beside the results.
fn write_memory_profiles(
    dir: &Path,
    profiles: &[blame_formats::memory_profile::MemoryProfile],
) -> Result<()> {
    for p in profiles {
        p.write(&run_dir::memory_profile_path(dir, p.pid))?;
    }
    if !profiles.is_empty() {
        eprintln!(
            "blame: wrote the memory profiles of {} processes ({})",
            profiles.len(),
            run_dir::memory_profile_path(dir, profiles[0].pid).display()
        );
    }
    Ok(())
}

pub fn run_post(mut args: PostArgs) -> Result<()> {
    args.input = args.input.or_default_run()?;
    let from_env = |anywhere: bool| match ShardSpec::from_env(|k| std::env::var(k).ok(), anywhere) {
        Some(s) => s,
        None => Ok(ShardSpec::WHOLE),
    };
    let shard = match args.shard.as_deref() {
        Some("auto") => from_env(true)?,
        Some(s) => ShardSpec::parse(s)?,
        None => from_env(false)?,
    };
    let config = PostConfig::resolve(&args.input)?;
    let whole = args
        .output
        .clone()
        .unwrap_or_else(|| config.default_output());
    refuse_destroying_inputs(&whole, &config, false)?;
    // Those of a post killed before it could remove them (kill -9).
    blame_formats::files::remove_stale_temporaries(&whole, STALE_TEMPORARY_AGE);
    let out = compute(&config, config.static_db(), shard)?;
    write_memory_profiles(whole.parent().unwrap_or(Path::new(".")), &out.memory)?;
    let results = out.results;
    let t = out.times;
    eprintln!(
        "blame: resolved {} samples in {} calling contexts (read {:.2}s, symbolize {:.2}s, resolve {:.2}s, reduce {:.2}s)",
        out.samples,
        out.contexts,
        t.read.as_secs_f64(),
        t.symbolize.as_secs_f64(),
        t.resolve.as_secs_f64(),
        t.reduce.as_secs_f64()
    );
    if shard.is_whole() {
        if !args.input.force && config.requested_db.is_none() {
            let why = config.static_db().is_none().then(|| no_db_reason(&config));
            if let Some(refusal) = refuse_emptier(&whole, &results, why.as_deref()) {
                bail!(refusal);
            }
        }
        results.write(&whole)?;
        eprintln!(
            "blame: wrote {} ({} variables, {} processes)",
            whole.display(),
            results.variables.len(),
            results.processes.len()
        );
        return Ok(());
    }
    let part = run_dir::shard_path(&whole, shard.index, shard.count);
    results.write(&part)?;
    eprintln!(
        "blame: shard {}/{} wrote {}",
        shard.index,
        shard.count,
        part.display()
    );
    // The last shard to finish reduces them all.
    if run_dir::missing_shards(&shard_files(&whole)?, shard.count).is_empty() {
        let why = config.static_db().is_none().then(|| no_db_reason(&config));
        let guard = !args.input.force && config.requested_db.is_none();
        let refuse = |merged: &FlatResults| {
            guard
                .then(|| refuse_emptier(&whole, merged, why.as_deref()))
                .flatten()
        };
        merge_into(
            &whole,
            &whole,
            shard.count,
            Some((shard.index, results)),
            false,
            &refuse,
        )?;
    }
    Ok(())
}

/// `post` with a progress bar over the run's processes on a terminal.
fn post_run(
    run: &Run,
    index: &StaticIndex,
    shard: ShardSpec,
    memory: blame_post::MemoryOptions,
) -> Result<blame_post::PostOutput> {
    let progress = Progress::bar("post", run.processes.len() as u64, "processes");
    let out = post_with_progress(run, index, shard, memory, &|done, _| {
        progress.set(done as u64)
    });
    progress.finish();
    Ok(out?)
}

/// The first `most` of `items` joined by commas, and how many more.
fn brief_list(items: &[String], most: usize) -> String {
    let shown = items[..items.len().min(most)].join(", ");
    match items.len().saturating_sub(most) {
        0 => shown,
        more => format!("{shown} and {more} more runs of shards"),
    }
}

/// Merges the `count` shard results beside `whole` into it; `own` is the
/// calling shard's (index, results), used from memory instead of read back.
/// `refuse` says why the merged results must not replace `dest`, if so.
fn merge_into(
    whole: &Path,
    dest: &Path,
    count: u32,
    own: Option<(u32, FlatResults)>,
    sum_contexts: bool,
    refuse: &dyn Fn(&FlatResults) -> Option<String>,
) -> Result<FlatResults> {
    let parts: Vec<ShardFile> = shard_files(whole)?
        .into_iter()
        .filter(|s| s.count == count)
        .collect();
    let missing = run_dir::missing_shards(&parts, count);
    if !missing.is_empty() {
        bail!(
            "cannot merge {}: shards {} have not written their results yet",
            whole.display(),
            brief_list(&missing, 12)
        );
    }
    let progress = Progress::bar("merge: reading and reducing", parts.len() as u64, "shards");
    let mut own = own;
    let parts: Vec<Part> = parts
        .into_iter()
        .map(|s| match own.take_if(|(j, _)| *j == s.index) {
            Some((_, results)) => Part::Flat(Box::new(results)),
            None => Part::File(s.path),
        })
        .collect();
    let merger = if sum_contexts {
        blame_post::aggregation::merge::Merger::summing()
    } else {
        blame_post::aggregation::merge::Merger::default()
    };
    let merger = blame_post::aggregation::merge::read_parts_into(merger, parts, &|done| {
        progress.set(done as u64)
    });
    progress.finish();
    let progress = Progress::spinner("merge: sorting and writing");
    let merged = merger
        .and_then(|m| m.finish_flat())
        .map_err(anyhow::Error::from)
        .and_then(|m| match refuse(&m) {
            Some(refusal) => Err(anyhow::anyhow!(refusal)),
            None => m.write(dest).map(|_| m).map_err(Into::into),
        });
    progress.finish();
    let merged = merged?;
    eprintln!("blame: merged {count} shards into {}", dest.display());
    Ok(merged)
}

pub fn run_merge(args: MergeArgs) -> Result<()> {
    let whole = if args.target.is_dir() {
        args.target.join(run_dir::RESULTS_FILE)
    } else {
        args.target.clone()
    };
    let counts: std::collections::BTreeSet<u32> =
        shard_files(&whole)?.into_iter().map(|s| s.count).collect();
    match counts.len() {
        0 => bail!(
            "no shard results next to {}; run `blame post --shard I/N` first",
            whole.display()
        ),
        // The merged result is written, and the process ends next: its
        // memory goes back to the system at once, not record by record.
        1 => merge_into(
            &whole,
            args.output.as_deref().unwrap_or(&whole),
            *counts.first().expect("one count"),
            None,
            args.sum_contexts,
            &|merged| {
                (!args.force)
                    .then(|| refuse_emptier(args.output.as_deref().unwrap_or(&whole), merged, None))
                    .flatten()
            },
        )
        .map(std::mem::forget),
        _ => bail!(
            "shard results of several shard counts ({}) are next to {}; remove the stale ones",
            counts
                .iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            whole.display()
        ),
    }
}

/// Results for a report or an export. A run dir's stored results are used
/// when they were computed from the same streams, the same static db
/// contents and (for options given here) the same options; else the
/// results are computed afresh. Fresh results replace the stored ones only
/// when they answer the same request (same options and db, inputs changed)
/// or nothing usable is stored: one-off options (`--static other.db`,
/// `--memory-event`...) give a temporary result and leave the cache alone.
pub(crate) fn results_for_report(input: &InputArgs) -> Result<Results> {
    stored_or_computed(&PostConfig::resolve(input)?)
}

/// [`results_for_report`] of a resolved config.
fn stored_or_computed(config: &PostConfig) -> Result<Results> {
    let Some(dir) = config.run_dir() else {
        return Ok(compute(config, config.static_db(), ShardSpec::WHOLE)?
            .results
            .try_into()?);
    };
    let stored_path = dir.join(run_dir::RESULTS_FILE);
    let stored = match stored_path.exists().then(|| Results::read(&stored_path)) {
        Some(Ok(r)) => Some(r),
        Some(Err(e)) => {
            eprintln!("blame: note: cannot use the stored results ({e}); computing them again");
            None
        }
        None => None,
    };
    let has_streams = !config.input_files()?.is_empty();
    let stored_prov = stored.as_ref().and_then(|r| r.header.provenance.clone());
    // The db meant: the one asked for, else the one the stored results were
    // computed with (if it is still there), else the run's default.
    let db = config
        .requested_db
        .clone()
        .or_else(|| {
            stored_prov
                .as_ref()
                .and_then(|p| p.static_db.as_ref())
                .map(|d| PathBuf::from(&d.path))
                .filter(|p| p.exists())
        })
        .or_else(|| config.static_db());
    let mut stale = Vec::new();
    if let Some(results) = stored {
        match &stored_prov {
            None if !has_streams => {
                eprintln!("blame: note: {} comes from an older blame that did not record what produced it, and the run has no sample streams to check it against; using it as it is", stored_path.display());
                return Ok(results);
            }
            None => stale.push(
                "it comes from an older blame that did not record what produced it".to_string(),
            ),
            Some(p) => {
                let mut wanted = config.provenance(db.as_deref())?;
                if !config.options_given {
                    // Options not given here: those the results were computed with.
                    wanted.options = p.options.clone();
                }
                if p.matches(&wanted) {
                    print_damage(&results.header.damage, false);
                    report_lost(&results);
                    return Ok(results);
                }
                stale = p.differences(&wanted);
            }
        }
    }
    // Fresh results replace the stored ones only for the same request.
    let same_request = match &stored_prov {
        None => true,
        Some(p) => {
            let db_path = db.as_deref().map(|d| absolute(d).display().to_string());
            (!config.options_given || p.options == config.result_options())
                && p.static_db.as_ref().map(|d| d.path.clone()) == db_path
        }
    };
    if !stale.is_empty() {
        eprintln!(
            "blame: note: {} does not match this report ({}); computing the results again",
            stored_path.display(),
            stale.join("; ")
        );
    }
    if !stored_path.exists() {
        eprintln!(
            "blame: note: {} has no results yet; posting it first, as `blame post` does",
            dir.display()
        );
    }
    let out = compute(config, db, ShardSpec::WHOLE)?;
    if let Err(e) = write_memory_profiles(dir, &out.memory) {
        eprintln!(
            "blame: note: could not store memory profiles in {}: {e}",
            dir.display()
        );
    }
    let results = out.results;
    let emptier = config
        .requested_db
        .is_none()
        .then(|| refuse_emptier(&stored_path, &results, None))
        .flatten();
    if let Some(refusal) = &emptier {
        eprintln!("blame: note: {refusal}; these results are for this report only");
    }
    if same_request && emptier.is_none() {
        if let Err(e) = results.write(&stored_path) {
            eprintln!(
                "blame: note: could not store results in {}: {e}",
                dir.display()
            );
        }
    } else {
        eprintln!(
            "blame: note: these results are for this report only; {} keeps the results of `blame post` (run `blame post` with these options to replace them)",
            stored_path.display()
        );
    }
    Ok(results.try_into()?)
}

/// Says how many samples the recording lost, from stored results.
fn report_lost(results: &Results) {
    let lost: u64 = results.header.processes.iter().map(|p| p.lost).sum();
    if lost > 0 {
        eprintln!(
            "blame: warning: {lost} samples were lost while recording (ring-buffer overruns); blame is computed from the samples kept, so hot code may be under-represented"
        );
    }
}

pub fn run_report(mut args: ReportArgs) -> Result<()> {
    args.input = args.input.or_default_run()?;
    if args.memory {
        let config = PostConfig::resolve(&args.input)?;
        let results = stored_or_computed(&config)?;
        let Some(dir) = config.run_dir() else {
            bail!("--memory reads the memory profiles of a run directory recorded with --track-allocations");
        };
        let profiles = blame_report::memory::load_profiles(dir, &results)?;
        let view = blame_report::memory::view(&profiles, args.sort.unwrap_or_default());
        let text = blame_report::memory::render_memory(&view, args.format);
        return emit(&text, &args.output);
    }
    let filters = args.rows.filters(args.min_percent, args.method.clone())?;
    let results = args.hide.apply(results_for_report(&args.input)?)?;
    // The names each data structure is also reached as, from the static db
    // the results were posted with (when it is still the same file).
    let names = if args.variable.is_some() || matches!(args.format, OutputFormat::Json) {
        other_names_of(&results)
    } else {
        views::OtherNames::new()
    };
    let text = if let Some(baseline) = &args.compare {
        render::render_compare(&views::compare(&results, &filters, baseline)?, args.format)
    } else if args.by_function {
        render::render_functions(&views::by_function(&results, &filters)?, args.format)
    } else if args.blame_points {
        render::render_blame_points(
            &views::blame_points(&results, &filters, args.blame_point_threshold)?,
            args.format,
        )
    } else if let Some(path) = &args.variable {
        let mut roots = args.source_roots.clone();
        roots.push(PathBuf::from("."));
        if let Some(d) = &args.input.run_dir {
            roots.push(d.clone());
        }
        let mut view = views::drilldown(&results, &filters, path, &mut SourceCache::new(roots))?;
        views::name_other_names(view.variables.iter_mut().map(|d| &mut d.variable), &names);
        render::render_drilldown(&view, args.format)
    } else {
        let mut view = views::by_variable(&results, &filters)?;
        views::name_other_names(&mut view.variables, &names);
        render::render_variables(&view, args.format)
    };
    emit(&text, &args.output)
}

/// [`blame_post::attribution::other_names`] of the static db `results` were posted
/// with; none when that db is gone or changed since (a report never needs
/// it: the names are a reader's help, the numbers are in the results).
fn other_names_of(results: &Results) -> views::OtherNames {
    let Some(id) = results
        .header
        .provenance
        .as_ref()
        .and_then(|p| p.static_db.as_ref())
    else {
        return views::OtherNames::new();
    };
    let path = Path::new(&id.path);
    let same = blame_formats::results::FileId::of(path)
        .is_ok_and(|now| now.bytes == id.bytes && now.hash == id.hash);
    match same.then(|| StaticDb::read(path)) {
        Some(Ok((db, _))) => {
            blame_post::attribution::other_names::other_names(&StaticIndex::new(db))
        }
        _ => views::OtherNames::new(),
    }
}

pub fn run_dump(args: DumpArgs) -> Result<()> {
    // A file appears only once complete (see blame_formats::files); the
    // input is checked first, so a missing run leaves no output behind.
    if !args.input.exists() {
        bail!("{}: no such file or directory", args.input.display());
    }
    let mut file = match &args.output {
        Some(p) => Some(
            blame_formats::files::AtomicFile::create(p)
                .with_context(|| format!("cannot create {}", p.display()))?,
        ),
        None => None,
    };
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let mut out: &mut dyn Write = match &mut file {
        Some(f) => f,
        None => &mut stdout,
    };
    let options = DumpOptions {
        binary_paths: args.binary_paths.clone(),
        strict: args.strict,
    };
    let dumped =
        each_sample(&args.input, &options, |s| write_sample(&mut out, s)).map_err(|e| match e {
            // The write's own error, so that main tells a closed pipe
            // (`blame dump run | head`) from a failure.
            DumpError::Write(io) => anyhow::Error::from(io),
            other => other.into(),
        })?;
    print_warnings(&dumped.warnings);
    print_damage(&dumped.damage, true);
    out.flush()?;
    if let (Some(f), Some(p)) = (file, &args.output) {
        f.commit()
            .with_context(|| format!("cannot write {}", p.display()))?;
    }
    Ok(())
}

/// Results of one run directory (stored when up to date, else posted with
/// `static_db`), or of a results file (`.bres`) as it is.
pub(crate) fn results_of(
    path: &Path,
    static_db: Option<PathBuf>,
    binary_paths: &[PathBuf],
) -> Result<Results> {
    if path.is_file() {
        return Results::read(path)
            .with_context(|| format!("cannot read the results {}", path.display()));
    }
    if !path.is_dir() {
        bail!(
            "{} is neither a run directory nor a results file",
            path.display()
        );
    }
    stored_or_computed(&PostConfig::of_run_dir(
        path,
        static_db.as_deref(),
        binary_paths,
    )?)
    .with_context(|| format!("run {}", path.display()))
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

/// Refuses an output that is one of the command's inputs: a file of the
/// run (its results too, when `results_are_inputs`: export reads them), the
/// static db, the samples or perf.data files.
pub(crate) fn refuse_destroying_inputs(
    output: &Path,
    config: &PostConfig,
    results_are_inputs: bool,
) -> Result<()> {
    let mut inputs: Vec<PathBuf> = Vec::new();
    match &config.input {
        crate::post_config::Input::RunDir(dir) => {
            let results = run_dir::results_files(dir).unwrap_or_default();
            if let Ok(entries) = std::fs::read_dir(dir) {
                inputs.extend(
                    entries
                        .filter_map(|e| e.ok().map(|e| e.path()))
                        .filter(|p| results_are_inputs || !results.contains(p)),
                );
            }
        }
        crate::post_config::Input::Samples(s) => inputs.push(s.clone()),
        crate::post_config::Input::PerfData(files) => inputs.extend(files.iter().cloned()),
    }
    inputs.extend(config.static_db());
    blame_formats::files::refuse_overwriting_inputs(output, &inputs)?;
    Ok(())
}

/// `text` to the file `output` (atomically, said on stderr), else to stdout.
pub(crate) fn emit(text: &str, output: &Option<PathBuf>) -> Result<()> {
    match output {
        Some(p) => {
            blame_formats::files::write_atomic(p, text.as_bytes())
                .with_context(|| format!("cannot write {}", p.display()))?;
            eprintln!("blame: wrote {} ({} bytes)", p.display(), text.len());
            Ok(())
        }
        None => Ok(std::io::stdout().write_all(text.as_bytes())?),
    }
}
