//! The daemon's settings: a TOML file (`--config`), then command-line
//! overrides. Every default lives here.

use crate::DaemonError;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Where run directories go unless told.
pub const DEFAULT_DIR: &str = "/var/lib/blame/runs";
/// The control socket unless told.
pub const DEFAULT_SOCKET: &str = "/run/blame/daemon.sock";
/// Samples per second per CPU: low enough to stay near 1% of a busy node.
pub const DEFAULT_RATE_HZ: u64 = 49;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Where the per-job run directories go (owned by root, 0755).
    pub dir: PathBuf,
    /// Samples per second per CPU.
    pub rate_hz: u64,
    /// The sampled event (`cpu-clock` works everywhere; `cycles` where a PMU is).
    pub event: String,
    /// `hybrid` (frame-pointer callchain + a small stack copy), `fp` or `dwarf`.
    pub call_graph: String,
    /// The control socket (created 0600, or 0660 with `socket_group`).
    pub socket: PathBuf,
    /// A group whose members may use the control socket.
    pub socket_group: Option<String>,
    /// Users below this uid (system services) are not sampled, unless listed in `include_users`.
    pub min_uid: u32,
    /// Only these users (names), when not empty.
    pub include_users: Vec<String>,
    pub exclude_users: Vec<String>,
    /// Only these commands (globs on the process name or the executable's
    /// file name), when not empty.
    pub include_commands: Vec<String>,
    pub exclude_commands: Vec<String>,
    /// Only processes whose cgroup path matches one of these globs, when not empty.
    pub include_cgroups: Vec<String>,
    pub exclude_cgroups: Vec<String>,
    /// A job's run directory stops growing at this size; later samples are counted as dropped.
    pub job_cap_mb: u64,
    /// All run directories together: the oldest ended jobs are removed first to stay below.
    pub total_cap_mb: u64,
    /// A job ends this many seconds after its last process did (a shell
    /// script's next command may start in between).
    pub job_end_after_s: u64,
    /// Streams and manifests are flushed this often (what a kill -9 of the daemon can lose).
    pub flush_interval_s: u64,
    /// Run `blame post` on a job when it ends (as the job's user).
    pub post_on_end: bool,
    /// At most one such post per this many seconds.
    pub post_min_interval_s: u64,
    /// Where `blame cc` registers static dbs by build-id (`BLAME_DB_STORE`);
    /// written into each job's manifest so `blame post` finds the db.
    pub static_db_store: Option<PathBuf>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            dir: PathBuf::from(DEFAULT_DIR),
            rate_hz: DEFAULT_RATE_HZ,
            event: "cpu-clock".into(),
            call_graph: "hybrid".into(),
            socket: PathBuf::from(DEFAULT_SOCKET),
            socket_group: None,
            min_uid: 1000,
            include_users: Vec::new(),
            exclude_users: Vec::new(),
            include_commands: Vec::new(),
            exclude_commands: Vec::new(),
            include_cgroups: Vec::new(),
            exclude_cgroups: Vec::new(),
            job_cap_mb: 1024,
            total_cap_mb: 20 * 1024,
            job_end_after_s: 10,
            flush_interval_s: 5,
            post_on_end: false,
            post_min_interval_s: 60,
            static_db_store: None,
        }
    }
}

impl Config {
    /// The file's settings over the defaults.
    pub fn load(path: &Path) -> Result<Config, DaemonError> {
        let text = std::fs::read_to_string(path).map_err(|e| DaemonError::io(path, e))?;
        let cfg: Config = toml::from_str(&text).map_err(|e| DaemonError::Config {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        cfg.check().map_err(|problem| DaemonError::Config {
            path: path.to_path_buf(),
            message: problem.to_string(),
        })?;
        Ok(cfg)
    }

    /// Values that cannot work, said before anything starts.
    pub fn check(&self) -> Result<(), ConfigProblem> {
        if self.rate_hz == 0 {
            return Err(ConfigProblem::NotPositive("rate_hz"));
        }
        // Above the kernel's limit perf_event_open fails with EINVAL: say
        // which setting and which limit, before anything starts.
        if let Some(limit) = blame_sampler::perf::max_sample_rate() {
            if self.rate_hz > limit {
                return Err(ConfigProblem::AboveKernelLimit {
                    rate: self.rate_hz,
                    limit,
                });
            }
        }
        if self.flush_interval_s == 0 {
            return Err(ConfigProblem::NotPositive("flush_interval_s"));
        }
        for (key, path) in [("dir", &self.dir), ("socket", &self.socket)] {
            if !path.is_absolute() {
                return Err(ConfigProblem::Relative(key, path.clone()));
            }
        }
        for g in self
            .include_commands
            .iter()
            .chain(&self.exclude_commands)
            .chain(&self.include_cgroups)
            .chain(&self.exclude_cgroups)
        {
            glob::Pattern::new(g).map_err(|e| ConfigProblem::Pattern(g.clone(), e))?;
        }
        Ok(())
    }
}

/// A setting that cannot work.
#[derive(Debug, thiserror::Error)]
pub enum ConfigProblem {
    #[error("{0} must be positive")]
    NotPositive(&'static str),
    #[error("{0} must be an absolute path, not {1:?}")]
    Relative(&'static str, PathBuf),
    #[error("pattern {0:?}: {1}")]
    Pattern(String, glob::PatternError),
    #[error("rate_hz = {rate} is above the kernel's limit of {limit} samples per second (kernel.perf_event_max_sample_rate): lower rate_hz, or raise the limit with `sysctl -w kernel.perf_event_max_sample_rate={rate}`")]
    AboveKernelLimit { rate: u64, limit: u64 },
}

/// A list of globs; matches when any does.
pub fn matches_any(patterns: &[String], text: &str) -> bool {
    patterns
        .iter()
        .filter_map(|p| glob::Pattern::new(p).ok())
        .any(|p| p.matches(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_overrides_only_what_it_names() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("daemon.toml");
        std::fs::write(
            &path,
            "rate_hz = 199\nexclude_commands = [\"sshd\", \"slurm*\"]\n",
        )
        .unwrap();
        let cfg = Config::load(&path).unwrap();
        assert_eq!(cfg.rate_hz, 199);
        assert_eq!(cfg.dir, PathBuf::from(DEFAULT_DIR));
        assert!(matches_any(&cfg.exclude_commands, "slurmstepd"));
        assert!(!matches_any(&cfg.exclude_commands, "solver"));
    }

    #[test]
    fn unknown_keys_and_bad_values_are_refused_with_the_file_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("daemon.toml");
        std::fs::write(&path, "rate = 10\n").unwrap();
        let e = Config::load(&path).unwrap_err().to_string();
        assert!(e.contains("daemon.toml") && e.contains("rate"), "{e}");
        std::fs::write(&path, "rate_hz = 0\n").unwrap();
        assert!(Config::load(&path)
            .unwrap_err()
            .to_string()
            .contains("positive"));
        std::fs::write(&path, "exclude_cgroups = [\"[\"]\n").unwrap();
        assert!(Config::load(&path)
            .unwrap_err()
            .to_string()
            .contains("pattern"));
    }
}
