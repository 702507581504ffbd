//! Inputs of post-processing: a recorded run directory (one sample stream
//! per process), Linux perf captures (perf.data, decoded by
//! [`blame_capture::perf_data`] into the same mappings, stack table and samples a
//! stream holds) or JSON-lines symbolic samples. Each becomes a list of
//! processes, each a set of unique symbolized stacks with per-event counts:
//! samples that share a stack are resolved once (memoization per calling
//! context), and memory does not grow with the number of samples.

pub mod allocations;
pub mod dump;
pub mod fde_functions;
pub mod frame_table;
pub mod heap_blocks;
pub mod openmp;
pub mod plt;
pub mod shard;
pub mod skid_insns;
pub mod skid_model;
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

/// What the manifests of a run directory say of the node files their
/// recorders closed: file name → (its length then, the manifest).
fn listed_node_files(dir: &Path) -> HashMap<String, (NodeFileEntry, Arc<Manifest>)> {
    let mut out = HashMap::new();
    for path in run_dir::manifest_files(dir) {
        // An unreadable manifest only costs the walk of its files.
        let Ok(m) = Manifest::read(&path) else {
            continue;
        };
        let m = Arc::new(m);
        for f in &m.node_files {
            out.insert(f.file.clone(), (f.clone(), m.clone()));
        }
    }
    out
}

/// The processes of node file `path` as its manifest lists them, when the
/// file still has the length the recorder closed it with and the manifest
/// names every section; `None`: walk the file.
fn listed_sections(
    listed: &HashMap<String, (NodeFileEntry, Arc<Manifest>)>,
    path: &Path,
) -> Option<Vec<(String, StreamAt, StreamHeader)>> {
    let name = path.file_name()?.to_string_lossy();
    let (file, m) = listed.get(name.as_ref())?;
    if std::fs::metadata(path).ok()?.len() != file.bytes {
        return None;
    }
    let processes: Vec<&ProcessEntry> =
        m.processes.iter().filter(|p| p.file == file.file).collect();
    let mut sections: Vec<u32> = processes.iter().map(|p| p.section).collect::<Option<_>>()?;
    sections.sort_unstable();
    if sections != (0..file.sections).collect::<Vec<_>>() {
        return None;
    }
    let events: Vec<EventDesc> = m
        .events
        .iter()
        .map(|e| EventDesc {
            name: e.name.clone(),
            sampling: match e.mode.as_str() {
                "period" => Sampling::Period(e.rate),
                _ => Sampling::Frequency(e.rate),
            },
            unit: e.unit.clone(),
            memory: e.memory,
        })
        .collect();
    Some(
        processes
            .into_iter()
            .map(|p| {
                let header = StreamHeader {
                    host: m.host.clone(),
                    command: p.command.clone(),
                    pid: p.pid,
                    ppid: p.ppid,
                    rank: p.rank,
                    world_size: None,
                    events: events.clone(),
                    call_graph: m.call_graph.clone(),
                    start_time_ns: 0,
                    extra: Vec::new(),
                };
                let at = StreamAt::Section {
                    file: path.to_path_buf(),
                    section: p.section.expect("checked above"),
                };
                (p.label(), at, header)
            })
            .collect(),
    )
}

/// Where one process's stream is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamAt {
    /// A stream file of its own (`*.bstream`).
    File(PathBuf),
    /// A section of a node file (`*.bnode`), by section id.
    Section { file: PathBuf, section: u32 },
}

impl StreamAt {
    /// The file and the section in it: the order of storage.
    fn key(&self) -> (&Path, u32) {
        match self {
            StreamAt::File(p) => (p, 0),
            StreamAt::Section { file, section } => (file, *section),
        }
    }

    /// `FILE` or `FILE#section-N`, for messages before the section's name is known.
    pub fn describe(&self) -> String {
        match self {
            StreamAt::File(p) => p.display().to_string(),
            StreamAt::Section { file, section } => format!("{}#section-{section}", file.display()),
        }
    }
}

