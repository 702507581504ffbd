//! `blame daemon`: the always-on form of the first stage of the pipeline.
//! One privileged process per node samples every process on every CPU at
//! a low rate (system-wide perf events of `blame_sampler`, stacks unwound
//! online as `blame record` does), groups processes into jobs (a Slurm job
//! step, else a cgroup, else a login session) and writes each job an
//! ordinary run directory, owned by the job's user, that `blame post`,
//! `report`, `export` and `diff` read unchanged.
//!
//! | module | job |
//! |---|---|
//! | `config` | the daemon's settings (TOML file, command-line overrides), include/exclude lists |
//! | `job` | which job a process belongs to (Slurm job/step, cgroup, session) and its user, from /proc |
//! | `job_dir` | run directories under the daemon's directory: created by root, owned by the job's user (0700), never through a symlink; files created with the user's file-system identity |
//! | `router` | the [`blame_sampler::sink::RecordSink`] that hands each process's records to its job's recording; job ends, disk caps and rotation, per-job manifests |
//! | `restart` | what a restarted daemon learns from the state the previous one saved: the CPU time each job's processes used while no daemon sampled them |
//! | `post_queue` | `blame post` of ended jobs, as their user, one at a time, rate-limited |
//! | `control` | the control socket (`status`, `flush`, `stop`, job marks from a Slurm prolog/epilog) and its client |
//! | `run` | the daemon's main loop |

#![forbid(unsafe_code)]
pub mod config;
pub mod control;
pub mod job;
pub mod job_dir;
pub mod post_queue;
pub mod restart;
pub mod router;
pub mod run;

pub use config::Config;
pub use run::run;

use std::path::PathBuf;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum DaemonError {
    #[error(transparent)]
    Usage(#[from] DaemonUsage),
    #[error("{path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("configuration {path}: {message}")]
    Config { path: PathBuf, message: String },
    #[error("sampling every CPU: {0}")]
    Sampler(#[source] SamplerSetup),
    #[error("control socket {path}: {message}")]
    Control { path: PathBuf, message: String },
}

/// What the daemon's settings or its invocation ask that cannot be done.
#[derive(Debug, Error)]
pub enum DaemonUsage {
    #[error(transparent)]
    Config(#[from] config::ConfigProblem),
    #[error("blame daemon runs as root: it samples every user's processes and gives each job's run directory to its user")]
    NotRoot,
    #[error("{}: another blame daemon uses this directory", dir.display())]
    DirInUse { dir: PathBuf },
    #[error("{}: not a directory (a symlink is refused: the daemon never follows links it did not create)", dir.display())]
    BaseNotDir { dir: PathBuf },
    #[error("{}: must belong to root and not be writable by group or others (it is uid {uid}, mode {mode:o}): users could plant files the daemon writes through", dir.display())]
    BaseNotRoots { dir: PathBuf, uid: u32, mode: u32 },
    #[error(transparent)]
    Events(#[from] blame_sampler::events::BadEvent),
    #[error(transparent)]
    CallGraph(#[from] blame_sampler::BadCallGraph),
}

/// What failed setting up the node-wide sampler.
#[derive(Debug, Error)]
pub enum SamplerSetup {
    #[error("signal handlers: {0}")]
    Signals(#[source] std::io::Error),
    #[error(transparent)]
    Open(#[from] blame_sampler::perf::OpenFailure),
    #[error(transparent)]
    Enable(#[from] blame_sampler::RecordError),
}

impl DaemonError {
    pub fn io(path: impl Into<PathBuf>, error: std::io::Error) -> DaemonError {
        DaemonError::Io {
            path: path.into(),
            error,
        }
    }
}
