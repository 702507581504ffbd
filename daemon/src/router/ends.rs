//! Job ends: Slurm's marks, the periodic tick that finds ended processes
//! and idle jobs, a job's recording closed and queued for `blame post`,
//! and every job ended when the daemon stops.

use super::{EndedJob, Router, Slot};
use crate::job::{user_name, JobKey, JobKind};
use crate::job_dir::{self, AsUser};
use crate::post_queue::PostJob;
use crate::restart;
use blame_sampler::procfs;
use std::time::{Duration, Instant};

impl Router {
    /// A Slurm prolog's mark: nothing to do but forget an earlier end.
    pub fn mark_begin(&mut self, job: &str) {
        self.ended_marks.remove(job);
    }

    /// A Slurm epilog's mark: the job's steps end at the next tick, and
    /// processes left over are no longer sampled for it.
    pub fn mark_end(&mut self, job: &str) -> usize {
        self.ended_marks.insert(job.to_string(), Instant::now());
        let mut n = 0;
        for run in self.jobs.values_mut() {
            if matches!(&run.key.kind, JobKind::Slurm { job: j, .. } if j == job) {
                run.marked_end = true;
                n += 1;
            }
        }
        n
    }

    /// Periodic work (about once a second): processes whose exit was
    /// missed, job ends, posts. Every `flush_interval_s` also `flush`.
    pub fn tick(&mut self) {
        let now_ns = procfs::monotonic_ns();
        let mut gone = Vec::new();
        for run in self.jobs.values() {
            for (&pid, &start) in &run.pids {
                match restart::process_ticks(pid) {
                    Some((s, _)) if s == start || start == 0 => {}
                    _ => gone.push(pid),
                }
            }
        }
        for pid in gone {
            self.leave_job(pid, now_ns);
        }
        let end_after = Duration::from_secs(self.cfg.job_end_after_s);
        let ending: Vec<JobKey> = self
            .jobs
            .values()
            .filter(|r| r.marked_end || r.idle_since.is_some_and(|t| t.elapsed() >= end_after))
            .map(|r| r.key.clone())
            .collect();
        for key in ending {
            self.end_job(&key, "ended");
        }
        self.ended_marks
            .retain(|_, t| t.elapsed() < Duration::from_secs(3600));
        for m in self.posts.tick() {
            self.note(m);
        }
    }

    /// Closes a job's recording and writes its final manifest.
    pub(super) fn end_job(&mut self, key: &JobKey, state: &str) {
        let Some(mut run) = self.jobs.remove(key) else {
            return;
        };
        let pids: Vec<u32> = run.pids.keys().copied().collect();
        for pid in pids {
            self.slots.insert(pid, Slot::Excluded);
        }
        if !run.dir_made {
            return;
        }
        {
            let _fs = AsUser::new(run.key.uid, run.gid);
            run.rec.finish(procfs::monotonic_ns());
        }
        run.node_files.extend(run.rec.sink.closed_node_file.take());
        self.write_job_files(&mut run, Some(state));
        run.bytes = job_dir::dir_bytes(&run.dir);
        if state == "ended" && self.cfg.post_on_end && run.samples > 0 {
            self.posts.push(PostJob {
                dir: run.dir.clone(),
                uid: run.key.uid,
                gid: run.gid,
            });
        }
        self.ended.push(EndedJob {
            name: run.name.clone(),
            dir: run.dir.clone(),
            user: user_name(run.key.uid),
            ended: std::time::SystemTime::now(),
            bytes: run.bytes,
            samples: run.samples,
        });
    }

    /// Ends every job (the daemon stops): their manifests say so, and the
    /// restart state lets the next daemon charge the gap.
    pub fn stop(&mut self) {
        let state = self.saved_state();
        let keys: Vec<JobKey> = self.jobs.keys().cloned().collect();
        for key in keys {
            self.end_job(&key, "stopped");
        }
        if let Err(e) = restart::save(&self.cfg.dir, &state) {
            self.note(format!("saving the restart state: {e}"));
        }
        self.posts.finish();
    }
}
