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
    /// Listed among the temporaries a signal removes while it lives.
    _live: LiveTemp,
    out: BufWriter<File>,
    /// Removes the temporary file when dropped uncommitted (dropped before
    /// `dir`, whose descriptor its path goes through).
    tmp: tempfile::TempPath,
    /// The target's directory, walked and checked ([`open_dir_checked`]):
    /// the temporary file is made and renamed in it by descriptor.
    dir: File,
    /// The target's name in `dir`, through the descriptor.
    target: PathBuf,
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
        let dir = open_dir_checked(parent_dir(path), false)?;
        let through = fd_path(&dir);
        // Made and listed under the lock, so that a signal's removal (which
        // keeps the lock until the process exits) sees every temporary.
        let mut live = live_temps();
        let tmp = tempfile::Builder::new()
            .prefix(&prefix)
            .suffix(".tmp")
            .make_in(&through, |p| {
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
        let listed = LiveTemp::listed(&mut live, tmp.to_path_buf());
        drop(live);
        Ok(AtomicFile {
            _live: listed,
            out: BufWriter::with_capacity(1 << 16, file),
            tmp,
            target: through.join(name),
            dir,
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
        self.tmp.persist(&self.target).map_err(|e| e.error)?;
        // The rename itself reaches the disk with the directory.
        let _ = self.dir.sync_all();
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
/// Made in its directory by descriptor, the directory walked and checked
/// as [`open_dir_checked`] says.
pub fn create_new(path: impl AsRef<Path>) -> io::Result<File> {
    let path = path.as_ref();
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} names no file", path.display()),
        )
    })?;
    let dir = open_dir_checked(parent_dir(path), false)?;
    open_in(
        &dir,
        name,
        OpenOptions::new().write(true).create_new(true),
        0,
    )
}

/// The path of an open directory through its descriptor (`/proc/self/fd/N`).
fn fd_path(dir: &File) -> PathBuf {
    use std::os::fd::AsRawFd;
    PathBuf::from(format!("/proc/self/fd/{}", dir.as_raw_fd()))
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

/// The user files are checked for: this thread's file-system uid (the
/// daemon's `AsUser` sets it per thread), else the effective uid.
pub fn fs_uid() -> u32 {
    std::fs::read_to_string("/proc/thread-self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|v| v.split_whitespace().nth(3)?.parse().ok())
        })
        .unwrap_or_else(my_uid)
}

/// This thread's file-system gid, else the effective gid.
fn fs_gid() -> u32 {
    std::fs::read_to_string("/proc/thread-self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Gid:"))
                .and_then(|v| v.split_whitespace().nth(3)?.parse().ok())
        })
        .unwrap_or_else(|| nix::unistd::getegid().as_raw())
}

/// A path another user could redirect (see [`open_dir_checked`]).
#[derive(Debug)]
pub struct UnsafePath(pub String);

impl std::fmt::Display for UnsafePath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UnsafePath {}

fn denied(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, UnsafePath(message))
}

/// Whether `e` refuses a path another user could redirect (a usage error,
/// not a failure of the file system).
pub fn is_unsafe_path(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|i| i.is::<UnsafePath>())
}

/// Why another user than root and `me` could change what `dir` holds (its
/// owner, or who may write it), if anyone could. A sticky directory (`/tmp`)
/// lets others add names but not rename or remove ours.
fn unsafe_dir(dir: &Path, uid: u32, gid: u32, mode: u32, me: u32) -> Option<String> {
    if uid != 0 && uid != me {
        return Some(format!(
            "{} belongs to {}: its owner could swap what blame opens there for a symbolic link to another user's files; use a directory whose every parent belongs to you or root",
            dir.display(),
            user_name(uid)
        ));
    }
    let sticky = mode & 0o1000 != 0;
    if !sticky && mode & 0o002 != 0 {
        return Some(format!(
            "{} is writable by every user (mode {:04o}) and not sticky: another user could swap what blame opens there; chmod o-w (or +t) it or choose another directory",
            dir.display(),
            mode & 0o7777
        ));
    }
    if !sticky && mode & 0o020 != 0 && gid != 0 && gid != fs_gid() {
        return Some(format!(
            "{} is writable by its group (gid {gid}, mode {:04o}): another member could swap what blame opens there; chmod g-w it or choose another directory",
            dir.display(),
            mode & 0o7777
        ));
    }
    None
}

/// `name` (one path component) in the directory `dir` is open, opened with
/// `opts` and never through a symbolic link at `name` (`O_NOFOLLOW`): as
/// `openat(2)` does, through the directory's descriptor (`/proc/self/fd`),
/// so the directory cannot be swapped under the name.
pub fn open_in(
    dir: &File,
    name: &std::ffi::OsStr,
    opts: &mut OpenOptions,
    flags: i32,
) -> io::Result<File> {
    if name.is_empty() || name == "." || name == ".." || name.as_encoded_bytes().contains(&b'/') {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{name:?} is not a file name"),
        ));
    }
    opts.custom_flags(flags | OFlag::O_NOFOLLOW.bits() | OFlag::O_CLOEXEC.bits())
        .open(fd_path(dir).join(name))
}

