//! One process's samples summed before they join the run's: each blamed
//! variable (and field path) of the process interned to a small id with
//! its sums, the (variable, context) sums, the coverage of each event and
//! its reasons, direct attribution by data address, and the code-centric
//! sums per function.

use super::Sums;
use crate::attribution::by_address::{global_variable, name_allocation, Named};
use crate::attribution::keys::{
    derived_keys, derived_keys_and_records, heap_site_key, is_result, variable_key,
};
use crate::attribution::resolve::{with_containers, MemoryResolution, Resolution, VarRef};
use crate::attribution::static_index::StaticIndex;
use crate::input::heap_blocks::DirectTarget;
use crate::input::ProcessProfile;
use blame_formats::results::{Coverage, SymFrame, VariableKey};
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, HashMap};

/// Counts `samples` under `reason` in a coverage record.
fn add_reason(cov: &mut Coverage, reason: &str, samples: f64) {
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
pub(super) struct FunctionSums<'a> {
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
    pub(super) fn into_sums(self) -> impl Iterator<Item = ((&'a str, &'a str, u16), (f64, f64))> {
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

/// The variables a process's samples reach, each (variable, event) under
/// a small id with its sums: string keys are built once per id.
pub(super) struct Variables<'a> {
    index: &'a StaticIndex,
    ids: FxHashMap<(VarRef, u16), usize>,
    pub(super) keys: Vec<VariableKey>,
    pub(super) sums: Vec<Sums>,
    key_ids: FxHashMap<VariableKey, usize>,
    // One row per field path: a summary's field (`bp.array` keyed as
    // `blocks.array`) and a derived path of the same name are one row.
    derived_ids: FxHashMap<(String, String, u16), usize>,
}

impl Variables<'_> {
    /// The id of variable `v` in event `e`, added when new.
    fn intern(&mut self, v: VarRef, e: u16) -> usize {
        let Variables {
            index,
            ids: var_ids,
            keys,
            sums,
            key_ids,
            derived_ids: paths,
        } = self;
        let index = *index;
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
            id_of_key(keys, sums, key_ids, key, sums_of_key)
        })
    }
}

/// The id of a variable's key (not a field path's), added with the sums
/// `new_sums` makes when new.
fn id_of_key(
    keys: &mut Vec<VariableKey>,
    sums: &mut Vec<Sums>,
    key_ids: &mut FxHashMap<VariableKey, usize>,
    key: VariableKey,
    new_sums: impl FnOnce() -> Sums,
) -> usize {
    match key_ids.get(&key) {
        Some(&i) => i,
        None => {
            keys.push(key.clone());
            sums.push(new_sums());
            key_ids.insert(key, keys.len() - 1);
            keys.len() - 1
        }
    }
}

/// A process's samples summed under small interned ids.
pub(super) struct ProcessTally<'a> {
    index: &'a StaticIndex,
    /// The process.
    p: u32,
    /// The method whose value is a memory event's count.
    reported: &'static str,
    pub(super) vars: Variables<'a>,
    // Sums of the context being added, per variable id, and the ids it touched.
    ctx_sums: Vec<Option<f64>>,
    ctx_touched: Vec<usize>,
    /// (variable id, context, samples) of every context added.
    pub(super) ctx_records: Vec<(usize, usize, f64)>,
    pub(super) fn_sums: FunctionSums<'a>,
    ids: Vec<usize>,
    explicit_ids: Vec<usize>,
}

impl<'a> ProcessTally<'a> {
    /// Nothing summed yet of `profile`'s samples; `reported` is the method
    /// whose value is a memory event's count.
    pub(super) fn new(
        index: &'a StaticIndex,
        profile: &'a ProcessProfile,
        reported: &'static str,
    ) -> Self {
        // Sum under small interned ids first; build string keys once per id.
        let vars = Variables {
            index,
            ids: FxHashMap::default(),
            keys: Vec::new(),
            sums: Vec::new(),
            key_ids: FxHashMap::default(),
            derived_ids: FxHashMap::default(),
        };
        let events_counted = profile.contexts.iter().map(|c| c.counts.len()).max();
        ProcessTally {
            index,
            p: profile.index,
            reported,
            vars,
            ctx_sums: Vec::new(),
            ctx_touched: Vec::new(),
            ctx_records: Vec::new(),
            fn_sums: FunctionSums::new(&profile.frames, events_counted.unwrap_or(0)),
            ids: Vec::new(),
            explicit_ids: Vec::new(),
        }
    }

