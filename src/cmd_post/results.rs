//! Results for a report or an export: the stored ones when they were
//! computed from the same inputs, db and options, else computed afresh (and
//! stored when they answer the same request).

use super::diagnostics::print_damage;
use super::emptier::refuse_emptier;
use super::post::{compute, write_memory_profiles};
use crate::post_config::{absolute, InputArgs, PostConfig};
use anyhow::{bail, Context, Result};
use blame_formats::results::Results;
use blame_formats::run_dir;
use blame_post::ShardSpec;
use std::path::{Path, PathBuf};

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
pub(super) fn stored_or_computed(config: &PostConfig) -> Result<Results> {
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
