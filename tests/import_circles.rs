//! No circles of imports between the files of a crate: a file names
//! another file's items (`use crate::a::b`, `crate::a::f()`, `super::x`),
//! and following those names from any file never leads back to it. A file
//! naming its own ancestors (a child module using its parent's items) is
//! not counted: the parent declares the child, so that is one unit.
//!
//! `KNOWN` lists the circles not yet broken (ARCHITECTURE.md); the check
//! fails on a circle that is not listed and on a listed one that is gone,
//! so the list shrinks as they are broken and never grows.

use std::collections::{BTreeMap, BTreeSet};
mod source_tree;
use source_tree::{rust_files, Files, CRATES};
use std::path::{Path, PathBuf};

/// Circles not yet broken, each as its files (relative to the workspace
/// root) in sorted order, joined by " ".
const KNOWN: &[&str] = &[];

/// Every file of a crate's tree, tests too (they import as the rest do);
/// another binary's tree (`src/bin/`) is a crate of its own.
const ALL: Files = Files {
    skip_bin: true,
    skip_test_files: false,
};

/// The module path of a source file below `src` (`a/b.rs` and `a/b/mod.rs`
/// are `a::b`; `lib.rs`, `main.rs` are the root).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_string());
    }
    parts
}

/// The code of `text` without comments, string literals and `#[cfg(test)]`
/// modules (tests may reach anywhere).
fn code_of(text: &str) -> String {
    let mut out = String::new();
    let mut skip_depth: Option<usize> = None;
    let mut depth = 0usize;
    let mut pending_test = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("//") {
            continue;
        }
        if t.starts_with("#[cfg(test)]") {
            pending_test = true;
            continue;
        }
        let line = match line.find("//") {
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        };
        // Strings: drop what is between quotes.
        let mut code = String::new();
        let mut in_str = false;
        let mut prev = ' ';
        for c in line.chars() {
            if c == '"' && prev != '\\' {
                in_str = !in_str;
            } else if !in_str {
                code.push(c);
            }
            prev = c;
        }
        let opens = code.matches('{').count();
        let closes = code.matches('}').count();
        if pending_test && opens > 0 && skip_depth.is_none() {
            skip_depth = Some(depth);
            pending_test = false;
        } else if pending_test && !code.trim().is_empty() && opens == 0 {
            // `#[cfg(test)] use ...;` or `mod tests;`: one item.
            pending_test = false;
            continue;
        }
        depth = (depth + opens).saturating_sub(closes);
        match skip_depth {
            Some(d) if depth <= d => skip_depth = None,
            Some(_) => {}
            None => {
                out.push_str(&code);
                out.push('\n');
            }
        }
    }
    out
}

/// The paths a file's code names: `crate::a::b` (with `use crate::{a,
/// b::c}` groups expanded one level) and `super::x` resolved from `module`.
fn named_paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let ident = |s: &str| -> Vec<String> {
        let mut parts = Vec::new();
        let mut rest = s;
        loop {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            if end == 0 {
                break;
            }
            parts.push(rest[..end].to_string());
            rest = &rest[end..];
            match rest.strip_prefix("::") {
                Some(r) if r.starts_with(|c: char| c.is_alphanumeric() || c == '_') => rest = r,
                _ => break,
            }
        }
        parts
    };
    for (prefix, base) in [
        ("crate::", Vec::new()),
        ("super::", module[..module.len().saturating_sub(1)].to_vec()),
    ] {
        let mut rest = code;
        while let Some(i) = rest.find(prefix) {
            let before = rest[..i].chars().last();
            rest = &rest[i + prefix.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            if let Some(group) = rest.strip_prefix('{') {
                let body = &group[..group.find('}').unwrap_or(group.len())];
                for item in body.split(',') {
                    let mut p = base.clone();
                    p.extend(ident(item.trim()));
                    out.push(p);
                }
            } else {
                let mut p = base.clone();
                let parts = ident(rest);
                // `crate::a::{b, c}`: the group's names below `a`.
                let after: usize = parts.iter().map(|s| s.len() + 2).sum();
                if let Some(group) = rest.get(after..).and_then(|r| r.strip_prefix('{')) {
                    let body = &group[..group.find('}').unwrap_or(group.len())];
                    for item in body.split(',') {
                        let mut q = base.clone();
                        q.extend(parts.iter().cloned());
                        q.extend(ident(item.trim()));
                        out.push(q);
                    }
                }
                p.extend(parts);
                out.push(p);
            }
        }
    }
    out
}

/// Tarjan's algorithm over `adj`: `groups` are the strongly connected
/// components.
struct Tarjan<'a> {
    adj: &'a [Vec<usize>],
    index: Vec<usize>,
    low: Vec<usize>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    next: usize,
    groups: Vec<Vec<usize>>,
}

