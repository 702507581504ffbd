//! The recorder's errors: what the command line asks that cannot be done
//! (`Usage`, exit status 2 as perf's), what this machine cannot sample, and
//! what failed while setting the sampler up; each says what to do.

use crate::events::BadEvent;
use std::path::PathBuf;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum RecordError {
    #[error(transparent)]
    Usage(#[from] UsageError),
    #[error(transparent)]
    Unsupported(#[from] Unsupported),
    #[error(transparent)]
    Sampler(#[from] SamplerError),
    #[error("{}: {error}", path.display())]
    Io {
        path: std::path::PathBuf,
        error: std::io::Error,
    },
    /// The run directory is in use by another recorder or a reader.
    #[error("{0}")]
    Busy(#[source] std::io::Error),
    /// The command could not be executed (exec failed with `error`).
    #[error("cannot run `{command}`: {}", cannot_run_reason(command, error))]
    CannotRun {
        command: String,
        error: std::io::Error,
    },
}

/// What the command line asks that cannot be done.
#[derive(Debug, Error)]
pub enum UsageError {
    #[error("-F and -c exclude each other")]
    RateAndPeriod,
    #[error("the sampling rate must be positive")]
    RateNotPositive,
    #[error("--duration must be a positive number of seconds")]
    DurationNotPositive,
    #[error("no command to record (blame record -- CMD ARGS...)")]
    NoCommand,
    #[error("--track-allocations needs a launched command (the tracer is preloaded at exec)")]
    TrackingNeedsCommand,
    #[error("--pid {pid}: no such process")]
    NoSuchProcess { pid: u32 },
    #[error(transparent)]
    Events(#[from] BadEvent),
    /// The output directory is not one a recording may be written to
    /// (another user's, or reached through a path another user controls).
    #[error("{0}")]
    OutputDir(#[source] std::io::Error),
    #[error("{} already holds a recording ({files} files); choose another -o or pass --force to replace it", dir.display())]
    HoldsRecording { dir: PathBuf, files: usize },
}

/// What this machine cannot sample.
#[derive(Debug, Error)]
pub enum Unsupported {
    #[error("event '{event}' is not supported on this machine ({error}): its hardware PMU does not count it. \
             Sample time with -e cpu-clock, or record with `perf record` where the PMU exists and import with `blame post --perf-data`")]
    Event {
        event: String,
        error: std::io::Error,
    },
    #[error("the ptrace sampler samples time only; event '{event}' needs perf_event")]
    PtraceEvent { event: String },
}

/// What failed while setting the sampler up.
#[derive(Debug, Error)]
pub enum SamplerError {
    #[error("enabling events: {0}")]
    Enable(#[source] std::io::Error),
    #[error("installing signal handlers: {0}")]
    Signals(#[source] std::io::Error),
    #[error("fork: {0}")]
    Fork(#[source] std::io::Error),
    #[error("{0}; raise `ulimit -l` or kernel.perf_event_mlock_kb, or use --sampler ptrace")]
    RingBuffer(#[source] RingBufferRefused),
    #[error(
        "perf_event_open refused: {0}; lower kernel.perf_event_paranoid or use --sampler ptrace"
    )]
    NotPermitted(#[source] std::io::Error),
    #[error(transparent)]
    Open(#[from] crate::perf::OpenError),
    #[error("ptrace of process {pid}: {error}{}", owner_note(*pid, *owner, *me))]
    Ptrace {
        pid: u32,
        error: nix::Error,
        /// The process's owner and ours, when known.
        owner: Option<u32>,
        me: u32,
    },
}

/// The perf ring buffers do not fit in the memory this user may lock.
#[derive(Debug, Error)]
#[error("the perf ring buffers do not fit in the memory this user may lock ({limit}): {cpus} CPUs x {kib} KiB refused ({error})")]
pub struct RingBufferRefused {
    /// The limit, as [`crate::perf::MlockLimit::describe`] says it.
    pub limit: String,
    pub cpus: usize,
    pub kib: usize,
    pub error: std::io::Error,
}

/// Why a process cannot be traced, when it is another user's.
fn owner_note(pid: u32, owner: Option<u32>, me: u32) -> String {
    match owner {
        Some(uid) if uid != me && me != 0 => format!(
            "; process {pid} belongs to uid {uid}, not to you (uid {me}): record it as its owner or as root"
        ),
        _ => String::new(),
    }
}

impl RecordError {
    /// The exit status a shell gives for this error: 127 for a command not
    /// found, 126 for one found but not executable; None for other errors.
    pub fn shell_status(&self) -> Option<u8> {
        match self {
            RecordError::CannotRun { error, .. } => {
                Some(if error.kind() == std::io::ErrorKind::NotFound {
                    127
                } else {
                    126
                })
            }
            _ => None,
        }
    }
}

fn cannot_run_reason(command: &str, error: &std::io::Error) -> String {
    // The errno's text without " (os error N)".
    let full = error.to_string();
    let text = full.split(" (os error").next().unwrap_or(&full);
    // What is at the path when it is no program (a directory, a FIFO).
    let what = std::fs::metadata(command).ok().and_then(|m| {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        if t.is_dir() {
            Some("a directory")
        } else if t.is_fifo() {
            Some("a FIFO")
        } else if t.is_socket() {
            Some("a socket")
        } else if t.is_char_device() || t.is_block_device() {
            Some("a device")
        } else {
            None
        }
    });
    match (error.kind(), what) {
        (_, Some(what)) if command.contains('/') => {
            format!("{command} is {what}, not a program")
        }
        (std::io::ErrorKind::NotFound, _) if !command.contains('/') => {
            format!("command not found in PATH ({text})")
        }
        (std::io::ErrorKind::PermissionDenied, _) => {
            format!("{text}: not executable, or a directory on its path cannot be searched")
        }
        _ => text.to_string(),
    }
}
