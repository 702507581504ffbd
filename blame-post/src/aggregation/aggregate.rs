//! Turns resolved contexts into results: per variable, per function and per
//! (variable, context), each per process. Values are plain sums, so partial
//! results of shards reduce by addition in any order.

use crate::aggregation::merge::RawContext;
use crate::attribution::by_address::{global_variable, name_allocation, Named};
use crate::attribution::keys::{derived_keys, heap_site_key, is_result, variable_key};
use crate::attribution::resolve::{resolve_contexts, with_containers, VarRef};
use crate::attribution::static_index::StaticIndex;
use crate::input::heap_blocks::DirectTarget;
use crate::input::ProcessProfile;
use blame_formats::results::{
    ContextBlame, FunctionBlame, FunctionKey, ProcessValue, SymFrame, VariableBlame, VariableKey,
};
use blame_formats::results_flat::FlatStacks;
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, HashMap};

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

/// Counts `samples` under `reason` in a coverage record.
fn add_reason(cov: &mut blame_formats::results::Coverage, reason: &str, samples: f64) {
    match cov.reasons.iter_mut().find(|(r, _)| r == reason) {
        Some(slot) => slot.1 += samples,
        None => cov.reasons.push((reason.to_string(), samples)),
    }
}

/// Adds `samples` to variable `id` in the sums of the context being added.
fn add_context(sums: &mut Vec<Option<f64>>, touched: &mut Vec<usize>, id: usize, samples: f64) {
    if sums.len() <= id {
        sums.resize(id + 1, None);
    }
    let sum = sums[id].get_or_insert_with(|| {
        touched.push(id);
        0.0
    });
    *sum += samples;
}

/// Code-centric sums of one process: inclusive and exclusive samples per
/// (function, file) and event, the process's frames mapped to their
/// function once (not hashed again for every frame of every context).
struct FunctionSums<'a> {
    /// (function, file) of each function seen, by function id.
    keys: Vec<(&'a str, &'a str)>,
    /// The function id of each frame of the process.
    of_frame: Vec<u32>,
    nevents: usize,
    /// (inclusive, exclusive) by `function id * nevents + event`.
    sums: Vec<(f64, f64)>,
    touched: Vec<bool>,
}

impl<'a> FunctionSums<'a> {
    fn new(frames: &'a [SymFrame], nevents: usize) -> Self {
        let mut ids: FxHashMap<(&str, &str), u32> = FxHashMap::default();
        let mut keys = Vec::new();
        let of_frame = frames
            .iter()
            .map(|f| {
                *ids.entry((f.function.as_str(), f.file.as_str()))
                    .or_insert_with(|| {
                        keys.push((f.function.as_str(), f.file.as_str()));
                        keys.len() as u32 - 1
                    })
            })
            .collect();
        let slots = keys.len() * nevents.max(1);
        FunctionSums {
            keys,
            of_frame,
            nevents: nevents.max(1),
            sums: vec![(0.0, 0.0); slots],
            touched: vec![false; slots],
        }
    }

    /// Adds one context's samples: inclusive once per function per
    /// sample, exclusive for the innermost frame.
    fn add(&mut self, ctx: &crate::input::Context, e16: u16, n: f64, seen: &mut Vec<usize>) {
        seen.clear();
        for (depth, &f) in ctx.frames.iter().enumerate() {
            let id = self.of_frame[f as usize] as usize * self.nevents + e16 as usize;
            self.touched[id] = true;
            if depth == 0 {
                self.sums[id].1 += n;
            }
            if !seen.contains(&id) {
                seen.push(id);
                self.sums[id].0 += n;
            }
        }
    }

    /// ((function, file, event), (inclusive, exclusive)) of every function and event seen.
    fn into_sums(self) -> impl Iterator<Item = ((&'a str, &'a str, u16), (f64, f64))> {
        let (keys, nevents) = (self.keys, self.nevents);
        self.sums
            .into_iter()
            .zip(self.touched)
            .enumerate()
            .filter(|(_, (_, touched))| *touched)
            .map(move |(id, (sums, _))| {
                let (function, file) = keys[id / nevents];
                ((function, file, (id % nevents) as u16), sums)
            })
    }
}

