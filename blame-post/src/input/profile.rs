//! One process's samples into its profile: the counted stacks symbolized
//! into calling contexts, with what their data addresses are in, their
//! skid windows and the allocation log beside the stream.

use super::*;

impl Run {
    /// Symbolizes the stacks a tally counted and collects this process's
    /// contexts, skid windows and direct (data-address) attributions.
    pub(super) fn profile(
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
        self.drop_unusable(&mut counts, &stacks, map_event, path, &mut damage)?;
        let read_time = started.elapsed();
        let symbolizing = std::time::Instant::now();
        let mut guard = self.symbolizer.lock().unwrap_or_else(|e| e.into_inner());
        let symbolizer: &mut Symbolizer = &mut guard;
        symbolizer.verify_build_ids(&mappings, path)?;
        let mut frames = StackFrames::new(&parents, &mappings);
        // Symbolized stacks are kept for the direct pass only.
        let (by_stack, skid_windows) =
            self.count_contexts(counts, map_event, &mut frames, symbolizer, with_address > 0);
        let logs = self.read_allocation_logs(
            AllocLogsAt {
                stream: path,
                pid,
                memory_events: map_event.iter().any(|&e| self.events[e].memory),
                with_address,
                no_alloc_log_hint,
            },
            &mappings,
            symbolizer,
            &mut warnings,
        )?;
        let mut by_direct: HashMap<Vec<u32>, Vec<(u16, DirectTarget, f64)>> = HashMap::new();
        let mut heap_sites = Vec::new();
        if let Some(heap) = &logs.heap {
            let mut hits = direct_pass(
                samples.samples()?,
                keep,
                &mappings,
                heap.as_ref(),
                symbolizer,
            )?;
            hits.retain(|&(stack, event, _), _| {
                usable(&stacks, map_event, stack, event) == Ok(true)
            });
            (by_direct, heap_sites) =
                direct_contexts(hits, heap.as_ref(), map_event, &mut frames, symbolizer);
        }
        let reference = reference_stacks(&by_stack, all, &stacks, &mut frames, symbolizer);
        warnings.append(&mut symbolizer.warnings);
        let mut contexts = into_contexts(by_stack, by_direct, skid_windows, frames.table.table());
        let real = contexts.len();
        contexts.extend(reference.into_iter().map(|(frames, n)| Context {
            frames,
            counts: vec![n],
            direct: Vec::new(),
            skid_window: None,
        }));
        let frames = frames.table.into_frames(&mut contexts, |c| &mut c.frames);
        let reference = contexts.split_off(real);
        Ok(ProcessProfile {
            index: index as u32,
            frames,
            contexts,
            heap_sites,
            allocations: logs.allocations,
            memory: logs.memory,
            warnings,
            damage,
            lost,
            read_time,
            symbolize_time: symbolizing.elapsed(),
            reference,
        })
    }

    /// Drops the samples whose stack lost a node with a skipped chunk, or
    /// that name a stack or event the stream never defines: said when
    /// salvaging, refused otherwise.
    fn drop_unusable(
        &self,
        counts: &mut StackCounts,
        stacks: &SalvagedStacks,
        map_event: &[usize],
        path: &Path,
        damage: &mut Vec<String>,
    ) -> Result<()> {
        let mut dropped = 0.0;
        let mut refused = None;
        counts.retain(
            |&(stack, event), n| match usable(stacks, map_event, stack, event) {
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
            },
        );
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
        Ok(())
    }

