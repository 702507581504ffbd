//! The daemon's [`RecordSink`]: each process's records go to the recording
//! of its job (one run directory per job, see `job_dir`). A process is
//! classified when first seen and again at every exec (a batch system
//! moves a task into its step's cgroup between fork and exec); a fork
//! inherits its parent's job; the daemon's own children (posts) are never
//! sampled. A job ends `job_end_after_s` after its last process did, or at
//! a Slurm epilog's mark. Flushes write the streams' chunks, each job's
//! `manifest.json` and `daemon.json`, enforce the disk caps and save the
//! restart state.
//!
//! This module holds the router's state and the records' dispatch
//! ([`RecordSink`]); which job a process goes to, opening jobs, their
//! ends, flushes, the files of a job's run directory and `status` are
//! modules of their own.

mod ends;
mod flush;
mod job_files;
mod jobs;
mod processes;
mod status;

pub use job_files::JobInfo;

use crate::config::Config;
use crate::job::JobKey;
use crate::job_dir::AsUser;
use crate::post_queue::PostQueue;
use crate::restart::{self, Gap};
use blame_formats::manifest::NodeFileEntry;
use blame_formats::stream::EventDesc;
use blame_sampler::procfs;
use blame_sampler::recording::{Recording, SampleInfo, SampledStack};
use blame_sampler::sink::RecordSink;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Where a process's records go.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Slot {
    Job(JobKey),
    /// Not sampled (the configuration's lists, or gone before classified).
    Excluded,
    /// The daemon or one of its children: never sampled, whatever they exec.
    Daemon,
}

pub struct JobRun {
    pub key: JobKey,
    pub name: String,
    pub gid: u32,
    pub dir: PathBuf,
    rec: Recording,
    command: Vec<String>,
    /// Live processes: pid -> start time in ticks.
    pids: HashMap<u32, u64>,
    started_unix_ns: u64,
    idle_since: Option<Instant>,
    marked_end: bool,
    pub samples: u64,
    pub dropped: u64,
    pub bytes: u64,
    /// When and why the run stopped growing (a cap, a failed write).
    stopped: Option<(u64, String)>,
    gaps: Vec<Gap>,
    lost_before: u64,
    /// The static db of the job's executables, from the store.
    db: Option<PathBuf>,
    /// The run directory exists (made at the first sample).
    dir_made: bool,
    /// Node files closed in this run directory (an earlier daemon's too).
    node_files: Vec<NodeFileEntry>,
}

/// An ended job's run directory, for rotation and status.
#[derive(Debug, Clone)]
struct EndedJob {
    name: String,
    dir: PathBuf,
    user: String,
    ended: std::time::SystemTime,
    bytes: u64,
    samples: u64,
}

pub struct Router {
    cfg: Config,
    own_pid: u32,
    descs: Vec<EventDesc>,
    call_graph: String,
    stack_copy_size: u32,
    ring_buffer_kib: Option<u64>,
    slots: HashMap<u32, Slot>,
    jobs: BTreeMap<JobKey, JobRun>,
    ended: Vec<EndedJob>,
    posts: PostQueue,
    /// Slurm jobs an epilog marked ended (their processes may linger).
    ended_marks: HashMap<String, Instant>,
    /// Build-ids of executables seen (for the db store), by (device,
    /// inode, modification time): a rebuild at the same path is another file.
    build_ids: HashMap<(u64, u64, i64), Option<Vec<u8>>>,
    pub samples: u64,
    pub excluded_samples: u64,
    pub unattributed_lost: u64,
    /// The last distinct problems (bounded), for `status`.
    pub errors: Vec<String>,
    started: Instant,
    /// This machine's vDSO, read once as the daemon (a user's file
    /// credentials may not read the daemon's own memory), saved in every
    /// job's run directory.
    vdso: Option<Vec<u8>>,
}

const MAX_ERRORS: usize = 32;

impl Router {
    pub fn new(
        cfg: Config,
        descs: Vec<EventDesc>,
        call_graph: &str,
        stack_copy_size: u32,
        ring_buffer_kib: Option<u64>,
        blame_exe: PathBuf,
    ) -> Router {
        let posts = PostQueue::new(
            blame_exe,
            Duration::from_secs(cfg.post_min_interval_s),
            cfg.static_db_store.clone(),
        );
        let mut r = Router {
            own_pid: std::process::id(),
            descs,
            call_graph: call_graph.to_string(),
            stack_copy_size,
            ring_buffer_kib,
            slots: HashMap::new(),
            jobs: BTreeMap::new(),
            ended: Vec::new(),
            posts,
            ended_marks: HashMap::new(),
            build_ids: HashMap::new(),
            samples: 0,
            excluded_samples: 0,
            unattributed_lost: 0,
            errors: Vec::new(),
            started: Instant::now(),
            vdso: procfs::vdso_image(),
            cfg,
        };
        r.slots.insert(r.own_pid, Slot::Daemon);
        r.scan_old_runs();
        r
    }

