//! Opening a job's run: a new job's recording, its run directory at its
//! first sample, and the jobs earlier daemons left (resumed, or listed for
//! rotation).

use super::job_files::{read_info, write_info};
use super::{EndedJob, JobRun, Router, Slot};
use crate::job::{user_name, JobKey};
use crate::job_dir::{self, AsUser};
use crate::restart::{self, SavedState};
use blame_sampler::procfs;
use blame_sampler::recording::{recording, Layout, StreamFiles};
use std::collections::HashMap;

impl Router {
    /// Run directories of earlier daemons (ended jobs): candidates for rotation.
    pub(super) fn scan_old_runs(&mut self) {
        let Ok(entries) = std::fs::read_dir(&self.cfg.dir) else {
            return;
        };
        for e in entries.filter_map(Result::ok) {
            let name = e.file_name().to_string_lossy().into_owned();
            let Ok(meta) = e.path().symlink_metadata() else {
                continue;
            };
            if name.starts_with('.') || !meta.is_dir() {
                continue;
            }
            use std::os::unix::fs::MetadataExt;
            self.ended.push(EndedJob {
                dir: e.path(),
                user: user_name(meta.uid()),
                ended: meta.modified().unwrap_or(std::time::UNIX_EPOCH),
                bytes: job_dir::dir_bytes(&e.path()),
                samples: 0,
                name,
            });
        }
    }

    /// Takes up the jobs a previous daemon saved: those with processes
    /// still running continue in the same run directory, with the gap
    /// charged; the others are finished as they are.
    pub fn resume(&mut self, saved: SavedState) {
        let now = procfs::unix_time_ns();
        for job in saved.jobs {
            let (gap, alive) = restart::gap_of(&job, saved.saved_unix_ns, now, self.cfg.rate_hz);
            let dir = self.cfg.dir.join(&job.name);
            // The previous daemon's description of the job, to add the gap to.
            if alive.is_empty() {
                let mut info = {
                    let _fs = AsUser::new(job.key.uid, job.gid);
                    read_info(&dir)
                };
                if let Some(info) = &mut info {
                    info.gaps.push(gap);
                    if info.state == "running" {
                        info.state = "ended".into();
                        info.ended_unix_ns = Some(now);
                    }
                    write_info(&dir, info, job.key.uid, job.gid);
                }
                continue;
            }
            let command = procfs::cmdline(alive[0].pid).unwrap_or_default();
            let db = self.db_of(alive[0].pid, job.key.uid, job.gid);
            let Some(run) = self.open_job(&job.key, job.gid, command) else {
                continue;
            };
            run.gaps.push(gap);
            run.db = db;
            let key = job.key.clone();
            if let Err(e) = self.make_dir(&key) {
                self.note(e.to_string());
                continue;
            }
            let run = self.jobs.get_mut(&key).expect("opened");
            for p in &alive {
                run.pids.insert(p.pid, p.start_ticks);
            }
            for p in alive {
                self.slots.insert(p.pid, Slot::Job(job.key.clone()));
            }
            self.ended.retain(|e| e.dir != dir);
        }
    }

    /// The job run of `key`, opened (its directory made) when new.
    pub(super) fn open_job(
        &mut self,
        key: &JobKey,
        gid: u32,
        command: Vec<String>,
    ) -> Option<&mut JobRun> {
        if !self.jobs.contains_key(key) {
            let name = key.dir_name();
            // Made at the job's first sample: a login shell that never
            // runs gets no directory.
            let dir = self.cfg.dir.join(&name);
            let extra = vec![
                (
                    "sampler".to_string(),
                    "perf_event (blame daemon)".to_string(),
                ),
                ("blame".to_string(), env!("CARGO_PKG_VERSION").to_string()),
                ("job".to_string(), key.kind.to_string()),
            ];
            // One node file per job (a section per process image); a
            // restarted daemon's gets a suffix beside the first one's.
            let mut rec = recording(
                StreamFiles::new(&dir, self.descs.clone(), &self.call_graph, extra)
                    .with_layout(Layout::node_file(&procfs::hostname(), None)),
            );
            rec.stack_copy_size = self.stack_copy_size;
            // A job an earlier daemon recorded goes on: its counts and gaps too.
            let before = {
                let _fs = AsUser::new(key.uid, gid);
                read_info(&dir)
            };
            self.jobs.insert(
                key.clone(),
                JobRun {
                    key: key.clone(),
                    name,
                    gid,
                    dir: dir.clone(),
                    rec,
                    command,
                    pids: HashMap::new(),
                    started_unix_ns: procfs::unix_time_ns(),
                    idle_since: None,
                    marked_end: false,
                    samples: 0,
                    dropped: 0,
                    bytes: 0,
                    stopped: None,
                    gaps: Vec::new(),
                    lost_before: 0,
                    db: None,
                    dir_made: false,
                    node_files: Vec::new(),
                },
            );
            let closed_before = {
                let _fs = AsUser::new(key.uid, gid);
                blame_formats::manifest::Manifest::of_run(&dir).map(|m| m.node_files)
            };
            if let (Ok(files), Some(run)) = (closed_before, self.jobs.get_mut(key)) {
                run.node_files = files;
            }
            if let (Some(info), Some(run)) = (before, self.jobs.get_mut(key)) {
                run.started_unix_ns = info.started_unix_ns;
                run.gaps = info.gaps;
                run.samples = info.samples;
                run.dropped = info.dropped_samples;
                run.lost_before = info.lost;
            }
        }
        self.jobs.get_mut(key)
    }

    /// Makes the job's run directory at its first sample.
    pub(super) fn make_dir(&mut self, key: &JobKey) -> Result<(), crate::DaemonError> {
        let Some(run) = self.jobs.get_mut(key) else {
            return Ok(());
        };
        if run.dir_made {
            return Ok(());
        }
        job_dir::job_dir(&self.cfg.dir, &run.name, run.key.uid, run.gid)
            .map_err(|e| crate::DaemonError::io(&run.dir, e))?;
        run.dir_made = true;
        {
            // The vDSO, for symbolization (as `blame record` saves it);
            // without it, its frames stay unnamed: nothing to report.
            let _fs = AsUser::new(run.key.uid, run.gid);
            if let Some(image) = &self.vdso {
                let _ = run.rec.sink.save_vdso(image);
            }
        }
        let dir = run.dir.clone();
        self.ended.retain(|e| e.dir != dir);
        Ok(())
    }
}
