//! `blame post` of ended jobs (`post_on_end`): run as the job's user in
//! its run directory, one at a time and at most one start per
//! `post_min_interval_s`, with output in the run's `post.log`.

use crate::job_dir::{give_to, AsUser};
use std::collections::VecDeque;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, PartialEq)]
pub struct PostJob {
    pub dir: PathBuf,
    pub uid: u32,
    pub gid: u32,
}

pub struct PostQueue {
    blame: PathBuf,
    min_interval: Duration,
    store: Option<PathBuf>,
    pending: VecDeque<PostJob>,
    running: Option<(Child, PostJob)>,
    last_start: Option<Instant>,
}

impl PostQueue {
    pub fn new(blame: PathBuf, min_interval: Duration, store: Option<PathBuf>) -> PostQueue {
        PostQueue {
            blame,
            min_interval,
            store,
            pending: VecDeque::new(),
            running: None,
            last_start: None,
        }
    }

    pub fn push(&mut self, job: PostJob) {
        if !self.pending.contains(&job) {
            self.pending.push_back(job);
        }
    }

    /// Reaps a finished post and starts the next when its time has come;
    /// returns what is worth saying.
    pub fn tick(&mut self) -> Vec<String> {
        let mut said = Vec::new();
        if let Some((child, job)) = &mut self.running {
            match child.try_wait() {
                Ok(Some(status)) if !status.success() => {
                    said.push(format!(
                        "blame post {} failed ({status}); see its post.log",
                        job.dir.display()
                    ));
                    self.running = None;
                }
                Ok(Some(_)) => self.running = None,
                Ok(None) => return said,
                Err(e) => {
                    said.push(format!("blame post {}: {e}", job.dir.display()));
                    self.running = None;
                }
            }
        }
        if self
            .last_start
            .is_some_and(|t| t.elapsed() < self.min_interval)
        {
            return said;
        }
        let Some(job) = self.pending.pop_front() else {
            return said;
        };
        match self.start(&job) {
            Ok(child) => {
                self.running = Some((child, job));
                self.last_start = Some(Instant::now());
            }
            Err(e) => said.push(format!("blame post {}: {e}", job.dir.display())),
        }
        said
    }

    fn start(&self, job: &PostJob) -> std::io::Result<Child> {
        let log_path = job.dir.join("post.log");
        let log = {
            let _fs = AsUser::new(job.uid, job.gid);
            blame_formats::files::create_new(&log_path).or_else(|_| {
                // A log of an earlier post: replaced (not through a link).
                let _ = std::fs::remove_file(&log_path);
                blame_formats::files::create_new(&log_path)
            })?
        };
        give_to(&log_path, job.uid, job.gid);
        let mut cmd = Command::new(&self.blame);
        cmd.arg("post")
            .arg(&job.dir)
            .current_dir(&job.dir)
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("BLAME_PROGRESS", "0")
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log);
        if let Some(store) = &self.store {
            cmd.env("BLAME_DB_STORE", store);
        }
        // std drops root's supplementary groups when it sets the uid.
        if nix::unistd::geteuid().is_root() {
            cmd.uid(job.uid).gid(job.gid);
        }
        cmd.spawn()
    }

    /// The daemon stops: a running post finishes on its own.
    pub fn finish(&mut self) {
        self.pending.clear();
    }
}
