//! Opening a run directory: its node files (a section per process) and
//! stream files, ordered as the recorders stored them, with what the
//! manifests list of closed node files, and damage said or refused.

use super::*;

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
pub(super) fn storage_order(streams: &[StreamAt]) -> Vec<usize> {
    let mut by_storage: Vec<usize> = (0..streams.len()).collect();
    by_storage.sort_by(|&a, &b| streams[a].key().cmp(&streams[b].key()));
    let mut position = vec![0; streams.len()];
    for (pos, &i) in by_storage.iter().enumerate() {
        position[i] = pos;
    }
    position
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
        let mut found_in = FoundStreams {
            on_damage,
            ..Default::default()
        };
        let listed = listed_node_files(dir);
        for path in &found {
            if let Some(sections) = listed_sections(&listed, path) {
                // The manifest lists the closed file's processes: the file
                // is walked only by a shard that reads one of them.
                found_in.streams.extend(sections);
            } else if is_node_file(path) {
                found_in.add_node_file(path)?;
            } else {
                found_in.add_stream_file(path)?;
            }
        }
        let FoundStreams {
            damage,
            unreadable,
            streams: mut found_streams,
            indexes,
            ..
        } = found_in;
        if found_streams.is_empty() {
            return Err(PostError::NoneReadable {
                dir: dir.to_path_buf(),
                count: found.len(),
                errors: unreadable,
            });
        }
        found_streams.sort_by(|a, b| (&a.0, a.1.key()).cmp(&(&b.0, b.1.key())));
        let (events, processes, streams) = processes_of(found_streams)?;
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

    /// Opens the stream at `at`: a stream file, or a node file's section
    /// (the node file's index walked once per run).
    pub(super) fn open_stream(
        &self,
        at: &StreamAt,
    ) -> Result<(Box<dyn ChunkSource + Send>, StreamHeader)> {
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
    pub(super) fn check_listed(
        &self,
        index: usize,
        at: &StreamAt,
        header: &StreamHeader,
    ) -> Result<()> {
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
    pub(super) fn node_index(&self, file: &Path) -> Result<Arc<NodeIndex>> {
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
    pub(super) fn preload_symbols(&self, at: &StreamAt) {
        let Ok((mut reader, _)) = self.open_stream(at) else {
            return;
        };
        let mappings = blame_formats::stream::leading_mappings(reader.as_mut());
        if !mappings.is_empty() {
            let mut guard = self.symbolizer.lock().unwrap_or_else(|e| e.into_inner());
            guard.preload(&mappings);
        }
    }
}

/// The readable streams of a run directory found so far, and what could
/// not be read (said, or refused with [`OnDamage::Refuse`]).
#[derive(Default)]
struct FoundStreams {
    on_damage: OnDamage,
    /// (name, where, header) of every readable stream.
    streams: Vec<(String, StreamAt, StreamHeader)>,
    /// The node files walked, by path.
    indexes: HashMap<PathBuf, Arc<NodeIndex>>,
    damage: Vec<String>,
    /// Streams that could not be read at all.
    unreadable: Vec<String>,
}

impl FoundStreams {
    /// A stream (or part of a node file) skipped: said, or refused.
    fn note(&mut self, what: String, unreadable_too: bool) -> Result<()> {
        if self.on_damage == OnDamage::Refuse {
            return Err(PostError::Refused {
                what,
                instead: USES_OTHER_STREAMS,
            });
        }
        self.damage.push(format!("{what}: stream skipped"));
        if unreadable_too {
            self.unreadable.push(what);
        }
        Ok(())
    }

    /// The sections of a node file no manifest lists, walked.
    fn add_node_file(&mut self, path: &PathBuf) -> Result<()> {
        let index = match NodeIndex::open(path) {
            Ok(index) => index,
            Err(e) => return self.note(unreadable_stream(path, &e), true),
        };
        for skip in &index.damage {
            self.note(describe_skip(path, skip), false)?;
        }
        if index.sections.is_empty() && !index.complete {
            self.note(
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
                Some(h) => self.streams.push((
                    s.label(),
                    StreamAt::Section {
                        file: path.clone(),
                        section: s.section,
                    },
                    h.clone(),
                )),
                None => self.note(
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
        self.indexes.insert(path.clone(), Arc::new(index));
        Ok(())
    }

    /// A stream file of one process, by its header.
    fn add_stream_file(&mut self, path: &PathBuf) -> Result<()> {
        match StreamReader::open(path) {
            Ok((_, header)) => {
                self.streams.push((
                    path.file_stem()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    StreamAt::File(path.clone()),
                    header,
                ));
                Ok(())
            }
            Err(e) => self.note(unreadable_stream(path, &e), true),
        }
    }
}

/// The run's events and processes from its streams' headers, in order.
#[allow(clippy::type_complexity)]
fn processes_of(
    found: Vec<(String, StreamAt, StreamHeader)>,
) -> Result<(Vec<EventDesc>, Vec<ProcessInfo>, Vec<StreamAt>)> {
    let mut events = Vec::new();
    let mut processes = Vec::new();
    let mut streams = Vec::new();
    for (_, at, header) in found {
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
    Ok((events, processes, streams))
}

/// Why a stream's header cannot be read, for users.
pub(super) fn unreadable_stream(path: &Path, e: &FormatError) -> String {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() && m.len() == 0 => format!(
            "{}: empty (0 bytes): the recorder was killed (kill -9) before it wrote this process's stream",
            path.display()
        ),
        _ => format!("{e}"),
    }
}

/// A damaged stretch of a stream, for users.
pub(super) fn describe_skip(path: &Path, skip: &Skipped) -> String {
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

impl Run {
    /// The samples of the process stored at `at` that `keep` selects:
    /// its stream read and counted, then profiled; damage said or refused.
    pub(super) fn load_stream(
        &self,
        index: usize,
        at: &StreamAt,
        keep: &(dyn Fn(usize) -> bool + Sync),
        whole_process: bool,
        started: std::time::Instant,
    ) -> Result<ProcessProfile> {
        let opened = self.open_stream(at).and_then(|(reader, header)| {
            self.check_listed(index, at, &header)?;
            Ok((reader, header))
        });
        let late: Vec<String> =
            std::mem::take(&mut *self.late_damage.lock().unwrap_or_else(|e| e.into_inner()));
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
            || tally_stream(reader.as_mut(), keep, whole_process, self.on_damage),
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
            keep,
            started,
        )
        .map(|mut profile| {
            profile.damage.splice(0..0, late);
            profile
        })
    }
}
