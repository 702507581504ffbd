//! The crates depend on each other only in the pipeline's direction
//! (ARCHITECTURE.md): `formats` on none of them; the stages on `formats`;
//! the recorder and the post-processor's perf.data import on the capture
//! layer; the daemon on the sampler; only the `blame` binaries on everything.
//! Read from each crate's Cargo.toml, so a new arrow has to be added here,
//! in plain sight.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The workspace crates each crate may depend on.
const ALLOWED: &[(&str, &[&str])] = &[
    ("formats", &[]),
    // The capture layer: records to process images, for the recorder and
    // the perf.data importer.
    ("capture", &["blame-formats"]),
    ("sampler", &["blame-formats", "blame-capture"]),
    ("blame-static", &["blame-formats"]),
    // perf.data captures through the capture layer, never the recorder.
    ("blame-post", &["blame-formats", "blame-capture"]),
    ("gui-export", &["blame-formats"]),
    ("bitcode-capture", &["blame-formats"]),
    (
        "daemon",
        &["blame-formats", "blame-capture", "blame-sampler"],
    ),
];

/// The `blame-*` path dependencies of a Cargo.toml (normal and dev).
fn workspace_deps(manifest: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line.ends_with("dependencies]");
            continue;
        }
        if in_deps && line.contains("path =") {
            if let Some(name) = line.split('=').next() {
                let name = name.trim();
                if name.starts_with("blame-") {
                    out.insert(name.to_string());
                }
            }
        }
    }
    out
}

#[test]
fn crates_depend_only_in_the_pipelines_direction() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let members: Vec<&str> = workspace
        .lines()
        .find(|l| l.starts_with("members"))
        .unwrap()
        .split('"')
        .skip(1)
        .step_by(2)
        .collect();
    let allowed: BTreeMap<&str, BTreeSet<String>> = ALLOWED
        .iter()
        .map(|(c, deps)| (*c, deps.iter().map(|d| d.to_string()).collect()))
        .collect();
    for member in &members {
        let manifest = std::fs::read_to_string(root.join(member).join("Cargo.toml")).unwrap();
        let deps = workspace_deps(&manifest);
        let ok = allowed.get(member).unwrap_or_else(|| {
            panic!("crate {member} is not in ALLOWED: say what it may depend on")
        });
        let extra: Vec<&String> = deps.difference(ok).collect();
        assert!(
            extra.is_empty(),
            "{member} depends on {extra:?}, against the pipeline's direction (ARCHITECTURE.md)"
        );
    }
    assert_eq!(members.len(), ALLOWED.len(), "{members:?}");
}
