//! The reports whose rows are functions: the code-centric view (by
//! function) and blame points with their variables.

use super::variables::VARIABLE_COLUMNS;
use super::{num, pct, strings, table_view, Table};
use crate::views::{BlamePointView, FunctionView, OutputFormat};

pub fn function_table(v: &FunctionView) -> Table {
    Table {
        headers: strings(&[
            "function",
            "class",
            "file",
            "inclusive",
            "incl %",
            "exclusive",
            "excl %",
        ]),
        numeric: vec![false, false, false, true, true, true, true],
        rows: v
            .functions
            .iter()
            .map(|r| {
                vec![
                    r.function.clone(),
                    r.class.to_string(),
                    r.file.clone(),
                    num(r.inclusive),
                    pct(r.inclusive_percent),
                    num(r.exclusive),
                    pct(r.exclusive_percent),
                ]
            })
            .collect(),
    }
}

pub fn blame_point_table(v: &BlamePointView) -> Table {
    Table {
        headers: strings(&[
            "blame point",
            "reason",
            "variable",
            "type",
            VARIABLE_COLUMNS[0],
            VARIABLE_COLUMNS[1],
            VARIABLE_COLUMNS[2],
            VARIABLE_COLUMNS[3],
        ]),
        numeric: vec![false, false, false, false, true, true, true, true],
        rows: v
            .blame_points
            .iter()
            .flat_map(|p| {
                p.variables.iter().map(move |r| {
                    vec![
                        p.function.clone(),
                        p.reason.clone(),
                        r.name.clone(),
                        r.type_name.clone(),
                        num(r.explicit),
                        pct(r.explicit_percent),
                        pct(r.percent),
                        pct(r.exclusive_percent),
                    ]
                })
            })
            .collect(),
    }
}

pub fn render_functions(v: &FunctionView, format: OutputFormat) -> String {
    let heading = format!(
        "event {}, {} samples (code-centric)",
        v.event,
        num(v.total_samples)
    );
    table_view(v, format, function_table(v), heading)
}

pub fn render_blame_points(v: &BlamePointView, format: OutputFormat) -> String {
    let heading = format!(
        "event {}, {} samples: blame points and their variables",
        v.event,
        num(v.total_samples)
    );
    table_view(v, format, blame_point_table(v), heading)
}
