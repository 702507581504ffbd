//! Thicket's JSON (`thicket.Thicket.from_json`): Hatchet's graph-frame JSON
//! (`graph`: nodes by id with their frame, children and parents;
//! `dataframe`: one record per node and profile) plus the profile and its
//! metadata. Two trees side by side: the code tree (calling contexts, frames
//! of type `function`) and the data tree, a root `variables` (type `data`)
//! whose children are the variables (`function::name`, type `variable`) and
//! their fields (type `field`). Metrics: `EVENT (inc)` (inclusive samples;
//! for variables their total blame), `EVENT` (exclusive samples; for
//! variables the part their fields do not cover) and `explicit (inc)`
//! (a variable's explicit blame). One run is one profile, its metadata the
//! command, ranks, hosts, event and samples, plus what the caller adds (the
//! manifest's times, parameters, git revision). Several runs (an ensemble)
//! are several profiles of one graph, the union of their trees; a node a
//! run does not have is 0 in that run's rows. Code-tree rows carry the
//! function's region class (`class`: MPI, WRP, COM, USR; see
//! [`crate::regions`]).

use super::ExportError;
use crate::trees;
use crate::views::{self, Filters};
use blame_formats::results::{Results, ALL_RANKS};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

#[derive(Default)]
struct Node {
    inclusive: f64,
    exclusive: f64,
    explicit: Option<f64>,
    children: BTreeMap<String, Node>,
}

/// The union of the runs' trees: per node, per profile (inclusive, exclusive, explicit).
#[derive(Default)]
struct UNode {
    values: BTreeMap<usize, (f64, f64, Option<f64>)>,
    children: BTreeMap<String, UNode>,
}

impl UNode {
    fn merge(&mut self, node: &Node, k: usize) {
        self.values
            .insert(k, (node.inclusive, node.exclusive, node.explicit));
        for (n, c) in &node.children {
            self.children.entry(n.clone()).or_default().merge(c, k);
        }
    }
}

struct Out<'a> {
    graph: Map<String, Value>,
    records: Vec<Value>,
    next: usize,
    profiles: &'a [u64],
    event: String,
    classes: &'a std::collections::HashMap<String, crate::regions::RegionClass>,
}

impl Out<'_> {
    fn add(
        &mut self,
        name: &str,
        kind: &str,
        node: &UNode,
        parent: Option<usize>,
        child_kind: &dyn Fn(usize) -> &'static str,
        depth: usize,
    ) -> usize {
        let id = self.next;
        self.next += 1;
        let mut children = Vec::new();
        for (n, c) in &node.children {
            children.push(self.add(n, child_kind(depth + 1), c, Some(id), child_kind, depth + 1));
        }
        self.graph.insert(
            id.to_string(),
            json!({
                "data": {"name": name, "type": kind},
                "children": children,
                "parents": parent.into_iter().collect::<Vec<_>>(),
            }),
        );
        let class = (kind == "function").then(|| {
            self.classes
                .get(name)
                .copied()
                .unwrap_or(crate::regions::RegionClass::Usr)
        });
        let code = kind == "function";
        for (k, &profile) in self.profiles.iter().enumerate() {
            let (inc, exc, explicit) =
                node.values
                    .get(&k)
                    .copied()
                    .unwrap_or((0.0, 0.0, (!code).then_some(0.0)));
            self.records.push(json!({
                "node": id,
                "profile": profile,
                "name": name,
                format!("{} (inc)", self.event): inc,
                self.event.clone(): exc,
                "explicit (inc)": explicit,
                "class": class,
            }));
        }
        id
    }
}

/// A stable profile id for the run (Thicket hashes its profiles too).
fn profile_id(label: &str) -> u64 {
    // FNV-1a, kept in JavaScript's and pandas' exact integer range.
    let mut h: u64 = 0xcbf29ce484222325;
    for b in label.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h & ((1 << 53) - 1)
}

/// One run of an ensemble: its results, its profile's name and metadata
/// beyond what the results say.
pub struct ThicketRun<'a> {
    pub results: &'a Results,
    pub label: String,
    pub metadata: Vec<(String, Value)>,
}

/// The Thicket JSON of one run (`label` names its profile); `metadata`
/// adds to what the results say about the run.
pub fn thicket(
    results: &Results,
    event: Option<&str>,
    all_variables: bool,
    label: &str,
    metadata: &[(String, Value)],
) -> Result<Vec<u8>, ExportError> {
    thicket_runs(
        &[ThicketRun {
            results,
            label: label.to_string(),
            metadata: metadata.to_vec(),
        }],
        event,
        all_variables,
    )
}

/// One run's trees and metadata.
struct RunTrees {
    code: BTreeMap<String, Node>,
    data: Node,
    meta: Map<String, Value>,
    event: String,
}

