//! Memory blame view (`blame report --memory`): the heap memory each
//! variable allocated and held, from the processes' memory profiles
//! (`memory-PID.json`, written by `blame post` from allocation logs):
//! allocation calls, bytes, bytes live at the process's peak, the
//! variable's own peak, leaks and the mean block lifetime, summed over the
//! application's ranks with rank statistics of the own peak.

use crate::render::Table;
use crate::views::{OutputFormat, RankStats};
use blame_formats::memory_profile::{MemoryProfile, VariableMemory};
use blame_formats::results::Results;
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum MemoryViewError {
    #[error("{dir}: no memory profiles of the run's processes (memory-PID.json): record with `blame record --track-allocations`, then run `blame post`")]
    NoProfiles { dir: PathBuf },
    #[error(transparent)]
    Format(#[from] blame_formats::error::FormatError),
}

/// What ranks the rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum MemorySort {
    /// Bytes live at the process's peak.
    #[default]
    Peak,
    /// Allocation calls.
    Allocs,
    /// Bytes still allocated at exit.
    Leaked,
    /// Bytes allocated.
    Bytes,
}

/// One process's counts of a variable.
#[derive(Debug, Clone, Serialize)]
pub struct RankMemory {
    pub rank: Option<u32>,
    pub pid: u32,
    pub allocs: f64,
    pub bytes: f64,
    pub at_peak: f64,
    pub peak: f64,
    pub leaked_bytes: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct MemoryRow {
    pub name: String,
    pub function: String,
    pub file: String,
    pub line: u32,
    #[serde(rename = "type")]
    pub type_name: String,
    pub kind: String,
    /// The variable received blocks itself (not only its fields did).
    pub own: bool,
    /// Summed over the ranks.
    pub allocs: f64,
    pub bytes: f64,
    /// Bytes live at each process's peak, summed.
    pub at_peak: f64,
    /// `at_peak` in percent of the processes' peaks.
    pub at_peak_percent: f64,
    /// Each process's own peak of the variable, summed.
    pub peak: f64,
    pub leaked_bytes: f64,
    pub leaked_blocks: f64,
    pub mean_lifetime_ns: f64,
    /// The own peak per rank.
    pub peak_ranks: RankStats,
    pub per_rank: Vec<RankMemory>,
}

/// The process's exact counts (`exact`: from the tracer's counters).
#[derive(Debug, Clone, Serialize)]
pub struct ProcessTotals {
    pub rank: Option<u32>,
    pub pid: u32,
    pub allocs: u64,
    pub bytes: u64,
    pub frees: u64,
    pub peak_bytes: u64,
    pub leaked_bytes: u64,
    pub leaked_blocks: u64,
    pub exact: bool,
    pub logged_blocks: u64,
    pub sampled_blocks: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct MemoryView {
    pub sort: String,
    /// Sums over the processes.
    pub allocs: u64,
    pub bytes: u64,
    pub peak_bytes: u64,
    pub leaked_bytes: u64,
    pub leaked_blocks: u64,
    pub processes: Vec<ProcessTotals>,
    /// Blocks no variable received (the runtime's, a library's own).
    pub unattributed_bytes: f64,
    pub unattributed_at_peak: f64,
    pub variables: Vec<MemoryRow>,
}

/// The memory profiles of the application's processes of `results` found
/// in `dir` (launchers such as mpirun left out), in the results' order.
pub fn load_profiles(dir: &Path, results: &Results) -> Result<Vec<MemoryProfile>, MemoryViewError> {
    let mut out = Vec::new();
    for p in results.header.processes.iter().filter(|p| !p.launcher) {
        let path = blame_formats::run_dir::memory_profile_path(dir, p.pid);
        if path.exists() {
            let mut m = MemoryProfile::read(&path)?;
            m.rank = p.rank;
            out.push(m);
        }
    }
    if out.is_empty() {
        return Err(MemoryViewError::NoProfiles {
            dir: dir.to_path_buf(),
        });
    }
    Ok(out)
}

fn stats(values: Vec<f64>) -> RankStats {
    RankStats::of(values)
}

/// The rows of every variable over `profiles`, sorted by `sort`.
pub fn view(profiles: &[MemoryProfile], sort: MemorySort) -> MemoryView {
    type Id = (String, String, String, u32);
    let mut order: Vec<Id> = Vec::new();
    let mut by_id: HashMap<Id, Vec<(usize, &VariableMemory)>> = HashMap::new();
    for (pi, p) in profiles.iter().enumerate() {
        for v in &p.variables {
            let k = &v.key;
            let id = (k.name.clone(), k.function.clone(), k.file.clone(), k.line);
            let entry = by_id.entry(id.clone()).or_insert_with(|| {
                order.push(id);
                Vec::new()
            });
            entry.push((pi, v));
        }
    }
    let peak_sum: f64 = profiles.iter().map(|p| p.totals.peak_bytes as f64).sum();
    let mut variables: Vec<MemoryRow> = order
        .iter()
        .map(|id| {
            let parts = &by_id[id];
            let first = parts[0].1;
            let sum = |f: &dyn Fn(&VariableMemory) -> f64| parts.iter().map(|(_, v)| f(v)).sum();
            let allocs: f64 = sum(&|v| v.allocs);
            let at_peak: f64 = sum(&|v| v.at_peak);
            let per_rank: Vec<RankMemory> = parts
                .iter()
                .map(|&(pi, v)| RankMemory {
                    rank: profiles[pi].rank,
                    pid: profiles[pi].pid,
                    allocs: v.allocs,
                    bytes: v.bytes,
                    at_peak: v.at_peak,
                    peak: v.peak,
                    leaked_bytes: v.leaked_bytes,
                })
                .collect();
            // Ranks without the variable held none of it.
            let mut peaks: Vec<f64> = vec![0.0; profiles.len()];
            for &(pi, v) in parts {
                peaks[pi] += v.peak;
            }
            MemoryRow {
                name: first.key.name.clone(),
                function: first.key.function.clone(),
                file: first.key.file.clone(),
                line: first.key.line,
                type_name: first.key.type_name.clone(),
                kind: first.key.kind.clone(),
                own: parts.iter().any(|(_, v)| v.own),
                allocs,
                bytes: sum(&|v| v.bytes),
                at_peak,
                at_peak_percent: if peak_sum > 0.0 {
                    100.0 * at_peak / peak_sum
                } else {
                    0.0
                },
                peak: sum(&|v| v.peak),
                leaked_bytes: sum(&|v| v.leaked_bytes),
                leaked_blocks: sum(&|v| v.leaked_blocks),
                mean_lifetime_ns: if allocs > 0.0 {
                    sum(&|v| v.mean_lifetime_ns * v.allocs) / allocs
                } else {
                    0.0
                },
                peak_ranks: stats(peaks),
                per_rank,
            }
        })
        .collect();
    let key = |r: &MemoryRow| match sort {
        MemorySort::Peak => (r.at_peak, r.peak),
        MemorySort::Allocs => (r.allocs, r.bytes),
        MemorySort::Leaked => (r.leaked_bytes, r.leaked_blocks),
        MemorySort::Bytes => (r.bytes, r.allocs),
    };
    variables.sort_by(|a, b| {
        let (ka, kb) = (key(a), key(b));
        kb.0.total_cmp(&ka.0)
            .then(kb.1.total_cmp(&ka.1))
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| a.function.cmp(&b.function))
    });
    let processes: Vec<ProcessTotals> = profiles
        .iter()
        .map(|p| ProcessTotals {
            rank: p.rank,
            pid: p.pid,
            allocs: p.totals.allocs,
            bytes: p.totals.bytes,
            frees: p.totals.frees,
            peak_bytes: p.totals.peak_bytes,
            leaked_bytes: p.totals.leaked_bytes,
            leaked_blocks: p.totals.leaked_blocks,
            exact: p.totals.exact,
            logged_blocks: p.totals.logged_blocks,
            sampled_blocks: p.totals.sampled_blocks,
        })
        .collect();
    MemoryView {
        sort: format!("{sort:?}").to_lowercase(),
        allocs: processes.iter().map(|p| p.allocs).sum(),
        bytes: processes.iter().map(|p| p.bytes).sum(),
        peak_bytes: processes.iter().map(|p| p.peak_bytes).sum(),
        leaked_bytes: processes.iter().map(|p| p.leaked_bytes).sum(),
        leaked_blocks: processes.iter().map(|p| p.leaked_blocks).sum(),
        processes,
        unattributed_bytes: profiles.iter().map(|p| p.unattributed.bytes).sum(),
        unattributed_at_peak: profiles.iter().map(|p| p.unattributed.at_peak).sum(),
        variables,
    }
}

/// Bytes with a binary unit: `1.5 MiB` (`512 B` under a KiB), by bytesize.
pub fn bytes_text(b: f64) -> String {
    bytesize::ByteSize(b.max(0.0).round() as u64)
        .display()
        .iec()
        .to_string()
}

fn count_text(n: f64) -> String {
    if (n - n.round()).abs() < 1e-9 {
        format!("{}", n.round() as i64)
    } else {
        format!("{n:.1}")
    }
}

fn duration_text(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.1} ms", ns / 1e6)
    } else {
        format!("{:.1} us", ns / 1e3)
    }
}

