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

fn list(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

pub type Result<T, E = ImportError> = std::result::Result<T, E>;
