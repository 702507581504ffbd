//! The analysis queue of a static db: how `blame cc` keeps the analysis off
//! the compile's critical path.
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

use crate::{analyze_named_into_db, StaticError};
use blame_formats::files;
use blame_formats::lock::WriterLock;
use serde::{Deserialize, Serialize};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Units analyzed in one batch (one db read–merge–write each).
const BATCH: usize = 64;
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

fn create_private_dir(dir: &Path) -> io::Result<()> {
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

/// Fails when the db at `db` exists but cannot take summaries (damaged, or
/// written by an older blame): checked by `blame cc` before it queues, so
/// the build shows the reason at once.
pub fn check_db(db: &Path) -> Result<(), StaticError> {
    if !db.exists() {
        return Ok(());
    }
    match blame_formats::static_db::StaticDb::read_header(db) {
        Ok(_) => Ok(()),
        Err(blame_formats::error::FormatError::UnsupportedVersion {
            found, supported, ..
        }) if found < supported => Err(StaticError::OlderDb {
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

/// What a drain did.
#[derive(Debug, Default)]
pub struct Drained {
    /// Units whose summaries are now in the db.
    pub units: usize,
    /// Units that got no summary (their warnings are in `warnings.log`).
    pub failed: usize,
}

/// How a drainer shares the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// Somebody waits for the db: all cores, no pause.
    Now,
    /// In the background of a build: one thread, and only while a core is
    /// free, until somebody waits (the `hurry` marker); lingers a little
    /// when the queue runs dry, as the next compile is likely to come.
    Background,
}

/// Does every core have a runnable task besides us (`/proc/loadavg`'s
/// count of runnable tasks, which includes the reader)?
fn cores_busy() -> bool {
    let Ok(text) = std::fs::read_to_string("/proc/loadavg") else {
        return false;
    };
    let runnable = text
        .split_whitespace()
        .nth(3)
        .and_then(|f| f.split('/').next())
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(1);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    runnable.saturating_sub(1) >= cores
}

/// How long a background drainer waits for more work before it leaves.
const LINGER: Duration = Duration::from_secs(2);
const PAUSE: Duration = Duration::from_millis(100);

/// Analyzes everything queued for `db` into it, while holding `lock` (from
/// [`try_lock`]); releases the lock and returns when the queue stays empty.
pub fn drain(db: &Path, lock: WriterLock, pace: Pace) -> io::Result<Drained> {
    let dir = dir_of(db);
    let hurry = dir.join("hurry");
    let mut done = Drained::default();
    let mut lock = Some(lock);
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(io::Error::other)?;
    let mut idle_since = std::time::Instant::now();
    loop {
        let pending = jobs(&dir)?;
        let hurried = pace == Pace::Now || hurry.exists();
        if pending.is_empty() {
            if !hurried && idle_since.elapsed() < LINGER {
                std::thread::sleep(PAUSE);
                continue;
            }
            // Leave, then look once more: a unit queued while we were
            // leaving has either its own drainer or us.
            let _ = std::fs::remove_file(&hurry);
            drop(lock.take());
            if jobs(&dir)?.is_empty() {
                break;
            }
            match try_lock(db)? {
                Some(l) => lock = Some(l),
                None => break,
            }
            continue;
        }
        if hurried {
            for batch in pending.chunks(BATCH) {
                drain_batch(db, &dir, batch, &mut done)?;
            }
        } else if cores_busy() {
            std::thread::sleep(PAUSE);
        } else {
            let batch = &pending[..pending.len().min(4)];
            one_thread.install(|| drain_batch(db, &dir, batch, &mut done))?;
        }
        idle_since = std::time::Instant::now();
    }
    remove_orphans(&dir);
    Ok(done)
}

/// One batch: all at once (one db update), or one by one when the batch
/// fails, so a bad unit names itself and spares the others.
fn drain_batch(db: &Path, dir: &Path, batch: &[PathBuf], done: &mut Drained) -> io::Result<()> {
    let mut units = Vec::new();
    for job_path in batch {
        let job: Option<Job> = std::fs::read(job_path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        match job {
            Some(job) => units.push((job_path.with_extension("bc"), job.source, job_path)),
            None => {
                // A job file nobody can read is dropped, with its bitcode.
                let _ = std::fs::remove_file(job_path.with_extension("bc"));
                let _ = std::fs::remove_file(job_path);
            }
        }
    }
    let inputs: Vec<(PathBuf, String)> = units
        .iter()
        .map(|(bc, src, _)| (bc.clone(), src.clone()))
        .collect();
    match analyze_named_into_db(&inputs, db) {
        Ok(_) => done.units += inputs.len(),
        Err(_) if inputs.len() > 1 => {
            for input in &inputs {
                match analyze_named_into_db(std::slice::from_ref(input), db) {
                    Ok(_) => done.units += 1,
                    Err(e) => {
                        done.failed += 1;
                        warn(dir, &input.1, &e, &input.0)?;
                    }
                }
            }
        }
        Err(e) => {
            done.failed += inputs.len();
            if let Some(input) = inputs.first() {
                warn(dir, &input.1, &e, &input.0)?;
            }
        }
    }
    for (bc, _, job) in &units {
        let _ = std::fs::remove_file(bc);
        let _ = std::fs::remove_file(job);
    }
    Ok(())
}

/// The warning of a unit that got no summary, in the words `blame cc`
/// would have printed: naming the source, never the queued bitcode.
pub fn warning_text(source: &str, e: &StaticError, bitcode: &Path) -> String {
    let msg = e.to_string().replace(&bitcode.display().to_string(), source);
    let msg = msg
        .strip_prefix(&format!("{source}: "))
        .unwrap_or(&msg)
        .to_string();
    format!("blame cc: warning: no blame summary for {source}: {msg}")
}

fn warn(dir: &Path, source: &str, e: &StaticError, bitcode: &Path) -> io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .open(dir.join("warnings.log"))?;
    writeln!(f, "{}", warning_text(source, e, bitcode))
}

/// Bitcode without a job (or half written: `.part`), left by a `blame cc`
/// killed during its compile.
fn remove_orphans(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
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
pub fn wait(db: &Path, mut waiting: impl FnMut(usize)) -> io::Result<Vec<String>> {
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
                drain(db, lock, Pace::Now)?;
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
        let mode = std::fs::metadata(dir_of(&db)).unwrap();
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(mode.permissions().mode() & 0o777, 0o700);
    }

    #[test]
    fn a_bad_unit_is_a_warning_naming_its_source_and_spares_the_others() {
        let d = tempfile::tempdir().unwrap();
        let db = d.path().join("static.db");
        let bad = begin(&db).unwrap();
        std::fs::write(bad.bitcode(), b"garbage, not bitcode").unwrap();
        bad.commit("src/bad.c").unwrap();
        let lock = try_lock(&db).unwrap().expect("no drainer runs");
        assert!(try_lock(&db).unwrap().is_none(), "one drainer at a time");
        let done = drain(&db, lock, Pace::Now).unwrap();
        assert_eq!((done.units, done.failed), (0, 1));
        assert_eq!(queued(&db), 0, "the job is gone");
        let warnings = wait(&db, |_| panic!("nothing queued")).unwrap();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains("src/bad.c") && !warnings[0].contains(".bc"),
            "{warnings:?}"
        );
        assert!(wait(&db, |_| {}).unwrap().is_empty(), "shown once");
    }

    #[test]
    fn waiting_drains_what_no_drainer_took() {
        let d = tempfile::tempdir().unwrap();
        let db = d.path().join("static.db");
        let p = begin(&db).unwrap();
        std::fs::write(p.bitcode(), b"x").unwrap();
        p.commit("a.c").unwrap();
        let mut told = 0;
        let warnings = wait(&db, |n| told = n).unwrap();
        assert_eq!(told, 1);
        assert_eq!(queued(&db), 0);
        assert_eq!(warnings.len(), 1, "not bitcode: {warnings:?}");
    }

    #[test]
    fn no_queue_no_wait() {
        let d = tempfile::tempdir().unwrap();
        let db = d.path().join("static.db");
        assert!(wait(&db, |_| panic!("nothing to wait for"))
            .unwrap()
            .is_empty());
        assert!(!dir_of(&db).exists(), "waiting creates nothing");
    }
}