impl Tarjan<'_> {
    fn visit(&mut self, v: usize) {
        self.index[v] = self.next;
        self.low[v] = self.next;
        self.next += 1;
        self.stack.push(v);
        self.on_stack[v] = true;
        for &w in &self.adj[v] {
            if self.index[w] == usize::MAX {
                self.visit(w);
                self.low[v] = self.low[v].min(self.low[w]);
            } else if self.on_stack[w] {
                self.low[v] = self.low[v].min(self.index[w]);
            }
        }
        if self.low[v] == self.index[v] {
            let mut group = Vec::new();
            while let Some(w) = self.stack.pop() {
                self.on_stack[w] = false;
                group.push(w);
                if w == v {
                    break;
                }
            }
            self.groups.push(group);
        }
    }
}

/// Circles of one crate: strongly connected groups of two or more files.
fn circles(root: &Path, src: &str) -> Vec<String> {
    let dir = root.join(src);
    let files = rust_files(&dir, ALL);
    assert!(!files.is_empty(), "{src}: no source files found");
    let modules: BTreeMap<Vec<String>, PathBuf> = files
        .iter()
        .map(|f| (module_of(&dir, f), f.clone()))
        .collect();
    let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (module, file) in &modules {
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        for path in named_paths(&code, module) {
            // The longest prefix of the path that is a module file.
            let target = (1..=path.len())
                .rev()
                .find_map(|n| modules.get(&path[..n]).map(|f| (n, f)));
            let Some((n, target)) = target else { continue };
            // Itself, or one of its ancestors.
            if target == file || (n <= module.len() && module[..n] == path[..n]) {
                continue;
            }
            edges
                .entry(file.clone())
                .or_default()
                .insert(target.clone());
        }
    }
    // Tarjan's strongly connected components.
    let nodes: Vec<&PathBuf> = modules.values().collect();
    let index_of: BTreeMap<&PathBuf, usize> =
        nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let adj: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            edges
                .get(*n)
                .into_iter()
                .flatten()
                .filter_map(|t| index_of.get(t).copied())
                .collect()
        })
        .collect();
    let mut t = Tarjan {
        adj: &adj,
        index: vec![usize::MAX; nodes.len()],
        low: vec![0; nodes.len()],
        on_stack: vec![false; nodes.len()],
        stack: Vec::new(),
        next: 0,
        groups: Vec::new(),
    };
    for v in 0..nodes.len() {
        if t.index[v] == usize::MAX {
            t.visit(v);
        }
    }
    let groups = t.groups;
    groups
        .into_iter()
        .filter(|g| g.len() > 1)
        .map(|g| {
            let mut names: Vec<String> = g
                .iter()
                .map(|&i| {
                    nodes[i]
                        .strip_prefix(root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned()
                })
                .collect();
            names.sort();
            names.join(" ")
        })
        .collect()
}

#[test]
fn no_import_circles_inside_a_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found: BTreeSet<String> = CRATES.iter().flat_map(|c| circles(root, c)).collect();
    let known: BTreeSet<String> = KNOWN.iter().map(|s| s.to_string()).collect();
    let new: Vec<&String> = found.difference(&known).collect();
    let gone: Vec<&String> = known.difference(&found).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "import circles not listed in KNOWN: {new:#?}\nlisted circles that are gone (take them off KNOWN): {gone:#?}"
    );
}

#[test]
fn paths_are_read_from_uses_and_calls() {
    let module = vec!["a".to_string(), "b".to_string()];
    let code =
        "use crate::{x, y::Z};\nfn f() { crate::w::g(); super::c::h(); }\nuse crate::v::{p, q};";
    let paths = named_paths(code, &module);
    let as_text: BTreeSet<String> = paths.iter().map(|p| p.join("::")).collect();
    for want in ["x", "y::Z", "w::g", "a::c::h", "v::p", "v::q"] {
        assert!(as_text.contains(want), "{want} in {as_text:?}");
    }
    assert!(
        code_of("#[cfg(test)]\nmod tests {\n use crate::x;\n}\nuse crate::y;\n")
            .contains("crate::y")
    );
    assert!(!code_of("#[cfg(test)]\nmod tests {\n use crate::x;\n}\n").contains("crate::x"));
}

/// blame-post's stages, in order: each folder's files import only their
/// own stage's and earlier stages' (stacks in, attribution apart).
#[test]
fn blame_post_stages_import_only_earlier_stages() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("blame-post/src");
    let stages = ["input", "attribution", "aggregation"];
    let mut wrong = Vec::new();
    for (k, stage) in stages.iter().enumerate() {
        for file in rust_files(&root.join(stage), ALL) {
            let text = std::fs::read_to_string(&file).unwrap();
            for later in &stages[k + 1..] {
                if text.contains(&format!("crate::{later}")) {
                    wrong.push(format!("{} names crate::{later}", file.display()));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "a stage imports a later one:\n  {}",
        wrong.join("\n  ")
    );
}
