//! The control socket: one JSON request per connection, one JSON reply.
//! The socket is created 0600 (root only) or 0660 for `socket_group`,
//! and each peer's credentials are checked again on accept.

use crate::DaemonError;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "request", rename_all = "kebab-case")]
pub enum Request {
    Status,
    /// Write every buffered sample and manifest now.
    Flush,
    Stop,
    /// A Slurm prolog: job `job` starts.
    JobBegin {
        job: String,
    },
    /// A Slurm epilog: job `job` ended (its steps end now).
    JobEnd {
        job: String,
    },
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "reply", rename_all = "kebab-case")]
pub enum Reply {
    Status(Status),
    Done { message: String },
    Error { message: String },
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Status {
    pub pid: u32,
    pub uptime_s: f64,
    pub rate_hz: u64,
    pub event: String,
    pub cpus: u64,
    pub samples: u64,
    /// Samples of processes the configuration leaves out.
    pub excluded_samples: u64,
    pub lost: u64,
    pub daemon_cpu_seconds: f64,
    /// The daemon's CPU time over its run time, in % of one CPU.
    pub daemon_cpu_percent: f64,
    pub rss_kib: u64,
    pub disk_bytes: u64,
    pub total_cap_bytes: u64,
    pub dir: PathBuf,
    pub jobs: Vec<JobStatus>,
    pub errors: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct JobStatus {
    pub name: String,
    pub user: String,
    pub state: String,
    pub processes: u64,
    pub samples: u64,
    pub dropped: u64,
    pub bytes: u64,
    pub missed_while_down: u64,
    pub dir: PathBuf,
}

/// A request the daemon cannot take.
#[derive(Debug, thiserror::Error)]
pub enum BadRequest {
    #[error("bad request: {0}")]
    Json(serde_json::Error),
    #[error("reading the request: {0}")]
    Read(std::io::Error),
}

pub struct Server {
    listener: UnixListener,
    path: PathBuf,
    group: Option<u32>,
    /// The socket bound (device, inode): removed at the end only if it is
    /// still at the path.
    inode: (u64, u64),
}

impl Server {
    /// Binds the socket; refuses when a daemon answers on it already.
    pub fn bind(path: &Path, group: Option<&str>) -> Result<Server, DaemonError> {
        let err = |message: String| DaemonError::Control {
            path: path.to_path_buf(),
            message,
        };
        let gid = match group {
            Some(name) => Some(
                nix::unistd::Group::from_name(name)
                    .ok()
                    .flatten()
                    .ok_or_else(|| err(format!("socket_group {name:?}: no such group")))?
                    .gid
                    .as_raw(),
            ),
            None => None,
        };
        if let Some(parent) = path.parent() {
            if !parent.exists() {
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o755)
                    .create(parent)
                    .map_err(|e| err(e.to_string()))?;
            }
        }
        // The socket's directory must be root's (the daemon's) and writable
        // by no one else, every parent too: a user who may write it could
        // remove the socket and bind an impostor, or rename a link into
        // place where the daemon sets the socket's owner.
        let dir =
            blame_formats::files::open_dir_checked(path.parent().unwrap_or(Path::new("/")), false)
                .map_err(|e| {
                    err(format!(
                        "the socket's directory is not safe: {e}; the default is {}",
                        crate::config::DEFAULT_SOCKET
                    ))
                })?;
        let name = path
            .file_name()
            .ok_or_else(|| err("names no socket file".into()))?;
        if let Ok(meta) = path.symlink_metadata() {
            if !meta.file_type().is_socket() {
                return Err(err("exists and is not a socket; not removed".into()));
            }
            if UnixStream::connect(path).is_ok() {
                return Err(err("another blame daemon answers on it".into()));
            }
            std::fs::remove_file(path).map_err(|e| err(e.to_string()))?;
        }
        // The mode is set by the umask at bind (0600, or 0660 for a group),
        // never by path afterwards; the group by `fchownat` on the name in
        // the checked directory, not following a link.
        let mask = if gid.is_some() { 0o117 } else { 0o177 };
        let old = nix::sys::stat::umask(nix::sys::stat::Mode::from_bits_truncate(mask));
        let bound = UnixListener::bind(path);
        nix::sys::stat::umask(old);
        let listener = bound.map_err(|e| err(e.to_string()))?;
        let bound_at = nix::sys::stat::fstatat(
            Some(dir.as_raw_fd()),
            name,
            nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
        )
        .map_err(|e| err(e.to_string()))?;
        if let Some(gid) = gid {
            nix::unistd::fchownat(
                Some(dir.as_raw_fd()),
                name,
                None,
                Some(nix::unistd::Gid::from_raw(gid)),
                nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
            )
            .map_err(|e| err(e.to_string()))?;
        }
        listener
            .set_nonblocking(true)
            .map_err(|e| err(e.to_string()))?;
        Ok(Server {
            listener,
            path: path.to_path_buf(),
            group: gid,
            inode: (bound_at.st_dev, bound_at.st_ino),
        })
    }

    /// The requests waiting now, each with its connection to reply on.
    pub fn poll(&self) -> Vec<(UnixStream, Result<Request, BadRequest>)> {
        let mut out = Vec::new();
        while let Ok((stream, _)) = self.listener.accept() {
            if !self.allowed(&stream) {
                let mut s = stream;
                let _ = reply(
                    &mut s,
                    &Reply::Error {
                        message: "not allowed: the blame daemon's socket is root's".into(),
                    },
                );
                continue;
            }
            let _ = stream.set_nonblocking(false);
            let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
            let mut line = String::new();
            let r = BufReader::new(&stream).read_line(&mut line);
            let req = match r {
                // A probe (another daemon checking whether this one answers).
                Ok(0) => continue,
                Ok(_) => serde_json::from_str(line.trim()).map_err(BadRequest::Json),
                Err(e) => Err(BadRequest::Read(e)),
            };
            out.push((stream, req));
        }
        out
    }

    fn allowed(&self, stream: &UnixStream) -> bool {
        use nix::sys::socket::{getsockopt, sockopt::PeerCredentials};
        match getsockopt(stream, PeerCredentials) {
            Ok(c) => {
                c.uid() == 0
                    || self
                        .group
                        .is_some_and(|g| c.gid() == g || user_in_group(c.uid(), g))
            }
            Err(_) => false,
        }
    }
}

fn user_in_group(uid: u32, gid: u32) -> bool {
    let Some(user) = nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid))
        .ok()
        .flatten()
    else {
        return false;
    };
    let Ok(Some(group)) = nix::unistd::Group::from_gid(nix::unistd::Gid::from_raw(gid)) else {
        return false;
    };
    user.gid.as_raw() == gid || group.mem.contains(&user.name)
}

