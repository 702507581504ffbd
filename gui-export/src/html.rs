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
use crate::views::{self, Filters, PathGroup};
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
    html_with_memory(results, event, sources, all_variables, None)
}

/// The heap memory of the page's "Memory" tab: the memory view's rows
/// (ranked by bytes live at the peak) and each process's timeline of live
/// bytes of the variables that held the most.
fn heap_json(profiles: &[blame_formats::memory_profile::MemoryProfile]) -> serde_json::Value {
    let view = crate::memory::view(profiles, crate::memory::MemorySort::Peak);
    let timelines: Vec<serde_json::Value> = profiles
        .iter()
        .map(|p| {
            json!({
                "label": match p.rank { Some(r) => format!("rank {r}"), None => format!("pid {}", p.pid) },
                "times_ns": p.timeline.times_ns,
                "total": p.timeline.total,
                "series": p.timeline.series.iter().filter_map(|(row, values)| {
                    let v = p.variables.get(*row as usize)?;
                    Some(json!({"name": v.key.name, "function": v.key.function, "values": values}))
                }).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({"view": view, "timelines": timelines})
}

/// [`html_with_options`] with a "Memory" tab when the run's memory profiles
/// are given (`blame export --format html` of a run recorded with
/// `--track-allocations`).
pub fn html_with_memory(
    results: &Results,
    event: Option<&str>,
    sources: &mut SourceCache,
    all_variables: bool,
    heap: Option<&[blame_formats::memory_profile::MemoryProfile]>,
) -> Result<String, views::ViewError> {
    // The page filters its code tree and call paths by rank.
    if let Some(refusal) =
        results.per_rank_contexts_missing("the HTML report (code tree and call paths by rank)")
    {
        return Err(refusal.into());
    }
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
    let e = crate::views::event_index(results, Some(&view.event))?;
    let memory = results.header.events.get(e).is_some_and(|x| x.memory);
    let (variables, index_of) = page_variables(results, e, &view);
    let page = PageContexts::new(results, e, &index_of, sources);
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
        "contexts": page.contexts,
        "stacks": page.stacks,
        "frames": page.frames,
        "sources": page.sources,
        "sources_left_out": sources.left_out(),
        "fnames": page.fnames,
        "tree": page.tree,
        "code": page.code,
        "blame_points": points.blame_points.iter().map(|p| json!({"function": p.function, "reason": p.reason})).collect::<Vec<_>>(),
        "all_variables": all_variables,
        "paths_shown": views::DRILL_PATHS,
        "paths_kept": PATHS_KEPT,
        "heap": heap.filter(|p| !p.is_empty()).map(heap_json),
    });
    let embedded =
        escape_json_for_html(&serde_json::to_string(&data).expect("json values serialize"));
    Ok(TEMPLATE.replacen("__BLAME_DATA__", &embedded, 1))
}

/// A variable as results key it: (name, function, file, line).
type VariableAt = (String, String, String, u32);

/// The page's variables (the view's rows, with per-process values for the
/// rank filter), and the page index of each.
fn page_variables(
    results: &Results,
    e: usize,
    view: &views::VariableView,
) -> (Vec<serde_json::Value>, HashMap<VariableAt, usize>) {
    // Variables of the view, with per-process values for the rank filter.
    let nproc = results.header.processes.len();
    let mut index_of: HashMap<VariableAt, usize> = HashMap::new();
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
        // Per process: explicit blame (the `samples` column), total and
        // exclusive blame, for the page's rank filter.
        let mut per_rank = vec![0.0; nproc];
        let mut per_rank_total = vec![0.0; nproc];
        let mut per_rank_excl = vec![0.0; nproc];
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
                let p = pv.process as usize;
                per_rank[p] += pv.explicit;
                per_rank_total[p] += pv.inclusive;
                per_rank_excl[p] += pv.exclusive;
            }
        }
        variables.push(json!({
            "name": row.name, "function": row.function, "file": row.file, "line": row.line,
            "type": row.type_name, "kind": row.kind,
            // The columns of every view (render::VARIABLE_COLUMNS).
            "samples": row.explicit, "explicit_percent": row.explicit_percent,
            "total_percent": row.percent, "exclusive_percent": row.exclusive_percent,
            "total": row.samples, "exclusive": row.exclusive, "derived": row.derived,
            "ranks": row.ranks, "methods": row.methods, "per_rank": per_rank,
            "per_rank_total": per_rank_total, "per_rank_excl": per_rank_excl,
            "min": row.ranks.min, "median": row.ranks.median, "max": row.ranks.max,
            "internal": views::is_internal_name(&row.name),
        }));
    }
    (variables, index_of)
}

