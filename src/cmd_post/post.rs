//! `blame post`: a run (or a shard of it) resolved against the static db
//! into results, with the memory profiles beside them; the last shard to
//! finish merges them all.

use super::diagnostics::{print_damage, print_warnings};
use super::emptier::refuse_emptier;
use super::merge::merge_into;
use super::outputs::refuse_destroying_inputs;
use super::PostArgs;
use crate::post_config::PostConfig;
use crate::progress::Progress;
use anyhow::{bail, Context, Result};
use blame_formats::results::ResultsHeader;
use blame_formats::results_flat::FlatResults;
use blame_formats::run_dir::{self, shard_files};
use blame_formats::static_db::StaticDb;
use blame_post::{post_with_progress, Run, ShardSpec, StaticIndex};
use std::path::{Path, PathBuf};

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

/// Resolves `input` with the static db at `db` and records what produced the results.
pub(super) fn compute(
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

/// Writes each traced process's memory profile (`memory-PID.json`) into
/// `dir`, beside the results.
pub(super) fn write_memory_profiles(
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
