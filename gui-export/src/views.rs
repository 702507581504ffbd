//! The report views of section 3.5 as plain data: flat data-centric (by
//! variable), code-centric (by function), blame points, and drill-down into
//! one variable's contexts. Rendering is in [`crate::render`].

use crate::regions::demangle;
use crate::source::SourceCache;
use blame_formats::results::{ProcessValue, Results, VariableKey};
use regex::Regex;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The approximate attribution methods of memory events (ch. 5), in the
/// order reports show them: raw, loop compensation, skid negation, both,
/// and each refined by access-pattern weights.
pub const MEMORY_METHODS: [&str; 6] = [
    "raw",
    "loop",
    "skid",
    "skid+loop",
    "loop+access",
    "skid+loop+access",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
    Csv,
}

/// Filters that select nothing the results hold.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    #[error("the results hold no events (no samples were recorded)")]
    NoEvents,
    #[error(transparent)]
    NoSuchEvent(#[from] NoSuchEvent),
    #[error("no process has rank {rank}; ranks in this run: {}", if ranks.is_empty() { "none".to_string() } else { ranks.join(", ") })]
    NoSuchRank { rank: u32, ranks: Vec<String> },
    #[error("--method {method}: use {} or all", MEMORY_METHODS.join(", "))]
    NoSuchMethod { method: String },
    #[error("--method applies to memory events; {event} is not one (mark it with --memory-event)")]
    MethodOfTimeEvent { event: String },
    #[error(transparent)]
    PerRankContexts(#[from] blame_formats::results::PerRankContextsMissing),
    #[error("no blamed variable named {path:?} for event {event}; see `blame report --by-variable` for names")]
    NoSuchVariable { path: String, event: String },
    /// One of several runs compared (`blame diff`, `blame scaling`).
    #[error("{run}: {error}")]
    OfRun {
        run: String,
        #[source]
        error: Box<ViewError>,
    },
    #[error("blame diff compares time blame; {event} is a memory event")]
    DiffOfMemoryEvent { event: String },
    #[error("--variable {path:?} names {} variables; name one of them:\n  {}", candidates.len(), candidates.join("\n  "))]
    AmbiguousVariable {
        path: String,
        /// Each variable of that name, as the message lists it.
        candidates: Vec<String>,
    },
    #[error("--compare needs a memory event; {event} is not one (mark it with --memory-event)")]
    CompareOfTimeEvent { event: String },
    #[error("no {baseline} attribution in these results: it needs samples with data addresses (PEBS/IBS/SPE, perf mem) and, for heap blocks, --track-allocations")]
    NoBaseline { baseline: String },
}

impl ViewError {
    /// This error, of the run labelled `run`.
    pub fn of_run(self, run: &str) -> ViewError {
        ViewError::OfRun {
            run: run.to_string(),
            error: Box::new(self),
        }
    }
}

/// An event asked for by name that the results do not hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("event {name:?} is not in the results; recorded: {}", recorded.join(", "))]
pub struct NoSuchEvent {
    pub name: String,
    pub recorded: Vec<String>,
}

/// Which blame ranks the variables.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum RankBy {
    /// Explicit blame: data flow only (what the variable is computed from).
    #[default]
    Explicit,
    /// Total blame: explicit plus implicit (control flow: loop and branch tests).
    Total,
}

impl RankBy {
    /// `explicit` or `total`, as reports say it.
    pub fn name(self) -> &'static str {
        match self {
            RankBy::Explicit => "explicit",
            RankBy::Total => "total",
        }
    }
}

/// Row filters shared by every view.
#[derive(Debug, Clone, Default)]
pub struct Filters {
    /// The blame that orders the rows (explicit by default).
    pub rank_by: RankBy,
    pub type_re: Option<Regex>,
    pub function_re: Option<Regex>,
    pub rank: Option<u32>,
    pub top: Option<usize>,
    pub min_percent: f64,
    pub event: Option<String>,
    /// Memory events: one of [`MEMORY_METHODS`], or `all`.
    pub method: Option<String>,
    /// Also variables with internal names ([`is_internal_name`]): macro
    /// temporaries and reserved identifiers, left out by default.
    pub all_variables: bool,
}

