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
    #[error("{path}: build-id {found} does not match {recorded}, recorded in {recording}: the binary changed since it was recorded (or the recording is damaged); pass the original with --binary-path DIR")]
    BuildIdMismatch {
        path: PathBuf,
        recorded: String,
        found: String,
        /// The recording that names the build-id.
        recording: PathBuf,
    },
    /// A perf.data capture that cannot be read.
    #[error(transparent)]
    Import(#[from] blame_capture::ImportError),
    /// A recorder still writes the run directory (its lock's holder named).
    #[error("{lock}")]
    Busy {
        dir: PathBuf,
        #[source]
        lock: std::io::Error,
    },
    #[error("{}: no sample streams (*.bnode, *.bstream) here; record one with `blame record -o {} -- CMD`", dir.display(), dir.display())]
    NoSampleFiles { dir: PathBuf },
    /// `--strict` and damage: `what` says where, `instead` what post does
    /// without `--strict`.
    #[error("{what}; refused (--strict); without --strict {instead}")]
    Refused { what: String, instead: &'static str },
    #[error("{}: none of its {count} sample streams can be read:\n  {}", dir.display(), errors.join("\n  "))]
    NoneReadable {
        dir: PathBuf,
        count: usize,
        errors: Vec<String>,
    },
    #[error("{input}: {count} distinct event names, more than the {max} blame can index; give the samples fewer event names")]
    TooManyEvents {
        input: String,
        count: usize,
        max: usize,
    },
    #[error("the sample file holds no samples")]
    NoSamples,
    #[error("--skid insns:... needs a recording (the binaries' code); JSON-lines samples have only lines: use --skid lines:MEAN:SPREAD")]
    SkidNeedsBinaries,
    #[error("--memory-event {name}: no such event in the samples (events: {})", events.join(", "))]
    NoSuchEvent { name: String, events: Vec<String> },
    #[error("{at}: no such section in the file")]
    NoSuchSection { at: String },
    #[error("{at}: the manifest lists {listed} here, the file holds {found}: the manifest does not describe this file (remove it to have the file's own headers read)")]
    ManifestMismatch {
        at: String,
        listed: String,
        found: String,
    },
    /// A stream whose stack table is broken (`--strict`, or not damaged).
    #[error("{}: {reason}", path.display())]
    BadStacks {
        path: PathBuf,
        reason: SampleRefused,
    },
    #[error("--shard {text:?}: expected I/N, e.g. 0/4")]
    ShardSyntax { text: String },
    #[error("shard {index}/{count}: the index must be below the count, counting from 0 (e.g. --shard 0/4)")]
    ShardOutOfRange { index: u32, count: u32 },
    #[error("{rank_var}={rank} {size_var}={size}: not numbers")]
    ShardEnvironment {
        rank_var: &'static str,
        rank: String,
        size_var: &'static str,
        size: String,
    },
    #[error("the samples' weights add up to {0}, more than a 64-bit float holds; scale the weights down")]
    WeightOverflow(f64),
    #[error("partial results come from different runs (events or processes differ); remove stale shard files and re-run `blame post`")]
    PartsOfOtherRuns,
    #[error("partial results were computed from different inputs ({}); remove stale shard files and re-run `blame post`", differences.join(", "))]
    PartsOfOtherInputs { differences: Vec<String> },
    #[error("nothing to merge: no partial results found")]
    NothingToMerge,
    #[error("{name}: the process table in its header does not decode; re-run `blame post` for it")]
    CorruptProcessTable { name: String },
}

/// Why a stream's sample or stack node is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SampleRefused {
    #[error("a sample refers to event {event}, which the stream never defines")]
    UndefinedEvent { event: u16 },
    #[error(transparent)]
    Stack(#[from] blame_formats::error::StackTableRefused),
}

pub type Result<T, E = PostError> = std::result::Result<T, E>;

/// What post does without `--strict` when a stream cannot be read.
pub(crate) const USES_OTHER_STREAMS: &str = "the other streams are used";
/// What post does without `--strict` with damage inside a stream.
pub(crate) const SKIPS_THE_DAMAGE: &str = "post skips the damage and uses the rest";

/// What post-processing warns about: the results are computed, but a user
/// should know what they are missing and what to do about it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Warning {
    #[error(transparent)]
    Import(#[from] blame_capture::ImportWarning),
    #[error("{samples} samples had data addresses outside every known variable (stack, or blocks the allocation log does not know)")]
    DirectUnattributed { samples: f64 },
    #[error("{samples} memory samples had their skid window cut short by a call or the function start (skid is not followed backwards through calls)")]
    SkidTruncated { samples: f64 },
    #[error("{total} samples were lost while recording (ring-buffer overruns: {by_process}); blame is computed from the {kept} samples kept, so hot code may be under-represented; record with a lower -F or --call-graph fp")]
    Lost {
        total: u64,
        by_process: String,
        kept: f64,
    },
    #[error("{}: {error}; heap blocks' sizes unknown to the access weights", path.display())]
    AllocLogUnreadable { path: PathBuf, error: String },
    #[error("{}: torn at byte {at}; using the records before it", path.display())]
    AllocLogTorn { path: PathBuf, at: u64 },
    #[error("{}: samples carry data addresses but there is no allocation log ({}): heap blocks stay unattributed ({hint})", stream.display(), log.display())]
    NoAllocLog {
        stream: PathBuf,
        log: PathBuf,
        hint: &'static str,
    },
    #[error("kernel frames: no kallsyms beside the recording; they stay unsymbolized")]
    NoKallsyms,
    #[error("{path}: not found; its frames stay unsymbolized (use --binary-path)")]
    BinaryNotFound { path: String },
    #[error("{}: no debug info (stripped, or built without -g): its frames have no source lines, so its samples reach no variable; pass the unstripped binary with --binary-path DIR, or rebuild with -g", path.display())]
    NoDebugInfo { path: PathBuf },
    #[error("{}: {error}", path.display())]
    BinaryUnreadable { path: PathBuf, error: String },
    #[error("the static db has no summary for any sampled function (it has {functions} functions; sampled: {sampled}): it was built from other sources, so no sample reaches a variable; build the db from this program's sources with `blame cc` or `blame analyze`")]
    DbMatchesNothing { functions: usize, sampled: String },
    #[error("the static db does not match the sampled binary: samples of {functions} are on lines where the db's summaries have no code. The db was built from other sources than the binary (one of them was rebuilt after the sources changed), so these functions' variables are wrong or missing; rebuild the db from the binary's sources (`blame cc`, `blame analyze`), or pass the binary the db was built for with --binary-path")]
    StaleDb { functions: String },
}

pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> PostError {
    let path = path.into();
    move |source| PostError::Io { path, source }
}

pub(crate) use blame_capture::locate::hex;
