//! Reduces partial results of shards into one: sums per key and process.
//! Associative and commutative, so the merged result does not depend on the
//! number of shards or the order they finish in.

use crate::error::{PostError, Result};
use blame_formats::results::{
    ContextBlame, FunctionBlame, ProcessValue, Results, StackRecord, SymFrame, VariableBlame,
    VariableKey,
};
use std::collections::BTreeMap;

fn add_values(
    into: &mut BTreeMap<u32, (f64, f64, BTreeMap<String, f64>)>,
    values: &[ProcessValue],
) {
    for v in values {
        let e = into.entry(v.process).or_default();
        e.0 += v.inclusive;
        e.1 += v.exclusive;
        for (m, x) in &v.methods {
            *e.2.entry(m.clone()).or_default() += x;
        }
    }
}

fn to_values(m: BTreeMap<u32, (f64, f64, BTreeMap<String, f64>)>) -> Vec<ProcessValue> {
    m.into_iter()
        .map(|(process, (inclusive, exclusive, methods))| ProcessValue {
            process,
            inclusive,
            exclusive,
            methods: methods.into_iter().collect(),
        })
        .collect()
}

/// Deduplicates stacks by (process, frames), sums their samples, renumbers
/// them in sorted order and sums contexts per (variable, process, stack):
/// the same calling contexts give the same records however they were split.
pub fn canonical_contexts(
    parts: Vec<(Vec<StackRecord>, Vec<ContextBlame>)>,
) -> (Vec<StackRecord>, Vec<ContextBlame>) {
    let mut stacks: BTreeMap<(u32, Vec<SymFrame>), Vec<f64>> = BTreeMap::new();
    let mut remaps = Vec::new();
    for (part_stacks, _) in &parts {
        let mut keys = Vec::with_capacity(part_stacks.len());
        for st in part_stacks {
            let key = (st.process, st.frames.clone());
            let sums = stacks.entry(key.clone()).or_default();
            if sums.len() < st.samples.len() {
                sums.resize(st.samples.len(), 0.0);
            }
            for (a, b) in sums.iter_mut().zip(&st.samples) {
                *a += b;
            }
            keys.push(key);
        }
        remaps.push(keys);
    }
    let ids: BTreeMap<&(u32, Vec<SymFrame>), u32> = stacks
        .keys()
        .enumerate()
        .map(|(i, k)| (k, i as u32))
        .collect();
    let mut contexts: BTreeMap<(VariableKey, u32, u32), f64> = BTreeMap::new();
    for ((_, part_contexts), keys) in parts.iter().zip(&remaps) {
        for c in part_contexts {
            let Some(key) = keys.get(c.stack as usize) else {
                continue;
            };
            *contexts
                .entry((c.variable.clone(), c.process, ids[key]))
                .or_default() += c.samples;
        }
    }
    let contexts = contexts
        .into_iter()
        .map(|((variable, process, stack), samples)| ContextBlame {
            variable,
            process,
            stack,
            samples,
        })
        .collect();
    let stacks = stacks
        .into_iter()
        .map(|((process, frames), samples)| StackRecord {
            process,
            frames,
            samples,
        })
        .collect();
    (stacks, contexts)
}

/// Merges results of the same run (same processes and events).
pub fn merge(parts: Vec<Results>) -> Result<Results> {
    let mut parts = parts.into_iter();
    let first = parts
        .next()
        .ok_or_else(|| PostError::Input("nothing to merge: no partial results found".into()))?;
    let mut header = first.header.clone();
    header.shard = None;
    for p in header.processes.iter_mut() {
        p.samples.iter_mut().for_each(|s| *s = 0.0);
    }
    let mut vars = BTreeMap::new();
    let mut funcs = BTreeMap::new();
    let mut stack_parts = Vec::new();
    for part in std::iter::once(first).chain(parts) {
        if part.header.events != header.events
            || part.header.processes.len() != header.processes.len()
        {
            return Err(PostError::Input("partial results come from different runs (events or processes differ); remove stale shard files and re-run `blame post`".into()));
        }
        for (into, from) in header.processes.iter_mut().zip(&part.header.processes) {
            if into.samples.len() < from.samples.len() {
                into.samples.resize(from.samples.len(), 0.0);
            }
            for (a, b) in into.samples.iter_mut().zip(&from.samples) {
                *a += b;
            }
        }
        header
            .blame_points
            .extend(part.header.blame_points.iter().cloned());
        for v in part.variables {
            add_values(vars.entry(v.key).or_default(), &v.values);
        }
        for f in part.functions {
            add_values(funcs.entry(f.key).or_default(), &f.values);
        }
        stack_parts.push((part.stacks, part.contexts));
    }
    let (stacks, contexts) = canonical_contexts(stack_parts);
    header.blame_points.sort();
    header.blame_points.dedup();
    Ok(Results {
        header,
        variables: vars
            .into_iter()
            .map(|(key, m)| VariableBlame {
                key,
                values: to_values(m),
            })
            .collect(),
        functions: funcs
            .into_iter()
            .map(|(key, m)| FunctionBlame {
                key,
                values: to_values(m),
            })
            .collect(),
        stacks,
        contexts,
    })
}