/// Call paths of one variable the page holds (the heaviest); the rest are
/// summed into one "more" line. The page shows `DRILL_PATHS` of them at
/// first, all it holds on request.
pub const PATHS_KEPT: usize = 200;

/// What the page needs of the run's calling contexts, with every repeated
/// part stored once: the call paths (chains of function names) as a prefix
/// tree, the code tree as weights on its nodes, and per variable its
/// contexts grouped by call path (heaviest `PATHS_KEPT`, the rest summed),
/// each group with the frames and source lines of its heaviest context only.
/// So the page grows with the distinct call paths, not with contexts times
/// variables.
struct PageContexts {
    /// Frames of the stacks shown: function, file, line.
    frames: Vec<serde_json::Value>,
    sources: BTreeMap<String, String>,
    /// Stacks shown (the heaviest context of each group kept), as indices into `frames`.
    stacks: Vec<Vec<u32>>,
    /// Function names of the call-path tree.
    fnames: Vec<String>,
    /// The call-path tree: node k (from 1) is `tree[2k-2]` (its parent, 0 for
    /// the root) and `tree[2k-1]` (its function, an index into `fnames`);
    /// roots are outermost frames.
    tree: Vec<u32>,
    /// Code tree weights: (node, process, samples) triples, flattened.
    code: Vec<serde_json::Value>,
    /// Per variable (its index in the page): groups and the rest.
    contexts: serde_json::Map<String, serde_json::Value>,
}

impl PageContexts {
    fn new(
        results: &Results,
        event: usize,
        index_of: &HashMap<VariableAt, usize>,
        sources: &mut SourceCache,
    ) -> PageContexts {
        let paths = CallPaths::of(results);
        let code = code_weights(results, event, &paths.node_of);
        let by_variable = variable_groups(results, event, index_of, &paths.node_of);
        let shown = ShownContexts::of(results, by_variable, sources);
        PageContexts {
            frames: shown.frames,
            sources: shown.sources,
            stacks: shown.stacks,
            fnames: paths.fnames,
            tree: paths.tree,
            code,
            contexts: shown.contexts,
        }
    }
}

/// The call path of every stack: a node of the prefix tree of function
/// names (see [`PageContexts::tree`]).
struct CallPaths {
    fnames: Vec<String>,
    tree: Vec<u32>,
    /// Per stack of the results: its node.
    node_of: Vec<u32>,
}

impl CallPaths {
    fn of(results: &Results) -> CallPaths {
        // Call path of every stack: a node of the prefix tree of function names.
        let mut fname_ids: HashMap<&str, u32> = HashMap::new();
        let mut fnames: Vec<String> = Vec::new();
        let mut children: HashMap<(u32, u32), u32> = HashMap::new();
        let mut tree: Vec<u32> = Vec::new();
        let frame_fn: Vec<u32> = results
            .frames
            .iter()
            .map(|f| {
                *fname_ids.entry(f.function.as_str()).or_insert_with(|| {
                    fnames.push(crate::regions::demangle(&f.function));
                    fnames.len() as u32 - 1
                })
            })
            .collect();
        let node_of: Vec<u32> = results
            .stacks
            .iter()
            .map(|st| {
                let mut node = 0u32;
                for &f in st.frames.iter().rev() {
                    let fname = frame_fn[f as usize];
                    node = *children.entry((node, fname)).or_insert_with(|| {
                        tree.push(node);
                        tree.push(fname);
                        (tree.len() / 2) as u32
                    });
                }
                node
            })
            .collect();
        drop(children);
        CallPaths {
            fnames,
            tree,
            node_of,
        }
    }
}

/// The code tree: samples per (call path, process), as flattened
/// (node, process, samples) triples.
fn code_weights(results: &Results, event: usize, node_of: &[u32]) -> Vec<serde_json::Value> {
    // Code tree: samples per (call path, process).
    let mut code_sums: BTreeMap<(u32, u32), f64> = BTreeMap::new();
    for (i, st) in results.stacks.iter().enumerate() {
        let w = st.samples.get(event).copied().unwrap_or(0.0);
        if w > 0.0 {
            *code_sums.entry((node_of[i], st.process)).or_default() += w;
        }
    }
    let mut code = Vec::with_capacity(code_sums.len() * 3);
    for ((node, process), w) in code_sums {
        code.push(json!(node));
        code.push(json!(process));
        code.push(json!(w));
    }
    code
}