impl Accumulator {
    /// Resolves every context of `profile` (in parallel) and adds it.
    pub fn add_process(&mut self, index: &StaticIndex, profile: &ProcessProfile, nevents: usize) {
        let started = std::time::Instant::now();
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
        self.resolve_time += started.elapsed();
        let memory_events = &self.memory_events;
        let is_memory = |e: usize| memory_events.get(e).copied().unwrap_or(false);
        let started = std::time::Instant::now();
        let totals = self.totals.entry(p).or_insert_with(|| vec![0.0; nevents]);
        for c in &profile.contexts {
            for (e, n) in c.counts.iter().enumerate() {
                totals[e] += n;
            }
        }
        // Sum under small interned ids first; build string keys once per id.
        let mut var_ids: FxHashMap<(VarRef, u16), usize> = FxHashMap::default();
        let mut var_keys: Vec<VariableKey> = Vec::new();
        let mut var_sums: Vec<Sums> = Vec::new();
        // Sums of the context being added, per variable id, and the ids it touched.
        let mut ctx_sums: Vec<Option<f64>> = Vec::new();
        let mut ctx_touched: Vec<usize> = Vec::new();
        let mut ctx_records: Vec<(usize, usize, f64)> = Vec::new();
        let events_counted = profile.contexts.iter().map(|c| c.counts.len()).max();
        let mut fn_sums = FunctionSums::new(&profile.frames, events_counted.unwrap_or(0));
        let mut key_ids: FxHashMap<VariableKey, usize> = FxHashMap::default();
        // One row per field path: a summary's field (`bp.array` keyed as
        // `blocks.array`) and a derived path of the same name are one row.
        let mut derived_ids: FxHashMap<(String, String, u16), usize> = FxHashMap::default();
        let mut intern_var = |v: VarRef,
                              e: u16,
                              keys: &mut Vec<VariableKey>,
                              sums: &mut Vec<Sums>,
                              paths: &mut FxHashMap<(String, String, u16), usize>|
         -> usize {
            *var_ids.entry((v, e)).or_insert_with(|| {
                let key = variable_key(index, v, e);
                let sums_of_key = || Sums {
                    result: is_result(index, v),
                    ..Sums::default()
                };
                if key.kind == "field" {
                    let path = (key.function.clone(), key.name.clone(), key.event);
                    if let Some(&i) = paths.get(&path) {
                        if keys[i].type_name.is_empty() {
                            keys[i].type_name = key.type_name;
                        }
                        return i;
                    }
                    keys.push(key);
                    sums.push(sums_of_key());
                    paths.insert(path, keys.len() - 1);
                    return keys.len() - 1;
                }
                // Globals seen through several summaries, and element
                // pointers of their owner, share one key.
                match key_ids.get(&key) {
                    Some(&i) => i,
                    None => {
                        keys.push(key.clone());
                        sums.push(sums_of_key());
                        key_ids.insert(key, keys.len() - 1);
                        keys.len() - 1
                    }
                }
            })
        };
        let mut ids: Vec<usize> = Vec::new();
        let mut explicit_ids: Vec<usize> = Vec::new();
        let reported = self.memory.reported_method();
        for (ci, (ctx, (res, mres))) in profile.contexts.iter().zip(&resolved).enumerate() {
            for (e, &n) in ctx.counts.iter().enumerate() {
                if n == 0.0 {
                    continue;
                }
                let e16 = e as u16;
                if is_memory(e) {
                    if mres.skid_truncated {
                        self.skid_truncated += n;
                    }
                    let cov = self.coverage.entry((p, e16)).or_default();
                    cov.event = e16;
                    cov.samples += n;
                    if mres.shares.iter().any(|s| s.0 == reported) {
                        cov.resolved += n;
                    } else {
                        add_reason(
                            cov,
                            "no variable read near the sampled line (memory event)",
                            n,
                        );
                    }
                    for &(method, v, share) in &mres.shares {
                        for (depth, lifted) in with_containers(index, v).into_iter().enumerate() {
                            let id = intern_var(
                                lifted,
                                e16,
                                &mut var_keys,
                                &mut var_sums,
                                &mut derived_ids,
                            );
                            *var_sums[id].methods.entry(method).or_default() += share * n;
                            if method == reported {
                                var_sums[id].inclusive += share * n;
                                var_sums[id].explicit += share * n;
                                if depth == 0 {
                                    var_sums[id].exclusive += share * n;
                                }
                                add_context(&mut ctx_sums, &mut ctx_touched, id, share * n);
                            }
                        }
                    }
                    fn_sums.add(ctx, e16, n, &mut ids);
                    continue;
                }
                // A variable is blamed at most once per sample, however many
                // frames (recursion) or summaries (globals) name it.
                for (blamed, derived, into) in [
                    (&res.blamed, &res.derived, &mut ids),
                    (&res.explicit, &res.explicit_derived, &mut explicit_ids),
                ] {
                    into.clear();
                    into.extend(blamed.iter().map(|&v| {
                        intern_var(v, e16, &mut var_keys, &mut var_sums, &mut derived_ids)
                    }));
                    for d in derived {
                        for key in derived_keys(index, d, e16) {
                            // One row per path: an intermediate path reached without
                            // a type takes the type another context knows.
                            let path = (key.function.clone(), key.name.clone(), key.event);
                            let id = match derived_ids.get(&path) {
                                Some(&id) => {
                                    if var_keys[id].type_name.is_empty() {
                                        var_keys[id].type_name = key.type_name;
                                    }
                                    id
                                }
                                None => {
                                    let leaf_scalar = index.is_scalar_type(&key.type_name);
                                    var_keys.push(key);
                                    var_sums.push(Sums {
                                        result: is_result(index, d.base) && !leaf_scalar,
                                        ..Sums::default()
                                    });
                                    derived_ids.insert(path, var_keys.len() - 1);
                                    var_keys.len() - 1
                                }
                            };
                            into.push(id);
                        }
                    }
                    into.sort_unstable();
                    into.dedup();
                }
                let cov = self.coverage.entry((p, e16)).or_default();
                cov.event = e16;
                cov.samples += n;
                if ids.is_empty() {
                    let reason = res
                        .unexplained
                        .as_ref()
                        .map(|u| u.to_string())
                        .unwrap_or_else(|| "no variable reached".to_string());
                    add_reason(cov, &reason, n);
                } else {
                    cov.resolved += n;
                }
                for &id in &ids {
                    var_sums[id].inclusive += n;
                    add_context(&mut ctx_sums, &mut ctx_touched, id, n);
                }
                // A scalar's explicit blame is inherited where the same
                // sample blames a data structure: the loop index of the loop
                // that fills an array, the norm of a vector being computed.
                // A result's, where the sample blames a data structure of
                // its own function or a global: the vector `x` that
                // `residual = b - A * x` checks, the grid whose min, max and
                // mean are kept to print.
                // (A result is a data structure unless found derived.)
                let structure = explicit_ids
                    .iter()
                    .any(|&o| !var_keys[o].scalar || var_sums[o].result);
                for &id in &explicit_ids {
                    var_sums[id].explicit += n;
                    let inherits = if var_sums[id].result {
                        let own = &var_keys[id].function;
                        explicit_ids.iter().any(|&o| {
                            let k = &var_keys[o];
                            !k.scalar && (k.function == *own || k.function.is_empty())
                        })
                    } else {
                        structure
                    };
                    if inherits && var_keys[id].scalar {
                        var_sums[id].inherited += n;
                    }
                }
                ids.clear();
                ids.extend(
                    res.exclusive.iter().map(|&v| {
                        intern_var(v, e16, &mut var_keys, &mut var_sums, &mut derived_ids)
                    }),
                );
                for d in &res.exclusive_derived {
                    for key in derived_keys(index, d, e16) {
                        let path = (key.function.clone(), key.name.clone(), key.event);
                        if let Some(&id) = derived_ids.get(&path) {
                            ids.push(id);
                        }
                    }
                }
                ids.sort_unstable();
                ids.dedup();
                for &id in &ids {
                    var_sums[id].exclusive += n;
                }
                fn_sums.add(ctx, e16, n, &mut ids);
            }
            for id in ctx_touched.drain(..) {
                let samples = ctx_sums[id].take().expect("touched");
                ctx_records.push((id, ci, samples));
            }
        }
        // Direct attribution of samples that carried data addresses.
        let mut site_keys: HashMap<u32, Vec<VariableKey>> = HashMap::new();
        for ctx in &profile.contexts {
            for (e16, target, n) in &ctx.direct {
                if !is_memory(*e16 as usize) {
                    continue;
                }
                let keys = match target {
                    DirectTarget::Heap(site) => site_keys
                        .entry(*site)
                        .or_insert_with(|| {
                            let (function, frames) = &profile.heap_sites[*site as usize];
                            match name_allocation(index, function, frames) {
                                Some(Named::Var(v)) => with_containers(index, v)
                                    .into_iter()
                                    .map(|v| variable_key(index, v, *e16))
                                    .collect(),
                                Some(Named::Derived(d)) => {
                                    let mut keys: Vec<VariableKey> = with_containers(index, d.base)
                                        .into_iter()
                                        .map(|v| variable_key(index, v, *e16))
                                        .collect();
                                    keys.extend(derived_keys(index, &d, *e16));
                                    keys
                                }
                                None => vec![heap_site_key(function, frames, *e16)],
                            }
                        })
                        .clone(),
                    DirectTarget::Global(symbol) => match global_variable(index, symbol) {
                        Some(v) => with_containers(index, v)
                            .into_iter()
                            .map(|v| variable_key(index, v, *e16))
                            .collect(),
                        None => vec![VariableKey {
                            name: symbol.clone(),
                            function: String::new(),
                            file: String::new(),
                            line: 0,
                            type_name: String::new(),
                            kind: "global".into(),
                            scalar: false,
                            event: *e16,
                        }],
                    },
                    DirectTarget::Unattributed => {
                        self.direct_unattributed += n;
                        continue;
                    }
                };
                for key in keys {
                    let path = (key.function.clone(), key.name.clone(), key.event);
                    let id = match derived_ids
                        .get(&path)
                        .copied()
                        .or_else(|| var_keys.iter().position(|k| k == &key))
                    {
                        Some(id) => id,
                        None => {
                            var_keys.push(key);
                            var_sums.push(Sums::default());
                            derived_ids.insert(path, var_keys.len() - 1);
                            var_keys.len() - 1
                        }
                    };
                    *var_sums[id]
                        .methods
                        .entry(crate::attribution::resolve::METHOD_DIRECT)
                        .or_default() += n;
                }
            }
        }
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
        self.reduce_time += started.elapsed();
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