    /// Adds `n` samples of memory event `e16` in context `ctx`: its
    /// coverage, each method's share of each variable read (and its
    /// containers), the context's sums under the reported method, and the
    /// code-centric sums.
    pub(super) fn add_memory_sample(
        &mut self,
        coverage: &mut BTreeMap<(u32, u16), Coverage>,
        ctx: &crate::input::Context,
        e16: u16,
        n: f64,
        mres: &MemoryResolution,
    ) {
        let (index, p, reported) = (self.index, self.p, self.reported);
        let cov = coverage.entry((p, e16)).or_default();
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
                let id = self.vars.intern(lifted, e16);
                let var_sums = &mut self.vars.sums;
                *var_sums[id].methods.entry(method).or_default() += share * n;
                if method == reported {
                    var_sums[id].inclusive += share * n;
                    var_sums[id].explicit += share * n;
                    if depth == 0 {
                        var_sums[id].exclusive += share * n;
                    }
                    add_context(&mut self.ctx_sums, &mut self.ctx_touched, id, share * n);
                }
            }
        }
        self.fn_sums.add(ctx, e16, n, &mut self.ids);
    }

    /// Adds `n` samples of time event `e16` in context `ctx`, resolved as
    /// `res`: total, explicit, inherited and exclusive blame of each
    /// variable reached (once per sample), its coverage or why it reached
    /// none, the context's sums, and the code-centric sums.
    pub(super) fn add_time_sample(
        &mut self,
        coverage: &mut BTreeMap<(u32, u16), Coverage>,
        ctx: &crate::input::Context,
        e16: u16,
        n: f64,
        res: &Resolution,
    ) {
        self.blamed_ids(res, e16);
        let cov = coverage.entry((self.p, e16)).or_default();
        cov.event = e16;
        cov.samples += n;
        if self.ids.is_empty() {
            let reason = res
                .unexplained
                .as_ref()
                .map(|u| u.to_string())
                .unwrap_or_else(|| "no variable reached".to_string());
            add_reason(cov, &reason, n);
        } else {
            cov.resolved += n;
        }
        for &id in &self.ids {
            self.vars.sums[id].inclusive += n;
            add_context(&mut self.ctx_sums, &mut self.ctx_touched, id, n);
        }
        self.add_explicit(n);
        self.add_exclusive(res, e16, n);
        self.fn_sums.add(ctx, e16, n, &mut self.ids);
    }

    /// The ids of the variables and field paths `res` blames (`ids`) and
    /// blames explicitly (`explicit_ids`): a variable is blamed at most
    /// once per sample, however many frames (recursion) or summaries
    /// (globals) name it.
    fn blamed_ids(&mut self, res: &Resolution, e16: u16) {
        let index = self.index;
        let vars = &mut self.vars;
        for (blamed, derived, into) in [
            (&res.blamed, &res.derived, &mut self.ids),
            (&res.explicit, &res.explicit_derived, &mut self.explicit_ids),
        ] {
            into.clear();
            into.extend(blamed.iter().map(|&v| vars.intern(v, e16)));
            for d in derived {
                for (key, record) in derived_keys_and_records(index, d, e16) {
                    // One row per path: an intermediate path reached without
                    // a type takes the type another context knows.
                    // A path that holds another variable (a member alias:
                    // `solver.x` is main's `x`) is that variable's row, the
                    // same id as where the sample blames it directly.
                    if key.kind != "field" {
                        into.push(id_of_key(
                            &mut vars.keys,
                            &mut vars.sums,
                            &mut vars.key_ids,
                            key,
                            Sums::default,
                        ));
                        continue;
                    }
                    let path = (key.function.clone(), key.name.clone(), key.event);
                    let id = match vars.derived_ids.get(&path) {
                        Some(&id) => {
                            if vars.keys[id].type_name.is_empty() {
                                vars.keys[id].type_name = key.type_name;
                            }
                            id
                        }
                        None => {
                            let leaf_scalar = index.is_scalar_type(&key.type_name);
                            vars.keys.push(key);
                            // A record's blame is inherited wherever the
                            // sample blames a data structure or a result
                            // (the state beside a driver's diagnostics).
                            vars.sums.push(Sums {
                                result: is_result(index, d.base) && !leaf_scalar && !record,
                                ..Sums::default()
                            });
                            vars.derived_ids.insert(path, vars.keys.len() - 1);
                            vars.keys.len() - 1
                        }
                    };
                    into.push(id);
                }
            }
            into.sort_unstable();
            into.dedup();
        }
    }

    /// Explicit blame of the sample's explicitly blamed variables, and a
    /// scalar's inherited blame.
    fn add_explicit(&mut self, n: f64) {
        let (var_keys, var_sums) = (&self.vars.keys, &mut self.vars.sums);
        let explicit_ids = &self.explicit_ids;
        // A scalar's explicit blame is inherited where the same
        // sample blames a data structure, explicitly or through control
        // flow: the loop index of the loop that fills an array, the norm
        // of a vector being computed, the distance a tree walk's opening
        // test computes before it adds into the accelerations.
        // A result's, where the sample blames a data structure of
        // its own function or a global: the vector `x` that
        // `residual = b - A * x` checks, the grid whose min, max and
        // mean are kept to print.
        // (A result is a data structure unless found derived.)
        let structure = self
            .ids
            .iter()
            .any(|&o| !var_keys[o].scalar || var_sums[o].result);
        for &id in explicit_ids {
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
    }

    /// Exclusive blame of the variables (and known field paths) whose
    /// memory the sampled line writes.
    fn add_exclusive(&mut self, res: &Resolution, e16: u16, n: f64) {
        let index = self.index;
        let vars = &mut self.vars;
        let ids = &mut self.ids;
        ids.clear();
        ids.extend(res.exclusive.iter().map(|&v| vars.intern(v, e16)));
        for d in &res.exclusive_derived {
            for key in derived_keys(index, d, e16) {
                let path = (key.function.clone(), key.name.clone(), key.event);
                if let Some(&id) = vars.derived_ids.get(&path) {
                    ids.push(id);
                } else if let Some(&id) = vars.key_ids.get(&key) {
                    ids.push(id);
                }
            }
        }
        ids.sort_unstable();
        ids.dedup();
        for &id in ids.iter() {
            vars.sums[id].exclusive += n;
        }
    }

    /// Ends context `ci`: its sums per variable become records.
    pub(super) fn end_context(&mut self, ci: usize) {
        for id in self.ctx_touched.drain(..) {
            let samples = self.ctx_sums[id].take().expect("touched");
            self.ctx_records.push((id, ci, samples));
        }
    }

    /// Direct attribution of samples that carried data addresses: each
    /// memory event's samples (`is_memory`) to the variable whose heap
    /// block or global holds the address; `direct_unattributed` counts
    /// those no variable's memory holds.
    pub(super) fn add_direct(
        &mut self,
        profile: &ProcessProfile,
        is_memory: impl Fn(usize) -> bool,
        direct_unattributed: &mut f64,
    ) {
        let index = self.index;
        let (var_keys, var_sums, derived_ids) = (
            &mut self.vars.keys,
            &mut self.vars.sums,
            &mut self.vars.derived_ids,
        );
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
                            heap_block_keys(index, function, frames, *e16)
                        })
                        .clone(),
                    DirectTarget::Global(symbol) => global_keys(index, symbol, *e16),
                    DirectTarget::Unattributed => {
                        *direct_unattributed += n;
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
    }
}

