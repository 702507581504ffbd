//! The two trees every export can show, as weighted stacks (root first):
//!
//! - code-centric: the sampled calling contexts (`main` → `foo` → `bar`);
//! - data-centric: variable paths (`foo::se` → `sX`), whose frames are the
//!   function-qualified root variable then each field.
//!
//! A data-centric node weighs its variable's report count (explicit blame);
//! blame is inclusive and overlapping (one sample can blame both `se.sX` and
//! `se.sY`), so where fields add up to more than their struct they share its
//! width ([`data_stacks_with`]): children never outweigh their parent.

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
///
/// Each variable node weighs what `blame report` shows for it (`samples`:
/// its explicit blame), per process. Blame is inclusive and overlaps: one
/// sample can blame several fields of a struct (swapped buffers, fields
/// computed together, a residual computed from an array), so the fields'
/// blame can add up to more than the struct's. Then, from the roots down,
/// the fields that are data structures take the parent's width first (when
/// even they add up to more, the samples of each calling context that blame
/// several are split among them there, `split_factors`, and what still
/// does not fit is scaled down in proportion), and derived
/// scalars (the report's rule: blame mostly inherited from the structures'
/// samples) share what is left, so children never add up to more than
/// their parent; a top-level variable, and a field whose samples are its
/// own, weighs exactly its report count. A node's own weight is its weight
/// minus its children's.
pub fn data_stacks_with(
    results: &Results,
    event: usize,
    all_variables: bool,
) -> Vec<WeightedStack> {
    let shown = |key: &blame_formats::results::VariableKey| {
        key.event as usize == event
            && !key.name.is_empty()
            && (all_variables || !crate::views::is_internal_name(&key.name))
    };
    let (mut nodes, derived) = blamed_nodes(results, &shown);
    add_implied(&mut nodes);
    let children = children_of(&nodes);
    // Bottom-up: an implied node weighs its children's sum.
    let mut by_depth: Vec<NodeKey> = nodes.keys().cloned().collect();
    by_depth.sort_by_key(|(_, path)| std::cmp::Reverse(path.len()));
    weigh_implied(&mut nodes, &children, &by_depth);
    by_depth.reverse();
    let weight = shared_weights(results, &shown, &nodes, &children, &derived, &by_depth);
    own_stacks(&nodes, &children, &weight)
}

/// A data-tree node: (process, path).
type NodeKey = (u32, Vec<String>);
/// Each node's blame (NaN until an implied node is weighed), file and line.
type Nodes = BTreeMap<NodeKey, (f64, String, u32)>;
/// Each node's children's paths.
type Children = BTreeMap<NodeKey, Vec<Vec<String>>>;

/// The nodes of the variables shown, each with its explicit blame per
/// process, and which paths are derived scalars (the report's rule, over
/// the whole run).
fn blamed_nodes(
    results: &Results,
    shown: &dyn Fn(&blame_formats::results::VariableKey) -> bool,
) -> (Nodes, BTreeMap<Vec<String>, bool>) {
    // (process, path) → (blame, file, line)
    let mut nodes: Nodes = BTreeMap::new();
    // Paths of derived scalars (the report's rule, over the whole run).
    let mut derived: BTreeMap<Vec<String>, bool> = BTreeMap::new();
    for v in results.variables.iter().filter(|v| shown(&v.key)) {
        let parts = data_path(&v.key);
        let sum = |f: fn(&blame_formats::results::ProcessValue) -> f64| -> f64 {
            v.values.iter().map(f).sum()
        };
        let is_derived = crate::views::is_derived(
            &v.key,
            sum(|p| p.inclusive),
            sum(|p| p.explicit),
            sum(|p| p.inherited),
        );
        *derived.entry(parts.clone()).or_insert(true) &= is_derived;
        for pv in &v.values {
            let e = nodes.entry((pv.process, parts.clone())).or_insert((
                0.0,
                v.key.file.clone(),
                v.key.line,
            ));
            e.0 += pv.explicit;
        }
    }
    (nodes, derived)
}