/// Each stream's position when the streams are ordered as they are stored
/// (by file, then section): process-level shards take contiguous blocks
/// of that order, so a shard opens only the node files its processes are in.
fn storage_order(streams: &[StreamAt]) -> Vec<usize> {
    let mut by_storage: Vec<usize> = (0..streams.len()).collect();
    by_storage.sort_by(|&a, &b| streams[a].key().cmp(&streams[b].key()));
    let mut position = vec![0; streams.len()];
    for (pos, &i) in by_storage.iter().enumerate() {
        position[i] = pos;
    }
    position
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
    /// Opens a run directory: every node file (`*.bnode`, a section per
    /// process) and stream file (`*.bstream`) in it; processes are ordered
    /// by their names (`rank-N`, `pid-N`), as stream files sort. A stream
    /// or section whose header cannot be read (empty, cut in its header,
    /// damaged) is skipped and listed in `damage`, or refused with
    /// [`OnDamage::Refuse`].
    pub fn open_dir(dir: &Path, binary_paths: Vec<PathBuf>, on_damage: OnDamage) -> Result<Run> {
        // Refused while a recorder writes the directory: its streams are incomplete.
        let lock = RunDirLock::read(dir)
            .map(Some)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::WouldBlock => PostError::Busy {
                    dir: dir.to_path_buf(),
                    lock: e,
                },
                _ => io(dir)(e),
            })?;
        let found = run_dir::sample_files(dir).map_err(io(dir))?;
        if found.is_empty() {
            return Err(PostError::NoSampleFiles {
                dir: dir.to_path_buf(),
            });
        }
        let mut damage = Vec::new();
        let mut unreadable = Vec::new();
        let mut note = |what: String, unreadable_too: bool| -> Result<()> {
            if on_damage == OnDamage::Refuse {
                return Err(PostError::Refused {
                    what,
                    instead: USES_OTHER_STREAMS,
                });
            }
            damage.push(format!("{what}: stream skipped"));
            if unreadable_too {
                unreadable.push(what);
            }
            Ok(())
        };
        // (name, where, header) of every readable stream.
        let mut found_streams: Vec<(String, StreamAt, StreamHeader)> = Vec::new();
        let mut indexes = HashMap::new();
        let listed = listed_node_files(dir);
        for path in &found {
            if let Some(sections) = listed_sections(&listed, path) {
                // The manifest lists the closed file's processes: the file
                // is walked only by a shard that reads one of them.
                found_streams.extend(sections);
                continue;
            }
            if is_node_file(path) {
                let index = match NodeIndex::open(path) {
                    Ok(index) => index,
                    Err(e) => {
                        note(unreadable_stream(path, &e), true)?;
                        continue;
                    }
                };
                for skip in &index.damage {
                    note(describe_skip(path, skip), false)?;
                }
                if index.sections.is_empty() && !index.complete {
                    note(
                        format!(
                            "{}: cut before its first process's section ({})",
                            path.display(),
                            index.describe()
                        ),
                        true,
                    )?;
                }
                for (i, s) in index.sections.iter().enumerate() {
                    match &s.header {
                        Some(h) => found_streams.push((
                            s.label(),
                            StreamAt::Section {
                                file: path.clone(),
                                section: s.section,
                            },
                            h.clone(),
                        )),
                        None => note(
                            format!(
                                "{}: the open chunk of section {} is damaged: its process is unknown and its {} chunks cannot be read",
                                index.section_path(i).display(),
                                s.section,
                                s.chunks.len()
                            ),
                            true,
                        )?,
                    }
                }
                indexes.insert(path.clone(), Arc::new(index));
            } else {
                match StreamReader::open(path) {
                    Ok((_, header)) => found_streams.push((
                        path.file_stem()
                            .map(|n| n.to_string_lossy().into_owned())
                            .unwrap_or_default(),
                        StreamAt::File(path.clone()),
                        header,
                    )),
                    Err(e) => note(unreadable_stream(path, &e), true)?,
                }
            }
        }
        if found_streams.is_empty() {
            return Err(PostError::NoneReadable {
                dir: dir.to_path_buf(),
                count: found.len(),
                errors: unreadable,
            });
        }
        found_streams.sort_by(|a, b| (&a.0, a.1.key()).cmp(&(&b.0, b.1.key())));
        let mut events = Vec::new();
        let mut processes = Vec::new();
        let mut streams = Vec::new();
        for (_, at, header) in found_streams {
            check_event_count(header.events.len(), &at.describe())?;
            for e in &header.events {
                event_index(&mut events, e);
            }
            processes.push(ProcessInfo {
                rank: header.rank,
                pid: header.pid,
                host: header.host.clone().into(),
                launcher: is_launcher(&header.command),
                command: header.command.clone().into(),
                samples: Vec::new(),
                lost: 0,
            });
            streams.push(at);
        }
        check_event_count(events.len(), &dir.display().to_string())?;
        Ok(Run {
            events,
            processes,
            // The run dir holds what the recorder saved for symbolization (kallsyms).
            symbolizer: std::sync::Mutex::new(Symbolizer::new(
                binary_paths
                    .iter()
                    .cloned()
                    .chain([dir.to_path_buf()])
                    .collect(),
            )),
            instruction_skid: None,
            warnings: Vec::new(),
            skipped_streams: unreadable.len(),
            damage,
            on_damage,
            open_time: Default::default(),
            _lock: lock,
            shard_order: storage_order(&streams),
            node_indexes: std::sync::Mutex::new(indexes),
            late_damage: Default::default(),
            source: Source::RunDir {
                dir: dir.to_path_buf(),
                streams,
            },
        })
    }

    /// Reads JSON-lines samples; processes are told apart by (rank, pid).
    pub fn open_jsonl(path: &Path) -> Result<Run> {
        let file = blame_formats::files::open_regular(path).map_err(io(path))?;
        let samples = read_samples(std::io::BufReader::new(file), &path.display().to_string())?;
        Self::from_json_samples(samples)
    }

    pub fn from_json_samples(samples: Vec<JsonSample>) -> Result<Run> {
        if samples.is_empty() {
            return Err(PostError::NoSamples);
        }
        let mut events = Vec::new();
        let mut keys: Vec<(Option<u32>, Option<u32>)> = Vec::new();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut by_key: HashMap<(Option<u32>, Option<u32>), usize> = HashMap::new();
        let mut event_ids: HashMap<&str, usize> = HashMap::new();
        for (i, s) in samples.iter().enumerate() {
            if !event_ids.contains_key(s.event.as_str()) {
                event_ids.insert(&s.event, events.len());
                events.push(EventDesc {
                    name: s.event.clone(),
                    sampling: Sampling::Period(1),
                    unit: "samples".into(),
                    memory: is_memory_event(&s.event),
                });
                check_event_count(events.len(), "the JSON-lines samples")?;
            }
            let key = (s.rank, s.pid);
            let g = *by_key.entry(key).or_insert_with(|| {
                keys.push(key);
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[g].push(i);
        }
        // Order processes by rank then pid so indices do not depend on line order.
        let mut order: Vec<usize> = (0..keys.len()).collect();
        order.sort_by_key(|&g| keys[g]);
        let processes = order
            .iter()
            .map(|&g| ProcessInfo {
                rank: keys[g].0,
                pid: keys[g].1.unwrap_or(0),
                host: String::new().into(),
                command: Vec::new().into(),
                launcher: false,
                samples: Vec::new(),
                lost: 0,
            })
            .collect();
        let groups = order
            .iter()
            .map(|&g| std::mem::take(&mut groups[g]))
            .collect();
        Ok(Run {
            events,
            processes,
            source: Source::Json { samples, groups },
            symbolizer: std::sync::Mutex::new(Symbolizer::new(Vec::new())),
            instruction_skid: None,
            warnings: Vec::new(),
            damage: Vec::new(),
            skipped_streams: 0,
            on_damage: OnDamage::Salvage,
            open_time: Default::default(),
            _lock: None,
            shard_order: (0..keys.len()).collect(),
            node_indexes: Default::default(),
            late_damage: Default::default(),
        })
    }

    /// Reads captures of Linux `perf record` (see [`blame_capture::perf_data`]).
    /// One file's processes have no MPI rank; with several files, file `i`
    /// holds rank `i`. Objects are looked up in `binary_paths` first.
    pub fn open_perf_data(paths: &[PathBuf], binary_paths: Vec<PathBuf>) -> Result<Run> {
        let started = std::time::Instant::now();
        let capture = read_perf_data(paths, &binary_paths)?;
        Ok(Run {
            events: capture.events,
            processes: capture.processes.iter().map(|p| p.info.clone()).collect(),
            symbolizer: std::sync::Mutex::new(Symbolizer::new(binary_paths)),
            instruction_skid: None,
            warnings: capture.warnings.into_iter().map(Warning::from).collect(),
            damage: Vec::new(),
            skipped_streams: 0,
            on_damage: OnDamage::Salvage,
            open_time: started.elapsed(),
            _lock: None,
            shard_order: (0..capture.processes.len()).collect(),
            node_indexes: Default::default(),
            late_damage: Default::default(),
            source: Source::Perf {
                processes: capture.processes,
            },
        })
    }

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
        let nevents = self.events.len();
        let started = std::time::Instant::now();
        match &self.source {
            Source::Json { samples, groups } => {
                let mut table = FrameTable::default();
                let mut by_stack: FxHashMap<Vec<u32>, Vec<f64>> = FxHashMap::default();
                let event_ids: HashMap<&str, usize> = self
                    .events
                    .iter()
                    .enumerate()
                    .map(|(i, e)| (e.name.as_str(), i))
                    .collect();
                for (seq, &i) in groups[index].iter().enumerate() {
                    if !keep(seq) {
                        continue;
                    }
                    let s = &samples[i];
                    let e = event_ids[s.event.as_str()];
                    by_stack
                        .entry(table.intern_stack(s.stack.clone()))
                        .or_insert_with(|| vec![0.0; nevents])[e] += s.weight;
                }
                // A sample-level shard: every sample's stack, for the grafts.
                let mut all: FxHashMap<Vec<u32>, Vec<f64>> = FxHashMap::default();
                if !whole_process {
                    for &i in &groups[index] {
                        let s = &samples[i];
                        all.entry(table.intern_stack(s.stack.clone()))
                            .or_insert_with(|| vec![0.0; nevents])[event_ids[s.event.as_str()]] +=
                            s.weight;
                    }
                }
                let reference = into_contexts(all, HashMap::new(), HashMap::new(), &table);
                let contexts = into_contexts(by_stack, HashMap::new(), HashMap::new(), &table);
                Ok(ProcessProfile {
                    index: index as u32,
                    frames: table.into_frames(),
                    contexts,
                    heap_sites: Vec::new(),
                    allocations: None,
                    memory: None,
                    warnings: Vec::new(),
                    damage: Vec::new(),
                    lost: 0,
                    read_time: started.elapsed(),
                    symbolize_time: Default::default(),
                    reference,
                })
            }
            Source::RunDir { streams, .. } => {
                let at = &streams[index];
                let opened = self.open_stream(at).and_then(|(reader, header)| {
                    self.check_listed(index, at, &header)?;
                    Ok((reader, header))
                });
                let late: Vec<String> = std::mem::take(
                    &mut *self.late_damage.lock().unwrap_or_else(|e| e.into_inner()),
                );
                let refuse = |what: &str| PostError::Refused {
                    what: what.to_string(),
                    instead: USES_OTHER_STREAMS,
                };
                if let (Some(first), OnDamage::Refuse) = (late.first(), self.on_damage) {
                    return Err(refuse(first));
                }
                let (mut reader, header) = match opened {
                    Ok(x) => x,
                    // A section the manifest lists that the file does not hold whole.
                    Err(
                        e @ (PostError::Format(_)
                        | PostError::NoSuchSection { .. }
                        | PostError::ManifestMismatch { .. }),
                    ) if matches!(at, StreamAt::Section { .. }) => {
                        let what = format!("{}: {e}", at.describe());
                        if self.on_damage == OnDamage::Refuse {
                            return Err(refuse(&what));
                        }
                        let mut empty = ProcessProfile::empty(index);
                        empty.damage = late;
                        empty.damage.push(format!("{what}: stream skipped"));
                        return Ok(empty);
                    }
                    Err(e) => return Err(e),
                };
                let path = &reader.path().to_path_buf();
                let map_event: Vec<usize> = header
                    .events
                    .iter()
                    .map(|e| {
                        self.events
                            .iter()
                            .position(|x| x.name == e.name)
                            .expect("event indexed at open")
                    })
                    .collect();
                // The binaries' debug info is opened while the samples are counted.
                let (tally, ()) = rayon::join(
                    || tally_stream(reader.as_mut(), &keep, whole_process, self.on_damage),
                    || self.preload_symbols(at),
                );
                let mut tally = tally?;
                if !keep(0) {
                    // Sample-level shards all read this stream: one counts its losses.
                    tally.lost = 0;
                }
                self.profile(
                    index,
                    ProfileInput {
                        path,
                        pid: header.pid,
                        map_event: &map_event,
                        samples: SampleSource::Stream(self, at),
                        no_alloc_log_hint: "record with --track-allocations",
                    },
                    tally,
                    &keep,
                    started,
                )
                .map(|mut profile| {
                    profile.damage.splice(0..0, late);
                    profile
                })
            }
            Source::Perf { processes } => {
                let p = &processes[index];
                let tally = tally_samples(p, &keep);
                let map_event: Vec<usize> = (0..nevents).collect();
                self.profile(
                    index,
                    ProfileInput {
                        path: &p.file,
                        pid: p.info.pid,
                        map_event: &map_event,
                        samples: SampleSource::Memory(&p.samples),
                        no_alloc_log_hint: "perf does not trace allocations; blame's allocation tracer can write one beside the capture",
                    },
                    tally,
                    &keep,
                    started,
                )
            }
        }
    }

    /// Opens the stream at `at`: a stream file, or a node file's section
    /// (the node file's index walked once per run).
    fn open_stream(&self, at: &StreamAt) -> Result<(Box<dyn ChunkSource + Send>, StreamHeader)> {
        match at {
            StreamAt::File(path) => Ok(StreamIn::File(path.clone()).open()?),
            StreamAt::Section { file, section } => {
                let index = self.node_index(file)?;
                let Some(i) = index.sections.iter().position(|s| s.section == *section) else {
                    return Err(PostError::NoSuchSection { at: at.describe() });
                };
                Ok(StreamIn::Section(index, i).open()?)
            }
        }
    }

    /// Fails when the stream opened for process `index` is not the one the
    /// run lists (a manifest that does not describe its node file).
    fn check_listed(&self, index: usize, at: &StreamAt, header: &StreamHeader) -> Result<()> {
        let p = &self.processes[index];
        let unknown_event = header
            .events
            .iter()
            .find(|e| !self.events.iter().any(|x| x.name == e.name));
        if p.pid == header.pid && p.rank == header.rank && unknown_event.is_none() {
            return Ok(());
        }
        Err(PostError::ManifestMismatch {
            at: at.describe(),
            listed: format!(
                "pid {} (rank {:?}) with events {:?}",
                p.pid,
                p.rank,
                self.events.iter().map(|e| &e.name).collect::<Vec<_>>()
            ),
            found: format!(
                "pid {} (rank {:?}) with events {:?}",
                header.pid,
                header.rank,
                header.events.iter().map(|e| &e.name).collect::<Vec<_>>()
            ),
        })
    }

    /// The index of node file `file`, walked on first use.
    fn node_index(&self, file: &Path) -> Result<Arc<NodeIndex>> {
        let mut indexes = self.node_indexes.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(index) = indexes.get(file) {
            return Ok(index.clone());
        }
        let index = Arc::new(NodeIndex::open(file)?);
        indexes.insert(file.to_path_buf(), index.clone());
        let mut late = self.late_damage.lock().unwrap_or_else(|e| e.into_inner());
        late.extend(index.damage.iter().map(|skip| describe_skip(file, skip)));
        for (i, s) in index.sections.iter().enumerate() {
            if s.header.is_none() {
                late.push(format!(
                    "{}: the open chunk of section {} is damaged: its {} chunks cannot be read",
                    index.section_path(i).display(),
                    s.section,
                    s.chunks.len()
                ));
            }
        }
        Ok(index)
    }

    /// Opens the objects of the mappings a stream declares before its first
    /// sample (see [`Symbolizer::preload`]); a stream that cannot be read
    /// here is left to the counting pass to report.
    fn preload_symbols(&self, at: &StreamAt) {
        let Ok((mut reader, _)) = self.open_stream(at) else {
            return;
        };
        let mappings = blame_formats::stream::leading_mappings(reader.as_mut());
        if !mappings.is_empty() {
            let mut guard = self.symbolizer.lock().unwrap_or_else(|e| e.into_inner());
            guard.preload(&mappings);
        }
    }

    /// Symbolizes the stacks a tally counted and collects this process's
    /// contexts, skid windows and direct (data-address) attributions.
    fn profile(
        &self,
        index: usize,
        input: ProfileInput,
        tally: StreamTally,
        keep: &(dyn Fn(usize) -> bool + Sync),
        started: std::time::Instant,
    ) -> Result<ProcessProfile> {
        let ProfileInput {
            path,
            pid,
            map_event,
            samples,
            no_alloc_log_hint,
        } = input;
        let nevents = self.events.len();
        let StreamTally {
            mappings,
            parents,
            mut counts,
            all,
            mut warnings,
            mut damage,
            with_address,
            stacks,
            lost,
        } = tally;
        // Samples whose stack lost a node with a skipped chunk, or that name
        // a stack or event the stream never defines: dropped when
        // salvaging, an error otherwise.
        let usable = |stack: u32, event: u16| -> std::result::Result<bool, SampleRefused> {
            if event as usize >= map_event.len() {
                return Err(SampleRefused::UndefinedEvent { event });
            }
            Ok(stacks.check(stack)?)
        };
        let mut dropped = 0.0;
        let mut refused = None;
        counts.retain(|&(stack, event), n| match usable(stack, event) {
            Ok(true) => true,
            Ok(false) => {
                dropped += *n;
                false
            }
            Err(reason) => {
                refused.get_or_insert(reason);
                dropped += *n;
                false
            }
        });
        if let Some(reason) = refused {
            if self.on_damage == OnDamage::Refuse || !stacks.damaged {
                return Err(PostError::BadStacks {
                    path: path.to_path_buf(),
                    reason,
                });
            }
        }
        if dropped > 0.0 {
            damage.push(format!(
                "{}: {dropped} samples dropped: their stacks were defined in the skipped bytes",
                path.display()
            ));
        }
        let read_time = started.elapsed();
        let symbolizing = std::time::Instant::now();
        let mut guard = self.symbolizer.lock().unwrap_or_else(|e| e.into_inner());
        let symbolizer: &mut Symbolizer = &mut guard;
        symbolizer.verify_build_ids(&mappings, path)?;
        let mut by_stack: FxHashMap<Vec<u32>, Vec<f64>> = FxHashMap::default();
        let mut table = StackInterner::default();
        let mut addresses = Vec::new();
        // Code the line table gives line 0 (compiler-generated loads,
        // rotated loop headers) takes the line of the next instruction of
        // the same function (the interner's leaf line fix).
        let mut symbolize_uncached =
            |stack: u32, symbolizer: &mut Symbolizer, table: &mut StackInterner| -> Vec<u32> {
                addresses.clear();
                let mut cur = stack;
                while cur != 0 {
                    let (parent, address) = parents[cur as usize];
                    addresses.push(address);
                    cur = parent;
                }
                table.stack(symbolizer, &mappings, &addresses)
            };
        // Symbolized stacks are kept for the direct pass only; the counts
        // are taken in stack order, so each stack is symbolized once and
        // its frames moved, not cloned, into the context (a stack of 40
        // frames is 80 strings).
        let mut frames_of: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        let keep_frames = with_address > 0;
        let mut counts: Vec<((u32, u16), f64)> = counts.into_iter().collect();
        counts.sort_unstable_by_key(|&(k, _)| k);
        let mut last: Option<(u32, Vec<u32>)> = None;
        let mut skid_windows: HashMap<Vec<u32>, InsnWindow> = HashMap::new();
        let mut counts = counts.into_iter().peekable();
        while let Some(((stack, event), n)) = counts.next() {
            let frames = match last.take() {
                Some((s, f)) if s == stack => f,
                _ => match frames_of.get(&stack) {
                    Some(f) => f.clone(),
                    None => {
                        let f = symbolize_uncached(stack, symbolizer, &mut table);
                        if keep_frames {
                            frames_of.insert(stack, f.clone());
                        }
                        f
                    }
                },
            };
            let run_event = map_event[event as usize];
            if let (Some(model), true, true) = (
                self.instruction_skid,
                self.events[run_event].memory,
                stack != 0,
            ) {
                let leaf = parents[stack as usize].1;
                if let Some(w) =
                    instruction_window(symbolizer, &mappings, leaf, model).filter(|w| !w.is_empty())
                {
                    let entry = skid_windows.entry(frames.clone()).or_default();
                    for (l, p) in w.lines {
                        *entry.lines.entry(l).or_insert(0.0) += p * n;
                    }
                    for (chain, p) in w.inlined {
                        *entry.inlined.entry(chain).or_insert(0.0) += p * n;
                    }
                    entry.truncated |= w.truncated;
                }
            }
            if counts.peek().is_some_and(|((s, _), _)| *s == stack) {
                // More events of this stack follow: keep its frames.
                match by_stack.get_mut(&frames) {
                    Some(c) => c[run_event] += n,
                    None => {
                        by_stack
                            .entry(frames.clone())
                            .or_insert_with(|| vec![0.0; nevents])[run_event] += n
                    }
                }
                last = Some((stack, frames));
            } else {
                by_stack.entry(frames).or_insert_with(|| vec![0.0; nevents])[run_event] += n;
            }
        }
        let mut by_direct: HashMap<Vec<u32>, Vec<(u16, DirectTarget, f64)>> = HashMap::new();
        let mut heap_sites = Vec::new();
        let dir = path.parent().unwrap_or(Path::new("."));
        let alloc_path = run_dir::alloc_log_path(dir, pid);
        // The heap blocks' sizes tell the access-pattern weights which reads
        // through pointers stay in the cache.
        let memory_events = map_event.iter().any(|&e| self.events[e].memory);
        let allocations = if memory_events && with_address == 0 && alloc_path.exists() {
            match AllocLog::read(&alloc_path) {
                Ok(log) => Some(crate::input::allocations::Allocations::new(
                    HeapBlocks::from_log(&log),
                    symbolizer,
                    &mappings,
                )),
                Err(e) => {
                    warnings.push(Warning::AllocLogUnreadable {
                        path: alloc_path.clone(),
                        error: e.to_string(),
                    });
                    None
                }
            }
        } else {
            None
        };
        let mut allocations = allocations;
        // Memory blame reads every log there is, whatever the events.
        let memory = match alloc_path.exists().then(|| AllocLog::read(&alloc_path)) {
            Some(Ok(log)) => {
                let blocks = HeapBlocks::from_log(&log);
                let allocations =
                    crate::input::allocations::Allocations::new(blocks, symbolizer, &mappings);
                Some(crate::input::allocations::MemoryInput { log, allocations })
            }
            Some(Err(e)) => {
                if !memory_events && with_address == 0 {
                    warnings.push(Warning::AllocLogUnreadable {
                        path: alloc_path.clone(),
                        error: e.to_string(),
                    });
                }
                None
            }
            None => None,
        };
        if with_address > 0 {
            let heap = if alloc_path.exists() {
                let log = AllocLog::read(&alloc_path)?;
                if let Some(at) = log.torn_at {
                    warnings.push(Warning::AllocLogTorn {
                        path: alloc_path.clone(),
                        at,
                    });
                }
                let heap = HeapBlocks::from_log(&log);
                if memory_events {
                    allocations = Some(crate::input::allocations::Allocations::new(
                        heap.clone(),
                        symbolizer,
                        &mappings,
                    ));
                }
                Some(heap)
            } else {
                warnings.push(Warning::NoAllocLog {
                    stream: path.to_path_buf(),
                    log: alloc_path.clone(),
                    hint: no_alloc_log_hint,
                });
                None
            };
            let mut hits = direct_pass(
                samples.samples()?,
                keep,
                &mappings,
                heap.as_ref(),
                symbolizer,
            )?;
            hits.retain(|&(stack, event, _), _| usable(stack, event) == Ok(true));
            let mut used_sites: HashMap<u32, u32> = HashMap::new();
            for ((stack, event, target), n) in hits {
                let target = match target {
                    DirectTarget::Heap(site) => {
                        let next = used_sites.len() as u32;
                        let id = *used_sites.entry(site).or_insert_with(|| {
                            let heap = heap.as_ref().expect("heap targets come from a log");
                            let (function, frames) = &heap.sites[site as usize];
                            let maps = if heap.maps.is_empty() {
                                &mappings
                            } else {
                                &heap.maps
                            };
                            let symbolized: Vec<SymFrame> = frames
                                .iter()
                                .flat_map(|&a| symbolizer.frames_for(maps, a, true))
                                .collect();
                            heap_sites.push((function.clone(), symbolized));
                            next
                        });
                        DirectTarget::Heap(id)
                    }
                    other => other,
                };
                let frames = match frames_of.get(&stack) {
                    Some(f) => f.clone(),
                    None => {
                        let f = symbolize_uncached(stack, symbolizer, &mut table);
                        frames_of.insert(stack, f.clone());
                        f
                    }
                };
                by_direct.entry(frames).or_default().push((
                    map_event[event as usize] as u16,
                    target,
                    n,
                ));
            }
        }
        // A sample-level shard: the stacks of all the process's samples, so
        // that the grafts choose alike in every shard.
        let kept: f64 = by_stack.values().flatten().sum();
        let total: f64 = all
            .iter()
            .filter(|(&s, _)| stacks.check(s) == Ok(true))
            .map(|(_, n)| n)
            .sum();
        let mut reference: Vec<(Vec<u32>, f64)> = Vec::new();
        if total > kept {
            let mut all: Vec<(u32, f64)> = all.into_iter().collect();
            all.sort_unstable_by_key(|&(s, _)| s);
            for (stack, n) in all {
                if stacks.check(stack) != Ok(true) {
                    continue;
                }
                let frames = match frames_of.get(&stack) {
                    Some(f) => f.clone(),
                    None => symbolize_uncached(stack, symbolizer, &mut table),
                };
                reference.push((frames, n));
            }
        }
        warnings.append(&mut symbolizer.warnings);
        let mut contexts = into_contexts(by_stack, by_direct, skid_windows, table.table());
        let real = contexts.len();
        contexts.extend(reference.into_iter().map(|(frames, n)| Context {
            frames,
            counts: vec![n],
            direct: Vec::new(),
            skid_window: None,
        }));
        let frames = table.into_frames(&mut contexts, |c| &mut c.frames);
        let reference = contexts.split_off(real);
        Ok(ProcessProfile {
            index: index as u32,
            frames,
            contexts,
            heap_sites,
            allocations,
            memory,
            warnings,
            damage,
            lost,
            read_time,
            symbolize_time: symbolizing.elapsed(),
            reference,
        })
    }
}

