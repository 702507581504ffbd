//! What the samplers feed: the capture layer's process table
//! ([`blame_capture::process_table`]) with the recorder's two ends. Its
//! sink, [`StreamFiles`], writes one sample stream per process image, as a
//! section of the recorder's node file ([`Layout::NodeFile`], the default)
//! or as a stream file of its own ([`Layout::PerProcess`]); its source,
//! [`Procfs`], reads what records do not say from `/proc`. Both the
//! perf_event and the ptrace sampler report fork, exec, mmap, sample and
//! exit events to the [`Recording`].

use crate::procfs;
use crate::sys;
use blame_capture::process_table::{ImageFacts, ImageSink, Process, ProcessSource, ProcessTable};
use blame_capture::unwind::ObjectCache;
use blame_formats::manifest::{NodeFileEntry, ProcessEntry};
use blame_formats::node_file::{NodeHeader, NodeWriter, SharedNode};
use blame_formats::stream::{
    is_launcher, EventDesc, Lost, Mapping, ProcessEnd, StreamHeader, StreamWriter, ThreadName,
};
use std::path::{Path, PathBuf};

pub use blame_capture::process_table::{SampleInfo, SampledStack};

/// The recorder's process table: images to stream files, facts from `/proc`.
pub type Recording = ProcessTable<StreamFiles, Procfs>;

/// Starts the recording of `files` (its process table, object files memory-mapped).
pub fn recording(files: StreamFiles) -> Recording {
    ProcessTable::new(
        files,
        Procfs::default(),
        ObjectCache::new(sys::map_object_file),
    )
}

/// `/proc`: what the recorder learns about a live process beyond its records.
#[derive(Default)]
pub struct Procfs {
    /// The executable of every process image seen (`/proc/PID/exe`), for
    /// the static dbs the manifest records.
    pub executables: std::collections::BTreeSet<PathBuf>,
}

impl ProcessSource for Procfs {
    fn ppid(&mut self, pid: u32) -> Option<u32> {
        procfs::ppid(pid)
    }

    fn image(&mut self, pid: u32) -> ImageFacts {
        if let Ok(exe) = std::fs::read_link(format!("/proc/{pid}/exe")) {
            self.executables.insert(exe);
        }
        let (rank, world_size) = procfs::mpi_rank(pid);
        ImageFacts {
            command: procfs::cmdline(pid).unwrap_or_default(),
            rank,
            world_size,
            comm: procfs::comm(pid),
        }
    }

    fn mappings(&mut self, pid: u32) -> Vec<Mapping> {
        procfs::exec_mappings(pid)
    }

    fn exit_status(&mut self, pid: u32) -> Option<(Option<i32>, Option<i32>)> {
        procfs::zombie_exit_status(pid)
    }

    /// The mapped file itself; its build-id filled in from the file when the kernel gave none.
    fn unwind_file(&mut self, objects: &mut ObjectCache, m: &mut Mapping) -> Option<String> {
        if m.build_id.is_empty() {
            if let Some(obj) = objects.get(&m.path) {
                m.build_id = obj.build_id.clone();
            }
        }
        Some(m.path.clone())
    }
}

/// One process image's open stream.
pub struct OpenStream {
    writer: StreamWriter,
    path: PathBuf,
    samples: u64,
    start_ns: u64,
}

/// How a recording stores its processes' streams.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    /// One node file of this name in the run directory, a section per
    /// process image (created with the first stream).
    NodeFile(String),
    /// One `rank-N.bstream` / `pid-N.bstream` file per process image.
    PerProcess,
}

impl Layout {
    /// The node file of a recorder on `host`; `own_rank` when the recorder
    /// itself runs as an MPI rank (one recorder per task, `srun -n N blame
    /// record`), so recorders sharing a run directory never share a file.
    pub fn node_file(host: &str, own_rank: Option<u32>) -> Layout {
        let host: String = host
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        Layout::NodeFile(match own_rank {
            Some(r) => format!("node-{host}.rank-{r}.bnode"),
            None => format!("node-{host}.bnode"),
        })
    }
}

