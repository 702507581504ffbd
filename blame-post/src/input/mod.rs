//! Inputs of post-processing: a recorded run directory (one sample stream
//! per process), Linux perf captures (perf.data, decoded by
//! [`blame_capture::perf_data`] into the same mappings, stack table and samples a
//! stream holds) or JSON-lines symbolic samples. Each becomes a list of
//! processes, each a set of unique symbolized stacks with per-event counts:
//! samples that share a stack are resolved once (memoization per calling
//! context), and memory does not grow with the number of samples.

pub mod allocations;
mod captures;
mod directory;
pub mod dump;
pub mod fde_functions;
pub mod frame_table;
pub mod heap_blocks;
pub mod openmp;
pub mod plt;
mod profile;
pub mod shard;
pub mod skid_insns;
pub mod skid_model;
mod stream_tally;
pub mod symbolize;
pub(crate) mod truncated;

use crate::error::{
    io, PostError, Result, SampleRefused, Warning, SKIPS_THE_DAMAGE, USES_OTHER_STREAMS,
};
use crate::input::frame_table::{cmp_stacks, FrameTable, StackInterner};
use crate::input::heap_blocks::{DirectTarget, HeapBlocks};
use crate::input::shard::ShardSpec;
use crate::input::skid_insns::{instruction_window, InsnWindow};
use crate::input::skid_model::{LineSkid, SkidModel, SkidWindow};
use crate::input::symbolize::Symbolizer;
use blame_capture::perf_data::{read_perf_data, PerfProcess};
use blame_formats::alloc_log::AllocLog;
use blame_formats::container::{Salvaged, Skipped};
use blame_formats::jsonl::{read_samples, JsonSample};
use blame_formats::lock::RunDirLock;
use blame_formats::manifest::{Manifest, NodeFileEntry, ProcessEntry};
use blame_formats::node_file::{is_node_file, NodeIndex, StreamIn};
use blame_formats::results::{ProcessInfo, SymFrame};
use blame_formats::run_dir;
use blame_formats::stream::{
    decode_chunk_each, ChunkSource, EventDesc, Item, Mapping, Record, SalvagedStacks, Sample,
    Sampling, StackNode, StreamHeader, StreamReader,
};
use blame_formats::FormatError;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use blame_formats::stream::{is_launcher, is_memory_event};
use directory::describe_skip;
pub use directory::StreamAt;
use profile::{into_contexts, ProfileInput, SampleSource};
use stream_tally::{check_event_count, tally_stream, StreamTally};

/// One unique calling context of a process and how many samples of each event hit it.
#[derive(Debug, Clone)]
pub struct Context {
    /// Innermost first, as ids into `ProcessProfile::frames`.
    pub frames: Vec<u32>,
    /// Indexed by the run's event list.
    pub counts: Vec<f64>,
    /// Samples of this context that carried a data address: (event, what
    /// the address was found in, samples).
    pub direct: Vec<(u16, DirectTarget, f64)>,
    /// With an instruction skid model: the lines of the innermost function
    /// the memory samples of this context may come from.
    pub skid_window: Option<SkidWindow>,
}

/// The samples of one process that fall in this shard.
#[derive(Debug, Clone)]
pub struct ProcessProfile {
    pub index: u32,
    /// The distinct frames of `contexts`, each once.
    pub frames: Vec<SymFrame>,
    pub contexts: Vec<Context>,
    /// Allocation sites of heap blocks that samples hit: (allocation function, symbolized stack).
    pub heap_sites: Vec<(String, Vec<SymFrame>)>,
    /// With memory events and an allocation log: every heap block and its
    /// site, for the footprints of the access-pattern weights.
    pub allocations: Option<crate::input::allocations::Allocations>,
    /// The allocation log with its sites symbolized, for memory blame
    /// (`memory.rs`), whenever the process has one.
    pub memory: Option<crate::input::allocations::MemoryInput>,
    pub warnings: Vec<Warning>,
    /// What a damaged stream lost (skipped chunks, a cut, dropped samples), said loudly.
    pub damage: Vec<String>,
    /// Samples the kernel or the recorder dropped (the stream's `Lost` records).
    pub lost: u64,
    /// Time spent reading and counting samples, and symbolizing stacks.
    pub read_time: std::time::Duration,
    pub symbolize_time: std::time::Duration,
    /// In a shard that takes some of the process's samples (a sample-level
    /// shard): the stacks of all of them with their counts, so that choices
    /// made from the process's stacks (which program call a stack cut short
    /// in a library completes with) are the same in every shard. Empty when
    /// `contexts` hold all the samples.
    pub reference: Vec<Context>,
}

