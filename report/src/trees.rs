//! The two trees every export can show, as weighted stacks (root first):
//!
//! - code-centric: the sampled calling contexts (`main` → `foo` → `bar`);
//! - data-centric: variable paths (`foo::se` → `sX`), whose frames are the
//!   function-qualified root variable then each field.
//!
//! Blame is inclusive and overlapping (one sample can blame both `se.sX` and
//! `se.sY`), so a data-centric node's own weight is its blame minus its
//! children's, floored at zero: a node is drawn as wide as the larger of its
//! blame and its children's sum.

use blame_formats::results::{Results, ALL_RANKS};
use std::collections::BTreeMap;

/// Which tree an export shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TreeKind {
    /// Calling contexts.
    Code,
    /// Variables and their fields.
    Data,
}

/// One frame of a weighted stack: its display name, and the file and line
/// where it has them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TreeFrame {
    pub name: String,
    pub file: String,
    pub line: u32,
}

/// A root-first stack with its weight, and the process (rank) it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct WeightedStack {
    pub frames: Vec<TreeFrame>,
    pub weight: f64,
    pub process: u32,
    /// The variable path, for data-centric stacks (used as a pprof label).
    pub variable: Option<String>,
}

/// Index of the event to show or export: by name, else the first with samples.
pub fn event_index(results: &Results, name: Option<&str>) -> Result<usize, String> {
    let events = &results.header.events;
    match name {
        Some(n) => events.iter().position(|e| e.name == n).ok_or_else(|| {
            format!(
                "event {n:?} is not in the results; recorded: {}",
                events
                    .iter()
                    .map(|e| e.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }),
        None => Ok((0..events.len())
            .find(|&e| {
                results
                    .header
                    .processes
                    .iter()
                    .any(|p| p.samples.get(e).copied().unwrap_or(0.0) > 0.0)
            })
            .unwrap_or(0)),
    }
}

/// Code-centric stacks of one event, root first.
pub fn code_stacks(results: &Results, event: usize) -> Vec<WeightedStack> {
    results
        .stacks
        .iter()
        .filter_map(|s| {
            let w = s.samples.get(event).copied().unwrap_or(0.0);
            (w > 0.0).then(|| WeightedStack {
                frames: results
                    .frames_of(s)
                    .rev()
                    .map(|f| TreeFrame {
                        name: f.function.clone(),
                        file: f.file.clone(),
                        line: f.line,
                    })
                    .collect(),
                weight: w,
                process: s.process,
                variable: None,
            })
        })
        .collect()
}

/// Data-centric stacks of one event, per process: `function::root` then
/// fields; variables with internal names ([`crate::views::is_internal_name`],
/// macro temporaries) left out.
pub fn data_stacks(results: &Results, event: usize) -> Vec<WeightedStack> {
    data_stacks_with(results, event, false)
}

/// [`data_stacks`], with every variable when `all_variables`.
pub fn data_stacks_with(
    results: &Results,
    event: usize,
    all_variables: bool,
) -> Vec<WeightedStack> {
    // (process, path) → (blame, file, line)
    let mut nodes: BTreeMap<(u32, Vec<String>), (f64, String, u32)> = BTreeMap::new();
    for v in results.variables.iter().filter(|v| {
        v.key.event as usize == event
            && !v.key.name.is_empty()
            && (all_variables || !crate::views::is_internal_name(&v.key.name))
    }) {
        let mut parts: Vec<String> = v.key.name.split('.').map(str::to_string).collect();
        parts[0] = if v.key.function.is_empty() {
            parts[0].clone()
        } else {
            format!("{}::{}", v.key.function, parts[0])
        };
        for pv in &v.values {
            let e = nodes.entry((pv.process, parts.clone())).or_insert((
                0.0,
                v.key.file.clone(),
                v.key.line,
            ));
            e.0 += pv.inclusive;
        }
    }
    let mut children_sum: BTreeMap<(u32, Vec<String>), f64> = BTreeMap::new();
    for ((p, path), (w, _, _)) in &nodes {
        if path.len() > 1 {
            *children_sum
                .entry((*p, path[..path.len() - 1].to_vec()))
                .or_default() += w;
        }
    }
    nodes
        .iter()
        .filter_map(|((p, path), (w, file, line))| {
            let own = (w - children_sum
                .get(&(*p, path.clone()))
                .copied()
                .unwrap_or(0.0))
            .max(0.0);
            (own > 0.0).then(|| WeightedStack {
                frames: path
                    .iter()
                    .enumerate()
                    .map(|(i, name)| TreeFrame {
                        name: name.clone(),
                        file: if i == path.len() - 1 {
                            file.clone()
                        } else {
                            String::new()
                        },
                        line: if i == path.len() - 1 { *line } else { 0 },
                    })
                    .collect(),
                weight: own,
                process: *p,
                variable: Some(path.join(".")),
            })
        })
        .collect()
}

pub fn stacks(results: &Results, event: usize, tree: TreeKind) -> Vec<WeightedStack> {
    stacks_with(results, event, tree, false)
}

/// [`stacks`]; a data tree with every variable when `all_variables`.
pub fn stacks_with(
    results: &Results,
    event: usize,
    tree: TreeKind,
    all_variables: bool,
) -> Vec<WeightedStack> {
    match tree {
        TreeKind::Code => code_stacks(results, event),
        TreeKind::Data => data_stacks_with(results, event, all_variables),
    }
}

/// A label for a process: `rank N`, or `pid P` for processes without a
/// rank; `all ranks` for the application's stacks of results whose
/// contexts are summed over ranks ([`ALL_RANKS`]).
pub fn process_label(results: &Results, process: u32) -> String {
    if process == ALL_RANKS && results.is_summed() {
        return "all ranks".into();
    }
    match results.header.processes.get(process as usize) {
        Some(p) => match p.rank {
            Some(r) => format!("rank {r}"),
            None => format!("pid {}", p.pid),
        },
        None => format!("process {process}"),
    }
}
