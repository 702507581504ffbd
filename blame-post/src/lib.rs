//! # blame-post: post-mortem blame resolution
//!
//! ```text
//! run dir (sample streams), perf.data or JSONL ──┐
//!                                    static db ──┼──> blame-post ──> results (per shard) ──merge──> results
//!                                     binaries ──┘
//! ```
//!
//! Reads what the sampler recorded (or a perf.data capture, which the
//! capture layer `blame-capture` reads) and what the static pass summarized,
//! symbolizes stacks (with inlined frames), resolves each unique calling
//! context once through transfer functions, side effects and container
//! resolution ([`attribution::resolve`]), and sums blame per variable,
//! function and context per process ([`aggregation::aggregate`]). `blame
//! post --shard I/N` processes a slice of the run ([`input::shard`]);
//! [`aggregation::merge`] reduces the slices. Nothing here
//! prints: rendering is `blame-report`'s job.

#![forbid(unsafe_code)]
//!
//! Three stages, a folder each, each using only those before it:
//!
//! 1. [`input`]: stacks in. A run directory, a perf.data capture or JSON
//!    lines become counted, symbolized calling contexts per process (with
//!    what their data addresses are in, their skid windows and the
//!    allocation log), whichever the source; `blame dump` prints the
//!    samples it reads ([`input::dump`]).
//! 2. [`attribution`]: each context's samples to variables: the transfer
//!    functions ([`attribution::resolve`]), approximate and direct
//!    data-centric attribution, footprints, memory blame, report keys.
//! 3. [`aggregation`]: sums per variable, function and context per process
//!    ([`aggregation::aggregate`]), and the reduction of shards' partial
//!    results ([`aggregation::merge`]).
pub mod aggregation;
pub mod attribution;
mod borrowed_keys;
pub mod error;
pub mod input;

pub use aggregation::aggregate::MemoryOptions;
pub use attribution::static_index::StaticIndex;
pub use error::{PostError, Result, Warning};
pub use input::shard::ShardSpec;
pub use input::{OnDamage, Run};

use blame_formats::results::{ResultsHeader, Shard};
use blame_formats::results_flat::FlatResults;
use rayon::prelude::*;

/// Wall time of each post-processing stage (the stages of Figure 4.10).
#[derive(Debug, Clone, Copy, Default)]
pub struct StageTimes {
    /// Reading streams and counting samples per calling context.
    pub read: std::time::Duration,
    pub symbolize: std::time::Duration,
    /// Transfer functions and container resolution, per unique context.
    pub resolve: std::time::Duration,
    /// Summing blame per variable, function and context.
    pub reduce: std::time::Duration,
}

/// Results of one `post` call, with what went wrong along the way.
pub struct PostOutput {
    /// Stacks flat (each distinct call path once): what `blame post`
    /// writes as they are ([`FlatResults::write`]); `Results::try_from`
    /// makes the vectors of [`Results`] of them.
    pub results: FlatResults,
    /// Missing binaries, lost samples: reported, not fatal.
    pub warnings: Vec<Warning>,
    /// What was left out of a damaged recording (empty streams, damaged
    /// chunks, cut streams): to be said loudly. Also in the results' header.
    pub damage: Vec<String>,
    /// Samples the kernel or the recorder dropped, over all processes.
    pub lost: u64,
    pub times: StageTimes,
    /// Samples resolved (summed over events).
    pub samples: f64,
    pub contexts: usize,
    /// The memory profiles of the processes with allocation logs (memory
    /// blame, `memory.rs`), to be written beside the results.
    pub memory: Vec<blame_formats::memory_profile::MemoryProfile>,
}

/// Resolves the part of `run` that belongs to `shard`.
/// Memory events (cache misses...) are attributed with the approximate
/// data-centric passes of chapter 5 under `memory`; other events get blame.
pub fn post(
    run: &Run,
    index: &StaticIndex,
    shard: ShardSpec,
    memory: aggregation::aggregate::MemoryOptions,
) -> Result<PostOutput> {
    post_with_progress(run, index, shard, memory, &|_, _| {})
}

/// The most processes [`post_with_progress`] reads at once.
const MAX_WINDOW: usize = 8;

