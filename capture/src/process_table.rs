//! The one table of profiled processes, for live recording and for
//! perf.data import: each process's current image (command line, MPI
//! rank, executable mappings, thread names) and unwinder, followed through
//! fork, exec, mmap and exit. Samples are unwound here and handed, with
//! the image they belong to, to an [`ImageSink`]: the recorder's stream
//! files, or the importer's images in memory. What a record does not say
//! about a process (its command line, mappings made before recording
//! started) comes from a [`ProcessSource`]: `/proc` while recording,
//! nothing in a file.

use crate::unwind::{HybridWalk, ObjectCache, ProcessUnwinder, MAX_FRAMES};
use blame_formats::stream::Mapping;
use std::collections::HashMap;

/// How a sample's stack arrives.
pub enum SampledStack<'a> {
    /// Addresses already walked (kernel callchain, or unwound elsewhere), innermost first.
    Frames(&'a [u64]),
    /// Registers and a copy of the user stack starting at `sp`, to unwind
    /// here, below `kernel` frames (innermost first) when kernel stacks are wanted.
    Raw {
        ip: u64,
        sp: u64,
        bp: u64,
        stack: &'a [u8],
        kernel: &'a [u64],
    },
    /// Registers, a small copy of the user stack at `sp` and the kernel's
    /// user frame-pointer callchain: unwound here by
    /// [`ProcessUnwinder::unwind_hybrid`], below `kernel` frames.
    Hybrid {
        ip: u64,
        sp: u64,
        bp: u64,
        stack: &'a [u8],
        chain: &'a [u64],
        kernel: &'a [u64],
    },
}

/// What a sample says besides its process and stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampleInfo {
    pub tid: u32,
    pub time_ns: u64,
    /// Index of the event in the capture's events.
    pub event: u16,
    /// The sample's period (events or nanoseconds).
    pub weight: u64,
    /// The sampled data address, when the event has one.
    pub data_address: Option<u64>,
}

/// One process's current image, as the sinks see it.
#[derive(Debug, Clone, Default)]
pub struct Process {
    pub pid: u32,
    pub ppid: u32,
    pub command: Vec<String>,
    pub rank: Option<u32>,
    pub world_size: Option<u32>,
    /// Executable mappings of the image, in the order they were made (a
    /// new mapping at the same start replaces the old one).
    pub mappings: Vec<Mapping>,
    pub threads: HashMap<u32, String>,
    /// Samples the kernel dropped while this image ran.
    pub lost: u64,
    /// Numbers the images in the order they appeared (a process's first
    /// record, or an exec after samples): the importer keeps that order.
    pub serial: u64,
}

/// What `/proc` says about an image: none of it for a file.
#[derive(Debug, Clone, Default)]
pub struct ImageFacts {
    pub command: Vec<String>,
    pub rank: Option<u32>,
    pub world_size: Option<u32>,
    /// The main thread's name.
    pub comm: Option<String>,
}

/// What the table learns about processes beyond their records.
pub trait ProcessSource {
    /// The parent of a process first seen without a fork record.
    fn ppid(&mut self, _pid: u32) -> Option<u32> {
        None
    }
    /// The process's current image.
    fn image(&mut self, _pid: u32) -> ImageFacts {
        ImageFacts::default()
    }
    /// Its executable mappings now (made before its first record, or by
    /// a ptrace'd process that reports none).
    fn mappings(&mut self, _pid: u32) -> Vec<Mapping> {
        Vec::new()
    }
    /// How a process ended (exit code, signal) when its exit record says nothing.
    fn exit_status(&mut self, _pid: u32) -> Option<(Option<i32>, Option<i32>)> {
        None
    }
    /// The file to read the unwind tables of mapping `m` from, `None` to
    /// unwind nothing through it. May fill in the mapping's build-id.
    fn unwind_file(&mut self, objects: &mut ObjectCache, m: &mut Mapping) -> Option<String>;
}

