//! The interactive HTML report: one self-contained file (inline style and
//! script, no network) with the flat variable view (virtualized, so 100,000
//! rows stay fast), the data-structure tree, blame points, the code tree,
//! per-rank statistics and drill-downs with source lines.
//!
//! All data travels as JSON inside a `<script type="application/json">`
//! element with `<`, `>`, `&` and line separators escaped, and the page
//! builds its DOM with `textContent` only: a name or source line holding
//! `</script><script>...` shows as text.

use crate::source::SourceCache;
use crate::views::{self, Filters};
use blame_formats::results::Results;
use serde_json::json;
use std::collections::{BTreeMap, HashMap};

const TEMPLATE: &str = include_str!("report.html");

/// Makes JSON safe to embed in an HTML script element.
pub fn escape_json_for_html(json: &str) -> String {
    json.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// Builds the report for one event (by name, else the first with samples).
pub fn html(results: &Results, event: Option<&str>) -> Result<String, views::ViewError> {
    html_with_sources(
        results,
        event,
        &mut SourceCache::new(vec![std::path::PathBuf::from(".")]),
    )
}

pub fn html_with_sources(
    results: &Results,
    event: Option<&str>,
    sources: &mut SourceCache,
) -> Result<String, views::ViewError> {
    html_with_options(results, event, sources, false)
}

/// The report; variables with internal names (macro temporaries,
/// [`views::is_internal_name`]) are in the file but hidden until the page's
/// "all variables" box is ticked, ticked from the start when `all_variables`.
pub fn html_with_options(
    results: &Results,
    event: Option<&str>,
    sources: &mut SourceCache,
    all_variables: bool,
) -> Result<String, views::ViewError> {
    let filters = Filters {
        event: event.map(str::to_string),
        ..Default::default()
    };
    let view = views::by_variable(
        results,
        &Filters {
            all_variables: true,
            ..filters.clone()
        },
    )?;
    let e =
        crate::trees::event_index(results, Some(&view.event)).map_err(views::ViewError::Filter)?;
    let memory = results.header.events.get(e).is_some_and(|x| x.memory);
    // Frames and stacks, deduplicated.
    let mut frame_ids: HashMap<(String, String, u32), usize> = HashMap::new();
    let mut frames = Vec::new();
    let mut source_lines: BTreeMap<String, String> = BTreeMap::new();
    let mut stacks = Vec::with_capacity(results.stacks.len());
    for st in &results.stacks {
        let ids: Vec<usize> = st
            .frames
            .iter()
            .map(|f| {
                *frame_ids
                    .entry((f.function.clone(), f.file.clone(), f.line))
                    .or_insert_with(|| {
                        if let Some(text) = sources.line(&f.file, f.line) {
                            source_lines.insert(format!("{}:{}", f.file, f.line), text);
                        }
                        frames
                            .push(json!({"function": f.function, "file": f.file, "line": f.line}));
                        frames.len() - 1
                    })
            })
            .collect();
        stacks.push(ids);
    }
    // Variables of the view, with per-process values for the rank filter.
    let nproc = results.header.processes.len();
    let mut index_of: HashMap<(String, String, String, u32), usize> = HashMap::new();
    let mut variables = Vec::new();
    let by_key: HashMap<(&str, &str, &str, u32), usize> = results
        .variables
        .iter()
        .enumerate()
        .filter(|(_, v)| v.key.event as usize == e)
        .map(|(i, v)| {
            (
                (
                    v.key.name.as_str(),
                    v.key.function.as_str(),
                    v.key.file.as_str(),
                    v.key.line,
                ),
                i,
            )
        })
        .collect();
    for row in &view.variables {
        index_of.insert(
            (
                row.name.clone(),
                row.function.clone(),
                row.file.clone(),
                row.line,
            ),
            variables.len(),
        );
        let mut per_rank = vec![0.0; nproc];
        if let Some(v) = by_key
            .get(&(
                row.name.as_str(),
                row.function.as_str(),
                row.file.as_str(),
                row.line,
            ))
            .map(|&i| &results.variables[i])
        {
            for pv in &v.values {
                per_rank[pv.process as usize] += pv.inclusive;
            }
        }
        variables.push(json!({
            "name": row.name, "function": row.function, "file": row.file, "line": row.line,
            "type": row.type_name, "kind": row.kind, "samples": row.samples, "percent": row.percent,
            "explicit": row.explicit, "explicit_percent": row.explicit_percent, "derived": row.derived,
            "excl": row.exclusive, "ranks": row.ranks, "methods": row.methods, "per_rank": per_rank,
            "min": row.ranks.min, "median": row.ranks.median, "max": row.ranks.max,
            "internal": views::is_internal_name(&row.name),
        }));
    }
    let mut contexts: BTreeMap<usize, Vec<serde_json::Value>> = BTreeMap::new();
    for c in results
        .contexts
        .iter()
        .filter(|c| c.variable.event as usize == e)
    {
        let k = &c.variable;
        if let Some(&vi) =
            index_of.get(&(k.name.clone(), k.function.clone(), k.file.clone(), k.line))
        {
            contexts.entry(vi).or_default().push(json!({
                "samples": c.samples, "process": c.process, "stack": c.stack,
                "rank": results.header.processes.get(c.process as usize).and_then(|p| p.rank),
            }));
        }
    }
    let contexts: serde_json::Map<String, serde_json::Value> = contexts
        .into_iter()
        .map(|(k, v)| (k.to_string(), serde_json::Value::Array(v)))
        .collect();
    let code: Vec<serde_json::Value> = results
        .stacks
        .iter()
        .enumerate()
        .filter_map(|(i, st)| {
            let w = st.samples.get(e).copied().unwrap_or(0.0);
            (w > 0.0).then(|| json!({"stack": i, "process": st.process, "w": w}))
        })
        .collect();
    let points = views::blame_points(results, &filters, None)?;
    let methods: Vec<&str> = views::MEMORY_METHODS
        .into_iter()
        .filter(|m| view.variables.iter().any(|v| v.methods.contains_key(*m)))
        .collect();
    let data = json!({
        "title": results.header.processes.iter().find(|p| !p.launcher).map(|p| p.command.join(" ")).unwrap_or_default(),
        "event": view.event,
        "memory": memory,
        "method": view.method,
        "methods": methods,
        "total": view.total_samples,
        "coverage": view.coverage,
        "processes": results.header.processes.iter().enumerate().map(|(i, p)| json!({
            "label": crate::trees::process_label(results, i as u32),
            "rank": p.rank, "samples": p.samples.get(e).copied().unwrap_or(0.0), "launcher": p.launcher,
        })).collect::<Vec<_>>(),
        "variables": variables,
        "contexts": contexts,
        "stacks": stacks,
        "frames": frames,
        "sources": source_lines,
        "code": code,
        "blame_points": points.blame_points.iter().map(|p| json!({"function": p.function, "reason": p.reason})).collect::<Vec<_>>(),
        "all_variables": all_variables,
        "paths_shown": views::DRILL_PATHS,
    });
    let embedded =
        escape_json_for_html(&serde_json::to_string(&data).expect("json values serialize"));
    Ok(TEMPLATE.replacen("__BLAME_DATA__", &embedded, 1))
}

const DIFF_TEMPLATE: &str = include_str!("diff.html");

/// The diff of two runs as a self-contained page: the table of
/// `blame diff`, sortable by any column, changes coloured and drawn as bars.
pub fn diff_html(view: &crate::across::diff::DiffView) -> String {
    let embedded = escape_json_for_html(&serde_json::to_string(view).expect("views serialize"));
    DIFF_TEMPLATE.replacen("__BLAME_DATA__", &embedded, 1)
}