/// [`post`], calling `progress(done, total)` after each window of processes
/// of the run (the caller decides whether and how to show it).
pub fn post_with_progress(
    run: &Run,
    index: &StaticIndex,
    shard: ShardSpec,
    memory: aggregation::aggregate::MemoryOptions,
    progress: &dyn Fn(usize, usize),
) -> Result<PostOutput> {
    let mut pass = ShardPass::new(run, memory);
    let nproc = run.processes.len();
    let load = |i: usize| -> Result<input::ProcessProfile> {
        let mut profile = run.load_process(i, shard)?;
        input::openmp::graft_worker_stacks(&profile.frames, &mut profile.contexts);
        input::truncated::graft_cut_stacks(
            &profile.frames,
            &mut profile.contexts,
            &profile.reference,
        );
        input::truncated::graft_cut_program_stacks(
            &profile.frames,
            &mut profile.contexts,
            &profile.reference,
        );
        profile.reference = Vec::new();
        Ok(profile)
    };
    // Processes are read and symbolized a window at a time, the window's
    // processes in parallel, while the window before is resolved and summed
    // on one thread: the reductions are sequential, so this keeps both
    // cores busy (a stream has too few chunks to fill them on its own).
    // Processes are still added in order, so the sums are the same. Two
    // windows of profiles are in memory at once: at most 8 processes each,
    // so a shard's memory does not grow with the node's cores (on many
    // cores, each process's chunks are decoded in parallel as well).
    let window = (2 * rayon::current_num_threads()).clamp(2, MAX_WINDOW);
    let load_window = |start: usize| -> Vec<Result<input::ProcessProfile>> {
        (start..(start + window).min(nproc))
            .into_par_iter()
            .map(load)
            .collect()
    };
    let mut next = load_window(0);
    let mut start = 0;
    while start < nproc {
        let profiles = std::mem::take(&mut next);
        let following = start + profiles.len();
        let (loaded, added) = rayon::join(
            || {
                if following < nproc {
                    load_window(following)
                } else {
                    Vec::new()
                }
            },
            || -> Result<()> {
                for (i, profile) in (start..).zip(profiles) {
                    pass.add(run, index, i, profile?);
                }
                Ok(())
            },
        );
        added?;
        progress(following, nproc);
        next = loaded;
        start = following;
    }
    pass.finish(run, index, shard)
}

/// What one shard's pass over its processes has summed so far.
struct ShardPass {
    acc: aggregation::aggregate::Accumulator,
    warnings: Vec<Warning>,
    damage: Vec<String>,
    /// Per process: samples lost while recording.
    lost: Vec<u64>,
    times: StageTimes,
    contexts: usize,
    memory: Vec<blame_formats::memory_profile::MemoryProfile>,
    lines: attribution::db_check::LineCheck,
}

impl ShardPass {
    fn new(run: &Run, memory: aggregation::aggregate::MemoryOptions) -> ShardPass {
        ShardPass {
            acc: aggregation::aggregate::Accumulator {
                memory_events: run.events.iter().map(|e| e.memory).collect(),
                memory,
                ..Default::default()
            },
            warnings: run.warnings.clone(),
            damage: run.damage.clone(),
            lost: vec![0u64; run.processes.len()],
            times: StageTimes {
                read: run.open_time,
                ..Default::default()
            },
            contexts: 0,
            memory: Vec::new(),
            lines: attribution::db_check::LineCheck::default(),
        }
    }

    /// Resolves and adds process `i`'s profile (in order of the processes).
    fn add(&mut self, run: &Run, index: &StaticIndex, i: usize, profile: input::ProcessProfile) {
        self.times.read += profile.read_time;
        self.times.symbolize += profile.symbolize_time;
        self.contexts += profile.contexts.len();
        self.warnings.extend(profile.warnings.iter().cloned());
        self.damage.extend(profile.damage.iter().cloned());
        self.lost[i] += profile.lost;
        if !run.processes[i].launcher {
            self.lines.add(index, &profile);
        }
        if let Some(m) = &profile.memory {
            let info = &run.processes[i];
            self.memory
                .push(attribution::memory::profile(index, m, info.pid, info.rank));
        }
        self.acc.add_process(index, &profile, run.events.len());
    }

