//! Run directories under the daemon's directory. The daemon's directory is
//! root's (0755, never group- or world-writable); each job's directory in
//! it is created by root, then given to the job's user with mode 0700, so
//! no user reads another's runs. Everything inside is created with the
//! user's file-system identity (setfsuid/setfsgid), so a file the user
//! planted (a symlink to /etc/shadow) is opened with the user's rights
//! only, and new files belong to the user and count against their quota.

use crate::{DaemonError, DaemonUsage};
use nix::unistd::{Gid, Uid};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Creates the daemon's directory if missing (root, 0755) and refuses one
/// that others could write or that is a symlink.
pub fn prepare_base(dir: &Path) -> Result<(), DaemonError> {
    if std::fs::symlink_metadata(dir).is_err() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o755)
            .create(dir)
            .map_err(|e| DaemonError::io(dir, e))?;
    }
    let meta = std::fs::symlink_metadata(dir).map_err(|e| DaemonError::io(dir, e))?;
    if !meta.is_dir() {
        return Err(DaemonUsage::BaseNotDir {
            dir: dir.to_path_buf(),
        }
        .into());
    }
    if meta.uid() != 0 || meta.mode() & 0o022 != 0 {
        return Err(DaemonUsage::BaseNotRoots {
            dir: dir.to_path_buf(),
            uid: meta.uid(),
            mode: meta.mode() & 0o7777,
        }
        .into());
    }
    Ok(())
}

/// The run directory `base/name` of a job of `uid`:`gid`, created (or
/// taken up again after a restart) as a real directory, owned by the user,
/// mode 0700.
pub fn job_dir(base: &Path, name: &str, uid: u32, gid: u32) -> std::io::Result<PathBuf> {
    let path = base.join(name);
    match std::fs::DirBuilder::new().mode(0o700).create(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    // O_NOFOLLOW: a symlink at the name (the base is root's, so only root
    // could have put one there) is an error, not followed.
    let dir = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW)
        .open(&path)?;
    let st = dir.metadata()?;
    if st.uid() != 0 && st.uid() != uid {
        return Err(std::io::Error::other(format!(
            "{} belongs to uid {}, not to the job's user {uid}",
            path.display(),
            st.uid()
        )));
    }
    std::os::unix::fs::fchown(&dir, Some(uid), Some(gid))?;
    dir.set_permissions(std::fs::Permissions::from_mode(0o700))?;
    Ok(path)
}

/// The file-system identity of a job's user for the calls made while the
/// guard lives (this thread only); root's again when dropped.
pub struct AsUser {
    active: bool,
}

impl AsUser {
    pub fn new(uid: u32, gid: u32) -> AsUser {
        if !nix::unistd::geteuid().is_root() || uid == 0 {
            return AsUser { active: false };
        }
        nix::unistd::setfsgid(Gid::from_raw(gid));
        nix::unistd::setfsuid(Uid::from_raw(uid));
        AsUser { active: true }
    }
}

impl Drop for AsUser {
    fn drop(&mut self) {
        if self.active {
            nix::unistd::setfsuid(Uid::from_raw(0));
            nix::unistd::setfsgid(Gid::from_raw(0));
        }
    }
}

/// Bytes of the regular files in `dir` (links not followed).
pub fn dir_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.path().symlink_metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

/// Makes `path` (a file the daemon itself created, e.g. a log) the user's.
pub fn give_to(path: &Path, uid: u32, gid: u32) {
    let _ = std::os::unix::fs::lchown(path, Some(uid), Some(gid));
    if let Ok(m) = path.symlink_metadata() {
        if m.is_file() {
            let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symlink_at_a_jobs_name_is_refused() {
        let base = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), base.path().join("u.session-1")).unwrap();
        let me = nix::unistd::getuid().as_raw();
        let gid = nix::unistd::getgid().as_raw();
        assert!(job_dir(base.path(), "u.session-1", me, gid).is_err());
        let dir = job_dir(base.path(), "u.session-2", me, gid).unwrap();
        let m = dir.symlink_metadata().unwrap();
        assert!(m.is_dir());
        assert_eq!(m.mode() & 0o777, 0o700);
        // Taken up again (a restart).
        assert_eq!(job_dir(base.path(), "u.session-2", me, gid).unwrap(), dir);
    }

    #[test]
    fn a_base_others_can_write_is_refused() {
        let base = tempfile::tempdir().unwrap();
        std::fs::set_permissions(base.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = prepare_base(base.path()).unwrap_err().to_string();
        assert!(e.contains("writable"), "{e}");
    }
}
