//! Hatchet's literal format (`GraphFrame.from_literal`): a list of root
//! nodes, each `{"frame": {"name", "type"}, "metrics": {...}, "children": [...]}`,
//! with inclusive and exclusive metrics per node, summed over processes.

use crate::trees::WeightedStack;
use blame_formats::results::Results;
use serde_json::{json, Value};
use std::collections::BTreeMap;

#[derive(Default)]
struct Node {
    inclusive: f64,
    exclusive: f64,
    children: BTreeMap<String, Node>,
}

fn to_value(name: &str, node: &Node, kind: &str, metric: &str) -> Value {
    json!({
        "frame": { "name": name, "type": kind },
        "metrics": { format!("{metric} (inc)"): node.inclusive, metric: node.exclusive },
        "children": node.children.iter().map(|(n, c)| to_value(n, c, kind, metric)).collect::<Vec<_>>(),
    })
}

pub fn hatchet(_results: &Results, stacks: &[WeightedStack], event: &str) -> Vec<u8> {
    let mut roots: BTreeMap<String, Node> = BTreeMap::new();
    let data = stacks.iter().any(|s| s.variable.is_some());
    for s in stacks {
        let Some((first, rest)) = s.frames.split_first() else {
            continue;
        };
        let mut node = roots.entry(first.name.clone()).or_default();
        node.inclusive += s.weight;
        for f in rest {
            node = node.children.entry(f.name.clone()).or_default();
            node.inclusive += s.weight;
        }
        node.exclusive += s.weight;
    }
    let kind = if data { "variable" } else { "function" };
    let list: Vec<Value> = roots
        .iter()
        .map(|(n, node)| to_value(n, node, kind, event))
        .collect();
    serde_json::to_vec_pretty(&list).expect("json values serialize")
}