impl ProcessProfile {
    /// No samples of process `index` (not in this shard, or unreadable).
    fn empty(index: usize) -> ProcessProfile {
        ProcessProfile {
            index: index as u32,
            frames: Vec::new(),
            contexts: Vec::new(),
            heap_sites: Vec::new(),
            allocations: None,
            memory: None,
            warnings: Vec::new(),
            damage: Vec::new(),
            lost: 0,
            read_time: Default::default(),
            symbolize_time: Default::default(),
            reference: Vec::new(),
        }
    }
}

/// What to do with a damaged recording: an empty or unreadable stream, a
/// damaged chunk, a stream cut short.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnDamage {
    /// Keep everything intact, skip the rest and say what was skipped.
    #[default]
    Salvage,
    /// Refuse the run (`--strict`).
    Refuse,
}

/// Where the samples come from.
pub enum Source {
    RunDir {
        dir: PathBuf,
        streams: Vec<StreamAt>,
    },
    Json {
        samples: Vec<JsonSample>,
        groups: Vec<Vec<usize>>,
    },
    /// perf.data files, decoded in memory: one entry per process image.
    Perf { processes: Vec<PerfProcess> },
}

/// A whole run: its events and processes, before any samples are resolved.
pub struct Run {
    pub events: Vec<EventDesc>,
    pub processes: Vec<ProcessInfo>,
    source: Source,
    /// Shared by the run's processes: ranks of one binary symbolize once.
    symbolizer: std::sync::Mutex<Symbolizer>,
    /// Instruction skid model of memory events, mapped to lines at load time.
    instruction_skid: Option<LineSkid>,
    /// Found while opening the input (perf.data: lost samples, stacks not walked).
    pub warnings: Vec<Warning>,
    /// What was left out of a damaged recording (skipped streams), said loudly.
    pub damage: Vec<String>,
    /// Streams of the run dir that could not be read at all, skipped.
    pub skipped_streams: usize,
    on_damage: OnDamage,
    /// Time spent decoding the input when it is opened (perf.data), part of the read stage.
    pub open_time: std::time::Duration,
    /// A run directory's reader lock: no recorder writes it while it is read.
    _lock: Option<RunDirLock>,
    /// Process `i` is at `shard_order[i]` in the order of storage.
    shard_order: Vec<usize>,
    /// The walked node files, by path.
    node_indexes: std::sync::Mutex<HashMap<PathBuf, Arc<NodeIndex>>>,
    /// Damage a node file walked after the run was opened showed (files
    /// the manifest listed), for the profile of the process that walked it.
    late_damage: std::sync::Mutex<Vec<String>>,
}

fn event_index(events: &mut Vec<EventDesc>, e: &EventDesc) -> usize {
    match events.iter().position(|x| x.name == e.name) {
        Some(i) => i,
        None => {
            events.push(e.clone());
            events.len() - 1
        }
    }
}

impl Run {
    /// Sets the skid model of memory events. An instruction model needs the
    /// binaries, so it only applies to recordings, not to JSON-lines samples.
    pub fn set_skid_model(&mut self, model: Option<SkidModel>) -> Result<()> {
        self.instruction_skid = match model {
            Some(SkidModel::Instructions(m)) => {
                if matches!(self.source, Source::Json { .. }) {
                    return Err(PostError::SkidNeedsBinaries);
                }
                Some(m)
            }
            _ => None,
        };
        Ok(())
    }

    /// Marks events as memory events (approximate data-centric attribution).
    pub fn mark_memory_events(&mut self, names: &[String]) -> Result<()> {
        for name in names {
            match self.events.iter_mut().find(|e| &e.name == name) {
                Some(e) => e.memory = true,
                None => {
                    return Err(PostError::NoSuchEvent {
                        name: name.clone(),
                        events: self.events.iter().map(|e| e.name.clone()).collect(),
                    })
                }
            }
        }
        Ok(())
    }

