//! Reduces partial results of shards into one: sums per key and process.
//! Associative and commutative, so the merged result does not depend on the
//! number of shards or the order they finish in.
//!
//! This file holds the [`Merger`] and how it reduces a part's records into
//! its tables; a key's sums per process are `process_sums`, the call path
//! table `path_table`, a merger summing contexts over ranks `summing`,
//! the records made canonical `canonical`, and the reading of partial
//! results into a merger `parts`.

mod canonical;
mod parts;
mod path_table;
mod process_sums;
mod summing;

pub(crate) use canonical::{canonical, RawContext};
pub use parts::{read_parts, read_parts_into, Part};
use path_table::{path_hash, PathSlot};
use process_sums::{add_values, function_blames, variable_blames, ProcessSums};
use summing::{summed_process, SumTables};

use crate::borrowed_keys::{Borrowed, FxKeyMap};
use crate::error::{PostError, Result};
use blame_formats::results::{FunctionKey, Results, ResultsHeader, SummedContexts, VariableKey};
use blame_formats::results_flat::{
    FlatHead, FlatItem, FlatReader, FlatResults, FlatStacks, FlatTables,
};

/// Reduces partial results of one run as they arrive (reduce as you
/// read): each part's header, variables and functions are summed into the
/// merger and its frames, stacks and contexts renumbered into the merger's
/// tables, then the part is dropped, so only the merged records stay in
/// memory, never all the parts at once. [`Merger::finish`] makes them
/// canonical. Sums are taken in the order the parts are added.
///
/// A merger that sums contexts over ranks ([`Merger::summing`], or from the
/// first part whose contexts are summed on) keeps the application's stacks
/// and contexts in tables keyed by (frames) and by (variable, stack), all
/// ranks as one ([`ALL_RANKS`](blame_formats::results::ALL_RANKS)): its
/// memory is bounded by the distinct calling contexts, not by the ranks
/// merged. Launchers' stay per process.
#[derive(Default)]
pub struct Merger {
    header: Option<ResultsHeader>,
    /// Variable keys of the parts added, each once: contexts name them by
    /// index, and `variables` holds their sums per process.
    keys: Vec<VariableKey>,
    key_ids: FxKeyMap<VariableKey, u32>,
    variables: Vec<ProcessSums>,
    functions: FxKeyMap<FunctionKey, ProcessSums>,
    /// Distinct frames of the parts added, each once, and their ids.
    frames: crate::input::frame_table::FrameTable,
    /// Stacks of all parts added, on call paths of frame ids of `frames`,
    /// each distinct path once.
    stacks: FlatStacks,
    /// The paths of `stacks`, found by the hash of their frame ids.
    path_ids: hashbrown::HashTable<PathSlot>,
    contexts: Vec<RawContext>,
    parts: usize,
    /// `Some` when contexts are summed over ranks: the index of each
    /// (process, path) in `stacks` and of each (key, process, stack) in
    /// `contexts`.
    summing: Option<SumTables>,
    /// The results with per-rank contexts merged so far, by name (parts
    /// read from files; a summed part adds what it names).
    leaves: std::collections::BTreeSet<String>,
    /// Which processes are launchers (whose stacks and contexts stay per
    /// process when contexts are summed), from the first part's table.
    launcher: Vec<bool>,
    /// A part's variables, frame ids, paths and stacks as the merger's,
    /// reused from part to part.
    key_of: Vec<u32>,
    frame_of: Vec<u32>,
    path_of: Vec<u32>,
    stack_of: Vec<u32>,
    scratch: Vec<u32>,
}

impl Merger {
    /// Partial results added so far.
    pub fn parts(&self) -> usize {
        self.parts
    }

    /// [`Self::add_named`] of a part without a name (in memory).
    pub fn add(&mut self, part: Results) -> Result<()> {
        self.add_named(part, None)
    }

    /// Adds one partial result, read from the file `name` when it has one;
    /// fails when it comes from another run or from other inputs than the
    /// parts before it.
    pub fn add_named(&mut self, part: Results, name: Option<&str>) -> Result<()> {
        self.add_flat(part.into(), name).map(drop)
    }

    /// [`Self::add_named`] of a part read flat ([`FlatResults::read`]);
    /// the part's stack and context tables, for the next read to reuse
    /// ([`FlatResults::read_reusing`], which empties them).
    pub fn add_flat(&mut self, part: FlatResults, name: Option<&str>) -> Result<FlatTables> {
        let FlatResults {
            header,
            processes,
            counts,
            variables,
            functions,
            frames,
            stacks,
            contexts,
        } = part;
        self.begin_part(
            &FlatHead {
                header,
                processes,
                counts,
            },
            name,
        )?;
        let records = FlatResults {
            variables,
            functions,
            frames,
            stacks,
            contexts,
            ..Default::default()
        };
        Ok(records.for_each_item(|item| self.add_item(item)))
    }

