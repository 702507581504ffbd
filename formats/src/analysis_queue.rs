//! The analysis queue of a static db (its layout and bookkeeping; the
//! drain that analyzes is `blame_static::queue_drain`): how `blame cc`
//! keeps the analysis off the compile's critical path.
//!
//! `blame cc` writes each unit's bitcode into the queue directory beside the
//! db (`DB` with the extension `queue`, e.g. `.blame/static.queue/`, private
//! to the user) and returns as soon as the object is built. A drainer (one
//! at a time per db, `drain.lock`) analyzes what is queued in batches and
//! merges each batch into the db under the db's writer lock. Whoever reads
//! the db (`blame post`, `blame check`, `blame cc --wait`) first calls
//! [`wait`], which drains in the foreground when no drainer runs (one was
//! killed, or never started), so no unit is lost and none is read half done.
//!
//! | file | written by | meaning |
//! |---|---|---|
//! | `ID.bc` | the front end | bitcode, maybe still being written |
//! | `ID.job` | `blame cc`, atomically, after `ID.bc` is complete | a unit to analyze: its source name |
//! | `drain.lock` | the drainer | held while a drainer runs |
//! | `warnings.log` | the drainer | warnings for units that got no summary; shown and removed by [`wait`] |
//! | `hurry` | a waiter | somebody waits: the background drainer stops pacing itself |
//!
//! The background drainer runs at normal priority but only on a free core
//! (one thread, paused while every core has a runnable task): priorities
//! would invert as soon as somebody waits, and an unprivileged process can
//! lower its own priority but never raise it back.
//!
//! Invariant: a job is removed only after its summaries are in the db (or
//! its warning is in `warnings.log`). A drainer that finds the queue empty
//! releases its lock and looks once more, so a job queued while it was
//! leaving is never stranded: either the enqueuer took the lock (and starts
//! a drainer), or the leaving drainer sees the job.

use crate::error::FormatError;
use crate::files;
use crate::lock::WriterLock;
use serde::{Deserialize, Serialize};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Bitcode with no job this old was left by a killed `blame cc`.
const ORPHAN_AFTER: Duration = Duration::from_secs(600);

/// The queue directory of the static db at `db`.
pub fn dir_of(db: &Path) -> PathBuf {
    db.with_extension("queue")
}

/// One queued unit, as `ID.job` holds it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Job {
    /// The user's source file, as messages name it.
    source: String,
}

/// A unit being added to the queue: the front end writes [`Self::bitcode`],
/// then [`Self::commit`] makes it a job.
#[derive(Debug)]
pub struct Pending {
    dir: PathBuf,
    id: String,
}

impl Pending {
    /// Where the front end writes the unit's bitcode.
    pub fn bitcode(&self) -> PathBuf {
        self.dir.join(format!("{}.bc", self.id))
    }

    /// Queues the unit (its bitcode is complete).
    pub fn commit(self, source: &str) -> io::Result<()> {
        let job = Job {
            source: source.to_string(),
        };
        let bytes = serde_json::to_vec(&job).map_err(io::Error::other)?;
        files::write_atomic(self.dir.join(format!("{}.job", self.id)), &bytes)
    }

    /// Drops the unit (its front end failed).
    pub fn abandon(self) {
        let _ = std::fs::remove_file(self.bitcode());
    }
}

/// Opens (creating, mode 0700) the queue of `db` and names a new unit in it.
pub fn begin(db: &Path) -> io::Result<Pending> {
    let dir = dir_of(db);
    create_private_dir(&dir)?;
    let stamp = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    let id = format!("{stamp:020}-{}", std::process::id());
    Ok(Pending { dir, id })
}

pub(crate) fn create_private_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    match std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
    {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    // Never a directory somebody else owns or can write (bitcode is code).
    files::check_own_dir(dir)
}

/// Why a static db cannot take summaries.
#[derive(Debug, thiserror::Error)]
pub enum DbUnusable {
    #[error("{path}: written by an older blame (static db version {found}, this build writes version {supported}); its summaries cannot be reused: delete it and run blame cc / blame analyze again on every translation unit")]
    Older {
        path: String,
        found: u32,
        supported: u32,
    },
    #[error(transparent)]
    Unreadable(#[from] FormatError),
}

/// Fails when the db at `db` exists but cannot take summaries (damaged, or
/// written by an older blame): checked by `blame cc` before it queues, so
/// the build shows the reason at once.
pub fn check_db(db: &Path) -> Result<(), DbUnusable> {
    if !db.exists() {
        return Ok(());
    }
    match crate::static_db::StaticDb::read_header(db) {
        Ok(_) => Ok(()),
        Err(FormatError::UnsupportedVersion {
            found, supported, ..
        }) if found < supported => Err(DbUnusable::Older {
            path: db.display().to_string(),
            found,
            supported,
        }),
        Err(e) => Err(e.into()),
    }
}

/// The queued jobs (sorted: oldest first) of the queue at `dir`.
fn jobs(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "job"))
            .collect(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    out.sort();
    Ok(out)
}

/// How many units wait in the queue of `db`.
pub fn queued(db: &Path) -> usize {
    jobs(&dir_of(db)).map(|j| j.len()).unwrap_or(0)
}

/// Takes the drain lock of `db`'s queue if no drainer holds it.
pub fn try_lock(db: &Path) -> io::Result<Option<WriterLock>> {
    let dir = dir_of(db);
    create_private_dir(&dir)?;
    WriterLock::try_take(&dir.join("drain.lock"))
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", dir.display())))
}

