//! `blame merge`: the shard results of a run reduced into one, also what
//! the last shard of a post does.

use super::emptier::refuse_emptier;
use super::MergeArgs;
use crate::progress::Progress;
use anyhow::{bail, Result};
use blame_formats::results_flat::FlatResults;
use blame_formats::run_dir::{self, shard_files, ShardFile};
use blame_post::aggregation::merge::Part;
use std::path::Path;

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
pub(super) fn merge_into(
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