    /// The counts per symbolized stack, and the instruction skid windows of
    /// the memory samples' stacks. The counts are taken in stack order, so
    /// each stack is symbolized once and its frames moved, not cloned, into
    /// the context (a stack of 40 frames is 80 strings).
    #[allow(clippy::type_complexity)]
    fn count_contexts(
        &self,
        counts: StackCounts,
        map_event: &[usize],
        frames_of: &mut StackFrames,
        symbolizer: &mut Symbolizer,
        keep_frames: bool,
    ) -> (FxHashMap<Vec<u32>, Vec<f64>>, HashMap<Vec<u32>, InsnWindow>) {
        let nevents = self.events.len();
        let mut by_stack: FxHashMap<Vec<u32>, Vec<f64>> = FxHashMap::default();
        let mut counts: Vec<((u32, u16), f64)> = counts.into_iter().collect();
        counts.sort_unstable_by_key(|&(k, _)| k);
        let mut last: Option<(u32, Vec<u32>)> = None;
        let mut skid_windows: HashMap<Vec<u32>, InsnWindow> = HashMap::new();
        let mut counts = counts.into_iter().peekable();
        while let Some(((stack, event), n)) = counts.next() {
            let frames = match last.take() {
                Some((s, f)) if s == stack => f,
                _ => frames_of.frames(stack, symbolizer, keep_frames),
            };
            let run_event = map_event[event as usize];
            if let (Some(model), true, true) = (
                self.instruction_skid,
                self.events[run_event].memory,
                stack != 0,
            ) {
                let leaf = frames_of.parents[stack as usize].1;
                if let Some(w) = instruction_window(symbolizer, frames_of.mappings, leaf, model)
                    .filter(|w| !w.is_empty())
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
        (by_stack, skid_windows)
    }

    /// The allocation log beside the stream, read for what needs it: the
    /// footprints of the access-pattern weights (memory events), memory
    /// blame (whatever the events), the heap blocks of the direct pass
    /// (samples with data addresses).
    fn read_allocation_logs(
        &self,
        at: AllocLogsAt,
        mappings: &[Mapping],
        symbolizer: &mut Symbolizer,
        warnings: &mut Vec<Warning>,
    ) -> Result<AllocationLogs> {
        let AllocLogsAt {
            stream,
            pid,
            memory_events,
            with_address,
            no_alloc_log_hint,
        } = at;
        let dir = stream.parent().unwrap_or(Path::new("."));
        let alloc_path = run_dir::alloc_log_path(dir, pid);
        // Read once, for everything that needs it. Without data addresses a
        // log that cannot be read is said and left out; with them the direct
        // pass cannot do without it.
        let log = match alloc_path.exists().then(|| AllocLog::read(&alloc_path)) {
            None => None,
            Some(Ok(log)) => Some(log),
            Some(Err(e)) if with_address > 0 => return Err(e.into()),
            Some(Err(e)) => {
                warnings.push(Warning::AllocLogUnreadable {
                    path: alloc_path.clone(),
                    error: e.to_string(),
                });
                None
            }
        };
        let Some(log) = log else {
            let heap = (with_address > 0).then(|| {
                warnings.push(Warning::NoAllocLog {
                    stream: stream.to_path_buf(),
                    log: alloc_path.clone(),
                    hint: no_alloc_log_hint,
                });
                None
            });
            return Ok(AllocationLogs {
                allocations: None,
                memory: None,
                heap,
            });
        };
        if with_address > 0 {
            if let Some(at) = log.torn_at {
                warnings.push(Warning::AllocLogTorn {
                    path: alloc_path.clone(),
                    at,
                });
            }
        }
        let blocks = HeapBlocks::from_log(&log);
        // The heap blocks of the direct pass.
        let heap = (with_address > 0).then(|| Some(blocks.clone()));
        // The sites symbolized once: memory blame reads every log there is,
        // whatever the events; the heap blocks' sizes tell the access-pattern
        // weights of memory events which reads through pointers stay in the
        // cache.
        let sites = crate::input::allocations::Allocations::new(blocks, symbolizer, mappings);
        let allocations = memory_events.then(|| sites.clone());
        let memory = Some(crate::input::allocations::MemoryInput {
            log,
            allocations: sites,
        });
        Ok(AllocationLogs {
            allocations,
            memory,
            heap,
        })
    }
}

/// Where a process's allocation log is and what it is read for.
struct AllocLogsAt<'a> {
    /// The process's stream, beside which the log is.
    stream: &'a Path,
    pid: u32,
    memory_events: bool,
    /// Selected samples that carry a data address.
    with_address: u64,
    no_alloc_log_hint: &'static str,
}

/// What a process's allocation log gave.
struct AllocationLogs {
    /// For the footprints of the access-pattern weights.
    allocations: Option<crate::input::allocations::Allocations>,
    /// For memory blame.
    memory: Option<crate::input::allocations::MemoryInput>,
    /// With samples that carry data addresses: the heap blocks (`None`
    /// inside when there is no log).
    heap: Option<Option<HeapBlocks>>,
}

/// A sample's stack and event are usable: `Ok(false)` when the stack lost a
/// node with a skipped chunk; an error when it names a stack or an event
/// the stream never defines.
fn usable(
    stacks: &SalvagedStacks,
    map_event: &[usize],
    stack: u32,
    event: u16,
) -> std::result::Result<bool, SampleRefused> {
    if event as usize >= map_event.len() {
        return Err(SampleRefused::UndefinedEvent { event });
    }
    Ok(stacks.check(stack)?)
}

/// Stack ids of one stream to interned frames. Code the line table gives
/// line 0 (compiler-generated loads, rotated loop headers) takes the line
/// of the next instruction of the same function (the interner's leaf line
/// fix).
struct StackFrames<'a> {
    /// Indexed by stack id: (parent, address).
    parents: &'a [(u32, u64)],
    mappings: &'a [Mapping],
    table: StackInterner,
    addresses: Vec<u64>,
    /// Stacks symbolized and kept for a later pass.
    kept: FxHashMap<u32, Vec<u32>>,
}