/// Where the table's images go. `Image` is the sink's open output of one
/// process image, opened at its first sample (images without samples
/// leave nothing).
pub trait ImageSink {
    type Image;
    /// The first sample of `p`'s image: `None` when the output cannot be opened.
    fn open(&mut self, p: &Process, time_ns: u64) -> Option<Self::Image>;
    /// A mapping made while the image's output is open.
    fn mapping(&mut self, _image: &mut Self::Image, _m: &Mapping) {}
    /// A thread named while the image's output is open.
    fn thread_name(&mut self, _image: &mut Self::Image, _pid: u32, _tid: u32, _name: &str) {}
    /// One sample and its walked stack, innermost first; false when it could not be kept.
    fn sample(&mut self, image: &mut Self::Image, sample: &SampleInfo, frames: &[u64]) -> bool;
    /// Samples the kernel dropped while the image's output is open.
    fn lost(&mut self, _image: &mut Self::Image, _count: u64) {}
    /// The image ended: the process exec'd (`end` None), exited (`end`
    /// Some, with exit code and signal when known) or the capture ended.
    fn close(
        &mut self,
        image: Self::Image,
        p: &Process,
        end: Option<(Option<i32>, Option<i32>)>,
        time_ns: u64,
    );
    /// Pushes buffered output of an open image to the OS.
    fn flush(&mut self, _image: &mut Self::Image) {}
    /// Every image is closed: the capture ends.
    fn finish(&mut self) {}
}

/// Counts over the samples the table saw.
#[derive(Debug, Clone, Default)]
pub struct CaptureStats {
    /// Samples the sink kept.
    pub samples: u64,
    /// Samples whose stack could not be walked past the sampled address.
    pub shallow_stacks: u64,
    /// Samples whose walk ran past the end of a full stack copy: their
    /// outer frames (often `main`) are missing.
    pub cut_stacks: u64,
    /// Hybrid samples unwound from the copy, then continued with the callchain.
    pub stitched_stacks: u64,
    /// Samples the kernel dropped that could not be tied to one process.
    pub unattributed_lost: u64,
}

struct Slot<I> {
    process: Process,
    unwinder: ProcessUnwinder,
    image: Option<I>,
}

/// The table of processes, feeding `S` and asking `P`.
pub struct ProcessTable<S: ImageSink, P: ProcessSource> {
    pub sink: S,
    pub source: P,
    pub stats: CaptureStats,
    /// Bytes of user stack each sample copies (`--stack-size`), 0 when unknown.
    pub stack_copy_size: u32,
    objects: ObjectCache,
    procs: rustc_hash::FxHashMap<u32, Slot<S::Image>>,
    frames: Vec<u64>,
    next_serial: u64,
}

impl<S: ImageSink, P: ProcessSource> ProcessTable<S, P> {
    pub fn new(sink: S, source: P, objects: ObjectCache) -> Self {
        ProcessTable {
            sink,
            source,
            stats: CaptureStats::default(),
            stack_copy_size: 0,
            objects,
            procs: Default::default(),
            frames: Vec::with_capacity(128),
            next_serial: 0,
        }
    }

    /// The sink, the source and the object files (to share with the next table).
    pub fn into_parts(self) -> (S, P, CaptureStats, ObjectCache) {
        (self.sink, self.source, self.stats, self.objects)
    }

    fn serial(&mut self) -> u64 {
        self.next_serial += 1;
        self.next_serial
    }

    /// The process `pid` to change (the importer's command lines).
    pub fn process_mut(&mut self, pid: u32) -> Option<&mut Process> {
        self.procs.get_mut(&pid).map(|s| &mut s.process)
    }

    /// Registers a process known before its first event (the launched
    /// command, an attached pid) or first seen in a record: what the
    /// source knows of its image and mappings.
    pub fn adopt(&mut self, pid: u32) {
        if self.procs.contains_key(&pid) {
            return;
        }
        let mut slot = Slot {
            process: Process {
                pid,
                ppid: self.source.ppid(pid).unwrap_or(0),
                serial: self.serial(),
                ..Process::default()
            },
            unwinder: ProcessUnwinder::default(),
            image: None,
        };
        self.read_image(&mut slot.process);
        for m in self.source.mappings(pid) {
            self.add_mapping(&mut slot, m);
        }
        self.procs.insert(pid, slot);
    }

    fn read_image(&mut self, p: &mut Process) {
        let facts = self.source.image(p.pid);
        p.command = facts.command;
        p.rank = facts.rank;
        p.world_size = facts.world_size;
        if let Some(name) = facts.comm {
            p.threads.insert(p.pid, name);
        }
    }

