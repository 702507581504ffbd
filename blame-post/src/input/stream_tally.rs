//! Reading one process's sample stream: its chunks decoded (in parallel)
//! and its samples counted per (stack, event), with its mappings, stack
//! table and lost samples; damage skipped and said.

use super::*;

/// What one pass over a stream collects: mappings, the stack table, and
/// sample counts per (stack, event) for the samples `keep` selects.
pub(super) struct StreamTally {
    pub(super) mappings: Vec<Mapping>,
    /// Indexed by stack id: (parent, address); entry 0 is the empty stack.
    /// Nodes lost with a skipped chunk are (`u32::MAX`, 0).
    pub(super) parents: Vec<(u32, u64)>,
    /// Which stacks are whole (no node lost with a skipped chunk).
    pub(super) stacks: SalvagedStacks,
    pub(super) counts: StackCounts,
    /// Samples per stack id of every sample, selected or not.
    pub(super) all: FxHashMap<u32, f64>,
    pub(super) warnings: Vec<Warning>,
    /// What the stream lost to damage.
    pub(super) damage: Vec<String>,
    /// Selected samples that carry a data address.
    pub(super) with_address: u64,
    /// Samples the kernel or the recorder dropped.
    pub(super) lost: u64,
}

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

pub(super) fn tally_stream(
    reader: &mut dyn ChunkSource,
    keep: &(dyn Fn(usize) -> bool + Sync),
    keeps_all: bool,
    on_damage: OnDamage,
) -> Result<StreamTally> {
    let path = reader.path().to_path_buf();
    let mut t = StreamTally::of_table(Vec::new(), vec![(0, 0)], SalvagedStacks::default());
    let mut seq = 0usize;
    let mut end = None;
    while end.is_none() {
        let batch;
        (batch, end) = next_batch(reader, &path, on_damage, &mut t)?;
        let decoded = decode_batch(batch, &path, keeps_all);
        let mut offsets = Vec::with_capacity(decoded.len());
        let mut intact = Vec::with_capacity(decoded.len());
        for d in decoded {
            match d {
                Ok(d) => {
                    offsets.push(seq);
                    seq += d.samples.len() + d.sample_count;
                    intact.push(d);
                }
                Err(skip) => t.skipped(&path, &skip, on_damage)?,
            }
        }
        for c in tally_chunks(intact, offsets, keep) {
            t.add(c, &path)?;
        }
    }
    if end == Some(StreamEnd::Whole) && !reader.complete() && reader.end_marker_expected() {
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

/// How a stream's reading ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StreamEnd {
    /// At the end of what the file holds.
    Whole,
    /// Torn: the file ends inside a chunk.
    Torn,
}

/// Refused damage (`--strict`).
fn refuse(what: String) -> PostError {
    PostError::Refused {
        what,
        instead: SKIPS_THE_DAMAGE,
    }
}

/// The next chunks of the stream, up to a batch, damage skipped and said
/// in `t`; how the stream ended when it did.
fn next_batch(
    reader: &mut dyn ChunkSource,
    path: &Path,
    on_damage: OnDamage,
    t: &mut StreamTally,
) -> Result<(Vec<blame_formats::container::RawChunk>, Option<StreamEnd>)> {
    let mut batch = Vec::with_capacity(CHUNK_BATCH);
    while batch.len() < CHUNK_BATCH {
        match reader.next_chunk_salvaging() {
            Ok(Some(Salvaged::Chunk(c))) => batch.push(c),
            Ok(Some(Salvaged::Skipped(skip))) => t.skipped(path, &skip, on_damage)?,
            Ok(None) => return Ok((batch, Some(StreamEnd::Whole))),
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
                return Ok((batch, Some(StreamEnd::Torn)));
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok((batch, None))
}

/// Decodes each chunk in parallel, straight from its decompressed bytes.
/// When the shard owns every sample, they are counted as they are
/// decoded; otherwise they are kept in a compact form, a sample being its
/// (stack, event) and whether it has a data address (sample numbers, for
/// sample-level sharding, continue across chunks, so they are counted
/// next, by [`tally_chunks`]).
fn decode_batch(
    batch: Vec<blame_formats::container::RawChunk>,
    path: &Path,
    keeps_all: bool,
) -> Vec<std::result::Result<DecodedChunk, Skipped>> {
    batch
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
            decode_chunk_each(c, path, |r| match r {
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
        .collect()
}

/// Tallies decoded chunks in parallel (`first`: each chunk's first sample
/// number), each chunk's samples dropped by the thread that counted them.
fn tally_chunks(
    intact: Vec<DecodedChunk>,
    first: Vec<usize>,
    keep: &(dyn Fn(usize) -> bool + Sync),
) -> Vec<ChunkTally> {
    intact
        .into_par_iter()
        .zip(first)
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
        .collect()
}

impl StreamTally {
    /// No samples counted yet, over these mappings and stack table.
    pub(super) fn of_table(
        mappings: Vec<Mapping>,
        parents: Vec<(u32, u64)>,
        stacks: SalvagedStacks,
    ) -> StreamTally {
        StreamTally {
            mappings,
            parents,
            stacks,
            counts: StackCounts::default(),
            all: FxHashMap::default(),
            warnings: Vec::new(),
            damage: Vec::new(),
            with_address: 0,
            lost: 0,
        }
    }

    /// A damaged stretch skipped: said, or refused (`--strict`).
    fn skipped(&mut self, path: &Path, skip: &Skipped, on_damage: OnDamage) -> Result<()> {
        if on_damage == OnDamage::Refuse {
            return Err(refuse(skip.error.to_string()));
        }
        self.damage.push(describe_skip(path, skip));
        self.stacks.damaged = true;
        Ok(())
    }

    /// Adds one chunk's tally, in stream order.
    fn add(&mut self, c: ChunkTally, path: &Path) -> Result<()> {
        self.with_address += c.with_address;
        self.lost += c.lost;
        for (k, v) in c.counts {
            *self.counts.entry(k).or_insert(0.0) += v;
        }
        for (k, v) in c.all {
            *self.all.entry(k).or_insert(0.0) += v;
        }
        self.mappings.extend(c.mappings);
        for n in c.stacks {
            if let Err(reason) = self.stacks.push(n) {
                return Err(PostError::BadStacks {
                    path: path.to_path_buf(),
                    reason: reason.into(),
                });
            }
            self.parents.resize(n.id as usize, (u32::MAX, 0));
            self.parents.push((n.parent, n.address));
        }
        Ok(())
    }
}

/// Fails when a run has more distinct events than an event index can name.
pub(super) fn check_event_count(n: usize, source: &str) -> Result<()> {
    if n > MAX_EVENTS {
        return Err(PostError::TooManyEvents {
            input: source.to_string(),
            count: n,
            max: MAX_EVENTS,
        });
    }
    Ok(())
}
