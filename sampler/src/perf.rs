//! The perf_event sampler: one event per CPU for the target (inherited by
//! every descendant process and thread), one ring buffer per CPU, records
//! of all buffers merged by time and fed to the [`Recording`], stacks
//! unwound as they arrive.

use crate::events::EventSpec;
use crate::sink::RecordSink;
use crate::sys::{self, RingBuffer};
use crate::{CallGraph, RecordError, SamplerError};
use blame_capture::perf_records::{self, PerfRecord, RecordParseInfo, SampleFormat, REGS_MASK};
use blame_capture::process_table::{SampleInfo, SampledStack};
use blame_formats::stream::Sampling;

use perf_event_open_sys::bindings::perf_event_attr;
use rustc_hash::FxHashMap;
use std::os::fd::{AsFd, OwnedFd};

/// How the events are opened.
pub struct PerfConfig<'a> {
    pub events: &'a [EventSpec],
    pub sampling: Sampling,
    pub call_graph: CallGraph,
    pub kernel: bool,
    /// Bytes of user stack copied with each sample (dwarf and hybrid modes).
    pub stack_size: u32,
    /// Sample data addresses with every event (memory events always have them).
    pub data_addresses: bool,
}

/// Whose threads the events count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope<'a> {
    /// These threads and (inherited) every process and thread they start:
    /// a launched command or an attached process.
    Threads(&'a [u32]),
    /// Every process on every CPU (`blame daemon`: root or
    /// `perf_event_paranoid` <= 0).
    SystemWide,
}

impl Scope<'_> {
    /// The `pid` arguments of perf_event_open for this scope.
    fn pids(&self) -> Vec<i32> {
        match self {
            Scope::Threads(tids) => tids.iter().map(|&t| t as i32).collect(),
            Scope::SystemWide => vec![-1],
        }
    }
}

