//! The daemon's `status`: its counters, each running job and the newest
//! ended ones.

use super::{EndedJob, Router};
use crate::control::{JobStatus, Status};
use crate::job::user_name;
use blame_sampler::procfs;

/// Ended jobs `status` lists.
const STATUS_ENDED_JOBS: usize = 50;

impl Router {
    pub fn status(&self, cpu_seconds: f64, rss_kib: u64, lost: u64) -> Status {
        let mut jobs: Vec<JobStatus> = self
            .jobs
            .values()
            .map(|r| JobStatus {
                name: r.name.clone(),
                user: user_name(r.key.uid),
                state: if r.stopped.is_some() {
                    "running (not written)".into()
                } else {
                    "running".into()
                },
                processes: r.pids.len() as u64,
                samples: r.samples,
                dropped: r.dropped,
                bytes: r.bytes,
                missed_while_down: r.gaps.iter().map(|g| g.missed_samples).sum(),
                dir: r.dir.clone(),
            })
            .collect();
        // The newest ended runs (the others are still on disk, counted in disk_bytes).
        let mut ended: Vec<&EndedJob> = self.ended.iter().collect();
        ended.sort_by_key(|e| std::cmp::Reverse(e.ended));
        jobs.extend(
            ended
                .into_iter()
                .take(STATUS_ENDED_JOBS)
                .map(|e| JobStatus {
                    name: e.name.clone(),
                    user: e.user.clone(),
                    state: "ended".into(),
                    processes: 0,
                    samples: e.samples,
                    dropped: 0,
                    bytes: e.bytes,
                    missed_while_down: 0,
                    dir: e.dir.clone(),
                }),
        );
        let uptime = self.started.elapsed().as_secs_f64();
        Status {
            pid: self.own_pid,
            uptime_s: uptime,
            rate_hz: self.cfg.rate_hz,
            event: self
                .descs
                .first()
                .map(|d| d.name.clone())
                .unwrap_or_default(),
            cpus: procfs::online_cpus() as u64,
            samples: self.samples,
            excluded_samples: self.excluded_samples,
            lost: lost + self.unattributed_lost,
            daemon_cpu_seconds: cpu_seconds,
            daemon_cpu_percent: 100.0 * cpu_seconds / uptime.max(1e-3),
            rss_kib,
            disk_bytes: self.disk_bytes(),
            total_cap_bytes: self.cfg.total_cap_mb << 20,
            dir: self.cfg.dir.clone(),
            jobs,
            errors: self.errors.clone(),
        }
    }
}
