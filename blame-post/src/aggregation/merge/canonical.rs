//! Records made canonical: frames ranked, call paths sorted once, stacks
//! deduplicated by (process, path) and contexts sorted and summed, so that
//! any grouping of partial results gives the same bytes.

use blame_formats::results::{ContextBlame, SymFrame, VariableBlame, VariableKey};
use blame_formats::results_flat::FlatStacks;
use rayon::prelude::*;
// FxHash: fast and non-cryptographic, for interning keys of our own
// results (no untrusted keys are hashed, so flooding is no concern).
use rustc_hash::{FxHashMap, FxHashSet};
use std::hash::{Hash, Hasher};

/// Ranks of the distinct values among `items` in their `Ord` order, as a
/// map from value to rank, and the distinct values in rank order. Comparing
/// ranks then orders like comparing the values, and sequences of ranks
/// compare like the sequences of values (lexicographic order is preserved
/// by an order-preserving renaming of the elements).
fn rank_distinct<K, I>(items: I) -> (FxHashMap<K, u32>, Vec<K>)
where
    K: Ord + Hash + Copy + Send + Sync,
    I: ParallelIterator<Item = K>,
{
    let distinct = items
        .fold(FxHashSet::default, |mut set, item| {
            set.insert(item);
            set
        })
        .reduce(FxHashSet::default, |a, b| {
            let (mut big, small) = if a.len() >= b.len() { (a, b) } else { (b, a) };
            big.extend(small);
            big
        });
    let mut sorted: Vec<K> = distinct.into_iter().collect();
    sorted.par_sort_unstable();
    let ranks = sorted
        .iter()
        .enumerate()
        .map(|(i, &x)| (x, i as u32))
        .collect();
    (ranks, sorted)
}

/// A frame compared by value but hashed by its cheap parts: line, column,
/// the names' lengths and the function's last bytes (where mangled names
/// differ). Equal frames hash equally; collisions are settled by `Eq`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct FrameKey<'a>(&'a SymFrame);

impl Hash for FrameKey<'_> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        let f = self.0;
        let name = f.function.as_bytes();
        h.write_u64((f.line as u64) << 32 | f.column as u64);
        h.write_u64((name.len() as u64) << 32 | f.file.len() as u64 | (f.inlined as u64) << 63);
        h.write(&name[name.len().saturating_sub(16)..]);
    }
}

/// One (variable, context) record before it is made canonical: the variable
/// as an index into a key table, the stack as an index into its part's stacks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawContext {
    pub variable: u32,
    pub process: u32,
    pub stack: u32,
    /// Its position among the contexts [`canonical`] is given (set there;
    /// it breaks ties of the sort, so sums are taken in that order).
    pub position: u32,
    pub samples: f64,
}

impl RawContext {
    pub(crate) fn new(variable: u32, process: u32, stack: u32, samples: f64) -> RawContext {
        RawContext {
            variable,
            process,
            stack,
            position: 0,
            samples,
        }
    }
}

/// Deduplicates stacks by (process, frames), sums their samples, renumbers
/// them in sorted order and sums contexts per (variable, process, stack):
/// the same calling contexts give the same records however they were split.
///
/// Frames are interned to ranks of their `Ord` order, so the output frame
/// table is sorted and call paths sort as integer sequences like the frame
/// sequences they stand for; the distinct call paths are sorted once, and
/// stacks sort by (process, path rank), three integers each. The output
/// stacks hold each distinct call path once, in sorted order. Context
/// variables index `keys` (equal keys may appear more than once); in the
/// output they index `variables`, which must be sorted by key (a key it
/// lacks is added, with no values). Sums are taken in the order of the
/// stacks and contexts given, as a sequential sum would take them.
///
/// Memory: the stacks given and the output's (flat: a few integers per
/// stack, the distinct paths' frame ids once), an index entry per stack,
/// and the contexts, sorted and summed in place.
pub(crate) fn canonical(
    frames: Vec<SymFrame>,
    stacks: FlatStacks,
    keys: Vec<VariableKey>,
    contexts: Vec<RawContext>,
    variables: &mut Vec<VariableBlame>,
) -> (Vec<SymFrame>, FlatStacks, Vec<ContextBlame>) {
    // Frames: the distinct frames, sorted; ids mapped to ranks.
    let (rank_of, frames) = rank_frames(frames);
    let paths = RankedPaths::of(&stacks, rank_of);
    let (order, mut out) = sorted_stacks(&stacks, paths);
    let remap = sum_stacks(&stacks, order, &mut out);
    drop(stacks);
    let contexts = canonical_contexts(keys, contexts, remap, variables);
    (frames, out, contexts)
}

