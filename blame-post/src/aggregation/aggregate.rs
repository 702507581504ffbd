//! Turns resolved contexts into results: per variable, per function and per
//! (variable, context), each per process. Values are plain sums, so partial
//! results of shards reduce by addition in any order.

mod tally;

use crate::aggregation::merge::RawContext;
use crate::attribution::resolve::{resolve_contexts, MemoryResolution, Resolution};
use crate::attribution::static_index::StaticIndex;
use crate::input::ProcessProfile;
use blame_formats::results::{
    ContextBlame, FunctionBlame, FunctionKey, ProcessValue, SymFrame, VariableBlame, VariableKey,
};
use blame_formats::results_flat::FlatStacks;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::sync::Arc;
use tally::ProcessTally;

/// Sums of one key in one process.
#[derive(Debug, Default, Clone)]
pub struct Sums {
    /// Total blame (explicit and implicit).
    pub inclusive: f64,
    pub exclusive: f64,
    /// Explicit blame (data flow only).
    pub explicit: f64,
    /// Explicit samples of a scalar that also blame a data structure (of
    /// its own function or a global, for a result).
    pub inherited: f64,
    /// Memory events: the value under each method.
    pub methods: BTreeMap<&'static str, f64>,
    /// The key is a result's (`Variable::is_result` of its root): it
    /// inherits only from its own function's data structures and globals.
    result: bool,
}

/// Sums for one key across processes, by process index.
type PerProcess = BTreeMap<u32, Sums>;

/// Settings of the approximate data-centric passes for memory events.
#[derive(Debug, Clone, Copy)]
pub struct MemoryOptions {
    /// Loop compensation threshold (5.2.2), 0.75 in the dissertation.
    pub loop_threshold: f64,
    /// Skid model (5.2.3); `None` when the samples are skid-free.
    pub skid: Option<crate::input::skid_model::SkidModel>,
    /// The data cache the access-pattern weights assume.
    pub cache: blame_formats::static_db::CacheGeometry,
}

/// The loop compensation threshold of 5.2.2 unless told (`--loop-threshold`).
pub const DEFAULT_LOOP_THRESHOLD: f64 = 0.75;

impl Default for MemoryOptions {
    fn default() -> Self {
        MemoryOptions {
            loop_threshold: DEFAULT_LOOP_THRESHOLD,
            skid: None,
            cache: Default::default(),
        }
    }
}

impl MemoryOptions {
    /// The method whose value is reported as a memory event's count.
    pub fn reported_method(&self) -> &'static str {
        if self.skid.is_some() {
            crate::attribution::resolve::METHOD_SKID_LOOP_ACCESS
        } else {
            crate::attribution::resolve::METHOD_LOOP_ACCESS
        }
    }
}

/// What [`Accumulator::into_records`] gives: variables (sorted by key),
/// functions, frames, stacks (flat: each call path's frame ids once) and
/// contexts (variable indices).
pub type Records = (
    Vec<VariableBlame>,
    Vec<FunctionBlame>,
    Vec<SymFrame>,
    FlatStacks,
    Vec<ContextBlame>,
);

#[derive(Default)]
pub struct Accumulator {
    pub variables: BTreeMap<VariableKey, PerProcess>,
    pub functions: BTreeMap<FunctionKey, PerProcess>,
    /// The distinct frames of `stacks`, each once, and their ids.
    pub frames: Vec<SymFrame>,
    pub(crate) frame_ids: FxHashMap<SymFrame, u32>,
    /// Contexts of every process added, on call paths of frame ids of
    /// `frames`, each distinct path once (a process's ~10^3 contexts run
    /// through paths that every rank shares: per stack, only its process,
    /// path and counts are kept).
    pub stacks: FlatStacks,
    /// The index in `stacks` of each distinct call path.
    pub(crate) path_ids: FxHashMap<Box<[u32]>, u32>,
    /// (variable, context) sums, variables as indices into `context_keys`.
    pub(crate) contexts: Vec<RawContext>,
    /// Variable keys of `contexts`, each once.
    pub(crate) context_keys: Vec<VariableKey>,
    pub(crate) context_key_ids: FxHashMap<VariableKey, u32>,
    /// Blame of each distinct stack resolved so far (frames as ids of `frames`).
    pub(crate) resolutions: crate::attribution::resolve::ResolutionCache,
    /// Process index → samples per event.
    pub totals: BTreeMap<u32, Vec<f64>>,
    pub resolve_time: std::time::Duration,
    pub reduce_time: std::time::Duration,
    /// Which events count memory misses (approximate data-centric mode).
    pub memory_events: Vec<bool>,
    pub memory: MemoryOptions,
    /// Memory samples whose skid window a call or the function start cut short.
    pub skid_truncated: f64,
    /// Samples with a data address that no variable's memory holds (stack, unknown blocks).
    pub direct_unattributed: f64,
    /// Per (process, event): how many samples reached a named variable, and why not.
    pub coverage: BTreeMap<(u32, u16), blame_formats::results::Coverage>,
}

