//! `blame export`: results in the formats of other profilers' viewers, each
//! with a code-centric or data-centric tree ([`crate::trees`]).

pub mod cubex;
pub mod firefox;
pub mod folded;
pub mod hatchet;
pub mod pprof;
pub mod pprof_heap;
pub mod speedscope;
pub mod thicket;

use crate::trees::{self, TreeKind};
use blame_formats::results::Results;

/// Why results cannot be exported as asked.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    View(#[from] crate::views::ViewError),
    #[error(transparent)]
    NoSuchEvent(#[from] crate::views::NoSuchEvent),
    #[error(transparent)]
    PerRankContexts(#[from] blame_formats::results::PerRankContextsMissing),
    #[error("the results have no events")]
    NoEvents,
    #[error("the results have no processes: a Cube file needs at least one location")]
    NoProcesses,
    #[error("a heap profile (--format pprof-heap) is made from a run directory's memory profiles, not from results")]
    HeapFromResults,
    #[error("no runs to export")]
    NoRuns,
    #[error("the runs have different events ({first}, {other}): choose one with --event")]
    DifferentEvents { first: String, other: String },
    #[error("flame graph: {0}")]
    FlameGraph(#[source] std::io::Error),
    #[error("firefox profile: {0}")]
    Firefox(#[source] serde_json::Error),
    #[error("Cube archive: {0}")]
    Archive(#[source] std::io::Error),
}

/// What `blame export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    Html,
    Speedscope,
    Firefox,
    Pprof,
    /// Heap profiles by variable (pprof), from the run's memory profiles.
    PprofHeap,
    Folded,
    #[value(alias = "flamegraph")]
    Svg,
    Hatchet,
    Thicket,
    #[value(alias = "cube")]
    Cubex,
    Csv,
}

/// Renders `results` (one event) as `format` with the chosen tree.
pub fn export(
    results: &Results,
    format: ExportFormat,
    tree: TreeKind,
    event: Option<&str>,
) -> Result<Vec<u8>, ExportError> {
    export_with(results, format, tree, event, false)
}

/// [`export`]; data trees and variable tables with every variable (macro
/// temporaries too, [`crate::views::is_internal_name`]) when `all_variables`.
pub fn export_with(
    results: &Results,
    format: ExportFormat,
    tree: TreeKind,
    event: Option<&str>,
    all_variables: bool,
) -> Result<Vec<u8>, ExportError> {
    // A profile, thread or location per rank needs each rank's contexts.
    let per_rank = match format {
        ExportFormat::Speedscope => Some("a Speedscope export (a profile per rank)"),
        ExportFormat::Firefox => Some("a Firefox Profiler export (a thread per rank)"),
        _ => None,
    };
    if let Some(refusal) = per_rank.and_then(|what| results.per_rank_contexts_missing(what)) {
        return Err(refusal.into());
    }
    let e = crate::views::event_index(results, event)?;
    let event_name = results
        .header
        .events
        .get(e)
        .map(|x| x.name.clone())
        .unwrap_or_default();
    let stacks = trees::stacks_with(results, e, tree, all_variables);
    let title = match tree {
        TreeKind::Code => format!("blame: {event_name} by calling context"),
        TreeKind::Data => format!("blame: {event_name} by variable"),
    };
    Ok(match format {
        ExportFormat::Folded => folded::folded(results, &stacks).into_bytes(),
        ExportFormat::Svg => folded::svg(results, &stacks, &title)?,
        ExportFormat::Speedscope => speedscope::speedscope(results, &stacks, &title, &event_name),
        ExportFormat::Pprof => pprof::pprof(results, &stacks, &event_name, tree),
        ExportFormat::PprofHeap => return Err(ExportError::HeapFromResults),
        ExportFormat::Firefox => firefox::firefox(results, &stacks, &title)?,
        ExportFormat::Hatchet => hatchet::hatchet(results, &stacks, &event_name),
        ExportFormat::Thicket => thicket::thicket(results, event, all_variables, "run", &[])?,
        ExportFormat::Cubex => cubex::cubex(results, event, all_variables)?,
        ExportFormat::Csv => {
            let filters = crate::views::Filters {
                event: Some(event_name.clone()),
                all_variables,
                ..Default::default()
            };
            match tree {
                TreeKind::Data => {
                    crate::render::variable_table(&crate::views::by_variable(results, &filters)?)
                        .csv()
                }
                TreeKind::Code => {
                    crate::render::function_table(&crate::views::by_function(results, &filters)?)
                        .csv()
                }
            }
            .into_bytes()
        }
        ExportFormat::Html => crate::html::html(results, event)?.into_bytes(),
    })
}