/// Whether a variable path names something a program's author did not
/// declare as data of their own, so the default views leave it out (it is
/// still in the results; `--all-variables` shows it). A path is internal
/// when one of its dotted components
///
/// - contains `__`: temporaries of loop and accessor macros (hypre's
///   `hypre__nx`, `xxx__i`), the compiler's own (`__range1`, `__begin1` of a
///   C++ range-for) and every identifier C and C++ reserve for the
///   implementation (`__x`); or
/// - starts with `_` and an uppercase letter, the other reserved
///   identifiers (`_M_impl` inside a `std::vector`).
///
/// C++ qualification (`std::__ioinit`) counts as part of a component. A
/// name starting with a dot is the compiler's (`.omp.iv`).
pub fn is_internal_name(path: &str) -> bool {
    // Names the compiler makes start with a dot (`.omp.iv`, `.omp.is_last`
    // of an OpenMP loop, `.capture_expr.`).
    path.starts_with('.')
        || path.split('.').any(|part| {
            let mut chars = part.chars();
            part.contains("__")
                || (chars.next() == Some('_')
                    && chars.next().is_some_and(|c| c.is_ascii_uppercase()))
        })
}

/// Per-rank spread of a variable's blame, in percent of each rank's samples.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct RankStats {
    pub ranks: usize,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub median: f64,
    /// max / mean - 1, in percent: 0 when perfectly balanced.
    pub imbalance: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct VariableRow {
    pub name: String,
    pub function: String,
    pub file: String,
    pub line: u32,
    #[serde(rename = "type")]
    pub type_name: String,
    pub kind: String,
    /// Explicit blame (data flow only), in samples: the `samples` column of
    /// every view (text, CSV, HTML and JSON's `samples`), and what data-tree
    /// exports weigh. For memory events, the attributed value.
    #[serde(rename = "samples")]
    pub explicit: f64,
    /// Explicit blame in percent of the run's samples (`explicit %`).
    pub explicit_percent: f64,
    /// Total blame (explicit and implicit) in percent of the run's samples
    /// (`total %`; JSON `total_percent`).
    #[serde(rename = "total_percent")]
    pub percent: f64,
    /// Samples that wrote the variable's own memory, in percent (`excl %`).
    pub exclusive_percent: f64,
    /// Total blame in samples (JSON `total`).
    #[serde(rename = "total")]
    pub samples: f64,
    /// Exclusive blame in samples (JSON `exclusive`).
    pub exclusive: f64,
    /// A derived scalar: a scalar (iteration count, timer, norm, flop
    /// counter) whose blame is mostly inherited: from data structures
    /// computed in the same samples, or through control flow.
    /// Listed after the data structures.
    pub derived: bool,
    pub ranks: RankStats,
    /// Memory events: the attributed count under each method.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub methods: BTreeMap<String, f64>,
    /// The other names this data structure's blame comes through, each
    /// `function::path`: element pointers, list cursors, links of a linked
    /// structure (JSON `also_reached_as`; see [`name_other_names`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also_reached_as: Vec<String>,
}

/// Per row as results key it (function, variable path), the other names
/// of its data structure (`blame_post::other_names`, computed from the
/// static db the results were posted with).
pub type OtherNames = std::collections::HashMap<(String, String), Vec<String>>;

