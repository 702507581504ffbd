//! The comparison report of a memory event's attribution methods against a
//! baseline, with their correlations.

use super::{json, num, strings, Table};
use crate::views::{CompareView, OutputFormat};

pub fn compare_table(v: &CompareView) -> Table {
    let mut headers = strings(&["variable", "function", "type"]);
    let mut numeric = vec![false, false, false];
    headers.extend(v.methods.iter().map(|m| format!("{m} (rank)")));
    numeric.extend(v.methods.iter().map(|_| true));
    let rows = v
        .variables
        .iter()
        .map(|r| {
            let mut row = vec![r.name.clone(), r.function.clone(), r.type_name.clone()];
            row.extend(v.methods.iter().map(|m| {
                format!(
                    "{} ({})",
                    num(r.values.get(m).copied().unwrap_or(0.0)),
                    r.ranks.get(m).copied().unwrap_or(0)
                )
            }));
            row
        })
        .collect();
    Table {
        headers,
        numeric,
        rows,
    }
}

pub fn render_compare(v: &CompareView, format: OutputFormat) -> String {
    match format {
        OutputFormat::Json => json(v),
        OutputFormat::Csv => compare_table(v).csv(),
        OutputFormat::Text => {
            let mut out = format!(
                "# memory event {}: attribution methods against {} (rank order in parentheses)\n",
                v.event, v.baseline
            );
            out.push_str(&compare_table(v).text());
            out.push_str(&format!("\nPearson correlation with {}:\n", v.baseline));
            let width = v.correlation.keys().map(|m| m.len()).max().unwrap_or(0);
            for (m, r) in &v.correlation {
                out.push_str(&format!(
                    "  {m:<width$} {}\n",
                    r.map(|r| format!("{r:.3}"))
                        .unwrap_or_else(|| "undefined (constant values)".into())
                ));
            }
            out
        }
    }
}