/// Why opening failed, for the caller to choose a fallback.
#[derive(Debug, thiserror::Error)]
pub enum OpenFailure {
    /// The ring buffers do not fit in the memory this user may lock, even
    /// at the smallest size worth sampling with.
    #[error("perf ring buffers of {pages} pages per CPU do not fit in the memory this user may lock: {error}")]
    RingBuffer {
        /// Data pages per CPU of the last size tried.
        pages: usize,
        error: std::io::Error,
        plan: RingPlan,
    },
    /// The kernel refuses perf_event_open to this user (paranoid level, seccomp, container).
    #[error("perf_event_open refused: {0}")]
    NotPermitted(#[source] std::io::Error),
    /// The event cannot be counted on this machine (no PMU for it).
    #[error("event '{event}' is not supported on this machine ({error})")]
    Unsupported {
        event: String,
        error: std::io::Error,
    },
    #[error(transparent)]
    Open(OpenError),
}

/// What failed opening the events, other than the failures a caller
/// chooses a fallback for.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("perf_event_open({event}): {error}")]
    Event {
        event: String,
        error: std::io::Error,
    },
    #[error(
        "-F {hz} is above the kernel's limit of {limit} samples per second \
             (kernel.perf_event_max_sample_rate, in \
             /proc/sys/kernel/perf_event_max_sample_rate): lower -F, or as root \
             raise the limit with `sysctl -w kernel.perf_event_max_sample_rate={hz}`"
    )]
    RateAboveLimit { hz: u64, limit: u64 },
    #[error("perf_event_attr: {0}")]
    Attr(#[source] std::io::Error),
    #[error("{0}")]
    EventId(#[source] std::io::Error),
    #[error("mmap of the perf ring buffer ({kib} KiB): {error}")]
    Mmap { kib: usize, error: std::io::Error },
    #[error("PERF_EVENT_IOC_SET_OUTPUT: {0}")]
    SetOutput(#[source] std::io::Error),
    #[error("no events")]
    NoEvents,
    #[error("perf_event_open failed")]
    Failed,
}

impl OpenError {
    /// The kernel refused an attribute (EINVAL): older kernels, or a
    /// stricter paranoid level, may take the next, plainer attempt.
    fn is_invalid_argument(&self) -> bool {
        let error = match self {
            OpenError::Event { error, .. } | OpenError::Mmap { error, .. } => error,
            OpenError::Attr(error) | OpenError::EventId(error) | OpenError::SetOutput(error) => {
                error
            }
            OpenError::RateAboveLimit { .. } | OpenError::NoEvents | OpenError::Failed => {
                return false
            }
        };
        error.raw_os_error() == Some(libc::EINVAL)
    }
}

/// What the locked-memory limits of an unprivileged user allow for perf
/// ring buffers (see `perf_mmap` in the kernel): `perf_event_mlock_kb` per
/// online CPU for the user, then `RLIMIT_MEMLOCK` for the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MlockLimit {
    /// `kernel.perf_event_mlock_kb`.
    pub mlock_kb: u64,
    pub online_cpus: u64,
    /// `ulimit -l` in KiB; `None` when unlimited.
    pub rlimit_kb: Option<u64>,
}

impl MlockLimit {
    /// The limits of this process, `None` when it may lock any amount
    /// (CAP_IPC_LOCK, as root has, or `perf_event_paranoid` -1).
    pub fn of_this_process() -> Option<MlockLimit> {
        let paranoid: i64 = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(2);
        if paranoid < 0 || crate::procfs::has_capability(CAP_IPC_LOCK) {
            return None;
        }
        let mlock_kb = std::fs::read_to_string("/proc/sys/kernel/perf_event_mlock_kb")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(516);
        Some(MlockLimit {
            mlock_kb,
            online_cpus: crate::procfs::online_cpus() as u64,
            rlimit_kb: crate::procfs::memlock_limit().map(|b| b / 1024),
        })
    }

    /// Pages all ring buffers together may lock; `None` when unlimited.
    fn budget_pages(&self, page: usize) -> Option<u64> {
        let page_kb = (page / 1024).max(1) as u64;
        Some(self.mlock_kb / page_kb * self.online_cpus + self.rlimit_kb? / page_kb)
    }

    pub fn describe(&self) -> String {
        format!(
            "kernel.perf_event_mlock_kb={} KiB per CPU ({} CPUs) plus `ulimit -l` {}",
            self.mlock_kb,
            self.online_cpus,
            match self.rlimit_kb {
                Some(kb) => format!("{kb} KiB"),
                None => "unlimited".into(),
            }
        )
    }
}

/// CAP_IPC_LOCK: lock any amount of memory.
const CAP_IPC_LOCK: u32 = 14;

/// Sizes of the ring buffers, in data pages per CPU (powers of two).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RingPlan {
    /// What the call-graph mode wants (bursts fit while the recorder drains).
    pub wanted: usize,
    /// The first size to try: `wanted`, capped by the locked-memory budget.
    pub first: usize,
    /// The smallest size worth recording with: a few of the largest records.
    pub floor: usize,
    /// The limits that capped `first`, when limited.
    pub limit: Option<MlockLimit>,
}

/// Plans ring buffers for `rings` CPUs: the mode's size, halved until all
/// of them (each with its metadata page) fit the budget, but not below a
/// floor of four of the largest records.
pub fn plan_rings(
    call_graph: CallGraph,
    stack_size: u32,
    rings: usize,
    limit: Option<MlockLimit>,
    page: usize,
) -> RingPlan {
    let wanted = match call_graph {
        // 8 MiB and 2 MiB per CPU: a burst of samples (page faults
        // sampled one by one) fits while the recorder drains.
        CallGraph::Dwarf => 2048,
        // 4 MiB: records of a small copy and a callchain are a third of dwarf's or less.
        CallGraph::Hybrid => 1024,
        CallGraph::Fp => 512,
    };
    let record = match call_graph {
        CallGraph::Dwarf => stack_size as usize + 1024,
        // The copy, a callchain of up to 127 frames and the rest of the sample.
        CallGraph::Hybrid => stack_size as usize + 2048,
        CallGraph::Fp => 2048,
    };
    let floor = (4 * record).div_ceil(page).next_power_of_two().max(8);
    let mut first = wanted;
    if let Some(budget) = limit.and_then(|l| l.budget_pages(page)) {
        while first > floor && (first as u64 + 1) * rings.max(1) as u64 > budget {
            first /= 2;
        }
    }
    RingPlan {
        wanted,
        first,
        floor: floor.min(wanted),
        limit,
    }
}