    /// The run directory, when the input is a recording.
    pub fn dir(&self) -> Option<&Path> {
        match &self.source {
            Source::RunDir { dir, .. } => Some(dir),
            Source::Json { .. } | Source::Perf { .. } => None,
        }
    }

    /// Loads the samples of process `index` that belong to `shard`.
    pub fn load_process(&self, index: usize, shard: ShardSpec) -> Result<ProcessProfile> {
        let nproc = self.processes.len();
        let whole_process = shard.count as usize <= nproc;
        if whole_process && !shard.owns_block(self.shard_order[index], nproc) {
            return Ok(ProcessProfile::empty(index));
        }
        let keep = |seq: usize| whole_process || shard.owns_unit(seq);
        let started = std::time::Instant::now();
        match &self.source {
            Source::Json { samples, groups } => Ok(self.load_json(
                index,
                samples,
                &groups[index],
                &keep,
                whole_process,
                started,
            )),
            Source::RunDir { streams, .. } => {
                self.load_stream(index, &streams[index], &keep, whole_process, started)
            }
            Source::Perf { processes } => self.load_perf(index, &processes[index], &keep, started),
        }
    }
}

/// Samples per (stack id, event).
type StackCounts = FxHashMap<(u32, u16), f64>;

/// Chunks decoded at once: enough to keep every core busy, few enough that
/// memory stays independent of the stream's length.
const CHUNK_BATCH: usize = 16;

/// The most event names a run can hold: results index events with a `u16`.
pub const MAX_EVENTS: usize = 1 << 16;

#[cfg(test)]
mod tests {
    use super::*;
    use blame_formats::stream::{StreamHeader, StreamWriter};

    fn event(name: &str) -> EventDesc {
        EventDesc {
            name: name.into(),
            sampling: Sampling::Period(1),
            unit: "samples".into(),
            memory: false,
        }
    }

    /// Each stack is symbolized once and its frames moved into the context;
    /// a stack hit by several events keeps one context with every event's
    /// count, interleaved samples or not, and other stacks stay apart.
    #[test]
    fn contexts_count_every_event_of_a_stack_once() {
        let dir = tempfile::tempdir().unwrap();
        let header = StreamHeader {
            host: "h".into(),
            command: vec!["app".into()],
            pid: 7,
            ppid: 1,
            rank: Some(0),
            world_size: Some(1),
            events: vec![event("cycles"), event("misses")],
            call_graph: "fp".into(),
            start_time_ns: 0,
            extra: vec![],
        };
        let mut w = StreamWriter::create(dir.path().join("rank-0.bstream"), &header).unwrap();
        let (a, b, c) = (&[0x10u64, 0x20][..], &[0x30u64][..], &[0x40u64, 0x20][..]);
        for (i, (stack, ev)) in [(a, 0), (a, 1), (b, 0), (a, 0), (c, 1), (a, 1), (a, 0)]
            .into_iter()
            .enumerate()
        {
            w.write_sample_with_stack(7, i as u64, ev, 1, stack, None)
                .unwrap();
        }
        w.finish().unwrap();
        let run = Run::open_dir(dir.path(), vec![], OnDamage::Salvage).unwrap();
        let p = run.load_process(0, ShardSpec::WHOLE).unwrap();
        let names = |c: &Context| -> Vec<String> {
            c.frames
                .iter()
                .map(|&f| p.frames[f as usize].function.clone())
                .collect()
        };
        let got: Vec<(Vec<String>, Vec<f64>)> = p
            .contexts
            .iter()
            .map(|c| (names(c), c.counts.clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    vec!["[unknown 0x10]".to_string(), "[unknown 0x20]".to_string()],
                    vec![3.0, 2.0]
                ),
                (vec!["[unknown 0x30]".to_string()], vec![1.0, 0.0]),
                (
                    vec!["[unknown 0x40]".to_string(), "[unknown 0x20]".to_string()],
                    vec![0.0, 1.0]
                ),
            ]
        );
    }
}

