//! The workspace's library sources, as the source checks read them
//! (`import_circles.rs`, `typed_errors.rs`, `source_sizes.rs`): the crates'
//! source folders, their Rust files, and a file's lines without its test
//! modules. Each check uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The crates' source folders.
pub const CRATES: &[&str] = &[
    "formats/src",
    "capture/src",
    "sampler/src",
    "blame-static/src",
    "blame-post/src",
    "gui-export/src",
    "bitcode-capture/src",
    "daemon/src",
    "src",
];

/// Which files of a crate's folder a check reads.
#[derive(Clone, Copy)]
pub struct Files {
    /// Another binary's tree (`src/bin/`) is a crate of its own.
    pub skip_bin: bool,
    /// Files of tests only (`tests_*.rs`).
    pub skip_test_files: bool,
}

/// The Rust files below `dir`, sorted.
pub fn rust_files(dir: &Path, which: Files) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(dir, which, &mut out);
    out.sort();
    out
}

fn walk(dir: &Path, which: Files, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if p.is_dir() {
            if !(which.skip_bin && name == "bin") {
                walk(&p, which, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs")
            && !(which.skip_test_files && name.starts_with("tests_"))
        {
            out.push(p);
        }
    }
}

/// The lines of `text` outside `#[cfg(test)] mod name { … }` blocks, with
/// their numbers (from 1).
pub fn library_lines(text: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let next = lines.get(i + 1).map(|l| l.trim_start()).unwrap_or("");
        let opens_mod = (next.starts_with("mod ") || next.starts_with("pub mod "))
            && next.trim_end().ends_with('{');
        if lines[i].trim() == "#[cfg(test)]" && opens_mod {
            let indent = &lines[i + 1][..lines[i + 1].len() - next.len()];
            let close = format!("{indent}}}");
            i += 2;
            while i < lines.len() && lines[i] != close {
                i += 1;
            }
            i += 1;
            continue;
        }
        out.push((i + 1, lines[i]));
        i += 1;
    }
    out
}

/// Every library file of every crate (test-only files left out): its path
/// relative to the workspace root, and its text.
pub fn library_sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let which = Files {
        skip_bin: false,
        skip_test_files: true,
    };
    let sources: Vec<(String, String)> = CRATES
        .iter()
        .flat_map(|krate| rust_files(&root.join(krate), which))
        .map(|file| {
            let text = std::fs::read_to_string(&file).unwrap();
            let name = file.strip_prefix(root).unwrap().display().to_string();
            (name, text)
        })
        .collect();
    // A check over no files would pass whatever the code is.
    assert!(
        sources.len() > 100,
        "only {} source files found",
        sources.len()
    );
    sources
}
