//! What a stream knows of its process when it is opened
//! ([`StreamHeader`]) and of the events it samples ([`EventDesc`],
//! [`Sampling`]): which commands are launchers rather than the application
//! ([`is_launcher`]) and which events count memory accesses
//! ([`is_memory_event`]).

use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// How an event is sampled: every N occurrences, or N times a second.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub enum Sampling {
    Period(u64),
    Frequency(u64),
}

/// One event the sampler recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct EventDesc {
    /// User-facing name, e.g. `cpu-clock`, `cache-misses`, `r01a1`.
    pub name: String,
    pub sampling: Sampling,
    /// What one unit of a sample's weight is: `ns` for clocks, `events` for counters.
    pub unit: String,
    /// True for cache/TLB miss events: post-processing uses the approximate data-centric passes.
    pub memory: bool,
}

/// Everything known about the process when its stream is opened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct StreamHeader {
    pub host: String,
    pub command: Vec<String>,
    pub pid: u32,
    pub ppid: u32,
    /// MPI rank from `OMPI_COMM_WORLD_RANK`, `PMI_RANK` or `SLURM_PROCID`.
    pub rank: Option<u32>,
    pub world_size: Option<u32>,
    pub events: Vec<EventDesc>,
    /// `hybrid`, `dwarf`, `fp` or `ptrace`.
    pub call_graph: String,
    /// Unix time in nanoseconds when sampling of this process began.
    pub start_time_ns: u64,
    /// Free-form facts (sampler version, kernel, paranoid level...).
    pub extra: Vec<(String, String)>,
}

/// Names of processes that launch the application rather than being part of it.
const LAUNCHERS: &[&str] = &[
    "mpirun",
    "mpiexec",
    "mpirun.openmpi",
    "mpiexec.openmpi",
    "mpiexec.hydra",
    "mpirun.mpich",
    "mpiexec.mpich",
    "orterun",
    "prterun",
    "orted",
    "prted",
    "srun",
    "hydra_pmi_proxy",
    "bash",
    "sh",
    "dash",
    "env",
    "blame",
    "time",
];

/// True when `command` runs a launcher (mpirun, a shell, ...) rather than the application.
pub fn is_launcher(command: &[String]) -> bool {
    command
        .first()
        .and_then(|c| Path::new(c).file_name())
        .is_some_and(|name| LAUNCHERS.contains(&name.to_string_lossy().as_ref()))
}

/// Event names that count memory accesses or misses (approximate
/// data-centric mode), with perf's modifiers (`:u`, `/P`): misses, `perf
/// mem` loads and stores (`cpu/mem-loads,ldlat=30/P`), AMD IBS. The one
/// place this is decided, for the recorder's events and perf.data's.
pub fn is_memory_event(name: &str) -> bool {
    let base = name.split(':').next().unwrap_or_default();
    let n = base.to_ascii_lowercase();
    n.contains("miss")
        || n.starts_with("mem-")
        || n.starts_with("mem_")
        || ["mem-loads", "mem-stores", "ibs_op"]
            .iter()
            .any(|m| n.contains(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_events_by_name() {
        assert!(is_memory_event("cpu/mem-loads,ldlat=30/P"));
        assert!(is_memory_event("cache-misses:u"));
        assert!(is_memory_event("L1-dcache-load-misses"));
        assert!(is_memory_event("ibs_op//"));
        assert!(is_memory_event("mem-stores"));
        assert!(!is_memory_event("cpu-clock"));
        assert!(!is_memory_event("cycles:P"));
        assert!(!is_memory_event("task-clock:u"));
    }
}