impl Accumulator {
    /// Resolves every context of `profile` (in parallel) and adds it.
    pub fn add_process(&mut self, index: &StaticIndex, profile: &ProcessProfile, nevents: usize) {
        let started = std::time::Instant::now();
        let base = self.add_stacks(profile);
        let resolved = self.resolve_stacks(index, profile, base);
        self.resolve_time += started.elapsed();
        let started = std::time::Instant::now();
        self.add_totals(profile, nevents);
        let mut tally = ProcessTally::new(index, profile, self.memory.reported_method());
        self.sum_samples(&mut tally, profile, &resolved);
        // Direct attribution of samples that carried data addresses.
        let memory_events = &self.memory_events;
        let is_memory = |e: usize| memory_events.get(e).copied().unwrap_or(false);
        tally.add_direct(profile, is_memory, &mut self.direct_unattributed);
        self.add_tally(profile.index, base, tally);
        self.reduce_time += started.elapsed();
    }

    /// Adds the process's frames to the run's table, each looked up once,
    /// and its contexts as stacks of the run, which key the resolutions;
    /// the index of its first stack.
    fn add_stacks(&mut self, profile: &ProcessProfile) -> u32 {
        let p = profile.index;
        // The process's frames into the run's table, each looked up once;
        // its contexts as stacks of the run, which key the resolutions.
        let global_frame: Vec<u32> = profile
            .frames
            .iter()
            .map(|f| match self.frame_ids.get(f) {
                Some(&id) => id,
                None => {
                    let id = self.frames.len() as u32;
                    self.frame_ids.insert(f.clone(), id);
                    self.frames.push(f.clone());
                    id
                }
            })
            .collect();
        let base = self.stacks.len() as u32;
        let mut path: Vec<u32> = Vec::new();
        for c in &profile.contexts {
            path.clear();
            path.extend(c.frames.iter().map(|&f| global_frame[f as usize]));
            let id = match self.path_ids.get(path.as_slice()) {
                Some(&id) => id,
                None => {
                    let id = self.stacks.push_path(&path);
                    self.path_ids.insert(path.as_slice().into(), id);
                    id
                }
            };
            self.stacks.push_on_path(p, id, &c.counts);
        }
        base
    }

    /// Resolves the process's contexts, its stacks from `base` on (in
    /// parallel; each distinct stack once across the shard's processes).
    fn resolve_stacks(
        &mut self,
        index: &StaticIndex,
        profile: &ProcessProfile,
        base: u32,
    ) -> Vec<(Arc<Resolution>, MemoryResolution)> {
        let stacks = &self.stacks;
        let keys: Vec<&[u32]> = (base as usize..stacks.len())
            .map(|i| stacks.frames(i))
            .collect();
        let footprints = profile.allocations.as_ref().map(|a| a.footprints(index));
        let resolved = resolve_contexts(
            index,
            &profile.frames,
            &profile.contexts,
            &keys,
            &mut self.resolutions,
            &self.memory_events,
            &self.memory,
            footprints.as_ref(),
        );
        drop(keys);
        resolved
    }

    /// Adds the process's samples per event to its totals.
    fn add_totals(&mut self, profile: &ProcessProfile, nevents: usize) {
        let totals = self
            .totals
            .entry(profile.index)
            .or_insert_with(|| vec![0.0; nevents]);
        for c in &profile.contexts {
            for (e, n) in c.counts.iter().enumerate() {
                totals[e] += n;
            }
        }
    }

