//! The report of `blame diff`: two runs' blame per variable and its change.

use super::variables::coverage_line;
use super::{json, num, pct, strings, Table, DERIVED_HEADING};
use crate::views::{OutputFormat, RankBy};

/// `main solver.c:79`, or `main solver.c:79→81` when the line moved.
fn diff_defined_at(r: &crate::across::diff::DiffRow) -> String {
    let file = r
        .file_b
        .as_deref()
        .or(r.file_a.as_deref())
        .unwrap_or_default();
    let file = file.rsplit('/').next().unwrap_or(file);
    let lines = match (r.line_a, r.line_b) {
        (Some(a), Some(b)) if a != b => format!("{a}→{b}"),
        (Some(l), _) | (None, Some(l)) => l.to_string(),
        (None, None) => String::new(),
    };
    let at = if lines.is_empty() || lines == "0" {
        file.to_string()
    } else {
        format!("{file}:{lines}")
    };
    if r.function.is_empty() {
        format!("(global) {at}").trim_end().to_string()
    } else {
        format!("{} {at}", r.function).trim_end().to_string()
    }
}

/// `+1.5%`, `-0.3%`: a signed change of share.
fn signed_pct(x: f64) -> String {
    let s = format!("{x:+.1}%");
    if s == "-0.0%" {
        "+0.0%".into()
    } else {
        s
    }
}

fn signed_num(x: f64) -> String {
    if x >= 0.0 {
        format!("+{}", num(x))
    } else {
        num(x)
    }
}

/// The table of a diff: the ranked blame first (samples and shares in A and
/// B, their changes), then the other blame's shares.
pub fn diff_table(v: &crate::across::diff::DiffView) -> Table {
    diff_rows_table(v, &v.variables.iter().collect::<Vec<_>>())
}

fn diff_rows_table(
    v: &crate::across::diff::DiffView,
    rows: &[&crate::across::diff::DiffRow],
) -> Table {
    let (first, second) = match v.rank_by {
        RankBy::Explicit => ("explicit", "total"),
        RankBy::Total => ("total", "explicit"),
    };
    let mut headers = strings(&["variable", "type", "kind", "defined at", "in"]);
    headers.extend([
        format!("A {first}"),
        format!("B {first}"),
        "Δ samples".to_string(),
        format!("A {first} %"),
        format!("B {first} %"),
        format!("Δ {first} %"),
        format!("A {second} %"),
        format!("B {second} %"),
        format!("Δ {second} %"),
    ]);
    let mut numeric = vec![false; 5];
    numeric.extend([true; 9]);
    let rows = rows
        .iter()
        .map(|r| {
            let pick = |s: &crate::across::diff::DiffSide| match v.rank_by {
                RankBy::Explicit => (s.explicit, s.explicit_percent, s.percent),
                RankBy::Total => (s.samples, s.percent, s.explicit_percent),
            };
            let (sa, pa, qa) = pick(&r.a);
            let (sb, pb, qb) = pick(&r.b);
            let (sd, pd, qd) = pick(&r.delta);
            vec![
                r.name.clone(),
                r.type_name.clone(),
                r.kind.clone(),
                diff_defined_at(r),
                match r.status.as_str() {
                    "only_a" => "A only",
                    "only_b" => "B only",
                    _ => "both",
                }
                .to_string(),
                num(sa),
                num(sb),
                signed_num(sd),
                pct(pa),
                pct(pb),
                signed_pct(pd),
                pct(qa),
                pct(qb),
                signed_pct(qd),
            ]
        })
        .collect();
    Table {
        headers,
        numeric,
        rows,
    }
}

pub fn render_diff(v: &crate::across::diff::DiffView, format: OutputFormat) -> String {
    match format {
        OutputFormat::Json => json(v),
        OutputFormat::Csv => diff_table(v).csv(),
        OutputFormat::Text => {
            let rank = v.rank_by.name();
            let mut out = format!(
                "# event {}: A = {} ({} samples), B = {} ({} samples); variables by the change of their {rank} blame in share of each run (B - A), largest first; matched by function, name and type\n",
                v.event,
                v.a.label,
                num(v.a.total_samples),
                v.b.label,
                num(v.b.total_samples),
            );
            for (side, run) in [("A", &v.a), ("B", &v.b)] {
                if let Some(c) = &run.coverage {
                    out.push_str(&coverage_line(c).replacen(
                        "# coverage",
                        &format!("# coverage {side}"),
                        1,
                    ));
                }
            }
            let main: Vec<_> = v.variables.iter().filter(|r| !r.derived).collect();
            let derived: Vec<_> = v.variables.iter().filter(|r| r.derived).collect();
            out.push_str(&diff_rows_table(v, &main).text());
            if !derived.is_empty() {
                out.push_str(DERIVED_HEADING);
                out.push_str(&diff_rows_table(v, &derived).text());
            }
            out
        }
    }
}
