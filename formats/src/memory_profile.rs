//! Memory profiles: the heap memory each variable of one process allocated
//! and held, written by `blame post` from the process's allocation log
//! (`memory-PID.json` beside the results, one per traced process, so each
//! shard of a post writes its own processes') and read by `blame report
//! --memory` and the exports.
//!
//! A JSON document (small: a row per variable that received heap blocks);
//! `version` says its layout. Version 1 is the only one.

use crate::error::{FormatError, Result};
use crate::results::{SymFrame, VariableKey};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The layout written now.
pub const VERSION: u32 = 1;

/// The largest memory profile read (a JSON document of rows per variable).
pub const MAX_BYTES: u64 = 256 << 20;

/// The memory profile of `pid` in the run directory `dir`.
pub fn path(dir: &Path, pid: u32) -> PathBuf {
    dir.join(format!("memory-{pid}.json"))
}

/// The exact counts of the process (from the tracer's counters; from the
/// logged blocks when the process did not exit normally).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MemoryTotals {
    /// Allocation calls (malloc, calloc, realloc, aligned allocations).
    pub allocs: u64,
    pub bytes: u64,
    pub frees: u64,
    /// Most bytes live at once.
    pub peak_bytes: u64,
    pub peak_blocks: u64,
    /// Bytes and blocks still allocated at exit.
    pub leaked_bytes: u64,
    pub leaked_blocks: u64,
    /// When tracing started and ended, and about when the peak was
    /// (CLOCK_MONOTONIC nanoseconds).
    pub start_ns: u64,
    pub end_ns: u64,
    pub peak_ns: u64,
    /// Whether the counts are the tracer's exact ones (false: the process
    /// did not exit normally, the counts are sums over logged blocks).
    pub exact: bool,
    /// Blocks logged one by one, and of them sampled by bytes.
    pub logged_blocks: u64,
    pub sampled_blocks: u64,
}

/// One allocation site of a variable (its call stack, innermost first).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SiteMemory {
    pub function: String,
    pub frames: Vec<SymFrame>,
    pub allocs: f64,
    pub bytes: f64,
    pub at_peak: f64,
    pub leaked_bytes: f64,
}

/// The memory one variable (with its fields) allocated and held in one
/// process. Counts of sampled blocks are estimates (fractional).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VariableMemory {
    /// The variable as the results name it (`event` 0).
    pub key: VariableKey,
    /// Blocks received by the variable itself (not only by its fields).
    pub own: bool,
    pub allocs: f64,
    pub bytes: f64,
    /// Bytes live at the process's peak.
    pub at_peak: f64,
    /// The most bytes the variable held at once.
    pub peak: f64,
    pub leaked_bytes: f64,
    pub leaked_blocks: f64,
    /// Mean time from allocation to free (to exit for leaked blocks), ns.
    pub mean_lifetime_ns: f64,
    /// The sites whose blocks the variable itself received (not its fields').
    pub sites: Vec<SiteMemory>,
}

/// Live bytes over time of the variables that held the most.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    /// The end of each interval (ns since tracing started).
    pub times_ns: Vec<u64>,
    /// Total live bytes of the process at each time (from the logged blocks).
    pub total: Vec<f64>,
    /// (index into [`MemoryProfile::variables`], live bytes at each time).
    pub series: Vec<(u32, Vec<f64>)>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MemoryProfile {
    pub version: u32,
    pub pid: u32,
    pub rank: Option<u32>,
    pub totals: MemoryTotals,
    /// Blocks that no variable received: the allocation's stack has no
    /// program frame with a summary (the runtime's own, MPI_Init's buffers).
    pub unattributed: VariableMemoryRest,
    pub variables: Vec<VariableMemory>,
    pub timeline: Timeline,
}

/// Blocks of no variable, summed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VariableMemoryRest {
    pub allocs: f64,
    pub bytes: f64,
    pub at_peak: f64,
    pub leaked_bytes: f64,
}

impl MemoryProfile {
    pub fn write(&self, path: &Path) -> Result<()> {
        let bytes = serde_json::to_vec(self).map_err(|e| FormatError::Encode {
            context: path.display().to_string(),
            reason: e.to_string(),
        })?;
        let mut f = crate::files::AtomicFile::create(path).map_err(|e| FormatError::io(path, e))?;
        std::io::Write::write_all(&mut f, &bytes).map_err(|e| FormatError::io(path, e))?;
        f.commit().map_err(|e| FormatError::io(path, e))
    }

    pub fn read(path: &Path) -> Result<MemoryProfile> {
        let file = crate::files::open_regular(path).map_err(|e| FormatError::io(path, e))?;
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::Read::take(file, MAX_BYTES + 1), &mut bytes)
            .map_err(|e| FormatError::io(path, e))?;
        if bytes.len() as u64 > MAX_BYTES {
            return Err(FormatError::Invalid {
                context: path.display().to_string(),
                reason: format!("a memory profile larger than {MAX_BYTES} bytes"),
            });
        }
        let p: MemoryProfile =
            serde_json::from_slice(&bytes).map_err(|e| FormatError::Invalid {
                context: path.display().to_string(),
                reason: format!("not a blame memory profile: {e}"),
            })?;
        if p.version != VERSION {
            return Err(FormatError::UnsupportedVersion {
                path: path.to_path_buf(),
                kind: "blame memory profile",
                found: p.version,
                supported: VERSION,
            });
        }
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_reads_back_and_a_future_version_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = MemoryProfile {
            version: VERSION,
            pid: 7,
            rank: Some(1),
            totals: MemoryTotals {
                allocs: 3,
                bytes: 300,
                exact: true,
                ..Default::default()
            },
            ..Default::default()
        };
        let at = path(dir.path(), 7);
        p.write(&at).unwrap();
        assert_eq!(MemoryProfile::read(&at).unwrap(), p);
        let mut future = p.clone();
        future.version = 99;
        std::fs::write(&at, serde_json::to_vec(&future).unwrap()).unwrap();
        assert!(matches!(
            MemoryProfile::read(&at),
            Err(FormatError::UnsupportedVersion { found: 99, .. })
        ));
        std::fs::write(&at, b"{").unwrap();
        assert!(MemoryProfile::read(&at).is_err());
    }
}