/// Paths a field implies but no variable names (a struct never blamed
/// itself), added unweighed (NaN).
fn add_implied(nodes: &mut Nodes) {
    // Paths a field implies but no variable names (a struct never blamed
    // itself) weigh what their children do.
    let implied: Vec<NodeKey> = nodes
        .keys()
        .flat_map(|(p, path)| (1..path.len()).map(move |n| (*p, path[..n].to_vec())))
        .filter(|k| !nodes.contains_key(k))
        .collect();
    for k in implied {
        nodes.insert(k, (f64::NAN, String::new(), 0));
    }
}

/// Each node's children.
fn children_of(nodes: &Nodes) -> Children {
    let mut children: Children = BTreeMap::new();
    for (p, path) in nodes.keys() {
        if path.len() > 1 {
            children
                .entry((*p, path[..path.len() - 1].to_vec()))
                .or_default()
                .push(path.clone());
        }
    }
    children
}

/// Bottom-up (`by_depth`, deepest first): an implied node weighs its
/// children's sum.
fn weigh_implied(nodes: &mut Nodes, children: &Children, by_depth: &[NodeKey]) {
    for key in by_depth {
        if nodes[key].0.is_nan() {
            let sum = children.get(key).map_or(0.0, |kids| {
                kids.iter()
                    .map(|c| nodes[&(key.0, c.clone())].0)
                    .sum::<f64>()
            });
            nodes.get_mut(key).expect("a node").0 = sum;
        }
    }
}

/// Top-down (`by_depth`, roots first): each node's width, children that
/// add up to more than their parent sharing it; data structures first,
/// derived scalars what they leave.
fn shared_weights(
    results: &Results,
    shown: &dyn Fn(&blame_formats::results::VariableKey) -> bool,
    nodes: &Nodes,
    children: &Children,
    derived: &BTreeMap<Vec<String>, bool>,
    by_depth: &[NodeKey],
) -> BTreeMap<NodeKey, f64> {
    // Top-down: children that add up to more than their parent share it.
    // Whole samples stay whole (largest remainders), so a time event's tree
    // keeps integer weights.
    let whole = nodes.values().all(|(w, _, _)| w.fract() == 0.0);
    let mut contexts: Option<ContextsByProcess> = None;
    let mut weight: BTreeMap<NodeKey, f64> = BTreeMap::new();
    for key in by_depth {
        let w = *weight.entry(key.clone()).or_insert(nodes[key].0);
        if let Some(kids) = children.get(key) {
            // Data structures first; derived scalars (whose blame is mostly
            // the same samples as the structures') share what they leave.
            let (scalars, structures): (Vec<&Vec<String>>, Vec<&Vec<String>>) = kids
                .iter()
                .partition(|c| derived.get(*c).copied().unwrap_or(false));
            let mut left = w;
            for group in [structures, scalars] {
                let mut raw: Vec<f64> = group
                    .iter()
                    .map(|c| nodes[&(key.0, (*c).clone())].0)
                    .collect();
                // Samples that blame several of them are split among them,
                // context by context, where the run's contexts say which.
                if raw.iter().sum::<f64>() > left {
                    let contexts =
                        contexts.get_or_insert_with(|| contexts_by_process(results, shown));
                    for (x, f) in raw
                        .iter_mut()
                        .zip(split_factors(contexts, key.0, &key.1, &group))
                    {
                        *x *= f;
                    }
                    if whole {
                        raw.iter_mut().for_each(|x| *x = x.round());
                    }
                }
                for (c, x) in group.iter().zip(share(&raw, left.max(0.0), whole)) {
                    weight.insert((key.0, (*c).clone()), x);
                    left -= x;
                }
            }
        }
    }
    weight
}

