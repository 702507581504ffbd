//! How blame creates and opens files, safely on a machine shared with other
//! users. Every file blame writes goes through here:
//!
//! - [`AtomicFile`]: a new temporary file beside the target (`O_CREAT|O_EXCL|
//!   O_NOFOLLOW` under a random name, so never a planted symlink or another
//!   user's file), fsynced and renamed over the target on
//!   [`commit`](AtomicFile::commit); removed when dropped uncommitted (a full
//!   disk leaves no `.tmp` behind). Readers see the old file or the new one.
//! - [`create_new`]: a file that must not exist yet (sample streams).
//! - [`private_temp_dir`], [`private_temp_file`]: a 0700 directory or a 0600
//!   file with a random name in `$TMPDIR`.
//! - [`check_own_dir`]: a directory blame writes into must be the user's own.
//! - [`open_regular`]: inputs are opened without blocking and must be regular
//!   files (a FIFO named `x.bstream` is refused instead of hanging).
//!
//! Locks of run directories and the static db are in [`crate::lock`].

use nix::fcntl::OFlag;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The directory a file named `path` lives in (`.` for a bare name).
pub fn parent_dir(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// A file being written beside its final path; see the module doc.
pub struct AtomicFile {
    out: BufWriter<File>,
    /// Removes the temporary file when dropped uncommitted.
    tmp: tempfile::TempPath,
    path: PathBuf,
}

impl AtomicFile {
    /// A new file that will replace `path` on commit, with the usual
    /// permissions (0666 less the umask).
    pub fn create(path: impl AsRef<Path>) -> io::Result<AtomicFile> {
        Self::with_mode(path, 0o666)
    }

    /// As [`create`](Self::create), with `mode` (less the umask).
    pub fn with_mode(path: impl AsRef<Path>, mode: u32) -> io::Result<AtomicFile> {
        let path = path.as_ref();
        let name = path.file_name().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} names no file", path.display()),
            )
        })?;
        let prefix = format!(".{}.", name.to_string_lossy());
        let tmp = tempfile::Builder::new()
            .prefix(&prefix)
            .suffix(".tmp")
            .make_in(parent_dir(path), |p| {
                OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .custom_flags(OFlag::O_NOFOLLOW.bits())
                    .mode(mode)
                    .open(p)
            })?;
        // The file itself, not NamedTempFile's writer, whose errors name the
        // temporary path: messages name the target.
        let (file, tmp) = tmp.into_parts();
        Ok(AtomicFile {
            out: BufWriter::with_capacity(1 << 16, file),
            tmp,
            path: path.to_path_buf(),
        })
    }

    /// The path the file will have once committed.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes, fsyncs, renames over the target and fsyncs its directory.
    /// On error the temporary file is removed and the target left as it was.
    pub fn commit(self) -> io::Result<()> {
        let file = self.out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        self.tmp.persist(&self.path).map_err(|e| e.error)?;
        // The rename itself reaches the disk with the directory.
        if let Ok(dir) = File::open(parent_dir(&self.path)) {
            let _ = dir.sync_all();
        }
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.out.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Writes `bytes` to `path` atomically (see [`AtomicFile`]).
pub fn write_atomic(path: impl AsRef<Path>, bytes: &[u8]) -> io::Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes)?;
    f.commit()
}

/// Creates `path`, failing if anything (a file, a symlink) is there already.
pub fn create_new(path: impl AsRef<Path>) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(OFlag::O_NOFOLLOW.bits())
        .open(path)
}

/// What a non-regular file is, for messages.
fn kind_name(t: std::fs::FileType) -> &'static str {
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else {
        "not a regular file"
    }
}

/// Opens `path` for reading. It is opened without blocking (opening a FIFO
/// would wait for a writer) and refused unless it is a regular file.
pub fn open_regular(path: impl AsRef<Path>) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(OFlag::O_NONBLOCK.bits())
        .open(path)?;
    let t = file.metadata()?.file_type();
    if !t.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a regular file ({})", kind_name(t)),
        ));
    }
    // O_NONBLOCK does nothing to reads of a regular file.
    Ok(file)
}

/// The effective user's id.
pub fn my_uid() -> u32 {
    nix::unistd::geteuid().as_raw()
}

/// `uid`'s user name, or `uid N`.
pub fn user_name(uid: u32) -> String {
    match nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid)) {
        Ok(Some(u)) => format!("{} (uid {uid})", u.name),
        _ => format!("uid {uid}"),
    }
}

/// Refuses a directory that another user could put files into: one owned
/// by someone else, or writable by every user. The error says why.
pub fn check_own_dir(dir: &Path) -> io::Result<()> {
    let m = std::fs::metadata(dir)?;
    let me = my_uid();
    if m.uid() != me {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} belongs to {}, not to you ({}): its owner could replace what blame writes there before it is used; choose a directory of your own",
                dir.display(),
                user_name(m.uid()),
                user_name(me)
            ),
        ));
    }
    if m.mode() & 0o002 != 0 {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} is writable by every user (mode {:04o}): another user could plant files blame then uses; chmod o-w it or choose another directory",
                dir.display(),
                m.mode() & 0o7777
            ),
        ));
    }
    Ok(())
}

/// Fails unless files can be created in `dir` (a read-only directory or
/// file system, a full disk of inodes): one clear error before any work.
pub fn check_writable_dir(dir: &Path) -> io::Result<()> {
    tempfile::Builder::new()
        .prefix(".blame-probe.")
        .make_in(dir, |p| {
            OpenOptions::new()
                .write(true)
                .create_new(true)
                .custom_flags(OFlag::O_NOFOLLOW.bits())
                .open(p)
        })
        .map(drop)
}