    /// [`Self::add_named`] of the results file `path`, each record reduced
    /// as it is decoded ([`FlatReader::read_each`]): its call paths and
    /// stacks pass through `scratch` (returned, for the next file), one at
    /// a time, while they are in the caches. A file found damaged part way
    /// leaves the merger with the records before the damage: the merge
    /// fails.
    pub fn add_file(&mut self, path: &std::path::Path, scratch: FlatStacks) -> Result<FlatStacks> {
        let (head, reader) = FlatReader::open(path)?;
        self.begin_part(&head, Some(&path.display().to_string()))?;
        Ok(reader.read_each(scratch, false, |item| self.add_item(item))?)
    }

    /// Adds a part's header (its counts, damage, blame points and coverage)
    /// and starts renumbering its records: fails when it comes from another
    /// run or from other inputs than the parts before it.
    fn begin_part(&mut self, part: &FlatHead, name: Option<&str>) -> Result<()> {
        match &part.header.summed {
            Some(summed) => {
                self.leaves.extend(summed.from.iter().cloned());
                // A summed part cannot be made per rank again: the result is summed.
                if self.summing.is_none() {
                    self.start_summing();
                }
            }
            None => self.leaves.extend(name.map(str::to_string)),
        }
        let header = match &mut self.header {
            Some(h) => h,
            None => {
                let mut h = part.header.clone();
                h.shard = None;
                // The run's processes from the first part's table, with no
                // counts: every part's are added below.
                h.processes = part.processes.processes(h.events.len()).ok_or_else(|| {
                    PostError::CorruptProcessTable {
                        name: name.unwrap_or("a partial result in memory").to_string(),
                    }
                })?;
                h.coverage.clear();
                h.damage.clear();
                h.blame_points.clear();
                h.summed = None;
                self.launcher = h.processes.iter().map(|p| p.launcher).collect();
                self.header.insert(h)
            }
        };
        add_header(header, &part.header, part.processes.len(), &part.counts)?;
        self.parts += 1;
        self.start_renumbering();
        Ok(())
    }

    /// Forgets the ids of the part added before: the next part's records
    /// are renumbered from none.
    fn start_renumbering(&mut self) {
        self.key_of.clear();
        self.frame_of.clear();
        self.path_of.clear();
        self.stack_of.clear();
    }

    /// Adds one record of the part begun last ([`Self::begin_part`]), in
    /// its file's order: its variables and frames as ids of the merger's,
    /// each of its call paths renumbered and found once (however many of
    /// its stacks, processes, run through it), its stacks and contexts
    /// renumbered into the merger's tables.
    fn add_item(&mut self, item: FlatItem<'_>) {
        match item {
            FlatItem::Variable { key, values } => {
                let id = match self.key_ids.get(&Borrowed(key)) {
                    Some(&id) => id,
                    None => self.key_id(key.to_key()),
                };
                add_values(&mut self.variables[id as usize], values);
                self.key_of.push(id);
            }
            FlatItem::Function { key, values } => {
                let sums = match self.functions.get_mut(&Borrowed(key)) {
                    Some(sums) => sums,
                    None => self.functions.entry(key.to_key()).or_default(),
                };
                add_values(sums, values);
            }
            FlatItem::Frame(f) => {
                let id = self.frames.intern_ref(f);
                self.frame_of.push(id);
            }
            FlatItem::Path(frames) => {
                let mut ids = std::mem::take(&mut self.scratch);
                ids.clear();
                let frame_of = &self.frame_of[..];
                ids.extend(frames.iter().map(|&f| frame_of[f as usize]));
                let id = self.intern_path(path_hash(&ids), &ids);
                self.scratch = ids;
                self.path_of.push(id);
            }
            FlatItem::Stack {
                process,
                path,
                samples,
            } => {
                let path = self.path_of[path as usize];
                let id = match self.summing {
                    Some(_) => {
                        let process = summed_process(&self.launcher, process);
                        self.sum_stack(process, path, samples)
                    }
                    None => self.stacks.push_on_path(process, path, samples),
                };
                self.stack_of.push(id);
            }
            FlatItem::Context(c) => {
                // Contexts of stacks the part does not have are dropped, as
                // `canonical` drops them.
                let Some(&stack) = self.stack_of.get(c.stack as usize) else {
                    return;
                };
                let c = RawContext::new(
                    self.key_of[c.variable as usize],
                    c.process,
                    stack,
                    c.samples,
                );
                match self.summing {
                    Some(_) => self.sum_context(c),
                    None => self.contexts.push(c),
                }
            }
        }
    }

