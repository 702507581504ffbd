//! README's command lines match the CLI: every `blame ...` usage shown in
//! the CLI table and in README's code blocks names a subcommand that exists
//! (`blame SUB --help` succeeds, nested ones too) and only flags that
//! subcommand's `--help` lists.

mod e2e_support;
use e2e_support::*;
use std::collections::BTreeSet;

/// The README lines that show a `blame` command: table rows' first cells
/// and code-block lines starting with `blame ` or `$ blame `.
fn usages(readme: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            let l = line.trim_start_matches("$ ");
            // `blame record: ...` is output, not a command.
            // (nor `blame daemon (pid N), up ...`).
            let words: Vec<&str> = l.split_whitespace().collect();
            let output = words.get(1).is_none_or(|w| w.ends_with(':'))
                || words.get(2).is_some_and(|w| w.starts_with('('));
            if l.starts_with("blame ") && !output {
                // Drop a trailing comment and what a pipe or && runs next.
                let l = l.split("  #").next().unwrap();
                let l = l.split(" && ").next().unwrap();
                out.push(l.to_string());
            }
        } else if let Some(rest) = line.strip_prefix("| `blame ") {
            let cell = rest.split('`').next().unwrap();
            out.push(format!("blame {}", cell.replace("\\|", "|")));
        }
    }
    out
}

fn help(args: &[&str]) -> String {
    let out = run_ok(blame().args(args).arg("--help"));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The flags a usage line shows (`--name`, `-x`), alternatives split.
fn flags(tokens: &[&str]) -> BTreeSet<String> {
    let mut set = BTreeSet::new();
    for t in tokens {
        for part in t.split('|') {
            let part = part.trim_matches(|c| c == '[' || c == ']' || c == ',');
            if part == "--" || !part.starts_with('-') || part.len() < 2 {
                continue;
            }
            let name = part.split('=').next().unwrap();
            set.insert(name.to_string());
        }
    }
    set
}

#[test]
fn every_command_line_in_readme_is_one_the_cli_accepts() {
    let readme =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
            .unwrap();
    let lines = usages(&readme);
    assert!(lines.len() >= 15, "README's command lines: {lines:?}");
    let mut checked = BTreeSet::new();
    for line in &lines {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let sub = tokens[1];
        assert!(
            sub.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
            "{line}: no subcommand"
        );
        let top = help(&[sub]);
        let mut groups: Vec<(Vec<&str>, String)> = Vec::new();
        if top.contains("\nCommands:") {
            // Nested subcommands: `daemon run|status`, `daemon status | flush | stop`.
            let nested: Vec<&str> = tokens[2..]
                .iter()
                .take_while(|t| !t.starts_with('-') && !t.starts_with('['))
                .flat_map(|t| t.split('|'))
                .filter(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
                .collect();
            assert!(!nested.is_empty(), "{line}: which `blame {sub}` command?");
            for n in nested {
                let text = help(&[sub, n]);
                groups.push((vec![sub, n], text));
            }
        } else {
            groups.push((vec![sub], top));
        }
        for (words, text) in &groups {
            // After `--` come the wrapped command's own arguments.
            let ours: Vec<&str> = tokens[2..]
                .iter()
                .take_while(|t| **t != "--")
                .copied()
                .collect();
            for flag in flags(&ours) {
                let shown = text.contains(&format!("{flag} "))
                    || text.contains(&format!("{flag},"))
                    || text.contains(&format!("{flag}\n"))
                    || text.contains(&format!("{flag}="));
                assert!(
                    shown,
                    "README shows `{line}`, but `blame {} --help` has no {flag}:\n{text}",
                    words.join(" ")
                );
            }
            checked.insert(words.join(" "));
        }
    }
    // Every subcommand of the CLI is shown somewhere in README.
    let top = help(&[]);
    let commands = top
        .split("\nCommands:\n")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .next()
        .unwrap();
    for l in commands.lines() {
        let name = l.split_whitespace().next().unwrap();
        if name == "help" {
            continue;
        }
        assert!(
            checked
                .iter()
                .any(|c| c == name || c.starts_with(&format!("{name} "))),
            "`blame {name}` is in the CLI but not in README: {checked:?}"
        );
    }
}

/// README's table of daemon settings names every key of the daemon's
/// settings, with its default.
#[test]
fn readme_documents_every_daemon_setting_with_its_default() {
    let readme =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
            .unwrap();
    let documented: std::collections::BTreeMap<String, serde_json::Value> = readme
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let key = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            let default = cells.get(2)?;
            let value = if *default == "none" {
                serde_json::Value::Null
            } else {
                serde_json::from_str(default.strip_prefix('`')?.strip_suffix('`')?).ok()?
            };
            Some((key.to_string(), value))
        })
        .collect();
    let defaults = serde_json::to_value(blame_daemon::config::Config::default()).unwrap();
    for (key, value) in defaults.as_object().unwrap() {
        assert_eq!(
            documented.get(key),
            Some(value),
            "README's daemon settings: `{key}` (default {value})"
        );
    }
}
