//! What a job's run directory says about it: `manifest.json` and
//! `daemon.json` ([`JobInfo`]), written as the job's user.

use super::{JobRun, Router};
use crate::job::{user_name, JobKey};
use crate::job_dir::AsUser;
use crate::restart::Gap;
use blame_formats::manifest::{EventEntry, Manifest};
use blame_sampler::procfs;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What `daemon.json` in a job's run directory says.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct JobInfo {
    pub job: String,
    pub key: JobKey,
    pub user: String,
    /// `running`, `ended` (its processes are gone) or `stopped` (the daemon stopped while it ran).
    pub state: String,
    pub started_unix_ns: u64,
    pub ended_unix_ns: Option<u64>,
    pub samples: u64,
    pub lost: u64,
    /// Samples not written because the job reached `job_cap_mb` or writing failed (a full disk).
    pub dropped_samples: u64,
    /// When the run stopped growing, and why.
    pub writing_stopped_unix_ns: Option<u64>,
    pub writing_stopped: Option<String>,
    /// Times no daemon sampled the job, with the samples that cost.
    pub gaps: Vec<Gap>,
    pub rate_hz: u64,
}

impl Router {
    /// `manifest.json` and `daemon.json` of a job, as its user.
    pub(super) fn write_job_files(&self, run: &mut JobRun, final_state: Option<&str>) {
        let now = procfs::unix_time_ns();
        let lost = run.lost_before
            + run.rec.sink.entries.iter().map(|e| e.lost).sum::<u64>()
            + run.rec.stats.unattributed_lost;
        let mut notices = Vec::new();
        for g in &run.gaps {
            notices.push(format!(
                "no daemon sampled this job for {:.1} s: about {} samples missed ({:.2} CPU s of processes still running, {} processes ended meanwhile)",
                (g.to_unix_ns.saturating_sub(g.from_unix_ns)) as f64 / 1e9,
                g.missed_samples,
                g.cpu_seconds,
                g.processes_ended
            ));
        }
        if let Some((_, why)) = &run.stopped {
            notices.push(format!(
                "{} samples dropped: the run stopped growing: {why}",
                run.dropped
            ));
        }
        let (mode, rate) = ("frequency", self.cfg.rate_hz);
        let manifest = Manifest {
            command: run.command.clone(),
            host: procfs::hostname(),
            sampler: "perf_event".into(),
            call_graph: self.call_graph.clone(),
            events: self
                .descs
                .iter()
                .map(|d| EventEntry {
                    name: d.name.clone(),
                    mode: mode.into(),
                    rate,
                    unit: d.unit.clone(),
                    memory: d.memory,
                })
                .collect(),
            start_unix_ns: run.started_unix_ns,
            end_unix_ns: now,
            exit_status: None,
            signal: None,
            interrupted: match final_state {
                Some("stopped") => Some("blame daemon stopped while the job ran".into()),
                Some(_) => None,
                None => Some("still recording (blame daemon)".into()),
            },
            samples: run.samples,
            lost,
            processes: run.rec.sink.entries.clone(),
            node_files: run.node_files.clone(),
            notices,
            cache: procfs::l1_data_cache(),
            ring_buffer_kib: self.ring_buffer_kib,
            static_db: run.db.clone(),
            static_dbs: Vec::new(),
        };
        let info = JobInfo {
            job: run.key.kind.to_string(),
            key: run.key.clone(),
            user: user_name(run.key.uid),
            state: final_state.unwrap_or("running").to_string(),
            started_unix_ns: run.started_unix_ns,
            ended_unix_ns: final_state.map(|_| now),
            samples: run.samples,
            lost,
            dropped_samples: run.dropped,
            writing_stopped_unix_ns: run.stopped.as_ref().map(|s| s.0),
            writing_stopped: run.stopped.as_ref().map(|s| s.1.clone()),
            gaps: run.gaps.clone(),
            rate_hz: self.cfg.rate_hz,
        };
        let _fs = AsUser::new(run.key.uid, run.gid);
        if let Err(e) = manifest.write(&run.dir, None) {
            run.rec
                .sink
                .errors
                .push(format!("{}: manifest: {e}", run.dir.display()));
        }
        write_info(&run.dir, &info, run.key.uid, run.gid);
    }
}

fn info_path(dir: &Path) -> PathBuf {
    dir.join("daemon.json")
}

pub(super) fn read_info(dir: &Path) -> Option<JobInfo> {
    let bytes = blame_formats::files::open_regular(info_path(dir))
        .and_then(|mut f| {
            let mut v = Vec::new();
            std::io::Read::read_to_end(&mut f, &mut v)?;
            Ok(v)
        })
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}

pub(super) fn write_info(dir: &Path, info: &JobInfo, uid: u32, gid: u32) {
    let _fs = AsUser::new(uid, gid);
    if let Ok(mut json) = serde_json::to_vec_pretty(info) {
        json.push(b'\n');
        let _ = blame_formats::files::write_atomic(info_path(dir), &json);
    }
}