/// The run directory being written: the sink of the recorder's process table.
pub struct StreamFiles {
    dir: PathBuf,
    layout: Layout,
    /// The node file, once its first section was opened.
    node: Option<SharedNode>,
    host: String,
    events: Vec<EventDesc>,
    call_graph: String,
    extra: Vec<(String, String)>,
    /// Streams closed so far, for the manifest.
    pub entries: Vec<ProcessEntry>,
    /// Failures writing a stream (disk full...): reported, recording goes on for the others.
    pub errors: Vec<String>,
    /// Kernel frames are recorded: each stream gets the kernel's pseudo-mapping.
    kernel_frames: bool,
    /// The node file once closed, for the manifest.
    pub closed_node_file: Option<NodeFileEntry>,
}

/// The pseudo-path of the kernel's mapping (symbolized from the run's `kallsyms`).
pub const KERNEL_MAPPING: &str = "[kernel.kallsyms]";
/// Where the kernel's addresses start on x86_64.
const KERNEL_START: u64 = 0xffff_8000_0000_0000;

impl StreamFiles {
    pub fn new(
        dir: &Path,
        events: Vec<EventDesc>,
        call_graph: &str,
        extra: Vec<(String, String)>,
    ) -> StreamFiles {
        StreamFiles {
            dir: dir.to_path_buf(),
            layout: Layout::PerProcess,
            node: None,
            host: procfs::hostname(),
            events,
            call_graph: call_graph.to_string(),
            extra,
            entries: Vec::new(),
            errors: Vec::new(),
            kernel_frames: false,
            closed_node_file: None,
        }
    }

    /// Stores the streams as `layout` says (before the first sample).
    pub fn with_layout(mut self, layout: Layout) -> StreamFiles {
        self.layout = layout;
        self
    }

    /// The node file written, if any.
    pub fn node_file(&self) -> Option<PathBuf> {
        self.node.as_ref().map(NodeWriter::path)
    }

    /// Kernel frames will be recorded: saves the kernel's symbol table as
    /// `kallsyms` in the run directory for post-processing.
    pub fn with_kernel_frames(&mut self) -> std::io::Result<()> {
        self.kernel_frames = true;
        let symbols = std::fs::read("/proc/kallsyms")?;
        blame_formats::files::write_atomic(
            self.dir.join(blame_formats::run_dir::KALLSYMS_FILE),
            &symbols,
        )
    }

    /// Saves this machine's vDSO as `vdso.so` in the run directory, for
    /// post-processing to name the frames of samples taken in it (there is
    /// none: nothing to save).
    pub fn with_vdso(&mut self) -> std::io::Result<()> {
        match crate::procfs::vdso_image() {
            Some(image) => self.save_vdso(&image),
            None => Ok(()),
        }
    }

    /// Saves `image` (this machine's vDSO, [`crate::procfs::vdso_image`])
    /// as `vdso.so` in the run directory.
    pub fn save_vdso(&self, image: &[u8]) -> std::io::Result<()> {
        blame_formats::files::write_atomic(self.dir.join(blame_formats::run_dir::VDSO_FILE), image)
    }

    pub fn events(&self) -> &[EventDesc] {
        &self.events
    }

    /// Records how a process ended when it is learned after its exit record (waitpid of the root).
    pub fn set_exit_status(&mut self, pid: u32, exit: Option<i32>, signal: Option<i32>) {
        for e in self.entries.iter_mut().rev().filter(|e| e.pid == pid) {
            if e.exit_status.is_none() && e.signal.is_none() {
                e.exit_status = exit;
                e.signal = signal;
            }
        }
    }

