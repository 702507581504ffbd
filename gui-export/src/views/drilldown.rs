//! The drill-down into one variable: its calling contexts grouped by call
//! path (capped), each path's heaviest context with source lines, and its
//! blame by line of the defining function.

use super::by_variable::{variable_rows, VariableRow};
use super::scope::Scope;
use super::{Filters, ViewError};
use crate::regions::demangle;
use crate::source::SourceCache;
use blame_formats::results::Results;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone, Serialize)]
pub struct DrillFrame {
    pub function: String,
    pub file: String,
    pub line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// The contexts of one call path of a variable, summed for a drill-down
/// (report and HTML): samples, contexts, ranks, and its heaviest context.
#[derive(Debug, Clone)]
pub(crate) struct PathGroup {
    pub samples: f64,
    pub contexts: usize,
    pub ranks: Vec<u32>,
    /// (samples, stack) of the heaviest context: whose frames are shown.
    pub heaviest: (f64, u32),
}

impl PathGroup {
    pub fn new(stack: u32) -> PathGroup {
        PathGroup {
            samples: 0.0,
            contexts: 0,
            ranks: Vec::new(),
            heaviest: (f64::NEG_INFINITY, stack),
        }
    }

    /// Adds one context of `samples` on `stack`, of a process of `rank`.
    pub fn add(&mut self, samples: f64, rank: Option<u32>, stack: u32) {
        self.samples += samples;
        self.contexts += 1;
        if let Some(rank) = rank {
            if !self.ranks.contains(&rank) {
                self.ranks.push(rank);
            }
        }
        if samples > self.heaviest.0 {
            self.heaviest = (samples, stack);
        }
    }
}

/// The calling contexts of a variable that share one call path: the same
/// chain of functions, whatever the lines within them and the rank.
#[derive(Debug, Clone, Serialize)]
pub struct DrillPath {
    /// The functions, innermost first.
    pub functions: Vec<String>,
    pub samples: f64,
    pub percent_of_variable: f64,
    /// Calling contexts (distinct stacks of one process) on the path.
    pub contexts: usize,
    /// Ranks with samples on the path.
    pub ranks: Vec<u32>,
    /// The path's heaviest context, frame by frame with source lines.
    pub frames: Vec<DrillFrame>,
}

/// What a capped list of call paths leaves out.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DrillMore {
    pub paths: usize,
    pub contexts: usize,
    pub samples: f64,
    pub percent_of_variable: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct DrillVariable {
    pub variable: VariableRow,
    /// Calling contexts in all.
    pub contexts: usize,
    /// The call paths by descending samples, at most `--top` (else
    /// [`DRILL_PATHS`]) of them.
    pub paths: Vec<DrillPath>,
    /// The call paths left out, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub more: Option<DrillMore>,
    /// Blame by source line of the defining function: (file, line, samples, source).
    pub lines: Vec<DrillLine>,
}

/// Call paths a drill-down lists when `--top` does not say.
pub const DRILL_PATHS: usize = 20;

#[derive(Debug, Clone, Serialize)]
pub struct DrillLine {
    pub file: String,
    pub line: u32,
    pub samples: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DrillView {
    pub event: String,
    pub total_samples: f64,
    pub variables: Vec<DrillVariable>,
}

/// The contexts and lines that make up the blame of variables named `path`
/// (every function's variable of that name; `function::path` picks one).
/// Contexts are grouped by call path (a real code gave one variable 1,544
/// contexts); the list is capped at `--top` paths, else [`DRILL_PATHS`].
pub fn drilldown(
    results: &Results,
    filters: &Filters,
    path: &str,
    sources: &mut SourceCache,
) -> Result<DrillView, ViewError> {
    let scope = Scope::new(results, filters)?;
    if let Some(r) = filters.rank {
        if let Some(refusal) =
            results.per_rank_contexts_missing(&format!("the drill-down of rank {r} (--rank)"))
        {
            return Err(refusal.into());
        }
    }
    // Results summed over ranks: the application's contexts are all ranks'.
    let all_ranks = results.is_summed() && filters.rank.is_none();
    let rows = named_rows(results, filters, &scope, path)?;
    let mut variables = Vec::new();
    for row in rows {
        let gathered = gather_contexts(results, &scope, all_ranks, &row);
        variables.push(drill_variable(results, filters, row, gathered, sources));
    }
    Ok(DrillView {
        event: scope.event_name,
        total_samples: scope.total,
        variables,
    })
}

/// The variable a drill-down asks for, as `[function::]name[:line]`.
struct WantedVariable<'a> {
    function: Option<&'a str>,
    name: &'a str,
    line: Option<u32>,
}

impl<'a> WantedVariable<'a> {
    fn parse(path: &'a str) -> WantedVariable<'a> {
        let (want_fn, want_name) = match path.rsplit_once("::") {
            Some((f, n)) => (Some(f), n),
            None => (None, path),
        };
        // `NAME:LINE` picks one of several variables of one name in a function.
        let (want_name, want_line) = match want_name.rsplit_once(':') {
            Some((n, l)) if l.parse::<u32>().is_ok() => (n, l.parse::<u32>().ok()),
            _ => (want_name, None),
        };
        WantedVariable {
            function: want_fn,
            name: want_name,
            line: want_line,
        }
    }

    fn matches(&self, r: &VariableRow) -> bool {
        r.name == self.name
            && self.function.is_none_or(|f| r.function == f)
            && self.line.is_none_or(|l| r.line == l)
    }
}

/// The one row of the variable `path` names; refused when none or several
/// variables have that name.
fn named_rows(
    results: &Results,
    filters: &Filters,
    scope: &Scope,
    path: &str,
) -> Result<Vec<VariableRow>, ViewError> {
    let want = WantedVariable::parse(path);
    // A variable asked for by name is shown even when its name is internal.
    let all = Filters {
        all_variables: true,
        ..filters.clone()
    };
    let rows: Vec<VariableRow> = variable_rows(results, &all, scope)
        .into_iter()
        .filter(|r| want.matches(r))
        .collect();
    if rows.is_empty() {
        return Err(ViewError::NoSuchVariable {
            path: path.to_string(),
            event: scope.event_name.clone(),
        });
    }
    if rows.len() > 1 {
        // Several variables of that name: list them, never pick one.
        return Err(ViewError::AmbiguousVariable {
            path: path.to_string(),
            candidates: candidates(&rows),
        });
    }
    Ok(rows)
}

/// Each of several variables of one name, as an ambiguous name's refusal
/// lists it.
fn candidates(rows: &[VariableRow]) -> Vec<String> {
    let functions: BTreeSet<&str> = rows.iter().map(|r| r.function.as_str()).collect();
    rows.iter()
        .map(|r| {
            let qualified = if r.function.is_empty() {
                format!("::{}", r.name)
            } else {
                format!("{}::{}", r.function, r.name)
            };
            let name = if functions.len() == rows.len() {
                qualified
            } else {
                format!("{qualified}:{}", r.line)
            };
            format!(
                "{name} ({} {}:{}, {} samples)",
                r.type_name,
                r.file.rsplit('/').next().unwrap_or(&r.file),
                r.line,
                r.explicit
            )
        })
        .collect()
}

/// A variable's contexts in the scope: grouped by call path, counted, and
/// summed by the line that blames it.
struct GatheredContexts<'r> {
    groups: BTreeMap<Vec<&'r str>, PathGroup>,
    contexts: usize,
    lines: BTreeMap<(String, u32), f64>,
}

fn gather_contexts<'r>(
    results: &'r Results,
    scope: &Scope,
    all_ranks: bool,
    row: &VariableRow,
) -> GatheredContexts<'r> {
    let mut groups: BTreeMap<Vec<&str>, PathGroup> = BTreeMap::new();
    let mut contexts = 0;
    let mut lines: BTreeMap<(String, u32), f64> = BTreeMap::new();
    for c in &results.contexts {
        let k = results.context_key(c);
        if k.event != scope.event
            || k.name != row.name
            || k.function != row.function
            || k.file != row.file
            || k.line != row.line
            || !(scope.processes.contains(&c.process)
                || (all_ranks && c.process == blame_formats::results::ALL_RANKS))
        {
            continue;
        }
        // The line that blames it: the frame in the defining function
        // (for globals, the innermost frame).
        let frames: Vec<&blame_formats::results::SymFrame> =
            results.stack_frames(c.stack).collect();
        let at = if row.function.is_empty() {
            frames.first().copied()
        } else {
            frames
                .iter()
                .find(|f| same_function(&f.function, &row.function))
                .copied()
        };
        if let Some(f) = at {
            *lines.entry((f.file.clone(), f.line)).or_default() += c.samples;
        }
        contexts += 1;
        groups
            .entry(frames.iter().map(|f| f.function.as_str()).collect())
            .or_insert_with(|| PathGroup::new(c.stack))
            .add(c.samples, results.rank_of(c.process), c.stack);
    }
    GatheredContexts {
        groups,
        contexts,
        lines,
    }
}