/// Open perf events of one recording.
pub struct PerfSession {
    rings: Vec<RingBuffer>,
    /// Events that write into another event's ring buffer.
    others: Vec<OwnedFd>,
    /// How each event's records are laid out (its attributes' sample
    /// format), by event index.
    parse_infos: Vec<RecordParseInfo>,
    event_of_id: FxHashMap<u64, u16>,
    buf: Vec<u8>,
    offsets: Vec<(usize, usize)>,
    kernel: bool,
    call_graph: CallGraph,
    /// Data pages of each ring buffer, and the plan they came from.
    pub ring_pages: usize,
    pub plan: RingPlan,
}

fn attr_for(
    event: &EventSpec,
    cfg: &PerfConfig,
    leader: bool,
    enable_on_exec: bool,
    with_build_id: bool,
    exclude_kernel: bool,
    wakeup_bytes: u32,
) -> perf_event_attr {
    let mut a = perf_event_attr {
        type_: event.type_,
        config: event.config,
        ..Default::default()
    };
    match cfg.sampling {
        Sampling::Frequency(hz) => {
            a.set_freq(1);
            a.__bindgen_anon_1.sample_freq = hz;
        }
        Sampling::Period(p) => a.__bindgen_anon_1.sample_period = p,
    }
    let mut st = SampleFormat::IDENTIFIER
        | SampleFormat::IP
        | SampleFormat::TID
        | SampleFormat::TIME
        | SampleFormat::PERIOD;
    if cfg.data_addresses || event.desc(cfg.sampling.clone()).memory {
        st |= SampleFormat::ADDR;
    }
    match cfg.call_graph {
        CallGraph::Fp => {
            st |= SampleFormat::CALLCHAIN;
            if !cfg.kernel {
                a.set_exclude_callchain_kernel(1);
            }
        }
        CallGraph::Hybrid => {
            // The user callchain (and the kernel's when asked) plus a small
            // copy of the innermost stack bytes to unwind frames without
            // frame pointers from.
            st |= SampleFormat::CALLCHAIN | SampleFormat::REGS_USER | SampleFormat::STACK_USER;
            a.sample_regs_user = REGS_MASK;
            a.sample_stack_user = cfg.stack_size;
            if !cfg.kernel {
                a.set_exclude_callchain_kernel(1);
            }
        }
        CallGraph::Dwarf => {
            st |= SampleFormat::REGS_USER | SampleFormat::STACK_USER;
            a.sample_regs_user = REGS_MASK;
            a.sample_stack_user = cfg.stack_size;
            if cfg.kernel {
                st |= SampleFormat::CALLCHAIN;
                a.set_exclude_callchain_user(1);
            }
        }
    }
    a.sample_type = st.bits();
    a.set_disabled(1);
    a.set_inherit(1);
    a.set_enable_on_exec(enable_on_exec as u64);
    a.set_exclude_hv(1);
    a.set_exclude_kernel(exclude_kernel as u64);
    a.set_sample_id_all(1);
    a.set_use_clockid(1);
    a.clockid = libc::CLOCK_MONOTONIC;
    if leader {
        a.set_mmap(1);
        a.set_mmap2(1);
        a.set_comm(1);
        a.set_comm_exec(1);
        a.set_task(1);
        a.set_build_id(with_build_id as u64);
        a.set_watermark(1);
        a.__bindgen_anon_2.wakeup_watermark = wakeup_bytes;
    }
    a
}

/// Bytes of records after which the kernel wakes the recorder: a quarter
/// of the ring. Each wakeup costs the sampled thread an interrupt and a
/// cross-CPU wakeup in its own time (the kernel raises it from the sample),
/// so the recorder drains mostly on its own poll timeout and is woken only
/// when a burst fills a quarter of the ring first.
fn wakeup_watermark(ring_bytes: usize) -> u32 {
    (ring_bytes / 4).clamp(4096, u32::MAX as usize) as u32
}

fn classify(err: std::io::Error, event: &EventSpec) -> OpenFailure {
    match err.raw_os_error() {
        Some(libc::EACCES) | Some(libc::EPERM) => OpenFailure::NotPermitted(err),
        Some(libc::ENOENT) | Some(libc::EOPNOTSUPP) | Some(libc::ENODEV) | Some(libc::EINVAL)
            if event.is_hardware() =>
        {
            OpenFailure::Unsupported {
                event: event.name.clone(),
                error: err,
            }
        }
        _ => OpenFailure::Open(OpenError::Event {
            event: event.name.clone(),
            error: err,
        }),
    }
}

