//! The output directory of a recording made ready and locked
//! ([`prepare_dir`]): checked from `/`, the user's own, writable, used by
//! no other recorder or reader, and an earlier recording in it (with the
//! results computed from it) replaced only when forced.

use crate::{RecordError, UsageError};
use blame_formats::files;
use blame_formats::lock::RunDirLock;
use blame_formats::run_dir;
use std::path::Path;

/// Makes `dir` ready for a recording and locks it: a directory of the
/// user's own where files can be created, used by no other recorder or
/// reader, without an earlier recording unless `force` (or this recorder is
/// MPI rank `rank` of a job whose ranks share the directory).
pub(super) fn prepare_dir(
    dir: &Path,
    force: bool,
    rank: Option<u32>,
) -> Result<RunDirLock, RecordError> {
    let io = |error| RecordError::Io {
        path: dir.to_path_buf(),
        error,
    };
    // Walked from `/` and made component by component, every parent
    // checked: a parent another user owns (or may write) could be swapped
    // for a link to root's files while the recording runs.
    files::open_dir_checked(dir, true).map_err(|e| {
        if files::is_unsafe_path(&e) {
            RecordError::Usage(UsageError::OutputDir(e))
        } else {
            io(e)
        }
    })?;
    // Another user's directory: its owner could swap the preloaded
    // allocation tracer or plant files before they are used.
    files::check_own_dir(dir).map_err(|e| RecordError::Usage(UsageError::OutputDir(e)))?;
    files::check_writable_dir(dir).map_err(|e| {
        // A path longer than the system allows (a relative -o under a deep
        // working directory): say how long and what to do.
        let why = if e.raw_os_error() == Some(libc::ENAMETOOLONG) {
            let full = std::env::current_dir()
                .map(|cwd| cwd.join(dir))
                .unwrap_or_else(|_| dir.to_path_buf());
            format!(
                "its path is {} bytes, longer than the system allows (PATH_MAX {}): record to a shorter -o path (an absolute one such as /tmp/run)",
                full.as_os_str().len(),
                libc::PATH_MAX
            )
        } else {
            e.to_string()
        };
        io(std::io::Error::new(
            e.kind(),
            format!("cannot create files here: {why}"),
        ))
    })?;
    let lock = RunDirLock::record(dir, rank).map_err(|e| match e.kind() {
        std::io::ErrorKind::WouldBlock => RecordError::Busy(e),
        _ => io(e),
    })?;
    if rank.is_some() {
        // One recorder per rank shares the directory: names never collide.
        return Ok(lock);
    }
    let old = run_dir::recording_files(dir).map_err(io)?;
    if old.is_empty() {
        return Ok(lock);
    }
    if !force {
        return Err(RecordError::Usage(UsageError::HoldsRecording {
            dir: dir.to_path_buf(),
            files: old.len(),
        }));
    }
    // Results computed from the recording being replaced are stale too.
    let results = run_dir::results_files(dir).map_err(io)?;
    for p in old.into_iter().chain(results) {
        std::fs::remove_file(&p).map_err(|error| RecordError::Io { path: p, error })?;
    }
    Ok(lock)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_in_use_or_holding_a_recording_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let run = d.path().join("run");
        let lock = prepare_dir(&run, false, None).unwrap();
        match prepare_dir(&run, true, None) {
            Err(RecordError::Busy(m)) => {
                assert!(m.to_string().contains("another `blame record`"), "{m}")
            }
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("a second recorder got the directory"),
        }
        drop(lock);
        std::fs::write(run.join("pid-1.bstream"), b"").unwrap();
        match prepare_dir(&run, false, None) {
            Err(RecordError::Usage(m)) => assert!(m.to_string().contains("--force"), "{m}"),
            _ => panic!("an earlier recording is kept"),
        }
        prepare_dir(&run, true, None).unwrap();
        assert!(!run.join("pid-1.bstream").exists());
    }

    /// `--force` replaces a recording with everything computed from it.
    #[test]
    fn force_removes_the_results_of_the_replaced_recording() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for f in [
            "pid-1.bstream",
            "manifest.json",
            "results.bres",
            "results.bres.shard-0-of-2",
            "notes.txt",
        ] {
            std::fs::write(d.join(f), b"x").unwrap();
        }
        assert!(matches!(
            prepare_dir(d, false, None),
            Err(RecordError::Usage(_))
        ));
        let _lock = prepare_dir(d, true, None).unwrap();
        for gone in [
            "pid-1.bstream",
            "manifest.json",
            "results.bres",
            "results.bres.shard-0-of-2",
        ] {
            assert!(!d.join(gone).exists(), "{gone}");
        }
        assert!(d.join("notes.txt").exists());
    }
}
