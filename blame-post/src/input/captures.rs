//! Inputs other than a run directory: JSON-lines symbolic samples and
//! Linux perf captures (perf.data, decoded by [`blame_capture::perf_data`]
//! into the mappings, stack table and samples a stream holds).

use super::*;

impl Run {
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
    let mut t = StreamTally::of_table(p.mappings.clone(), p.stacks.clone(), stacks);
    for (seq, s) in p.samples.iter().enumerate() {
        *t.all.entry(s.stack).or_insert(0.0) += 1.0;
        if keep(seq) {
            *t.counts.entry((s.stack, s.event)).or_insert(0.0) += 1.0;
            t.with_address += s.data_address.is_some() as u64;
        }
    }
    t
}

impl Run {
    /// The samples of JSON-lines process `index` (`group`: its samples'
    /// indices into `samples`) that `keep` selects, counted per stack.
    pub(super) fn load_json(
        &self,
        index: usize,
        samples: &[JsonSample],
        group: &[usize],
        keep: &(dyn Fn(usize) -> bool + Sync),
        whole_process: bool,
        started: std::time::Instant,
    ) -> ProcessProfile {
        let nevents = self.events.len();
        let mut table = FrameTable::default();
        let mut by_stack: FxHashMap<Vec<u32>, Vec<f64>> = FxHashMap::default();
        let event_ids: HashMap<&str, usize> = self
            .events
            .iter()
            .enumerate()
            .map(|(i, e)| (e.name.as_str(), i))
            .collect();
        for (seq, &i) in group.iter().enumerate() {
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
            for &i in group {
                let s = &samples[i];
                all.entry(table.intern_stack(s.stack.clone()))
                    .or_insert_with(|| vec![0.0; nevents])[event_ids[s.event.as_str()]] += s.weight;
            }
        }
        let reference = into_contexts(all, HashMap::new(), HashMap::new(), &table);
        let contexts = into_contexts(by_stack, HashMap::new(), HashMap::new(), &table);
        ProcessProfile {
            frames: table.into_frames(),
            contexts,
            read_time: started.elapsed(),
            reference,
            ..ProcessProfile::empty(index)
        }
    }

    /// The samples of perf.data process `p` that `keep` selects.
    pub(super) fn load_perf(
        &self,
        index: usize,
        p: &PerfProcess,
        keep: &(dyn Fn(usize) -> bool + Sync),
        started: std::time::Instant,
    ) -> Result<ProcessProfile> {
        let nevents = self.events.len();
        let tally = tally_samples(p, keep);
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
            keep,
            started,
        )
    }
}
