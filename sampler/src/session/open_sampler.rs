//! The sampler of a recording: perf events opened with the fallbacks the
//! kernel allows (smaller ring buffers, `cpu-clock` for `cycles` without a
//! PMU, the ptrace sampler when perf_event is refused), or the ptrace
//! sampler seized, and the notices and errors that say why.

use super::{notice, Run, SamplerKind};
use crate::events::parse_events;
use crate::perf::{OpenFailure, PerfConfig, PerfSession, Scope};
use crate::ptrace::PtraceSampler;
use crate::RingBufferRefused;
use crate::{sys, CallGraph, RecordError, SamplerError, Unsupported, UsageError};
use blame_formats::stream::Sampling;

impl Run<'_> {
    /// Opens perf events for `tids`, falling back as the kernel allows:
    /// `cpu-clock` for a default `cycles` without a PMU, and `None` (the
    /// ptrace sampler) when ring buffers or perf_event_open are refused and
    /// the sampler is `Auto`. Any other refusal aborts the held command.
    pub(super) fn open_perf(
        &mut self,
        tids: &[u32],
        attach: bool,
    ) -> Result<Option<PerfSession>, RecordError> {
        let opts = self.opts;
        loop {
            let cfg = PerfConfig {
                events: &self.events,
                sampling: self.sampling.clone(),
                call_graph: opts.call_graph,
                kernel: opts.kernel,
                stack_size: opts.stack_size,
                data_addresses: opts.data_addresses,
            };
            match PerfSession::open(&cfg, Scope::Threads(tids), !attach) {
                Ok(s) => {
                    let page_kb = sys::page_size() / 1024;
                    if s.ring_pages < s.plan.wanted {
                        notice(&mut self.notices, smaller_rings(&s, page_kb));
                    }
                    self.ring_kib = Some((s.ring_pages * page_kb) as u64);
                    return Ok(Some(s));
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
                            &mut self.notices,
                            format!("{why}; falling back to the ptrace sampler (raise `ulimit -l` or kernel.perf_event_mlock_kb to sample with perf_event)"),
                        );
                        return Ok(None);
                    }
                    if let Some(c) = self.held.take() {
                        c.abort();
                    }
                    return Err(SamplerError::RingBuffer(why).into());
                }
                Err(OpenFailure::Unsupported { event, error }) => {
                    if self.default_event && event == "cycles" {
                        notice(
                            &mut self.notices,
                            "no hardware PMU for `cycles` on this machine; sampling `cpu-clock` instead".into(),
                        );
                        self.events = parse_events("cpu-clock").map_err(UsageError::Events)?;
                        continue;
                    }
                    if let Some(c) = self.held.take() {
                        c.abort();
                    }
                    return Err(Unsupported::Event { event, error }.into());
                }
                Err(OpenFailure::NotPermitted(e)) if opts.sampler == SamplerKind::Auto => {
                    notice(&mut self.notices, perf_refused(&e));
                    return Ok(None);
                }
                Err(OpenFailure::NotPermitted(e)) => {
                    if let Some(c) = self.held.take() {
                        c.abort();
                    }
                    return Err(SamplerError::NotPermitted(e).into());
                }
                Err(OpenFailure::Open(e)) => {
                    if let Some(c) = self.held.take() {
                        c.abort();
                    }
                    return Err(SamplerError::Open(e).into());
                }
            }
        }
    }

    /// Seizes `tids` with the ptrace sampler: clock events only
    /// (`cpu-clock` when none were named), and a stack copy of at least
    /// `DWARF_STACK_SIZE` bytes (`stack_size` raised to it).
    pub(super) fn seize_ptrace(
        &mut self,
        tids: &[u32],
        stack_size: &mut u32,
    ) -> Result<PtraceSampler, RecordError> {
        if self.default_event {
            self.events = parse_events("cpu-clock").map_err(UsageError::Events)?;
        }
        if let Some(e) = self.events.iter().find(|e| !e.is_clock) {
            if let Some(c) = self.held.take() {
                c.abort();
            }
            return Err(Unsupported::PtraceEvent {
                event: e.name.clone(),
            }
            .into());
        }
        let hz = match self.sampling {
            Sampling::Frequency(hz) => hz,
            Sampling::Period(ns) => (1_000_000_000 / ns).max(1),
        };
        // ptrace reads the stack itself and has no frame-pointer callchain:
        // hybrid's small window (or fp's none) would cut its stacks.
        if self.opts.call_graph != CallGraph::Dwarf {
            *stack_size = (*stack_size).max(crate::DWARF_STACK_SIZE);
        }
        PtraceSampler::seize(tids, hz, *stack_size as usize).map_err(|e| ptrace_refused(tids, e))
    }
}

/// The notice of ring buffers smaller than the mode asks for.
fn smaller_rings(s: &PerfSession, page_kb: usize) -> String {
    format!(
        "perf ring buffers of {} KiB per CPU instead of {} KiB: this user may lock {}; bursts of samples may be lost (raise `ulimit -l` for larger buffers)",
        s.ring_pages * page_kb,
        s.plan.wanted * page_kb,
        s.plan
            .limit
            .map(|l| l.describe())
            .unwrap_or_else(|| "less than the mode asks for".into())
    )
}

/// The notice of perf_event_open refused, with the paranoid level.
fn perf_refused(e: &std::io::Error) -> String {
    let level = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "?".into());
    format!(
        "perf_event_open refused ({e}; kernel.perf_event_paranoid={level}, or a seccomp/container policy); falling back to the ptrace sampler"
    )
}

/// The error of a ptrace seize refused: the process named and, when it is
/// another user's, why.
fn ptrace_refused(tids: &[u32], e: nix::Error) -> RecordError {
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
}
