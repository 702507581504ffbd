//! speedscope's file format (https://www.speedscope.app/file-format-schema.json):
//! one sampled profile per process, frames shared.

use crate::trees::{TreeFrame, WeightedStack};
use blame_formats::results::Results;
use serde_json::json;
use std::collections::{BTreeMap, HashMap};

pub fn speedscope(
    results: &Results,
    stacks: &[WeightedStack],
    title: &str,
    event: &str,
) -> Vec<u8> {
    let mut frame_ids: HashMap<&TreeFrame, usize> = HashMap::new();
    let mut frames = Vec::new();
    let mut by_process: BTreeMap<u32, (Vec<Vec<usize>>, Vec<f64>)> = BTreeMap::new();
    for s in stacks {
        let ids: Vec<usize> = s
            .frames
            .iter()
            .map(|f| {
                *frame_ids.entry(f).or_insert_with(|| {
                    let mut frame = json!({ "name": f.name });
                    if !f.file.is_empty() {
                        frame["file"] = json!(f.file);
                    }
                    if f.line > 0 {
                        frame["line"] = json!(f.line);
                    }
                    frames.push(frame);
                    frames.len() - 1
                })
            })
            .collect();
        let e = by_process.entry(s.process).or_default();
        e.0.push(ids);
        e.1.push(s.weight);
    }
    let profiles: Vec<serde_json::Value> = by_process
        .into_iter()
        .map(|(p, (samples, weights))| {
            let total: f64 = weights.iter().sum();
            json!({
                "type": "sampled",
                "name": format!("{} ({event})", crate::trees::process_label(results, p)),
                "unit": "none",
                "startValue": 0,
                "endValue": total,
                "samples": samples,
                "weights": weights,
            })
        })
        .collect();
    let doc = json!({
        "$schema": "https://www.speedscope.app/file-format-schema.json",
        "shared": { "frames": frames },
        "profiles": profiles,
        "name": title,
        "activeProfileIndex": 0,
        "exporter": format!("blame {}", env!("CARGO_PKG_VERSION")),
    });
    serde_json::to_vec(&doc).expect("json values serialize")
}