/// One variable's drill-down from its gathered contexts: the heaviest call
/// paths with their frames, what the cap leaves out, and its lines.
fn drill_variable(
    results: &Results,
    filters: &Filters,
    row: VariableRow,
    gathered: GatheredContexts<'_>,
    sources: &mut SourceCache,
) -> DrillVariable {
    let of_variable = |x: f64| {
        if row.samples > 0.0 {
            100.0 * x / row.samples
        } else {
            0.0
        }
    };
    // Paths sorted and capped before their frames are built: a variable
    // of every context (main's array) has tens of thousands of paths.
    let mut groups: Vec<(Vec<&str>, PathGroup)> = gathered.groups.into_iter().collect();
    groups.sort_by(|a, b| {
        b.1.samples
            .total_cmp(&a.1.samples)
            .then_with(|| a.0.cmp(&b.0))
    });
    let cap = filters.top.unwrap_or(DRILL_PATHS);
    let rest = groups.split_off(groups.len().min(cap));
    let paths: Vec<DrillPath> = groups
        .into_iter()
        .map(|(functions, g)| drill_path(results, functions, g, of_variable, sources))
        .collect();
    let more = (!rest.is_empty()).then(|| {
        let samples = rest.iter().map(|g| g.1.samples).sum();
        DrillMore {
            paths: rest.len(),
            contexts: rest.iter().map(|g| g.1.contexts).sum(),
            samples,
            percent_of_variable: of_variable(samples),
        }
    });
    let lines = drill_lines(gathered.lines, sources);
    DrillVariable {
        variable: row,
        contexts: gathered.contexts,
        paths,
        more,
        lines,
    }
}

