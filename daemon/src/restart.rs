//! What survives the daemon: `state.json` in the daemon's private
//! directory (`DIR/.blame-daemon/`, root, 0700), rewritten at every flush
//! and at stop. It lists each running job's processes with their start
//! time and the CPU time they had used. A daemon that starts finds the
//! processes still running and charges the CPU time they used while no
//! daemon sampled them to their job as a gap (samples missed = CPU seconds
//! x rate): nothing is lost silently, and what is lost is counted.

use crate::job::JobKey;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SavedState {
    pub saved_unix_ns: u64,
    pub rate_hz: u64,
    pub jobs: Vec<SavedJob>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SavedJob {
    pub key: JobKey,
    pub name: String,
    pub gid: u32,
    pub started_unix_ns: u64,
    pub processes: Vec<SavedProcess>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct SavedProcess {
    pub pid: u32,
    /// Start time in clock ticks since boot (tells a reused pid apart).
    pub start_ticks: u64,
    /// utime + stime in clock ticks when saved.
    pub cpu_ticks: u64,
}

/// A time no daemon sampled a job, and what it cost.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Gap {
    pub from_unix_ns: u64,
    pub to_unix_ns: u64,
    /// CPU seconds the job's still-running processes used in the gap.
    pub cpu_seconds: f64,
    /// Samples a running daemon would have taken of them (cpu_seconds x rate).
    pub missed_samples: u64,
    /// Processes of the job that ended during the gap (their last CPU time is unknown).
    pub processes_ended: u32,
}

pub fn private_dir(base: &Path) -> PathBuf {
    base.join(".blame-daemon")
}

pub fn state_path(base: &Path) -> PathBuf {
    private_dir(base).join("state.json")
}

/// The saved state, or an empty one (first start, or a damaged file: said
/// by the caller through `Err`).
pub fn load(base: &Path) -> Result<Option<SavedState>, StateUnreadable> {
    let path = state_path(base);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|error| StateUnreadable::Damaged { path, error }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(StateUnreadable::Io { path, error }),
    }
}

/// Why the saved state is not read (the daemon starts without it).
#[derive(Debug, thiserror::Error)]
pub enum StateUnreadable {
    #[error("{}: unreadable ({error}); gaps before this start are not counted", path.display())]
    Damaged {
        path: PathBuf,
        error: serde_json::Error,
    },
    #[error("{}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

pub fn save(base: &Path, state: &SavedState) -> std::io::Result<()> {
    let json = serde_json::to_vec_pretty(state).map_err(std::io::Error::other)?;
    blame_formats::files::write_atomic(state_path(base), &json)
}

/// (start time, utime + stime) of a process in clock ticks.
pub fn process_ticks(pid: u32) -> Option<(u64, u64)> {
    let stat = procfs::process::Process::new(i32::try_from(pid).ok()?)
        .and_then(|p| p.stat())
        .ok()?;
    Some((stat.starttime, stat.utime + stat.stime))
}

pub fn ticks_per_second() -> u64 {
    nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .ok()
        .flatten()
        .map(|t| t as u64)
        .unwrap_or(100)
}

/// The gap of one saved job: its processes still running now (same pid and
/// start time) and the CPU time they used since the save.
pub fn gap_of(
    job: &SavedJob,
    saved_unix_ns: u64,
    now_unix_ns: u64,
    rate_hz: u64,
) -> (Gap, Vec<SavedProcess>) {
    let mut cpu_ticks = 0;
    let mut alive = Vec::new();
    let mut ended = 0;
    for p in &job.processes {
        match process_ticks(p.pid) {
            Some((start, cpu)) if start == p.start_ticks => {
                cpu_ticks += cpu.saturating_sub(p.cpu_ticks);
                alive.push(SavedProcess {
                    cpu_ticks: cpu,
                    ..*p
                });
            }
            _ => ended += 1,
        }
    }
    let cpu_seconds = cpu_ticks as f64 / ticks_per_second() as f64;
    (
        Gap {
            from_unix_ns: saved_unix_ns,
            to_unix_ns: now_unix_ns,
            cpu_seconds,
            missed_samples: (cpu_seconds * rate_hz as f64).round() as u64,
            processes_ended: ended,
        },
        alive,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::JobKind;

    #[test]
    fn the_cpu_a_running_process_used_in_the_gap_is_charged_to_its_job() {
        let me = std::process::id();
        let (start, cpu) = process_ticks(me).unwrap();
        // Burn some CPU after the "save".
        let t = std::time::Instant::now();
        let mut x = 0u64;
        while t.elapsed().as_millis() < 300 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let job = SavedJob {
            key: JobKey {
                kind: JobKind::Session(1),
                uid: 1000,
            },
            name: "u.session-1".into(),
            gid: 1000,
            started_unix_ns: 1,
            processes: vec![
                SavedProcess {
                    pid: me,
                    start_ticks: start,
                    cpu_ticks: cpu,
                },
                // A pid that is gone.
                SavedProcess {
                    pid: 4_000_000,
                    start_ticks: 5,
                    cpu_ticks: 5,
                },
            ],
        };
        let (gap, alive) = gap_of(&job, 10, 20, 100);
        assert_eq!(alive.len(), 1);
        assert_eq!(gap.processes_ended, 1);
        assert!(gap.cpu_seconds > 0.1, "{gap:?}");
        assert_eq!(gap.missed_samples, (gap.cpu_seconds * 100.0).round() as u64);
    }

    #[test]
    fn a_damaged_state_is_said_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(private_dir(dir.path())).unwrap();
        std::fs::write(state_path(dir.path()), b"{not json").unwrap();
        assert!(load(dir.path())
            .unwrap_err()
            .to_string()
            .contains("unreadable"));
        let s = SavedState {
            saved_unix_ns: 3,
            rate_hz: 49,
            jobs: Vec::new(),
        };
        save(dir.path(), &s).unwrap();
        assert_eq!(load(dir.path()).unwrap(), Some(s));
    }
}