/// A stack per node with an own weight (its weight minus its children's).
fn own_stacks(
    nodes: &Nodes,
    children: &Children,
    weight: &BTreeMap<NodeKey, f64>,
) -> Vec<WeightedStack> {
    nodes
        .iter()
        .filter_map(|((p, path), (_, file, line))| {
            let key = (*p, path.clone());
            let kids: f64 = children.get(&key).map_or(0.0, |kids| {
                kids.iter().map(|c| weight[&(*p, c.clone())]).sum()
            });
            // Floating-point dust of a split is no weight.
            let own = weight[&key] - kids;
            (own > 1e-9 * weight[&key].max(1.0)).then(|| WeightedStack {
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

/// `function::root` then each field: a variable's frames in the data tree.
fn data_path(key: &blame_formats::results::VariableKey) -> Vec<String> {
    let mut parts: Vec<String> = key.name.split('.').map(str::to_string).collect();
    if !key.function.is_empty() {
        parts[0] = format!("{}::{}", key.function, parts[0]);
    }
    parts
}

/// Per process, per calling context (stack): each data-tree path's samples.
type ContextsByProcess = BTreeMap<u32, BTreeMap<u32, BTreeMap<Vec<String>, f64>>>;

fn contexts_by_process(
    results: &Results,
    shown: &dyn Fn(&blame_formats::results::VariableKey) -> bool,
) -> ContextsByProcess {
    let mut paths: BTreeMap<u32, Option<Vec<String>>> = BTreeMap::new();
    let mut out = ContextsByProcess::new();
    for c in &results.contexts {
        let path = paths.entry(c.variable).or_insert_with(|| {
            let key = results.context_key(c);
            shown(key).then(|| data_path(key))
        });
        if let Some(path) = path {
            *out.entry(c.process)
                .or_default()
                .entry(c.stack)
                .or_default()
                .entry(path.clone())
                .or_default() += c.samples;
        }
    }
    out
}

/// For each of `kids` of `parent` (in `process`), the share of its blame
/// it keeps when every calling context's samples that blame several of
/// them are split among them: in a context where the children add up to
/// more than the parent, each keeps its part of the parent's samples there.
/// 1 for a child without contexts (the proportional share then applies).
fn split_factors(
    contexts: &ContextsByProcess,
    process: u32,
    parent: &[String],
    kids: &[&Vec<String>],
) -> Vec<f64> {
    let mut kept = vec![0.0; kids.len()];
    let mut all = vec![0.0; kids.len()];
    for paths in contexts.get(&process).into_iter().flat_map(|s| s.values()) {
        let of = |p: &[String]| paths.get(p).copied().unwrap_or(0.0);
        let here: Vec<f64> = kids.iter().map(|k| of(k)).collect();
        let sum: f64 = here.iter().sum();
        if sum <= 0.0 {
            continue;
        }
        // A parent that is no variable of its own (or not blamed here)
        // holds what its heaviest child does.
        let cap = of(parent).max(here.iter().copied().fold(0.0, f64::max));
        for i in 0..kids.len() {
            all[i] += here[i];
            kept[i] += if sum > cap {
                here[i] * cap / sum
            } else {
                here[i]
            };
        }
    }
    kept.iter()
        .zip(&all)
        .map(|(k, a)| if *a > 0.0 { k / a } else { 1.0 })
        .collect()
}

/// `raw` children's weights under a parent of weight `parent`: as they are
/// when they fit, else scaled to add up to the parent; with `whole`
/// weights, rounded by largest remainders (ties to the first) so they stay
/// whole and still add up to the parent.
pub(crate) fn share(raw: &[f64], parent: f64, whole: bool) -> Vec<f64> {
    let sum: f64 = raw.iter().sum();
    if sum <= parent || sum <= 0.0 {
        return raw.to_vec();
    }
    let scaled: Vec<f64> = raw.iter().map(|x| x * parent / sum).collect();
    if !whole {
        return scaled;
    }
    let mut out: Vec<f64> = scaled.iter().map(|x| x.floor()).collect();
    let mut left = (parent - out.iter().sum::<f64>()).round() as usize;
    let mut order: Vec<usize> = (0..raw.len()).collect();
    order.sort_by(|&a, &b| {
        (scaled[b] - out[b])
            .total_cmp(&(scaled[a] - out[a]))
            .then(a.cmp(&b))
    });
    for i in order {
        if left == 0 {
            break;
        }
        out[i] += 1.0;
        left -= 1;
    }
    out
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
