//! `blame export`: results as an HTML report or in other profilers' formats;
//! several runs (an ensemble) as one Thicket.

use crate::cmd_post::{results_for_report, HideArgs};
use crate::post_config::InputArgs;
use anyhow::{bail, Context, Result};
use blame_report::export::thicket::{thicket_runs, ThicketRun};
use blame_report::export::{export_with, ExportFormat};
use blame_report::source::SourceCache;
use blame_report::trees::TreeKind;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct ExportArgs {
    #[command(flatten)]
    input: InputArgs,
    /// More runs, for an ensemble: with `--format thicket` one Thicket with a profile per
    /// run and each run's metadata; with `--format cubex` `-o` is a directory that gets one
    /// Cube file per run as Extra-P reads them (`extrap --cube DIR`).
    #[arg(value_name = "MORE_RUNS")]
    more_runs: Vec<PathBuf>,
    /// A parameter of the runs (Thicket metadata, Cube directory names), once per run in run order
    /// (`--param n=1000 --param n=2000`) or all values at once (`--param n=1000,2000`).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
    #[command(flatten)]
    hide: HideArgs,
    /// html, speedscope, firefox, pprof, pprof-heap (heap memory by variable of a run recorded
    /// with --track-allocations), folded, svg, hatchet, thicket (Thicket's JSON: code
    /// and data trees, the run's metadata; one profile per run), cubex (Cube4: samples, time
    /// and per-variable blame × call paths × ranks) or csv.
    #[arg(long)]
    format: ExportFormat,
    /// Output file (a directory for several runs as cubex).
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

impl ExportArgs {
    /// The run directories read (for root on another user's run).
    pub(crate) fn run_dirs(&self) -> Vec<&Path> {
        self.input
            .run_dir
            .as_deref()
            .into_iter()
            .chain(self.more_runs.iter().map(PathBuf::as_path))
            .collect()
    }
}

pub fn run(mut args: ExportArgs) -> Result<()> {
    args.input = args.input.or_default_run()?;
    if !args.more_runs.is_empty() || !args.params.is_empty() {
        if !matches!(args.format, ExportFormat::Thicket | ExportFormat::Cubex) {
            bail!("several runs and --param export as one Thicket (--format thicket) or as a directory of Cube files (--format cubex)");
        }
        return run_ensemble(&args);
    }
    crate::cmd_post::refuse_destroying_inputs(
        &args.output,
        &crate::post_config::PostConfig::resolve(&args.input)?,
        true,
    )?;
    let results = args.hide.apply(results_for_report(&args.input)?)?;
    let bytes = if args.format == ExportFormat::PprofHeap {
        let config = crate::post_config::PostConfig::resolve(&args.input)?;
        let Some(dir) = config.run_dir() else {
            bail!("--format pprof-heap reads the memory profiles of a run directory recorded with --track-allocations");
        };
        let profiles = blame_report::memory::load_profiles(dir, &results)?;
        blame_report::export::pprof_heap::pprof_heap(&profiles)
    } else if args.format == ExportFormat::Html {
        let mut roots = args.source_roots.clone();
        roots.push(PathBuf::from("."));
        if let Some(dir) = &args.input.run_dir {
            roots.push(dir.clone());
        }
        let owner = args
            .input
            .run_dir
            .as_deref()
            .and_then(|d| std::fs::metadata(d).ok())
            .map(|m| std::os::unix::fs::MetadataExt::uid(&m));
        let mut sources = SourceCache::new(roots).with_owner(owner);
        // The "Memory" tab, for a run recorded with --track-allocations.
        let heap = crate::post_config::PostConfig::resolve(&args.input)?
            .run_dir()
            .and_then(|dir| blame_report::memory::load_profiles(dir, &results).ok());
        let page = blame_report::html::html_with_memory(
            &results,
            args.event.as_deref(),
            &mut sources,
            args.all_variables,
            heap.as_deref(),
        )?;
        for (file, why) in sources.left_out() {
            eprintln!("blame: note: the source {file} is left out of the report: {why}");
        }
        page.into_bytes()
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
            .map(|d| run_metadata(d, &results))
            .unwrap_or_default();
        blame_report::export::thicket::thicket(
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
    write(&args.output, &bytes)
}

fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    blame_formats::files::write_atomic(path, bytes)
        .with_context(|| format!("cannot write {}", path.display()))?;
    eprintln!("blame: wrote {} ({} bytes)", path.display(), bytes.len());
    Ok(())
}

/// Several runs as one Thicket (a profile per run, with its parameters),
/// or as a directory of Cube files laid out as Extra-P reads them.
fn run_ensemble(args: &ExportArgs) -> Result<()> {
    let Some(first) = &args.input.run_dir else {
        bail!("an ensemble is of run directories: give them as arguments");
    };
    let dirs: Vec<PathBuf> = std::iter::once(first.clone())
        .chain(args.more_runs.iter().cloned())
        .collect();
    let params = crate::cmd_across::params_per_run(&args.params, dirs.len())?;
    let results = dirs
        .iter()
        .map(|d| {
            let mut input = args.input.clone();
            input.run_dir = Some(d.clone());
            let r = results_for_report(&input)
                .with_context(|| format!("cannot read the run {}", d.display()))?;
            args.hide.apply(r)
        })
        .collect::<Result<Vec<_>>>()?;
    if args.format == ExportFormat::Cubex {
        return cube_directory(args, &results, params);
    }
    let runs: Vec<ThicketRun> = dirs
        .iter()
        .zip(&results)
        .zip(params)
        .map(|((d, results), params)| {
            let mut metadata = run_metadata(d, results);
            metadata.extend(params.into_iter().map(|(k, v)| (k, v.into())));
            ThicketRun {
                results,
                label: d.display().to_string(),
                metadata,
            }
        })
        .collect();
    let bytes = thicket_runs(&runs, args.event.as_deref(), args.all_variables)
        .map_err(anyhow::Error::msg)?;
    write(&args.output, &bytes)
}

/// One Cube file per run in `-o DIR`, as Extra-P's Cube reader finds them
/// (`extrap --cube DIR`): `DIR/blame.<name><value>....r<repetition>/profile.cubex`,
/// the MPI ranks as parameter `p` when they differ between the runs.
fn cube_directory(
    args: &ExportArgs,
    results: &[blame_formats::results::Results],
    mut params: Vec<Vec<(String, f64)>>,
) -> Result<()> {
    use blame_report::across::scaling::{ranks_of, RANKS_PARAMETER};
    let ranks: Vec<f64> = results.iter().map(ranks_of).collect();
    if ranks.iter().any(|&r| r != ranks[0]) {
        for (p, r) in params.iter_mut().zip(&ranks) {
            p.insert(0, (RANKS_PARAMETER.to_string(), *r));
        }
    }
    if params.iter().all(Vec::is_empty) {
        bail!("the runs differ in no parameter: give --param NAME=VALUE per run (or runs of different ranks)");
    }
    if let Some(bad) = params
        .iter()
        .flatten()
        .find(|(n, _)| !n.chars().all(|c| c.is_ascii_alphabetic()))
    {
        bail!(
            "--param {}: Extra-P reads Cube directories whose parameter names are letters only",
            bad.0
        );
    }
    std::fs::create_dir_all(&args.output)
        .with_context(|| format!("cannot create the directory {}", args.output.display()))?;
    let mut repetitions: std::collections::HashMap<String, usize> = Default::default();
    for (results, params) in results.iter().zip(&params) {
        let point = params
            .iter()
            .map(|(n, v)| format!("{n}{v}"))
            .collect::<Vec<_>>()
            .join(".");
        let rep = repetitions.entry(point.clone()).or_default();
        *rep += 1;
        let dir = args.output.join(format!("blame.{point}.r{rep}"));
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create the directory {}", dir.display()))?;
        let bytes =
            blame_report::export::cubex::cubex(results, args.event.as_deref(), args.all_variables)
                .map_err(anyhow::Error::msg)?;
        write(&dir.join("profile.cubex"), &bytes)?;
    }
    Ok(())
}

/// What the run's manifest adds to a Thicket profile's metadata: when it
/// was recorded (`date`, UTC), for how long, and how; the git revision of
/// the directory of the application's executable (not a launcher's), if it
/// is in a git work tree.
fn run_metadata(
    dir: &Path,
    results: &blame_formats::results::Results,
) -> Vec<(String, serde_json::Value)> {
    let Ok(m) = blame_formats::manifest::Manifest::of_run(dir) else {
        return Vec::new();
    };
    let mut meta = vec![("date".to_string(), iso_date(m.start_unix_ns).into())];
    let procs = &results.header.processes;
    let app = procs.iter().find(|p| !p.launcher).or(procs.first());
    if let Some(rev) = app
        .and_then(|p| p.command.first())
        .filter(|c| c.contains('/'))
        .and_then(|c| git_revision(Path::new(c).parent()?))
    {
        meta.push(("git_revision".into(), rev.into()));
    }
    meta.extend([
        ("start_unix_ns".into(), m.start_unix_ns.into()),
        (
            "wall_seconds".into(),
            (m.end_unix_ns.saturating_sub(m.start_unix_ns) as f64 * 1e-9).into(),
        ),
        ("sampler".into(), m.sampler.into()),
        ("call_graph".into(), m.call_graph.into()),
        ("recorded_command".into(), m.command.join(" ").into()),
    ]);
    meta
}

/// `git rev-parse HEAD` in `dir`, when it is in a git work tree.
fn git_revision(dir: &Path) -> Option<String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-parse", "HEAD"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let rev = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !rev.is_empty()).then_some(rev)
}

/// UTC `YYYY-MM-DDTHH:MM:SSZ` (RFC 3339, whole seconds) of a Unix time in ns.
fn iso_date(unix_ns: u64) -> String {
    let secs = i64::try_from(unix_ns / 1_000_000_000).unwrap_or(i64::MAX);
    time::OffsetDateTime::from_unix_timestamp(secs)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn iso_dates() {
        assert_eq!(super::iso_date(0), "1970-01-01T00:00:00Z");
        assert_eq!(
            super::iso_date(1_795_000_000 * 1_000_000_000),
            "2026-11-18T11:06:40Z"
        );
        assert_eq!(
            super::iso_date(951_782_400 * 1_000_000_000),
            "2000-02-29T00:00:00Z"
        );
    }
}