    /// The id of variable key `key`, added when new.
    fn key_id(&mut self, key: VariableKey) -> u32 {
        match self.key_ids.get(&key) {
            Some(&id) => id,
            None => {
                let id = self.keys.len() as u32;
                self.keys.push(key.clone());
                self.key_ids.insert(key, id);
                self.variables.push(ProcessSums::default());
                id
            }
        }
    }

    /// The merged result, its records canonical (sorted, stacks and
    /// contexts of equal keys summed).
    pub fn finish(self) -> Result<Results> {
        Ok(Results::try_from(self.finish_flat()?)?)
    }

    /// [`Self::finish`] with the stacks flat, as [`FlatResults::write`]
    /// writes them (no vector per stack).
    pub fn finish_flat(self) -> Result<FlatResults> {
        let mut header = self.header.ok_or(PostError::NothingToMerge)?;
        if self.summing.is_some() {
            header.summed = Some(SummedContexts {
                from: self.leaves.into_iter().collect(),
            });
        }
        drop(self.summing);
        drop(self.path_ids);
        drop(self.key_ids);
        let mut variables = variable_blames(self.keys.iter().cloned(), self.variables);
        variables.sort_unstable_by(|a, b| a.key.cmp(&b.key));
        let mut functions = function_blames(self.functions);
        functions.sort_unstable_by(|a, b| a.key.cmp(&b.key));
        let (frames, stacks, contexts) = canonical(
            self.frames.into_frames(),
            self.stacks,
            self.keys,
            self.contexts,
            &mut variables,
        );
        Ok(FlatResults::of(
            header, variables, functions, frames, stacks, contexts,
        ))
    }
}

/// Adds a part's header to the merger's (`header`): its counts (`counts`, of
/// a table of `processes`), damage, blame points and coverage; fails when
/// it comes from another run or from other inputs than the parts before.
fn add_header(
    header: &mut ResultsHeader,
    part: &ResultsHeader,
    processes: usize,
    counts: &[blame_formats::results::ProcessCounts],
) -> Result<()> {
    if part.events != header.events || processes != header.processes.len() {
        return Err(PostError::PartsOfOtherRuns);
    }
    if let (Some(a), Some(b)) = (&header.provenance, &part.provenance) {
        if !a.matches(b) {
            return Err(PostError::PartsOfOtherInputs {
                differences: a.differences(b),
            });
        }
    }
    for d in &part.damage {
        if !header.damage.contains(d) {
            header.damage.push(d.clone());
        }
    }
    for from in counts {
        let Some(into) = header.processes.get_mut(from.process as usize) else {
            return Err(PostError::PartsOfOtherRuns);
        };
        if into.samples.len() < from.samples.len() {
            into.samples.resize(from.samples.len(), 0.0);
        }
        for (a, b) in into.samples.iter_mut().zip(&from.samples) {
            *a += b;
        }
        into.lost += from.lost;
    }
    for bp in &part.blame_points {
        if let Err(at) = header.blame_points.binary_search(bp) {
            header.blame_points.insert(at, bp.clone());
        }
    }
    for c in &part.coverage {
        blame_formats::results::Coverage::add_to(&mut header.coverage, c);
    }
    Ok(())
}

/// Merges results of the same run (same processes and events).
pub fn merge(parts: Vec<Results>) -> Result<Results> {
    merge_into(Merger::default(), parts)
}

/// [`merge`] with the application's contexts summed over ranks.
pub fn merge_summing(parts: Vec<Results>) -> Result<Results> {
    merge_into(Merger::summing(), parts)
}

fn merge_into(mut merger: Merger, parts: Vec<Results>) -> Result<Results> {
    for part in parts {
        merger.add(part)?;
    }
    merger.finish()
}

#[cfg(test)]
mod tests {
    use super::parts::{reduce_summing, GROUP_BYTES};
    use super::*;
    use blame_formats::results::{
        ContextBlame, FunctionBlame, ProcessValue, SymFrame, VariableBlame, ALL_RANKS,
    };
    use std::collections::BTreeMap;
    use std::hash::{Hash, Hasher};

