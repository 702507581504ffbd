//! ARCHITECTURE.md, its module-by-module code map (docs/code-map.md) and
//! README.md name only files and folders that exist, and ARCHITECTURE.md
//! stays short enough to read at once (at most 200 lines).
//! A name in backticks that looks like a path (it has a `/`, or ends with a
//! source or script extension) must be a file or folder of the repository:
//! from the root (`capture/src/locate.rs`), or below a folder the text is
//! about (`analysis/graph.rs` in blame-static's section), or, for a bare
//! file name (`resolve.rs`), somewhere in the tree. A module renamed or
//! removed without the documents following fails here.

use std::collections::BTreeSet;
use std::path::Path;

const EXTENSIONS: &[&str] = &[
    ".rs", ".md", ".sh", ".py", ".c", ".cpp", ".h", ".toml", ".png",
];

/// Every file and folder under `root`, as `/`-separated paths relative to it
/// (build output and version control left out).
fn tree(root: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == "target" || name == ".git" || name == "node_modules" {
                continue;
            }
            let path = entry.path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if entry.file_type().unwrap().is_dir() {
                out.insert(format!("{rel}/"));
                stack.push(path);
            } else {
                out.insert(rel);
            }
        }
    }
    out
}

/// The backticked names of `text` that look like repository paths.
fn named_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, span) in text.split('`').enumerate() {
        // Odd pieces are inside backticks.
        if i % 2 == 0 || span.is_empty() || span.contains(char::is_whitespace) {
            continue;
        }
        // Absolute and environment paths, patterns, build output, and
        // names made at run time (`DB.queue/`, `.blame/static.db`,
        // `memory-PID.json`, `DIR/node-HOST.bnode`) are not the
        // repository's.
        if span.starts_with(['/', '$', '.', '~', '-', '"'])
            || span.contains(['*', '$', '{', '<', ':', '=', '(', ','])
            || span.starts_with("target/")
            || span.starts_with("run/")
            || span
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|w| !w.is_empty() && w.len() <= 4 && w.chars().all(|c| c.is_ascii_uppercase()))
        {
            continue;
        }
        let looks_like_path = span.contains('/') || EXTENSIONS.iter().any(|e| span.ends_with(e));
        if looks_like_path && span.chars().any(|c| c.is_ascii_alphabetic()) {
            out.push(span.to_string());
        }
    }
    out
}

fn exists(tree: &BTreeSet<String>, name: &str) -> bool {
    let dir = format!("{}/", name.trim_end_matches('/'));
    tree.contains(name)
        || tree.contains(&dir)
        || tree
            .iter()
            .any(|p| p.ends_with(&format!("/{name}")) || p.ends_with(&format!("/{dir}")))
}

#[test]
fn architecture_and_readme_name_only_paths_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tree = tree(root);
    let mut missing = Vec::new();
    for doc in ["ARCHITECTURE.md", "docs/code-map.md", "README.md"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        for name in named_paths(&text) {
            if !exists(&tree, &name) {
                missing.push(format!("{doc}: `{name}`"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "paths named in the documents that do not exist:\n{}",
        missing.join("\n")
    );
}

#[test]
fn architecture_md_is_at_most_200_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lines = std::fs::read_to_string(root.join("ARCHITECTURE.md"))
        .unwrap()
        .lines()
        .count();
    assert!(
        lines <= 200,
        "ARCHITECTURE.md has {lines} lines; detail goes to docs/code-map.md"
    );
}

#[test]
fn the_check_finds_paths_and_skips_what_is_not_one() {
    let names = named_paths(
        "`capture/src/locate.rs` and `resolve.rs`, `$BLAME_DB`, `/usr/lib`, `a b`, \
         `DB.units/`, `tests_*.rs`, `--stack-size`, `x = y`, `blame report`, \
         `memory-PID.json`, `DIR/node-HOST.bnode`, `target/release/`, `README.md`",
    );
    assert_eq!(names, ["capture/src/locate.rs", "resolve.rs", "README.md"]);
    let tree: BTreeSet<String> = ["capture/", "capture/src/", "capture/src/locate.rs"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert!(exists(&tree, "capture/src/locate.rs"));
    assert!(exists(&tree, "src/locate.rs"));
    assert!(exists(&tree, "locate.rs"));
    assert!(exists(&tree, "capture/"));
    assert!(!exists(&tree, "analysis.rs"));
}
