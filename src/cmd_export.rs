//! `blame export`: results as an HTML report or in other profilers' formats.

use crate::cmd_post::{results_for_report, InputArgs};
use anyhow::{Context, Result};
use blame_gui_export::export::{export_with, ExportFormat};
use blame_gui_export::source::SourceCache;
use blame_gui_export::trees::TreeKind;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct ExportArgs {
    #[command(flatten)]
    input: InputArgs,
    /// html, speedscope, firefox, pprof, folded, svg, hatchet, thicket (Thicket's JSON: code
    /// and data trees, the run's metadata) or csv.
    #[arg(long)]
    format: ExportFormat,
    /// Output file.
    #[arg(short, long)]
    output: PathBuf,
    /// Tree to export: code (calling contexts) or data (variable paths).
    #[arg(long, default_value = "code")]
    tree: TreeKind,
    /// Event to export [default: the first recorded event with samples].
    #[arg(short, long)]
    event: Option<String>,
    /// Directories to find source files in (HTML drill-downs) [default: current directory].
    #[arg(long = "source-root")]
    source_roots: Vec<PathBuf>,
    /// Also variables with internal names (macro temporaries, reserved identifiers; see
    /// `blame report --all-variables`): in data trees and tables, and shown from the start
    /// in the HTML report (which holds them either way, behind its "all variables" box).
    #[arg(long)]
    all_variables: bool,
}

pub fn run(args: ExportArgs) -> Result<()> {
    let results = results_for_report(&args.input)?;
    let bytes = if args.format == ExportFormat::Html {
        let mut roots = args.source_roots.clone();
        roots.push(PathBuf::from("."));
        if let Some(dir) = &args.input.run_dir {
            roots.push(dir.clone());
        }
        blame_gui_export::html::html_with_options(
            &results,
            args.event.as_deref(),
            &mut SourceCache::new(roots),
            args.all_variables,
        )?
        .into_bytes()
    } else if args.format == ExportFormat::Thicket {
        let label = args
            .input
            .run_dir
            .as_ref()
            .map(|d| d.display().to_string())
            .unwrap_or_else(|| "run".into());
        let meta = args
            .input
            .run_dir
            .as_deref()
            .map(manifest_metadata)
            .unwrap_or_default();
        blame_gui_export::export::thicket::thicket(
            &results,
            args.event.as_deref(),
            args.all_variables,
            &label,
            &meta,
        )
        .map_err(anyhow::Error::msg)?
    } else {
        export_with(
            &results,
            args.format,
            args.tree,
            args.event.as_deref(),
            args.all_variables,
        )
        .map_err(anyhow::Error::msg)?
    };
    blame_formats::files::write_atomic(&args.output, &bytes)
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    eprintln!(
        "blame: wrote {} ({} bytes)",
        args.output.display(),
        bytes.len()
    );
    Ok(())
}

/// What the run's manifest adds to a Thicket profile's metadata: when it
/// was recorded, for how long, and how.
fn manifest_metadata(dir: &std::path::Path) -> Vec<(String, serde_json::Value)> {
    let Ok(m) = blame_sampler::manifest::Manifest::read(&dir.join("manifest.json")) else {
        return Vec::new();
    };
    vec![
        ("start_unix_ns".into(), m.start_unix_ns.into()),
        (
            "wall_seconds".into(),
            (m.end_unix_ns.saturating_sub(m.start_unix_ns) as f64 * 1e-9).into(),
        ),
        ("sampler".into(), m.sampler.into()),
        ("call_graph".into(), m.call_graph.into()),
        ("recorded_command".into(), m.command.join(" ").into()),
    ]
}