/// What one pass over a stream collects: mappings, the stack table, and
/// sample counts per (stack, event) for the samples `keep` selects.
struct StreamTally {
    mappings: Vec<Mapping>,
    /// Indexed by stack id: (parent, address); entry 0 is the empty stack.
    /// Nodes lost with a skipped chunk are (`u32::MAX`, 0).
    parents: Vec<(u32, u64)>,
    /// Which stacks are whole (no node lost with a skipped chunk).
    stacks: SalvagedStacks,
    counts: StackCounts,
    /// Samples per stack id of every sample, selected or not.
    all: FxHashMap<u32, f64>,
    warnings: Vec<Warning>,
    /// What the stream lost to damage.
    damage: Vec<String>,
    /// Selected samples that carry a data address.
    with_address: u64,
    /// Samples the kernel or the recorder dropped.
    lost: u64,
}

/// Second pass for samples with data addresses: what each address is in,
/// counted per (stack, event, target). Mappings are all known by now.
fn direct_pass(
    samples: impl Iterator<Item = Result<Sample>>,
    keep: &(dyn Fn(usize) -> bool + Sync),
    mappings: &[Mapping],
    heap: Option<&HeapBlocks>,
    symbolizer: &mut Symbolizer,
) -> Result<HashMap<(u32, u16, DirectTarget), f64>> {
    let mut hits = HashMap::new();
    let mut globals: HashMap<u64, DirectTarget> = HashMap::new();
    for (seq, s) in samples.enumerate() {
        let s = s?;
        {
            if let (true, Some(addr)) = (keep(seq), s.data_address) {
                let target = match heap.and_then(|h| h.find(addr, s.time_ns)) {
                    Some(b) => DirectTarget::Heap(b.site),
                    None => globals
                        .entry(addr)
                        .or_insert_with(|| match symbolizer.data_symbol(mappings, addr) {
                            Some(name) => DirectTarget::Global(name),
                            None => DirectTarget::Unattributed,
                        })
                        .clone(),
                };
                *hits.entry((s.stack, s.event, target)).or_insert(0.0) += 1.0;
            }
        }
    }
    Ok(hits)
}