/// Per variable of the page (by its index): its contexts counted, and
/// grouped by call path (by node).
type VariableGroups = BTreeMap<usize, (usize, HashMap<u32, PathGroup>)>;

fn variable_groups(
    results: &Results,
    event: usize,
    index_of: &HashMap<VariableAt, usize>,
    node_of: &[u32],
) -> VariableGroups {
    // Per variable of the page: its contexts, and its call paths (by node).
    let mut by_variable: VariableGroups = BTreeMap::new();
    let mut page_var: HashMap<u32, Option<usize>> = HashMap::new();
    for c in &results.contexts {
        let vi = *page_var.entry(c.variable).or_insert_with(|| {
            let k = results.context_key(c);
            if k.event as usize != event {
                return None;
            }
            index_of
                .get(&(k.name.clone(), k.function.clone(), k.file.clone(), k.line))
                .copied()
        });
        let Some(vi) = vi else { continue };
        let (n, groups) = by_variable.entry(vi).or_default();
        *n += 1;
        groups
            .entry(node_of[c.stack as usize])
            .or_insert_with(|| PathGroup::new(c.stack))
            .add(
                c.samples,
                results.header.processes[c.process as usize].rank,
                c.stack,
            );
    }
    by_variable
}

/// Per variable, its heaviest `PATHS_KEPT` call paths and the rest summed;
/// the stacks they show (each once), their frames and source lines.
struct ShownContexts {
    frames: Vec<serde_json::Value>,
    sources: BTreeMap<String, String>,
    stacks: Vec<Vec<u32>>,
    contexts: serde_json::Map<String, serde_json::Value>,
}

impl ShownContexts {
    fn of(
        results: &Results,
        by_variable: VariableGroups,
        sources: &mut SourceCache,
    ) -> ShownContexts {
        let mut frame_ids: HashMap<(&str, &str, u32), u32> = HashMap::new();
        let mut frames = Vec::new();
        let mut source_lines: BTreeMap<String, String> = BTreeMap::new();
        let mut stack_ids: HashMap<u32, u32> = HashMap::new();
        let mut stacks: Vec<Vec<u32>> = Vec::new();
        let mut contexts = serde_json::Map::new();
        for (vi, (n, groups)) in by_variable {
            let mut groups: Vec<(u32, PathGroup)> = groups.into_iter().collect();
            groups.sort_by(|a, b| b.1.samples.total_cmp(&a.1.samples).then(a.0.cmp(&b.0)));
            let rest = groups.split_off(groups.len().min(PATHS_KEPT));
            let mut kept = Vec::with_capacity(groups.len());
            for (node, g) in groups {
                let PathGroup {
                    samples,
                    contexts: count,
                    mut ranks,
                    heaviest: (_, stack),
                } = g;
                ranks.sort_unstable();
                let shown = *stack_ids.entry(stack).or_insert_with(|| {
                    let ids = results
                        .stack_frames(stack)
                        .map(|f| {
                            *frame_ids
                                .entry((f.function.as_str(), f.file.as_str(), f.line))
                                .or_insert_with(|| {
                                    if let Some(text) = sources.line(&f.file, f.line) {
                                        source_lines.insert(format!("{}:{}", f.file, f.line), text);
                                    }
                                    frames.push(
                                        json!({"function": f.function, "file": f.file, "line": f.line}),
                                    );
                                    frames.len() as u32 - 1
                                })
                        })
                        .collect();
                    stacks.push(ids);
                    stacks.len() as u32 - 1
                });
                kept.push(json!({"node": node, "samples": samples, "n": count, "ranks": ranks, "stack": shown}));
            }
            let more = (!rest.is_empty()).then(|| {
                json!({
                    "paths": rest.len(),
                    "n": rest.iter().map(|g| g.1.contexts).sum::<usize>(),
                    "samples": rest.iter().map(|g| g.1.samples).sum::<f64>(),
                })
            });
            contexts.insert(
                vi.to_string(),
                json!({"n": n, "groups": kept, "more": more}),
            );
        }
        ShownContexts {
            frames,
            sources: source_lines,
            stacks,
            contexts,
        }
    }
}

const DIFF_TEMPLATE: &str = include_str!("diff.html");

/// The diff of two runs as a self-contained page: the table of
/// `blame diff`, sortable by any column, changes coloured and drawn as bars.
pub fn diff_html(view: &crate::across::diff::DiffView) -> String {
    let embedded = escape_json_for_html(&serde_json::to_string(view).expect("views serialize"));
    DIFF_TEMPLATE.replacen("__BLAME_DATA__", &embedded, 1)
}
