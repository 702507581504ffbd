//! Score-P filter files (`--filter FILE`): which functions a view hides.
//!
//! The syntax is Score-P's (`SCOREP_FILTERING_FILE`):
//!
//! ```text
//! # a comment, to the end of the line
//! SCOREP_REGION_NAMES_BEGIN
//!   EXCLUDE *
//!   INCLUDE main solve_*
//!   EXCLUDE MANGLED _ZN4mesh?*
//! SCOREP_REGION_NAMES_END
//! SCOREP_FILE_NAMES_BEGIN
//!   EXCLUDE */include/*
//! SCOREP_FILE_NAMES_END
//! ```
//!
//! Any number of region and file blocks. In a block, `EXCLUDE` or `INCLUDE`
//! starts a rule whose patterns follow, separated by white space, over as
//! many lines as wanted, up to the next keyword. Patterns are shell
//! wildcards: `*` any string, `?` one character, `[abc]`, `[a-z]`, `[!a]`;
//! a backslash takes the next character literally (`\ ` for a space in a
//! C++ signature, `\#`). Region patterns match the demangled name, or
//! after `MANGLED` (right after the keyword, or between patterns, as some
//! filter generators write it: `EXCLUDE a MANGLED _Z1bv`) the linkage name. As in Score-P,
//! the rules are read in order and the last rule that matches a name
//! decides; a name no rule matches is included. A function is hidden when
//! its name or its file is excluded.

use thiserror::Error;

/// A filter file that does not follow Score-P's syntax.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("filter line {line}: {message}")]
pub struct FilterError {
    pub line: usize,
    pub message: String,
}

/// What a rule does with the names it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Exclude,
    Include,
}

/// One pattern of a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Rule {
    action: Action,
    /// Matched against the linkage name (region rules with `MANGLED`).
    mangled: bool,
    pattern: Wildcard,
}

/// A parsed Score-P filter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    regions: Vec<Rule>,
    files: Vec<Rule>,
}

#[derive(Clone, Copy, PartialEq)]
enum Block {
    None,
    Regions,
    Files,
}

/// A line's tokens: comments cut off, split at unescaped white space;
/// `\ ` and `\#` become literal, other escapes stay for the matcher.
fn tokens(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(n) if n.is_whitespace() || n == '#' => cur.push(n),
                Some(n) => {
                    cur.push('\\');
                    cur.push(n);
                }
                None => cur.push('\\'),
            },
            '#' => break,
            c if c.is_whitespace() => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

impl Filter {
    /// Parses a filter file's text.
    pub fn parse(text: &str) -> Result<Filter, FilterError> {
        let mut filter = Filter::default();
        let mut block = Block::None;
        let mut opened_at = 0;
        // The current rule: its action and whether it is MANGLED.
        let mut rule: Option<(Action, bool)> = None;
        for (i, line) in text.lines().enumerate() {
            let line_no = i + 1;
            let err = |message: String| FilterError {
                line: line_no,
                message,
            };
            for tok in tokens(line) {
                match (block, tok.as_str()) {
                    (Block::None, "SCOREP_REGION_NAMES_BEGIN") => {
                        (block, opened_at, rule) = (Block::Regions, line_no, None)
                    }
                    (Block::None, "SCOREP_FILE_NAMES_BEGIN") => {
                        (block, opened_at, rule) = (Block::Files, line_no, None)
                    }
                    (Block::None, other) => {
                        return Err(err(format!(
                            "{other:?} outside a block: rules go between SCOREP_REGION_NAMES_BEGIN and SCOREP_REGION_NAMES_END (or SCOREP_FILE_NAMES_BEGIN and _END)"
                        )))
                    }
                    (Block::Regions, "SCOREP_REGION_NAMES_END")
                    | (Block::Files, "SCOREP_FILE_NAMES_END") => block = Block::None,
                    (_, t) if t.starts_with("SCOREP_") && t.contains("_NAMES_") => {
                        return Err(err(format!(
                            "{t} inside the block opened on line {opened_at}"
                        )))
                    }
                    (_, "EXCLUDE" | "INCLUDE") => {
                        let action = if tok == "EXCLUDE" {
                            Action::Exclude
                        } else {
                            Action::Include
                        };
                        rule = Some((action, false));
                    }
                    (_, "MANGLED") => {
                        let Some((action, _)) = rule else {
                            return Err(err("MANGLED must follow EXCLUDE or INCLUDE".into()));
                        };
                        if block == Block::Files {
                            return Err(err(
                                "MANGLED applies to region names, not file names".into(),
                            ));
                        }
                        rule = Some((action, true));
                    }
                    (_, pattern) => {
                        let Some((action, mangled)) = rule else {
                            return Err(err(format!(
                                "pattern {pattern:?} before any EXCLUDE or INCLUDE"
                            )));
                        };
                        let r = Rule {
                            action,
                            mangled,
                            pattern: Wildcard::new(pattern)
                                .map_err(|e| err(format!("pattern {pattern:?}: {e}")))?,
                        };
                        if block == Block::Regions {
                            filter.regions.push(r);
                        } else {
                            filter.files.push(r);
                        }
                    }
                }
            }
        }
        if block != Block::None {
            return Err(FilterError {
                line: opened_at,
                message: "block not closed by its _END".into(),
            });
        }
        Ok(filter)
    }

