//! Errors are types end to end: no library function returns
//! `Result<_, String>` (or implements `FromStr` with a `String` error), and
//! no variant of an error enum (one deriving `thiserror::Error`) carries
//! only a `String`. Test modules (`#[cfg(test)] mod … { }`, `tests_*.rs`)
//! are not library code.

mod source_tree;
use source_tree::{library_lines, library_sources};

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
    let mut found = Vec::new();
    for (name, text) in library_sources() {
        found.extend(string_errors(&name, &text));
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
