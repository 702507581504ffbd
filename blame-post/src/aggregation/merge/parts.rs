//! Partial results read into a merger: files or results in memory, read
//! ahead on the rayon pool while the calling thread reduces each in order,
//! record by record when large, or in groups reduced in parallel by a
//! summing merger.

use super::Merger;
use crate::error::{PostError, Result};
use blame_formats::results::Results;
use blame_formats::results_flat::{FlatResults, FlatStacks, FlatTables};
use std::collections::BTreeMap;

/// A partial result to merge: a file, or one already in memory (the
/// last shard's own, which it has just written: not read back).
pub enum Part {
    File(std::path::PathBuf),
    Loaded(Box<Results>),
    /// One in memory with its stacks flat (a post's own, [`crate::PostOutput`]).
    Flat(Box<FlatResults>),
}

impl Part {
    /// The part read flat, into the memory of `tables` when it is a file,
    /// with its name (a file's path).
    fn read(self, tables: FlatTables) -> Result<(FlatResults, Option<String>)> {
        match self {
            Part::File(path) => FlatResults::read_reusing(&path, tables)
                .map(|r| (r, Some(path.display().to_string())))
                .map_err(PostError::from),
            Part::Loaded(results) => Ok(((*results).into(), None)),
            Part::Flat(results) => Ok((*results, None)),
        }
    }

    /// Adds the part to `merger`: a file record by record as it is read
    /// ([`Merger::add_file`], through `scratch`, returned for the next).
    fn add_to(self, merger: &mut Merger, scratch: FlatStacks) -> Result<FlatStacks> {
        match self {
            Part::File(path) => merger.add_file(&path, scratch),
            Part::Loaded(results) => merger.add_flat((*results).into(), None).map(|_| scratch),
            Part::Flat(results) => merger.add_flat(*results, None).map(|_| scratch),
        }
    }

    /// About how many bytes of results the part holds: a file's size, an
    /// estimate for one in memory (0 when the file cannot be read: its
    /// read fails later, with the reason).
    fn weight(&self) -> u64 {
        match self {
            Part::File(path) => std::fs::metadata(path).map_or(0, |m| m.len()),
            Part::Loaded(r) => 16 * (4 * r.stacks.len() + r.contexts.len()) as u64,
            Part::Flat(r) => 16 * (4 * r.stacks.len() + r.contexts.len()) as u64,
        }
    }
}

/// Bytes of partial results a summing merge reduces in one task: parts are
/// split in two, at half their bytes, until a group is this small (or one
/// part), and the groups are reduced on their own, in parallel, then
/// combined in order. The split depends only on the parts, so a merge's
/// sums (their rounding) do not depend on the number of threads. Every
/// combination costs about one part of the distinct calling contexts;
/// 4 MiB is 256 one-rank partial results of the scale benchmark.
pub(super) const GROUP_BYTES: u64 = 4 << 20;

/// Bytes of a partial result from which a per-rank merge reduces its
/// parts record by record as they are read, one after the other, instead
/// of reading parts whole ahead of the one being reduced.
const STREAMED_BYTES: u64 = 4 << 20;

/// Reduces `parts` (with their weights) into a new summing merger, in
/// groups of at most `group_bytes` ([`GROUP_BYTES`]); `progress()` after
/// each part.
pub(super) fn reduce_summing(
    parts: Vec<(Part, u64)>,
    group_bytes: u64,
    progress: &(dyn Fn() + Sync),
) -> Result<Merger> {
    let total: u64 = parts.iter().map(|p| p.1).sum();
    if parts.len() <= 1 || total <= group_bytes {
        let mut merger = Merger::summing();
        let mut scratch = FlatStacks::default();
        for (part, _) in parts {
            scratch = part.add_to(&mut merger, scratch)?;
            progress();
        }
        return Ok(merger);
    }
    let mut below = 0;
    let half = parts
        .iter()
        .position(|p| {
            below += p.1;
            2 * below >= total
        })
        .map_or(1, |i| i + 1)
        .clamp(1, parts.len() - 1);
    let mut left = parts;
    let right = left.split_off(half);
    let (left, right) = rayon::join(
        || reduce_summing(left, group_bytes, progress),
        || reduce_summing(right, group_bytes, progress),
    );
    let mut left = left?;
    left.absorb(right?)?;
    Ok(left)
}