    /// A new process (`pid == tid`) or thread.
    pub fn fork(&mut self, pid: u32, ppid: u32, tid: u32) {
        if pid != tid {
            if let Some(s) = self.procs.get_mut(&pid) {
                let p = &mut s.process;
                let name = p.threads.get(&pid).cloned().unwrap_or_default();
                p.threads.entry(tid).or_insert(name);
            }
            return;
        }
        if self.procs.contains_key(&pid) {
            return;
        }
        let serial = self.serial();
        let Some(parent) = self.procs.get(&ppid) else {
            self.adopt(pid);
            return;
        };
        let pp = &parent.process;
        let child = Slot {
            process: Process {
                pid,
                ppid,
                command: pp.command.clone(),
                rank: pp.rank,
                world_size: pp.world_size,
                mappings: pp
                    .mappings
                    .iter()
                    .map(|m| Mapping { pid, ..m.clone() })
                    .collect(),
                threads: pp
                    .threads
                    .get(&ppid)
                    .map(|n| HashMap::from([(pid, n.clone())]))
                    .unwrap_or_default(),
                lost: 0,
                serial,
            },
            unwinder: parent.unwinder.clone(),
            image: None,
        };
        self.procs.insert(pid, child);
    }

    /// The process replaced its image: the old image ends here and the new
    /// one (with its own command line and MPI rank) starts afresh.
    pub fn exec(&mut self, pid: u32, name: &str, time_ns: u64) {
        let Some(mut s) = self.procs.remove(&pid) else {
            self.adopt(pid);
            return;
        };
        if s.image.is_some() {
            self.close_image(&mut s, None, time_ns);
            s.process.serial = self.serial();
        }
        let p = &mut s.process;
        p.mappings.clear();
        s.unwinder.clear();
        p.threads.clear();
        self.read_image(&mut s.process);
        let p = &mut s.process;
        p.threads.insert(pid, name.to_string());
        if p.command.is_empty() {
            p.command = vec![name.to_string()];
        }
        self.procs.insert(pid, s);
    }

    /// A thread was named.
    pub fn thread_name(&mut self, pid: u32, tid: u32, name: &str) {
        let Some(s) = self.procs.get_mut(&pid) else {
            return;
        };
        s.process.threads.insert(tid, name.to_string());
        if let Some(image) = &mut s.image {
            self.sink.thread_name(image, pid, tid, name);
        }
    }

    /// An executable mapping.
    pub fn mmap(
        &mut self,
        pid: u32,
        start: u64,
        end: u64,
        pgoff: u64,
        path: &str,
        build_id: Vec<u8>,
    ) {
        let Some(mut s) = self.procs.remove(&pid) else {
            return;
        };
        let m = Mapping {
            pid,
            start,
            end,
            file_offset: pgoff,
            path: path.to_string(),
            build_id,
        };
        self.add_mapping(&mut s, m);
        self.procs.insert(pid, s);
    }

    fn add_mapping(&mut self, s: &mut Slot<S::Image>, mut m: Mapping) {
        if let Some(file) = self.source.unwind_file(&mut self.objects, &mut m) {
            s.unwinder
                .add_mapping(&mut self.objects, &file, m.start, m.end, m.file_offset);
        }
        s.process.mappings.retain(|old| old.start != m.start);
        if let Some(image) = &mut s.image {
            self.sink.mapping(image, &m);
        }
        s.process.mappings.push(m);
    }

    /// Adds the mappings the source shows that the process does not have
    /// yet (ptrace sampler: dlopen'ed code).
    pub fn refresh_mappings(&mut self, pid: u32) {
        let Some(mut s) = self.procs.remove(&pid) else {
            return;
        };
        for m in self.source.mappings(pid) {
            if !s
                .process
                .mappings
                .iter()
                .any(|old| old.start == m.start && old.path == m.path)
            {
                self.add_mapping(&mut s, m);
            }
        }
        self.procs.insert(pid, s);
    }

    /// True while `pid` is known and has not exited.
    pub fn is_live(&self, pid: u32) -> bool {
        self.procs.contains_key(&pid)
    }

    /// True when `address` lies in a known mapping of `pid`.
    pub fn is_mapped(&self, pid: u32, address: u64) -> bool {
        self.procs.get(&pid).is_some_and(|s| {
            s.process
                .mappings
                .iter()
                .any(|m| address >= m.start && address < m.end)
        })
    }

