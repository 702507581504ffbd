//! The ptrace sampler, for machines whose kernel refuses perf_event_open:
//! every thread of the target is seized (clone, fork, vfork and exec are
//! followed through ptrace options); at each tick the running threads are
//! interrupted, their registers read and the top of their stack copied with
//! process_vm_readv, and the stack unwound by the same unwinder as perf's
//! samples before the thread is resumed. It samples time (cpu-clock): a
//! thread is sampled only while it is running.

use crate::procfs;
use crate::recording::{Recording, SampleInfo, SampledStack};
use crate::stop::Control;
use nix::sys::ptrace::{self, Event, Options};
use nix::sys::signal::Signal;
use nix::sys::uio::{process_vm_readv, RemoteIoVec};
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;
use std::collections::HashMap;
use std::io::IoSliceMut;
use std::time::{Duration, Instant};

struct Thread {
    tgid: u32,
    /// We asked for an interrupt-stop that has not arrived yet.
    interrupted: bool,
}

pub struct PtraceSampler {
    threads: HashMap<u32, Thread>,
    period: Duration,
    stack: Vec<u8>,
    /// When each process's mappings were last read from /proc.
    maps_read: HashMap<u32, Instant>,
}

const MAPS_REFRESH: Duration = Duration::from_millis(100);

fn options() -> Options {
    Options::PTRACE_O_TRACECLONE
        | Options::PTRACE_O_TRACEFORK
        | Options::PTRACE_O_TRACEVFORK
        | Options::PTRACE_O_TRACEEXEC
}

/// True when the thread is running or runnable (state R in /proc).
fn is_running(tgid: u32, tid: u32) -> bool {
    std::fs::read(format!("/proc/{tgid}/task/{tid}/stat"))
        .ok()
        .and_then(|s| {
            let close = s.iter().rposition(|&b| b == b')')?;
            s.get(close + 2).copied()
        })
        == Some(b'R')
}

impl PtraceSampler {
    /// Seizes the threads `tids` (of one process: the first is its pid).
    pub fn seize(tids: &[u32], hz: u64, stack_size: usize) -> nix::Result<PtraceSampler> {
        let tgid = tids[0];
        let mut threads = HashMap::new();
        for &tid in tids {
            ptrace::seize(Pid::from_raw(tid as i32), options())?;
            threads.insert(
                tid,
                Thread {
                    tgid,
                    interrupted: false,
                },
            );
        }
        Ok(PtraceSampler {
            threads,
            period: Duration::from_nanos(1_000_000_000 / hz.max(1)),
            stack: vec![0; stack_size],
            maps_read: HashMap::new(),
        })
    }

    pub fn run(&mut self, rec: &mut Recording, control: &mut Control) {
        let mut next_tick = Instant::now() + self.period;
        loop {
            self.handle_stops(rec, control);
            if control.should_stop(rec, false) || self.threads.is_empty() {
                break;
            }
            let now = Instant::now();
            if now >= next_tick {
                for (&tid, t) in self.threads.iter_mut() {
                    if !t.interrupted
                        && is_running(t.tgid, tid)
                        && ptrace::interrupt(Pid::from_raw(tid as i32)).is_ok()
                    {
                        t.interrupted = true;
                    }
                }
                next_tick += self.period;
                if next_tick < now {
                    next_tick = now + self.period;
                }
            }
            let wait = next_tick
                .saturating_duration_since(Instant::now())
                .min(Duration::from_micros(200));
            std::thread::sleep(wait);
        }
        // Let every thread go on without us.
        for &tid in self.threads.keys() {
            let _ = ptrace::detach(Pid::from_raw(tid as i32), None);
        }
    }

    fn handle_stops(&mut self, rec: &mut Recording, control: &mut Control) {
        loop {
            let status = match waitpid(None, Some(WaitPidFlag::WNOHANG | WaitPidFlag::__WALL)) {
                Ok(WaitStatus::StillAlive) | Err(_) => return,
                Ok(s) => s,
            };
            match status {
                WaitStatus::PtraceEvent(pid, sig, event) => self.on_event(rec, pid, sig, event),
                WaitStatus::Stopped(pid, sig) => {
                    // Signal-delivery stop: deliver the signal.
                    let _ = ptrace::cont(pid, sig);
                }
                WaitStatus::Exited(pid, code) => self.on_exit(rec, control, pid, Some(code), None),
                WaitStatus::Signaled(pid, sig, _) => {
                    self.on_exit(rec, control, pid, None, Some(sig as i32))
                }
                _ => {}
            }
        }
    }