    /// Opens a section of the node file `name` (created with the first).
    fn open_section(
        &mut self,
        name: &str,
        header: &StreamHeader,
    ) -> blame_formats::Result<(StreamWriter, PathBuf)> {
        let node = match &self.node {
            Some(node) => node.clone(),
            None => {
                let header = NodeHeader {
                    host: self.host.clone(),
                    recorder_pid: std::process::id(),
                    start_time_ns: procfs::unix_time_ns(),
                    extra: self.extra.clone(),
                };
                let stem = name.strip_suffix(".bnode").unwrap_or(name);
                let (node, _) = create_unique(&self.dir, stem, "bnode", std::process::id(), |p| {
                    NodeWriter::create(p, &header)
                })?;
                self.node = Some(node.clone());
                node
            }
        };
        let writer = NodeWriter::open_section(&node, header)?;
        Ok((writer, NodeWriter::path(&node)))
    }

    /// Creates `rank-N.bstream` or `pid-N.bstream` (a suffix when taken).
    fn create_stream_file(
        &self,
        p: &Process,
        header: &StreamHeader,
    ) -> blame_formats::Result<(StreamWriter, PathBuf)> {
        let base = match p.rank {
            Some(r) => format!("rank-{r}"),
            None => format!("pid-{}", p.pid),
        };
        create_unique(&self.dir, &base, "bstream", p.pid, |path| {
            StreamWriter::create(path, header)
        })
    }
}

impl ImageSink for StreamFiles {
    type Image = OpenStream;

    fn open(&mut self, p: &Process, time_ns: u64) -> Option<OpenStream> {
        let header = StreamHeader {
            host: self.host.clone(),
            command: p.command.clone(),
            pid: p.pid,
            ppid: p.ppid,
            rank: p.rank,
            world_size: p.world_size,
            events: self.events.clone(),
            call_graph: self.call_graph.clone(),
            start_time_ns: procfs::unix_time_ns(),
            extra: self.extra.clone(),
        };
        let created = match self.layout.clone() {
            Layout::NodeFile(name) => self.open_section(&name, &header),
            Layout::PerProcess => self.create_stream_file(p, &header),
        };
        let (mut writer, path) = match created {
            Ok(x) => x,
            Err(e) => {
                self.errors.push(e.to_string());
                return None;
            }
        };

        let mut threads: Vec<_> = p.threads.iter().collect();
        threads.sort();
        let mut r = Ok(());
        for (&tid, name) in threads {
            r = r.and_then(|_| {
                writer.write_thread(ThreadName {
                    pid: p.pid,
                    tid,
                    name: name.clone(),
                })
            });
        }
        for m in &p.mappings {
            r = r.and_then(|_| writer.write_mapping(m.clone()));
        }
        if self.kernel_frames {
            r = r.and_then(|_| {
                writer.write_mapping(Mapping {
                    pid: p.pid,
                    start: KERNEL_START,
                    end: u64::MAX,
                    file_offset: 0,
                    path: KERNEL_MAPPING.into(),
                    build_id: Vec::new(),
                })
            });
        }
        if let Err(e) = r {
            self.errors.push(e.to_string());
        }
        Some(OpenStream {
            writer,
            path,
            samples: 0,
            start_ns: time_ns,
        })
    }

    fn mapping(&mut self, s: &mut OpenStream, m: &Mapping) {
        if let Err(e) = s.writer.write_mapping(m.clone()) {
            self.errors.push(e.to_string());
        }
    }

    fn thread_name(&mut self, s: &mut OpenStream, pid: u32, tid: u32, name: &str) {
        let r = s.writer.write_thread(ThreadName {
            pid,
            tid,
            name: name.to_string(),
        });
        if let Err(e) = r {
            self.errors.push(e.to_string());
        }
    }

    fn sample(&mut self, s: &mut OpenStream, sample: &SampleInfo, frames: &[u64]) -> bool {
        let r = s.writer.write_sample_with_stack(
            sample.tid,
            sample.time_ns,
            sample.event,
            sample.weight,
            frames,
            sample.data_address,
        );
        match r {
            Ok(()) => {
                s.samples += 1;
                true
            }
            Err(e) => {
                self.errors.push(e.to_string());
                false
            }
        }
    }