/// The distinct frames of `frames`, sorted, and the rank of each frame given.
fn rank_frames(frames: Vec<SymFrame>) -> (Vec<u32>, Vec<SymFrame>) {
    let (frame_rank, sorted) = rank_distinct(frames.par_iter().map(FrameKey));
    let rank_of: Vec<u32> = frames.iter().map(|f| frame_rank[&FrameKey(f)]).collect();
    let sorted: Vec<SymFrame> = sorted.into_iter().map(|f| f.0.clone()).collect();
    (rank_of, sorted)
}

/// The call paths of a part's stacks as frame ranks, sorted, equal ones
/// ranked once.
struct RankedPaths {
    /// Each path's frames as frame ranks.
    ranked: Vec<Vec<u32>>,
    /// The paths in the order of their frames.
    by_frames: Vec<u32>,
    /// The rank of each path among the distinct ones.
    path_rank: Vec<u32>,
    distinct_paths: u32,
}

impl RankedPaths {
    /// The paths of `stacks`, their frames ranked by `rank_of` (dropped
    /// once they are).
    fn of(stacks: &FlatStacks, rank_of: Vec<u32>) -> RankedPaths {
        // Call paths: frame ranks, sorted; equal ones ranked once.
        let ranked: Vec<Vec<u32>> = (0..stacks.paths() as u32)
            .into_par_iter()
            .map(|p| {
                stacks
                    .path_frames(p)
                    .iter()
                    .map(|&f| rank_of[f as usize])
                    .collect()
            })
            .collect();
        drop(rank_of);
        let mut by_frames: Vec<u32> = (0..ranked.len() as u32).collect();
        by_frames.par_sort_unstable_by(|&a, &b| ranked[a as usize].cmp(&ranked[b as usize]));
        let mut path_rank = vec![0u32; ranked.len()];
        let mut distinct_paths = 0u32;
        for (i, &p) in by_frames.iter().enumerate() {
            let new = i == 0 || ranked[by_frames[i - 1] as usize] != ranked[p as usize];
            if new {
                distinct_paths += 1;
            }
            path_rank[p as usize] = distinct_paths - 1;
        }
        RankedPaths {
            ranked,
            by_frames,
            path_rank,
            distinct_paths,
        }
    }
}

/// The stacks given as (process, path rank, index), sorted, and the
/// output's stacks holding each distinct call path once, in sorted order
/// (the ranked paths dropped once they are).
fn sorted_stacks(stacks: &FlatStacks, paths: RankedPaths) -> (Vec<(u32, u32, u32)>, FlatStacks) {
    let RankedPaths {
        ranked,
        by_frames,
        path_rank,
        distinct_paths,
    } = paths;
    // Stacks: (process, path rank) sorts like (process, frames).
    let mut order: Vec<(u32, u32, u32)> = (0..stacks.len())
        .into_par_iter()
        .map(|i| {
            (
                stacks.process(i),
                path_rank[stacks.path(i) as usize],
                i as u32,
            )
        })
        .collect();
    order.par_sort_unstable();
    let mut out = FlatStacks::with_capacity(
        stacks.len(),
        stacks.sample_count(),
        distinct_paths as usize,
        stacks.frame_id_count(),
    );
    let mut pushed = 0u32;
    for &p in &by_frames {
        if path_rank[p as usize] == pushed {
            out.push_path(&ranked[p as usize]);
            pushed += 1;
        }
    }
    drop(ranked);
    drop(by_frames);
    drop(path_rank);
    (order, out)
}