    fn on_exit(
        &mut self,
        rec: &mut Recording,
        control: &mut Control,
        pid: Pid,
        code: Option<i32>,
        signal: Option<i32>,
    ) {
        let tid = pid.as_raw() as u32;
        let Some(t) = self.threads.remove(&tid) else {
            return;
        };
        if tid == t.tgid {
            rec.exit(tid, tid, Some((code, signal)), procfs::monotonic_ns());
        }
        if tid == control.root() {
            control.set_root_status(code, signal);
        }
    }

    fn on_event(&mut self, rec: &mut Recording, pid: Pid, sig: Signal, event: i32) {
        let tid = pid.as_raw() as u32;
        let tgid = match self.threads.get(&tid) {
            Some(t) => t.tgid,
            None => procfs::tgid(tid).unwrap_or(tid),
        };
        let new_child = || ptrace::getevent(pid).ok().map(|c| c as u32);
        match event {
            e if e == Event::PTRACE_EVENT_CLONE as i32 => {
                if let Some(child) = new_child() {
                    rec.fork(tgid, tgid, child);
                    self.add_thread(child, tgid);
                }
            }
            e if e == Event::PTRACE_EVENT_FORK as i32 || e == Event::PTRACE_EVENT_VFORK as i32 => {
                if let Some(child) = new_child() {
                    rec.fork(child, tgid, child);
                    self.add_thread(child, child);
                }
            }
            e if e == Event::PTRACE_EVENT_EXEC as i32 => {
                // The exec'ing thread now has the thread-group id; others are gone.
                self.threads.retain(|_, t| t.tgid != tgid);
                self.threads.insert(
                    tgid,
                    Thread {
                        tgid,
                        interrupted: false,
                    },
                );
                let name = procfs::comm(tgid).unwrap_or_default();
                rec.exec(tgid, &name, procfs::monotonic_ns());
                rec.refresh_mappings(tgid);
                let _ = ptrace::cont(Pid::from_raw(tgid as i32), None);
                return;
            }
            e if e == Event::PTRACE_EVENT_STOP as i32 => {
                let ours = self.threads.get(&tid).is_some_and(|t| t.interrupted);
                if ours && sig == Signal::SIGTRAP {
                    self.sample(rec, tid, tgid);
                }
                if let Some(t) = self.threads.get_mut(&tid) {
                    t.interrupted = false;
                }
                if !self.threads.contains_key(&tid) {
                    self.add_thread(tid, tgid);
                }
            }
            _ => {}
        }
        let _ = ptrace::cont(pid, None);
    }

    fn add_thread(&mut self, tid: u32, tgid: u32) {
        self.threads.entry(tid).or_insert(Thread {
            tgid,
            interrupted: false,
        });
    }

    fn sample(&mut self, rec: &mut Recording, tid: u32, tgid: u32) {
        let Ok(regs) = ptrace::getregs(Pid::from_raw(tid as i32)) else {
            return;
        };
        let (ip, sp, bp) = (regs.rip, regs.rsp, regs.rbp);
        // One remote piece per page: a read that runs past the top of the
        // stack then stops at the last readable page instead of failing.
        let page = 4096usize;
        let mut remote = Vec::new();
        let (mut at, end) = (sp as usize, sp as usize + self.stack.len());
        while at < end {
            let next = ((at / page) + 1) * page;
            remote.push(RemoteIoVec {
                base: at,
                len: next.min(end) - at,
            });
            at = next;
        }
        let read = process_vm_readv(
            Pid::from_raw(tgid as i32),
            &mut [IoSliceMut::new(&mut self.stack)],
            &remote,
        )
        .unwrap_or(0);
        // ptrace sees no mmap events: re-read the mappings when the pc is
        // outside them and now and then (libraries loaded by ld.so, dlopen).
        let stale = self
            .maps_read
            .get(&tgid)
            .is_none_or(|t| t.elapsed() >= MAPS_REFRESH);
        if stale || !rec.is_mapped(tgid, ip) {
            rec.refresh_mappings(tgid);
            self.maps_read.insert(tgid, Instant::now());
        }
        let sample = SampleInfo {
            tid,
            time_ns: procfs::monotonic_ns(),
            event: 0,
            weight: self.period.as_nanos() as u64,
            data_address: None,
        };
        let stack = SampledStack::Raw {
            ip,
            sp,
            bp,
            stack: &self.stack[..read],
            kernel: &[],
        };
        rec.sample(tgid, &sample, stack);
    }
}