    /// A sample of `pid`: its stack walked and handed to the sink. The
    /// process's slot is borrowed in place (a sample moves nothing: the
    /// recorder takes thousands per second).
    pub fn sample(&mut self, pid: u32, sample: &SampleInfo, stack: SampledStack) {
        if !self.procs.contains_key(&pid) {
            self.adopt(pid);
        }
        let Some(s) = self.procs.get_mut(&pid) else {
            return;
        };
        let frames = &mut self.frames;
        walk(
            &mut self.stats,
            self.stack_copy_size,
            &mut s.unwinder,
            stack,
            frames,
        );
        if frames.len() <= 1 {
            self.stats.shallow_stacks += 1;
        }
        if !frames.is_empty() {
            if s.image.is_none() {
                s.image = self.sink.open(&s.process, sample.time_ns);
            }
            if let Some(image) = &mut s.image {
                if self.sink.sample(image, sample, frames) {
                    self.stats.samples += 1;
                }
            }
        }
    }

    /// Samples the kernel dropped, charged to `pid` when known.
    pub fn lost(&mut self, pid: Option<u32>, count: u64) {
        match pid.and_then(|pid| self.procs.get_mut(&pid)) {
            Some(s) => {
                s.process.lost += count;
                if let Some(image) = &mut s.image {
                    self.sink.lost(image, count);
                }
            }
            None => self.stats.unattributed_lost += count,
        }
    }

    /// The process (`pid == tid`) or one of its threads ended, with its
    /// exit code and signal when known (else the source is asked).
    pub fn exit(
        &mut self,
        pid: u32,
        tid: u32,
        status: Option<(Option<i32>, Option<i32>)>,
        time_ns: u64,
    ) {
        if pid != tid {
            return;
        }
        let Some(mut s) = self.procs.remove(&pid) else {
            return;
        };
        let status = status.or_else(|| self.source.exit_status(pid));
        self.close_image(&mut s, Some(status.unwrap_or((None, None))), time_ns);
    }

    fn close_image(
        &mut self,
        s: &mut Slot<S::Image>,
        end: Option<(Option<i32>, Option<i32>)>,
        time_ns: u64,
    ) {
        if let Some(image) = s.image.take() {
            self.sink.close(image, &s.process, end, time_ns);
            s.process.lost = 0;
        }
    }

    /// Closes every image still open (the capture ends with the processes
    /// still running), in pid order, then the sink.
    pub fn finish(&mut self, time_ns: u64) {
        let mut pids: Vec<u32> = self.procs.keys().copied().collect();
        pids.sort();
        for pid in pids {
            if let Some(mut s) = self.procs.remove(&pid) {
                self.close_image(&mut s, None, time_ns);
            }
        }
        self.sink.finish();
    }

    /// Flushes every open image's buffered output (periodic, bounds what
    /// a crash of the recorder loses).
    pub fn flush_all(&mut self) {
        for s in self.procs.values_mut() {
            if let Some(image) = &mut s.image {
                self.sink.flush(image);
            }
        }
    }
}

/// Walks a sample's stack into `frames`, innermost first, counting cut
/// and stitched stacks in `stats` (`stack_copy_size`: the bytes each
/// sample asked for, 0 when unknown).
fn walk(
    stats: &mut CaptureStats,
    stack_copy_size: u32,
    unwinder: &mut ProcessUnwinder,
    stack: SampledStack,
    frames: &mut Vec<u64>,
) {
    let full_copy = |stack: &[u8]| stack.len() as u64 >= u64::from(stack_copy_size);
    match stack {
        SampledStack::Frames(f) => {
            frames.clear();
            frames.extend_from_slice(&f[..f.len().min(MAX_FRAMES)]);
        }
        SampledStack::Raw {
            ip,
            sp,
            bp,
            stack,
            kernel,
        } => {
            let cut = unwinder.unwind(ip, sp, bp, stack, frames);
            // A copy shorter than asked for ended at the stack's top: not cut.
            if cut && full_copy(stack) {
                stats.cut_stacks += 1;
            }
            if !kernel.is_empty() {
                frames.splice(0..0, kernel.iter().copied());
            }
        }
        SampledStack::Hybrid {
            ip,
            sp,
            bp,
            stack,
            chain,
            kernel,
        } => {
            match unwinder.unwind_hybrid(ip, sp, bp, stack, chain, frames) {
                HybridWalk::Stitched => stats.stitched_stacks += 1,
                HybridWalk::Cut if full_copy(stack) => stats.cut_stacks += 1,
                _ => {}
            }
            if !kernel.is_empty() {
                frames.splice(0..0, kernel.iter().copied());
            }
        }
    }
}
