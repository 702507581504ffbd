//! The daemon's [`RecordSink`]: each process's records go to the recording
//! of its job (one run directory per job, see `job_dir`). A process is
//! classified when first seen and again at every exec (a batch system
//! moves a task into its step's cgroup between fork and exec); a fork
//! inherits its parent's job; the daemon's own children (posts) are never
//! sampled. A job ends `job_end_after_s` after its last process did, or at
//! a Slurm epilog's mark. Flushes write the streams' chunks, each job's
//! `manifest.json` and `daemon.json`, enforce the disk caps and save the
//! restart state.

use crate::config::Config;
use crate::control::{JobStatus, Status};
use crate::job::{identify, user_name, JobKey, JobKind};
use crate::job_dir::{self, AsUser};
use crate::post_queue::{PostJob, PostQueue};
use crate::restart::{self, Gap, SavedJob, SavedProcess, SavedState};
use blame_formats::manifest::NodeFileEntry;
use blame_formats::manifest::{EventEntry, Manifest};
use blame_formats::stream::EventDesc;
use blame_sampler::procfs;
use blame_sampler::recording::{
    recording, Layout, Recording, SampleInfo, SampledStack, StreamFiles,
};
use blame_sampler::sink::RecordSink;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
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
/// Ended jobs `status` lists.
const STATUS_ENDED_JOBS: usize = 50;

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

    /// Run directories of earlier daemons (ended jobs): candidates for rotation.
    fn scan_old_runs(&mut self) {
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
    fn open_job(&mut self, key: &JobKey, gid: u32, command: Vec<String>) -> Option<&mut JobRun> {
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
    fn make_dir(&mut self, key: &JobKey) -> Result<(), crate::DaemonError> {
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

    /// Reads /proc and decides where `pid` goes; opens its job.
    fn classify(&mut self, pid: u32) -> Slot {
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
    fn db_of(&mut self, pid: u32, uid: u32, gid: u32) -> Option<PathBuf> {
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

    fn slot(&mut self, pid: u32) -> Slot {
        if let Some(s) = self.slots.get(&pid) {
            return s.clone();
        }
        let s = self.classify(pid);
        self.slots.insert(pid, s.clone());
        s
    }

    /// The job of a process already classified.
    fn job_of(&mut self, pid: u32) -> Option<&mut JobRun> {
        match self.slots.get(&pid) {
            Some(Slot::Job(k)) => self.jobs.get_mut(k),
            _ => None,
        }
    }

    fn leave_job(&mut self, pid: u32, time_ns: u64) {
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
    fn end_job(&mut self, key: &JobKey, state: &str) {
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
    fn rotate(&mut self) {
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

    fn saved_state(&self) -> SavedState {
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

    /// `manifest.json` and `daemon.json` of a job, as its user.
    fn write_job_files(&self, run: &mut JobRun, final_state: Option<&str>) {
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

fn info_path(dir: &Path) -> PathBuf {
    dir.join("daemon.json")
}

fn read_info(dir: &Path) -> Option<JobInfo> {
    let bytes = blame_formats::files::open_regular(info_path(dir))
        .and_then(|mut f| {
            let mut v = Vec::new();
            std::io::Read::read_to_end(&mut f, &mut v)?;
            Ok(v)
        })
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}

fn write_info(dir: &Path, info: &JobInfo, uid: u32, gid: u32) {
    let _fs = AsUser::new(uid, gid);
    if let Ok(mut json) = serde_json::to_vec_pretty(info) {
        json.push(b'\n');
        let _ = blame_formats::files::write_atomic(info_path(dir), &json);
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