impl Drop for Server {
    fn drop(&mut self) {
        use std::os::unix::fs::MetadataExt;
        // Whatever someone put at the path since is not ours to remove.
        if let Ok(m) = self.path.symlink_metadata() {
            if (m.dev(), m.ino()) == self.inode {
                let _ = std::fs::remove_file(&self.path);
            }
        }
    }
}

pub fn reply(stream: &mut UnixStream, r: &Reply) -> std::io::Result<()> {
    let _ = stream.set_write_timeout(Some(Duration::from_millis(500)));
    let mut json = serde_json::to_vec(r).map_err(std::io::Error::other)?;
    json.push(b'\n');
    stream.write_all(&json)
}

/// The client side: sends `req` to the daemon at `socket`, waits for its reply.
pub fn request(socket: &Path, req: &Request, timeout: Duration) -> Result<Reply, DaemonError> {
    let err = |message: String| DaemonError::Control {
        path: socket.to_path_buf(),
        message,
    };
    let mut stream = UnixStream::connect(socket).map_err(|e| {
        err(match e.kind() {
            std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused => {
                format!("no blame daemon runs ({e})")
            }
            std::io::ErrorKind::PermissionDenied => {
                format!("{e}: the daemon's socket is root's (or its socket_group's)")
            }
            _ => e.to_string(),
        })
    })?;
    // Only a daemon of root (or of this user) is believed: another user
    // could have bound a socket of their own at the path.
    {
        use nix::sys::socket::{getsockopt, sockopt::PeerCredentials};
        let me = nix::unistd::geteuid().as_raw();
        let peer = getsockopt(&stream, PeerCredentials).map_err(|e| err(e.to_string()))?;
        if peer.uid() != 0 && peer.uid() != me {
            return Err(err(format!(
                "the process answering on it (pid {}) is {}'s, not root's: not a blame daemon; nothing was sent",
                peer.pid(),
                blame_formats::files::user_name(peer.uid())
            )));
        }
    }
    stream
        .set_read_timeout(Some(timeout))
        .map_err(|e| err(e.to_string()))?;
    let mut json = serde_json::to_vec(req).map_err(|e| err(e.to_string()))?;
    json.push(b'\n');
    stream.write_all(&json).map_err(|e| err(e.to_string()))?;
    let mut line = String::new();
    BufReader::new(&stream)
        .read_line(&mut line)
        .map_err(|e| err(format!("no reply: {e}")))?;
    serde_json::from_str(line.trim()).map_err(|e| err(format!("bad reply: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn requests_and_replies_travel_as_one_json_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.sock");
        let server = Server::bind(&path, None).unwrap();
        let mode = path.symlink_metadata().unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        // A second daemon on the same socket is refused.
        let e = Server::bind(&path, None).err().unwrap().to_string();
        assert!(e.contains("another blame daemon"), "{e}");
        let client = std::thread::spawn({
            let path = path.clone();
            move || {
                request(
                    &path,
                    &Request::JobEnd { job: "42".into() },
                    Duration::from_secs(5),
                )
            }
        });
        let mut got = Vec::new();
        for _ in 0..200 {
            got = server.poll();
            if !got.is_empty() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let (mut stream, req) = got.pop().unwrap();
        assert_eq!(req.unwrap(), Request::JobEnd { job: "42".into() });
        reply(
            &mut stream,
            &Reply::Done {
                message: "ok".into(),
            },
        )
        .unwrap();
        assert_eq!(
            client.join().unwrap().unwrap(),
            Reply::Done {
                message: "ok".into()
            }
        );
        drop(server);
        assert!(
            !path.exists(),
            "the socket is removed when the daemon stops"
        );
        let e = request(&path, &Request::Status, Duration::from_secs(1))
            .unwrap_err()
            .to_string();
        assert!(e.contains("no blame daemon runs"), "{e}");
    }

    #[test]
    fn a_socket_in_a_directory_another_user_may_write_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let open = dir.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = Server::bind(&open.join("d.sock"), None)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("writable by every user"), "{e}");
        assert!(!open.join("d.sock").exists());
        if !nix::unistd::geteuid().is_root() {
            return;
        }
        let theirs = dir.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        std::os::unix::fs::chown(&theirs, Some(54321), Some(54321)).unwrap();
        let e = Server::bind(&theirs.join("d.sock"), None)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("belongs to uid 54321"), "{e}");
        assert!(!theirs.join("d.sock").exists());
    }

    #[test]
    fn a_group_socket_gets_its_mode_at_bind_and_only_our_socket_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.sock");
        let group = nix::unistd::Group::from_gid(nix::unistd::getegid())
            .unwrap()
            .unwrap()
            .name;
        let server = Server::bind(&path, Some(&group)).unwrap();
        let mode = path.symlink_metadata().unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o660);
        // Someone replaced the socket: what is there now is not removed.
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, b"not ours").unwrap();
        drop(server);
        assert_eq!(std::fs::read(&path).unwrap(), b"not ours");
        std::fs::remove_file(&path).unwrap();
        // Ours is.
        let server = Server::bind(&path, None).unwrap();
        drop(server);
        assert!(path.symlink_metadata().is_err());
    }
}