#[cfg(test)]
mod salvage_tests {
    use super::*;
    use blame_formats::stream::{Lost, StreamHeader, StreamWriter};

    pub(super) fn header(pid: u32) -> StreamHeader {
        StreamHeader {
            host: "h".into(),
            command: vec!["./app".into()],
            pid,
            ppid: 1,
            rank: None,
            world_size: None,
            events: vec![EventDesc {
                name: "cpu-clock".into(),
                sampling: Sampling::Frequency(1000),
                unit: "ns".into(),
                memory: false,
            }],
            call_graph: "fp".into(),
            start_time_ns: 1,
            extra: vec![],
        }
    }

    /// A stream of `n` samples in small chunks, each chunk defining new
    /// stacks; `lost` dropped samples at the end. Returns its chunk starts.
    fn write_stream(path: &Path, pid: u32, n: u64, lost: u64, finish: bool) -> Vec<usize> {
        let mut w = StreamWriter::create(path, &header(pid))
            .unwrap()
            .with_chunk_bytes(1024);
        for i in 0..n {
            let leaf = 0x1000 + (i % 40) * 16;
            w.write_sample_with_stack(pid, i * 1000, 0, 1, &[leaf, 0x2000, 0x3000], None)
                .unwrap();
        }
        if lost > 0 {
            w.write_lost(Lost {
                event: 0,
                count: lost,
            })
            .unwrap();
        }
        if finish {
            w.finish().unwrap();
        } else {
            w.flush().unwrap();
        }
        let bytes = std::fs::read(path).unwrap();
        let mut at = 16;
        let mut starts = Vec::new();
        while at + 20 <= bytes.len() {
            starts.push(at);
            at += 20 + u32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
        }
        starts
    }

    /// Samples of each process of `run` in `shard`.
    pub(super) fn samples_in(run: &Run, shard: ShardSpec) -> Vec<f64> {
        (0..run.processes.len())
            .map(|i| {
                let p = run.load_process(i, shard).unwrap();
                p.contexts.iter().map(|c| c.counts[0]).sum()
            })
            .collect()
    }

    fn samples(run: &Run) -> Vec<f64> {
        samples_in(run, ShardSpec::WHOLE)
    }

    #[test]
    fn a_damaged_run_is_salvaged_and_strict_refuses_it() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write_stream(&d.join("pid-1.bstream"), 1, 2000, 5, true);
        let chunks = write_stream(&d.join("pid-2.bstream"), 2, 2000, 0, true);
        write_stream(&d.join("pid-3.bstream"), 3, 300, 0, false);
        std::fs::write(d.join("pid-4.bstream"), b"").unwrap();
        // One flipped bit in a chunk in the middle of pid-2's stream.
        let path2 = d.join("pid-2.bstream");
        let mut bytes = std::fs::read(&path2).unwrap();
        let mid = chunks[chunks.len() / 2];
        bytes[mid + 30] ^= 0x20;
        std::fs::write(&path2, &bytes).unwrap();

        let run = Run::open_dir(d, vec![], OnDamage::Salvage).unwrap();
        assert_eq!(run.processes.len(), 3, "the empty stream is skipped");
        assert_eq!(run.skipped_streams, 1);
        assert!(
            run.damage[0].contains("pid-4.bstream: empty (0 bytes)"),
            "{:?}",
            run.damage
        );
        let counts = samples(&run);
        assert_eq!(counts[0], 2000.0, "the undamaged stream is whole");
        assert!(counts[1] < 2000.0 && counts[1] > 1500.0, "{counts:?}");
        assert_eq!(counts[2], 300.0, "a cut stream keeps what it holds");
        let p2 = run.load_process(1, ShardSpec::WHOLE).unwrap();
        assert!(
            p2.damage
                .iter()
                .any(|d| d.contains(&format!("damaged bytes {mid}.."))
                    && d.contains("checksum mismatch")),
            "{:?}",
            p2.damage
        );
        let p3 = run.load_process(2, ShardSpec::WHOLE).unwrap();
        assert!(
            p3.damage.iter().any(|d| d.contains("cut at byte")),
            "{:?}",
            p3.damage
        );
        assert_eq!(run.load_process(0, ShardSpec::WHOLE).unwrap().lost, 5);