    /// The shard's results, with what the pass warns about.
    fn finish(mut self, run: &Run, index: &StaticIndex, shard: ShardSpec) -> Result<PostOutput> {
        let nevents = run.events.len();
        let acc = &mut self.acc;
        self.warnings.extend(self.lines.warnings(index));
        self.times.resolve = acc.resolve_time;
        if acc.direct_unattributed > 0.0 {
            self.warnings.push(Warning::DirectUnattributed {
                samples: acc.direct_unattributed,
            });
        }
        if acc.skid_truncated > 0.0 {
            self.warnings.push(Warning::SkidTruncated {
                samples: acc.skid_truncated,
            });
        }
        let reduce_started = std::time::Instant::now();
        let mut processes = run.processes.clone();
        for (i, p) in processes.iter_mut().enumerate() {
            p.samples = acc
                .totals
                .get(&(i as u32))
                .cloned()
                .unwrap_or_else(|| vec![0.0; nevents]);
        }
        let samples: f64 = acc.totals.values().flatten().sum();
        if !samples.is_finite() {
            return Err(PostError::WeightOverflow(samples));
        }
        for (p, n) in processes.iter_mut().zip(&self.lost) {
            p.lost = *n;
        }
        let lost_total: u64 = self.lost.iter().sum();
        if let Some(w) = lost_warning(&processes, lost_total, samples) {
            self.warnings.push(w);
        }
        // Coverage of the application's processes (launchers such as mpirun are
        // recorded, but are no part of the program).
        let mut coverage: Vec<blame_formats::results::Coverage> = Vec::new();
        for (&(p, _), c) in &acc.coverage {
            if processes.get(p as usize).is_some_and(|info| info.launcher) {
                continue;
            }
            blame_formats::results::Coverage::add_to(&mut coverage, c);
        }
        let reduce_before = acc.reduce_time;
        let (variables, functions, frames, stacks, context_records) = self.acc.into_records();
        let blame_points = implicit_blame_points(index, &functions);
        self.times.reduce = reduce_before + reduce_started.elapsed();
        Ok(PostOutput {
            results: FlatResults::of(
                ResultsHeader {
                    producer: format!("blame {}", env!("CARGO_PKG_VERSION")),
                    events: run.events.clone(),
                    processes,
                    shard: (!shard.is_whole()).then_some(Shard {
                        index: shard.index,
                        count: shard.count,
                    }),
                    blame_points,
                    coverage,
                    provenance: None,
                    damage: self.damage.clone(),
                    summed: None,
                },
                variables,
                functions,
                frames,
                stacks,
                context_records,
            ),
            warnings: self.warnings,
            damage: self.damage,
            lost: lost_total,
            times: self.times,
            samples,
            contexts: self.contexts,
            memory: self.memory,
        })
    }
}

/// The warning of samples lost while recording, by process.
fn lost_warning(
    processes: &[blame_formats::results::ProcessInfo],
    total: u64,
    kept: f64,
) -> Option<Warning> {
    if total == 0 {
        return None;
    }
    let by_process: Vec<String> = processes
        .iter()
        .filter(|p| p.lost > 0)
        .map(|p| match p.rank {
            Some(r) => format!("rank {r}: {}", p.lost),
            None => format!("pid {}: {}", p.pid, p.lost),
        })
        .collect();
    Some(Warning::Lost {
        total,
        by_process: by_process.join(", "),
        kept,
    })
}

#[cfg(test)]
mod tests_fig3_14;

/// Functions in the samples whose summaries have no exit variables, and
/// `main`, a blame point by definition (3.5.1.2): nothing above it can take
/// its variables' blame, whatever its return value and parameters.
fn implicit_blame_points(
    index: &StaticIndex,
    functions: &[blame_formats::results::FunctionBlame],
) -> Vec<String> {
    let mut out: Vec<String> = functions
        .iter()
        .filter_map(|f| index.lookup(&f.key.name, &f.key.file))
        .filter(|&i| {
            let f = &index.functions[i];
            f.name == "main" || !f.variables.iter().any(|v| v.is_exit)
        })
        .map(|i| index.functions[i].name.clone())
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests_ch5;
