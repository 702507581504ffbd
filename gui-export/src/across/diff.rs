//! `blame diff RUN_A RUN_B`: per variable, the blame in each run and the
//! change, in samples and in share of each run, largest change first.
//!
//! Both blames are diffed: explicit (data flow) and total (with loop and
//! branch tests); the rows are ordered by the change of the one the filters
//! rank by (explicit by default, as `report`), data structures before
//! derived scalars, as every by-variable view.

use super::match_rows;
use crate::views::{self, CoverageView, Filters, RankBy, VariableRow, ViewError};
use blame_formats::results::Results;
use serde::Serialize;

/// One run's blame of a variable: total and explicit, in samples and in
/// percent of the run's samples (zero when the run does not blame it). JSON
/// names them as `blame report` does: `samples` (explicit blame),
/// `explicit_percent`, `total_percent`, `total` (samples).
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct DiffSide {
    #[serde(rename = "samples")]
    pub explicit: f64,
    pub explicit_percent: f64,
    #[serde(rename = "total_percent")]
    pub percent: f64,
    #[serde(rename = "total")]
    pub samples: f64,
}

impl DiffSide {
    fn of(r: &VariableRow) -> DiffSide {
        DiffSide {
            samples: r.samples,
            percent: r.percent,
            explicit: r.explicit,
            explicit_percent: r.explicit_percent,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct DiffRow {
    pub name: String,
    pub function: String,
    #[serde(rename = "type")]
    pub type_name: String,
    pub kind: String,
    /// `both`, `only_a` (gone in B) or `only_b` (new in B).
    pub status: String,
    pub file_a: Option<String>,
    pub line_a: Option<u32>,
    pub file_b: Option<String>,
    pub line_b: Option<u32>,
    /// A derived scalar (in B, else in A): listed after the data structures.
    pub derived: bool,
    pub a: DiffSide,
    pub b: DiffSide,
    /// B - A.
    pub delta: DiffSide,
}

impl DiffRow {
    /// The change the rows are ordered by: share of the run, then samples.
    pub fn change(&self, rank_by: RankBy) -> (f64, f64) {
        match rank_by {
            RankBy::Explicit => (self.delta.explicit_percent, self.delta.explicit),
            RankBy::Total => (self.delta.percent, self.delta.samples),
        }
    }
}

/// One side of the comparison.
#[derive(Debug, Clone, Serialize)]
pub struct DiffRun {
    pub label: String,
    pub total_samples: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<CoverageView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DiffView {
    pub event: String,
    pub rank_by: RankBy,
    pub a: DiffRun,
    pub b: DiffRun,
    pub variables: Vec<DiffRow>,
}

/// Compares the by-variable views of two runs of one program (their
/// builds may differ: variables are matched by function, name and type).
/// `filters.min_percent` keeps variables with that share in either run;
/// `filters.top` cuts the ordered list.
pub fn diff(
    a: &Results,
    label_a: &str,
    b: &Results,
    label_b: &str,
    filters: &Filters,
) -> Result<DiffView, ViewError> {
    let all = Filters {
        top: None,
        min_percent: 0.0,
        ..filters.clone()
    };
    let va = views::by_variable(a, &all)?;
    // B is read for A's event, so both sides count the same thing.
    let vb = views::by_variable(
        b,
        &Filters {
            event: Some(va.event.clone()),
            ..all.clone()
        },
    )
    .map_err(|e| e.of_run(label_b))?;
    if va.method.is_some() {
        return Err(ViewError::DiffOfMemoryEvent {
            event: va.event.clone(),
        });
    }
    let mut rows: Vec<DiffRow> = match_rows(&va.variables, &vb.variables)
        .into_iter()
        .map(|(i, j)| {
            let ra = i.map(|i| &va.variables[i]);
            let rb = j.map(|j| &vb.variables[j]);
            let any = rb.or(ra).expect("a pair has a side");
            let sa = ra.map(DiffSide::of).unwrap_or_default();
            let sb = rb.map(DiffSide::of).unwrap_or_default();
            DiffRow {
                name: any.name.clone(),
                function: any.function.clone(),
                type_name: any.type_name.clone(),
                kind: any.kind.clone(),
                status: match (ra, rb) {
                    (Some(_), Some(_)) => "both",
                    (Some(_), None) => "only_a",
                    _ => "only_b",
                }
                .to_string(),
                file_a: ra.map(|r| r.file.clone()),
                line_a: ra.map(|r| r.line),
                file_b: rb.map(|r| r.file.clone()),
                line_b: rb.map(|r| r.line),
                derived: any.derived,
                a: sa,
                b: sb,
                delta: DiffSide {
                    samples: sb.samples - sa.samples,
                    percent: sb.percent - sa.percent,
                    explicit: sb.explicit - sa.explicit,
                    explicit_percent: sb.explicit_percent - sa.explicit_percent,
                },
            }
        })
        .filter(|r| {
            let share = |s: &DiffSide| match filters.rank_by {
                RankBy::Explicit => s.explicit_percent,
                RankBy::Total => s.percent,
            };
            share(&r.a).max(share(&r.b)) >= filters.min_percent
        })
        .collect();
    let rank_by = filters.rank_by;
    rows.sort_by(|x, y| {
        let (px, sx) = x.change(rank_by);
        let (py, sy) = y.change(rank_by);
        x.derived
            .cmp(&y.derived)
            .then_with(|| py.abs().total_cmp(&px.abs()))
            .then_with(|| sy.abs().total_cmp(&sx.abs()))
            .then_with(|| x.name.cmp(&y.name))
            .then_with(|| x.function.cmp(&y.function))
            .then_with(|| x.line_a.cmp(&y.line_a))
    });
    if let Some(n) = filters.top {
        rows.truncate(n);
    }
    Ok(DiffView {
        event: va.event,
        rank_by,
        a: DiffRun {
            label: label_a.to_string(),
            total_samples: va.total_samples,
            coverage: va.coverage,
        },
        b: DiffRun {
            label: label_b.to_string(),
            total_samples: vb.total_samples,
            coverage: vb.coverage,
        },
        variables: rows,
    })
}
