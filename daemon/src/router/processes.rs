//! Where a process's records go: its job, classified from /proc when
//! first seen (the daemon's children never), the static db of its
//! executable, and its leaving the job.

use super::{JobRun, Router, Slot};
use crate::job::{identify, JobKind};
use crate::job_dir::AsUser;
use crate::restart;
use blame_sampler::procfs;
use std::path::PathBuf;
use std::time::Instant;

impl Router {
    /// Reads /proc and decides where `pid` goes; opens its job.
    pub(super) fn classify(&mut self, pid: u32) -> Slot {
        let Some(id) = identify(pid) else {
            return Slot::Excluded;
        };
        // A child of the daemon (a post it runs as a job's user) seen
        // before its fork record: the per-CPU buffers' records of two
        // CPUs are not in time order, so its first samples may come first.
        if id.ppid == self.own_pid || self.slots.get(&id.ppid) == Some(&Slot::Daemon) {
            return Slot::Daemon;
        }
        if !id.included(&self.cfg) {
            return Slot::Excluded;
        }
        let key = id.job();
        if let JobKind::Slurm { job, .. } = &key.kind {
            if self.ended_marks.contains_key(job) {
                return Slot::Excluded;
            }
        }
        let command = procfs::cmdline(pid).unwrap_or_default();
        let start = restart::process_ticks(pid).map(|t| t.0).unwrap_or(0);
        let db = self.db_of(pid, key.uid, id.gid);
        match self.open_job(&key, id.gid, command) {
            Some(run) => {
                run.pids.insert(pid, start);
                run.idle_since = None;
                if run.db.is_none() {
                    run.db = db;
                }
                Slot::Job(key)
            }
            None => Slot::Excluded,
        }
    }

    /// The static db registered in the store for `pid`'s executable (read
    /// with the user's file-system identity).
    pub(super) fn db_of(&mut self, pid: u32, uid: u32, gid: u32) -> Option<PathBuf> {
        let store = self.cfg.static_db_store.clone()?;
        use std::os::unix::fs::MetadataExt;
        let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok()?;
        let meta = {
            let _fs = AsUser::new(uid, gid);
            std::fs::metadata(&exe).ok()?
        };
        let id = self
            .build_ids
            .entry((meta.dev(), meta.ino(), meta.mtime()))
            .or_insert_with(|| {
                let _fs = AsUser::new(uid, gid);
                blame_capture::locate::build_id_of(&exe)
            })
            .clone()?;
        let _fs = AsUser::new(uid, gid);
        blame_formats::db_store::lookup(&store, &id)
    }

    pub(super) fn slot(&mut self, pid: u32) -> Slot {
        if let Some(s) = self.slots.get(&pid) {
            return s.clone();
        }
        let s = self.classify(pid);
        self.slots.insert(pid, s.clone());
        s
    }

    /// The job of a process already classified.
    pub(super) fn job_of(&mut self, pid: u32) -> Option<&mut JobRun> {
        match self.slots.get(&pid) {
            Some(Slot::Job(k)) => self.jobs.get_mut(k),
            _ => None,
        }
    }

    pub(super) fn leave_job(&mut self, pid: u32, time_ns: u64) {
        if let Some(run) = self.job_of(pid) {
            let _fs = AsUser::new(run.key.uid, run.gid);
            run.rec.exit(pid, pid, None, time_ns);
            run.pids.remove(&pid);
            if run.pids.is_empty() {
                run.idle_since = Some(Instant::now());
            }
        }
        self.slots.remove(&pid);
    }
}
