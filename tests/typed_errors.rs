//! Errors are types end to end: no library function returns
//! `Result<_, String>` (or implements `FromStr` with a `String` error), and
//! no variant of an error enum (one deriving `thiserror::Error`) carries
//! only a `String`. Test modules (`#[cfg(test)] mod … { }`, `tests_*.rs`)
//! are not library code.

use std::path::{Path, PathBuf};

/// The crates' source folders.
const CRATES: &[&str] = &[
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

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs")
            && !p
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("tests_"))
        {
            out.push(p);
        }
    }
}

/// The lines of `text` outside `#[cfg(test)] mod name { … }` blocks, with
/// their numbers (from 1).
fn library_lines(text: &str) -> Vec<(usize, &str)> {
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

/// `Result<T, String>` for any `T` (nested generics included).
fn returns_string_error(line: &str) -> bool {
    let mut rest = line;
    while let Some(at) = rest.find("Result<") {
        let after = &rest[at + "Result<".len()..];
        let mut depth = 1;
        let mut last_comma = None;
        for (k, c) in after.char_indices() {
            match c {
                '<' | '(' | '[' => depth += 1,
                '>' | ')' | ']' => {
                    depth -= 1;
                    if depth == 0 {
                        if let Some(comma) = last_comma {
                            if after[comma + 1..k].trim() == "String" {
                                return true;
                            }
                        }
                        break;
                    }
                }
                ',' if depth == 1 => last_comma = Some(k),
                _ => {}
            }
        }
        rest = after;
    }
    line.contains("type Err = String")
}

/// What in `text` (the file `name`) is an error that is a string.
fn string_errors(name: &str, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    // Inside an enum deriving thiserror's Error: its variants.
    let mut error_enum = false;
    let mut derives_error = false;
    for (n, line) in library_lines(text) {
        let t = line.trim();
        if t.starts_with("//") {
            continue;
        }
        if returns_string_error(t) {
            found.push(format!("{name}:{n}: {t}"));
        }
        if t.starts_with("#[derive(") && t.contains("Error") {
            derives_error = true;
        } else if t.contains("enum ") && t.ends_with('{') {
            error_enum = derives_error;
            derives_error = false;
        } else if t.starts_with("struct ") || t.starts_with("pub struct ") {
            derives_error = false;
        } else if line == "}" {
            error_enum = false;
        }
        let bare = t
            .trim_end_matches(',')
            .split_once('(')
            .is_some_and(|(v, args)| {
                v.chars().all(|c| c.is_alphanumeric() || c == '_') && args == "String)"
            });
        if error_enum && bare {
            found.push(format!("{name}:{n}: a String-only error variant: {t}"));
        }
    }
    found
}

#[test]
fn library_code_has_typed_errors() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for krate in CRATES {
        let mut files = Vec::new();
        rust_files(&root.join(krate), &mut files);
        files.sort();
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let name = file.strip_prefix(root).unwrap().display().to_string();
            found.extend(string_errors(&name, &text));
        }
    }
    assert!(
        found.is_empty(),
        "errors that are strings, not types:\n  {}",
        found.join("\n  ")
    );
}

#[test]
fn the_check_sees_what_it_looks_for() {
    assert!(returns_string_error(
        "pub fn export(r: &Results) -> Result<Vec<u8>, String> {"
    ));
    assert!(returns_string_error(
        ") -> std::result::Result<HashMap<String, Vec<u32>>, String> {"
    ));
    assert!(returns_string_error("    type Err = String;"));
    assert!(!returns_string_error(
        "fn f() -> Result<String, FormatError> {"
    ));
    assert!(!returns_string_error(
        "fn f() -> Result<(String, u32), PostError> {"
    ));
    let text =
        "fn a() {}\n#[cfg(test)]\nmod tests {\n    fn b() -> Result<(), String> {}\n}\nfn c() {}\n";
    let lines: Vec<usize> = library_lines(text).iter().map(|(n, _)| *n).collect();
    assert_eq!(lines, vec![1, 6]);
    let enums = "#[derive(Debug, thiserror::Error)]\npub enum E {\n    #[error(\"{0}\")]\n    Busy(String),\n    Io {\n        path: String,\n    },\n    Other(#[source] std::io::Error),\n}\n\n#[derive(Debug)]\npub enum Kind {\n    Named(String),\n}\n";
    let found = string_errors("e.rs", enums);
    assert_eq!(
        found,
        vec!["e.rs:4: a String-only error variant: Busy(String),"]
    );
}