/// The queued jobs of `db`, oldest first: (bitcode, source name, job file).
/// A job file nobody can read is removed, with its bitcode.
pub fn queued_units(db: &Path) -> io::Result<Vec<QueuedUnit>> {
    let mut out = Vec::new();
    for job_path in jobs(&dir_of(db))? {
        let job: Option<Job> = std::fs::read(&job_path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        match job {
            Some(job) => out.push(QueuedUnit {
                bitcode: job_path.with_extension("bc"),
                source: job.source,
                job: job_path,
            }),
            None => {
                let _ = std::fs::remove_file(job_path.with_extension("bc"));
                let _ = std::fs::remove_file(&job_path);
            }
        }
    }
    Ok(out)
}

/// One queued unit.
#[derive(Debug, Clone)]
pub struct QueuedUnit {
    pub bitcode: PathBuf,
    /// The user's source file, as messages name it.
    pub source: String,
    job: PathBuf,
}

impl QueuedUnit {
    /// Removes the unit from the queue: its summaries are in the db, or its
    /// warning is logged.
    pub fn done(&self) {
        let _ = std::fs::remove_file(&self.bitcode);
        let _ = std::fs::remove_file(&self.job);
    }
}

/// Is a waiter waiting (the drainer should stop pacing itself)?
pub fn hurried(db: &Path) -> bool {
    dir_of(db).join("hurry").exists()
}

/// Forgets that somebody waited (the drainer leaves an empty queue).
pub fn clear_hurry(db: &Path) {
    let _ = std::fs::remove_file(dir_of(db).join("hurry"));
}

/// Logs the warning of a unit that got no summary, for [`wait`] to show.
pub fn log_warning(db: &Path, text: &str) -> io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .open(dir_of(db).join("warnings.log"))?;
    writeln!(f, "{text}")
}

/// Bitcode without a job (or half written: `.part`), left by a `blame cc`
/// killed during its compile.
pub fn remove_orphans(db: &Path) {
    let Ok(entries) = std::fs::read_dir(dir_of(db)) else {
        return;
    };
    for e in entries.filter_map(Result::ok) {
        let p = e.path();
        let old = e
            .metadata()
            .ok()
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > ORPHAN_AFTER);
        let orphan = p.extension().is_some_and(|x| x == "part")
            || p.extension().is_some_and(|x| x == "bc") && !p.with_extension("job").exists();
        if old && orphan {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Waits until every unit queued for `db` is in it, draining in the
/// foreground when no drainer runs. `waiting(n)` is called once when units
/// are still queued. Returns the warnings of units that got no summary
/// (each shown once: the log is removed).
pub fn wait(
    db: &Path,
    mut waiting: impl FnMut(usize),
    mut drain_now: impl FnMut(WriterLock) -> io::Result<()>,
) -> io::Result<Vec<String>> {
    let dir = dir_of(db);
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut told = false;
    loop {
        // A job is removed after its summaries are written: none left is done.
        let pending = jobs(&dir)?.len();
        if pending == 0 {
            break;
        }
        match try_lock(db)? {
            Some(lock) => {
                if !told {
                    waiting(pending);
                    told = true;
                }
                drain_now(lock)?;
            }
            None => {
                if !told {
                    waiting(pending);
                    told = true;
                    // The background drainer stops pacing itself.
                    let _ = files::write_atomic(dir.join("hurry"), b"");
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
    let log = dir.join("warnings.log");
    let text = match std::fs::read_to_string(&log) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let _ = std::fs::remove_file(&log);
    Ok(text.lines().map(str::to_string).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_is_only_a_job_once_committed() {
        let d = tempfile::tempdir().unwrap();
        let db = d.path().join("static.db");
        let p = begin(&db).unwrap();
        std::fs::write(p.bitcode(), b"not yet").unwrap();
        assert_eq!(queued(&db), 0, "bitcode alone is no job");
        p.commit("x.c").unwrap();
        assert_eq!(queued(&db), 1);
        let units = queued_units(&db).unwrap();
        assert_eq!(units[0].source, "x.c");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir_of(&db)).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        units[0].done();
        assert_eq!(queued(&db), 0);
    }

    #[test]
    fn waiting_drains_what_no_drainer_took_and_shows_warnings_once() {
        let d = tempfile::tempdir().unwrap();
        let db = d.path().join("static.db");
        let p = begin(&db).unwrap();
        std::fs::write(p.bitcode(), b"x").unwrap();
        p.commit("a.c").unwrap();
        let mut told = 0;
        let warnings = wait(
            &db,
            |n| told = n,
            |_lock| {
                assert!(try_lock(&db).unwrap().is_none(), "one drainer at a time");
                for u in queued_units(&db)? {
                    log_warning(&db, &format!("no summary for {}", u.source))?;
                    u.done();
                }
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(told, 1);
        assert_eq!(queued(&db), 0);
        assert_eq!(warnings, ["no summary for a.c"]);
        let again = wait(&db, |_| panic!("nothing queued"), |_| panic!("no drain")).unwrap();
        assert!(again.is_empty(), "shown once");
    }

    #[test]
    fn no_queue_no_wait() {
        let d = tempfile::tempdir().unwrap();
        let db = d.path().join("static.db");
        assert!(wait(&db, |_| panic!("nothing to wait for"), |_| Ok(()))
            .unwrap()
            .is_empty());
        assert!(!dir_of(&db).exists(), "waiting creates nothing");
    }

    #[test]
    fn an_older_db_is_named_with_what_to_do() {
        let d = tempfile::tempdir().unwrap();
        let db = d.path().join("static.db");
        assert!(check_db(&db).is_ok(), "no db yet is fine");
        let mut old = b"BLAMESDB".to_vec();
        old.extend_from_slice(&1u32.to_le_bytes());
        old.extend_from_slice(&0u32.to_le_bytes());
        std::fs::write(&db, &old).unwrap();
        let e = check_db(&db).unwrap_err().to_string();
        assert!(e.contains("older blame") && e.contains("delete it"), "{e}");
    }
}