impl<'a> StackFrames<'a> {
    fn new(parents: &'a [(u32, u64)], mappings: &'a [Mapping]) -> Self {
        StackFrames {
            parents,
            mappings,
            table: StackInterner::default(),
            addresses: Vec::new(),
            kept: FxHashMap::default(),
        }
    }

    /// The frames of `stack`: kept ones, else symbolized (and kept when `keep`).
    fn frames(&mut self, stack: u32, symbolizer: &mut Symbolizer, keep: bool) -> Vec<u32> {
        if let Some(f) = self.kept.get(&stack) {
            return f.clone();
        }
        self.addresses.clear();
        let mut cur = stack;
        while cur != 0 {
            let (parent, address) = self.parents[cur as usize];
            self.addresses.push(address);
            cur = parent;
        }
        let f = self.table.stack(symbolizer, self.mappings, &self.addresses);
        if keep {
            self.kept.insert(stack, f.clone());
        }
        f
    }
}

/// The direct pass's hits as contexts' direct attributions, their heap
/// sites (the ones hit, numbered in order of first use) symbolized.
#[allow(clippy::type_complexity)]
fn direct_contexts(
    hits: HashMap<(u32, u16, DirectTarget), f64>,
    heap: Option<&HeapBlocks>,
    map_event: &[usize],
    frames_of: &mut StackFrames,
    symbolizer: &mut Symbolizer,
) -> (
    HashMap<Vec<u32>, Vec<(u16, DirectTarget, f64)>>,
    Vec<(String, Vec<SymFrame>)>,
) {
    let mut by_direct: HashMap<Vec<u32>, Vec<(u16, DirectTarget, f64)>> = HashMap::new();
    let mut heap_sites = Vec::new();
    let mut used_sites: HashMap<u32, u32> = HashMap::new();
    for ((stack, event, target), n) in hits {
        let target = match target {
            DirectTarget::Heap(site) => {
                let next = used_sites.len() as u32;
                let id = *used_sites.entry(site).or_insert_with(|| {
                    let heap = heap.expect("heap targets come from a log");
                    let (function, frames) = &heap.sites[site as usize];
                    let maps = if heap.maps.is_empty() {
                        frames_of.mappings
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
        let frames = frames_of.frames(stack, symbolizer, true);
        by_direct
            .entry(frames)
            .or_default()
            .push((map_event[event as usize] as u16, target, n));
    }
    (by_direct, heap_sites)
}

/// In a sample-level shard: the stacks of all the process's samples, so
/// that the grafts choose alike in every shard (empty when the shard holds
/// them all).
fn reference_stacks(
    by_stack: &FxHashMap<Vec<u32>, Vec<f64>>,
    all: FxHashMap<u32, f64>,
    stacks: &SalvagedStacks,
    frames_of: &mut StackFrames,
    symbolizer: &mut Symbolizer,
) -> Vec<(Vec<u32>, f64)> {
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
            reference.push((frames_of.frames(stack, symbolizer, false), n));
        }
    }
    reference
}

/// Second pass for samples with data addresses: what each address is in,
/// counted per (stack, event, target). Mappings are all known by now.
pub(super) fn direct_pass(
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
pub(super) struct ProfileInput<'a> {
    /// The file the samples are read from, for messages and the allocation log beside it.
    pub(super) path: &'a Path,
    pub(super) pid: u32,
    /// The input's event numbers → the run's.
    pub(super) map_event: &'a [usize],
    pub(super) samples: SampleSource<'a>,
    /// What to do when samples carry data addresses and no allocation log is found.
    pub(super) no_alloc_log_hint: &'static str,
}

/// The samples of one process, read again for the direct pass.
pub(super) enum SampleSource<'a> {
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

pub(super) fn into_contexts(
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