/// Opens the directory `path` by walking it from `/` one component at a
/// time (`O_NOFOLLOW|O_DIRECTORY` at every step, each directory checked on
/// its open descriptor): every directory on the way, and `path` itself,
/// must belong to root or the caller ([`fs_uid`]) and be writable by no
/// one else (sticky directories such as `/tmp` excepted). A symbolic link
/// on the way is followed only when root or the caller made it (as the
/// kernel's `protected_symlinks`), and its target is walked the same way.
/// With `create`, missing directories are made (mode 0777 less the umask).
/// The directory returned cannot be swapped for another: files are then
/// made in it by descriptor ([`open_in`], [`AtomicFile`], [`create_new`]).
pub fn open_dir_checked(path: &Path, create: bool) -> io::Result<File> {
    use nix::sys::stat::{fstatat, mkdirat, Mode, SFlag};
    use std::collections::VecDeque;
    use std::os::fd::AsRawFd;
    let me = fs_uid();
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()?.join(path)
    };
    let dir_opts = || {
        let mut o = OpenOptions::new();
        o.read(true);
        o
    };
    let check = |f: &File, shown: &Path| -> io::Result<()> {
        let m = f.metadata()?;
        match unsafe_dir(shown, m.uid(), m.gid(), m.mode(), me) {
            Some(why) => Err(denied(why)),
            None => Ok(()),
        }
    };
    let root = open_root()?;
    check(&root, Path::new("/"))?;
    let mut cur = root;
    let mut shown = PathBuf::from("/");
    let mut todo: VecDeque<std::ffi::OsString> = abs
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(n) => Some(n.to_os_string()),
            std::path::Component::ParentDir => Some("..".into()),
            _ => None,
        })
        .collect();
    let mut links = 0;
    while let Some(name) = todo.pop_front() {
        if name == ".." {
            let up = open_in_dir(&cur, Path::new(".."))?;
            shown.pop();
            check(&up, &shown)?;
            cur = up;
            continue;
        }
        let here = shown.join(&name);
        let st = match fstatat(
            Some(cur.as_raw_fd()),
            name.as_os_str(),
            nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
        ) {
            Ok(st) => st,
            Err(nix::errno::Errno::ENOENT) if create => {
                match mkdirat(
                    Some(cur.as_raw_fd()),
                    name.as_os_str(),
                    Mode::from_bits_truncate(0o777),
                ) {
                    Ok(()) | Err(nix::errno::Errno::EEXIST) => {}
                    Err(e) => {
                        return Err(io::Error::new(
                            io::Error::from(e).kind(),
                            format!("cannot create {}: {e}", here.display()),
                        ))
                    }
                }
                todo.push_front(name);
                continue;
            }
            Err(e) => {
                let e = io::Error::from(e);
                return Err(io::Error::new(e.kind(), format!("{}: {e}", here.display())));
            }
        };
        let kind = SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT;
        if kind == SFlag::S_IFLNK {
            if st.st_uid != 0 && st.st_uid != me {
                return Err(denied(format!(
                    "{} is a symbolic link made by {}: blame does not follow another user's links; give the path it points to, if that is yours",
                    here.display(),
                    user_name(st.st_uid)
                )));
            }
            links += 1;
            if links > 40 {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{}: too many levels of symbolic links", here.display()),
                ));
            }
            let target = PathBuf::from(nix::fcntl::readlinkat(
                Some(cur.as_raw_fd()),
                name.as_os_str(),
            )?);
            if target.is_absolute() {
                cur = open_root()?;
                shown = PathBuf::from("/");
            }
            for c in target.components().rev() {
                match c {
                    std::path::Component::Normal(n) => todo.push_front(n.to_os_string()),
                    std::path::Component::ParentDir => todo.push_front("..".into()),
                    _ => {}
                }
            }
            continue;
        }
        if kind != SFlag::S_IFDIR {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                format!("{}: not a directory", here.display()),
            ));
        }
        let next = open_in(&cur, &name, &mut dir_opts(), OFlag::O_DIRECTORY.bits())
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", here.display())))?;
        check(&next, &here)?;
        cur = next;
        shown = here;
    }
    Ok(cur)
}

/// `..` (or another relative path) from an open directory.
fn open_in_dir(dir: &File, rel: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(OFlag::O_DIRECTORY.bits() | OFlag::O_CLOEXEC.bits())
        .open(fd_path(dir).join(rel))
}