    /// A borrowed frame or key hashes as the owned one does: else the
    /// merger's maps would not find a part's frames and keys without
    /// making them (each found again by its owned form, at twice the cost).
    #[test]
    fn borrowed_keys_hash_as_the_owned_ones() {
        fn hash(h: impl Hash) -> u64 {
            let mut hasher = rustc_hash::FxHasher::default();
            h.hash(&mut hasher);
            hasher.finish()
        }
        let frame = SymFrame {
            function: "solve".into(),
            file: "a.c".into(),
            line: 300,
            column: 4,
            inlined: true,
        };
        let key = VariableKey {
            name: "u".into(),
            function: "solve".into(),
            file: "a.c".into(),
            line: 12,
            type_name: "double *".into(),
            kind: "local".into(),
            scalar: false,
            event: 1,
        };
        let function = FunctionKey {
            name: "solve".into(),
            file: "a.c".into(),
            event: 1,
        };
        assert_eq!(hash(&frame), hash(Borrowed(frame.as_ref())));
        assert_eq!(hash(&key), hash(Borrowed(key.as_ref())));
        assert_eq!(hash(&function), hash(Borrowed(function.as_ref())));
        let mut frames: FxKeyMap<SymFrame, u32> = FxKeyMap::default();
        frames.insert(frame.clone(), 7);
        assert_eq!(frames.get(&Borrowed(frame.as_ref())), Some(&7));
    }

    fn shard(index: u32, db_hash: u64, damage: &[&str]) -> Results {
        use blame_formats::results::{FileId, ProcessInfo, Provenance, ResultsHeader, Shard};
        Results {
            header: ResultsHeader {
                producer: "test".into(),
                events: vec![],
                processes: vec![ProcessInfo {
                    rank: Some(0),
                    pid: 1,
                    host: "h".into(),
                    command: vec![].into(),
                    launcher: false,
                    samples: vec![],
                    lost: 3,
                }],
                shard: Some(Shard { index, count: 2 }),
                blame_points: vec![],
                coverage: vec![],
                provenance: Some(Provenance {
                    static_db: Some(FileId {
                        path: "/a/static.db".into(),
                        bytes: 10,
                        hash: db_hash,
                    }),
                    inputs: Default::default(),
                    options: vec![],
                }),
                damage: damage.iter().map(|d| d.to_string()).collect(),
                summed: None,
            },
            ..Default::default()
        }
    }

