//! Turns resolved contexts into results: per variable, per function and per
//! (variable, context), each per process. Values are plain sums, so partial
//! results of shards reduce by addition in any order.

use crate::input::ProcessProfile;
use crate::resolve::{resolve, Resolution, VarRef};
use crate::static_index::StaticIndex;
use blame_formats::results::{ContextBlame, FunctionBlame, FunctionKey, ProcessValue, VariableBlame, VariableKey};
use blame_formats::static_db::VarKind;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// Sums for one key across processes: process index → (inclusive, exclusive).
type PerProcess = BTreeMap<u32, (f64, f64)>;

#[derive(Default)]
pub struct Accumulator {
    pub variables: BTreeMap<VariableKey, PerProcess>,
    pub functions: BTreeMap<FunctionKey, PerProcess>,
    pub contexts: BTreeMap<(VariableKey, u32, Vec<blame_formats::results::SymFrame>), f64>,
    /// Process index → samples per event.
    pub totals: BTreeMap<u32, Vec<f64>>,
    pub resolve_time: std::time::Duration,
    pub reduce_time: std::time::Duration,
}

/// The report key of a summary variable.
pub fn variable_key(index: &StaticIndex, (fi, vi): VarRef, event: u16) -> VariableKey {
    let f = &index.functions[fi as usize];
    let v = &f.variables[vi as usize];
    let mut root = v;
    let mut steps = 0;
    while let Some(p) = root.parent {
        root = &f.variables[p as usize];
        steps += 1;
        if steps > f.variables.len() {
            break;
        }
    }
    let global = root.kind == VarKind::Global;
    let kind = match v.kind {
        VarKind::Global => "global",
        VarKind::Field => "field",
        VarKind::Param if v.is_pointer => "heap-via-pointer",
        VarKind::Param => "param",
        VarKind::Return => "return",
        VarKind::Local if v.is_pointer => "heap-via-pointer",
        VarKind::Local => "local",
    };
    VariableKey {
        name: v.name.clone(),
        function: if global { String::new() } else { f.name.clone() },
        file: if global { String::new() } else { f.file.clone() },
        line: v.line,
        type_name: v.type_name.clone(),
        kind: kind.to_string(),
        event,
    }
}

impl Accumulator {
    /// Resolves every context of `profile` (in parallel) and adds it.
    pub fn add_process(&mut self, index: &StaticIndex, profile: &ProcessProfile, nevents: usize) {
        let started = std::time::Instant::now();
        let resolved: Vec<Resolution> = profile.contexts.par_iter().map(|c| resolve(index, &c.frames)).collect();
        self.resolve_time += started.elapsed();
        let started = std::time::Instant::now();
        let p = profile.index;
        let totals = self.totals.entry(p).or_insert_with(|| vec![0.0; nevents]);
        for c in &profile.contexts {
            for (e, n) in c.counts.iter().enumerate() {
                totals[e] += n;
            }
        }
        for (ctx, res) in profile.contexts.iter().zip(&resolved) {
            for (e, &n) in ctx.counts.iter().enumerate() {
                if n == 0.0 {
                    continue;
                }
                let e16 = e as u16;
                // A variable is blamed at most once per sample, however many
                // frames (recursion) or summaries (globals) name it.
                let inclusive: BTreeSet<VariableKey> = res.blamed.iter().map(|&v| variable_key(index, v, e16)).collect();
                let exclusive: BTreeSet<VariableKey> = res.exclusive.iter().map(|&v| variable_key(index, v, e16)).collect();
                for key in &inclusive {
                    self.variables.entry(key.clone()).or_default().entry(p).or_default().0 += n;
                    *self.contexts.entry((key.clone(), p, ctx.frames.clone())).or_default() += n;
                }
                for key in exclusive {
                    self.variables.entry(key).or_default().entry(p).or_default().1 += n;
                }
                let mut seen = BTreeSet::new();
                for (depth, frame) in ctx.frames.iter().enumerate() {
                    let key = FunctionKey {
                        name: crate::symbolize::demangle(&frame.function),
                        file: frame.file.clone(),
                        event: e16,
                    };
                    let entry = self.functions.entry(key.clone()).or_default().entry(p).or_default();
                    if depth == 0 {
                        entry.1 += n;
                    }
                    if seen.insert(key) {
                        entry.0 += n;
                    }
                }
            }
        }
        self.reduce_time += started.elapsed();
    }

    pub fn into_records(self) -> (Vec<VariableBlame>, Vec<FunctionBlame>, Vec<ContextBlame>) {
        let values = |per: PerProcess| {
            per.into_iter()
                .map(|(process, (inclusive, exclusive))| ProcessValue {
                    process,
                    inclusive,
                    exclusive,
                    methods: Vec::new(),
                })
                .collect()
        };
        let variables = self.variables.into_iter().map(|(key, per)| VariableBlame { key, values: values(per) }).collect();
        let functions = self.functions.into_iter().map(|(key, per)| FunctionBlame { key, values: values(per) }).collect();
        let contexts = self
            .contexts
            .into_iter()
            .map(|((variable, process, frames), samples)| ContextBlame {
                variable,
                process,
                frames,
                samples,
            })
            .collect();
        (variables, functions, contexts)
    }
}