/// One call path shown: its sums and its heaviest context's frames with
/// their source lines.
fn drill_path(
    results: &Results,
    functions: Vec<&str>,
    mut g: PathGroup,
    of_variable: impl Fn(f64) -> f64,
    sources: &mut SourceCache,
) -> DrillPath {
    g.ranks.sort_unstable();
    DrillPath {
        functions: functions.into_iter().map(demangle).collect(),
        samples: g.samples,
        percent_of_variable: of_variable(g.samples),
        contexts: g.contexts,
        ranks: g.ranks,
        frames: results
            .stack_frames(g.heaviest.1)
            .map(|f| DrillFrame {
                function: demangle(&f.function),
                file: f.file.clone(),
                line: f.line,
                source: sources.line(&f.file, f.line),
            })
            .collect(),
    }
}

/// The blame by line of the defining function, heaviest first, with the
/// source of each line.
fn drill_lines(lines: BTreeMap<(String, u32), f64>, sources: &mut SourceCache) -> Vec<DrillLine> {
    let mut lines: Vec<DrillLine> = lines
        .into_iter()
        .map(|((file, line), samples)| DrillLine {
            source: sources.line(&file, line),
            file,
            line,
            samples,
        })
        .collect();
    lines.sort_by(|a, b| b.samples.total_cmp(&a.samples).then(a.line.cmp(&b.line)));
    lines
}

/// True when a symbolized frame's function is the variable's defining
/// function (symbolizers may add parameter lists to C++ names).
fn same_function(frame_fn: &str, function: &str) -> bool {
    frame_fn == function
        || frame_fn
            .strip_prefix(function)
            .is_some_and(|rest| rest.starts_with('('))
}