    fn lost(&mut self, s: &mut OpenStream, count: u64) {
        let _ = s.writer.write_lost(Lost { event: 0, count });
    }

    /// Ends the stream of `p`'s image. `end` is Some when the process
    /// itself ended (with exit code and signal when known).
    fn close(
        &mut self,
        s: OpenStream,
        p: &Process,
        end: Option<(Option<i32>, Option<i32>)>,
        time_ns: u64,
    ) {
        let OpenStream {
            mut writer,
            path,
            samples,
            start_ns,
        } = s;
        let mut r = Ok(());
        if let Some((exit_status, signal)) = end {
            r = writer.write_end(ProcessEnd {
                exit_status,
                signal,
                time_ns,
            });
        }
        let section = writer.section();
        // `close` seals the last chunk and appends the stream's end marker
        // (a section's close chunk): readers can tell it from one cut short.
        if let Err(e) = r.and_then(|_| writer.close()) {
            self.errors.push(format!("{}: {e}", path.display()));
        }
        let (exit_status, signal) = end.unwrap_or((None, None));
        self.entries.push(ProcessEntry {
            file: path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            section,
            pid: p.pid,
            ppid: p.ppid,
            rank: p.rank,
            command: p.command.clone(),
            launcher: is_launcher(&p.command),
            samples,
            lost: p.lost,
            exit_status,
            signal,
            ended: end.is_some(),
            duration_ns: time_ns.saturating_sub(start_ns),
        });
    }

    fn flush(&mut self, s: &mut OpenStream) {
        if let Err(e) = s.writer.flush() {
            self.errors.push(e.to_string());
        }
    }

    /// Closes the node file and sorts the manifest's entries.
    fn finish(&mut self) {
        if let Some(node) = self.node.take() {
            match NodeWriter::finish(&node) {
                Ok(()) => {
                    self.closed_node_file = Some(NodeFileEntry {
                        file: NodeWriter::path(&node)
                            .file_name()
                            .map(|n| n.to_string_lossy().into_owned())
                            .unwrap_or_default(),
                        bytes: NodeWriter::bytes_written(&node),
                        sections: NodeWriter::sections(&node),
                    })
                }
                Err(e) => self.errors.push(e.to_string()),
            }
        }
        self.entries.sort_by(|a, b| {
            (&a.file, a.section, &a.label()).cmp(&(&b.file, b.section, &b.label()))
        });
    }
}