/// A new file holding `bytes` in the temporary directory, private to the
/// user (mode 0600, random name `PREFIX…SUFFIX`, created with
/// `O_EXCL|O_NOFOLLOW`), removed when the returned path is dropped: input
/// for another program (Extra-P).
pub fn private_temp_file(
    prefix: &str,
    suffix: &str,
    bytes: &[u8],
) -> io::Result<tempfile::TempPath> {
    let mut f = tempfile::Builder::new()
        .prefix(prefix)
        .suffix(suffix)
        .make_in(std::env::temp_dir(), |p| {
            OpenOptions::new()
                .write(true)
                .create_new(true)
                .custom_flags(OFlag::O_NOFOLLOW.bits())
                .mode(0o600)
                .open(p)
        })?;
    f.write_all(bytes)?;
    f.as_file().sync_all()?;
    Ok(f.into_temp_path())
}

/// A new private directory (mode 0700, random name) in the temporary
/// directory, removed when dropped. Its name starts with `prefix` and this
/// process's id, so [`remove_stale_temp_dirs`] can tell a dead process's.
pub fn private_temp_dir(prefix: &str) -> io::Result<tempfile::TempDir> {
    use std::os::unix::fs::PermissionsExt;
    tempfile::Builder::new()
        .prefix(&format!("{prefix}{}-", std::process::id()))
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir_in(std::env::temp_dir())
}

/// Removes this user's directories of [`private_temp_dir`]`(prefix)` whose
/// process is gone (killed before it could clean up) and that are older
/// than `min_age`. Returns how many were removed.
pub fn remove_stale_temp_dirs(prefix: &str, min_age: Duration) -> usize {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return 0;
    };
    let me = my_uid();
    let mut removed = 0;
    for e in entries.filter_map(Result::ok) {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix(prefix)
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        // Not following symlinks: only real directories of our own.
        let Ok(m) = e.path().symlink_metadata() else {
            continue;
        };
        let old = m
            .modified()
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age >= min_age);
        if m.is_dir()
            && m.uid() == me
            && old
            && pid != std::process::id()
            && !Path::new(&format!("/proc/{pid}")).exists()
            && std::fs::remove_dir_all(e.path()).is_ok()
        {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn an_atomic_file_appears_only_on_commit() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("out.bin");
        std::fs::write(&p, b"old").unwrap();
        let mut f = AtomicFile::create(&p).unwrap();
        f.write_all(b"new").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"old");
        f.commit().unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        assert_eq!(names(d.path()), ["out.bin"]);
    }

    #[test]
    fn an_uncommitted_file_leaves_nothing_behind() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("out.bin");
        let mut f = AtomicFile::create(&p).unwrap();
        f.write_all(b"half").unwrap();
        drop(f);
        assert!(names(d.path()).is_empty());
    }

    #[test]
    fn committing_replaces_a_symlink_instead_of_following_it() {
        let d = tempfile::tempdir().unwrap();
        let victim = d.path().join("victim");
        std::fs::write(&victim, b"secret").unwrap();
        let p = d.path().join("out.bin");
        std::os::unix::fs::symlink(&victim, &p).unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"secret");
        assert!(!p.symlink_metadata().unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
    }

    #[test]
    fn the_mode_is_kept() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("tool.so");
        let mut f = AtomicFile::with_mode(&p, 0o755).unwrap();
        f.write_all(b"x").unwrap();
        f.commit().unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode & 0o700, 0o700, "{mode:o}");
    }

    #[test]
    fn create_new_refuses_a_planted_symlink() {
        let d = tempfile::tempdir().unwrap();
        let victim = d.path().join("victim");
        std::fs::write(&victim, b"secret").unwrap();
        let p = d.path().join("pid-1.bstream");
        std::os::unix::fs::symlink(&victim, &p).unwrap();
        assert!(create_new(&p).is_err());
        assert_eq!(std::fs::read(&victim).unwrap(), b"secret");
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.bstream");
        nix::unistd::mkfifo(&p, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let e = open_regular(&p).unwrap_err();
        assert!(e.to_string().contains("a FIFO"), "{e}");
        let e = open_regular(d.path()).unwrap_err();
        assert!(e.to_string().contains("a directory"), "{e}");
    }

    #[test]
    fn a_world_writable_dir_is_refused() {
        let d = tempfile::tempdir().unwrap();
        check_own_dir(d.path()).unwrap();
        std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = check_own_dir(d.path()).unwrap_err();
        assert!(e.to_string().contains("writable by every user"), "{e}");
    }

    #[test]
    fn private_temp_files_are_0600_and_removed_when_dropped() {
        let p = private_temp_file("blame-unit-", ".txt", b"input").unwrap();
        let path = p.to_path_buf();
        assert_eq!(std::fs::read(&path).unwrap(), b"input");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        drop(p);
        assert!(!path.exists());
    }

    #[test]
    fn private_temp_dirs_are_0700_with_random_names() {
        let a = private_temp_dir("blame-unit-").unwrap();
        let b = private_temp_dir("blame-unit-").unwrap();
        assert_ne!(a.path(), b.path());
        let mode = std::fs::metadata(a.path()).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        let name = a.path().file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with(&format!("blame-unit-{}-", std::process::id())),
            "{name}"
        );
    }
}