/// What [`Run::profile`] needs to know about where a process's samples come from.
struct ProfileInput<'a> {
    /// The file the samples are read from, for messages and the allocation log beside it.
    path: &'a Path,
    pid: u32,
    /// The input's event numbers → the run's.
    map_event: &'a [usize],
    samples: SampleSource<'a>,
    /// What to do when samples carry data addresses and no allocation log is found.
    no_alloc_log_hint: &'static str,
}

/// The samples of one process, read again for the direct pass.
enum SampleSource<'a> {
    Stream(&'a Run, &'a StreamAt),
    Memory(&'a [Sample]),
}

impl<'a> SampleSource<'a> {
    /// Every sample in order; a torn stream ends at its last complete chunk.
    fn samples(&self) -> Result<Box<dyn Iterator<Item = Result<Sample>> + 'a>> {
        match *self {
            SampleSource::Memory(samples) => Ok(Box::new(samples.iter().map(|s| Ok(*s)))),
            SampleSource::Stream(run, at) => {
                // The same chunks as the tally skipped are skipped here, so
                // sample numbers (sample-level sharding) agree.
                let (mut reader, _) = run.open_stream(at)?;
                Ok(Box::new(std::iter::from_fn(move || loop {
                    match reader.next_item_salvaging() {
                        Ok(Some(Item::Record(Record::Sample(s)))) => return Some(Ok(s)),
                        Ok(Some(_)) => {}
                        Ok(None) => return None,
                        Err(e) if e.is_truncation() => return None,
                        Err(e) => return Some(Err(e.into())),
                    }
                })))
            }
        }
    }
}

