//! Text tables, JSON and CSV for the views.
//!
//! This module holds the [`Table`] every text and CSV report is laid out
//! with and the cell formats they share; each view's tables and report are
//! a module of their own.

mod compare;
mod diff;
mod drilldown;
mod functions;
mod scaling;
mod variables;

pub use compare::{compare_table, render_compare};
pub use diff::{diff_table, render_diff};
pub use drilldown::{drill_table, render_drilldown};
pub use functions::{blame_point_table, function_table, render_blame_points, render_functions};
pub use scaling::{render_scaling, scaling_table, short_model};
pub use variables::{coverage_line, render_variables, variable_table, VARIABLE_COLUMNS};

use crate::views::OutputFormat;
use serde::Serialize;

/// A table of strings: headers, rows, and which columns are numeric.
pub struct Table {
    pub headers: Vec<String>,
    pub numeric: Vec<bool>,
    pub rows: Vec<Vec<String>>,
}

/// The text report's heading of its second section: the derived
/// variables (scalars, results and records of any type), listed after every
/// data structure.
const DERIVED_HEADING: &str = "\n# derived: scalars, results and records whose blame is mostly inherited from the data structures above (same samples) or from loop and branch tests\n";

/// The widest a text table's cell of words is; a longer one (a C++ type
/// such as `map<std::__cxx11::basic_string<char, ...>, double, ...>`, a
/// signature in "defined at") keeps its start and its end (the file and
/// line), elided in the middle. CSV and JSON carry every cell whole.
pub const TEXT_CELL_WIDTH: usize = 64;

/// `cell`, elided in the middle to [`TEXT_CELL_WIDTH`] characters.
fn elide(cell: &str) -> std::borrow::Cow<'_, str> {
    let n = cell.chars().count();
    if n <= TEXT_CELL_WIDTH {
        return cell.into();
    }
    let tail = TEXT_CELL_WIDTH / 3;
    let head = TEXT_CELL_WIDTH - tail - 1;
    let start: String = cell.chars().take(head).collect();
    let end: String = cell.chars().skip(n - tail).collect();
    format!("{start}…{end}").into()
}

impl Table {
    pub fn text(&self) -> String {
        let rows: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| {
                r.iter()
                    .enumerate()
                    .map(|(i, c)| {
                        if self.numeric[i] {
                            c.clone()
                        } else {
                            elide(c).into_owned()
                        }
                    })
                    .collect()
            })
            .collect();
        // Columns two spaces apart, numbers aligned right, no trailing
        // spaces; widths by display width (tabled, unicode-width).
        use tabled::settings::object::Columns;
        use tabled::settings::{Alignment, Modify, Padding, Style};
        let mut builder = tabled::builder::Builder::default();
        builder.push_record(self.headers.iter().map(|h| h.to_string()));
        for r in rows {
            builder.push_record(r);
        }
        let mut table = builder.build();
        table.with(Style::empty()).with(Padding::new(0, 2, 0, 0));
        for (i, _) in self.numeric.iter().enumerate().filter(|(_, &n)| n) {
            table.with(Modify::new(Columns::one(i)).with(Alignment::right()));
        }
        if let Some(last) = self.headers.len().checked_sub(1) {
            table.with(Modify::new(Columns::one(last)).with(Padding::zero()));
        }
        let mut out = String::new();
        for line in table.to_string().lines() {
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }

    pub fn csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(&self.headers).expect("in-memory csv");
        for r in &self.rows {
            w.write_record(r).expect("in-memory csv");
        }
        String::from_utf8(w.into_inner().expect("in-memory csv")).expect("csv of utf-8 strings")
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x:.2}")
    }
}

fn pct(x: f64) -> String {
    format!("{x:.1}%")
}

fn json<T: Serialize>(v: &T) -> String {
    let mut s = serde_json::to_string_pretty(v).expect("views serialize");
    s.push('\n');
    s
}

/// A view that is one table: JSON of the view, the table as CSV, or the
/// table as text under a `# ` heading line.
fn table_view<V: Serialize>(v: &V, format: OutputFormat, table: Table, heading: String) -> String {
    match format {
        OutputFormat::Json => json(v),
        OutputFormat::Csv => table.csv(),
        OutputFormat::Text => format!("# {heading}\n{}", table.text()),
    }
}

#[cfg(test)]
mod text_cells {
    use super::*;

    /// A C++ type or signature longer than a text cell is elided in the
    /// middle (its start and its file:line stay); CSV keeps it whole.
    #[test]
    fn long_words_are_elided_in_text_and_whole_in_csv() {
        let long = format!("lg::CgSolver::solve({}) CgSolver.cpp:50", "x".repeat(120));
        let t = Table {
            headers: strings(&["variable", "defined at", "samples"]),
            numeric: vec![false, false, true],
            rows: vec![vec!["alpha".into(), long.clone(), "123456789".into()]],
        };
        let text = t.text();
        let row = text.lines().nth(1).unwrap();
        let cell = row.split("  ").find(|c| c.contains('…')).unwrap().trim();
        assert_eq!(cell.chars().count(), TEXT_CELL_WIDTH);
        assert!(cell.starts_with("lg::CgSolver::solve(") && cell.ends_with("CgSolver.cpp:50"));
        assert!(
            row.ends_with("123456789"),
            "numbers are never elided: {row}"
        );
        assert!(t.csv().contains(&long));
    }
}