    fn note(&mut self, e: String) {
        if !self.errors.contains(&e) {
            if self.errors.len() == MAX_ERRORS {
                self.errors.remove(0);
            }
            self.errors.push(e);
        }
    }
}

impl RecordSink for Router {
    fn fork(&mut self, pid: u32, ppid: u32, tid: u32) {
        if pid != tid {
            if let Some(run) = self.job_of(pid) {
                run.rec.fork(pid, ppid, tid);
            }
            return;
        }
        // A child inherits its parent's job (cgroup and environment come
        // with the fork); exec classifies it again.
        let Some(parent) = self.slots.get(&ppid).cloned() else {
            return;
        };
        self.slots.insert(pid, parent.clone());
        if let Slot::Job(key) = parent {
            if let Some(run) = self.jobs.get_mut(&key) {
                let start = restart::process_ticks(pid).map(|t| t.0).unwrap_or(0);
                run.pids.insert(pid, start);
                run.idle_since = None;
                let _fs = AsUser::new(run.key.uid, run.gid);
                run.rec.fork(pid, ppid, tid);
            }
        }
    }

    fn exec(&mut self, pid: u32, name: &str, time_ns: u64) {
        let before = self.slots.get(&pid).cloned();
        if before == Some(Slot::Daemon) {
            return;
        }
        let after = self.classify(pid);
        if before.is_some() && before != Some(after.clone()) {
            self.leave_job(pid, time_ns);
        }
        self.slots.insert(pid, after.clone());
        if let Slot::Job(key) = after {
            if let Some(run) = self.jobs.get_mut(&key) {
                if run.command.is_empty() {
                    run.command = procfs::cmdline(pid).unwrap_or_default();
                }
                let _fs = AsUser::new(run.key.uid, run.gid);
                run.rec.exec(pid, name, time_ns);
            }
        }
    }

    fn thread_name(&mut self, pid: u32, tid: u32, name: &str) {
        if let Some(run) = self.job_of(pid) {
            run.rec.thread_name(pid, tid, name);
        }
    }

    fn mmap(&mut self, pid: u32, start: u64, end: u64, pgoff: u64, path: &str, build_id: Vec<u8>) {
        if let Some(run) = self.job_of(pid) {
            let _fs = AsUser::new(run.key.uid, run.gid);
            run.rec.mmap(pid, start, end, pgoff, path, build_id);
        }
    }

    fn sample(&mut self, pid: u32, sample: &SampleInfo, stack: SampledStack) {
        let Slot::Job(key) = self.slot(pid) else {
            self.excluded_samples += 1;
            return;
        };
        if let Err(e) = self.make_dir(&key) {
            self.note(e.to_string());
        }
        let Some(run) = self.jobs.get_mut(&key) else {
            self.excluded_samples += 1;
            return;
        };
        if run.stopped.is_some() || !run.dir_made {
            run.dropped += 1;
            return;
        }
        let before = run.rec.stats.samples;
        let errors = run.rec.sink.errors.len();
        {
            let _fs = AsUser::new(run.key.uid, run.gid);
            run.rec.sample(pid, sample, stack);
        }
        if run.rec.stats.samples > before {
            run.samples += 1;
            self.samples += 1;
        } else if run.rec.sink.errors.len() > errors {
            // A full disk or a failed stream: counted, the daemon goes on.
            run.dropped += 1;
        }
    }

    fn lost(&mut self, pid: Option<u32>, count: u64) {
        match pid.and_then(|p| self.job_of(p)) {
            Some(run) => run.rec.lost(pid, count),
            None => self.unattributed_lost += count,
        }
    }

    fn exit(&mut self, pid: u32, tid: u32, time_ns: u64) {
        if pid != tid {
            return;
        }
        match self.slots.get(&pid) {
            Some(Slot::Job(_)) => self.leave_job(pid, time_ns),
            Some(_) => {
                self.slots.remove(&pid);
            }
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::user_name;

    /// A post the daemon runs as a job's user is never sampled, even when
    /// its first samples come before its fork record (they are read from
    /// another CPU's buffer): it is found to be the daemon's child by its
    /// parent, not counted as a job of that user.
    #[test]
    fn the_daemons_children_are_never_a_job_even_before_their_fork_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = Config {
            dir: dir.path().to_path_buf(),
            // This user's processes are sampled, whatever its uid.
            include_users: vec![user_name(nix::unistd::getuid().as_raw())],
            ..Config::default()
        };
        let mut router = Router::new(cfg, vec![], "fp", 0, None, "/bin/false".into());
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = child.id();
        let info = SampleInfo {
            tid: pid,
            time_ns: 1,
            event: 0,
            weight: 1,
            data_address: None,
        };
        router.sample(pid, &info, SampledStack::Frames(&[0x1000]));
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!((router.samples, router.excluded_samples), (0, 1));
        assert!(router.jobs.is_empty(), "{:?}", router.jobs.keys());
    }
}