/// The kernel's highest sampling frequency for perf events
/// (`kernel.perf_event_max_sample_rate`), when it says.
pub fn max_sample_rate() -> Option<u64> {
    std::fs::read_to_string("/proc/sys/kernel/perf_event_max_sample_rate")
        .ok()?
        .trim()
        .parse()
        .ok()
}

impl PerfSession {
    /// Opens every event on every CPU for the threads `tids` (one pid for a
    /// launched command, which inherits to its descendants; each thread of
    /// an attached process). Launched commands start counting at exec.
    pub fn open(
        cfg: &PerfConfig,
        scope: Scope,
        enable_on_exec: bool,
    ) -> Result<PerfSession, OpenFailure> {
        if let Sampling::Frequency(hz) = cfg.sampling {
            if let Some(limit) = max_sample_rate() {
                if hz > limit {
                    return Err(OpenFailure::Open(OpenError::RateAboveLimit { hz, limit }));
                }
            }
        }
        let pids = scope.pids();
        let tids = &pids[..];
        let plan = plan_rings(
            cfg.call_graph,
            cfg.stack_size,
            sys::possible_cpus(),
            MlockLimit::of_this_process(),
            sys::page_size(),
        );
        // The budget is an estimate (other perf users of this account lock
        // memory too): halve on refusal down to the floor.
        let mut pages = plan.first;
        loop {
            match Self::open_sized(cfg, tids, enable_on_exec, pages) {
                Ok(mut s) => {
                    s.ring_pages = pages;
                    s.plan = plan;
                    return Ok(s);
                }
                Err(OpenFailure::RingBuffer { error, .. }) if pages > plan.floor => {
                    let _ = error;
                    pages /= 2;
                }
                Err(OpenFailure::RingBuffer { error, .. }) => {
                    return Err(OpenFailure::RingBuffer { pages, error, plan })
                }
                Err(e) => return Err(e),
            }
        }
    }