    /// Shards carry what produced them: their losses and damage notes add
    /// up, and shards computed from different inputs are not merged.
    #[test]
    fn shards_merge_their_losses_and_damage_and_must_share_a_provenance() {
        let merged = merge(vec![
            shard(0, 7, &["x skipped"]),
            shard(1, 7, &["x skipped", "y cut"]),
        ])
        .unwrap();
        assert_eq!(merged.header.processes[0].lost, 6);
        assert_eq!(merged.header.damage, ["x skipped", "y cut"]);
        assert!(merged.header.provenance.is_some());
        let e = merge(vec![shard(0, 7, &[]), shard(1, 8, &[])])
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("different inputs") && e.contains("static db"),
            "{e}"
        );
    }

    use blame_formats::results::{ContextBlameV3 as Ctx, StackRecord, StackRecordV3 as Stack};

    /// [`canonical`] of parts whose stacks and contexts are written out
    /// whole, its output written out whole again.
    fn canonical_contexts(parts: Vec<(Vec<Stack>, Vec<Ctx>)>) -> (Vec<Stack>, Vec<Ctx>) {
        // The parts one after the other: their stacks in one table, each
        // part's contexts naming its own stacks (those it lacks dropped).
        let mut keys = Vec::new();
        let mut table = crate::input::frame_table::FrameTable::default();
        let mut flat = FlatStacks::default();
        let mut raw = Vec::new();
        for (stacks, contexts) in parts {
            let base = flat.len() as u32;
            let count = stacks.len() as u32;
            for st in stacks {
                let frames = table.intern_stack(st.frames);
                flat.push(st.process, &frames, &st.samples);
            }
            for c in contexts {
                keys.push(c.variable);
                let stack = if c.stack < count {
                    base + c.stack
                } else {
                    u32::MAX
                };
                raw.push(RawContext::new(
                    keys.len() as u32 - 1,
                    c.process,
                    stack,
                    c.samples,
                ));
            }
        }
        let mut variables = Vec::new();
        let (frames, stacks, contexts) =
            canonical(table.into_frames(), flat, keys, raw, &mut variables);
        let stacks = (0..stacks.len())
            .map(|i| Stack {
                process: stacks.process(i),
                frames: stacks
                    .frames(i)
                    .iter()
                    .map(|&f| frames[f as usize].clone())
                    .collect(),
                samples: stacks.samples(i).to_vec(),
            })
            .collect();
        let contexts = contexts
            .into_iter()
            .map(|c| Ctx {
                variable: variables[c.variable as usize].key.clone(),
                process: c.process,
                stack: c.stack,
                samples: c.samples,
            })
            .collect();
        (stacks, contexts)
    }

    /// The first implementation, kept as the reference of the sort order and sums.
    fn canonical_contexts_btree(parts: Vec<(Vec<Stack>, Vec<Ctx>)>) -> (Vec<Stack>, Vec<Ctx>) {
        let mut stacks: BTreeMap<(u32, Vec<SymFrame>), Vec<f64>> = BTreeMap::new();
        let mut remaps = Vec::new();
        for (part_stacks, _) in &parts {
            let mut keys = Vec::with_capacity(part_stacks.len());
            for st in part_stacks {
                let key = (st.process, st.frames.clone());
                let sums = stacks.entry(key.clone()).or_default();
                if sums.len() < st.samples.len() {
                    sums.resize(st.samples.len(), 0.0);
                }
                for (a, b) in sums.iter_mut().zip(&st.samples) {
                    *a += b;
                }
                keys.push(key);
            }
            remaps.push(keys);
        }
        let ids: BTreeMap<&(u32, Vec<SymFrame>), u32> = stacks
            .keys()
            .enumerate()
            .map(|(i, k)| (k, i as u32))
            .collect();
        let mut contexts: BTreeMap<(VariableKey, u32, u32), f64> = BTreeMap::new();
        for ((_, part_contexts), keys) in parts.iter().zip(&remaps) {
            for c in part_contexts {
                let Some(key) = keys.get(c.stack as usize) else {
                    continue;
                };
                *contexts
                    .entry((c.variable.clone(), c.process, ids[key]))
                    .or_default() += c.samples;
            }
        }
        let contexts = contexts
            .into_iter()
            .map(|((variable, process, stack), samples)| Ctx {
                variable,
                process,
                stack,
                samples,
            })
            .collect();
        let stacks = stacks
            .into_iter()
            .map(|((process, frames), samples)| Stack {
                process,
                frames,
                samples,
            })
            .collect();
        (stacks, contexts)
    }

    fn random_parts(seed: u64, nparts: usize) -> Vec<(Vec<Stack>, Vec<Ctx>)> {
        let mut rng = seed | 1;
        let mut next = move |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n
        };
        let frame = |f: u64, l: u64| SymFrame {
            function: format!("f{}", f % 5),
            file: ["a.c", "b.c", ""][(f % 3) as usize].into(),
            line: l as u32,
            column: (l % 2) as u32,
            inlined: l.is_multiple_of(3),
        };
        (0..nparts)
            .map(|_| {
                let stacks: Vec<Stack> = (0..next(40))
                    .map(|_| Stack {
                        process: next(3) as u32,
                        frames: (0..next(5)).map(|_| frame(next(7), next(4))).collect(),
                        samples: (0..1 + next(3))
                            .map(|_| [0.1, 0.2, 0.3, -0.0, 1e16, 1.0][next(6) as usize])
                            .collect(),
                    })
                    .collect();
                let contexts = (0..next(120))
                    .map(|_| Ctx {
                        variable: VariableKey {
                            name: format!("v{}", next(4)),
                            function: format!("f{}", next(3)),
                            file: String::new(),
                            line: next(2) as u32,
                            type_name: String::new(),
                            kind: "local".into(),
                            event: next(2) as u16,
                            scalar: false,
                        },
                        process: next(3) as u32,
                        // Some past the part's stacks: those are dropped.
                        stack: next(stacks.len() as u64 + 2) as u32,
                        samples: [0.1, 0.7, 1e-3, 3.0, -0.0][next(5) as usize],
                    })
                    .collect();
                (stacks, contexts)
            })
            .collect()
    }

    #[test]
    fn interned_sort_gives_the_records_of_the_ordered_maps_bit_for_bit() {
        for seed in 1..200u64 {
            let parts = random_parts(
                seed.wrapping_mul(0x9E37_79B9_7F4A_7C15),
                1 + (seed % 5) as usize,
            );
            let (s1, c1) = canonical_contexts(parts.clone());
            let (s2, c2) = canonical_contexts_btree(parts);
            assert_eq!(s1, s2, "stacks, seed {seed}");
            assert_eq!(c1.len(), c2.len(), "contexts, seed {seed}");
            for (a, b) in c1.iter().zip(&c2) {
                assert_eq!(
                    (&a.variable, a.process, a.stack, a.samples.to_bits()),
                    (&b.variable, b.process, b.stack, b.samples.to_bits()),
                    "seed {seed}"
                );
            }
            for (a, b) in s1.iter().zip(&s2) {
                let bits = |s: &Stack| s.samples.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(a), bits(b), "seed {seed}");
            }
        }
    }

    #[test]
    fn rayon_thread_count_does_not_change_the_records() {
        let parts = random_parts(77, 4);
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| canonical_contexts(parts.clone()));
        let two = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap()
            .install(|| canonical_contexts(parts));
        assert_eq!(one, two);
    }

    /// A random partial result of a run of 4 processes: variables and
    /// functions per process, frames in no particular order, stacks and
    /// contexts naming them. Sample counts are whole numbers, so sums are
    /// exact in any grouping (as cpu-clock counts are).
    fn random_partial(seed: u64, index: u32, count: u32) -> Results {
        use blame_formats::results::{
            Coverage, FileId, ProcessInfo, Provenance, ResultsHeader, Shard,
        };
        let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n.max(1)
        };
        let nproc = 4u32;
        let whole = |next: &mut dyn FnMut(u64) -> u64| (1 + next(50)) as f64;
        let values = |next: &mut dyn FnMut(u64) -> u64| -> Vec<ProcessValue> {
            let mut out = Vec::new();
            for process in 0..nproc {
                if next(3) == 0 {
                    continue;
                }
                out.push(ProcessValue {
                    process,
                    inclusive: whole(next),
                    exclusive: whole(next),
                    explicit: whole(next),
                    inherited: whole(next),
                    methods: if next(2) == 0 {
                        vec![("raw".into(), whole(next))]
                    } else {
                        vec![]
                    },
                });
            }
            out
        };
        let mut variables: Vec<VariableBlame> = Vec::new();
        for v in 0..6u32 {
            if next(3) == 0 {
                continue;
            }
            variables.push(VariableBlame {
                key: VariableKey {
                    name: format!("v{v}"),
                    function: format!("f{}", v % 3),
                    file: "a.c".into(),
                    line: v,
                    type_name: String::new(),
                    kind: "local".into(),
                    scalar: v % 2 == 0,
                    event: (v % 2) as u16,
                },
                values: values(&mut next),
            });
        }
        variables.sort_by(|a, b| a.key.cmp(&b.key));
        let mut functions = Vec::new();
        for f in 0..4u32 {
            if next(2) == 0 {
                continue;
            }
            functions.push(FunctionBlame {
                key: FunctionKey {
                    name: format!("f{f}"),
                    file: "a.c".into(),
                    event: 0,
                },
                values: values(&mut next),
            });
        }
        // A part's own frame table: a shuffled subset of 12 frames.
        let mut frames: Vec<SymFrame> = (0..12u32)
            .filter(|_| next(4) > 0)
            .map(|f| SymFrame {
                function: format!("f{}", f % 4),
                file: "a.c".into(),
                line: f,
                column: f % 3,
                inlined: f % 5 == 0,
            })
            .collect();
        for i in (1..frames.len()).rev() {
            frames.swap(i, next(i as u64 + 1) as usize);
        }
        let stacks: Vec<StackRecord> = if frames.is_empty() {
            vec![]
        } else {
            (0..next(30))
                .map(|_| StackRecord {
                    process: next(nproc as u64) as u32,
                    frames: (0..1 + next(6))
                        .map(|_| next(frames.len() as u64) as u32)
                        .collect(),
                    samples: vec![whole(&mut next), whole(&mut next)],
                })
                .collect()
        };
        // Other processes' stacks on the same call paths (ranks run the
        // same code).
        let mut stacks = stacks;
        for i in 0..stacks.len() {
            if next(2) == 0 {
                let mut st = stacks[i].clone();
                st.process = next(nproc as u64) as u32;
                stacks.push(st);
            }
        }
        let contexts = if variables.is_empty() || stacks.is_empty() {
            vec![]
        } else {
            (0..next(60))
                .map(|_| ContextBlame {
                    variable: next(variables.len() as u64) as u32,
                    process: next(nproc as u64) as u32,
                    stack: next(stacks.len() as u64) as u32,
                    samples: whole(&mut next),
                })
                .collect()
        };
        Results {
            header: ResultsHeader {
                producer: "test".into(),
                events: vec![],
                processes: (0..nproc)
                    .map(|p| ProcessInfo {
                        rank: Some(p),
                        pid: 100 + p,
                        host: "h".into(),
                        command: vec!["app".into()].into(),
                        launcher: false,
                        samples: vec![whole(&mut next), whole(&mut next)],
                        lost: next(3),
                    })
                    .collect(),
                shard: Some(Shard { index, count }),
                blame_points: (0..3)
                    .filter(|_| next(2) == 0)
                    .map(|b| format!("f{b}"))
                    .collect(),
                coverage: vec![Coverage {
                    event: 0,
                    samples: whole(&mut next),
                    resolved: whole(&mut next),
                    reasons: vec![(format!("reason {}", next(3)), whole(&mut next))],
                }],
                provenance: Some(Provenance {
                    static_db: Some(FileId {
                        path: "/a/static.db".into(),
                        bytes: 10,
                        hash: 7,
                    }),
                    inputs: Default::default(),
                    options: vec![],
                }),
                damage: vec![format!("stream {} cut", next(3))],
                summed: None,
            },
            variables,
            functions,
            frames,
            stacks,
            contexts,
        }
    }

    /// Summing contexts over ranks is associative too, and a summed part
    /// makes any merge it goes into summed: every grouping of the parts,
    /// summed at the inner merges or not, gives the same result, whose
    /// stacks are the distinct call paths of the application (all ranks at
    /// once) plus the launcher's own, and whose variables, functions and
    /// samples per process are those of the per-rank merge.
    #[test]
    fn summed_merge_is_associative_and_keeps_one_stack_per_call_path() {
        for seed in 1..100u64 {
            let n = 3 + (seed % 3) as u32;
            let parts: Vec<Results> = (0..n)
                .map(|i| {
                    let mut p = random_partial(seed * 37 + i as u64, i, n);
                    p.header.processes[3].launcher = true;
                    p
                })
                .collect();
            let per_rank = merge(parts.clone()).unwrap();
            let all = merge_summing(parts.clone()).unwrap();
            assert_eq!(all.header.summed, Some(SummedContexts { from: vec![] }));
            assert_eq!(
                (&all.header.processes, &all.variables, &all.functions),
                (
                    &per_rank.header.processes,
                    &per_rank.variables,
                    &per_rank.functions
                ),
                "seed {seed}: what is per rank stays per rank"
            );
            let total = |r: &Results| -> f64 { r.stacks.iter().flat_map(|s| &s.samples).sum() };
            assert_eq!(total(&all), total(&per_rank), "seed {seed}");
            let mut paths = std::collections::HashSet::new();
            for st in &all.stacks {
                assert!(st.process == ALL_RANKS || st.process == 3, "seed {seed}");
                assert!(
                    paths.insert((st.process, &st.frames)),
                    "seed {seed}: one stack per path"
                );
            }
            assert!(all
                .contexts
                .iter()
                .all(|c| c.process == ALL_RANKS || c.process == 3));
            assert_eq!(merge_summing(vec![per_rank]).unwrap(), all, "seed {seed}");
            for split in 1..n as usize {
                let left = merge_summing(parts[..split].to_vec()).unwrap();
                let right = merge(parts[split..].to_vec()).unwrap();
                assert_eq!(
                    merge(vec![left.clone(), right.clone()]).unwrap(),
                    all,
                    "seed {seed}: summed (0..{split}) + per-rank ({split}..{n})"
                );
                assert_eq!(
                    merge_summing(vec![left.clone(), right]).unwrap(),
                    all,
                    "seed {seed}: both summed"
                );
                let mut rest = vec![left];
                rest.extend(parts[split..].iter().cloned());
                assert_eq!(merge(rest).unwrap(), all, "seed {seed}: summed + each");
            }
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("root.bres");
            all.write(&path).unwrap();
            assert_eq!(Results::read(&path).unwrap(), all, "seed {seed}: read back");
            // From files (whose stacks name call paths shared by
            // processes): the result names them as the per-rank results.
            let mut names = Vec::new();
            let files: Vec<Part> = parts
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let path = dir.path().join(format!("node-{i}.bres"));
                    p.write(&path).unwrap();
                    names.push(path.display().to_string());
                    Part::File(path)
                })
                .collect();
            let mut read = read_parts_into(Merger::summing(), files, &|_| {})
                .unwrap()
                .finish()
                .unwrap();
            names.sort();
            assert_eq!(read.header.summed.take().unwrap().from, names);
            read.header.summed = Some(SummedContexts { from: vec![] });
            assert_eq!(read, all, "seed {seed}: read from files");
            // Every part reduced on its own and the groups combined, as a
            // merge of many parts does (one in memory, as the last shard's).
            let alone: Vec<(Part, u64)> = names
                .iter()
                .enumerate()
                .map(|(i, name)| match i {
                    0 => (Part::Loaded(Box::new(Results::read(name).unwrap())), 1),
                    _ => (Part::File(name.into()), 1),
                })
                .collect();
            let count = std::sync::atomic::AtomicUsize::new(0);
            let grouped = reduce_summing(alone, 1, &|| {
                count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            })
            .unwrap();
            assert_eq!(grouped.parts(), n as usize, "seed {seed}");
            assert_eq!(count.into_inner(), n as usize, "seed {seed}");
            let mut grouped = grouped.finish().unwrap();
            let from = grouped.header.summed.take().unwrap().from;
            assert_eq!(
                from,
                names[1..],
                "seed {seed}: the part in memory has no name"
            );
            grouped.header.summed = Some(SummedContexts { from: vec![] });
            assert_eq!(grouped, all, "seed {seed}: reduced in groups");
        }
    }

    /// Merging is associative: 3 to 5 partial results merged at once, in
    /// every split into a merged prefix and a merged suffix, and left to
    /// right one at a time, give the same result; a merged result written
    /// and read back merges like the one in memory.
    #[test]
    fn merge_is_associative_over_any_grouping_of_partials() {
        for seed in 1..120u64 {
            let n = 3 + (seed % 3) as u32;
            let parts: Vec<Results> = (0..n)
                .map(|i| random_partial(seed * 31 + i as u64, i, n))
                .collect();
            let all = merge(parts.clone()).unwrap();
            assert_eq!(all.header.shard, None);
            for split in 1..n as usize {
                let left = merge(parts[..split].to_vec()).unwrap();
                let right = merge(parts[split..].to_vec()).unwrap();
                let grouped = merge(vec![left.clone(), right]).unwrap();
                assert_eq!(grouped, all, "seed {seed}: (0..{split}) + ({split}..{n})");
                let mut rest = vec![left];
                rest.extend(parts[split..].iter().cloned());
                assert_eq!(
                    merge(rest).unwrap(),
                    all,
                    "seed {seed}: (0..{split}) + each"
                );
            }
            let mut folded = parts[0].clone();
            for p in &parts[1..] {
                folded = merge(vec![folded, p.clone()]).unwrap();
            }
            assert_eq!(folded, all, "seed {seed}: left to right");
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("merged.bres");
            all.write(&path).unwrap();
            let back = Results::read(&path).unwrap();
            assert_eq!(back, all, "seed {seed}: written and read back");
            // From files, one of them in memory (as the last shard merges).
            let files: Vec<Part> = parts
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    if i == 1 {
                        return Part::Loaded(Box::new(p.clone()));
                    }
                    let path = dir.path().join(format!("part-{i}.bres"));
                    p.write(&path).unwrap();
                    Part::File(path)
                })
                .collect();
            let paths: Vec<std::path::PathBuf> = (0..n as usize)
                .filter(|&i| i != 1)
                .map(|i| dir.path().join(format!("part-{i}.bres")))
                .collect();
            let read = read_parts(files, &|_| {}).unwrap().finish().unwrap();
            assert_eq!(read, all, "seed {seed}: read from files");
            // From a thread of a one-thread pool (which must not wait for
            // the pool to read): the parts are read in turn, same result.
            let again = rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .unwrap()
                .install(|| {
                    let parts = paths.iter().cloned().map(Part::File);
                    let mut parts: Vec<Part> = parts.collect();
                    parts.insert(1, Part::Loaded(Box::new(all.clone())));
                    read_parts(parts, &|_| {}).unwrap().finish().unwrap()
                });
            let mut expected = vec![all.clone()];
            expected.extend(paths.iter().map(|p| Results::read(p).unwrap()));
            assert_eq!(again, merge(expected).unwrap(), "seed {seed}: in the pool");
        }
    }

    /// A damaged part fails a summing merge, whichever group reduces it,
    /// naming the part; a part of another run is refused when the groups
    /// are combined, as when it is added.
    #[test]
    fn a_summing_merge_in_groups_fails_on_a_damaged_or_foreign_part() {
        let dir = tempfile::tempdir().unwrap();
        let n = 6;
        let paths: Vec<std::path::PathBuf> = (0..n)
            .map(|i| {
                let path = dir.path().join(format!("part-{i}.bres"));
                random_partial(7 + i as u64, i, n).write(&path).unwrap();
                path
            })
            .collect();
        let parts = |paths: &[std::path::PathBuf]| -> Vec<(Part, u64)> {
            paths.iter().map(|p| (Part::File(p.clone()), 1)).collect()
        };
        assert!(reduce_summing(parts(&paths), 1, &|| {}).is_ok());
        for damaged in [0, n as usize - 1] {
            let bytes = std::fs::read(&paths[damaged]).unwrap();
            let cut = dir.path().join("cut.bres");
            std::fs::write(&cut, &bytes[..bytes.len() - 40]).unwrap();
            let mut with_cut = paths.clone();
            with_cut[damaged] = cut.clone();
            for group_bytes in [1, GROUP_BYTES] {
                match reduce_summing(parts(&with_cut), group_bytes, &|| {}) {
                    Err(e) => assert!(e.to_string().contains("cut.bres"), "{e}"),
                    Ok(_) => panic!("part {damaged} cut short was merged"),
                }
            }
        }
        // A part of a run of more processes, in the second group.
        let foreign = dir.path().join("foreign.bres");
        let mut other = random_partial(99, 0, n);
        let process = other.header.processes[0].clone();
        other.header.processes.push(process);
        other.write(&foreign).unwrap();
        let mut with_foreign = paths.clone();
        with_foreign[n as usize - 1] = foreign;
        assert!(matches!(
            reduce_summing(parts(&with_foreign), 1, &|| {}),
            Err(PostError::PartsOfOtherRuns)
        ));
    }
}