        // --strict: the empty stream is refused at once; without it, the damaged chunk.
        let e = Run::open_dir(d, vec![], OnDamage::Refuse)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("pid-4.bstream: empty") && e.contains("--strict"),
            "{e}"
        );
        std::fs::remove_file(d.join("pid-4.bstream")).unwrap();
        let run = Run::open_dir(d, vec![], OnDamage::Refuse).unwrap();
        let e = run
            .load_process(1, ShardSpec::WHOLE)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("checksum mismatch") && e.contains("--strict"),
            "{e}"
        );
        let e = run
            .load_process(2, ShardSpec::WHOLE)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("cut at byte"), "{e}");
        assert_eq!(
            run.load_process(0, ShardSpec::WHOLE)
                .unwrap()
                .contexts
                .len(),
            40
        );
    }

    #[test]
    fn a_run_of_nothing_but_unreadable_streams_is_an_error_naming_them() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("pid-1.bstream"), b"").unwrap();
        std::fs::write(dir.path().join("pid-2.bstream"), b"BLAMESMP").unwrap();
        let e = Run::open_dir(dir.path(), vec![], OnDamage::Salvage)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("none of its 2 sample streams can be read") && e.contains("pid-2.bstream"),
            "{e}"
        );
    }

    /// Sample-level shards all read every stream: its losses are counted once.
    #[test]
    fn lost_samples_are_counted_once_across_sample_shards() {
        let dir = tempfile::tempdir().unwrap();
        write_stream(&dir.path().join("pid-1.bstream"), 1, 500, 9, true);
        let run = Run::open_dir(dir.path(), vec![], OnDamage::Salvage).unwrap();
        let lost: u64 = (0..3)
            .map(|i| {
                run.load_process(0, ShardSpec { index: i, count: 3 })
                    .unwrap()
                    .lost
            })
            .sum();
        assert_eq!(lost, 9);
    }
}

#[cfg(test)]
mod node_file_tests {
    use super::*;
    use blame_formats::manifest::EventEntry;
    use blame_formats::node_file::{NodeHeader, NodeWriter};

    fn header(pid: u32, rank: u32) -> StreamHeader {
        StreamHeader {
            rank: Some(rank),
            world_size: Some(4),
            ..super::salvage_tests::header(pid)
        }
    }