/// The columns of the memory view, in order (text, CSV).
pub const MEMORY_COLUMNS: [&str; 9] = [
    "variable",
    "function",
    "allocs",
    "allocated",
    "at peak",
    "% of peak",
    "own peak",
    "leaked",
    "mean lifetime",
];

fn table(v: &MemoryView, human: bool) -> Table {
    let many = v.processes.len() > 1;
    let mut headers: Vec<String> = MEMORY_COLUMNS.iter().map(|s| s.to_string()).collect();
    if many {
        headers.extend(["own peak min/max per rank".into(), "imbalance".into()]);
    }
    if !human {
        headers.extend([
            "file".into(),
            "line".into(),
            "type".into(),
            "leaked blocks".into(),
        ]);
    }
    let b = |x: f64| {
        if human {
            bytes_text(x)
        } else {
            format!("{}", x.round() as i64)
        }
    };
    let rows = v
        .variables
        .iter()
        .map(|r| {
            let mut row = vec![
                r.name.clone(),
                r.function.clone(),
                count_text(r.allocs),
                b(r.bytes),
                b(r.at_peak),
                if human {
                    format!("{:.1}%", r.at_peak_percent)
                } else {
                    format!("{:.2}", r.at_peak_percent)
                },
                b(r.peak),
                b(r.leaked_bytes),
                if human {
                    duration_text(r.mean_lifetime_ns)
                } else {
                    format!("{}", r.mean_lifetime_ns.round() as i64)
                },
            ];
            if many {
                row.push(format!("{} / {}", b(r.peak_ranks.min), b(r.peak_ranks.max)));
                row.push(format!("{:.1}%", r.peak_ranks.imbalance));
            }
            if !human {
                row.extend([
                    r.file.clone(),
                    r.line.to_string(),
                    r.type_name.clone(),
                    count_text(r.leaked_blocks),
                ]);
            }
            row
        })
        .collect();
    let n = headers.len();
    Table {
        numeric: (0..n)
            .map(|i| (2..9).contains(&i) || (many && i == 10))
            .collect(),
        headers,
        rows,
    }
}

