//! Errors of post-processing, each naming the file or item and what to do.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum PostError {
    #[error(transparent)]
    Format(#[from] blame_formats::FormatError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: build-id {found} does not match the recording's {recorded}: the binary changed since it was recorded; pass the original with --binary-path DIR")]
    BuildIdMismatch {
        path: PathBuf,
        recorded: String,
        found: String,
    },
    /// A perf.data capture that cannot be read.
    #[error(transparent)]
    Import(#[from] blame_capture::ImportError),
    #[error("{0}")]
    Input(String),
}

pub type Result<T, E = PostError> = std::result::Result<T, E>;

pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> PostError {
    let path = path.into();
    move |source| PostError::Io { path, source }
}

pub(crate) use blame_capture::locate::hex;