    /// Sums every context's samples, event by event, into `tally`: memory
    /// events by their attribution, time events by their blame.
    fn sum_samples(
        &mut self,
        tally: &mut ProcessTally,
        profile: &ProcessProfile,
        resolved: &[(Arc<Resolution>, MemoryResolution)],
    ) {
        let memory_events = &self.memory_events;
        let is_memory = |e: usize| memory_events.get(e).copied().unwrap_or(false);
        for (ci, (ctx, (res, mres))) in profile.contexts.iter().zip(resolved).enumerate() {
            for (e, &n) in ctx.counts.iter().enumerate() {
                if n == 0.0 {
                    continue;
                }
                let e16 = e as u16;
                if is_memory(e) {
                    if mres.skid_truncated {
                        self.skid_truncated += n;
                    }
                    tally.add_memory_sample(&mut self.coverage, ctx, e16, n, mres);
                    continue;
                }
                tally.add_time_sample(&mut self.coverage, ctx, e16, n, res);
            }
            tally.end_context(ci);
        }
    }

    /// Adds what process `p` summed (its stacks from `base` on): its
    /// variables' sums, its (variable, context) records under the run's
    /// key ids, and its functions' sums.
    fn add_tally(&mut self, p: u32, base: u32, tally: ProcessTally) {
        let ProcessTally {
            vars,
            ctx_records,
            fn_sums,
            ..
        } = tally;
        let (var_keys, var_sums) = (vars.keys, vars.sums);
        for (id, sums) in var_sums.into_iter().enumerate() {
            let e = self
                .variables
                .entry(var_keys[id].clone())
                .or_default()
                .entry(p)
                .or_default();
            e.inclusive += sums.inclusive;
            e.exclusive += sums.exclusive;
            e.explicit += sums.explicit;
            e.inherited += sums.inherited;
            for (m, x) in sums.methods {
                *e.methods.entry(m).or_default() += x;
            }
        }
        // The run-wide id of each key these contexts name, each key stored once.
        let mut global_ids: Vec<Option<u32>> = vec![None; var_keys.len()];
        for (id, ci, samples) in ctx_records {
            let variable = *global_ids[id].get_or_insert_with(|| {
                let key = &var_keys[id];
                match self.context_key_ids.get(key) {
                    Some(&g) => g,
                    None => {
                        let g = self.context_keys.len() as u32;
                        self.context_keys.push(key.clone());
                        self.context_key_ids.insert(key.clone(), g);
                        g
                    }
                }
            });
            self.contexts
                .push(RawContext::new(variable, p, base + ci as u32, samples));
        }
        for ((function, file, event), (inclusive, exclusive)) in fn_sums.into_sums() {
            let key = FunctionKey {
                name: crate::input::symbolize::demangle(function),
                file: file.to_string(),
                event,
            };
            let e = self.functions.entry(key).or_default().entry(p).or_default();
            e.inclusive += inclusive;
            e.exclusive += exclusive;
            e.explicit += inclusive;
        }
    }
    /// Variables (sorted by key), functions, frames, stacks and contexts.
    pub fn into_records(self) -> Records {
        let values = |per: PerProcess| {
            per.into_iter()
                .map(|(process, s)| ProcessValue {
                    process,
                    inclusive: s.inclusive,
                    exclusive: s.exclusive,
                    explicit: s.explicit,
                    inherited: s.inherited,
                    methods: s
                        .methods
                        .into_iter()
                        .map(|(m, x)| (m.to_string(), x))
                        .collect(),
                })
                .collect()
        };
        let mut variables: Vec<VariableBlame> = self
            .variables
            .into_iter()
            .map(|(key, per)| VariableBlame {
                key,
                values: values(per),
            })
            .collect();
        let functions = self
            .functions
            .into_iter()
            .map(|(key, per)| FunctionBlame {
                key,
                values: values(per),
            })
            .collect();
        drop(self.frame_ids);
        drop(self.path_ids);
        drop(self.resolutions);
        let (frames, stacks, contexts) = crate::aggregation::merge::canonical(
            self.frames,
            self.stacks,
            self.context_keys,
            self.contexts,
            &mut variables,
        );
        (variables, functions, frames, stacks, contexts)
    }
}
