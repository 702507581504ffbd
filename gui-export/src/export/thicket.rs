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
//! manifest's times).

use crate::trees;
use crate::views::{self, Filters};
use blame_formats::results::Results;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

#[derive(Default)]
struct Node {
    inclusive: f64,
    exclusive: f64,
    explicit: Option<f64>,
    children: BTreeMap<String, Node>,
}

struct Out {
    graph: Map<String, Value>,
    records: Vec<Value>,
    next: usize,
    profile: u64,
    event: String,
}

impl Out {
    fn add(
        &mut self,
        name: &str,
        kind: &str,
        node: &Node,
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
        self.records.push(json!({
            "node": id,
            "profile": self.profile,
            "name": name,
            format!("{} (inc)", self.event): node.inclusive,
            self.event.clone(): node.exclusive,
            "explicit (inc)": node.explicit,
        }));
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

/// The Thicket JSON of one run (`label` names its profile); `metadata`
/// adds to what the results say about the run.
pub fn thicket(
    results: &Results,
    event: Option<&str>,
    all_variables: bool,
    label: &str,
    metadata: &[(String, Value)],
) -> Result<Vec<u8>, String> {
    let view = views::by_variable(
        results,
        &Filters {
            event: event.map(str::to_string),
            all_variables,
            ..Default::default()
        },
    )
    .map_err(|e| e.to_string())?;
    let event_name = view.event.clone();
    let e = trees::event_index(results, Some(&event_name))?;
    let procs = &results.header.processes;
    let app: Vec<bool> = procs.iter().map(|p| !p.launcher).collect();
    let any_app = app.iter().any(|&a| a);
    // Code tree: the application's calling contexts (all processes when none is marked).
    let mut code: BTreeMap<String, Node> = BTreeMap::new();
    for s in trees::code_stacks(results, e) {
        if any_app && !app.get(s.process as usize).copied().unwrap_or(false) {
            continue;
        }
        let Some((first, rest)) = s.frames.split_first() else {
            continue;
        };
        let mut node = code.entry(first.name.clone()).or_default();
        node.inclusive += s.weight;
        for f in rest {
            node = node.children.entry(f.name.clone()).or_default();
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
    let profile = profile_id(label);
    let mut out = Out {
        graph: Map::new(),
        records: Vec::new(),
        next: 0,
        profile,
        event: event_name.clone(),
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
    let ranks: std::collections::BTreeSet<u32> = procs
        .iter()
        .zip(&app)
        .filter(|(_, &a)| a || !any_app)
        .filter_map(|(p, _)| p.rank)
        .collect();
    let hosts: std::collections::BTreeSet<&str> = procs.iter().map(|p| p.host.as_str()).collect();
    let mut meta = Map::new();
    meta.insert("profile".into(), json!(profile));
    meta.insert("run".into(), json!(label));
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
    for (k, v) in metadata {
        meta.insert(k.clone(), v.clone());
    }
    let doc = json!({
        "graph": [out.graph],
        "dataframe_indices": ["node", "profile"],
        "dataframe": out.records,
        "metadata": [meta],
        "inclusive_metrics": [format!("{event_name} (inc)"), "explicit (inc)"],
        "exclusive_metrics": [event_name],
        "profile": [profile],
        "profile_idx_name": "profile",
        "profile_mapping": {profile.to_string(): label},
    });
    Ok(serde_json::to_vec_pretty(&doc).expect("json values serialize"))
}