/// Pushes onto `out` a stack per distinct (process, path) of `order`, the
/// samples of its members summed in order; the new stack id of each stack
/// given.
fn sum_stacks(stacks: &FlatStacks, order: Vec<(u32, u32, u32)>, out: &mut FlatStacks) -> Vec<u32> {
    // New stack id of each stack given; the members of each new stack summed in order.
    let mut remap: Vec<u32> = vec![0; stacks.len()];
    let mut sums: Vec<f64> = Vec::new();
    let mut start = 0;
    while start < order.len() {
        let (process, path, _) = order[start];
        let mut end = start + 1;
        while end < order.len() && (order[end].0, order[end].1) == (process, path) {
            end += 1;
        }
        sums.clear();
        for &(_, _, i) in &order[start..end] {
            let samples = stacks.samples(i as usize);
            if sums.len() < samples.len() {
                sums.resize(samples.len(), 0.0);
            }
            for (a, b) in sums.iter_mut().zip(samples) {
                *a += b;
            }
        }
        let id = out.push_on_path(process, path, &sums);
        for &(_, _, i) in &order[start..end] {
            remap[i as usize] = id;
        }
        start = end;
    }
    drop(order);
    remap
}

/// The contexts sorted by (variable rank, process, new stack `remap`),
/// then position, and summed per (variable, process, stack); their
/// variables as indices into `variables` (a key it lacks added). Contexts
/// of stacks that are not there are dropped.
fn canonical_contexts(
    keys: Vec<VariableKey>,
    mut contexts: Vec<RawContext>,
    remap: Vec<u32>,
    variables: &mut Vec<VariableBlame>,
) -> Vec<ContextBlame> {
    // Contexts: (variable rank, process, new stack), then position.
    let (key_rank, distinct_keys) = rank_distinct(keys.par_iter());
    let key_rank: Vec<u32> = keys.par_iter().map(|k| key_rank[k]).collect();
    let variable_of = variables_of(&distinct_keys, variables);
    // Contexts of stacks that are not there are dropped.
    let mut position = 0u32;
    contexts.retain_mut(|c| {
        position += 1;
        let Some(&stack) = remap.get(c.stack as usize) else {
            return false;
        };
        c.variable = key_rank[c.variable as usize];
        c.stack = stack;
        c.position = position - 1;
        true
    });
    drop(remap);
    contexts.par_sort_unstable_by_key(|c| (c.variable, c.process, c.stack, c.position));
    let mut kept = 0;
    for i in 0..contexts.len() {
        let c = contexts[i];
        match kept {
            0 => {}
            _ => {
                let last = &mut contexts[kept - 1];
                if (last.variable, last.process, last.stack) == (c.variable, c.process, c.stack) {
                    last.samples += c.samples;
                    continue;
                }
            }
        }
        contexts[kept] = RawContext {
            samples: 0.0 + c.samples,
            ..c
        };
        kept += 1;
    }
    contexts.truncate(kept);
    contexts
        .into_iter()
        .map(|c| ContextBlame {
            variable: variable_of[c.variable as usize],
            process: c.process,
            stack: c.stack,
            samples: c.samples,
        })
        .collect()
}

/// The index in `variables` (sorted by key) of each of `distinct_keys`,
/// a key it lacks added there with no values.
fn variables_of(distinct_keys: &[&VariableKey], variables: &mut Vec<VariableBlame>) -> Vec<u32> {
    let missing: Vec<VariableKey> = distinct_keys
        .iter()
        .filter(|k| variables.binary_search_by(|v| v.key.cmp(k)).is_err())
        .map(|k| (*k).clone())
        .collect();
    for key in missing {
        let at = variables.partition_point(|v| v.key < key);
        variables.insert(
            at,
            VariableBlame {
                key,
                values: Vec::new(),
            },
        );
    }
    distinct_keys
        .iter()
        .map(|k| {
            variables
                .binary_search_by(|v| v.key.cmp(k))
                .expect("added above") as u32
        })
        .collect()
}
