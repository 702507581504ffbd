//! When a recording's sampling loop stops (shared by the perf_event and
//! the ptrace sampler): the launched command ended (reaped here or by the
//! sampler), the attached process is gone, `--duration` passed, or a
//! signal came (forwarded to the command first, which gets a grace
//! period). Flushes the streams once a second on the way.

use crate::recording::Recording;
use nix::sys::signal::Signal;
use nix::sys::wait::{waitpid, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long the target may take to stop after a forwarded signal.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// When the sampling loop stops: the root ended, a signal, the duration.
pub struct Control {
    root: u32,
    attach: bool,
    stop: Arc<AtomicUsize>,
    deadline: Option<Instant>,
    forwarded_at: Option<Instant>,
    /// Exit code and signal of the root process, once known.
    pub root_status: Option<(Option<i32>, Option<i32>)>,
    pub interrupted: Option<i32>,
    last_flush: Instant,
}

impl Control {
    /// `duration`: how long to sample an attached process (`--duration`).
    pub fn new(
        root: u32,
        attach: bool,
        stop: Arc<AtomicUsize>,
        duration: Option<Duration>,
    ) -> Control {
        let deadline = duration.map(|d| Instant::now() + d);
        Control {
            root,
            attach,
            stop,
            deadline,
            forwarded_at: None,
            root_status: None,
            interrupted: None,
            last_flush: Instant::now(),
        }
    }

    pub fn root(&self) -> u32 {
        self.root
    }

    /// Called by the loops once per round; true when sampling must stop.
    /// `root_gone` is the sampler's own knowledge that the root ended.
    pub fn should_stop(&mut self, rec: &mut Recording, reap_root: bool) -> bool {
        if self.last_flush.elapsed() >= Duration::from_secs(1) {
            rec.flush_all();
            self.last_flush = Instant::now();
        }
        if reap_root && !self.attach && self.root_status.is_none() {
            match waitpid(Pid::from_raw(self.root as i32), Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::Exited(_, code)) => self.root_status = Some((Some(code), None)),
                Ok(WaitStatus::Signaled(_, sig, _)) => {
                    self.root_status = Some((None, Some(sig as i32)))
                }
                _ => {}
            }
        }
        if self.root_status.is_some() {
            return true;
        }
        // An attached process ended: its exit record (or ptrace's) removed it,
        // or it is gone from /proc.
        if self.attach
            && (!rec.is_live(self.root) || !Path::new(&format!("/proc/{}", self.root)).exists())
        {
            return true;
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return true;
        }
        let sig = self.stop.swap(0, Ordering::SeqCst);
        if sig != 0 {
            if self.forwarded_at.is_some() || self.attach {
                // A second signal, or nothing of ours to stop: stop now.
                self.interrupted = Some(sig as i32);
                return true;
            }
            self.interrupted = Some(sig as i32);
            if let Ok(s) = Signal::try_from(sig as i32) {
                let _ = nix::sys::signal::kill(Pid::from_raw(self.root as i32), s);
            }
            self.forwarded_at = Some(Instant::now());
        }
        self.forwarded_at.is_some_and(|t| t.elapsed() >= STOP_GRACE)
    }

    /// Records the root's status learned by the sampler itself (ptrace's waitpid).
    pub fn set_root_status(&mut self, exit: Option<i32>, signal: Option<i32>) {
        self.root_status = Some((exit, signal));
    }
}