/// The tally of a decoded perf.data process: what [`tally_stream`] collects from a stream.
fn tally_samples(p: &PerfProcess, keep: &(dyn Fn(usize) -> bool + Sync)) -> StreamTally {
    let mut stacks = SalvagedStacks::default();
    for (id, &(parent, address)) in p.stacks.iter().enumerate().skip(1) {
        // perf.data stack tables are built in order (see blame_capture::imported_images).
        let _ = stacks.push(StackNode {
            id: id as u32,
            parent,
            address,
        });
    }
    let mut t = StreamTally {
        mappings: p.mappings.clone(),
        parents: p.stacks.clone(),
        stacks,
        counts: StackCounts::default(),
        all: FxHashMap::default(),
        warnings: Vec::new(),
        damage: Vec::new(),
        with_address: 0,
        lost: 0,
    };
    for (seq, s) in p.samples.iter().enumerate() {
        *t.all.entry(s.stack).or_insert(0.0) += 1.0;
        if keep(seq) {
            *t.counts.entry((s.stack, s.event)).or_insert(0.0) += 1.0;
            t.with_address += s.data_address.is_some() as u64;
        }
    }
    t
}

/// Samples per (stack id, event).
type StackCounts = FxHashMap<(u32, u16), f64>;

/// What one chunk of a stream contributes to its process's tally.
#[derive(Default)]
struct ChunkTally {
    counts: StackCounts,
    all: FxHashMap<u32, f64>,
    with_address: u64,
    lost: u64,
    mappings: Vec<Mapping>,
    stacks: Vec<StackNode>,
}