    fn open_sized(
        cfg: &PerfConfig,
        tids: &[i32],
        enable_on_exec: bool,
        data_pages: usize,
    ) -> Result<PerfSession, OpenFailure> {
        // Try the richest attributes first, then what older kernels or a
        // stricter paranoid level accept.
        let attempts = [(true, false), (false, false), (false, true)];
        let mut last = None;
        for (with_build_id, exclude_kernel) in attempts {
            if exclude_kernel && cfg.kernel {
                break;
            }
            match Self::open_with(
                cfg,
                tids,
                enable_on_exec,
                with_build_id,
                exclude_kernel,
                data_pages,
            ) {
                Ok(s) => return Ok(s),
                Err(OpenFailure::Open(e)) if e.is_invalid_argument() => {
                    last = Some(OpenFailure::Open(e))
                }
                Err(OpenFailure::NotPermitted(e)) => last = Some(OpenFailure::NotPermitted(e)),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or(OpenFailure::Open(OpenError::Failed)))
    }

    fn open_with(
        cfg: &PerfConfig,
        tids: &[i32],
        enable_on_exec: bool,
        with_build_id: bool,
        exclude_kernel: bool,
        data_pages: usize,
    ) -> Result<PerfSession, OpenFailure> {
        let mut rings = Vec::new();
        let mut others = Vec::new();
        let mut event_of_id = FxHashMap::default();
        let mut parse_infos = Vec::new();
        for cpu in 0..sys::possible_cpus() as i32 {
            let mut leader: Option<RingBuffer> = None;
            for &tid in tids {
                for (index, event) in cfg.events.iter().enumerate() {
                    let is_leader = leader.is_none();
                    let mut attr = attr_for(
                        event,
                        cfg,
                        is_leader,
                        enable_on_exec,
                        with_build_id,
                        exclude_kernel,
                        wakeup_watermark(data_pages * sys::page_size()),
                    );
                    // A CPU-wide event sees every task already: nothing to inherit.
                    attr.set_inherit((tid != -1) as u64);
                    if parse_infos.len() == index {
                        let info = perf_records::parse_info_of_attr(&sys::attr_bytes(&attr))
                            .map_err(|e| OpenFailure::Open(OpenError::Attr(e)))?;
                        parse_infos.push(info);
                    }
                    let fd = match sys::perf_event_open(&attr, tid, cpu) {
                        Ok(fd) => fd,
                        // A CPU that is offline has no events to open.
                        Err(e) if e.raw_os_error() == Some(libc::ENODEV) && cpu > 0 => break,
                        Err(e) => return Err(classify(e, event)),
                    };
                    let id =
                        sys::event_id(&fd).map_err(|e| OpenFailure::Open(OpenError::EventId(e)))?;
                    event_of_id.insert(id, index as u16);
                    match &leader {
                        None => {
                            leader = Some(RingBuffer::map(fd, data_pages).map_err(|e| {
                                match e.raw_os_error() {
                                    // Over the locked-memory limit.
                                    Some(libc::EPERM) | Some(libc::ENOMEM) => {
                                        OpenFailure::RingBuffer {
                                            pages: data_pages,
                                            error: e,
                                            plan: plan_rings(
                                                cfg.call_graph,
                                                cfg.stack_size,
                                                1,
                                                None,
                                                sys::page_size(),
                                            ),
                                        }
                                    }
                                    _ => OpenFailure::Open(OpenError::Mmap {
                                        kib: data_pages * sys::page_size() / 1024,
                                        error: e,
                                    }),
                                }
                            })?)
                        }
                        Some(ring) => {
                            sys::set_output(&fd, ring.fd())
                                .map_err(|e| OpenFailure::Open(OpenError::SetOutput(e)))?;
                            others.push(fd);
                        }
                    }
                }
            }
            if let Some(ring) = leader {
                rings.push(ring);
            }
        }
        Ok(PerfSession {
            rings,
            others,
            parse_infos: if parse_infos.is_empty() {
                return Err(OpenFailure::Open(OpenError::NoEvents));
            } else {
                parse_infos
            },
            event_of_id,
            buf: Vec::with_capacity(1 << 20),
            offsets: Vec::new(),
            kernel: cfg.kernel,
            call_graph: cfg.call_graph,
            ring_pages: data_pages,
            plan: plan_rings(cfg.call_graph, cfg.stack_size, 1, None, sys::page_size()),
        })
    }

    /// Starts counting now (attached processes; launched ones start at exec).
    pub fn enable(&self) -> Result<(), RecordError> {
        for fd in self.rings.iter().map(|r| r.fd()).chain(self.others.iter()) {
            sys::enable(fd).map_err(|e| RecordError::Sampler(SamplerError::Enable(e)))?;
        }
        Ok(())
    }

    /// Stops counting (the ring buffers stay readable).
    pub fn disable(&self) {
        for fd in self.rings.iter().map(|r| r.fd()).chain(self.others.iter()) {
            let _ = sys::disable(fd);
        }
    }

    /// Waits up to `timeout_ms` for data in any ring buffer.
    pub fn wait(&self, timeout_ms: u16) {
        let mut fds: Vec<nix::poll::PollFd> = self
            .rings
            .iter()
            .map(|r| nix::poll::PollFd::new(r.fd().as_fd(), nix::poll::PollFlags::POLLIN))
            .collect();
        let _ = nix::poll::poll(&mut fds, nix::poll::PollTimeout::from(timeout_ms));
    }

    /// Reads every ring buffer, merges the records by time and feeds them
    /// to `rec`. Returns how many records were read.
    pub fn drain(&mut self, rec: &mut impl RecordSink) -> usize {
        self.buf.clear();
        self.offsets.clear();
        let mut ring_of = Vec::new();
        for (i, ring) in self.rings.iter_mut().enumerate() {
            let n = ring.drain(&mut self.buf, &mut self.offsets);
            ring_of.extend(std::iter::repeat_n(i, n));
        }
        let mut parsed: Vec<(PerfRecord, u64, usize)> = self
            .offsets
            .iter()
            .zip(ring_of)
            .filter_map(|(&(start, len), ring)| {
                let bytes = &self.buf[start..start + len];
                // Each event's records are laid out by its own attributes.
                let info = perf_records::record_identifier(bytes)
                    .and_then(|id| self.event_of_id.get(&id))
                    .and_then(|&event| self.parse_infos.get(usize::from(event)))
                    .unwrap_or(&self.parse_infos[0]);
                let raw = perf_records::raw_record(bytes, *info)?;
                let time = raw.timestamp().unwrap_or(0);
                perf_records::parse(&raw).ok().map(|r| (r, time, ring))
            })
            .collect();
        // Records of one buffer are in time order; merge the buffers.
        parsed.sort_by_key(|(_, time, _)| *time);
        let n = parsed.len();
        let mut last_pid_of_ring: Vec<Option<u32>> = vec![None; self.rings.len()];
        for (record, time, ring) in parsed {
            match record {
                PerfRecord::Sample(s) => {
                    last_pid_of_ring[ring] = Some(s.pid.unwrap_or(0) as u32);
                    self.sample(rec, &s);
                }
                PerfRecord::Mmap {
                    pid,
                    start,
                    len,
                    pgoff,
                    executable,
                    build_id,
                    path,
                    ..
                } => {
                    if executable {
                        let path = String::from_utf8_lossy(&path);
                        let build_id = build_id.unwrap_or_default();
                        rec.mmap(pid as u32, start, start + len, pgoff, &path, build_id);
                    }
                }
                PerfRecord::Comm {
                    pid,
                    tid,
                    exec,
                    name,
                } => {
                    if exec && pid == tid {
                        rec.exec(pid as u32, &name, time);
                    } else {
                        rec.thread_name(pid as u32, tid as u32, &name);
                    }
                }
                PerfRecord::Fork { pid, ppid, tid } => {
                    rec.fork(pid as u32, ppid as u32, tid as u32)
                }
                PerfRecord::Exit { pid, tid, time } => rec.exit(pid as u32, tid as u32, time),
                PerfRecord::Lost { count } => rec.lost(last_pid_of_ring[ring], count),
                PerfRecord::Other => {}
            }
        }
        n
    }

    fn sample(&self, rec: &mut impl RecordSink, s: &perf_records::Sample) {
        let event = self
            .event_of_id
            .get(&s.id.unwrap_or(0))
            .copied()
            .unwrap_or(0);
        let kernel: &[u64] = if self.kernel { &s.kernel_chain } else { &[] };
        let copy: &[u8] = s.stack.as_deref().unwrap_or_default();
        let frames: Vec<u64>;
        let ip = s.ip.unwrap_or(0);
        let stack = if let (Some((bp, sp, ip)), CallGraph::Hybrid) = (s.regs, self.call_graph) {
            SampledStack::Hybrid {
                ip,
                sp,
                bp,
                stack: copy,
                chain: &s.user_chain,
                kernel,
            }
        } else if let Some((bp, sp, ip)) = s.regs {
            SampledStack::Raw {
                ip,
                sp,
                bp,
                stack: copy,
                kernel,
            }
        } else if !s.user_chain.is_empty() || !kernel.is_empty() {
            frames = kernel.iter().chain(&s.user_chain).copied().collect();
            SampledStack::Frames(&frames)
        } else if ip != 0 && self.call_graph == CallGraph::Fp {
            frames = vec![ip];
            SampledStack::Frames(&frames)
        } else {
            // Dwarf mode without user registers: a kernel thread's sample.
            return;
        };
        let sample = SampleInfo {
            tid: s.tid.unwrap_or(0) as u32,
            time_ns: s.time.unwrap_or(0),
            event,
            weight: s.period.unwrap_or(1),
            // Events without a precise data source report address 0: no address.
            data_address: s.addr.filter(|&a| a != 0),
        };
        rec.sample(s.pid.unwrap_or(0) as u32, &sample, stack);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The attributes the sampler opens, as the capture layer's parser reads them.
    fn opened(
        events: &[EventSpec],
        call_graph: CallGraph,
    ) -> Vec<(perf_event_attr, RecordParseInfo)> {
        let cfg = PerfConfig {
            events,
            sampling: Sampling::Frequency(1000),
            call_graph,
            kernel: false,
            stack_size: call_graph.default_stack_size(),
            data_addresses: false,
        };
        events
            .iter()
            .map(|e| {
                let a = attr_for(e, &cfg, true, true, true, false, 1 << 16);
                let info = perf_records::parse_info_of_attr(&sys::attr_bytes(&a)).unwrap();
                (a, info)
            })
            .collect()
    }

    #[test]
    fn each_event_is_parsed_with_the_layout_it_was_opened_with() {
        let events = crate::events::parse_events("cpu-clock,cache-misses").unwrap();
        for call_graph in [CallGraph::Hybrid, CallGraph::Dwarf, CallGraph::Fp] {
            let opened = opened(&events, call_graph);
            for (a, info) in &opened {
                assert_eq!(info.sample_format.bits(), a.sample_type);
                assert_eq!(info.sample_regs_user, a.sample_regs_user);
                assert!(info.common_data_offset_from_end.is_some(), "sample_id_all");
            }
            // cache-misses is a memory event: it alone samples data addresses.
            assert!(!opened[0].1.sample_format.contains(SampleFormat::ADDR));
            assert!(opened[1].1.sample_format.contains(SampleFormat::ADDR));
        }
        // A memory event's sample in fp mode: id, ip, pid/tid, time, addr, period, callchain.
        let info = opened(&events, CallGraph::Fp)[1].1;
        let user = u64::MAX - 511;
        let words = [
            42u64,
            0x401000,
            (7 << 32) | 5,
            1_000,
            0xdead0,
            3,
            2,
            user,
            0x401000,
        ];
        let mut rec = 9u32.to_ne_bytes().to_vec();
        rec.extend(0u16.to_ne_bytes());
        rec.extend(((8 + 8 * words.len()) as u16).to_ne_bytes());
        rec.extend(words.iter().flat_map(|w| w.to_ne_bytes()));
        assert_eq!(perf_records::record_identifier(&rec), Some(42));
        let raw = perf_records::raw_record(&rec, info).unwrap();
        let Ok(PerfRecord::Sample(s)) = perf_records::parse(&raw) else {
            panic!("not a sample")
        };
        assert_eq!(
            (s.pid, s.tid, s.addr, s.period),
            (Some(5), Some(7), Some(0xdead0), Some(3))
        );
        assert_eq!(s.user_chain, [0x401000]);
    }

    #[test]
    fn the_recorder_is_woken_at_a_quarter_of_its_ring() {
        // 4 MiB hybrid ring: woken after 1 MiB of records (~450 samples),
        // not every 64 KiB as before; never below a page.
        assert_eq!(wakeup_watermark(4 << 20), 1 << 20);
        assert_eq!(wakeup_watermark(8 * 4096), 8192);
        assert_eq!(wakeup_watermark(4096), 4096);
    }

    fn limit(mlock_kb: u64, cpus: u64, rlimit_kb: Option<u64>) -> Option<MlockLimit> {
        Some(MlockLimit {
            mlock_kb,
            online_cpus: cpus,
            rlimit_kb,
        })
    }

    #[test]
    fn rings_shrink_to_the_locked_memory_budget() {
        // Root (or CAP_IPC_LOCK): what the mode wants.
        let root = plan_rings(CallGraph::Dwarf, 8192, 2, None, 4096);
        assert_eq!((root.wanted, root.first), (2048, 2048));
        // Debian's defaults for a user: 516 KiB per CPU plus ulimit -l 8 MiB.
        // Two 8 MiB rings need 16 MiB; two 4 MiB rings fit.
        let user = plan_rings(CallGraph::Dwarf, 8192, 2, limit(516, 2, Some(8192)), 4096);
        assert_eq!(user.first, 1024);
        assert!((user.first as u64 + 1) * 2 <= 129 * 2 + 2048);
        // ulimit -l 64 KiB: little more than what perf_event_mlock_kb gives, 128 + 1 pages per CPU.
        let tight = plan_rings(CallGraph::Dwarf, 8192, 2, limit(516, 2, Some(64)), 4096);
        assert_eq!(tight.first, 128);
        // Never below the floor: four records of the largest size.
        let none = plan_rings(CallGraph::Dwarf, 8192, 64, limit(4, 1, Some(0)), 4096);
        assert_eq!(none.first, none.floor);
        assert_eq!(
            none.floor, 16,
            "4 x (8 KiB stack + 1 KiB) in 4 KiB pages, to a power of two"
        );
        let big_stacks = plan_rings(CallGraph::Dwarf, 65528, 1, None, 4096);
        assert_eq!(big_stacks.floor, 128);
        let fp = plan_rings(CallGraph::Fp, 8192, 2, limit(516, 2, Some(64)), 4096);
        assert_eq!((fp.wanted, fp.first, fp.floor), (512, 128, 8));
    }
}