/// The keys a heap block of an allocation site (`function`, `frames`)
/// counts for in event `e16`: the variable receiving it and its
/// containers (and a field path below it), else the site's own key.
fn heap_block_keys(
    index: &StaticIndex,
    function: &str,
    frames: &[SymFrame],
    e16: u16,
) -> Vec<VariableKey> {
    match name_allocation(index, function, frames) {
        Some(Named::Var(v)) => with_containers(index, v)
            .into_iter()
            .map(|v| variable_key(index, v, e16))
            .collect(),
        Some(Named::Derived(d)) => {
            let mut keys: Vec<VariableKey> = with_containers(index, d.base)
                .into_iter()
                .map(|v| variable_key(index, v, e16))
                .collect();
            keys.extend(derived_keys(index, &d, e16));
            keys
        }
        None => vec![heap_site_key(function, frames, e16)],
    }
}

/// The keys an address in the global `symbol` counts for in event `e16`:
/// the global and its containers, else a global row of that name.
fn global_keys(index: &StaticIndex, symbol: &str, e16: u16) -> Vec<VariableKey> {
    match global_variable(index, symbol) {
        Some(v) => with_containers(index, v)
            .into_iter()
            .map(|v| variable_key(index, v, e16))
            .collect(),
        None => vec![VariableKey {
            name: symbol.to_string(),
            function: String::new(),
            file: String::new(),
            line: 0,
            type_name: String::new(),
            kind: "global".into(),
            scalar: false,
            event: e16,
        }],
    }
}