fn run_trees(
    run: &ThicketRun,
    event: Option<&str>,
    all_variables: bool,
    profile: u64,
) -> Result<RunTrees, ExportError> {
    let results = run.results;
    let view = views::by_variable(
        results,
        &Filters {
            event: event.map(str::to_string),
            all_variables,
            ..Default::default()
        },
    )?;
    let event_name = view.event.clone();
    let e = crate::views::event_index(results, Some(&event_name))?;
    let procs = &results.header.processes;
    let app: Vec<bool> = procs.iter().map(|p| !p.launcher).collect();
    let any_app = app.iter().any(|&a| a);
    // Code tree: the application's calling contexts (all processes when none is marked).
    let mut code: BTreeMap<String, Node> = BTreeMap::new();
    for s in trees::code_stacks(results, e) {
        // Summed results: the application's stacks are all ranks' at once.
        let summed_app = s.process == ALL_RANKS && results.is_summed();
        if any_app && !summed_app && !app.get(s.process as usize).copied().unwrap_or(false) {
            continue;
        }
        let Some((first, rest)) = s.frames.split_first() else {
            continue;
        };
        let mut node = code
            .entry(crate::regions::demangle(&first.name))
            .or_default();
        node.inclusive += s.weight;
        for f in rest {
            node = node
                .children
                .entry(crate::regions::demangle(&f.name))
                .or_default();
            node.inclusive += s.weight;
        }
        node.exclusive += s.weight;
    }
    // Data tree: the by-variable view's rows by path.
    let mut data = Node::default();
    for r in &view.variables {
        let mut parts: Vec<String> = r.name.split('.').map(str::to_string).collect();
        if !r.function.is_empty() {
            parts[0] = format!("{}::{}", r.function, parts[0]);
        }
        let mut node = &mut data;
        for p in &parts {
            node = node.children.entry(p.clone()).or_default();
        }
        node.inclusive += r.samples;
        node.explicit = Some(node.explicit.unwrap_or(0.0) + r.explicit);
    }
    fn own(node: &mut Node) {
        let children: f64 = node.children.values().map(|c| c.inclusive).sum();
        node.exclusive = (node.inclusive - children).max(0.0);
        node.children.values_mut().for_each(own);
    }
    data.children.values_mut().for_each(own);
    data.inclusive = view.variables.iter().map(|r| r.samples).fold(0.0, f64::max);
    let ranks: std::collections::BTreeSet<u32> = procs
        .iter()
        .zip(&app)
        .filter(|(_, &a)| a || !any_app)
        .filter_map(|(p, _)| p.rank)
        .collect();
    let hosts: std::collections::BTreeSet<&str> = procs.iter().map(|p| &*p.host).collect();
    let mut meta = Map::new();
    meta.insert("profile".into(), json!(profile));
    meta.insert("run".into(), json!(run.label));
    meta.insert(
        "command".into(),
        json!(procs
            .iter()
            .zip(&app)
            .find(|(_, &a)| a)
            .or(procs.iter().zip(&app).next())
            .map(|(p, _)| p.command.join(" "))
            .unwrap_or_default()),
    );
    meta.insert("ranks".into(), json!(ranks.len()));
    meta.insert(
        "hosts".into(),
        json!(hosts.into_iter().collect::<Vec<_>>().join(",")),
    );
    meta.insert("event".into(), json!(event_name));
    meta.insert("samples".into(), json!(view.total_samples));
    if let Some(c) = &view.coverage {
        meta.insert("coverage_percent".into(), json!(c.percent));
    }
    meta.insert("producer".into(), json!(results.header.producer));
    for (k, v) in &run.metadata {
        meta.insert(k.clone(), v.clone());
    }
    Ok(RunTrees {
        code,
        data,
        meta,
        event: event_name,
    })
}

/// The Thicket JSON of an ensemble: one profile per run, in run order,
/// over the union of their trees. Runs must share the event.
pub fn thicket_runs(
    runs: &[ThicketRun],
    event: Option<&str>,
    all_variables: bool,
) -> Result<Vec<u8>, ExportError> {
    if runs.is_empty() {
        return Err(ExportError::NoRuns);
    }
    let mut profiles: Vec<u64> = Vec::new();
    let mut trees = Vec::new();
    for run in runs {
        let mut id = profile_id(&run.label);
        while profiles.contains(&id) {
            id = (id + 1) & ((1 << 53) - 1);
        }
        profiles.push(id);
        let event = event.or(trees.first().map(|t: &RunTrees| t.event.as_str()));
        let t = run_trees(run, event, all_variables, id)?;
        trees.push(t);
    }
    let event_name = trees[0].event.clone();
    if let Some(t) = trees.iter().find(|t| t.event != event_name) {
        return Err(ExportError::DifferentEvents {
            first: event_name,
            other: t.event.clone(),
        });
    }
    let mut code: BTreeMap<String, UNode> = BTreeMap::new();
    let mut data = UNode::default();
    let mut classes = std::collections::HashMap::new();
    for (k, (t, run)) in trees.iter().zip(runs).enumerate() {
        for (name, node) in &t.code {
            code.entry(name.clone()).or_default().merge(node, k);
        }
        data.merge(&t.data, k);
        for (name, class) in crate::regions::classes(run.results) {
            let e = classes.entry(name).or_insert(class);
            *e = (*e).min(class);
        }
    }
    let mut out = Out {
        graph: Map::new(),
        records: Vec::new(),
        next: 0,
        profiles: &profiles,
        event: event_name.clone(),
        classes: &classes,
    };
    for (name, node) in &code {
        out.add(name, "function", node, None, &|_| "function", 0);
    }
    out.add(
        "variables",
        "data",
        &data,
        None,
        &|depth| if depth == 1 { "variable" } else { "field" },
        0,
    );
    let doc = json!({
        "graph": [out.graph],
        "dataframe_indices": ["node", "profile"],
        "dataframe": out.records,
        "metadata": trees.iter().map(|t| Value::Object(t.meta.clone())).collect::<Vec<_>>(),
        "inclusive_metrics": [format!("{event_name} (inc)"), "explicit (inc)"],
        "exclusive_metrics": [event_name],
        "profile": profiles,
        "profile_idx_name": "profile",
        "profile_mapping": profiles
            .iter()
            .zip(runs)
            .map(|(p, r)| (p.to_string(), Value::from(r.label.clone())))
            .collect::<Map<String, Value>>(),
    });
    Ok(serde_json::to_vec_pretty(&doc).expect("json values serialize"))
}