    /// Reads and parses a filter file.
    pub fn read(path: &std::path::Path) -> Result<Filter, ReadError> {
        let text = std::fs::read_to_string(path).map_err(|source| ReadError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Filter::parse(&text).map_err(|source| ReadError::Syntax {
            path: path.display().to_string(),
            source,
        })
    }

    /// No rules at all.
    pub fn is_empty(&self) -> bool {
        self.regions.is_empty() && self.files.is_empty()
    }

    /// The last matching rule's action, if a rule matches.
    fn decide(rules: &[Rule], name: &str, mangled: &str) -> Option<Action> {
        rules
            .iter()
            .rev()
            .find(|r| r.pattern.matches(if r.mangled { mangled } else { name }))
            .map(|r| r.action)
    }

    /// Is the function `name` (demangled), with linkage name `mangled`,
    /// defined in `file`, hidden?
    pub fn excludes(&self, name: &str, mangled: &str, file: &str) -> bool {
        let by_file =
            !file.is_empty() && Filter::decide(&self.files, file, file) == Some(Action::Exclude);
        by_file || Filter::decide(&self.regions, name, mangled) == Some(Action::Exclude)
    }
}

/// A filter file that cannot be used.
#[derive(Debug, Error)]
pub enum ReadError {
    #[error("cannot read the filter file {path}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not a Score-P filter")]
    Syntax {
        path: String,
        #[source]
        source: FilterError,
    },
}

/// A Score-P wildcard: a shell pattern as fnmatch without flags reads it
/// (`*` any string, `/` included; `?`; bracket expressions with ranges and
/// `!`/`^` negation; backslash escapes; an unclosed `[` is literal),
/// matched by `globset`. Braces are literal, as in fnmatch (demangled names
/// hold them: `main::{lambda()#1}`), not globset's alternatives.
#[derive(Debug, Clone)]
struct Wildcard(globset::GlobMatcher);

impl Wildcard {
    fn new(pattern: &str) -> Result<Wildcard, globset::Error> {
        let mut escaped = String::with_capacity(pattern.len());
        let mut chars = pattern.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    escaped.push(c);
                    if let Some(n) = chars.next() {
                        escaped.push(n);
                    }
                }
                '{' | '}' => {
                    escaped.push('\\');
                    escaped.push(c);
                }
                c => escaped.push(c),
            }
        }
        let glob = globset::GlobBuilder::new(&escaped)
            .literal_separator(false)
            .backslash_escape(true)
            .allow_unclosed_class(true)
            .build()?;
        Ok(Wildcard(glob.compile_matcher()))
    }

    fn matches(&self, text: &str) -> bool {
        self.0.is_match(text)
    }
}

impl PartialEq for Wildcard {
    fn eq(&self, other: &Wildcard) -> bool {
        self.0.glob() == other.0.glob()
    }
}

impl Eq for Wildcard {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shell wildcard match of `text` against `pattern` (see [`Wildcard`]).
    fn wildcard_match(pattern: &str, text: &str) -> bool {
        Wildcard::new(pattern).is_ok_and(|w| w.matches(text))
    }

    #[test]
    fn wildcards() {
        assert!(wildcard_match("*", ""));
        assert!(wildcard_match("MPI_*", "MPI_Allreduce"));
        assert!(!wildcard_match("MPI_*", "PMPI_Allreduce"));
        assert!(wildcard_match("?MPI_*", "PMPI_Allreduce"));
        assert!(!wildcard_match("?MPI_*", "MPI_Allreduce"));
        assert!(wildcard_match("a*b*c", "aXXbYYbc"));
        assert!(!wildcard_match("a*b*c", "aXXbYYbd"));
        assert!(wildcard_match("f?o", "foo"));
        assert!(!wildcard_match("f?o", "fo"));
        assert!(wildcard_match("[a-c]x", "bx"));
        assert!(!wildcard_match("[!a-c]x", "bx"));
        assert!(wildcard_match("[!a-c]x", "dx"));
        assert!(wildcard_match("[]]", "]"));
        assert!(wildcard_match("a\\*", "a*"));
        assert!(!wildcard_match("a\\*", "ab"));
        assert!(wildcard_match("[x", "[x"));
        assert!(wildcard_match("foo(int, double)", "foo(int, double)"));
        assert!(wildcard_match(
            "main::{lambda()#1}*",
            "main::{lambda()#1}::operator()"
        ));
        assert!(!wildcard_match("{a,b}", "a"));
        assert!(wildcard_match("a/*", "a/b/c"));
        assert!(wildcard_match("[^a]x", "bx"));
        assert!(wildcard_match("operator[]", "operator[]"));
    }