/// A sample as the first pass needs it.
struct CompactSample {
    stack: u32,
    event: u16,
    with_address: bool,
}

/// One chunk of a stream, decoded for the first pass.
#[derive(Default)]
struct DecodedChunk {
    /// The samples, kept when a shard owns some samples of the process and
    /// not others (which it owns depends on numbers across chunks).
    samples: Vec<CompactSample>,
    /// The samples counted while decoding, when the shard owns all of them.
    counted: StackCounts,
    with_address: u64,
    sample_count: usize,
    mappings: Vec<Mapping>,
    stacks: Vec<StackNode>,
    lost: u64,
}

/// Chunks decoded at once: enough to keep every core busy, few enough that
/// memory stays independent of the stream's length.
const CHUNK_BATCH: usize = 16;

fn tally_stream(
    reader: &mut dyn ChunkSource,
    keep: &(dyn Fn(usize) -> bool + Sync),
    keeps_all: bool,
    on_damage: OnDamage,
) -> Result<StreamTally> {
    let path = reader.path().to_path_buf();
    let mut t = StreamTally {
        mappings: Vec::new(),
        parents: vec![(0, 0)],
        stacks: SalvagedStacks::default(),
        counts: StackCounts::default(),
        all: FxHashMap::default(),
        warnings: Vec::new(),
        damage: Vec::new(),
        with_address: 0,
        lost: 0,
    };
    let refuse = |what: String| -> PostError {
        PostError::Refused {
            what,
            instead: SKIPS_THE_DAMAGE,
        }
    };
    let mut seq = 0usize;
    let mut done = false;
    let mut torn = false;
    while !done {
        let mut batch = Vec::with_capacity(CHUNK_BATCH);
        while batch.len() < CHUNK_BATCH {
            match reader.next_chunk_salvaging() {
                Ok(Some(Salvaged::Chunk(c))) => batch.push(c),
                Ok(Some(Salvaged::Skipped(skip))) => {
                    if on_damage == OnDamage::Refuse {
                        return Err(refuse(skip.error.to_string()));
                    }
                    let what = describe_skip(&path, &skip);
                    t.damage.push(what);
                    t.stacks.damaged = true;
                }
                Ok(None) => {
                    done = true;
                    break;
                }
                Err(FormatError::Truncated { offset, .. }) => {
                    let what = format!(
                        "{}: cut at byte {offset} (the recorder was stopped before closing it, or the copy is short)",
                        path.display()
                    );
                    if on_damage == OnDamage::Refuse {
                        return Err(refuse(what));
                    }
                    let what = format!("{what}; the complete chunks before it are used");
                    t.damage.push(what);
                    torn = true;
                    done = true;
                    break;
                }
                Err(e) => return Err(e.into()),
            }
        }
        // Decode each chunk in parallel, straight from its decompressed
        // bytes. When the shard owns every sample, they are counted as they
        // are decoded; otherwise they are kept in a compact form, a sample
        // being its (stack, event) and whether it has a data address
        // (sample numbers, for sample-level sharding, continue across
        // chunks, so they are counted next) ...
        let decoded: Vec<std::result::Result<DecodedChunk, Skipped>> = batch
            .into_par_iter()
            .map(|c| {
                let (offset, next) = (c.offset, c.offset + c.compressed.len() as u64 + 20);
                let mut d = DecodedChunk {
                    samples: Vec::with_capacity(if keeps_all {
                        0
                    } else {
                        (c.record_count as usize).min(1 << 20)
                    }),
                    ..Default::default()
                };
                decode_chunk_each(c, &path, |r| match r {
                    Record::Sample(s) if keeps_all => {
                        *d.counted.entry((s.stack, s.event)).or_insert(0.0) += 1.0;
                        d.with_address += s.data_address.is_some() as u64;
                        d.sample_count += 1;
                    }
                    Record::Sample(s) => d.samples.push(CompactSample {
                        stack: s.stack,
                        event: s.event,
                        with_address: s.data_address.is_some(),
                    }),
                    Record::Mapping(m) => d.mappings.push(m),
                    Record::Stack(node) => d.stacks.push(node),
                    Record::Lost(l) => d.lost += l.count,
                    _ => {}
                })
                .map_err(|error| Skipped {
                    offset,
                    resumed_at: Some(next),
                    error,
                })?;
                Ok(d)
            })
            .collect();
        let mut offsets = Vec::with_capacity(decoded.len());
        let mut intact = Vec::with_capacity(decoded.len());
        for d in decoded {
            match d {
                Ok(d) => {
                    offsets.push(seq);
                    seq += d.samples.len() + d.sample_count;
                    intact.push(d);
                }
                Err(skip) => {
                    if on_damage == OnDamage::Refuse {
                        return Err(refuse(skip.error.to_string()));
                    }
                    let what = describe_skip(&path, &skip);
                    t.damage.push(what);
                    t.stacks.damaged = true;
                }
            }
        }
        // ... then tally them in parallel, each chunk's samples dropped by
        // the thread that counted them.
        let partial: Vec<ChunkTally> = intact
            .into_par_iter()
            .zip(offsets)
            .map(|(d, first)| {
                let mut c = ChunkTally {
                    all: FxHashMap::default(),
                    counts: d.counted,
                    with_address: d.with_address,
                    mappings: d.mappings,
                    stacks: d.stacks,
                    lost: d.lost,
                };
                // Counted while decoding: every sample is selected.
                for (&(stack, _), n) in &c.counts {
                    *c.all.entry(stack).or_insert(0.0) += n;
                }
                for (n, s) in (first..).zip(d.samples) {
                    *c.all.entry(s.stack).or_insert(0.0) += 1.0;
                    if keep(n) {
                        *c.counts.entry((s.stack, s.event)).or_insert(0.0) += 1.0;
                        c.with_address += s.with_address as u64;
                    }
                }
                c
            })
            .collect();
        for c in partial {
            t.with_address += c.with_address;
            t.lost += c.lost;
            for (k, v) in c.counts {
                *t.counts.entry(k).or_insert(0.0) += v;
            }
            for (k, v) in c.all {
                *t.all.entry(k).or_insert(0.0) += v;
            }
            t.mappings.extend(c.mappings);
            for n in c.stacks {
                if let Err(reason) = t.stacks.push(n) {
                    return Err(PostError::BadStacks {
                        path: path.to_path_buf(),
                        reason: reason.into(),
                    });
                }
                t.parents.resize(n.id as usize, (u32::MAX, 0));
                t.parents.push((n.parent, n.address));
            }
        }
    }
    if !torn && !reader.complete() && reader.end_marker_expected() {
        let what = format!(
            "{}: cut at byte {} (no end marker: the recorder was stopped before closing it)",
            path.display(),
            reader.offset()
        );
        if on_damage == OnDamage::Refuse {
            return Err(refuse(what));
        }
        let what = format!("{what}; everything before it is used");
        t.damage.push(what);
    }
    Ok(t)
}

