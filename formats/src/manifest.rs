//! The run directory's manifest: what was recorded, how, and what each
//! process's stream holds. JSON, written when the recording ends (and
//! rewritten, so an interrupted recorder still leaves one).

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One process image's stream.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ProcessEntry {
    /// The stream file, or the node file holding the stream as a section.
    pub file: String,
    /// The section of `file` when it is a node file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<u32>,
    pub pid: u32,
    pub ppid: u32,
    pub rank: Option<u32>,
    pub command: Vec<String>,
    /// mpirun, a shell, ...: recorded, but not the application.
    pub launcher: bool,
    pub samples: u64,
    pub lost: u64,
    pub exit_status: Option<i32>,
    pub signal: Option<i32>,
    /// False when the image was replaced by exec or still ran when recording stopped.
    pub ended: bool,
    pub duration_ns: u64,
}

impl ProcessEntry {
    /// `rank-N` or `pid-N`: how results and reports name the process.
    pub fn label(&self) -> String {
        match self.rank {
            Some(r) => format!("rank-{r}"),
            None => format!("pid-{}", self.pid),
        }
    }
}

/// A node file the recorder closed: what post may take from the manifest
/// instead of walking the file, as long as the file still has this length.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct NodeFileEntry {
    pub file: String,
    pub bytes: u64,
    pub sections: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct EventEntry {
    pub name: String,
    /// `frequency` (Hz) or `period` (events or ns per sample).
    pub mode: String,
    pub rate: u64,
    pub unit: String,
    pub memory: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    pub command: Vec<String>,
    pub host: String,
    pub sampler: String,
    pub call_graph: String,
    pub events: Vec<EventEntry>,
    pub start_unix_ns: u64,
    pub end_unix_ns: u64,
    /// Exit code of the recorded command (None when killed by a signal or attached).
    pub exit_status: Option<i32>,
    pub signal: Option<i32>,
    /// Why recording stopped early (a signal to the recorder), if it did.
    pub interrupted: Option<String>,
    pub samples: u64,
    pub lost: u64,
    pub processes: Vec<ProcessEntry>,
    /// The node files written and closed (none with `--per-process-files`).
    #[serde(default)]
    pub node_files: Vec<NodeFileEntry>,
    pub notices: Vec<String>,
    /// The recording machine's L1 data cache (sysfs), for the access-pattern
    /// weights of memory events; absent when the kernel did not say.
    #[serde(default)]
    pub cache: Option<crate::static_db::CacheGeometry>,
    /// Size of each perf ring buffer in KiB (per CPU), as the locked-memory
    /// limits allowed; absent for the ptrace sampler.
    #[serde(default)]
    pub ring_buffer_kib: Option<u64>,
    /// The static db of the run's executables, found by their build-id in
    /// the store `blame cc` registers them in (`$BLAME_DB_STORE`, or the
    /// user's own); `blame post` uses it when no db is named, from any
    /// directory. Set by `blame daemon` and `blame record` (the first of
    /// `static_dbs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_db: Option<PathBuf>,
    /// Every static db `blame record` found for the run's executables, and how.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub static_dbs: Vec<RecordedDb>,
}

/// A static db the recorder found for an executable of the run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RecordedDb {
    /// The db (absolute).
    pub db: PathBuf,
    /// The executable it describes, and its build-id in hex (empty when the
    /// db was found in the recording's directory instead).
    pub binary: PathBuf,
    pub build_id: String,
    /// `build-id` (registered by `blame cc` at the link) or `directory`
    /// (`$BLAME_DB` or `.blame/static.db` where `blame record` ran).
    pub found_by: String,
}

/// The largest manifest read (one of a million processes is about 200 MB).
pub const MAX_MANIFEST_BYTES: u64 = 256 << 20;

impl Manifest {
    /// The main manifest (`manifest.json`) of the run in `dir`, if it can be read.
    pub fn of_run(dir: &Path) -> std::io::Result<Manifest> {
        Manifest::read(&dir.join(crate::run_dir::MANIFEST_FILE))
    }

    /// Writes `manifest.json` in `dir` (or `manifest-rank-N.json` when
    /// this recorder runs as MPI rank N, so per-rank recorders share a
    /// directory), atomically through a temporary file.
    pub fn write(&self, dir: &Path, own_rank: Option<u32>) -> std::io::Result<PathBuf> {
        let path = dir.join(crate::run_dir::manifest_name(own_rank));
        let mut json = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        json.push(b'\n');
        crate::files::write_atomic(&path, &json)?;
        Ok(path)
    }

    /// The cache geometry recorded in a run directory's manifests
    /// (`manifest.json` or the per-rank ones), if any says it.
    pub fn cache_of_run(dir: &Path) -> Option<crate::static_db::CacheGeometry> {
        crate::run_dir::manifest_files(dir)
            .iter()
            .find_map(|p| Manifest::read(p).ok().and_then(|m| m.cache))
    }

    /// Reads a manifest: a regular file (opened without blocking, so a FIFO
    /// is refused instead of hanging; a link to `/dev/zero` is not a regular
    /// file) of at most [`MAX_MANIFEST_BYTES`], JSON of a manifest. Errors
    /// name the file.
    pub fn read(path: &Path) -> std::io::Result<Manifest> {
        use std::io::Read;
        let named =
            |e: std::io::Error| std::io::Error::new(e.kind(), format!("{}: {e}", path.display()));
        let file = crate::files::open_regular(path).map_err(named)?;
        let too_large = || {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "{}: larger than {} MiB: not a blame manifest",
                    path.display(),
                    MAX_MANIFEST_BYTES >> 20
                ),
            )
        };
        if file.metadata().map_err(named)?.len() > MAX_MANIFEST_BYTES {
            return Err(too_large());
        }
        let mut bytes = Vec::new();
        file.take(MAX_MANIFEST_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(named)?;
        if bytes.len() as u64 > MAX_MANIFEST_BYTES {
            return Err(too_large());
        }
        serde_json::from_slice(&bytes).map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{}: not a blame manifest: {e}", path.display()),
            )
        })
    }
}
/// A db that is there, or whose units `blame cc` still analyzes.
fn db_present(db: &Path) -> bool {
    db.is_file() || crate::analysis_queue::dir_of(db).is_dir()
}

/// The static db the run's manifest records (the one its program was built
/// with) when it is no longer there: moved or removed since the recording.
pub fn recorded_db_missing(run_dir: &Path) -> Option<PathBuf> {
    Manifest::of_run(run_dir)
        .ok()
        .and_then(|m| m.static_db)
        .filter(|p| !db_present(p))
}

/// The static db a run is resolved against: the one named
/// ([`crate::run_dir::requested_db`]), else the one the recorder found for the run's
/// executables by build-id (`blame daemon` writes it into the manifest)
/// while it still exists, else `.blame/static.db` when there is one (or
/// `blame cc` is still analyzing units for it).
pub fn static_db_for(explicit: Option<&Path>, run_dir: Option<&Path>) -> Option<PathBuf> {
    crate::run_dir::requested_db(explicit)
        .or_else(|| {
            run_dir
                .and_then(|d| Manifest::of_run(d).ok())
                .and_then(|m| m.static_db)
                .filter(|p| db_present(p))
        })
        .or_else(|| {
            Some(PathBuf::from(crate::static_db::DEFAULT_PATH))
                .filter(|p| p.exists() || crate::analysis_queue::dir_of(p).is_dir())
        })
}