    #[test]
    fn last_matching_rule_decides() {
        let f = Filter::parse(
            "SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE *\n  INCLUDE main\n          solve_*\nSCOREP_REGION_NAMES_END\n",
        )
        .unwrap();
        assert!(f.excludes("kernel", "kernel", ""));
        assert!(!f.excludes("main", "main", ""));
        assert!(!f.excludes("solve_x", "solve_x", ""));
        // The other order: the later EXCLUDE * wins over everything.
        let g = Filter::parse(
            "SCOREP_REGION_NAMES_BEGIN\nINCLUDE main\nEXCLUDE *\nSCOREP_REGION_NAMES_END",
        )
        .unwrap();
        assert!(g.excludes("main", "main", ""));
        // No matching rule: included.
        let h =
            Filter::parse("SCOREP_REGION_NAMES_BEGIN EXCLUDE foo SCOREP_REGION_NAMES_END").unwrap();
        assert!(!h.excludes("bar", "bar", ""));
        assert!(h.excludes("foo", "foo", ""));
    }

    #[test]
    fn comments_blocks_and_escapes() {
        let f = Filter::parse(
            "# leading comment\n\
             SCOREP_REGION_NAMES_BEGIN # trailing comment\n\
             EXCLUDE helper # not_a_pattern\n\
             EXCLUDE a\\ b c\\#d\n\
             SCOREP_REGION_NAMES_END\n\
             \n\
             SCOREP_REGION_NAMES_BEGIN\n\
             INCLUDE helper\n\
             SCOREP_REGION_NAMES_END\n\
             SCOREP_FILE_NAMES_BEGIN\n\
             EXCLUDE */include/*\n\
             SCOREP_FILE_NAMES_END\n",
        )
        .unwrap();
        // The second block's INCLUDE comes later and wins.
        assert!(!f.excludes("helper", "helper", "/src/a.c"));
        assert!(!f.excludes("not_a_pattern", "not_a_pattern", ""));
        assert!(f.excludes("a b", "a b", ""));
        assert!(f.excludes("c#d", "c#d", ""));
        assert!(f.excludes("inlined", "inlined", "/usr/include/x.h"));
        assert!(!f.excludes("inlined", "inlined", "/src/x.c"));
    }

    #[test]
    fn mangled_matches_the_linkage_name() {
        let f = Filter::parse(
            "SCOREP_REGION_NAMES_BEGIN\nEXCLUDE MANGLED _ZN4mesh*\nEXCLUDE grid::*\nSCOREP_REGION_NAMES_END\n",
        )
        .unwrap();
        assert!(f.excludes("mesh::refine(int)", "_ZN4mesh6refineEi", ""));
        // The demangled name does not match a MANGLED pattern ...
        assert!(!f.excludes("_ZN4mesh_lookalike", "other", ""));
        // ... and a plain pattern does not match the mangled name.
        assert!(f.excludes("grid::size()", "_ZN4grid4sizeEv", ""));
        assert!(!f.excludes("other()", "grid::x", ""));
        // MANGLED between patterns: the patterns after it are mangled ones.
        let g = Filter::parse(
            "SCOREP_REGION_NAMES_BEGIN\nEXCLUDE plain MANGLED _Z1fv\nSCOREP_REGION_NAMES_END",
        )
        .unwrap();
        assert!(g.excludes("plain", "plain", ""));
        assert!(g.excludes("f()", "_Z1fv", ""));
        assert!(!g.excludes("_Z1fv", "other", ""));
        assert!(
            Filter::parse("SCOREP_REGION_NAMES_BEGIN MANGLED x SCOREP_REGION_NAMES_END").is_err()
        );
    }

    #[test]
    fn syntax_errors_name_their_line() {
        let e = Filter::parse("EXCLUDE foo\n").unwrap_err();
        assert_eq!(e.line, 1);
        let e =
            Filter::parse("SCOREP_REGION_NAMES_BEGIN\nfoo\nSCOREP_REGION_NAMES_END").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("before any EXCLUDE"), "{e}");
        let e = Filter::parse("\nSCOREP_REGION_NAMES_BEGIN\nEXCLUDE foo\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("not closed"), "{e}");
        let e = Filter::parse("SCOREP_FILE_NAMES_BEGIN\nEXCLUDE MANGLED x\nSCOREP_FILE_NAMES_END")
            .unwrap_err();
        assert_eq!(e.line, 2);
        let e = Filter::parse(
            "SCOREP_REGION_NAMES_BEGIN\nSCOREP_FILE_NAMES_BEGIN\nSCOREP_REGION_NAMES_END",
        )
        .unwrap_err();
        assert_eq!(e.line, 2);
        assert!(Filter::parse("# only a comment\n\n").unwrap().is_empty());
    }
}