pub fn render_memory(v: &MemoryView, format: OutputFormat) -> String {
    match format {
        OutputFormat::Json => {
            let mut s = serde_json::to_string_pretty(v).expect("views serialize");
            s.push('\n');
            s
        }
        OutputFormat::Csv => table(v, false).csv(),
        OutputFormat::Text => {
            let sampled: u64 = v.processes.iter().map(|p| p.sampled_blocks).sum();
            let inexact = v.processes.iter().filter(|p| !p.exact).count();
            let mut out = format!(
                "# heap memory of {} process{}: {} allocations, {} allocated, peak {}, leaked {} in {} blocks; ranked by {}\n",
                v.processes.len(),
                if v.processes.len() == 1 { "" } else { "es" },
                v.allocs,
                bytes_text(v.bytes as f64),
                bytes_text(v.peak_bytes as f64),
                bytes_text(v.leaked_bytes as f64),
                v.leaked_blocks,
                match v.sort.as_str() {
                    "peak" => "bytes live at the peak",
                    "allocs" => "allocation calls",
                    "leaked" => "bytes leaked",
                    _ => "bytes allocated",
                },
            );
            out.push_str("# a variable includes its fields' blocks; `at peak`: live at each process's peak; `own peak`: the most the variable held at once");
            if v.processes.len() > 1 {
                out.push_str(" (both summed over ranks)");
            }
            out.push('\n');
            if v.unattributed_bytes > 0.0 {
                out.push_str(&format!(
                    "# blocks of no program variable (rows in brackets: the runtime's and libraries' own): {} allocated, {} at the peak\n",
                    bytes_text(v.unattributed_bytes),
                    bytes_text(v.unattributed_at_peak)
                ));
            }
            if sampled > 0 {
                out.push_str(&format!(
                    "# {sampled} small blocks were sampled by bytes: per-variable counts are estimates, the totals above are exact\n"
                ));
            }
            if inexact > 0 {
                out.push_str(&format!(
                    "# {inexact} process(es) did not exit normally: their totals are sums over the logged blocks\n"
                ));
            }
            out.push_str(&table(v, true).text());
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blame_formats::memory_profile::MemoryTotals;
    use blame_formats::results::VariableKey;

    fn var(name: &str, allocs: f64, bytes: f64, at_peak: f64, leaked: f64) -> VariableMemory {
        VariableMemory {
            key: VariableKey {
                name: name.into(),
                function: "main".into(),
                file: "m.c".into(),
                line: 3,
                type_name: "double *".into(),
                kind: "local".into(),
                scalar: false,
                event: 0,
            },
            own: true,
            allocs,
            bytes,
            at_peak,
            peak: at_peak,
            leaked_bytes: leaked,
            leaked_blocks: if leaked > 0.0 { 1.0 } else { 0.0 },
            mean_lifetime_ns: 1000.0,
            sites: vec![],
        }
    }

    fn profile(rank: u32, vars: Vec<VariableMemory>) -> MemoryProfile {
        MemoryProfile {
            version: 1,
            pid: 100 + rank,
            rank: Some(rank),
            totals: MemoryTotals {
                allocs: 10,
                bytes: 1000,
                peak_bytes: 500,
                exact: true,
                ..Default::default()
            },
            variables: vars,
            ..Default::default()
        }
    }

    /// Ranks sum, rank statistics take a rank without the variable as 0,
    /// and each sort ranks by its column.
    #[test]
    fn rows_sum_over_ranks_and_sort_by_the_chosen_column() {
        let ps = vec![
            profile(
                0,
                vec![
                    var("u", 1.0, 400.0, 400.0, 0.0),
                    var("log", 9.0, 90.0, 10.0, 90.0),
                ],
            ),
            profile(1, vec![var("u", 1.0, 400.0, 200.0, 0.0)]),
        ];
        let v = view(&ps, MemorySort::Peak);
        assert_eq!(v.variables[0].name, "u");
        assert_eq!(v.variables[0].bytes, 800.0);
        assert_eq!(v.variables[0].at_peak_percent, 60.0);
        assert_eq!(v.variables[0].peak_ranks.max, 400.0);
        assert_eq!(v.variables[0].peak_ranks.min, 200.0);
        assert_eq!(v.variables[1].peak_ranks.min, 0.0, "rank 1 has no log");
        assert_eq!(v.allocs, 20);
        assert_eq!(view(&ps, MemorySort::Allocs).variables[0].name, "log");
        assert_eq!(view(&ps, MemorySort::Leaked).variables[0].name, "log");
        let text = render_memory(&v, OutputFormat::Text);
        assert!(text.contains("own peak min/max per rank"), "{text}");
        let csv = render_memory(&v, OutputFormat::Csv);
        assert!(
            csv.lines().nth(1).unwrap().starts_with("u,main,2,800,600,"),
            "{csv}"
        );
        let json: serde_json::Value =
            serde_json::from_str(&render_memory(&v, OutputFormat::Json)).unwrap();
        assert_eq!(
            json["variables"][0]["per_rank"].as_array().unwrap().len(),
            2
        );
    }
}

#[cfg(test)]
mod bytes_tests {
    use super::bytes_text;

    #[test]
    fn bytes_have_binary_units_with_one_decimal() {
        assert_eq!(bytes_text(0.0), "0 B");
        assert_eq!(bytes_text(1023.4), "1023 B");
        assert_eq!(bytes_text(1536.0), "1.5 KiB");
        assert_eq!(bytes_text(3.5 * 1024.0 * 1024.0), "3.5 MiB");
        assert_eq!(bytes_text(2.0 * 1024.0 * 1024.0 * 1024.0), "2.0 GiB");
    }
}