/// Fills each row's `also_reached_as` from `names`.
pub fn name_other_names<'a>(
    rows: impl IntoIterator<Item = &'a mut VariableRow>,
    names: &OtherNames,
) {
    for r in rows {
        if let Some(n) = names.get(&(r.function.clone(), r.name.clone())) {
            r.also_reached_as = n.clone();
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct VariableView {
    pub event: String,
    /// Memory events: the method behind `samples`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    pub total_samples: f64,
    /// The blame the rows are ordered by.
    pub rank_by: RankBy,
    /// How many of the event's samples reached a named variable, and why
    /// the others did not (absent in results of older versions).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<CoverageView>,
    pub variables: Vec<VariableRow>,
}

/// Coverage of one event: samples that reached a named variable.
#[derive(Debug, Clone, Serialize)]
pub struct CoverageView {
    pub samples: f64,
    pub resolved: f64,
    pub percent: f64,
    pub reasons: Vec<CoverageReason>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CoverageReason {
    pub reason: String,
    pub samples: f64,
    pub percent: f64,
}

impl CoverageView {
    fn of(results: &Results, event: u16) -> Option<CoverageView> {
        let c = results.header.coverage.iter().find(|c| c.event == event)?;
        let pct = |x: f64| {
            if c.samples > 0.0 {
                100.0 * x / c.samples
            } else {
                0.0
            }
        };
        let mut reasons: Vec<CoverageReason> = c
            .reasons
            .iter()
            .map(|(reason, n)| CoverageReason {
                reason: reason.clone(),
                samples: *n,
                percent: pct(*n),
            })
            .collect();
        reasons.sort_by(|a, b| {
            b.samples
                .total_cmp(&a.samples)
                .then(a.reason.cmp(&b.reason))
        });
        Some(CoverageView {
            samples: c.samples,
            resolved: c.resolved,
            percent: c.percent(),
            reasons,
        })
    }
}

/// A scalar whose own blame (explicit, in samples that blame no data
/// structure) is under half of its total blame is a derived scalar.
pub(crate) fn is_derived(key: &VariableKey, total: f64, explicit: f64, inherited: f64) -> bool {
    key.scalar && total > 0.0 && (explicit - inherited) < 0.5 * total
}

/// Which processes and event a view covers.
struct Scope {
    event: u16,
    event_name: String,
    processes: Vec<u32>,
    total: f64,
    /// For memory events: the method whose values are shown.
    method: Option<String>,
}

impl Scope {
    fn new(results: &Results, filters: &Filters) -> Result<Scope, ViewError> {
        let events = &results.header.events;
        if events.is_empty() {
            return Err(ViewError::NoEvents);
        }
        let event = event_index(results, filters.event.as_deref())?;
        let procs = &results.header.processes;
        let processes: Vec<u32> = match filters.rank {
            Some(r) => {
                let found: Vec<u32> = (0..procs.len() as u32)
                    .filter(|&i| procs[i as usize].rank == Some(r))
                    .collect();
                if found.is_empty() {
                    let ranks: Vec<String> = procs
                        .iter()
                        .filter_map(|p| p.rank.map(|r| r.to_string()))
                        .collect();
                    return Err(ViewError::NoSuchRank { rank: r, ranks });
                }
                found
            }
            None => {
                let app: Vec<u32> = (0..procs.len() as u32)
                    .filter(|&i| !procs[i as usize].launcher)
                    .collect();
                if app.is_empty() {
                    (0..procs.len() as u32).collect()
                } else {
                    app
                }
            }
        };
        let total = processes
            .iter()
            .map(|&p| procs[p as usize].samples.get(event).copied().unwrap_or(0.0))
            .sum();
        let method = if events[event].memory {
            match filters.method.as_deref() {
                None | Some("all") => None,
                Some(m) if MEMORY_METHODS.contains(&m) => Some(m.to_string()),
                Some(m) => {
                    return Err(ViewError::NoSuchMethod {
                        method: m.to_string(),
                    })
                }
            }
        } else {
            if filters.method.as_deref().is_some_and(|m| m != "all") {
                return Err(ViewError::MethodOfTimeEvent {
                    event: events[event].name.clone(),
                });
            }
            None
        };
        Ok(Scope {
            event: event as u16,
            event_name: events[event].name.clone(),
            processes,
            total,
            method,
        })
    }

    /// The value of one process under the scope's method.
    fn value(&self, v: &ProcessValue) -> f64 {
        match &self.method {
            Some(m) => v
                .methods
                .iter()
                .find(|(name, _)| name == m)
                .map(|(_, x)| *x)
                .unwrap_or(0.0),
            None => v.inclusive,
        }
    }

    fn sum(&self, values: &[ProcessValue]) -> (f64, f64) {
        values
            .iter()
            .filter(|v| self.processes.contains(&v.process))
            .fold((0.0, 0.0), |(i, e), v| (i + self.value(v), e + v.exclusive))
    }

    /// (explicit, inherited) over the scope's processes. Memory events have
    /// no implicit part: their explicit value is the attributed value.
    fn sum_explicit(&self, values: &[ProcessValue]) -> (f64, f64) {
        values
            .iter()
            .filter(|v| self.processes.contains(&v.process))
            .fold((0.0, 0.0), |(x, h), v| {
                let explicit = if self.method.is_some() {
                    self.value(v)
                } else {
                    v.explicit
                };
                (x + explicit, h + v.inherited)
            })
    }

    fn methods(&self, values: &[ProcessValue]) -> BTreeMap<String, f64> {
        let mut out = BTreeMap::new();
        for v in values
            .iter()
            .filter(|v| self.processes.contains(&v.process))
        {
            for (m, x) in &v.methods {
                *out.entry(m.clone()).or_default() += x;
            }
        }
        out
    }

    fn percent(&self, x: f64) -> f64 {
        if self.total > 0.0 {
            100.0 * x / self.total
        } else {
            0.0
        }
    }

    fn rank_stats(&self, results: &Results, values: &[ProcessValue]) -> RankStats {
        let pcts: Vec<f64> = self
            .processes
            .iter()
            .map(|&p| {
                let total = results.header.processes[p as usize]
                    .samples
                    .get(self.event as usize)
                    .copied()
                    .unwrap_or(0.0);
                // A fold from +0.0: an empty f64 sum is -0.0, shown as "-0.0%".
                let mine: f64 = values
                    .iter()
                    .filter(|v| v.process == p)
                    .map(|v| self.value(v))
                    .fold(0.0, |a, b| a + b);
                if total > 0.0 {
                    100.0 * mine / total
                } else {
                    0.0
                }
            })
            .collect();
        RankStats::of(pcts)
    }
}

impl RankStats {
    /// Mean, minimum, median, maximum and imbalance (the maximum over the
    /// mean, in percent above it) of one value per rank.
    pub(crate) fn of(mut values: Vec<f64>) -> RankStats {
        if values.is_empty() {
            return RankStats::default();
        }
        values.sort_by(|a, b| a.total_cmp(b));
        let n = values.len();
        let mean = values.iter().sum::<f64>() / n as f64;
        let median = if n % 2 == 1 {
            values[n / 2]
        } else {
            (values[n / 2 - 1] + values[n / 2]) / 2.0
        };
        let max = values[n - 1];
        RankStats {
            ranks: n,
            mean,
            min: values[0],
            max,
            median,
            imbalance: if mean > 0.0 {
                100.0 * (max / mean - 1.0)
            } else {
                0.0
            },
        }
    }
}

fn keep_key(filters: &Filters, key: &VariableKey) -> bool {
    // No variable without a name is shown, whatever produced it.
    !key.name.is_empty()
        && (filters.all_variables || !is_internal_name(&key.name))
        && filters
            .type_re
            .as_ref()
            .is_none_or(|re| re.is_match(&key.type_name))
        && filters
            .function_re
            .as_ref()
            .is_none_or(|re| re.is_match(&key.function))
}

fn variable_rows(results: &Results, filters: &Filters, scope: &Scope) -> Vec<VariableRow> {
    let mut rows: Vec<VariableRow> = results
        .variables
        .iter()
        .filter(|v| v.key.event == scope.event && keep_key(filters, &v.key))
        .filter_map(|v| {
            let (inc, exc) = scope.sum(&v.values);
            let (explicit, inherited) = scope.sum_explicit(&v.values);
            (inc > 0.0 || exc > 0.0).then(|| VariableRow {
                name: v.key.name.clone(),
                function: v.key.function.clone(),
                file: v.key.file.clone(),
                line: v.key.line,
                type_name: v.key.type_name.clone(),
                kind: v.key.kind.clone(),
                samples: inc,
                percent: scope.percent(inc),
                explicit,
                explicit_percent: scope.percent(explicit),
                exclusive: exc,
                exclusive_percent: scope.percent(exc),
                derived: is_derived(&v.key, inc, explicit, inherited),
                ranks: scope.rank_stats(results, &v.values),
                methods: scope.methods(&v.values),
                also_reached_as: Vec::new(),
            })
        })
        .filter(|r| r.percent >= filters.min_percent)
        .collect();
    let rank = |r: &VariableRow| match filters.rank_by {
        RankBy::Explicit => r.explicit,
        RankBy::Total => r.samples,
    };
    // Data structures first, then derived scalars; each by the chosen blame.
    rows.sort_by(|a, b| {
        a.derived
            .cmp(&b.derived)
            .then_with(|| rank(b).total_cmp(&rank(a)))
            .then_with(|| b.samples.total_cmp(&a.samples))
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| a.function.cmp(&b.function))
    });
    rows
}

/// The flat data-centric view: variables by descending blame.
pub fn by_variable(results: &Results, filters: &Filters) -> Result<VariableView, ViewError> {
    let scope = Scope::new(results, filters)?;
    let mut rows = variable_rows(results, filters, &scope);
    if let Some(n) = filters.top {
        rows.truncate(n);
    }
    let memory = results
        .header
        .events
        .get(scope.event as usize)
        .is_some_and(|e| e.memory);
    Ok(VariableView {
        method: memory.then(|| {
            scope.method.clone().unwrap_or_else(|| {
                // Without --method, `samples` is what post reported: the
                // most refined method it computed (skid needs a skid model,
                // access weights a static db with access patterns).
                ["skid+loop+access", "skid+loop", "loop+access", "loop"]
                    .into_iter()
                    .find(|m| rows.iter().any(|r| r.methods.contains_key(*m)))
                    .unwrap_or("loop")
                    .to_string()
            })
        }),
        event: scope.event_name,
        total_samples: scope.total,
        rank_by: filters.rank_by,
        coverage: CoverageView::of(results, scope.event),
        variables: rows,
    })
}

#[derive(Debug, Clone, Serialize)]
pub struct FunctionRow {
    pub function: String,
    pub file: String,
    /// Region class (`MPI`, `WRP`, `COM`, `USR`, `FLT`; see [`crate::regions`]).
    pub class: crate::regions::RegionClass,
    pub inclusive: f64,
    pub inclusive_percent: f64,
    pub exclusive: f64,
    pub exclusive_percent: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct FunctionView {
    pub event: String,
    pub total_samples: f64,
    pub functions: Vec<FunctionRow>,
}

/// The code-centric view: functions by inclusive samples.
pub fn by_function(results: &Results, filters: &Filters) -> Result<FunctionView, ViewError> {
    let scope = Scope::new(results, filters)?;
    let classes = crate::regions::classes(results);
    let mut rows: Vec<FunctionRow> = results
        .functions
        .iter()
        .filter(|f| f.key.event == scope.event)
        .filter(|f| {
            filters
                .function_re
                .as_ref()
                .is_none_or(|re| re.is_match(&f.key.name))
        })
        .filter_map(|f| {
            let (inc, exc) = scope.sum(&f.values);
            (inc > 0.0).then(|| FunctionRow {
                function: f.key.name.clone(),
                file: f.key.file.clone(),
                class: classes
                    .get(&f.key.name)
                    .copied()
                    .unwrap_or(crate::regions::RegionClass::Usr),
                inclusive: inc,
                inclusive_percent: scope.percent(inc),
                exclusive: exc,
                exclusive_percent: scope.percent(exc),
            })
        })
        .filter(|r| r.inclusive_percent >= filters.min_percent)
        .collect();
    rows.sort_by(|a, b| {
        b.inclusive
            .total_cmp(&a.inclusive)
            .then_with(|| b.exclusive.total_cmp(&a.exclusive))
            .then_with(|| a.function.cmp(&b.function))
    });
    if let Some(n) = filters.top {
        rows.truncate(n);
    }
    Ok(FunctionView {
        event: scope.event_name,
        total_samples: scope.total,
        functions: rows,
    })
}

#[derive(Debug, Clone, Serialize)]
pub struct BlamePoint {
    pub function: String,
    /// `implicit` (no exit variables) or `explicit` (over the threshold).
    pub reason: String,
    pub variables: Vec<VariableRow>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BlamePointView {
    pub event: String,
    pub total_samples: f64,
    pub blame_points: Vec<BlamePoint>,
}

/// Blame points (3.5.1.2): implicit ones from the results (functions whose
/// variables cannot be lifted further, and `main`), explicit ones for every
/// function holding a variable over `threshold` percent.
pub fn blame_points(
    results: &Results,
    filters: &Filters,
    threshold: Option<f64>,
) -> Result<BlamePointView, ViewError> {
    let scope = Scope::new(results, filters)?;
    let rows = variable_rows(results, filters, &scope);
    let mut by_function: BTreeMap<String, Vec<VariableRow>> = BTreeMap::new();
    for r in rows {
        by_function.entry(r.function.clone()).or_default().push(r);
    }
    let mut points = Vec::new();
    for (function, mut vars) in by_function {
        if function.is_empty() {
            continue;
        }
        // `main` is one by definition (results of older posts lack it).
        let implicit = results.header.blame_points.contains(&function) || function == "main";
        let explicit = threshold.is_some_and(|t| vars.iter().any(|v| v.percent >= t));
        if !(implicit || explicit) {
            continue;
        }
        if let Some(n) = filters.top {
            vars.truncate(n);
        }
        points.push(BlamePoint {
            function,
            reason: if implicit { "implicit" } else { "explicit" }.to_string(),
            variables: vars,
        });
    }
    points.sort_by(|a, b| {
        let top = |p: &BlamePoint| p.variables.first().map(|v| v.samples).unwrap_or(0.0);
        top(b)
            .total_cmp(&top(a))
            .then_with(|| a.function.cmp(&b.function))
    });
    Ok(BlamePointView {
        event: scope.event_name,
        total_samples: scope.total,
        blame_points: points,
    })
}

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
    let (want_fn, want_name) = match path.rsplit_once("::") {
        Some((f, n)) => (Some(f), n),
        None => (None, path),
    };
    // `NAME:LINE` picks one of several variables of one name in a function.
    let (want_name, want_line) = match want_name.rsplit_once(':') {
        Some((n, l)) if l.parse::<u32>().is_ok() => (n, l.parse::<u32>().ok()),
        _ => (want_name, None),
    };
    // A variable asked for by name is shown even when its name is internal.
    let all = Filters {
        all_variables: true,
        ..filters.clone()
    };
    let rows: Vec<VariableRow> = variable_rows(results, &all, &scope)
        .into_iter()
        .filter(|r| {
            r.name == want_name
                && want_fn.is_none_or(|f| r.function == f)
                && want_line.is_none_or(|l| r.line == l)
        })
        .collect();
    if rows.is_empty() {
        return Err(ViewError::NoSuchVariable {
            path: path.to_string(),
            event: scope.event_name.clone(),
        });
    }
    if rows.len() > 1 {
        // Several variables of that name: list them, never pick one.
        let functions: BTreeSet<&str> = rows.iter().map(|r| r.function.as_str()).collect();
        let candidates: Vec<String> = rows
            .iter()
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
            .collect();
        return Err(ViewError::AmbiguousVariable {
            path: path.to_string(),
            candidates,
        });
    }
    let mut variables = Vec::new();
    for row in rows {
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
        let of_variable = |x: f64| {
            if row.samples > 0.0 {
                100.0 * x / row.samples
            } else {
                0.0
            }
        };
        // Paths sorted and capped before their frames are built: a variable
        // of every context (main's array) has tens of thousands of paths.
        let mut groups: Vec<(Vec<&str>, PathGroup)> = groups.into_iter().collect();
        groups.sort_by(|a, b| {
            b.1.samples
                .total_cmp(&a.1.samples)
                .then_with(|| a.0.cmp(&b.0))
        });
        let cap = filters.top.unwrap_or(DRILL_PATHS);
        let rest = groups.split_off(groups.len().min(cap));
        let paths: Vec<DrillPath> = groups
            .into_iter()
            .map(|(functions, mut g)| {
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
            })
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
        variables.push(DrillVariable {
            variable: row,
            contexts,
            paths,
            more,
            lines,
        });
    }
    Ok(DrillView {
        event: scope.event_name,
        total_samples: scope.total,
        variables,
    })
}

/// One variable across attribution methods.
#[derive(Debug, Clone, Serialize)]
pub struct CompareRow {
    pub name: String,
    pub function: String,
    #[serde(rename = "type")]
    pub type_name: String,
    pub values: BTreeMap<String, f64>,
    /// 1 = most misses under that method.
    pub ranks: BTreeMap<String, usize>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CompareView {
    pub event: String,
    pub baseline: String,
    pub methods: Vec<String>,
    /// Pearson correlation of each method's values against the baseline's,
    /// over every variable either attributes to; `None` when undefined.
    pub correlation: BTreeMap<String, Option<f64>>,
    pub variables: Vec<CompareRow>,
}

/// Pearson's correlation coefficient; `None` for fewer than two points or no variance.
pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len().min(y.len());
    if n < 2 {
        return None;
    }
    let (mx, my) = (
        x[..n].iter().sum::<f64>() / n as f64,
        y[..n].iter().sum::<f64>() / n as f64,
    );
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for i in 0..n {
        let (dx, dy) = (x[i] - mx, y[i] - my);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx.sqrt() * syy.sqrt()))
}

/// Compares every attribution method of a memory event against `baseline`
/// (`direct`: attribution by data address, 5.3.4).
pub fn compare(
    results: &Results,
    filters: &Filters,
    baseline: &str,
) -> Result<CompareView, ViewError> {
    let scope = Scope::new(
        results,
        &Filters {
            method: None,
            ..filters.clone()
        },
    )?;
    let memory = results
        .header
        .events
        .get(scope.event as usize)
        .is_some_and(|e| e.memory);
    if !memory {
        return Err(ViewError::CompareOfTimeEvent {
            event: scope.event_name.clone(),
        });
    }
    let mut rows: Vec<CompareRow> = results
        .variables
        .iter()
        .filter(|v| v.key.event == scope.event && keep_key(filters, &v.key))
        .map(|v| CompareRow {
            name: v.key.name.clone(),
            function: v.key.function.clone(),
            type_name: v.key.type_name.clone(),
            values: scope.methods(&v.values),
            ranks: BTreeMap::new(),
        })
        .filter(|r| r.values.values().any(|&x| x > 0.0))
        .collect();
    let mut methods: Vec<String> = rows.iter().flat_map(|r| r.values.keys().cloned()).collect();
    methods.sort();
    methods.dedup();
    if !methods.iter().any(|m| m == baseline) {
        return Err(ViewError::NoBaseline {
            baseline: baseline.to_string(),
        });
    }
    for m in &methods {
        let mut order: Vec<usize> = (0..rows.len()).collect();
        order.sort_by(|&a, &b| {
            let v = |i: usize| rows[i].values.get(m).copied().unwrap_or(0.0);
            v(b).total_cmp(&v(a)).then(rows[a].name.cmp(&rows[b].name))
        });
        for (rank, i) in order.into_iter().enumerate() {
            rows[i].ranks.insert(m.clone(), rank + 1);
        }
    }
    let column = |m: &str| -> Vec<f64> {
        rows.iter()
            .map(|r| r.values.get(m).copied().unwrap_or(0.0))
            .collect()
    };
    let base = column(baseline);
    let correlation = methods
        .iter()
        .filter(|m| *m != baseline)
        .map(|m| (m.clone(), pearson(&base, &column(m))))
        .collect();
    rows.sort_by_key(|r| r.ranks[baseline]);
    if let Some(n) = filters.top {
        rows.truncate(n);
    }
    Ok(CompareView {
        event: scope.event_name,
        baseline: baseline.to_string(),
        methods,
        correlation,
        variables: rows,
    })
}

/// True when a symbolized frame's function is the variable's defining
/// function (symbolizers may add parameter lists to C++ names).
fn same_function(frame_fn: &str, function: &str) -> bool {
    frame_fn == function
        || frame_fn
            .strip_prefix(function)
            .is_some_and(|rest| rest.starts_with('('))
}

/// Index of the event to show or export: by name, else the first with samples.
pub fn event_index(results: &Results, name: Option<&str>) -> Result<usize, NoSuchEvent> {
    let events = &results.header.events;
    match name {
        Some(n) => events
            .iter()
            .position(|e| e.name == n)
            .ok_or_else(|| NoSuchEvent {
                name: n.to_string(),
                recorded: events.iter().map(|e| e.name.clone()).collect(),
            }),
        None => Ok((0..events.len())
            .find(|&e| {
                results
                    .header
                    .processes
                    .iter()
                    .any(|p| p.samples.get(e).copied().unwrap_or(0.0) > 0.0)
            })
            .unwrap_or(0)),
    }
}
