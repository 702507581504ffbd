//! Reduces partial results of shards into one: sums per key and process.
//! Associative and commutative, so the merged result does not depend on the
//! number of shards or the order they finish in.

use crate::error::{PostError, Result};
use blame_formats::results::{ContextBlame, FunctionBlame, ProcessValue, Results, VariableBlame};
use std::collections::BTreeMap;

fn add_values(into: &mut BTreeMap<u32, (f64, f64, BTreeMap<String, f64>)>, values: &[ProcessValue]) {
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

/// Merges results of the same run (same processes and events).
pub fn merge(parts: Vec<Results>) -> Result<Results> {
    let mut parts = parts.into_iter();
    let first = parts.next().ok_or_else(|| PostError::Input("nothing to merge: no partial results found".into()))?;
    let mut header = first.header.clone();
    header.shard = None;
    for p in header.processes.iter_mut() {
        p.samples.iter_mut().for_each(|s| *s = 0.0);
    }
    let mut vars = BTreeMap::new();
    let mut funcs = BTreeMap::new();
    let mut ctxs: BTreeMap<_, f64> = BTreeMap::new();
    for part in std::iter::once(first).chain(parts) {
        if part.header.events != header.events || part.header.processes.len() != header.processes.len() {
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
        header.blame_points.extend(part.header.blame_points.iter().cloned());
        for v in part.variables {
            add_values(vars.entry(v.key).or_default(), &v.values);
        }
        for f in part.functions {
            add_values(funcs.entry(f.key).or_default(), &f.values);
        }
        for c in part.contexts {
            *ctxs.entry((c.variable, c.process, c.frames)).or_default() += c.samples;
        }
    }
    header.blame_points.sort();
    header.blame_points.dedup();
    Ok(Results {
        header,
        variables: vars.into_iter().map(|(key, m)| VariableBlame { key, values: to_values(m) }).collect(),
        functions: funcs.into_iter().map(|(key, m)| FunctionBlame { key, values: to_values(m) }).collect(),
        contexts: ctxs
            .into_iter()
            .map(|((variable, process, frames), samples)| ContextBlame {
                variable,
                process,
                frames,
                samples,
            })
            .collect(),
    })
}