/// Reads the partial results `parts` into a [`Merger`], in their order.
/// `progress(done)` is called after each part is reduced.
pub fn read_parts(parts: Vec<Part>, progress: &(dyn Fn(usize) + Sync)) -> Result<Merger> {
    read_parts_into(Merger::default(), parts, progress)
}

/// [`read_parts`] into `merger` (e.g. [`Merger::summing`]).
///
/// A summing merger ([`Merger::summing`]) reduces groups of parts on
/// their own, in parallel ([`GROUP_BYTES`]): its tables are bounded by the
/// distinct calling contexts, so each group's are small, and a thread
/// reduces a part as soon as it has read it, while it is in its caches.
/// Otherwise (per-rank contexts, whose tables grow with every part), the
/// calling thread reduces the parts in order, each as soon as it is
/// read, while the rayon pool reads the parts after it: at most a window
/// of 4 + 2 × threads parts are read ahead, so memory holds the merged
/// records and that window, whatever the number of parts, and no core
/// waits for a whole batch (two large parts: the first is reduced while
/// the second is read). Called from a thread of the pool itself, which
/// must not wait for the pool, it reads each part in turn.
pub fn read_parts_into(
    mut merger: Merger,
    parts: Vec<Part>,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Merger> {
    if merger.summing.is_some() {
        let done = std::sync::atomic::AtomicUsize::new(merger.parts());
        let parts = parts.into_iter().map(|p| {
            let weight = p.weight();
            (p, weight)
        });
        let reduced = reduce_summing(parts.collect(), GROUP_BYTES, &|| {
            progress(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1)
        })?;
        merger.absorb(reduced)?;
        return Ok(merger);
    }
    if parts.iter().any(|p| p.weight() >= STREAMED_BYTES) {
        // Large parts (the shard results of a post of many ranks each, the
        // last shard's own among them) are reduced record by record as
        // they are read, in order: holding one whole costs more memory
        // than reading the next ahead saves time.
        let mut scratch = FlatStacks::default();
        for part in parts {
            scratch = part.add_to(&mut merger, scratch)?;
            progress(merger.parts());
        }
        return Ok(merger);
    }
    if rayon::current_thread_index().is_some() {
        let mut tables = FlatTables::default();
        for part in parts {
            let (part, name) = part.read(tables)?;
            tables = merger.add_flat(part, name.as_deref())?;
            progress(merger.parts());
        }
        return Ok(merger);
    }
    let total = parts.len();
    let (done, read) = std::sync::mpsc::channel();
    let mut unread = parts.into_iter().enumerate();
    // The tables of parts reduced, for the reads after them to reuse.
    let spare: std::sync::Arc<std::sync::Mutex<Vec<FlatTables>>> = Default::default();
    let mut read_one = || {
        if let Some((i, part)) = unread.next() {
            let done = done.clone();
            let spare = spare.clone();
            rayon::spawn(move || {
                let tables = spare.lock().map(|mut s| s.pop()).ok().flatten();
                // The reducer stops reading at an error: no one to tell.
                let _ = done.send((i, part.read(tables.unwrap_or_default())));
            });
        }
    };
    for _ in 0..4 + 2 * rayon::current_num_threads() {
        read_one();
    }
    let mut ready = BTreeMap::new();
    let mut next = 0;
    while next < total {
        let (i, part) = read.recv().expect("every part read is sent");
        ready.insert(i, part);
        while let Some(part) = ready.remove(&next) {
            read_one();
            let (part, name) = part?;
            let tables = merger.add_flat(part, name.as_deref())?;
            if let Ok(mut s) = spare.lock() {
                s.push(tables);
            }
            progress(merger.parts());
            next += 1;
        }
    }
    Ok(merger)
}
