//! Flushes: every job's buffered chunks and files written, the disk caps
//! enforced (oldest-first rotation of ended runs) and the restart state
//! saved.

use super::Router;
use crate::job::JobKey;
use crate::job_dir::{self, AsUser};
use crate::restart::{self, SavedJob, SavedProcess, SavedState};
use blame_sampler::procfs;

impl Router {
    /// Writes every open stream's buffered chunk, each job's manifest and
    /// `daemon.json`, enforces the caps and saves the restart state.
    pub fn flush(&mut self) {
        let keys: Vec<JobKey> = self.jobs.keys().cloned().collect();
        for key in keys {
            let mut run = self.jobs.remove(&key).expect("listed");
            if !run.dir_made {
                self.jobs.insert(key, run);
                continue;
            }
            {
                let _fs = AsUser::new(run.key.uid, run.gid);
                run.rec.flush_all();
            }
            self.write_job_files(&mut run, None);
            run.bytes = job_dir::dir_bytes(&run.dir);
            let errors = std::mem::take(&mut run.rec.sink.errors);
            let why = if !errors.is_empty() {
                // A full disk: the writer keeps what it could not write, so
                // the job stops writing rather than grow the daemon.
                Some(format!("writing failed ({})", errors[0]))
            } else if run.bytes > self.cfg.job_cap_mb << 20 {
                Some(format!("reached job_cap_mb ({} MB)", self.cfg.job_cap_mb))
            } else {
                None
            };
            if let (None, Some(why)) = (&run.stopped, why) {
                self.note(format!(
                    "{}: {why}; further samples are counted, not written",
                    run.name
                ));
                run.stopped = Some((procfs::unix_time_ns(), why));
            }
            self.jobs.insert(key, run);
            for e in errors {
                self.note(e);
            }
        }
        self.rotate();
        if let Err(e) = restart::save(&self.cfg.dir, &self.saved_state()) {
            self.note(format!("saving the restart state: {e}"));
        }
    }

    /// Removes the oldest ended jobs' run directories while all of them
    /// together exceed `total_cap_mb`.
    pub(super) fn rotate(&mut self) {
        let cap = self.cfg.total_cap_mb << 20;
        let mut total = self.disk_bytes();
        if total <= cap {
            return;
        }
        self.ended.sort_by_key(|e| e.ended);
        while total > cap && !self.ended.is_empty() {
            let old = self.ended.remove(0);
            // remove_dir_all does not follow symlinks inside the directory.
            match std::fs::remove_dir_all(&old.dir) {
                Ok(()) => {
                    total = total.saturating_sub(old.bytes);
                    self.note(format!(
                        "removed the run of ended job {} ({} MB) to stay under total_cap_mb",
                        old.name,
                        old.bytes >> 20
                    ));
                }
                Err(e) => self.note(format!("{}: {e}", old.dir.display())),
            }
        }
        if total > cap {
            for run in self.jobs.values_mut() {
                run.stopped.get_or_insert_with(|| {
                    (
                        procfs::unix_time_ns(),
                        "all runs together reached total_cap_mb".into(),
                    )
                });
            }
        }
    }

    pub fn disk_bytes(&self) -> u64 {
        self.jobs.values().map(|r| r.bytes).sum::<u64>()
            + self.ended.iter().map(|e| e.bytes).sum::<u64>()
    }

    pub(super) fn saved_state(&self) -> SavedState {
        SavedState {
            saved_unix_ns: procfs::unix_time_ns(),
            rate_hz: self.cfg.rate_hz,
            jobs: self
                .jobs
                .values()
                .map(|r| SavedJob {
                    key: r.key.clone(),
                    name: r.name.clone(),
                    gid: r.gid,
                    started_unix_ns: r.started_unix_ns,
                    processes: r
                        .pids
                        .keys()
                        .filter_map(|&pid| {
                            let (start, cpu) = restart::process_ticks(pid)?;
                            Some(SavedProcess {
                                pid,
                                start_ticks: start,
                                cpu_ticks: cpu,
                            })
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}