/// Creates `dir/BASE.EXT` with `create` (which must refuse an existing
/// name), or when that name is taken (a symlink too, even a dangling one)
/// `BASE.PID.N.EXT` for the first free N.
fn create_unique<T>(
    dir: &Path,
    base: &str,
    ext: &str,
    pid: u32,
    create: impl Fn(&Path) -> blame_formats::Result<T>,
) -> blame_formats::Result<(T, PathBuf)> {
    let mut attempt = 0;
    loop {
        let name = match attempt {
            0 => format!("{base}.{ext}"),
            n => format!("{base}.{pid}.{n}.{ext}"),
        };
        let path = dir.join(&name);
        match create(&path) {
            Ok(w) => return Ok((w, path)),
            Err(_) if path.symlink_metadata().is_ok() && attempt < 64 => attempt += 1,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blame_formats::stream::{Record, Sampling, StreamReader};

    /// A sample of thread `tid` at `time_ns` of weight `weight` (event 0, no data address).
    fn at(tid: u32, time_ns: u64, weight: u64) -> SampleInfo {
        SampleInfo {
            tid,
            time_ns,
            event: 0,
            weight,
            data_address: None,
        }
    }

    fn files(dir: &Path) -> StreamFiles {
        let event = EventDesc {
            name: "cpu-clock".into(),
            sampling: Sampling::Frequency(1000),
            unit: "ns".into(),
            memory: false,
        };
        StreamFiles::new(dir, vec![event], "fp", Vec::new())
    }

    fn records(path: &Path) -> Vec<Record> {
        let (mut r, _) = StreamReader::open(path).unwrap();
        let mut out = Vec::new();
        while let Some(rec) = r.next_record().unwrap() {
            out.push(rec);
        }
        out
    }

    #[test]
    fn a_symlink_at_a_streams_name_is_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim");
        let child = 4_000_001;
        // One dangling, as another user would plant it before the file exists.
        std::os::unix::fs::symlink(&victim, dir.path().join(format!("pid-{child}.bstream")))
            .unwrap();
        let mut rec = recording(files(dir.path()));
        let me = std::process::id();
        rec.adopt(me);
        rec.fork(child, me, child);
        let frames = SampledStack::Frames(&[0x10, 0x20]);
        rec.sample(child, &at(child, 10, 1_000_000), frames);
        rec.finish(40);
        assert!(rec.sink.errors.is_empty(), "{:?}", rec.sink.errors);
        assert!(!victim.exists(), "nothing created through the symlink");
        assert_eq!(
            rec.sink.entries[0].file,
            format!("pid-{child}.{child}.1.bstream")
        );
    }

    #[test]
    fn a_forked_child_gets_its_parents_mappings_and_its_own_stream() {
        let dir = tempfile::tempdir().unwrap();
        let mut rec = recording(files(dir.path()));
        let me = std::process::id();
        rec.adopt(me);
        let child = 4_000_000; // no such pid: everything comes from the parent
        rec.fork(child, me, child);
        rec.sample(
            child,
            &at(child, 10, 1_000_000),
            SampledStack::Frames(&[0x10, 0x20]),
        );
        rec.sample(
            child,
            &at(child, 20, 1_000_000),
            SampledStack::Frames(&[0x10, 0x20]),
        );
        rec.exit(child, child, Some((Some(3), None)), 30);
        rec.finish(40);
        assert_eq!(
            rec.sink.entries.len(),
            1,
            "the parent had no samples: no stream"
        );
        let e = &rec.sink.entries[0];
        assert_eq!(
            (e.pid, e.ppid, e.samples, e.exit_status, e.ended),
            (child, me, 2, Some(3), true)
        );
        assert_eq!(e.file, format!("pid-{child}.bstream"));
        let recs = records(&dir.path().join(&e.file));
        let maps = recs
            .iter()
            .filter(|r| matches!(r, Record::Mapping(_)))
            .count();
        assert!(
            maps > 0,
            "the parent's mappings were copied into the child's stream"
        );
        let samples: Vec<_> = recs
            .iter()
            .filter_map(|r| match r {
                Record::Sample(s) => Some(s.stack),
                _ => None,
            })
            .collect();
        assert_eq!(samples.len(), 2);
        assert_eq!(samples[0], samples[1], "one stack table entry for both");
        assert!(matches!(recs.last(), Some(Record::End(end)) if end.exit_status == Some(3)));
    }

    /// Every closed stream ends with the container's end marker, whether its
    /// process ended, exec'd or was still running when recording stopped.
    #[test]
    fn closed_streams_end_with_the_end_marker() {
        let dir = tempfile::tempdir().unwrap();
        let mut rec = recording(files(dir.path()));
        let me = std::process::id();
        rec.adopt(me);
        rec.fork(4_000_001, me, 4_000_001);
        for pid in [me, 4_000_001] {
            rec.sample(pid, &at(pid, 10, 1), SampledStack::Frames(&[0x10]));
        }
        rec.exit(4_000_001, 4_000_001, Some((Some(0), None)), 20);
        rec.exec(me, "next-image", 30);
        rec.sample(me, &at(me, 40, 1), SampledStack::Frames(&[0x10]));
        rec.finish(50);
        assert_eq!(rec.sink.entries.len(), 3);
        for e in &rec.sink.entries {
            let (_, salvage) =
                blame_formats::stream::salvage_stream(dir.path().join(&e.file)).unwrap();
            assert!(salvage.complete, "{}: {}", e.file, salvage.describe());
            assert_eq!(salvage.describe(), "complete");
        }
    }

    /// The node-file layout: every process image a section of one file,
    /// each closed, the file ended by its end marker; the manifest's
    /// entries name the file and the section.
    #[test]
    fn a_node_file_holds_a_section_per_process_image() {
        let dir = tempfile::tempdir().unwrap();
        let mut rec = recording(files(dir.path()).with_layout(Layout::node_file("h/x", None)));
        let me = std::process::id();
        rec.adopt(me);
        rec.fork(4_000_001, me, 4_000_001);
        for pid in [me, 4_000_001] {
            rec.sample(pid, &at(pid, 10, 1), SampledStack::Frames(&[0x10]));
        }
        rec.exit(4_000_001, 4_000_001, Some((Some(0), None)), 20);
        rec.exec(me, "next-image", 30);
        rec.sample(me, &at(me, 40, 1), SampledStack::Frames(&[0x10]));
        rec.finish(50);
        assert!(rec.sink.errors.is_empty(), "{:?}", rec.sink.errors);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, ["node-h_x.bnode"]);
        assert_eq!(rec.sink.entries.len(), 3);
        let mut sections: Vec<_> = rec
            .sink
            .entries
            .iter()
            .map(|e| e.section.unwrap())
            .collect();
        sections.sort();
        assert_eq!(sections, [0, 1, 2]);
        let index =
            blame_formats::node_file::NodeIndex::open(dir.path().join("node-h_x.bnode")).unwrap();
        assert!(index.complete, "{}", index.describe());
        for (i, s) in index.sections.iter().enumerate() {
            let r = index.section_reader(i).unwrap();
            let (stream, salvage) =
                blame_formats::stream::salvage_from(r, s.header.clone().unwrap()).unwrap();
            assert_eq!(salvage.describe(), "complete");
            assert_eq!(stream.samples.len(), 1);
        }
    }

    #[test]
    fn a_symlink_at_the_node_files_name_is_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim");
        std::os::unix::fs::symlink(&victim, dir.path().join("node-h.bnode")).unwrap();
        let mut rec = recording(files(dir.path()).with_layout(Layout::node_file("h", None)));
        let me = std::process::id();
        rec.adopt(me);
        rec.sample(me, &at(me, 10, 1), SampledStack::Frames(&[0x10]));
        rec.finish(20);
        assert!(rec.sink.errors.is_empty(), "{:?}", rec.sink.errors);
        assert!(!victim.exists(), "nothing created through the symlink");
        assert_eq!(rec.sink.entries[0].file, format!("node-h.{me}.1.bnode"));
        assert_eq!(
            rec.sink.closed_node_file.as_ref().unwrap().file,
            rec.sink.entries[0].file
        );
    }

    #[test]
    fn exec_ends_the_old_images_stream_and_a_name_clash_gets_a_suffix() {
        let dir = tempfile::tempdir().unwrap();
        let mut rec = recording(files(dir.path()));
        let me = std::process::id();
        rec.adopt(me);
        rec.sample(me, &at(me, 10, 1), SampledStack::Frames(&[0x10]));
        rec.exec(me, "next-image", 20);
        rec.sample(me, &at(me, 30, 1), SampledStack::Frames(&[0x10]));
        rec.finish(40);
        let files: Vec<&str> = rec.sink.entries.iter().map(|e| e.file.as_str()).collect();
        assert_eq!(files.len(), 2, "{files:?}");
        assert!(files.contains(&format!("pid-{me}.bstream").as_str()));
        assert!(
            rec.sink.entries.iter().all(|e| !e.ended),
            "exec'd and still running"
        );
        assert!(rec.sink.errors.is_empty(), "{:?}", rec.sink.errors);
    }
}
