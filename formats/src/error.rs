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

/// Why a decoded record of results is refused: it refers to something the
/// file has not defined before it (readers keep a record only after these
/// checks; the message becomes a [`FormatError::CorruptChunk`]'s reason).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordRefused {
    #[error("a call path or a stack naming one in a result older than version 8")]
    PathsBeforeVersion8,
    #[error("refers to process {process} of {processes}")]
    Process { process: u32, processes: u32 },
    #[error("{what} refers to frame {frame} of {frames}")]
    Frame {
        what: &'static str,
        frame: u32,
        frames: usize,
    },
    #[error("a call path after {stacks} stacks")]
    PathAfterStacks { stacks: usize },
    #[error("stack refers to path {path} of {paths}")]
    Path { path: u32, paths: usize },
    #[error("stack refers to a path out of range, of {paths}")]
    PathOutOfRange { paths: usize },
    #[error("context refers to stack {stack} of {stacks}")]
    Stack { stack: u32, stacks: usize },
    #[error("context refers to variable {variable} of {variables}")]
    Variable { variable: u32, variables: usize },
}

/// Why 20 bytes are no chunk header.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadChunkHeader {
    #[error("bad chunk marker {found:#010x}")]
    Marker { found: u32 },
    #[error("chunk claims {ulen} bytes ({clen} compressed), over the {limit} byte limit")]
    TooLarge { ulen: u32, clen: u32, limit: u32 },
    #[error("chunk claims {count} records in {ulen} bytes")]
    TooManyRecords { count: u32, ulen: u32 },
    #[error("end marker (0 records) with a {ulen} byte payload")]
    EndWithPayload { ulen: u32 },
}

/// Why a salvaged stream's stack table refuses a node or a sample.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StackTableRefused {
    #[error("stack node {id} (parent {parent}) out of order after {nodes} nodes")]
    OutOfOrder { id: u32, parent: u32, nodes: usize },
    #[error("sample refers to stack {id} before it is defined")]
    Undefined { id: u32 },
}
