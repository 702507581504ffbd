//! The by-variable report: its table (the blame columns every by-variable
//! view shows), its text with the derived variables apart, and the coverage
//! line.

use super::{json, num, pct, strings, Table, DERIVED_HEADING};
use crate::views::{CoverageView, OutputFormat, VariableRow, VariableView};

pub(super) fn defined_at(r: &VariableRow) -> String {
    let file = r.file.rsplit('/').next().unwrap_or(&r.file);
    match (r.function.is_empty(), r.line) {
        (true, 0) => format!("(global) {file}").trim_end().to_string(),
        (true, l) => format!("(global) {file}:{l}"),
        (false, 0) => format!("{} {file}", r.function),
        (false, l) => format!("{} {file}:{l}", r.function),
    }
}

/// The blame columns of every by-variable view, in order: text and CSV
/// headers, the HTML page's, and JSON's keys `samples`, `explicit_percent`,
/// `total_percent`, `exclusive_percent` ([`VariableRow`]).
pub const VARIABLE_COLUMNS: [&str; 4] = ["samples", "explicit %", "total %", "excl %"];

pub fn variable_table(v: &VariableView) -> Table {
    variable_rows_table(v, &v.variables.iter().collect::<Vec<_>>())
}

/// The table of some rows of a by-variable view (all of them, or one section).
fn variable_rows_table(v: &VariableView, rows: &[&VariableRow]) -> Table {
    let multi = v.variables.iter().any(|r| r.ranks.ranks > 1);
    let methods: Vec<&str> = crate::views::MEMORY_METHODS
        .into_iter()
        .chain(["direct"])
        .filter(|m| v.variables.iter().any(|r| r.methods.contains_key(*m)))
        .collect();
    let mut headers = strings(&["variable", "type", "kind", "defined at"]);
    let mut numeric = vec![false, false, false, false];
    // The same columns, names and units in every format (README, "The
    // columns"): explicit blame in samples, then explicit, total and
    // exclusive blame in percent of the run, whatever the ranking.
    headers.extend(VARIABLE_COLUMNS.iter().map(|c| c.to_string()));
    numeric.extend([true; 4]);
    headers.extend(methods.iter().map(|m| m.to_string()));
    numeric.extend(methods.iter().map(|_| true));
    if multi {
        headers.extend(strings(&["rank mean", "min", "median", "max", "imbalance"]));
        numeric.extend([true; 5]);
    }
    let rows = rows
        .iter()
        .map(|r| {
            let mut row = vec![
                r.name.clone(),
                r.type_name.clone(),
                r.kind.clone(),
                defined_at(r),
            ];
            row.extend([num(r.explicit), pct(r.explicit_percent), pct(r.percent)]);
            row.push(pct(r.exclusive_percent));
            row.extend(
                methods
                    .iter()
                    .map(|m| num(r.methods.get(*m).copied().unwrap_or(0.0))),
            );
            if multi {
                row.extend([
                    pct(r.ranks.mean),
                    pct(r.ranks.min),
                    pct(r.ranks.median),
                    pct(r.ranks.max),
                    pct(r.ranks.imbalance),
                ]);
            }
            row
        })
        .collect();
    Table {
        headers,
        numeric,
        rows,
    }
}

pub fn render_variables(v: &VariableView, format: OutputFormat) -> String {
    match format {
        OutputFormat::Json => json(v),
        OutputFormat::Csv => variable_table(v).csv(),
        OutputFormat::Text => {
            let mut out = match &v.method {
                Some(m) => format!(
                    "# memory event {}, {} samples attributed approximately (method: {m}); containers include their fields\n",
                    v.event,
                    num(v.total_samples),
                ),
                None => format!(
                    "# event {}, {} samples; ranked by {} blame (explicit: data flow; total: with loop and branch tests); blame is inclusive, so percentages add up to more than 100%\n",
                    v.event,
                    num(v.total_samples),
                    v.rank_by.name()
                ),
            };
            if let Some(c) = &v.coverage {
                out.push_str(&coverage_line(c));
            }
            let main: Vec<&VariableRow> = v.variables.iter().filter(|r| !r.derived).collect();
            let derived: Vec<&VariableRow> = v.variables.iter().filter(|r| r.derived).collect();
            out.push_str(&variable_rows_table(v, &main).text());
            if !derived.is_empty() {
                out.push_str(DERIVED_HEADING);
                out.push_str(&variable_rows_table(v, &derived).text());
            }
            out
        }
    }
}

/// `# coverage: 97.1% of 2077 samples reached a variable; not reached: 41 ...`
pub fn coverage_line(c: &CoverageView) -> String {
    let mut line = format!(
        "# coverage: {} of {} samples reached a named variable",
        pct(c.percent),
        num(c.samples)
    );
    if !c.reasons.is_empty() {
        line.push_str("; the rest: ");
        let shown: Vec<String> = c
            .reasons
            .iter()
            .take(3)
            .map(|r| format!("{} {} ({})", num(r.samples), r.reason, pct(r.percent)))
            .collect();
        line.push_str(&shown.join("; "));
        if c.reasons.len() > 3 {
            line.push_str(&format!("; {} more reasons", c.reasons.len() - 3));
        }
    }
    line.push('\n');
    line
}
