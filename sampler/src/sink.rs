//! What the perf_event sampler's records are fed to: one [`RecordSink`].
//! `blame record` feeds a single [`Recording`] (one run directory);
//! `blame daemon` feeds a router that hands each process's records to the
//! recording of the job the process belongs to.

use crate::recording::{Recording, SampleInfo, SampledStack};

/// The process events and samples a sampler reports, in time order.
pub trait RecordSink {
    /// A new process (`pid == tid`) or thread.
    fn fork(&mut self, pid: u32, ppid: u32, tid: u32);
    /// The process replaced its image.
    fn exec(&mut self, pid: u32, name: &str, time_ns: u64);
    /// A thread was named.
    fn thread_name(&mut self, pid: u32, tid: u32, name: &str);
    /// An executable mapping.
    #[allow(clippy::too_many_arguments)]
    fn mmap(&mut self, pid: u32, start: u64, end: u64, pgoff: u64, path: &str, build_id: Vec<u8>);
    /// A sample of `pid`.
    fn sample(&mut self, pid: u32, sample: &SampleInfo, stack: SampledStack);
    /// Samples the kernel dropped, charged to `pid` when known.
    fn lost(&mut self, pid: Option<u32>, count: u64);
    /// The process (`pid == tid`) or one of its threads ended.
    fn exit(&mut self, pid: u32, tid: u32, time_ns: u64);
}

impl RecordSink for Recording {
    fn fork(&mut self, pid: u32, ppid: u32, tid: u32) {
        Recording::fork(self, pid, ppid, tid)
    }
    fn exec(&mut self, pid: u32, name: &str, time_ns: u64) {
        Recording::exec(self, pid, name, time_ns)
    }
    fn thread_name(&mut self, pid: u32, tid: u32, name: &str) {
        Recording::thread_name(self, pid, tid, name)
    }
    fn mmap(&mut self, pid: u32, start: u64, end: u64, pgoff: u64, path: &str, build_id: Vec<u8>) {
        Recording::mmap(self, pid, start, end, pgoff, path, build_id)
    }
    fn sample(&mut self, pid: u32, sample: &SampleInfo, stack: SampledStack) {
        Recording::sample(self, pid, sample, stack)
    }
    fn lost(&mut self, pid: Option<u32>, count: u64) {
        Recording::lost(self, pid, count)
    }
    fn exit(&mut self, pid: u32, tid: u32, time_ns: u64) {
        Recording::exit(self, pid, tid, None, time_ns)
    }
}
