//! One recording from start to end: prepare the run directory, launch the
//! command held before exec (or attach to a pid), open perf events (falling
//! back to ptrace when the kernel refuses them), run the sampling loop,
//! forward Ctrl-C/SIGTERM to the target, and close every file validly.
//!
//! This file holds the options and `record`, which takes those steps in
//! order, and the recording under way (`Run`); its modules hold the steps
//! with a job of their own: the output directory made ready and locked
//! (`output_dir`), perf_event opened with its fallbacks or the ptrace
//! sampler seized (`open_sampler`), and the notices and manifest of a
//! closed recording (`closing`).

mod closing;
mod open_sampler;
mod output_dir;

use output_dir::prepare_dir;

use crate::events::{parse_events, EventSpec};
use crate::perf::PerfSession;
use crate::ptrace::PtraceSampler;
use crate::recording::{recording, Layout, Recording, StreamFiles};
use crate::stop::Control;
use crate::{procfs, sys, CallGraph, RecordError, SamplerError, UsageError};
use blame_formats::manifest::Manifest;
use blame_formats::stream::{EventDesc, Sampling};
use std::path::PathBuf;
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

fn own_rank() -> Option<u32> {
    procfs::rank_from_vars(|name| std::env::var(name).ok()?.parse().ok()).0
}

/// Records as `opts` says and returns the manifest written.
pub fn record(opts: &RecordOptions) -> Result<RecordSummary, RecordError> {
    let sampling = sampling_of(opts)?;
    let default_event = opts.events.is_none();
    let events =
        parse_events(opts.events.as_deref().unwrap_or("cycles")).map_err(UsageError::Events)?;
    check_duration(&opts.target)?;
    let rank = own_rank();
    // Held until the recording is complete.
    let _lock = prepare_dir(&opts.output, opts.force, rank)?;
    let stop = stop_on_signals()?;

    let start_unix_ns = procfs::unix_time_ns();
    let (root, tids, held) = start_target(opts)?;
    let attach = held.is_none();
    let mut run = Run {
        opts,
        sampling,
        default_event,
        events,
        notices: Vec::new(),
        held,
        ring_kib: None,
    };

    // perf_event first; ptrace when refused (or asked for).
    let mut session = None;
    if opts.sampler != SamplerKind::Ptrace {
        session = run.open_perf(&tids, attach)?;
    }
    let mut stack_size = opts.stack_size;
    let sampler_name = if session.is_some() {
        "perf_event"
    } else {
        "ptrace"
    };
    let mut ptrace = None;
    if session.is_none() {
        ptrace = Some(run.seize_ptrace(&tids, &mut stack_size)?);
    }

    let descs: Vec<_> = run
        .events
        .iter()
        .map(|e| e.desc(run.sampling.clone()))
        .collect();
    let call_graph = if ptrace.is_some() {
        "ptrace"
    } else {
        opts.call_graph.name()
    };
    let mut rec = run.new_recording(descs, call_graph, sampler_name, rank, stack_size);
    if attach {
        rec.adopt(root);
    }
    let mut control = Control::new(root, attach, stop, deadline_of(&opts.target));
    run.sample(
        session.as_mut(),
        ptrace.as_mut(),
        attach,
        &mut rec,
        &mut control,
    )?;

    rec.finish(procfs::monotonic_ns());
    if let Some((exit, signal)) = control.root_status {
        rec.sink.set_exit_status(root, exit, signal);
    }
    let lost = run.closing_notices(&rec, &control, stack_size);
    let manifest = run.manifest(
        &mut rec,
        &control,
        sampler_name,
        call_graph,
        start_unix_ns,
        lost,
    );
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

/// The sampling `-F` or `-c` asks for (`DEFAULT_HZ` when neither does).
fn sampling_of(opts: &RecordOptions) -> Result<Sampling, RecordError> {
    if opts.frequency.is_some() && opts.period.is_some() {
        return Err(UsageError::RateAndPeriod.into());
    }
    let sampling = match (opts.frequency, opts.period) {
        (_, Some(0)) | (Some(0), _) => return Err(UsageError::RateNotPositive.into()),
        (_, Some(p)) => Sampling::Period(p),
        (Some(f), None) => Sampling::Frequency(f),
        (None, None) => Sampling::Frequency(DEFAULT_HZ),
    };
    Ok(sampling)
}

/// An attached recording's duration, when it has one, must be positive.
fn check_duration(target: &Target) -> Result<(), RecordError> {
    if let Target::Pid {
        duration: Some(d), ..
    } = target
    {
        if d.is_zero() {
            return Err(UsageError::DurationNotPositive.into());
        }
    }
    Ok(())
}

/// The flag SIGINT, SIGTERM and SIGHUP set (to their number): the
/// sampling loop stops and forwards them to the target.
fn stop_on_signals() -> Result<Arc<AtomicUsize>, RecordError> {
    let stop = Arc::new(AtomicUsize::new(0));
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        signal_hook::flag::register_usize(sig, stop.clone(), sig as usize)
            .map_err(|e| RecordError::Sampler(SamplerError::Signals(e)))?;
    }
    Ok(stop)
}

/// The target's root process and threads: the command launched and held
/// before exec (its environment preloading the allocation tracer when
/// asked), or the running process attached to.
fn start_target(
    opts: &RecordOptions,
) -> Result<(u32, Vec<u32>, Option<sys::HeldChild>), RecordError> {
    Ok(match &opts.target {
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
    })
}

/// How long an attached recording lasts, when it is limited.
fn deadline_of(target: &Target) -> Option<Duration> {
    match target {
        Target::Pid {
            duration: Some(d), ..
        } => Some(*d),
        _ => None,
    }
}

/// One recording under way: its options, the sampling and events decided
/// so far, the notices the manifest will hold, the command held before
/// exec, and the ring buffers' size once perf_event opened them.
struct Run<'a> {
    opts: &'a RecordOptions,
    sampling: Sampling,
    /// No events were named: `cycles`, or `cpu-clock` without a PMU.
    default_event: bool,
    events: Vec<EventSpec>,
    notices: Vec<String>,
    held: Option<sys::HeldChild>,
    ring_kib: Option<u64>,
}

impl Run<'_> {
    /// The recording's process table and files (a node file, or a stream
    /// per process), with the vDSO and, for kernel frames, kallsyms saved.
    fn new_recording(
        &mut self,
        descs: Vec<EventDesc>,
        call_graph: &str,
        sampler_name: &str,
        rank: Option<u32>,
        stack_size: u32,
    ) -> Recording {
        let opts = self.opts;
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
                &mut self.notices,
                format!("cannot save the vDSO ({e}): samples in it (clock_gettime) stay unnamed"),
            );
        }
        if opts.kernel {
            if let Err(e) = rec.sink.with_kernel_frames() {
                notice(
                    &mut self.notices,
                    format!("cannot save /proc/kallsyms ({e}): kernel frames stay unsymbolized"),
                );
            }
        }
        rec
    }

    /// Lets the held command run and samples until `control` says stop.
    fn sample(
        &mut self,
        session: Option<&mut PerfSession>,
        ptrace: Option<&mut PtraceSampler>,
        attach: bool,
        rec: &mut Recording,
        control: &mut Control,
    ) -> Result<(), RecordError> {
        if let Some(session) = session {
            if attach {
                session.enable()?;
            }
            release(&mut self.held, &self.opts.target)?;
            run_perf(session, rec, control);
        } else if let Some(sampler) = ptrace {
            release(&mut self.held, &self.opts.target)?;
            sampler.run(rec, control);
        }
        Ok(())
    }
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
