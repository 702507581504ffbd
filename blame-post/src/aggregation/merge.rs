//! Reduces partial results of shards into one: sums per key and process.
//! Associative and commutative, so the merged result does not depend on the
//! number of shards or the order they finish in.

use crate::borrowed_keys::{Borrowed, FxKeyMap};
use crate::error::{PostError, Result};
use blame_formats::results::{
    ContextBlame, FunctionBlame, FunctionKey, ProcessValue, Results, ResultsHeader, SummedContexts,
    SymFrame, VariableBlame, VariableKey, ALL_RANKS,
};
use blame_formats::results_flat::{
    FlatHead, FlatItem, FlatReader, FlatResults, FlatStacks, FlatTables,
};
use rayon::prelude::*;
// FxHash: fast and non-cryptographic, for interning keys of our own
// results (no untrusted keys are hashed, so flooding is no concern).
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// Sums of one key in one process: (inclusive, exclusive, explicit, inherited, methods).
type Sums = (f64, f64, f64, f64, BTreeMap<String, f64>);

/// A key's sums per process, in the order of the processes. Parts come
/// in the order of their ranks, so a part's process is mostly after every
/// one before: its sums are appended, and another merger's (of the groups
/// of parts after) are joined on the end, not searched.
#[derive(Debug, Default, PartialEq)]
struct ProcessSums(Vec<(u32, Sums)>);

impl ProcessSums {
    /// The sums of `process`, added (zero) when new.
    fn entry(&mut self, process: u32) -> &mut Sums {
        let v = &mut self.0;
        let at = match v.last() {
            Some(&(last, _)) if last < process => v.len(),
            None => 0,
            _ => match v.binary_search_by_key(&process, |e| e.0) {
                Ok(at) => return &mut v[at].1,
                Err(at) => at,
            },
        };
        v.insert(at, (process, Sums::default()));
        &mut v[at].1
    }
}

