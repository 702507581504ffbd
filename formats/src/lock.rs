//! File locks (`flock`): the static db's writer lock and the run directory
//! lock that keeps two recorders, or a recorder and a reader, apart.
//!
//! A run directory is locked on the directory itself, so a plain recording
//! leaves no lock file behind:
//!
//! | who | the directory | `.blame-rank-N.lock` |
//! |---|---|---|
//! | `blame record` | exclusive | |
//! | `blame record` as MPI rank N (one recorder per rank) | shared | exclusive |
//! | post, report, dump | shared | checked, not held |
//!
//! One recorder excludes everything; the recorders of one job's ranks share
//! the directory but not a rank; readers share it with each other, and are
//! refused while any recorder writes it. (A rank's recorder that starts
//! while a reader already reads is not refused: the reader listed the
//! streams before it started.) Who holds a lock is read from /proc/locks.

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg, OFlag};
use procfs_core::FromBufRead;
use procfs_core::{LockKind, LockType, Locks};
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

fn rank_file(rank: u32) -> String {
    format!(".blame-rank-{rank}.lock")
}

/// Opens (creating when `create`) a lock file: never through a symlink,
/// never blocking on a FIFO, only a regular file. Errors do not name `path`.
fn open_lock_file(path: &Path, create: bool) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.read(true)
        .custom_flags((OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK).bits())
        .mode(0o644);
    if create {
        o.write(true).create(true);
    }
    let file = o.open(path).map_err(|e| {
        if e.raw_os_error() == Some(Errno::ELOOP as i32) {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "a symbolic link, not a lock file; remove it",
            )
        } else {
            e
        }
    })?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file, not a lock file; remove it",
        ));
    }
    Ok(file)
}

