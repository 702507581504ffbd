//! The drain of a static db's analysis queue (its layout and bookkeeping
//! are `blame_formats::analysis_queue`): analyzes the units `blame cc`
//! queued, in batches, into the db. Runs in `blame-analyzer drain`, the
//! only process of the `blame cc` path that loads LLVM.

use crate::{analyze_named_into_db, StaticError};
use blame_formats::analysis_queue::{self as queue, QueuedUnit};
use blame_formats::lock::WriterLock;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Units analyzed in one batch (one db read–merge–write each) when hurried.
const BATCH: usize = 64;
/// Units of one batch in the background (between looks at the cores).
const BACKGROUND_BATCH: usize = 4;
/// How long a background drainer waits for more work before it leaves.
const LINGER: Duration = Duration::from_secs(2);
const PAUSE: Duration = Duration::from_millis(100);

/// What a drain did.
#[derive(Debug, Default)]
pub struct Drained {
    /// Units whose summaries are now in the db.
    pub units: usize,
    /// Units that got no summary (their warnings are in the queue's log).
    pub failed: usize,
}

/// How a drainer shares the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// Somebody waits for the db: all cores, no pause.
    Now,
    /// In the background of a build: one thread, and only while a core is
    /// free, until somebody waits (the `hurry` marker); lingers a little
    /// when the queue runs dry, as the next compile is likely to come. It
    /// runs at normal priority: an unprivileged process can lower its own
    /// priority but never raise it back, and priorities would invert as
    /// soon as somebody waits.
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

/// Analyzes everything queued for `db` into it, while holding `lock` (from
/// `analysis_queue::try_lock`); releases the lock and returns when the
/// queue stays empty.
pub fn drain(db: &Path, lock: WriterLock, pace: Pace) -> io::Result<Drained> {
    let mut done = Drained::default();
    let mut lock = Some(lock);
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(io::Error::other)?;
    let mut idle_since = Instant::now();
    loop {
        let pending = queue::queued_units(db)?;
        let hurried = pace == Pace::Now || queue::hurried(db);
        if pending.is_empty() {
            if !hurried && idle_since.elapsed() < LINGER {
                std::thread::sleep(PAUSE);
                continue;
            }
            // Leave, then look once more: a unit queued while we were
            // leaving has either its own drainer or us.
            queue::clear_hurry(db);
            drop(lock.take());
            if queue::queued(db) == 0 {
                break;
            }
            match queue::try_lock(db)? {
                Some(l) => lock = Some(l),
                None => break,
            }
            continue;
        }
        if hurried {
            for batch in pending.chunks(BATCH) {
                drain_batch(db, batch, &mut done)?;
            }
        } else if cores_busy() {
            std::thread::sleep(PAUSE);
        } else {
            let batch = &pending[..pending.len().min(BACKGROUND_BATCH)];
            one_thread.install(|| drain_batch(db, batch, &mut done))?;
        }
        idle_since = Instant::now();
    }
    queue::remove_orphans(db);
    Ok(done)
}

/// One batch: all at once (one db update), or one by one when the batch
/// fails, so a bad unit names itself and spares the others.
fn drain_batch(db: &Path, batch: &[QueuedUnit], done: &mut Drained) -> io::Result<()> {
    let inputs: Vec<(PathBuf, String)> = batch
        .iter()
        .map(|u| (u.bitcode.clone(), u.source.clone()))
        .collect();
    match analyze_named_into_db(&inputs, db) {
        Ok(up) => {
            done.units += inputs.len();
            for unit in &up.unreadable_units {
                queue::log_warning(
                    db,
                    &format!(
                        "not analyzed again (its kept IR is unreadable; build it again): {unit}"
                    ),
                )?;
            }
        }
        Err(_) if inputs.len() > 1 => {
            for input in &inputs {
                match analyze_named_into_db(std::slice::from_ref(input), db) {
                    Ok(_) => done.units += 1,
                    Err(e) => {
                        done.failed += 1;
                        queue::log_warning(db, &warning_text(&input.1, &e, &input.0))?;
                    }
                }
            }
        }
        Err(e) => {
            done.failed += inputs.len();
            if let Some(input) = inputs.first() {
                queue::log_warning(db, &warning_text(&input.1, &e, &input.0))?;
            }
        }
    }
    for u in batch {
        u.done();
    }
    Ok(())
}

/// The warning of a unit that got no summary, in the words `blame cc`
/// would have printed: naming the source, never the queued bitcode.
pub fn warning_text(source: &str, e: &StaticError, bitcode: &Path) -> String {
    let msg = e
        .to_string()
        .replace(&bitcode.display().to_string(), source);
    let msg = msg
        .strip_prefix(&format!("{source}: "))
        .unwrap_or(&msg)
        .to_string();
    format!("blame cc: warning: no blame summary for {source}: {msg}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_unit_is_a_warning_naming_its_source_and_spares_the_others() {
        let d = tempfile::tempdir().unwrap();
        let db = d.path().join("static.db");
        let bad = queue::begin(&db).unwrap();
        std::fs::write(bad.bitcode(), b"garbage, not bitcode").unwrap();
        bad.commit("src/bad.c").unwrap();
        let lock = queue::try_lock(&db).unwrap().expect("no drainer runs");
        assert!(
            queue::try_lock(&db).unwrap().is_none(),
            "one drainer at a time"
        );
        let done = drain(&db, lock, Pace::Now).unwrap();
        assert_eq!((done.units, done.failed), (0, 1));
        assert_eq!(queue::queued(&db), 0, "the job is gone");
        let warnings = queue::wait(&db, |_| panic!("nothing queued"), |_| Ok(())).unwrap();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains("src/bad.c") && !warnings[0].contains(".bc"),
            "{warnings:?}"
        );
    }
}
