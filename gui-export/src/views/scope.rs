//! Which processes and event a view covers ([`Scope`]), the sums of a
//! row's values over them, and the per-rank spread of a row ([`RankStats`]).

use super::{event_index, Filters, ViewError, MEMORY_METHODS};
use blame_formats::results::{ProcessValue, Results};
use serde::Serialize;
use std::collections::BTreeMap;

/// Per-rank spread of a variable's blame, in percent of each rank's samples.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct RankStats {
    pub ranks: usize,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub median: f64,
    /// max / mean - 1, in percent: 0 when perfectly balanced.
    pub imbalance: f64,
}

/// Which processes and event a view covers.
pub(super) struct Scope {
    pub(super) event: u16,
    pub(super) event_name: String,
    pub(super) processes: Vec<u32>,
    pub(super) total: f64,
    /// For memory events: the method whose values are shown.
    pub(super) method: Option<String>,
}

impl Scope {
    pub(super) fn new(results: &Results, filters: &Filters) -> Result<Scope, ViewError> {
        let events = &results.header.events;
        if events.is_empty() {
            return Err(ViewError::NoEvents);
        }
        let event = event_index(results, filters.event.as_deref())?;
        let procs = &results.header.processes;
        let processes: Vec<u32> = match filters.rank {
            Some(r) => {
                let found: Vec<u32> = (0..procs.len() as u32)
                    .filter(|&i| procs[i as usize].rank == Some(r))
                    .collect();
                if found.is_empty() {
                    let ranks: Vec<String> = procs
                        .iter()
                        .filter_map(|p| p.rank.map(|r| r.to_string()))
                        .collect();
                    return Err(ViewError::NoSuchRank { rank: r, ranks });
                }
                found
            }
            None => {
                let app: Vec<u32> = (0..procs.len() as u32)
                    .filter(|&i| !procs[i as usize].launcher)
                    .collect();
                if app.is_empty() {
                    (0..procs.len() as u32).collect()
                } else {
                    app
                }
            }
        };
        let total = processes
            .iter()
            .map(|&p| procs[p as usize].samples.get(event).copied().unwrap_or(0.0))
            .sum();
        let method = if events[event].memory {
            match filters.method.as_deref() {
                None | Some("all") => None,
                Some(m) if MEMORY_METHODS.contains(&m) => Some(m.to_string()),
                Some(m) => {
                    return Err(ViewError::NoSuchMethod {
                        method: m.to_string(),
                    })
                }
            }
        } else {
            if filters.method.as_deref().is_some_and(|m| m != "all") {
                return Err(ViewError::MethodOfTimeEvent {
                    event: events[event].name.clone(),
                });
            }
            None
        };
        Ok(Scope {
            event: event as u16,
            event_name: events[event].name.clone(),
            processes,
            total,
            method,
        })
    }

    /// The value of one process under the scope's method.
    pub(super) fn value(&self, v: &ProcessValue) -> f64 {
        match &self.method {
            Some(m) => v
                .methods
                .iter()
                .find(|(name, _)| name == m)
                .map(|(_, x)| *x)
                .unwrap_or(0.0),
            None => v.inclusive,
        }
    }

    pub(super) fn sum(&self, values: &[ProcessValue]) -> (f64, f64) {
        values
            .iter()
            .filter(|v| self.processes.contains(&v.process))
            .fold((0.0, 0.0), |(i, e), v| (i + self.value(v), e + v.exclusive))
    }

    /// (explicit, inherited) over the scope's processes. Memory events have
    /// no implicit part: their explicit value is the attributed value.
    pub(super) fn sum_explicit(&self, values: &[ProcessValue]) -> (f64, f64) {
        values
            .iter()
            .filter(|v| self.processes.contains(&v.process))
            .fold((0.0, 0.0), |(x, h), v| {
                let explicit = if self.method.is_some() {
                    self.value(v)
                } else {
                    v.explicit
                };
                (x + explicit, h + v.inherited)
            })
    }

    pub(super) fn methods(&self, values: &[ProcessValue]) -> BTreeMap<String, f64> {
        let mut out = BTreeMap::new();
        for v in values
            .iter()
            .filter(|v| self.processes.contains(&v.process))
        {
            for (m, x) in &v.methods {
                *out.entry(m.clone()).or_default() += x;
            }
        }
        out
    }

    pub(super) fn percent(&self, x: f64) -> f64 {
        if self.total > 0.0 {
            100.0 * x / self.total
        } else {
            0.0
        }
    }

    pub(super) fn rank_stats(&self, results: &Results, values: &[ProcessValue]) -> RankStats {
        let pcts: Vec<f64> = self
            .processes
            .iter()
            .map(|&p| {
                let total = results.header.processes[p as usize]
                    .samples
                    .get(self.event as usize)
                    .copied()
                    .unwrap_or(0.0);
                // A fold from +0.0: an empty f64 sum is -0.0, shown as "-0.0%".
                let mine: f64 = values
                    .iter()
                    .filter(|v| v.process == p)
                    .map(|v| self.value(v))
                    .fold(0.0, |a, b| a + b);
                if total > 0.0 {
                    100.0 * mine / total
                } else {
                    0.0
                }
            })
            .collect();
        RankStats::of(pcts)
    }
}

impl RankStats {
    /// Mean, minimum, median, maximum and imbalance (the maximum over the
    /// mean, in percent above it) of one value per rank.
    pub(crate) fn of(mut values: Vec<f64>) -> RankStats {
        if values.is_empty() {
            return RankStats::default();
        }
        values.sort_by(|a, b| a.total_cmp(b));
        let n = values.len();
        let mean = values.iter().sum::<f64>() / n as f64;
        let median = if n % 2 == 1 {
            values[n / 2]
        } else {
            (values[n / 2 - 1] + values[n / 2]) / 2.0
        };
        let max = values[n - 1];
        RankStats {
            ranks: n,
            mean,
            min: values[0],
            max,
            median,
            imbalance: if mean > 0.0 {
                100.0 * (max / mean - 1.0)
            } else {
                0.0
            },
        }
    }
}