    /// A node file of `ranks`, 300 samples each, closed; its manifest entries.
    fn node_file(path: &Path, ranks: &[u32]) -> (NodeFileEntry, Vec<ProcessEntry>) {
        let node = NodeWriter::create(
            path,
            &NodeHeader {
                host: "h".into(),
                recorder_pid: 1,
                start_time_ns: 1,
                extra: vec![],
            },
        )
        .unwrap();
        let mut entries = Vec::new();
        let mut writers: Vec<_> = ranks
            .iter()
            .map(|&r| {
                NodeWriter::open_section(&node, &header(100 + r, r))
                    .unwrap()
                    .with_chunk_bytes(1024)
            })
            .collect();
        for i in 0..300u64 {
            for (w, &r) in writers.iter_mut().zip(ranks) {
                let frames = [0x1000 + (i % 7) * 16, 0x2000 + r as u64];
                w.write_sample_with_stack(100 + r, i, 0, 1, &frames, None)
                    .unwrap();
            }
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for (w, &r) in writers.into_iter().zip(ranks) {
            entries.push(ProcessEntry {
                file: name.clone(),
                section: w.section(),
                pid: 100 + r,
                ppid: 1,
                rank: Some(r),
                command: vec!["./app".into()],
                launcher: false,
                samples: 300,
                lost: 0,
                exit_status: Some(0),
                signal: None,
                ended: true,
                duration_ns: 1,
            });
            w.close().unwrap();
        }
        NodeWriter::finish(&node).unwrap();
        let file = NodeFileEntry {
            file: name,
            bytes: std::fs::metadata(path).unwrap().len(),
            sections: ranks.len() as u32,
        };
        (file, entries)
    }

    fn write_manifest(dir: &Path, files: Vec<NodeFileEntry>, processes: Vec<ProcessEntry>) {
        let m = Manifest {
            command: vec!["mpirun".into()],
            host: "h".into(),
            sampler: "perf".into(),
            call_graph: "fp".into(),
            events: vec![EventEntry {
                name: "cpu-clock".into(),
                mode: "frequency".into(),
                rate: 1000,
                unit: "ns".into(),
                memory: false,
            }],
            start_unix_ns: 0,
            end_unix_ns: 1,
            exit_status: Some(0),
            signal: None,
            interrupted: None,
            samples: 0,
            lost: 0,
            processes,
            node_files: files,
            notices: vec![],
            cache: None,
            ring_buffer_kib: None,
            static_db: None,
            static_dbs: Vec::new(),
        };
        m.write(dir, None).unwrap();
    }

    use super::salvage_tests::samples_in as samples;

    /// Two nodes' files: processes named and ordered by rank across files,
    /// shards as blocks in storage order; with the manifest, a shard whose
    /// processes are all in one file never reads the other (here damaged
    /// where only a walk or a read would notice).
    #[test]
    fn shards_read_only_their_node_files_when_the_manifest_lists_them() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let (fa, mut pa) = node_file(&d.join("node-a.bnode"), &[2, 0]);
        let (fb, pb) = node_file(&d.join("node-b.bnode"), &[1, 3]);
        // Without a manifest: every file walked at open.
        let run = Run::open_dir(d, vec![], OnDamage::Salvage).unwrap();
        let ranks: Vec<_> = run.processes.iter().map(|p| p.rank.unwrap()).collect();
        assert_eq!(ranks, [0, 1, 2, 3]);
        assert_eq!(samples(&run, ShardSpec::WHOLE), [300.0; 4]);
        // Shard 0/2 owns node-a's ranks (0, 2), shard 1/2 node-b's (1, 3).
        let s0 = samples(&run, ShardSpec::new(0, 2).unwrap());
        assert_eq!(s0, [300.0, 0.0, 300.0, 0.0]);
        drop(run);

        pa.extend(pb);
        write_manifest(d, vec![fa, fb], pa);
        // Damage node-b's open chunk of its first section, keeping its length.
        let b = d.join("node-b.bnode");
        let mut bytes = std::fs::read(&b).unwrap();
        let open_chunk = 16 + 20 + 14 + 20; // preamble, header chunk (5 payload bytes)
        bytes[open_chunk + 16] ^= 0xff;
        std::fs::write(&b, &bytes).unwrap();
        let run = Run::open_dir(d, vec![], OnDamage::Salvage).unwrap();
        let ranks: Vec<_> = run.processes.iter().map(|p| p.rank.unwrap()).collect();
        assert_eq!(ranks, [0, 1, 2, 3], "the manifest's processes");
        assert!(
            run.damage.is_empty(),
            "nothing walked at open: {:?}",
            run.damage
        );
        let s0 = samples(&run, ShardSpec::new(0, 2).unwrap());
        assert_eq!(s0, [300.0, 0.0, 300.0, 0.0]);
        assert!(
            run.node_indexes
                .lock()
                .unwrap()
                .keys()
                .all(|k| k.ends_with("node-a.bnode")),
            "shard 0 walked node-a only"
        );
        // Shard 1 reads node-b: its damaged section is skipped and said.
        let p1 = run.load_process(1, ShardSpec::new(1, 2).unwrap()).unwrap();
        assert!(p1.contexts.is_empty());
        assert!(
            p1.damage
                .iter()
                .any(|d| d.contains("node-b.bnode") && d.contains("stream skipped")),
            "{:?}",
            p1.damage
        );
        let p3 = run.load_process(3, ShardSpec::new(1, 2).unwrap()).unwrap();
        assert_eq!(p3.contexts.iter().map(|c| c.counts[0]).sum::<f64>(), 300.0);
        assert!(run.load_process(1, ShardSpec::WHOLE).is_ok());
        let strict = Run::open_dir(d, vec![], OnDamage::Refuse).unwrap();
        let e = strict
            .load_process(1, ShardSpec::WHOLE)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("--strict"), "{e}");
    }
}