/// [`open_lock_file`] with errors that name `path`.
fn open_named(path: &Path, create: bool) -> io::Result<File> {
    open_lock_file(path, create)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

/// A lock taken without waiting: Err(file) when another process holds it.
fn try_lock(file: File, arg: FlockArg) -> io::Result<Result<Flock<File>, File>> {
    match Flock::lock(file, arg) {
        Ok(l) => Ok(Ok(l)),
        Err((f, Errno::EWOULDBLOCK)) => Ok(Err(f)),
        Err((_, e)) => Err(io::Error::from(e)),
    }
}

fn busy(text: String) -> io::Error {
    io::Error::new(io::ErrorKind::WouldBlock, text)
}

/// The processes holding a flock on `file` (from /proc/locks): `(pid,
/// exclusive)`, without this process.
fn holders(file: &File) -> Vec<(u32, bool)> {
    let Ok(m) = file.metadata() else {
        return Vec::new();
    };
    let dev = m.dev();
    // glibc's encoding of dev_t.
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    let me = std::process::id();
    let Ok(text) = std::fs::read_to_string("/proc/locks") else {
        return Vec::new();
    };
    // Lines with `->` are processes waiting for a lock, not holding it; a
    // line at a time, so one that does not parse costs only itself.
    let mut out: Vec<(u32, bool)> = text
        .lines()
        .filter(|l| !l.contains("->"))
        .filter_map(|l| Locks::from_buf_read(l.as_bytes()).ok())
        .flat_map(|Locks(locks)| locks)
        .filter(|l| {
            l.lock_type == LockType::FLock
                && (u64::from(l.devmaj), u64::from(l.devmin), l.inode) == (major, minor, m.ino())
        })
        .filter_map(|l| {
            Some((
                u32::try_from(l.pid?).ok()?,
                matches!(l.kind, LockKind::Write),
            ))
        })
        .filter(|(pid, _)| *pid != me)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// A process for messages: "pid N (`blame post run`)".
fn describe(pid: u32) -> String {
    let cmd = std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| {
            b.split(|&c| c == 0)
                .filter(|a| !a.is_empty())
                .take(4)
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    if cmd.is_empty() {
        format!("pid {pid}")
    } else {
        format!("pid {pid} (`{cmd}`)")
    }
}

/// " (pid N)" of the process holding `file` exclusively, if it can be told.
fn writer(file: &File) -> String {
    match holders(file).iter().find(|(_, ex)| *ex) {
        Some((pid, _)) => format!(" (pid {pid})"),
        None => String::new(),
    }
}

/// Ranks whose recorder holds its lock in `dir` now.
fn ranks_recording(dir: &Path) -> io::Result<Vec<u32>> {
    let mut ranks = Vec::new();
    for e in std::fs::read_dir(dir)?.filter_map(Result::ok) {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(rank) = name
            .strip_prefix(".blame-rank-")
            .and_then(|r| r.strip_suffix(".lock"))
            .and_then(|r| r.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(f) = open_named(&e.path(), false) else {
            continue;
        };
        if try_lock(f, FlockArg::LockSharedNonblock)?.is_err() {
            ranks.push(rank);
        }
    }
    ranks.sort();
    Ok(ranks)
}

/// Opens `dir` to lock it; errors do not name it.
fn open_dir(dir: &Path) -> io::Result<File> {
    let f = File::open(dir)?;
    if !f.metadata()?.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a directory",
        ));
    }
    Ok(f)
}

/// A run directory's lock, held until dropped.
#[derive(Debug)]
pub struct RunDirLock {
    _held: Vec<Flock<File>>,
}

impl RunDirLock {
    /// For a recorder writing `dir`, alone or as MPI rank `rank` beside the
    /// other ranks' recorders. Refused (ErrorKind::WouldBlock, saying who
    /// holds it) while another recorder or a reader uses the directory.
    pub fn record(dir: &Path, rank: Option<u32>) -> io::Result<RunDirLock> {
        let d = dir.display();
        let main = open_dir(dir)?;
        let Some(r) = rank else {
            return match try_lock(main, FlockArg::LockExclusiveNonblock)? {
                Ok(l) => Ok(RunDirLock { _held: vec![l] }),
                Err(f) => Err(match try_lock(f, FlockArg::LockSharedNonblock)? {
                    Err(f) => busy(format!(
                        "another `blame record`{} is recording into {d}; wait for it to end or choose another -o",
                        writer(&f)
                    )),
                    Ok(l) => {
                        let ranks = ranks_recording(dir)?;
                        if ranks.is_empty() {
                            let readers: Vec<String> =
                                holders(&l).iter().map(|(p, _)| describe(*p)).collect();
                            busy(format!(
                                "{d} is being read{}; wait for it to end or choose another -o",
                                if readers.is_empty() {
                                    String::new()
                                } else {
                                    format!(" by {}", readers.join(", "))
                                }
                            ))
                        } else {
                            busy(format!(
                                "the recorders of MPI ranks {ranks:?} are recording into {d}; choose another -o"
                            ))
                        }
                    }
                }),
            };
        };
        let own = open_named(&dir.join(rank_file(r)), true)?;
        let own = try_lock(own, FlockArg::LockExclusiveNonblock)?.map_err(|f| {
            busy(format!(
                "another recorder of MPI rank {r}{} is recording into {d}; two jobs cannot share one -o",
                writer(&f)
            ))
        })?;
        let main = try_lock(main, FlockArg::LockSharedNonblock)?.map_err(|f| {
            busy(format!(
                "a `blame record`{} is recording into {d}; choose another -o",
                writer(&f)
            ))
        })?;
        Ok(RunDirLock {
            _held: vec![own, main],
        })
    }

    /// For a reader of `dir` (post, report, dump): refused while a recorder
    /// writes it.
    pub fn read(dir: &Path) -> io::Result<RunDirLock> {
        let d = dir.display();
        let main = try_lock(open_dir(dir)?, FlockArg::LockSharedNonblock)?.map_err(|f| {
            busy(format!(
                "`blame record`{} is still recording into {d}; its streams are incomplete until it ends",
                writer(&f)
            ))
        })?;
        let ranks = ranks_recording(dir)?;
        if !ranks.is_empty() {
            return Err(busy(format!(
                "the recorders of MPI ranks {ranks:?} are still recording into {d}; their streams are incomplete until they end"
            )));
        }
        Ok(RunDirLock { _held: vec![main] })
    }
}

/// An exclusive lock on `path` (a lock file beside what it guards), waiting
/// for the holder: writers of one static db take turns.
#[derive(Debug)]
pub struct WriterLock {
    _held: Flock<File>,
    pub path: PathBuf,
}

impl WriterLock {
    /// Takes the lock, waiting while another process holds it; errors do
    /// not name `path`.
    pub fn wait(path: &Path) -> io::Result<WriterLock> {
        let f = open_lock_file(path, true)?;
        let held = Flock::lock(f, FlockArg::LockExclusive).map_err(|(_, e)| io::Error::from(e))?;
        Ok(WriterLock {
            _held: held,
            path: path.to_path_buf(),
        })
    }

    /// Takes the lock if nobody holds it: `None` while another process
    /// does. Errors do not name `path`.
    pub fn try_take(path: &Path) -> io::Result<Option<WriterLock>> {
        let f = open_lock_file(path, true)?;
        Ok(try_lock(f, FlockArg::LockExclusiveNonblock)?
            .ok()
            .map(|held| WriterLock {
                _held: held,
                path: path.to_path_buf(),
            }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_recorder_is_refused_and_readers_wait_for_the_end() {
        let d = tempfile::tempdir().unwrap();
        let a = RunDirLock::record(d.path(), None).unwrap();
        // flock locks belong to open files: a second open is a second holder.
        let e = RunDirLock::record(d.path(), None).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::WouldBlock);
        assert!(
            e.to_string()
                .contains("another `blame record` is recording"),
            "{e}"
        );
        let e = RunDirLock::read(d.path()).unwrap_err();
        assert!(e.to_string().contains("still recording"), "{e}");
        drop(a);
        RunDirLock::read(d.path()).unwrap();
        assert_eq!(
            std::fs::read_dir(d.path()).unwrap().count(),
            0,
            "no lock file"
        );
    }

    #[test]
    fn readers_share_and_keep_recorders_out() {
        let d = tempfile::tempdir().unwrap();
        let r1 = RunDirLock::read(d.path()).unwrap();
        let r2 = RunDirLock::read(d.path()).unwrap();
        let e = RunDirLock::record(d.path(), None).unwrap_err();
        assert!(e.to_string().contains("is being read"), "{e}");
        drop((r1, r2));
        RunDirLock::record(d.path(), None).unwrap();
    }

    #[test]
    fn ranks_share_a_directory_but_not_a_rank() {
        let d = tempfile::tempdir().unwrap();
        let _r0 = RunDirLock::record(d.path(), Some(0)).unwrap();
        let _r1 = RunDirLock::record(d.path(), Some(1)).unwrap();
        let e = RunDirLock::record(d.path(), Some(1)).unwrap_err();
        assert!(e.to_string().contains("rank 1"), "{e}");
        let e = RunDirLock::record(d.path(), None).unwrap_err();
        assert!(e.to_string().contains("ranks [0, 1]"), "{e}");
        let e = RunDirLock::read(d.path()).unwrap_err();
        assert!(e.to_string().contains("ranks [0, 1]"), "{e}");
    }

    #[test]
    fn a_planted_symlink_at_a_rank_lock_is_not_followed() {
        let d = tempfile::tempdir().unwrap();
        let victim = d.path().join("victim");
        std::os::unix::fs::symlink(&victim, d.path().join(rank_file(0))).unwrap();
        let e = RunDirLock::record(d.path(), Some(0)).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(!victim.exists(), "nothing created through the link");
    }

    #[test]
    fn the_db_writer_lock_refuses_a_symlink() {
        let d = tempfile::tempdir().unwrap();
        let victim = d.path().join("victim");
        let lock = d.path().join("static.lock");
        std::os::unix::fs::symlink(&victim, &lock).unwrap();
        let e = WriterLock::wait(&lock).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(!victim.exists());
    }
}
