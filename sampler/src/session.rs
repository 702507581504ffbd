//! One recording from start to end: prepare the run directory, launch the
//! command held before exec (or attach to a pid), open perf events (falling
//! back to ptrace when the kernel refuses them), run the sampling loop,
//! forward Ctrl-C/SIGTERM to the target, and close every file validly.

use crate::events::{parse_events, EventSpec};
use crate::perf::{OpenFailure, PerfConfig, PerfSession, Scope};
use crate::ptrace::PtraceSampler;
use crate::recording::{recording, Layout, Recording, StreamFiles};
use crate::stop::Control;
use crate::RingBufferRefused;
use crate::{procfs, sys, CallGraph, RecordError, SamplerError, Unsupported, UsageError};
use blame_formats::files;
use blame_formats::lock::RunDirLock;
use blame_formats::manifest::{EventEntry, Manifest, RecordedDb};
use blame_formats::run_dir;
use blame_formats::stream::Sampling;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use std::time::Duration;

/// What to record.
#[derive(Debug, Clone)]
pub enum Target {
    /// Launch this command and follow it and all its descendants.
    Command(Vec<String>),
    /// Attach to a running process and its threads, until it ends or `duration` passes.
    Pid {
        pid: u32,
        duration: Option<Duration>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SamplerKind {
    /// perf_event, or ptrace when the kernel refuses perf_event_open.
    Auto,
    Perf,
    Ptrace,
}

#[derive(Debug, Clone)]
pub struct RecordOptions {
    pub target: Target,
    pub output: PathBuf,
    /// Comma-separated event names; None: `cycles`, or `cpu-clock` without a PMU.
    pub events: Option<String>,
    pub frequency: Option<u64>,
    pub period: Option<u64>,
    pub call_graph: CallGraph,
    pub kernel: bool,
    pub sampler: SamplerKind,
    /// Bytes of user stack copied per sample for dwarf unwinding.
    pub stack_size: u32,
    /// Replace the sample streams of an earlier recording in `output`.
    pub force: bool,
    /// Preload the allocation tracer: heap blocks logged per process for direct attribution.
    pub track_allocations: bool,
    /// Record each sample's data address (PERF_SAMPLE_ADDR), as `perf record -d`.
    pub data_addresses: bool,
    /// One `*.bstream` file per process image (the layout before node
    /// files) instead of one node file per recorder.
    pub per_process_files: bool,
}

pub struct RecordSummary {
    pub manifest: Manifest,
    pub manifest_path: PathBuf,
    /// Writes of streams that failed (the recording is incomplete).
    pub write_errors: usize,
}

/// Default sampling rate, as `perf record -F`.
const DEFAULT_HZ: u64 = 1000;

fn notice(notices: &mut Vec<String>, text: String) {
    eprintln!("blame record: {text}");
    notices.push(text);
}

/// Makes `dir` ready for a recording and locks it: a directory of the
/// user's own where files can be created, used by no other recorder or
/// reader, without an earlier recording unless `force` (or this recorder is
/// MPI rank `rank` of a job whose ranks share the directory).
fn prepare_dir(dir: &Path, force: bool, rank: Option<u32>) -> Result<RunDirLock, RecordError> {
    let io = |error| RecordError::Io {
        path: dir.to_path_buf(),
        error,
    };
    // Walked from `/` and made component by component, every parent
    // checked: a parent another user owns (or may write) could be swapped
    // for a link to root's files while the recording runs.
    files::open_dir_checked(dir, true).map_err(|e| {
        if files::is_unsafe_path(&e) {
            RecordError::Usage(UsageError::OutputDir(e))
        } else {
            io(e)
        }
    })?;
    // Another user's directory: its owner could swap the preloaded
    // allocation tracer or plant files before they are used.
    files::check_own_dir(dir).map_err(|e| RecordError::Usage(UsageError::OutputDir(e)))?;
    files::check_writable_dir(dir).map_err(|e| {
        // A path longer than the system allows (a relative -o under a deep
        // working directory): say how long and what to do.
        let why = if e.raw_os_error() == Some(libc::ENAMETOOLONG) {
            let full = std::env::current_dir()
                .map(|cwd| cwd.join(dir))
                .unwrap_or_else(|_| dir.to_path_buf());
            format!(
                "its path is {} bytes, longer than the system allows (PATH_MAX {}): record to a shorter -o path (an absolute one such as /tmp/run)",
                full.as_os_str().len(),
                libc::PATH_MAX
            )
        } else {
            e.to_string()
        };
        io(std::io::Error::new(
            e.kind(),
            format!("cannot create files here: {why}"),
        ))
    })?;
    let lock = RunDirLock::record(dir, rank).map_err(|e| match e.kind() {
        std::io::ErrorKind::WouldBlock => RecordError::Busy(e),
        _ => io(e),
    })?;
    if rank.is_some() {
        // One recorder per rank shares the directory: names never collide.
        return Ok(lock);
    }
    let old = run_dir::recording_files(dir).map_err(io)?;
    if old.is_empty() {
        return Ok(lock);
    }
    if !force {
        return Err(RecordError::Usage(UsageError::HoldsRecording {
            dir: dir.to_path_buf(),
            files: old.len(),
        }));
    }
    // Results computed from the recording being replaced are stale too.
    let results = run_dir::results_files(dir).map_err(io)?;
    for p in old.into_iter().chain(results) {
        std::fs::remove_file(&p).map_err(|error| RecordError::Io { path: p, error })?;
    }
    Ok(lock)
}

/// Lets the held child exec; when the exec fails, reaps the child and says why.
fn release(held: &mut Option<sys::HeldChild>, target: &Target) -> Result<(), RecordError> {
    let Some(c) = held else {
        return Ok(());
    };
    match c.release() {
        Ok(()) => Ok(()),
        Err(error) => {
            if let Some(c) = held.take() {
                c.abort();
            }
            Err(RecordError::CannotRun {
                command: match target {
                    Target::Command(argv) => argv[0].clone(),
                    Target::Pid { pid, .. } => pid.to_string(),
                },
                error,
            })
        }
    }
}

/// Write errors, each once with how often it happened (a full disk fails
/// every write of every stream the same way).
fn summarize_errors(errors: &[String]) -> Vec<String> {
    let mut distinct: Vec<(&String, usize)> = Vec::new();
    for e in errors {
        match distinct.iter_mut().find(|(d, _)| *d == e) {
            Some((_, n)) => *n += 1,
            None => distinct.push((e, 1)),
        }
    }
    const SHOWN: usize = 5;
    let mut out: Vec<String> = distinct
        .iter()
        .take(SHOWN)
        .map(|(e, n)| match n {
            1 => format!("write error: {e}"),
            n => format!("write error ({n} times): {e}"),
        })
        .collect();
    if distinct.len() > SHOWN {
        let rest: usize = distinct[SHOWN..].iter().map(|(_, n)| n).sum();
        out.push(format!(
            "{rest} more write errors of {} other kinds",
            distinct.len() - SHOWN
        ));
    }
    out
}

fn own_rank() -> Option<u32> {
    procfs::rank_from_vars(|name| std::env::var(name).ok()?.parse().ok()).0
}

/// Records as `opts` says and returns the manifest written.
pub fn record(opts: &RecordOptions) -> Result<RecordSummary, RecordError> {
    if opts.frequency.is_some() && opts.period.is_some() {
        return Err(UsageError::RateAndPeriod.into());
    }
    let sampling = match (opts.frequency, opts.period) {
        (_, Some(0)) | (Some(0), _) => return Err(UsageError::RateNotPositive.into()),
        (_, Some(p)) => Sampling::Period(p),
        (Some(f), None) => Sampling::Frequency(f),
        (None, None) => Sampling::Frequency(DEFAULT_HZ),
    };
    let mut notices = Vec::new();
    let default_event = opts.events.is_none();
    let mut events =
        parse_events(opts.events.as_deref().unwrap_or("cycles")).map_err(UsageError::Events)?;
    if let Target::Pid {
        duration: Some(d), ..
    } = &opts.target
    {
        if d.is_zero() {
            return Err(UsageError::DurationNotPositive.into());
        }
    }
    let rank = own_rank();
    // Held until the recording is complete.
    let _lock = prepare_dir(&opts.output, opts.force, rank)?;

    let stop = Arc::new(AtomicUsize::new(0));
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        signal_hook::flag::register_usize(sig, stop.clone(), sig as usize)
            .map_err(|e| RecordError::Sampler(SamplerError::Signals(e)))?;
    }

    let start_unix_ns = procfs::unix_time_ns();
    let (root, tids, held) = match &opts.target {
        Target::Command(argv) => {
            if argv.is_empty() {
                return Err(UsageError::NoCommand.into());
            }
            let env = if opts.track_allocations {
                crate::alloc_tracking::install(&opts.output).map_err(|error| RecordError::Io {
                    path: opts.output.clone(),
                    error,
                })?
            } else {
                Vec::new()
            };
            let child = sys::fork_held(argv, &env)
                .map_err(|e| RecordError::Sampler(SamplerError::Fork(e)))?;
            (child.pid as u32, vec![child.pid as u32], Some(child))
        }
        Target::Pid { pid, .. } => {
            if opts.track_allocations {
                return Err(UsageError::TrackingNeedsCommand.into());
            }
            let tids = procfs_tasks(*pid);
            if tids.is_empty() {
                return Err(UsageError::NoSuchProcess { pid: *pid }.into());
            }
            (*pid, tids, None)
        }
    };
    let attach = held.is_none();
    let mut held = held;

    // perf_event first; ptrace when refused (or asked for).
    let mut session = None;
    let mut ring_kib = None;
    if opts.sampler != SamplerKind::Ptrace {
        loop {
            let cfg = PerfConfig {
                events: &events,
                sampling: sampling.clone(),
                call_graph: opts.call_graph,
                kernel: opts.kernel,
                stack_size: opts.stack_size,
                data_addresses: opts.data_addresses,
            };
            match PerfSession::open(&cfg, Scope::Threads(&tids), !attach) {
                Ok(s) => {
                    let page_kb = sys::page_size() / 1024;
                    if s.ring_pages < s.plan.wanted {
                        notice(
                            &mut notices,
                            format!(
                                "perf ring buffers of {} KiB per CPU instead of {} KiB: this user may lock {}; bursts of samples may be lost (raise `ulimit -l` for larger buffers)",
                                s.ring_pages * page_kb,
                                s.plan.wanted * page_kb,
                                s.plan
                                    .limit
                                    .map(|l| l.describe())
                                    .unwrap_or_else(|| "less than the mode asks for".into())
                            ),
                        );
                    }
                    ring_kib = Some((s.ring_pages * page_kb) as u64);
                    session = Some(s);
                    break;
                }
                Err(OpenFailure::RingBuffer { pages, error, plan }) => {
                    let why = RingBufferRefused {
                        limit: plan
                            .limit
                            .map(|l| l.describe())
                            .unwrap_or_else(|| "limit unknown".into()),
                        cpus: sys::possible_cpus(),
                        kib: pages * sys::page_size() / 1024,
                        error,
                    };
                    if opts.sampler == SamplerKind::Auto {
                        notice(
                            &mut notices,
                            format!("{why}; falling back to the ptrace sampler (raise `ulimit -l` or kernel.perf_event_mlock_kb to sample with perf_event)"),
                        );
                        break;
                    }
                    if let Some(c) = held.take() {
                        c.abort();
                    }
                    return Err(SamplerError::RingBuffer(why).into());
                }
                Err(OpenFailure::Unsupported { event, error }) => {
                    if default_event && event == "cycles" {
                        notice(
                            &mut notices,
                            "no hardware PMU for `cycles` on this machine; sampling `cpu-clock` instead".into(),
                        );
                        events = parse_events("cpu-clock").map_err(UsageError::Events)?;
                        continue;
                    }
                    if let Some(c) = held.take() {
                        c.abort();
                    }
                    return Err(Unsupported::Event { event, error }.into());
                }
                Err(OpenFailure::NotPermitted(e)) if opts.sampler == SamplerKind::Auto => {
                    let level = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
                        .map(|s| s.trim().to_string())
                        .unwrap_or_else(|_| "?".into());
                    notice(
                        &mut notices,
                        format!(
                            "perf_event_open refused ({e}; kernel.perf_event_paranoid={level}, or a seccomp/container policy); falling back to the ptrace sampler"
                        ),
                    );
                    break;
                }
                Err(OpenFailure::NotPermitted(e)) => {
                    if let Some(c) = held.take() {
                        c.abort();
                    }
                    return Err(SamplerError::NotPermitted(e).into());
                }
                Err(OpenFailure::Open(e)) => {
                    if let Some(c) = held.take() {
                        c.abort();
                    }
                    return Err(SamplerError::Open(e).into());
                }
            }
        }
    }
    let mut stack_size = opts.stack_size;
    let sampler_name = if session.is_some() {
        "perf_event"
    } else {
        "ptrace"
    };
    let mut ptrace = None;
    if session.is_none() {
        if default_event {
            events = parse_events("cpu-clock").map_err(UsageError::Events)?;
        }
        if let Some(e) = events.iter().find(|e| !e.is_clock) {
            if let Some(c) = held.take() {
                c.abort();
            }
            return Err(Unsupported::PtraceEvent {
                event: e.name.clone(),
            }
            .into());
        }
        let hz = match sampling {
            Sampling::Frequency(hz) => hz,
            Sampling::Period(ns) => (1_000_000_000 / ns).max(1),
        };
        // ptrace reads the stack itself and has no frame-pointer callchain:
        // hybrid's small window (or fp's none) would cut its stacks.
        if opts.call_graph != CallGraph::Dwarf {
            stack_size = stack_size.max(crate::DWARF_STACK_SIZE);
        }
        ptrace = Some(
            PtraceSampler::seize(&tids, hz, stack_size as usize).map_err(|e| {
                // Name the process and, when it is another user's, why.
                let pid = tids.first().copied().unwrap_or(0);
                let owner = std::fs::metadata(format!("/proc/{pid}"))
                    .ok()
                    .map(|m| std::os::unix::fs::MetadataExt::uid(&m));
                let me = std::fs::metadata("/proc/self")
                    .map(|m| std::os::unix::fs::MetadataExt::uid(&m))
                    .unwrap_or(0);
                RecordError::Sampler(SamplerError::Ptrace {
                    pid,
                    error: e,
                    owner,
                    me,
                })
            })?,
        );
    }

    let descs: Vec<_> = events.iter().map(|e| e.desc(sampling.clone())).collect();
    let call_graph = if ptrace.is_some() {
        "ptrace"
    } else {
        opts.call_graph.name()
    };
    let extra = vec![
        ("sampler".to_string(), sampler_name.to_string()),
        ("blame".to_string(), env!("CARGO_PKG_VERSION").to_string()),
        (
            "kernel".to_string(),
            nix::sys::utsname::uname()
                .map(|u| u.release().to_string_lossy().into_owned())
                .unwrap_or_default(),
        ),
    ];
    let layout = if opts.per_process_files {
        Layout::PerProcess
    } else {
        Layout::node_file(&procfs::hostname(), rank)
    };
    let mut rec =
        recording(StreamFiles::new(&opts.output, descs, call_graph, extra).with_layout(layout));
    rec.stack_copy_size = stack_size;
    if let Err(e) = rec.sink.with_vdso() {
        notice(
            &mut notices,
            format!("cannot save the vDSO ({e}): samples in it (clock_gettime) stay unnamed"),
        );
    }
    if opts.kernel {
        if let Err(e) = rec.sink.with_kernel_frames() {
            notice(
                &mut notices,
                format!("cannot save /proc/kallsyms ({e}): kernel frames stay unsymbolized"),
            );
        }
    }
    if attach {
        rec.adopt(root);
    }
    let deadline = match &opts.target {
        Target::Pid {
            duration: Some(d), ..
        } => Some(*d),
        _ => None,
    };
    let mut control = Control::new(root, attach, stop, deadline);
    if let Some(session) = &mut session {
        if attach {
            session.enable()?;
        }
        release(&mut held, &opts.target)?;
        run_perf(session, &mut rec, &mut control);
    } else if let Some(sampler) = &mut ptrace {
        release(&mut held, &opts.target)?;
        sampler.run(&mut rec, &mut control);
    }

    rec.finish(procfs::monotonic_ns());
    if let Some((exit, signal)) = control.root_status {
        rec.sink.set_exit_status(root, exit, signal);
    }
    for e in summarize_errors(&rec.sink.errors) {
        notice(&mut notices, e);
    }
    // A full disk loses samples too: what to do is free space, not sample less.
    let disk_full = rec
        .sink
        .errors
        .iter()
        .any(|e| e.contains("No space left on device") || e.contains("Disk quota exceeded"));
    if disk_full {
        notice(
            &mut notices,
            format!(
                "the disk holding {} is full (or over quota): free space, or record to another directory with -o",
                opts.output.display()
            ),
        );
    }
    let lost: u64 =
        rec.sink.entries.iter().map(|e| e.lost).sum::<u64>() + rec.stats.unattributed_lost;
    if lost > 0 && !disk_full {
        notice(
            &mut notices,
            format!("{lost} samples lost to ring-buffer overruns; lower -F or use --call-graph fp"),
        );
    } else if lost > 0 {
        notice(
            &mut notices,
            format!("{lost} samples lost while the disk was full"),
        );
    }
    // At least 5% of the samples (an unwinder stopping in ld.so's lazy binding
    // trampoline now and then is not worth a notice): say why their stacks
    // lack outer frames.
    if rec.stats.cut_stacks > 0 && rec.stats.cut_stacks * 20 >= rec.stats.samples.max(1) {
        notice(
            &mut notices,
            format!(
                "{} of {} samples ({:.0}%) have stacks cut short at the end of the {}-byte user-stack copy ({}): their outer frames, often main, are missing; {}",
                rec.stats.cut_stacks,
                rec.stats.samples,
                100.0 * rec.stats.cut_stacks as f64 / rec.stats.samples.max(1) as f64,
                stack_size,
                if opts.call_graph == CallGraph::Hybrid {
                    "functions without frame pointers whose frames go past the copy, or that use rbp for data, so the frame-pointer callchain cannot continue there"
                } else {
                    "frames with large local arrays or deep call chains, as in MPI solvers"
                },
                if opts.call_graph == CallGraph::Hybrid {
                    "record with a larger --stack-size (e.g. 8192), or --call-graph dwarf --stack-size 65528"
                } else {
                    "record with --stack-size 65528 (and a lower -F if samples are lost)"
                }
            ),
        );
    }
    if let Some(sig) = control.interrupted {
        notice(
            &mut notices,
            format!("stopped by signal {sig}; every stream was closed"),
        );
    }
    let static_dbs = static_dbs_of(&rec.source.executables);
    let manifest = Manifest {
        command: match &opts.target {
            Target::Command(argv) => argv.clone(),
            Target::Pid { pid, .. } => {
                procfs::cmdline(*pid).unwrap_or_else(|| vec![pid.to_string()])
            }
        },
        host: procfs::hostname(),
        sampler: sampler_name.into(),
        call_graph: call_graph.into(),
        events: events
            .iter()
            .map(|e: &EventSpec| {
                let d = e.desc(sampling.clone());
                let (mode, rate) = match sampling {
                    Sampling::Frequency(hz) => ("frequency", hz),
                    Sampling::Period(p) => ("period", p),
                };
                EventEntry {
                    name: d.name,
                    mode: mode.into(),
                    rate,
                    unit: d.unit,
                    memory: d.memory,
                }
            })
            .collect(),
        start_unix_ns,
        end_unix_ns: procfs::unix_time_ns(),
        exit_status: control.root_status.and_then(|s| s.0),
        signal: control.root_status.and_then(|s| s.1),
        interrupted: control.interrupted.map(|s| format!("signal {s}")),
        samples: rec.stats.samples,
        lost,
        processes: std::mem::take(&mut rec.sink.entries),
        node_files: rec.sink.closed_node_file.take().into_iter().collect(),
        notices,
        cache: procfs::l1_data_cache(),
        ring_buffer_kib: ring_kib,
        static_db: static_dbs.first().map(|d| d.db.clone()),
        static_dbs,
    };
    let manifest_path = manifest
        .write(&opts.output, rank)
        .map_err(|error| RecordError::Io {
            path: opts.output.clone(),
            error,
        })?;
    Ok(RecordSummary {
        manifest,
        manifest_path,
        write_errors: rec.sink.errors.len(),
    })
}

/// The static dbs of the run's executables (launchers left out): each
/// found by its build-id in the stores `blame cc` registers links in
/// ([`blame_formats::db_store::stores`]); when none is, the db of the
/// directory the recording ran in (`$BLAME_DB`, else `.blame/static.db`), if
/// there is one. `blame post` then finds it from any directory.
fn static_dbs_of(executables: &std::collections::BTreeSet<PathBuf>) -> Vec<RecordedDb> {
    use blame_formats::db_store;
    let stores = db_store::stores();
    let apps: Vec<&PathBuf> = executables
        .iter()
        .filter(|e| !blame_formats::stream::is_launcher(&[e.display().to_string()]))
        .collect();
    let mut out: Vec<RecordedDb> = Vec::new();
    for exe in &apps {
        let Some(id) = blame_capture::locate::build_id_of(exe) else {
            continue;
        };
        if let Some(db) = db_store::lookup_any(&stores, &id) {
            if !out.iter().any(|d| d.db == db) {
                out.push(RecordedDb {
                    db,
                    binary: exe.to_path_buf(),
                    build_id: id.iter().map(|b| format!("{b:02x}")).collect(),
                    found_by: "build-id".into(),
                });
            }
        }
    }
    if out.is_empty() {
        let here = run_dir::requested_db(None)
            .unwrap_or_else(|| PathBuf::from(blame_formats::static_db::DEFAULT_PATH));
        if here.is_file() || blame_formats::analysis_queue::dir_of(&here).is_dir() {
            if let Ok(db) = std::path::absolute(&here) {
                out.push(RecordedDb {
                    db,
                    binary: apps.first().map(|e| e.to_path_buf()).unwrap_or_default(),
                    build_id: String::new(),
                    found_by: "directory".into(),
                });
            }
        }
    }
    out
}

fn procfs_tasks(pid: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    let mut tids: Vec<u32> = dir
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    tids.sort();
    tids
}

fn run_perf(session: &mut PerfSession, rec: &mut Recording, control: &mut Control) {
    loop {
        session.wait(50);
        session.drain(rec);
        if control.should_stop(rec, true) {
            break;
        }
    }
    session.disable();
    // Everything the kernel wrote before the events were disabled.
    while session.drain(rec) > 0 {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_write_errors_are_said_once_with_their_count() {
        let mut errors = vec!["pid-1.bstream: No space left on device".to_string(); 498];
        errors.push("pid-2.bstream: No space left on device".into());
        let said = summarize_errors(&errors);
        assert_eq!(
            said,
            [
                "write error (498 times): pid-1.bstream: No space left on device",
                "write error: pid-2.bstream: No space left on device"
            ]
        );
        let many: Vec<String> = (0..9).map(|i| format!("e{i}")).collect();
        let said = summarize_errors(&many);
        assert_eq!(said.len(), 6);
        assert_eq!(said[5], "4 more write errors of 4 other kinds");
    }

    #[test]
    fn a_directory_in_use_or_holding_a_recording_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let run = d.path().join("run");
        let lock = prepare_dir(&run, false, None).unwrap();
        match prepare_dir(&run, true, None) {
            Err(RecordError::Busy(m)) => {
                assert!(m.to_string().contains("another `blame record`"), "{m}")
            }
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("a second recorder got the directory"),
        }
        drop(lock);
        std::fs::write(run.join("pid-1.bstream"), b"").unwrap();
        match prepare_dir(&run, false, None) {
            Err(RecordError::Usage(m)) => assert!(m.to_string().contains("--force"), "{m}"),
            _ => panic!("an earlier recording is kept"),
        }
        prepare_dir(&run, true, None).unwrap();
        assert!(!run.join("pid-1.bstream").exists());
    }

    /// `--force` replaces a recording with everything computed from it.
    #[test]
    fn force_removes_the_results_of_the_replaced_recording() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for f in [
            "pid-1.bstream",
            "manifest.json",
            "results.bres",
            "results.bres.shard-0-of-2",
            "notes.txt",
        ] {
            std::fs::write(d.join(f), b"x").unwrap();
        }
        assert!(matches!(
            prepare_dir(d, false, None),
            Err(RecordError::Usage(_))
        ));
        let _lock = prepare_dir(d, true, None).unwrap();
        for gone in [
            "pid-1.bstream",
            "manifest.json",
            "results.bres",
            "results.bres.shard-0-of-2",
        ] {
            assert!(!d.join(gone).exists(), "{gone}");
        }
        assert!(d.join("notes.txt").exists());
    }
}