impl IntoIterator for ProcessSums {
    type Item = (u32, Sums);
    type IntoIter = std::vec::IntoIter<(u32, Sums)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

fn add_values(into: &mut ProcessSums, values: &[ProcessValue]) {
    // A part's values come in the order of their processes: after the
    // sums so far (parts in rank order) they are appended one by one, else
    // (a part's processes among those before) its sums are merged in one
    // pass, never inserted one by one into the middle of many.
    let after = match (into.0.last(), values.first()) {
        (Some(&(last, _)), Some(first)) => first.process > last,
        _ => true,
    };
    if after || values.len() == 1 {
        values.iter().for_each(|v| add_value(into, v));
        return;
    }
    let mut part = ProcessSums::default();
    values.iter().for_each(|v| add_value(&mut part, v));
    add_sums(into, part);
}

fn add_value(into: &mut ProcessSums, v: &ProcessValue) {
    add_to_sums(
        into.entry(v.process),
        [v.inclusive, v.exclusive, v.explicit, v.inherited],
        v.methods.iter().map(|(m, x)| (m.as_str(), *x)),
    );
}

/// Adds four sums (inclusive, exclusive, explicit, inherited) and sums by
/// method to `e`; a method's name is copied only when `e` has none yet.
fn add_to_sums<'m>(
    e: &mut Sums,
    [inclusive, exclusive, explicit, inherited]: [f64; 4],
    methods: impl IntoIterator<Item = (&'m str, f64)>,
) {
    e.0 += inclusive;
    e.1 += exclusive;
    e.2 += explicit;
    e.3 += inherited;
    for (m, x) in methods {
        match e.4.get_mut(m) {
            Some(sum) => *sum += x,
            None => {
                e.4.insert(m.to_owned(), x);
            }
        }
    }
}

/// Adds the sums per process `from` (another merger's) to `into`, as
/// [`add_values`] of their values would. Mergers of consecutive groups of
/// parts hold consecutive ranks: the sums are then joined, not searched;
/// else the two are merged in one pass.
fn add_sums(into: &mut ProcessSums, from: ProcessSums) {
    let after = match (into.0.last(), from.0.first()) {
        (Some((last, _)), Some((first, _))) => first > last,
        _ => true,
    };
    if after {
        into.0.extend(from.0);
        return;
    }
    let ours = std::mem::take(&mut into.0);
    let mut merged = Vec::with_capacity(ours.len() + from.0.len());
    let (mut ours, mut theirs) = (ours.into_iter().peekable(), from.into_iter().peekable());
    while let (Some(a), Some(b)) = (ours.peek(), theirs.peek()) {
        let next = match a.0.cmp(&b.0) {
            std::cmp::Ordering::Less => ours.next(),
            std::cmp::Ordering::Greater => theirs.next(),
            std::cmp::Ordering::Equal => {
                let (process, mut e) = ours.next().expect("peeked");
                let (_, (inclusive, exclusive, explicit, inherited, methods)) =
                    theirs.next().expect("peeked");
                add_to_sums(
                    &mut e,
                    [inclusive, exclusive, explicit, inherited],
                    methods.iter().map(|(m, x)| (m.as_str(), *x)),
                );
                Some((process, e))
            }
        };
        merged.extend(next);
    }
    merged.extend(ours);
    merged.extend(theirs);
    into.0 = merged;
}

fn to_values(m: ProcessSums) -> Vec<ProcessValue> {
    m.into_iter()
        .map(
            |(process, (inclusive, exclusive, explicit, inherited, methods))| ProcessValue {
                process,
                inclusive,
                exclusive,
                explicit,
                inherited,
                methods: methods.into_iter().collect(),
            },
        )
        .collect()
}

/// Each variable key with its sums per process, as records (in the keys'
/// order).
fn variable_blames(
    keys: impl IntoIterator<Item = VariableKey>,
    sums: Vec<ProcessSums>,
) -> Vec<VariableBlame> {
    keys.into_iter()
        .zip(sums)
        .map(|(key, m)| VariableBlame {
            key,
            values: to_values(m),
        })
        .collect()
}

/// Each function key with its sums per process, as records (unordered).
fn function_blames(sums: FxKeyMap<FunctionKey, ProcessSums>) -> Vec<FunctionBlame> {
    sums.into_iter()
        .map(|(key, m)| FunctionBlame {
            key,
            values: to_values(m),
        })
        .collect()
}

/// Ranks of the distinct values among `items` in their `Ord` order, as a
/// map from value to rank, and the distinct values in rank order. Comparing
/// ranks then orders like comparing the values, and sequences of ranks
/// compare like the sequences of values (lexicographic order is preserved
/// by an order-preserving renaming of the elements).
fn rank_distinct<K, I>(items: I) -> (FxHashMap<K, u32>, Vec<K>)
where
    K: Ord + Hash + Copy + Send + Sync,
    I: ParallelIterator<Item = K>,
{
    let distinct = items
        .fold(FxHashSet::default, |mut set, item| {
            set.insert(item);
            set
        })
        .reduce(FxHashSet::default, |a, b| {
            let (mut big, small) = if a.len() >= b.len() { (a, b) } else { (b, a) };
            big.extend(small);
            big
        });
    let mut sorted: Vec<K> = distinct.into_iter().collect();
    sorted.par_sort_unstable();
    let ranks = sorted
        .iter()
        .enumerate()
        .map(|(i, &x)| (x, i as u32))
        .collect();
    (ranks, sorted)
}

/// A frame compared by value but hashed by its cheap parts: line, column,
/// the names' lengths and the function's last bytes (where mangled names
/// differ). Equal frames hash equally; collisions are settled by `Eq`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct FrameKey<'a>(&'a SymFrame);

impl Hash for FrameKey<'_> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        let f = self.0;
        let name = f.function.as_bytes();
        h.write_u64((f.line as u64) << 32 | f.column as u64);
        h.write_u64((name.len() as u64) << 32 | f.file.len() as u64 | (f.inlined as u64) << 63);
        h.write(&name[name.len().saturating_sub(16)..]);
    }
}

/// One (variable, context) record before it is made canonical: the variable
/// as an index into a key table, the stack as an index into its part's stacks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawContext {
    pub variable: u32,
    pub process: u32,
    pub stack: u32,
    /// Its position among the contexts [`canonical`] is given (set there;
    /// it breaks ties of the sort, so sums are taken in that order).
    pub position: u32,
    pub samples: f64,
}

