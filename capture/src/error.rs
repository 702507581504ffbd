//! Errors of reading a capture, each naming the file and what is wrong with it.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Not a perf.data blame can read: another format, cut short, corrupt,
    /// or holding no samples to read.
    #[error("{path}: {what}")]
    Unreadable { path: PathBuf, what: String },
    #[error("{}: no samples with user-space stacks in {}", list(paths), if paths.len() == 1 { "this capture" } else { "these captures" })]
    NoSamples { paths: Vec<PathBuf> },
}

/// What an import warns about: the capture is read, but a user should know.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
pub enum ImportWarning {
    #[error("{}: perf lost {lost} samples (PERF_RECORD_LOST); raise `perf record -m` or lower -F", path.display())]
    Lost { path: PathBuf, lost: u64 },
    #[error("{}: {samples} samples had no user-space stack (kernel threads, idle) and were left out", path.display())]
    NoUserStack { path: PathBuf, samples: u64 },
    #[error("{}: {shallow} of {samples} samples have only the sampled address (recorded without a call graph, or code without frame pointers under --call-graph fp: --call-graph dwarf walks without them)", path.display())]
    ShallowStacks {
        path: PathBuf,
        shallow: u64,
        samples: u64,
    },
    #[error("{}: its build-id differs from the capture's; dwarf stacks through it are not unwound (pass the original with --binary-path)", path.display())]
    UnwindBinaryChanged { path: PathBuf },
}

fn list(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

pub type Result<T, E = ImportError> = std::result::Result<T, E>;
