//! `blame record`: the first stage of the pipeline. Samples a command and
//! every process and thread it starts (or an attached pid) with
//! perf_event, unwinds each sample's user stack while recording, and writes
//! one sample stream per process image (see `blame_formats::stream`) plus
//! a manifest into the run directory that `blame post` reads. When the
//! kernel refuses perf_event_open, a ptrace sampler takes over. Records are
//! parsed, processes followed and stacks unwound by the capture layer
//! (`blame_capture`), which the perf.data importer shares.
//!
//! | module | job |
//! |---|---|
//! | `sys` | the only `unsafe`: perf_event_open, ioctls, ring buffer mmap, fork |
//! | `events` | event names to perf types |
//! | `perf` | the perf_event sampler |
//! | `ptrace` | the ptrace fallback sampler |
//! | `recording` | the capture layer's process table with stream files as its sink and `/proc` as its source |
//! | `stop` | when the sampling loop stops: the command ended, a signal (forwarded first), the duration |
//! | `sink` | what sampled records are fed to: one recording, or the daemon's per-job router |
//! | `procfs` | /proc: command lines, MPI ranks, mappings |
//! | `alloc_tracking` | `--track-allocations`: the preloaded allocation tracer |
//! | `session` | launching or attaching, signals, the loop that ties it together |

// `unsafe` only where the crate doc says (with SAFETY notes).
#![deny(unsafe_code)]
pub mod alloc_tracking;
mod error;
pub mod events;
pub mod perf;
pub mod procfs;
pub mod ptrace;
pub mod recording;
mod session;
pub mod sink;
pub mod slurm;
pub mod stack_copy;
mod stop;
#[allow(unsafe_code)]
mod sys;

pub use error::{RecordError, RingBufferRefused, SamplerError, Unsupported, UsageError};
pub use session::{record, RecordOptions, RecordSummary, SamplerKind, Target};

/// How stacks are walked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallGraph {
    /// The default: the kernel's frame-pointer callchain plus a small copy
    /// of the stack's innermost bytes ([`HYBRID_STACK_SIZE`]). Frames in the
    /// copy are unwound from DWARF CFI (leaf functions of libc, libm, MPI or
    /// BLAS built without frame pointers); the walk continues with the
    /// callchain from the frame where the copy ends. Programs built by
    /// `blame cc` keep frame pointers, so this resolves the stacks of
    /// `Dwarf` at a fraction of the kernel's copying cost.
    Hybrid,
    /// Copy the user stack with each sample and unwind it from DWARF CFI in the recorder.
    Dwarf,
    /// Kernel frame-pointer callchains.
    Fp,
}

/// Bytes of user stack copied per sample in hybrid mode, at most (an MPI
/// launch's; a program's own is less: `stack_copy`).
pub const HYBRID_STACK_SIZE: u32 = 2048;
/// Bytes of user stack copied per sample in dwarf mode (as `perf --call-graph dwarf`).
pub const DWARF_STACK_SIZE: u32 = 8192;

impl std::str::FromStr for CallGraph {
    type Err = BadCallGraph;
    fn from_str(s: &str) -> Result<Self, BadCallGraph> {
        match s {
            "hybrid" => Ok(CallGraph::Hybrid),
            "dwarf" => Ok(CallGraph::Dwarf),
            "fp" => Ok(CallGraph::Fp),
            other => Err(BadCallGraph {
                name: other.to_string(),
            }),
        }
    }
}

/// A `--call-graph` mode that does not exist.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--call-graph {name}: use hybrid, dwarf or fp")]
pub struct BadCallGraph {
    pub name: String,
}

impl CallGraph {
    pub fn name(self) -> &'static str {
        match self {
            CallGraph::Hybrid => "hybrid",
            CallGraph::Dwarf => "dwarf",
            CallGraph::Fp => "fp",
        }
    }

    /// Bytes of user stack copied per sample when `--stack-size` is not given (0: none).
    pub fn default_stack_size(self) -> u32 {
        match self {
            CallGraph::Hybrid => HYBRID_STACK_SIZE,
            CallGraph::Dwarf => DWARF_STACK_SIZE,
            CallGraph::Fp => 0,
        }
    }
}