impl RawContext {
    pub(crate) fn new(variable: u32, process: u32, stack: u32, samples: f64) -> RawContext {
        RawContext {
            variable,
            process,
            stack,
            position: 0,
            samples,
        }
    }
}

/// Deduplicates stacks by (process, frames), sums their samples, renumbers
/// them in sorted order and sums contexts per (variable, process, stack):
/// the same calling contexts give the same records however they were split.
///
/// Frames are interned to ranks of their `Ord` order, so the output frame
/// table is sorted and call paths sort as integer sequences like the frame
/// sequences they stand for; the distinct call paths are sorted once, and
/// stacks sort by (process, path rank), three integers each. The output
/// stacks hold each distinct call path once, in sorted order. Context
/// variables index `keys` (equal keys may appear more than once); in the
/// output they index `variables`, which must be sorted by key (a key it
/// lacks is added, with no values). Sums are taken in the order of the
/// stacks and contexts given, as a sequential sum would take them.
///
/// Memory: the stacks given and the output's (flat: a few integers per
/// stack, the distinct paths' frame ids once), an index entry per stack,
/// and the contexts, sorted and summed in place.
pub(crate) fn canonical(
    frames: Vec<SymFrame>,
    stacks: FlatStacks,
    keys: Vec<VariableKey>,
    mut contexts: Vec<RawContext>,
    variables: &mut Vec<VariableBlame>,
) -> (Vec<SymFrame>, FlatStacks, Vec<ContextBlame>) {
    // Frames: the distinct frames, sorted; ids mapped to ranks.
    let (rank_of, frames) = {
        let (frame_rank, sorted) = rank_distinct(frames.par_iter().map(FrameKey));
        let rank_of: Vec<u32> = frames.iter().map(|f| frame_rank[&FrameKey(f)]).collect();
        let sorted: Vec<SymFrame> = sorted.into_iter().map(|f| f.0.clone()).collect();
        (rank_of, sorted)
    };
    // Call paths: frame ranks, sorted; equal ones ranked once.
    let ranked: Vec<Vec<u32>> = (0..stacks.paths() as u32)
        .into_par_iter()
        .map(|p| {
            stacks
                .path_frames(p)
                .iter()
                .map(|&f| rank_of[f as usize])
                .collect()
        })
        .collect();
    drop(rank_of);
    let mut by_frames: Vec<u32> = (0..ranked.len() as u32).collect();
    by_frames.par_sort_unstable_by(|&a, &b| ranked[a as usize].cmp(&ranked[b as usize]));
    let mut path_rank = vec![0u32; ranked.len()];
    let mut distinct_paths = 0u32;
    for (i, &p) in by_frames.iter().enumerate() {
        let new = i == 0 || ranked[by_frames[i - 1] as usize] != ranked[p as usize];
        if new {
            distinct_paths += 1;
        }
        path_rank[p as usize] = distinct_paths - 1;
    }
    // Stacks: (process, path rank) sorts like (process, frames).
    let mut order: Vec<(u32, u32, u32)> = (0..stacks.len())
        .into_par_iter()
        .map(|i| {
            (
                stacks.process(i),
                path_rank[stacks.path(i) as usize],
                i as u32,
            )
        })
        .collect();
    order.par_sort_unstable();
    let mut out = FlatStacks::with_capacity(
        stacks.len(),
        stacks.sample_count(),
        distinct_paths as usize,
        stacks.frame_id_count(),
    );
    let mut pushed = 0u32;
    for &p in &by_frames {
        if path_rank[p as usize] == pushed {
            out.push_path(&ranked[p as usize]);
            pushed += 1;
        }
    }
    drop(ranked);
    drop(by_frames);
    drop(path_rank);
    // New stack id of each stack given; the members of each new stack summed in order.
    let mut remap: Vec<u32> = vec![0; stacks.len()];
    let mut sums: Vec<f64> = Vec::new();
    let mut start = 0;
    while start < order.len() {
        let (process, path, _) = order[start];
        let mut end = start + 1;
        while end < order.len() && (order[end].0, order[end].1) == (process, path) {
            end += 1;
        }
        sums.clear();
        for &(_, _, i) in &order[start..end] {
            let samples = stacks.samples(i as usize);
            if sums.len() < samples.len() {
                sums.resize(samples.len(), 0.0);
            }
            for (a, b) in sums.iter_mut().zip(samples) {
                *a += b;
            }
        }
        let id = out.push_on_path(process, path, &sums);
        for &(_, _, i) in &order[start..end] {
            remap[i as usize] = id;
        }
        start = end;
    }
    drop(order);
    drop(stacks);

    // Contexts: (variable rank, process, new stack), then position.
    let (key_rank, distinct_keys) = rank_distinct(keys.par_iter());
    let key_rank: Vec<u32> = keys.par_iter().map(|k| key_rank[k]).collect();
    let missing: Vec<VariableKey> = distinct_keys
        .iter()
        .filter(|k| variables.binary_search_by(|v| v.key.cmp(k)).is_err())
        .map(|k| (*k).clone())
        .collect();
    for key in missing {
        let at = variables.partition_point(|v| v.key < key);
        variables.insert(
            at,
            VariableBlame {
                key,
                values: Vec::new(),
            },
        );
    }
    let variable_of: Vec<u32> = distinct_keys
        .iter()
        .map(|k| {
            variables
                .binary_search_by(|v| v.key.cmp(k))
                .expect("added above") as u32
        })
        .collect();
    // Contexts of stacks that are not there are dropped.
    let mut position = 0u32;
    contexts.retain_mut(|c| {
        position += 1;
        let Some(&stack) = remap.get(c.stack as usize) else {
            return false;
        };
        c.variable = key_rank[c.variable as usize];
        c.stack = stack;
        c.position = position - 1;
        true
    });
    drop(remap);
    contexts.par_sort_unstable_by_key(|c| (c.variable, c.process, c.stack, c.position));
    let mut kept = 0;
    for i in 0..contexts.len() {
        let c = contexts[i];
        match kept {
            0 => {}
            _ => {
                let last = &mut contexts[kept - 1];
                if (last.variable, last.process, last.stack) == (c.variable, c.process, c.stack) {
                    last.samples += c.samples;
                    continue;
                }
            }
        }
        contexts[kept] = RawContext {
            samples: 0.0 + c.samples,
            ..c
        };
        kept += 1;
    }
    contexts.truncate(kept);
    let contexts = contexts
        .into_iter()
        .map(|c| ContextBlame {
            variable: variable_of[c.variable as usize],
            process: c.process,
            stack: c.stack,
            samples: c.samples,
        })
        .collect();
    (frames, out, contexts)
}

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
/// ranks as one ([`ALL_RANKS`]): its memory is bounded by the distinct
/// calling contexts, not by the ranks merged. Launchers' stay per process.
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

