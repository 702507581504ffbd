//! `blame check FILE...`: validates blame files (a run directory: its
//! sample files and results) and summarizes them. For a
//! sample stream it says "complete" (its end marker was read) or "cut at
//! byte N", and what a damaged stream still yields; for a node file, the
//! same of the file and of each process's section.

use anyhow::{bail, Context, Result};
use blame_formats::{node_file, results::Results, static_db::StaticDb, stream};
use std::io::Read;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Files to check; a run directory stands for its sample files and
    /// results [default: blame.run].
    #[arg(default_value = blame_formats::run_dir::DEFAULT_RUN_DIR, hide_default_value = true)]
    files: Vec<PathBuf>,
}

/// `paths` with each run directory replaced by its sample files and its
/// results (whole and shards).
fn expand_run_dirs(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        // A file that is not there is missing, not damaged: said up front.
        if is_missing(path) {
            continue;
        }
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let listing = || format!("cannot list the run directory {}", path.display());
        let samples = blame_formats::run_dir::sample_files(path).with_context(listing)?;
        let results = blame_formats::run_dir::results_files(path).with_context(listing)?;
        if samples.is_empty() && results.is_empty() {
            bail!(
                "{} holds no sample files (*.bnode, *.bstream) and no results: not a run directory",
                path.display()
            );
        }
        files.extend(samples);
        files.extend(results);
    }
    Ok(files)
}

/// Not there, and not a static db whose units `blame cc` still analyzes
/// (which the check waits for).
fn is_missing(path: &std::path::Path) -> bool {
    std::fs::symlink_metadata(path).is_err()
        && !blame_formats::analysis_queue::dir_of(path).is_dir()
}

pub fn run(args: CheckArgs) -> Result<()> {
    let missing: Vec<&PathBuf> = args.files.iter().filter(|p| is_missing(p)).collect();
    for path in &missing {
        eprintln!("{}: no such file or directory", path.display());
    }
    let files = expand_run_dirs(&args.files)?;
    let mut failed = 0;
    for path in &files {
        match check_one(path) {
            Ok(summary) => println!("{}: {summary}", path.display()),
            Err(e) => {
                failed += 1;
                eprintln!("{}: {}", path.display(), crate::error_text(&e));
            }
        }
    }
    let total = files.len() + missing.len();
    match (missing.len(), failed) {
        (0, 0) => {}
        (m, 0) => bail!(
            "{m} of {total} {} missing",
            if total == 1 { "file is" } else { "files are" }
        ),
        (0, f) => bail!("{f} of {total} files are damaged or cut short"),
        (m, f) => bail!("{m} of {total} files are missing, {f} damaged or cut short"),
    }
    Ok(())
}

fn check_one(path: &PathBuf) -> Result<String> {
    // A static db whose units `blame cc` still analyzes: wait for them.
    crate::cmd_cc::wait_for_analysis(path, "blame check");
    let mut magic = [0u8; 8];
    blame_formats::files::open_regular(path)
        .with_context(|| format!("cannot open {}", path.display()))?
        .read_exact(&mut magic)
        .with_context(|| format!("{} is too short to be a blame file", path.display()))?;
    match &magic {
        m if m == &stream::STREAM.magic => {
            let (s, rec) = stream::salvage_stream(path)?;
            let h = s.header();
            let text = format!(
                "sample stream of pid {} rank {} ({}), {} samples, {} stacks, {} mappings, {} records; {}",
                h.pid,
                h.rank.map(|r| r.to_string()).unwrap_or_else(|| "-".into()),
                h.command.join(" "),
                s.samples.len(),
                s.stacks.len().saturating_sub(1),
                s.mappings.len(),
                rec.records_recovered,
                rec.describe()
            );
            // Whole, or an old stream that never had an end marker: fine.
            // Cut short or damaged: say so, and fail.
            if rec.is_whole()
                || (!rec.end_marker_expected
                    && rec.skipped.is_empty()
                    && rec.torn_at.is_none()
                    && rec.stopped_by.is_none())
            {
                Ok(text)
            } else {
                bail!("{text}; `blame post` keeps what is intact")
            }
        }
        m if m == &node_file::NODE.magic => {
            let index = node_file::NodeIndex::open(path)?;
            let mut whole = index.complete && index.damage.is_empty();
            let mut samples = 0;
            let mut lines = Vec::new();
            for (i, s) in index.sections.iter().enumerate() {
                let (Some(header), Ok(reader)) = (&s.header, index.section_reader(i)) else {
                    whole = false;
                    lines.push(format!(
                        "  section {}: its open chunk is damaged; its {} chunks cannot be read",
                        s.section,
                        s.chunks.len()
                    ));
                    continue;
                };
                let (stream, rec) = stream::salvage_from(reader, header.clone())?;
                whole &= rec.is_whole();
                samples += stream.samples.len();
                lines.push(format!(
                    "  section {} {} (pid {}, {}): {} samples, {} stacks, {} mappings, {} bytes; {}",
                    s.section,
                    s.label(),
                    header.pid,
                    header.command.join(" "),
                    stream.samples.len(),
                    stream.stacks.len().saturating_sub(1),
                    stream.mappings.len(),
                    s.bytes(),
                    rec.describe()
                ));
            }
            let text = format!(
                "node file of {} (recorder pid {}), {} process sections, {samples} samples, {} bytes; {}\n{}",
                index.header.host,
                index.header.recorder_pid,
                index.sections.len(),
                index.bytes,
                index.describe(),
                lines.join("\n")
            );
            if whole {
                Ok(text)
            } else {
                bail!("{text}\n`blame post` keeps what is intact")
            }
        }
        m if m == &blame_formats::static_db::STATIC_DB.magic => {
            let (db, h) = StaticDb::read(path)?;
            Ok(format!(
                "static db from {} (LLVM {}), {} functions",
                h.producer,
                h.llvm_version,
                db.len()
            ))
        }
        m if m == &blame_formats::results::RESULTS.magic => {
            let r = Results::read(path)?;
            Ok(format!(
                "results of {} processes, {} variables, {} functions, {} stacks, {} contexts",
                r.header.processes.len(),
                r.variables.len(),
                r.functions.len(),
                r.stacks.len(),
                r.contexts.len()
            ))
        }
        m if m.starts_with(b"{") && blame_formats::run_dir::is_memory_profile_path(path) => {
            let p = blame_formats::memory_profile::MemoryProfile::read(path)?;
            Ok(format!(
                "memory profile of pid {}: {} allocations, {} variables",
                p.pid,
                p.totals.allocs,
                p.variables.len()
            ))
        }
        _ => bail!("not a blame file (magic {magic:?})"),
    }
}
