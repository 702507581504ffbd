//! The report of `blame scaling`: each variable's share at every point and
//! its fitted models, in short form.

use super::{json, num, pct, strings, Table, DERIVED_HEADING};
use crate::views::OutputFormat;

/// `n=1000`, `p=2,n=1000`: a point of a scaling study.
fn point_label(
    v: &crate::across::scaling::ScalingView,
    p: &crate::across::scaling::ScalingPoint,
) -> String {
    v.parameters
        .iter()
        .zip(&p.values)
        .map(|(n, x)| format!("{n}={}", num(*x)))
        .collect::<Vec<_>>()
        .join(",")
}

fn fit(x: Option<f64>) -> String {
    x.map(|x| format!("{x:.3}")).unwrap_or_else(|| "-".into())
}

/// A model with short coefficients: `0.0021 + 0.0998 * n^(1)`.
pub fn short_model(m: &crate::across::scaling::Model) -> String {
    let short = |x: f64| {
        if x == 0.0 {
            "0".to_string()
        } else if x.abs() >= 1e-3 && x.abs() < 1e5 {
            let s = format!("{x:.4}");
            let s = s.trim_end_matches('0').trim_end_matches('.');
            s.to_string()
        } else {
            format!("{x:.3e}")
        }
    };
    if m.constant.is_nan() {
        return m.function.clone();
    }
    let mut parts = Vec::new();
    if m.constant != 0.0 || m.terms.is_empty() {
        parts.push(short(m.constant));
    }
    for t in &m.terms {
        let mut s = short(t.coefficient);
        for f in &t.factors {
            let frac = |e: f64| {
                // Extra-P's exponents are small fractions.
                for d in 1..=12 {
                    let n = e * d as f64;
                    if (n - n.round()).abs() < 1e-9 {
                        return if d == 1 {
                            format!("{}", n.round() as i64)
                        } else {
                            format!("{}/{d}", n.round() as i64)
                        };
                    }
                }
                format!("{e}")
            };
            if f.exponent != 0.0 {
                s.push_str(&format!(" * {}^({})", f.parameter, frac(f.exponent)));
            }
            if f.log_exponent != 0.0 {
                s.push_str(&format!(
                    " * log2({})^({})",
                    f.parameter,
                    frac(f.log_exponent)
                ));
            }
        }
        parts.push(s);
    }
    parts.join(" + ")
}

pub fn scaling_table(v: &crate::across::scaling::ScalingView) -> Table {
    scaling_rows_table(v, &v.variables.iter().collect::<Vec<_>>())
}

fn scaling_rows_table(
    v: &crate::across::scaling::ScalingView,
    rows: &[&crate::across::scaling::ScalingRow],
) -> Table {
    let mut headers = strings(&["variable", "type", "defined at"]);
    let mut numeric = vec![false, false, false];
    for p in &v.points {
        headers.push(format!("% {}", point_label(v, p)));
        numeric.push(true);
    }
    headers.extend(strings(&[
        "time model (s)",
        "adj R²",
        "SMAPE",
        "share model (%)",
        "adj R²",
        "SMAPE",
        "share grows",
    ]));
    numeric.extend([false, true, true, false, true, true, false]);
    let rows = rows
        .iter()
        .map(|r| {
            let file = r.file.rsplit('/').next().unwrap_or(&r.file);
            let mut row = vec![
                r.name.clone(),
                r.type_name.clone(),
                match (r.function.is_empty(), r.line) {
                    (true, _) => format!("(global) {file}"),
                    (false, 0) => format!("{} {file}", r.function),
                    (false, l) => format!("{} {file}:{l}", r.function),
                },
            ];
            for s in &r.share {
                row.push(pct(s.iter().sum::<f64>() / s.len().max(1) as f64));
            }
            let model = |m: &Option<crate::across::scaling::Model>| match m {
                Some(m) => [short_model(m), fit(m.adjusted_r2), fit(m.smape)],
                None => ["-".into(), "-".into(), "-".into()],
            };
            row.extend(model(&r.time_model));
            row.extend(model(&r.share_model));
            row.push(match (r.grows, r.share_range) {
                (true, Some((a, b))) => format!("yes ({} → {})", pct(a), pct(b)),
                _ => String::new(),
            });
            row
        })
        .collect();
    Table {
        headers,
        numeric,
        rows,
    }
}

pub fn render_scaling(v: &crate::across::scaling::ScalingView, format: OutputFormat) -> String {
    match format {
        OutputFormat::Json => json(v),
        OutputFormat::Csv => scaling_table(v).csv(),
        OutputFormat::Text => {
            let runs: usize = v.points.iter().map(|p| p.runs.len()).sum();
            let mut out = format!(
                "# event {}, {} blame of {runs} runs at {} points of {}; share in percent of each run, time = share × the run's {}; models fitted by {} (adjusted R², SMAPE in %)\n",
                v.event,
                v.rank_by.name(),
                v.points.len(),
                v.parameters.join(", "),
                match v.time {
                    crate::across::scaling::TimeBase::Cpu => "CPU time (samples × sampling period, all ranks)",
                    crate::across::scaling::TimeBase::Wall => "wall-clock time (manifest)",
                },
                if v.modeler.is_empty() { "Extra-P" } else { &v.modeler },
            );
            for p in &v.points {
                out.push_str(&format!(
                    "# {}: {} ({})\n",
                    point_label(v, p),
                    p.runs.join(", "),
                    p.seconds
                        .iter()
                        .map(|s| format!("{s:.2} s"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            let main: Vec<_> = v.variables.iter().filter(|r| !r.derived).collect();
            let derived: Vec<_> = v.variables.iter().filter(|r| r.derived).collect();
            out.push_str(&scaling_rows_table(v, &main).text());
            if !derived.is_empty() {
                out.push_str(DERIVED_HEADING);
                out.push_str(&scaling_rows_table(v, &derived).text());
            }
            let growing: Vec<String> = v
                .variables
                .iter()
                .filter(|r| r.grows)
                .map(|r| format!("{}::{}", r.function, r.name))
                .collect();
            out.push_str(&if growing.is_empty() {
                "\n# no variable's share grows with scale\n".to_string()
            } else {
                format!("\n# share grows with scale: {}\n", growing.join(", "))
            });
            out
        }
    }
}