/// The lookups of a [`Merger`] that sums contexts over ranks.
#[derive(Default)]
struct SumTables {
    /// The stack of all ranks on each path of `Merger::stacks`
    /// ([`NO_STACK`]: none yet).
    all_ranks: Vec<u32>,
    /// The stacks of launchers, by (process, path).
    launcher_stacks: FxHashMap<(u32, u32), u32>,
    /// The contexts of each summed stack, as a chain: the index of its
    /// first in `Merger::contexts` ([`NO_STACK`]: none), and of the next
    /// after each. A stack holds the contexts of the few variables its
    /// samples blame: walking them is cheaper than hashing every key.
    first_context: Vec<u32>,
    next_context: Vec<u32>,
}

/// A call path of [`Merger::stacks`] as its hash table holds it: where its
/// frame ids are, so that a lookup compares them without first finding
/// where they start (one cache miss less per path of every part).
#[derive(Clone, Copy)]
struct PathSlot {
    id: u32,
    len: u32,
    start: usize,
}

impl PathSlot {
    fn frames(self, stacks: &FlatStacks) -> &[u32] {
        stacks.frames_at((self.start, self.len as usize))
    }
}

/// No stack (yet) in [`SumTables::all_ranks`].
const NO_STACK: u32 = u32::MAX;

