//! Sizes a reader can hold: no source file of a crate is over 800 lines
//! and no function over 120, test code aside (`#[cfg(test)] mod … { }`
//! blocks, `tests_*.rs` files, `tests/`, benches and examples). A file or
//! function that grows past them is split by responsibility, not by count.

mod source_tree;
use source_tree::{library_lines, library_sources};

const MAX_FILE_LINES: usize = 800;
const MAX_FUNCTION_LINES: usize = 120;

/// The name of the function a line declares with a body (`fn f(` at any
/// indentation, with its qualifiers), if it does.
fn declares_function(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    for q in [
        "pub(crate) ",
        "pub(super) ",
        "pub ",
        "const ",
        "async ",
        "unsafe ",
    ] {
        rest = rest.strip_prefix(q).unwrap_or(rest);
    }
    rest = rest.strip_prefix("extern \"C\" ").unwrap_or(rest);
    let name = rest.strip_prefix("fn ")?;
    if line.trim_end().ends_with(';') {
        return None;
    }
    let end = name
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(name.len());
    Some(&name[..end])
}

/// Functions of `lines` longer than the limit: (name, first line, lines),
/// a function running from its `fn` line to the `}` at its indentation.
fn long_functions(lines: &[(usize, &str)]) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    for (k, &(n, line)) in lines.iter().enumerate() {
        let Some(name) = declares_function(line) else {
            continue;
        };
        let indent = &line[..line.len() - line.trim_start().len()];
        let close = format!("{indent}}}");
        let Some(end) = lines[k + 1..].iter().position(|&(_, l)| l == close) else {
            continue;
        };
        let length = end + 2;
        if length > MAX_FUNCTION_LINES {
            out.push((name.to_string(), n, length));
        }
    }
    out
}

#[test]
fn no_file_over_800_lines_and_no_function_over_120() {
    let mut found = Vec::new();
    for (name, text) in library_sources() {
        let lines = library_lines(&text);
        if lines.len() > MAX_FILE_LINES {
            found.push(format!("{name}: {} lines", lines.len()));
        }
        for (f, at, length) in long_functions(&lines) {
            found.push(format!("{name}:{at}: fn {f} is {length} lines"));
        }
    }
    assert!(
        found.is_empty(),
        "split by responsibility (files at most {MAX_FILE_LINES} lines, functions at most \
         {MAX_FUNCTION_LINES}, test code aside):\n  {}",
        found.join("\n  ")
    );
}

#[test]
fn the_check_measures_functions_and_skips_tests() {
    assert_eq!(
        declares_function("    pub(crate) fn walk(&self) {"),
        Some("walk")
    );
    assert_eq!(declares_function("unsafe fn load<'a>("), Some("load"));
    assert_eq!(declares_function("    fn next(&mut self) -> u32;"), None);
    assert_eq!(declares_function("let f = |x| x;"), None);
    let body = (0..130).map(|_| "    x += 1;\n").collect::<String>();
    let text = format!("fn long() {{\n{body}}}\n\nfn short() {{\n}}\n#[cfg(test)]\nmod tests {{\n    fn long_test() {{\n{body}    }}\n}}\n");
    let lines = library_lines(&text);
    let long = long_functions(&lines);
    assert_eq!(long, vec![("long".to_string(), 1, 132)]);
}
