//! The drill-down report: a variable's call paths with their heaviest
//! contexts, what the cap leaves out, and its blamed lines.

use super::variables::defined_at;
use super::{json, num, pct, strings, Table};
use crate::views::{DrillMore, DrillView, OutputFormat};

/// `ranks 0-3`, `rank 2`, `ranks 0,2,5` (empty without ranks).
fn ranks_label(ranks: &[u32]) -> String {
    match ranks {
        [] => String::new(),
        [r] => format!("rank {r}"),
        _ if ranks.windows(2).all(|w| w[1] == w[0] + 1) => {
            format!("ranks {}-{}", ranks[0], ranks[ranks.len() - 1])
        }
        _ => format!(
            "ranks {}",
            ranks
                .iter()
                .map(|r| r.to_string())
                .collect::<Vec<_>>()
                .join(",")
        ),
    }
}

/// `a <- b <- c`: a call path, innermost first.
fn path_label(functions: &[String]) -> String {
    functions.join(" <- ")
}

/// `1,524 more contexts on 87 more call paths (412 samples, 26.7% of the variable)`.
fn more_label(m: &DrillMore) -> String {
    format!(
        "{} more context{} on {} more call path{} ({} samples, {} of the variable)",
        m.contexts,
        if m.contexts == 1 { "" } else { "s" },
        m.paths,
        if m.paths == 1 { "" } else { "s" },
        num(m.samples),
        pct(m.percent_of_variable)
    )
}

pub fn drill_table(v: &DrillView) -> Table {
    let mut rows = Vec::new();
    for d in &v.variables {
        let variable = format!("{}::{}", d.variable.function, d.variable.name);
        for p in &d.paths {
            let heaviest: Vec<String> = p
                .frames
                .iter()
                .map(|f| format!("{}:{}", f.function, f.line))
                .collect();
            rows.push(vec![
                variable.clone(),
                num(p.samples),
                pct(p.percent_of_variable),
                p.contexts.to_string(),
                ranks_label(&p.ranks),
                path_label(&p.functions),
                heaviest.join(" <- "),
                p.frames
                    .first()
                    .and_then(|f| f.source.clone())
                    .unwrap_or_default(),
            ]);
        }
        if let Some(m) = &d.more {
            rows.push(vec![
                variable.clone(),
                num(m.samples),
                pct(m.percent_of_variable),
                m.contexts.to_string(),
                String::new(),
                format!("({})", more_label(m)),
                String::new(),
                String::new(),
            ]);
        }
    }
    Table {
        headers: strings(&[
            "variable",
            "samples",
            "% of var",
            "contexts",
            "ranks",
            "call path (innermost first)",
            "heaviest context",
            "source",
        ]),
        numeric: vec![false, true, true, true, false, false, false, false],
        rows,
    }
}

pub fn render_drilldown(v: &DrillView, format: OutputFormat) -> String {
    match format {
        OutputFormat::Json => json(v),
        OutputFormat::Csv => drill_table(v).csv(),
        OutputFormat::Text => {
            let mut out = format!("# event {}, {} samples\n", v.event, num(v.total_samples));
            for d in &v.variables {
                let r = &d.variable;
                out.push_str(&format!(
                    "\n{} [{}] {} — {} samples ({} explicit, {} total, {} excl); its calling contexts and lines below count total blame ({} samples)\n",
                    r.name,
                    r.type_name,
                    defined_at(r),
                    num(r.explicit),
                    pct(r.explicit_percent),
                    pct(r.percent),
                    pct(r.exclusive_percent),
                    num(r.samples),
                ));
                if !r.also_reached_as.is_empty() {
                    out.push_str(&format!(
                        "  also reached as: {}\n",
                        r.also_reached_as.join(", ")
                    ));
                }
                out.push_str("  blamed lines:\n");
                for l in &d.lines {
                    out.push_str(&format!(
                        "    {:>8}  {}:{}  {}\n",
                        num(l.samples),
                        l.file.rsplit('/').next().unwrap_or(&l.file),
                        l.line,
                        l.source.as_deref().unwrap_or("")
                    ));
                }
                let npaths = d.paths.len() + d.more.as_ref().map_or(0, |m| m.paths);
                out.push_str(&format!(
                    "  {} calling context{} on {} call path{} (each with its heaviest context):\n",
                    d.contexts,
                    if d.contexts == 1 { "" } else { "s" },
                    npaths,
                    if npaths == 1 { "" } else { "s" },
                ));
                for p in &d.paths {
                    let ranks = ranks_label(&p.ranks);
                    out.push_str(&format!(
                        "    {:>8} ({})  {}  [{} context{}{}]\n",
                        num(p.samples),
                        pct(p.percent_of_variable),
                        path_label(&p.functions),
                        p.contexts,
                        if p.contexts == 1 { "" } else { "s" },
                        if ranks.is_empty() {
                            String::new()
                        } else {
                            format!(", {ranks}")
                        }
                    ));
                    for f in &p.frames {
                        out.push_str(&format!(
                            "      {} {}:{}  {}\n",
                            f.function,
                            f.file.rsplit('/').next().unwrap_or(&f.file),
                            f.line,
                            f.source.as_deref().unwrap_or("")
                        ));
                    }
                }
                if let Some(m) = &d.more {
                    out.push_str(&format!("    ... {}\n", more_label(m)));
                }
            }
            out
        }
    }
}