/// The hash of a call path whose frames are `frames` (ids): FxHash's step
/// over pairs of ids in four independent lanes, so that its multiplications
/// overlap (a merge hashes every path of every part; one chain of steps,
/// an id at a time, was most of the time the merger took).
fn path_hash(frames: &[u32]) -> u64 {
    #[inline(always)]
    fn step(state: u64, word: u64) -> u64 {
        (state.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
    }
    let pair = |p: &[u32]| p[0] as u64 | (p[1] as u64) << 32;
    let mut lanes = [0u64; 4];
    let mut blocks = frames.chunks_exact(8);
    for b in &mut blocks {
        lanes[0] = step(lanes[0], pair(&b[0..2]));
        lanes[1] = step(lanes[1], pair(&b[2..4]));
        lanes[2] = step(lanes[2], pair(&b[4..6]));
        lanes[3] = step(lanes[3], pair(&b[6..8]));
    }
    let mut h = step(frames.len() as u64, lanes[0]);
    for &l in &lanes[1..] {
        h = step(h, l);
    }
    for &f in blocks.remainder() {
        h = step(h, f as u64);
    }
    h
}

impl Merger {
    /// A merger whose result sums the application's stacks and contexts
    /// over ranks (`blame merge --sum-contexts`; results version 5).
    pub fn summing() -> Merger {
        Merger {
            summing: Some(SumTables::default()),
            ..Default::default()
        }
    }

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

    /// Adds what the summing merger `other` has merged, as if its parts
    /// had been added here after this merger's own: its header, its sums
    /// of variables and functions per process, and its summed stacks and
    /// contexts renumbered into this merger's tables (as [`Self::add_flat`]
    /// of the same records would, without making them records first).
    fn absorb(&mut self, other: Merger) -> Result<()> {
        debug_assert!(
            self.summing.is_some() && other.summing.is_some(),
            "only summing mergers are absorbed"
        );
        if other.parts == 0 {
            return Ok(());
        }
        if self.parts == 0 {
            *self = other;
            return Ok(());
        }
        let Merger {
            header: theirs,
            keys,
            variables,
            functions,
            frames,
            stacks,
            contexts,
            parts,
            leaves,
            ..
        } = other;
        let theirs = theirs.expect("a merger with parts has a header");
        let ours = self
            .header
            .as_mut()
            .expect("a merger with parts has a header");
        let counts =
            blame_formats::results::ProcessCounts::of(&theirs.processes, theirs.events.len());
        add_header(ours, &theirs, theirs.processes.len(), &counts)?;
        self.parts += parts;
        self.leaves.extend(leaves);
        self.start_renumbering();
        // Sums per process as they are (no values made of them); the
        // other records as a part's ([`Self::add_item`]: their processes
        // are summed already, which summing again leaves as they are).
        for (key, sums) in keys.into_iter().zip(variables) {
            let id = self.key_id(key);
            add_sums(&mut self.variables[id as usize], sums);
            self.key_of.push(id);
        }
        for (key, sums) in functions {
            add_sums(self.functions.entry(key).or_default(), sums);
        }
        for f in &frames.into_frames() {
            self.add_item(FlatItem::Frame(f.as_ref()));
        }
        for p in 0..stacks.paths() as u32 {
            self.add_item(FlatItem::Path(stacks.path_frames(p)));
        }
        for i in 0..stacks.len() {
            self.add_item(FlatItem::Stack {
                process: stacks.process(i),
                path: stacks.path(i),
                samples: stacks.samples(i),
            });
        }
        for c in contexts {
            self.add_item(FlatItem::Context(ContextBlame {
                variable: c.variable,
                process: c.process,
                stack: c.stack,
                samples: c.samples,
            }));
        }
        Ok(())
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

    /// From here on, sum the application's stacks and contexts over ranks:
    /// those added so far are summed now.
    fn start_summing(&mut self) {
        self.summing = Some(SumTables::default());
        let contexts = std::mem::take(&mut self.contexts);
        // The paths stay; the stacks on them are summed anew.
        let paths = self.stacks.paths_only();
        let stacks = std::mem::replace(&mut self.stacks, paths);
        let stack_of: Vec<u32> = (0..stacks.len())
            .map(|i| {
                let process = summed_process(&self.launcher, stacks.process(i));
                self.sum_stack(process, stacks.path(i), stacks.samples(i))
            })
            .collect();
        for mut c in contexts {
            c.stack = stack_of[c.stack as usize];
            self.sum_context(c);
        }
    }

    /// The id of the call path of `frames` (the merger's frame ids), whose
    /// [`path_hash`] is `hash`, in `stacks`, added when new.
    fn intern_path(&mut self, hash: u64, frames: &[u32]) -> u32 {
        let stacks = &mut self.stacks;
        if let Some(slot) = self.path_ids.find(hash, |&slot| {
            slot.len as usize == frames.len() && slot.frames(stacks) == frames
        }) {
            return slot.id;
        }
        let id = stacks.push_path(frames);
        let (start, len) = stacks.path_span(id);
        let slot = PathSlot {
            id,
            len: len as u32,
            start,
        };
        self.path_ids
            .insert_unique(hash, slot, |&slot| path_hash(slot.frames(stacks)));
        id
    }

    /// Adds a stack of `process` (as summed: [`summed_process`]) on the
    /// merger's call path `path` to the summed stacks; its index.
    fn sum_stack(&mut self, process: u32, path: u32, samples: &[f64]) -> u32 {
        let tables = self.summing.as_mut().expect("summing");
        let stacks = &mut self.stacks;
        // The application's (all ranks): one stack per path, by index.
        let slot = match process {
            ALL_RANKS => {
                if tables.all_ranks.len() <= path as usize {
                    tables.all_ranks.resize(path as usize + 1, NO_STACK);
                }
                &mut tables.all_ranks[path as usize]
            }
            _ => tables
                .launcher_stacks
                .entry((process, path))
                .or_insert(NO_STACK),
        };
        match *slot {
            NO_STACK => {
                *slot = stacks.push_on_path(process, path, samples);
                *slot
            }
            id => {
                stacks.add_samples(id as usize, samples);
                id
            }
        }
    }

    /// Adds a context (stack as a summed stack's index) to the summed contexts.
    fn sum_context(&mut self, mut c: RawContext) {
        let tables = self.summing.as_mut().expect("summing");
        c.process = summed_process(&self.launcher, c.process);
        let stack = c.stack as usize;
        if tables.first_context.len() <= stack {
            tables.first_context.resize(stack + 1, NO_STACK);
        }
        let mut at = tables.first_context[stack];
        while at != NO_STACK {
            let known = &mut self.contexts[at as usize];
            if known.variable == c.variable && known.process == c.process {
                known.samples += c.samples;
                return;
            }
            at = tables.next_context[at as usize];
        }
        let id = self.contexts.len() as u32;
        tables.next_context.push(tables.first_context[stack]);
        tables.first_context[stack] = id;
        self.contexts.push(c);
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

/// The process a stack or context of `process` has in summed results:
/// launchers keep theirs, the application's ranks are all one.
fn summed_process(launcher: &[bool], process: u32) -> u32 {
    match launcher.get(process as usize) {
        Some(true) => process,
        _ => ALL_RANKS,
    }
}

/// A partial result to merge: a file, or one already in memory (the
/// last shard's own, which it has just written: not read back).
pub enum Part {
    File(std::path::PathBuf),
    Loaded(Box<Results>),
    /// One in memory with its stacks flat (a post's own, [`crate::PostOutput`]).
    Flat(Box<FlatResults>),
}

impl Part {
    /// The part read flat, into the memory of `tables` when it is a file,
    /// with its name (a file's path).
    fn read(self, tables: FlatTables) -> Result<(FlatResults, Option<String>)> {
        match self {
            Part::File(path) => FlatResults::read_reusing(&path, tables)
                .map(|r| (r, Some(path.display().to_string())))
                .map_err(PostError::from),
            Part::Loaded(results) => Ok(((*results).into(), None)),
            Part::Flat(results) => Ok((*results, None)),
        }
    }

    /// Adds the part to `merger`: a file record by record as it is read
    /// ([`Merger::add_file`], through `scratch`, returned for the next).
    fn add_to(self, merger: &mut Merger, scratch: FlatStacks) -> Result<FlatStacks> {
        match self {
            Part::File(path) => merger.add_file(&path, scratch),
            Part::Loaded(results) => merger.add_flat((*results).into(), None).map(|_| scratch),
            Part::Flat(results) => merger.add_flat(*results, None).map(|_| scratch),
        }
    }

    /// About how many bytes of results the part holds: a file's size, an
    /// estimate for one in memory (0 when the file cannot be read: its
    /// read fails later, with the reason).
    fn weight(&self) -> u64 {
        match self {
            Part::File(path) => std::fs::metadata(path).map_or(0, |m| m.len()),
            Part::Loaded(r) => 16 * (4 * r.stacks.len() + r.contexts.len()) as u64,
            Part::Flat(r) => 16 * (4 * r.stacks.len() + r.contexts.len()) as u64,
        }
    }
}

/// Bytes of partial results a summing merge reduces in one task: parts are
/// split in two, at half their bytes, until a group is this small (or one
/// part), and the groups are reduced on their own, in parallel, then
/// combined in order. The split depends only on the parts, so a merge's
/// sums (their rounding) do not depend on the number of threads. Every
/// combination costs about one part of the distinct calling contexts;
/// 4 MiB is 256 one-rank partial results of the scale benchmark.
const GROUP_BYTES: u64 = 4 << 20;

/// Bytes of a partial result from which a per-rank merge reduces its
/// parts record by record as they are read, one after the other, instead
/// of reading parts whole ahead of the one being reduced.
const STREAMED_BYTES: u64 = 4 << 20;

/// Reduces `parts` (with their weights) into a new summing merger, in
/// groups of at most `group_bytes` ([`GROUP_BYTES`]); `progress()` after
/// each part.
fn reduce_summing(
    parts: Vec<(Part, u64)>,
    group_bytes: u64,
    progress: &(dyn Fn() + Sync),
) -> Result<Merger> {
    let total: u64 = parts.iter().map(|p| p.1).sum();
    if parts.len() <= 1 || total <= group_bytes {
        let mut merger = Merger::summing();
        let mut scratch = FlatStacks::default();
        for (part, _) in parts {
            scratch = part.add_to(&mut merger, scratch)?;
            progress();
        }
        return Ok(merger);
    }
    let mut below = 0;
    let half = parts
        .iter()
        .position(|p| {
            below += p.1;
            2 * below >= total
        })
        .map_or(1, |i| i + 1)
        .clamp(1, parts.len() - 1);
    let mut left = parts;
    let right = left.split_off(half);
    let (left, right) = rayon::join(
        || reduce_summing(left, group_bytes, progress),
        || reduce_summing(right, group_bytes, progress),
    );
    let mut left = left?;
    left.absorb(right?)?;
    Ok(left)
}

/// Reads the partial results `parts` into a [`Merger`], in their order.
/// `progress(done)` is called after each part is reduced.
pub fn read_parts(parts: Vec<Part>, progress: &(dyn Fn(usize) + Sync)) -> Result<Merger> {
    read_parts_into(Merger::default(), parts, progress)
}

/// [`read_parts`] into `merger` (e.g. [`Merger::summing`]).
///
/// A summing merger ([`Merger::summing`]) reduces groups of parts on
/// their own, in parallel ([`GROUP_BYTES`]): its tables are bounded by the
/// distinct calling contexts, so each group's are small, and a thread
/// reduces a part as soon as it has read it, while it is in its caches.
/// Otherwise (per-rank contexts, whose tables grow with every part), the
/// calling thread reduces the parts in order, each as soon as it is
/// read, while the rayon pool reads the parts after it: at most a window
/// of 4 + 2 × threads parts are read ahead, so memory holds the merged
/// records and that window, whatever the number of parts, and no core
/// waits for a whole batch (two large parts: the first is reduced while
/// the second is read). Called from a thread of the pool itself, which
/// must not wait for the pool, it reads each part in turn.
pub fn read_parts_into(
    mut merger: Merger,
    parts: Vec<Part>,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Merger> {
    if merger.summing.is_some() {
        let done = std::sync::atomic::AtomicUsize::new(merger.parts());
        let parts = parts.into_iter().map(|p| {
            let weight = p.weight();
            (p, weight)
        });
        let reduced = reduce_summing(parts.collect(), GROUP_BYTES, &|| {
            progress(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1)
        })?;
        merger.absorb(reduced)?;
        return Ok(merger);
    }
    if parts.iter().any(|p| p.weight() >= STREAMED_BYTES) {
        // Large parts (the shard results of a post of many ranks each, the
        // last shard's own among them) are reduced record by record as
        // they are read, in order: holding one whole costs more memory
        // than reading the next ahead saves time.
        let mut scratch = FlatStacks::default();
        for part in parts {
            scratch = part.add_to(&mut merger, scratch)?;
            progress(merger.parts());
        }
        return Ok(merger);
    }
    if rayon::current_thread_index().is_some() {
        let mut tables = FlatTables::default();
        for part in parts {
            let (part, name) = part.read(tables)?;
            tables = merger.add_flat(part, name.as_deref())?;
            progress(merger.parts());
        }
        return Ok(merger);
    }
    let total = parts.len();
    let (done, read) = std::sync::mpsc::channel();
    let mut unread = parts.into_iter().enumerate();
    // The tables of parts reduced, for the reads after them to reuse.
    let spare: std::sync::Arc<std::sync::Mutex<Vec<FlatTables>>> = Default::default();
    let mut read_one = || {
        if let Some((i, part)) = unread.next() {
            let done = done.clone();
            let spare = spare.clone();
            rayon::spawn(move || {
                let tables = spare.lock().map(|mut s| s.pop()).ok().flatten();
                // The reducer stops reading at an error: no one to tell.
                let _ = done.send((i, part.read(tables.unwrap_or_default())));
            });
        }
    };
    for _ in 0..4 + 2 * rayon::current_num_threads() {
        read_one();
    }
    let mut ready = BTreeMap::new();
    let mut next = 0;
    while next < total {
        let (i, part) = read.recv().expect("every part read is sent");
        ready.insert(i, part);
        while let Some(part) = ready.remove(&next) {
            read_one();
            let (part, name) = part?;
            let tables = merger.add_flat(part, name.as_deref())?;
            if let Ok(mut s) = spare.lock() {
                s.push(tables);
            }
            progress(merger.parts());
            next += 1;
        }
    }
    Ok(merger)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Another merger's sums per process, and a part's values, add as
    /// their values would one by one, whether their processes come after
    /// these (joined) or among them (merged).
    #[test]
    fn sums_of_two_mergers_add_as_their_values() {
        let sums = |ps: &[u32], x: f64| -> ProcessSums {
            ProcessSums(
                ps.iter()
                    .map(|&p| {
                        let methods = BTreeMap::from([("raw".to_string(), x)]);
                        (p, (x, x / 2.0, 1.0, 0.0, methods))
                    })
                    .collect(),
            )
        };
        for (ours, theirs) in [
            (&[0, 1][..], &[2, 3][..]),
            (&[0, 2], &[1, 2, 5]),
            (&[], &[4]),
            (&[3, 4, 9], &[0, 1, 4, 10]),
            (&[7], &[]),
        ] {
            let mut joined = sums(ours, 1.5);
            add_sums(&mut joined, sums(theirs, 2.25));
            let mut added = sums(ours, 1.5);
            add_values(&mut added, &to_values(sums(theirs, 2.25)));
            // One value at a time, each process found on its own.
            let mut one_by_one = sums(ours, 1.5);
            for v in to_values(sums(theirs, 2.25)) {
                add_value(&mut one_by_one, &v);
            }
            assert_eq!(joined, one_by_one, "{ours:?} then {theirs:?}");
            assert_eq!(added, one_by_one, "{ours:?} then {theirs:?}");
        }
    }

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

    /// Sums per process come out in the order of the processes, however
    /// they were added, each process once, as a map's would.
    #[test]
    fn process_sums_keep_processes_in_order() {
        let mut sums = ProcessSums::default();
        let mut map: BTreeMap<u32, f64> = BTreeMap::new();
        for (i, p) in [5u32, 7, 9, 6, 0, 9, 12, 5, 3].into_iter().enumerate() {
            sums.entry(p).0 += i as f64;
            *map.entry(p).or_default() += i as f64;
        }
        let got: Vec<(u32, f64)> = sums.into_iter().map(|(p, s)| (p, s.0)).collect();
        assert_eq!(got, map.into_iter().collect::<Vec<_>>());
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