fn open_root() -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(OFlag::O_DIRECTORY.bits() | OFlag::O_CLOEXEC.bits())
        .open("/")
}

/// Root working on run directories another user owns works with that
/// user's rights only: for the rest of the process, root becomes the owner
/// (groups, gid and uid; all threads, none started yet). A link the owner
/// planted in the run (to a root-only stream, `/etc/shadow`) is then opened
/// with the owner's rights, and what is written there (results) belongs to
/// the owner. Returns the owner taken on, if any; refuses runs of two
/// different users. Does nothing for other callers than root.
pub fn become_owner_of(dirs: &[&Path]) -> io::Result<Option<u32>> {
    use nix::unistd::{Gid, Uid};
    if !nix::unistd::geteuid().is_root() {
        return Ok(None);
    }
    let mut owner: Option<(u32, u32, &Path)> = None;
    for dir in dirs {
        // The link's owner as well as the directory's: either could be a
        // user's.
        let owners = [std::fs::symlink_metadata(dir), std::fs::metadata(dir)];
        for m in owners.into_iter().flatten() {
            if m.uid() == 0 {
                continue;
            }
            match owner {
                Some((u, _, first)) if u != m.uid() => {
                    return Err(denied(format!(
                        "{} belongs to {} and {} to {}: post, report and export runs of one user at a time",
                        first.display(),
                        user_name(u),
                        dir.display(),
                        user_name(m.uid())
                    )))
                }
                Some(_) => {}
                None => owner = Some((m.uid(), m.gid(), dir)),
            }
        }
    }
    let Some((uid, dir_gid, dir)) = owner else {
        return Ok(None);
    };
    let gid = match nix::unistd::User::from_uid(Uid::from_raw(uid)) {
        Ok(Some(u)) => u.gid,
        _ => Gid::from_raw(dir_gid),
    };
    let fail =
        |e: nix::errno::Errno| io::Error::other(format!("cannot become {}: {e}", user_name(uid)));
    nix::unistd::setgroups(&[gid]).map_err(fail)?;
    nix::unistd::setresgid(gid, gid, gid).map_err(fail)?;
    nix::unistd::setresuid(Uid::from_raw(uid), Uid::from_raw(uid), Uid::from_raw(uid))
        .map_err(fail)?;
    eprintln!(
        "blame: {} belongs to {}: working on it with that user's rights (root never reads or writes another user's run as root)",
        dir.display(),
        user_name(uid)
    );
    Ok(Some(uid))
}

/// Refuses to write `output` when it is one of `inputs` (the same file by
/// device and inode, not by name; an input's links followed, the output's
/// own name not, since writing replaces a link instead of following it):
/// `export -o RUN/node-HOST.bnode` would destroy the recording.
pub fn refuse_overwriting_inputs(output: &Path, inputs: &[PathBuf]) -> io::Result<()> {
    let Ok(out) = std::fs::symlink_metadata(output) else {
        return Ok(());
    };
    for input in inputs {
        let same = [std::fs::metadata(input), std::fs::symlink_metadata(input)]
            .into_iter()
            .flatten()
            .any(|m| m.dev() == out.dev() && m.ino() == out.ino());
        if same {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} is {}, an input of this command: writing it would destroy that input; choose another output",
                    output.display(),
                    if input == output {
                        "read by it".to_string()
                    } else {
                        format!("the same file as {}", input.display())
                    }
                ),
            ));
        }
    }
    Ok(())
}

/// The temporary files of [`AtomicFile`]s being written, by id.
static LIVE_TEMPS: std::sync::Mutex<Vec<(u64, PathBuf)>> = std::sync::Mutex::new(Vec::new());
static NEXT_TEMP: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A temporary file listed for [`remove_live_temporaries`] while it lives.
struct LiveTemp(u64);

/// The list of live temporaries (a panic while it was held leaves it as
/// it was: still the list).
fn live_temps() -> std::sync::MutexGuard<'static, Vec<(u64, PathBuf)>> {
    LIVE_TEMPS.lock().unwrap_or_else(|e| e.into_inner())
}

impl LiveTemp {
    /// Lists `path` in `live` (the locked list).
    fn listed(live: &mut Vec<(u64, PathBuf)>, path: PathBuf) -> LiveTemp {
        let id = NEXT_TEMP.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        live.push((id, path));
        LiveTemp(id)
    }
}

impl Drop for LiveTemp {
    fn drop(&mut self) {
        live_temps().retain(|(id, _)| *id != self.0);
    }
}

/// Removes the temporary files of every [`AtomicFile`] being written: what
/// a command does on SIGINT or SIGTERM before it dies of the signal (the
/// targets stay as they were). Returns how many were removed.
///
/// For a process about to exit: the list stays locked, so no other thread
/// makes a temporary after the removal (one being made when the signal
/// came is listed before the lock is free).
pub fn remove_live_temporaries() -> usize {
    let live = live_temps();
    let removed = live
        .iter()
        .filter(|(_, p)| std::fs::remove_file(p).is_ok())
        .count();
    std::mem::forget(live);
    removed
}

