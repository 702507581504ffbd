//! The report views of section 3.5 as plain data: flat data-centric (by
//! variable), code-centric (by function), blame points, and drill-down into
//! one variable's contexts. Rendering is in [`crate::render`].
//!
//! This module holds what every view shares: the filters, the output
//! formats, the errors of a view, internal names and which event a view
//! shows; each view is a module of its own.

mod blame_points;
mod by_function;
mod by_variable;
mod compare;
mod drilldown;
mod scope;

pub use blame_points::{blame_points, BlamePoint, BlamePointView};
pub use by_function::{by_function, FunctionRow, FunctionView};
pub(crate) use by_variable::is_derived;
pub use by_variable::{
    by_variable, name_other_names, CoverageReason, CoverageView, OtherNames, VariableRow,
    VariableView,
};
pub use compare::{compare, pearson, CompareRow, CompareView};
pub(crate) use drilldown::PathGroup;
pub use drilldown::{
    drilldown, DrillFrame, DrillLine, DrillMore, DrillPath, DrillVariable, DrillView, DRILL_PATHS,
};
pub use scope::RankStats;

use blame_formats::results::Results;
use regex::Regex;
use serde::Serialize;

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
