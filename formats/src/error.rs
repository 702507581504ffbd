//! Typed read and write errors shared by every format.

use std::path::PathBuf;

/// Everything that can go wrong reading or writing a blame file.
///
/// Every variant names what was being read and, where it applies, the byte
/// offset, so a user can tell a truncated copy from a wrong file.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    #[error("{path}: I/O error: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not a {expected} file (magic bytes {found:?}); check that you passed the right file")]
    WrongMagic {
        path: PathBuf,
        expected: &'static str,
        found: [u8; 8],
    },
    #[error("{path}: {kind} format version {found} is not supported (this build reads version {supported}); use a matching blame release")]
    UnsupportedVersion {
        path: PathBuf,
        kind: &'static str,
        found: u32,
        supported: u32,
    },
    #[error("{path}: truncated at byte {offset}: {what}")]
    Truncated {
        path: PathBuf,
        offset: u64,
        what: String,
    },
    #[error("{path}: corrupt chunk {chunk} at byte {offset}: {reason}")]
    CorruptChunk {
        path: PathBuf,
        chunk: u64,
        offset: u64,
        reason: String,
    },
    #[error("{path}: corrupt header: {reason}")]
    CorruptHeader { path: PathBuf, reason: String },
    #[error("{context}: {reason}")]
    Invalid { context: String, reason: String },
    #[error("{context}: cannot encode: {reason}")]
    Encode { context: String, reason: String },
}

impl FormatError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        FormatError::Io {
            path: path.into(),
            source,
        }
    }

    /// True when the error means the file simply ends early (a torn tail),
    /// as opposed to holding bytes that are wrong.
    pub fn is_truncation(&self) -> bool {
        matches!(self, FormatError::Truncated { .. })
    }
}

pub type Result<T, E = FormatError> = std::result::Result<T, E>;