/// True when file metadata `m` was last modified at least `min_age` ago.
fn unchanged_for(m: &std::fs::Metadata, min_age: std::time::Duration) -> bool {
    m.modified()
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age >= min_age)
}

/// Removes the temporary files [`AtomicFile`] left beside `target` when a
/// process writing it was killed (`.NAME.XXXXXX.tmp`): the caller's own
/// regular files, unchanged for `min_age` (a writer still running keeps
/// its file fresh). Returns how many were removed.
pub fn remove_stale_temporaries(target: &Path, min_age: Duration) -> usize {
    let Some(name) = target.file_name() else {
        return 0;
    };
    let prefix = format!(".{}.", name.to_string_lossy());
    let Ok(dir) = open_dir_checked(parent_dir(target), false) else {
        return 0;
    };
    let Ok(entries) = std::fs::read_dir(fd_path(&dir)) else {
        return 0;
    };
    let me = fs_uid();
    let mut removed = 0;
    for e in entries.filter_map(Result::ok) {
        let n = e.file_name().to_string_lossy().into_owned();
        if !(n.starts_with(&prefix) && n.ends_with(".tmp") && n.len() == prefix.len() + 10) {
            continue;
        }
        let Ok(m) = e.path().symlink_metadata() else {
            continue;
        };
        let old = unchanged_for(&m, min_age);
        if m.is_file()
            && m.uid() == me
            && old
            && nix::unistd::unlinkat(
                Some(std::os::fd::AsRawFd::as_raw_fd(&dir)),
                e.file_name().as_os_str(),
                nix::unistd::UnlinkatFlags::NoRemoveDir,
            )
            .is_ok()
        {
            removed += 1;
        }
    }
    removed
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
        let old = unchanged_for(&m, min_age);
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

    fn as_root() -> bool {
        nix::unistd::geteuid().is_root()
    }

    #[test]
    fn a_parent_of_another_user_is_refused_and_the_target_never_written() {
        if !as_root() {
            return;
        }
        let d = tempfile::tempdir().unwrap();
        let theirs = d.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        std::os::unix::fs::chown(&theirs, Some(54321), Some(54321)).unwrap();
        let run = theirs.join("run");
        let e = open_dir_checked(&run, true).unwrap_err();
        assert!(is_unsafe_path(&e), "{e}");
        assert!(e.to_string().contains("belongs to uid 54321"), "{e}");
        assert!(!run.exists(), "nothing made under it");
        // Nor a file written there, by any writer.
        let e = write_atomic(theirs.join("out.html"), b"x").unwrap_err();
        assert!(is_unsafe_path(&e), "{e}");
        assert!(create_new(theirs.join("pid-1.bstream")).is_err());
        assert_eq!(names(&theirs), Vec::<String>::new());
    }

    #[test]
    fn a_symlink_of_another_user_is_not_followed_and_ones_own_is() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let mine = d.path().join("mine");
        std::os::unix::fs::symlink("real", &mine).unwrap();
        let f = open_dir_checked(&mine.join("sub"), true).unwrap();
        assert!(f.metadata().unwrap().is_dir());
        assert!(real.join("sub").is_dir());
        write_atomic(mine.join("sub/out"), b"x").unwrap();
        assert_eq!(std::fs::read(real.join("sub/out")).unwrap(), b"x");
        if !as_root() {
            return;
        }
        let theirs = d.path().join("theirs");
        std::os::unix::fs::symlink("real", &theirs).unwrap();
        nix::unistd::fchownat(
            None,
            &theirs,
            Some(nix::unistd::Uid::from_raw(54321)),
            None,
            nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
        )
        .unwrap();
        let e = open_dir_checked(&theirs, false).unwrap_err();
        assert!(
            e.to_string().contains("symbolic link made by uid 54321"),
            "{e}"
        );
        let e = write_atomic(theirs.join("out2"), b"x").unwrap_err();
        assert!(is_unsafe_path(&e), "{e}");
        assert!(!real.join("out2").exists());
    }

    #[test]
    fn sticky_directories_are_parents_and_open_ones_are_not() {
        let d = tempfile::tempdir().unwrap();
        let sticky = d.path().join("scratch");
        std::fs::create_dir(&sticky).unwrap();
        std::fs::set_permissions(&sticky, std::fs::Permissions::from_mode(0o1777)).unwrap();
        open_dir_checked(&sticky.join("run"), true).unwrap();
        let open = d.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = open_dir_checked(&open.join("run"), true).unwrap_err();
        assert!(e.to_string().contains("writable by every user"), "{e}");
        assert!(!open.join("run").exists());
    }
}
