//! Text tables, JSON and CSV for the views.

use crate::views::*;
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

fn defined_at(r: &VariableRow) -> String {
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
fn variable_rows_table(v: &VariableView, rows: &[&crate::views::VariableRow]) -> Table {
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

fn json<T: Serialize>(v: &T) -> String {
    let mut s = serde_json::to_string_pretty(v).expect("views serialize");
    s.push('\n');
    s
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
            let main: Vec<&crate::views::VariableRow> =
                v.variables.iter().filter(|r| !r.derived).collect();
            let derived: Vec<&crate::views::VariableRow> =
                v.variables.iter().filter(|r| r.derived).collect();
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
pub fn coverage_line(c: &crate::views::CoverageView) -> String {
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

/// A view that is one table: JSON of the view, the table as CSV, or the
/// table as text under a `# ` heading line.
fn table_view<V: Serialize>(v: &V, format: OutputFormat, table: Table, heading: String) -> String {
    match format {
        OutputFormat::Json => json(v),
        OutputFormat::Csv => table.csv(),
        OutputFormat::Text => format!("# {heading}\n{}", table.text()),
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
