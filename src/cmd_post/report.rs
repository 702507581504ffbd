//! `blame report`: the view asked for (by variable, by function, blame
//! points, a drill-down, a comparison of methods, memory) rendered as text,
//! JSON or CSV, with the other names each data structure is reached as.

use super::outputs::emit;
use super::results::{results_for_report, stored_or_computed};
use super::ReportArgs;
use crate::post_config::PostConfig;
use anyhow::{bail, Result};
use blame_formats::results::Results;
use blame_formats::static_db::StaticDb;
use blame_post::StaticIndex;
use blame_report::render;
use blame_report::source::SourceCache;
use blame_report::views::{self, OutputFormat};
use std::path::{Path, PathBuf};

pub fn run_report(mut args: ReportArgs) -> Result<()> {
    args.input = args.input.or_default_run()?;
    if args.memory {
        let config = PostConfig::resolve(&args.input)?;
        let results = stored_or_computed(&config)?;
        let Some(dir) = config.run_dir() else {
            bail!("--memory reads the memory profiles of a run directory recorded with --track-allocations");
        };
        let profiles = blame_report::memory::load_profiles(dir, &results)?;
        let view = blame_report::memory::view(&profiles, args.sort.unwrap_or_default());
        let text = blame_report::memory::render_memory(&view, args.format);
        return emit(&text, &args.output);
    }
    let filters = args.rows.filters(args.min_percent, args.method.clone())?;
    let results = args.hide.apply(results_for_report(&args.input)?)?;
    // The names each data structure is also reached as, from the static db
    // the results were posted with (when it is still the same file).
    let names = if args.variable.is_some() || matches!(args.format, OutputFormat::Json) {
        other_names_of(&results)
    } else {
        views::OtherNames::new()
    };
    let text = if let Some(baseline) = &args.compare {
        render::render_compare(&views::compare(&results, &filters, baseline)?, args.format)
    } else if args.by_function {
        render::render_functions(&views::by_function(&results, &filters)?, args.format)
    } else if args.blame_points {
        render::render_blame_points(
            &views::blame_points(&results, &filters, args.blame_point_threshold)?,
            args.format,
        )
    } else if let Some(path) = &args.variable {
        let mut roots = args.source_roots.clone();
        roots.push(PathBuf::from("."));
        if let Some(d) = &args.input.run_dir {
            roots.push(d.clone());
        }
        let mut view = views::drilldown(&results, &filters, path, &mut SourceCache::new(roots))?;
        views::name_other_names(view.variables.iter_mut().map(|d| &mut d.variable), &names);
        render::render_drilldown(&view, args.format)
    } else {
        let mut view = views::by_variable(&results, &filters)?;
        views::name_other_names(&mut view.variables, &names);
        render::render_variables(&view, args.format)
    };
    emit(&text, &args.output)
}

/// [`blame_post::attribution::other_names`] of the static db `results` were posted
/// with; none when that db is gone or changed since (a report never needs
/// it: the names are a reader's help, the numbers are in the results).
fn other_names_of(results: &Results) -> views::OtherNames {
    let Some(id) = results
        .header
        .provenance
        .as_ref()
        .and_then(|p| p.static_db.as_ref())
    else {
        return views::OtherNames::new();
    };
    let path = Path::new(&id.path);
    let same = blame_formats::results::FileId::of(path)
        .is_ok_and(|now| now.bytes == id.bytes && now.hash == id.hash);
    match same.then(|| StaticDb::read(path)) {
        Some(Ok((db, _))) => {
            blame_post::attribution::other_names::other_names(&StaticIndex::new(db))
        }
        _ => views::OtherNames::new(),
    }
}