/// The most event names a run can hold: results index events with a `u16`.
pub const MAX_EVENTS: usize = 1 << 16;

/// Fails when a run has more distinct events than an event index can name.
fn check_event_count(n: usize, source: &str) -> Result<()> {
    if n > MAX_EVENTS {
        return Err(PostError::TooManyEvents {
            input: source.to_string(),
            count: n,
            max: MAX_EVENTS,
        });
    }
    Ok(())
}

/// Why a stream's header cannot be read, for users.
fn unreadable_stream(path: &Path, e: &FormatError) -> String {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() && m.len() == 0 => format!(
            "{}: empty (0 bytes): the recorder was killed (kill -9) before it wrote this process's stream",
            path.display()
        ),
        _ => format!("{e}"),
    }
}

/// A damaged stretch of a stream, for users.
fn describe_skip(path: &Path, skip: &Skipped) -> String {
    // The error names the file already.
    let error = skip.error.to_string();
    let prefix = format!("{}: ", path.display());
    let reason = error.strip_prefix(&prefix).unwrap_or(&error);
    match skip.resumed_at {
        Some(r) => format!(
            "{}: damaged bytes {}..{r} skipped ({reason}); the chunks after them are used",
            path.display(),
            skip.offset,
        ),
        None => format!(
            "{}: damaged from byte {} to its end, skipped ({reason})",
            path.display(),
            skip.offset,
        ),
    }
}

fn into_contexts(
    by_stack: FxHashMap<Vec<u32>, Vec<f64>>,
    mut by_direct: HashMap<Vec<u32>, Vec<(u16, DirectTarget, f64)>>,
    mut skid_windows: HashMap<Vec<u32>, InsnWindow>,
    table: &FrameTable,
) -> Vec<Context> {
    let mut contexts: Vec<Context> = by_stack
        .into_iter()
        .map(|(frames, counts)| {
            let mut direct = by_direct.remove(&frames).unwrap_or_default();
            direct.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
            let skid_window = skid_windows.remove(&frames).map(|w| {
                let total: f64 = w.lines.values().chain(w.inlined.values()).sum();
                SkidWindow {
                    lines: w.lines.into_iter().map(|(l, p)| (l, p / total)).collect(),
                    truncated: w.truncated,
                    inlined: w.inlined.into_iter().map(|(c, p)| (c, p / total)).collect(),
                }
            });
            Context {
                frames,
                counts,
                direct,
                skid_window,
            }
        })
        .collect();
    contexts.sort_by(|a, b| cmp_stacks(&table.frames, &a.frames, &b.frames));
    contexts
}

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
