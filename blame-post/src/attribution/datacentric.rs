//! Approximate data-centric attribution of memory-event samples (ch. 5):
//! a miss sampled at a source line is shared among the distinct reads that
//! could have caused it.
//!
//! - [`raw_shares`] (5.2.1): equal shares over the unique reads of the line.
//! - [`loop_weights`] (5.2.2, eq. 5.1–5.5): reads that recur on many lines of
//!   the innermost loop (index scalars) are unlikely to miss; weights move
//!   their share to the rarely read arrays.
//! - [`skid_window`] + [`skid_shares`] (5.2.3, eq. 5.6–5.8): the reported line
//!   may be a few lines after the one that missed; a distribution over the
//!   preceding lines (never across a call or the function's start) replaces
//!   the raw shares, and loop compensation applies on top.
//!
//! - [`access_weight`] (beyond ch. 5): each read's share weighed by the
//!   misses its access pattern predicts (`blame-static`'s locality classes:
//!   fixed and loop-invariant addresses 0, a stride shorter than a cache line
//!   stride/line, irregular 1, objects smaller than L1 by the share of L1
//!   they take). It composes after loop compensation.
//!
//! Every function returns shares that sum to 1 per miss (or nothing when
//! the lines read no memory), so totals are conserved.

use crate::input::skid_model::{LineSkid, SkidWindow};
use blame_formats::static_db::{
    CacheGeometry, FunctionSummary, MemRead, OuterReuse, ReadCost, Reuse, VarKind,
};
use std::collections::{BTreeMap, BTreeSet};

/// Functions whose return value is a new heap block.
const ALLOCATORS: &[&str] = &[
    "malloc",
    "calloc",
    "realloc",
    "reallocarray",
    "aligned_alloc",
    "memalign",
    "valloc",
    "pvalloc",
    "_Znwm",
    "_Znam",
    "_ZnwmRKSt9nothrow_t",
    "_ZnamRKSt9nothrow_t",
    "_ZnwmSt11align_val_t",
    "_ZnamSt11align_val_t",
];

/// The variable that stands for `v`'s alias class (5.1, Figure 5.1): after
/// `int *y = x`, a read through `y` is a read of the memory direct
/// attribution names `x`. The class is named by the member that receives an
/// allocation (`x = malloc(...)`), else by a parameter (the caller's
/// variable, reached through the call stack), else by the member declared
/// first.
pub fn canonical_variable(f: &FunctionSummary, v: u32) -> u32 {
    let Some(var) = f.variables.get(v as usize) else {
        return v;
    };
    // A field of an alias (`p->energy` after `p = &bank[i]`) is memory of
    // the class's variable: its field of the same path when the function
    // names it, else the variable itself.
    if let Some(root) = var.parent.map(|_| root_variable(f, v)) {
        let c = canonical_variable(f, root);
        if c != root {
            let want = format!(
                "{}{}",
                f.variables[c as usize].name,
                &var.name[f.variables[root as usize].name.len()..]
            );
            return f
                .variables
                .iter()
                .position(|x| x.name == want)
                .map_or(c, |i| i as u32);
        }
        return v;
    }
    if var.aliases.is_empty() {
        return v;
    }
    let class: Vec<u32> = std::iter::once(v)
        .chain(var.aliases.iter().copied())
        .filter(|&m| (m as usize) < f.variables.len())
        .collect();
    let alloc_lines: BTreeSet<u32> = f
        .call_sites
        .iter()
        .filter(|c| c.callee.as_deref().is_some_and(|n| ALLOCATORS.contains(&n)))
        .map(|c| c.line)
        .collect();
    let member = |m: &u32| &f.variables[*m as usize];
    let receiver = class
        .iter()
        .filter(|m| {
            member(m)
                .write_lines
                .iter()
                .any(|l| alloc_lines.contains(l))
        })
        .min_by_key(|m| (member(m).line, **m));
    let param = class
        .iter()
        .filter(|m| member(m).kind == VarKind::Param)
        .min_by_key(|m| (member(m).param_index, **m));
    let first = class.iter().min_by_key(|m| (member(m).line, **m));
    *receiver.or(param).or(first).unwrap_or(&v)
}

/// The outermost container of variable `v`.
fn root_variable(f: &FunctionSummary, mut v: u32) -> u32 {
    for _ in 0..f.variables.len() {
        match f.variables[v as usize].parent {
            Some(p) => v = p,
            None => break,
        }
    }
    v
}

/// A read with its variable replaced by its alias class's (5.1).
fn canonical_read(f: &FunctionSummary, r: &MemRead) -> MemRead {
    MemRead {
        variable: canonical_variable(f, r.variable),
        index: r.index.clone(),
    }
}

/// The unique reads of `line` (a variable indexed the same way counts once;
/// aliases are one variable, 5.1).
pub fn reads_on_line(f: &FunctionSummary, line: u32) -> Vec<MemRead> {
    let set: BTreeSet<MemRead> = f
        .reads
        .iter()
        .filter(|r| r.line == line)
        .flat_map(|r| r.reads.iter())
        .map(|r| canonical_read(f, r))
        .collect();
    set.into_iter().collect()
}

/// The caller variables a pointer argument really points into, among
/// `candidates` (the call site's binding of that argument: the argument's
/// targets, their alias classes, and every variable the callee's output
/// reaches afterwards). A read through a parameter is a read of the memory
/// the argument points to (5.1's interprocedural step), not of the variables
/// later computed from it: after `smvp(K, disp[t], ...)`, `vel[i] =
/// disp[t][i] - ...` makes `vel` reachable from the argument, yet `smvp`
/// never reads `vel`. Passing `disp[t]` (or `p`) reads the pointer on the
/// call's line, so the candidates read on that line are the ones passed;
/// when none is (an array decays to a pointer without a load), all stay.
pub fn passed_variables(caller: &FunctionSummary, line: u32, candidates: &[u32]) -> Vec<u32> {
    let read: BTreeSet<u32> = reads_on_line(caller, line)
        .into_iter()
        .map(|r| r.variable)
        .collect();
    let passed: Vec<u32> = candidates
        .iter()
        .copied()
        .filter(|&v| read.contains(&canonical_variable(caller, v)))
        .collect();
    if passed.is_empty() {
        candidates.to_vec()
    } else {
        passed
    }
}

/// Raw approximate assignment (5.2.1): one equal share per unique read.
pub fn raw_shares(f: &FunctionSummary, line: u32) -> Vec<(MemRead, f64)> {
    let reads = reads_on_line(f, line);
    let n = reads.len() as f64;
    reads.into_iter().map(|r| (r, 1.0 / n)).collect()
}

/// The innermost natural loop containing `line`.
pub fn innermost_loop(f: &FunctionSummary, line: u32) -> Option<usize> {
    f.loops
        .iter()
        .enumerate()
        .filter(|(_, l)| l.lines.contains(&line))
        .min_by_key(|(_, l)| l.lines.len())
        .map(|(i, _)| i)
}

/// Raw, adjusted and final weight of one read (Table 5.2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoopWeight {
    pub raw: f64,
    pub adjusted: f64,
    pub final_weight: f64,
}

/// Loop compensation weights (eq. 5.1–5.5) of every unique read in loop `l`.
pub fn loop_weights(
    f: &FunctionSummary,
    l: usize,
    threshold: f64,
) -> BTreeMap<MemRead, LoopWeight> {
    let lines = &f.loops[l].lines;
    let nlines = lines.len().max(1) as f64;
    let mut lines_per_read: BTreeMap<MemRead, usize> = BTreeMap::new();
    for &line in lines {
        for r in reads_on_line(f, line) {
            *lines_per_read.entry(r).or_default() += 1;
        }
    }
    // 5.1: raw = 1 - (lines reading v / lines in L)^2
    let raw: BTreeMap<MemRead, f64> = lines_per_read
        .into_iter()
        .map(|(r, n)| (r, 1.0 - (n as f64 / nlines).powi(2)))
        .collect();
    // 5.2: what the frequently read lose is handed to the rarely read.
    let to_redistribute: f64 = raw.values().map(|w| 1.0 - w).sum();
    // 5.3: reads at or over the threshold share it in proportion to their raw weight.
    let threshold_weights: f64 = raw.values().filter(|&&w| w >= threshold).sum();
    raw.into_iter()
        .map(|(r, w)| {
            // 5.4 and 5.5
            let adjusted = if w >= threshold && threshold_weights > 0.0 {
                w / threshold_weights * to_redistribute
            } else {
                0.0
            };
            (
                r,
                LoopWeight {
                    raw: w,
                    adjusted,
                    final_weight: w + adjusted,
                },
            )
        })
        .collect()
}

/// Applies loop weights to per-read shares and renormalizes to the same
/// total, so each miss is still counted exactly once. Shares of reads
/// outside any loop keep weight 1.
pub fn loop_compensate(
    f: &FunctionSummary,
    shares: &[(u32, MemRead, f64)],
    threshold: f64,
) -> Vec<(u32, MemRead, f64)> {
    let mut cache: BTreeMap<usize, BTreeMap<MemRead, LoopWeight>> = BTreeMap::new();
    // Only reads the loop says never miss: the unweighted shares stay.
    reweigh(shares, |line, r| match innermost_loop(f, line) {
        Some(l) => cache
            .entry(l)
            .or_insert_with(|| loop_weights(f, l, threshold))
            .get(r)
            .map(|w| w.final_weight)
            .unwrap_or(1.0),
        None => 1.0,
    })
}

/// Multiplies each share by `weight(line, read)` and renormalizes to the
/// same total, so each miss is still counted exactly once; when every
/// weight is 0 the shares are returned unchanged.
fn reweigh(
    shares: &[(u32, MemRead, f64)],
    weight: impl FnMut(u32, &MemRead) -> f64,
) -> Vec<(u32, MemRead, f64)> {
    reweigh_by(shares, weight)
}

/// The access pattern of each unique read of `line` (aliases as one
/// variable; of two loads of one read, the likelier to miss). Reads of a
/// summary without access patterns are missing.
pub fn read_costs(
    f: &FunctionSummary,
    line: u32,
    cache: &CacheGeometry,
) -> BTreeMap<MemRead, ReadCost> {
    let mut out: BTreeMap<MemRead, ReadCost> = BTreeMap::new();
    for lr in f.reads.iter().filter(|r| r.line == line) {
        for (r, c) in lr.reads.iter().zip(&lr.costs) {
            let slot = out.entry(canonical_read(f, r)).or_insert(*c);
            if c.expected_misses(cache) > slot.expected_misses(cache) {
                *slot = *c;
            }
        }
    }
    out
}

/// The bytes of the object a read of variable `v` (an index into the
/// function's variables) reaches, when the run knows and the read table does
/// not: a heap block behind a pointer or a parameter, from the allocation
/// log through the calling context (0: unknown).
pub type FootprintOf<'a> = &'a dyn Fn(u32) -> u64;

/// No footprints beyond the read table's (no allocation log).
pub fn no_footprints(_: u32) -> u64 {
    0
}

/// Access weighting: every share times the expected misses of its read's
/// access pattern, renormalized to the same total. A read without a
/// pattern keeps weight 1; when every read weighs 0 (only scalars and
/// invariant addresses), the shares are returned unchanged.
pub fn access_weight(
    f: &FunctionSummary,
    shares: &[(u32, MemRead, f64)],
    cache: &CacheGeometry,
    footprint_of: FootprintOf,
) -> Vec<(u32, MemRead, f64)> {
    let mut costs: BTreeMap<u32, BTreeMap<MemRead, f64>> = BTreeMap::new();
    reweigh(shares, |line, r| {
        costs
            .entry(line)
            .or_insert_with(|| line_weights(&read_costs(f, line, cache), cache, footprint_of))
            .get(r)
            .copied()
            .unwrap_or(1.0)
    })
}

/// The expected misses of each read of one line, with the footprint of
/// what it reads (the read table's for arrays named directly, else
/// `footprint_of`'s) against the L1:
///
/// - an object that fits in half the L1 stays there once touched, whatever
///   the pattern (a gather into a small table, a column of a small matrix
///   read at a long stride, a small vector swept again): only its first
///   touches miss, and it weighs ~0 beside reads of larger objects;
/// - a sweep repeated in every iteration of the enclosing loop (`x[k]` in
///   `y[i] += A[i][k] * x[k]`, a column of C in a jki product) while other
///   streaming reads of the line move on to new data stays cached when the
///   lines it touches fit in half the L1: the object at a short stride, one
///   line per element at a long one (a column of an n x n matrix is n
///   lines);
/// - a sweep whose addresses a loop before its nest touched in the same
///   iteration of an enclosing loop (an output rescaled, zeroed or
///   normalised in place, then accumulated into) weighs 0 when the lines
///   of one sweep fit in half the L1: the earlier pass took the misses,
///   and the data stays for the sweeps that follow;
/// - the lines of one sweep are bounded by the object's size, or by the
///   sweep's span when the read table knows it (a constant trip count,
///   the pitch of the row it runs along) without the object's size;
/// - otherwise the pattern's misses (an object of unknown size is assumed
///   not to stay: large vectors swept again, as in art and quake, do not).
pub fn line_weights(
    reads: &BTreeMap<MemRead, ReadCost>,
    cache: &CacheGeometry,
    footprint_of: FootprintOf,
) -> BTreeMap<MemRead, f64> {
    let sized: Vec<(&MemRead, ReadCost)> = reads
        .iter()
        .map(|(r, c)| {
            let mut c = *c;
            if c.footprint == 0 {
                c.footprint = footprint_of(r.variable);
            }
            (r, c)
        })
        .collect();
    let streaming = |c: &ReadCost| c.expected_misses(cache) > 0.0;
    let moves = sized
        .iter()
        .any(|(_, c)| streaming(c) && c.outer == OuterReuse::Moves);
    let half = cache.l1d_bytes / 2;
    // A line whose reads all hit (scalars, invariant addresses, data just
    // written): what misses there is the access that touched the data
    // first, a store (`a[i] = x, s += a[i]` faulting on the store): the
    // recently touched reads stand for it.
    let stands_for_store = |c: &ReadCost| {
        c.reuse == Reuse::Recent && sized.iter().all(|(_, c)| c.expected_misses(cache) == 0.0)
    };
    sized
        .iter()
        .map(|&(r, c)| {
            if stands_for_store(&c) {
                return (r.clone(), 1.0);
            }
            let looped = c.reuse != Reuse::NoLoop;
            let fits = looped && sweep_bytes(&c, cache).is_some_and(|b| b <= half);
            if c.swept_before && fits {
                return (r.clone(), 0.0);
            }
            let stays = (looped && c.footprint > 0 && c.footprint <= half)
                || (moves && c.outer == OuterReuse::Same && fits);
            // What stays misses only on first touches: fewer, the smaller
            // the object (a 512-byte table, 512/32768 of its accesses).
            let w = if stays {
                let share = match c.footprint {
                    0 => 1.0,
                    f => f as f64 / cache.l1d_bytes.max(1) as f64,
                };
                let first_touches = REUSED.min(share);
                ReadCost { footprint: 0, ..c }.expected_misses(cache) * first_touches
            } else {
                c.expected_misses(cache)
            };
            (r.clone(), w)
        })
        .collect()
}

/// The bytes of cache lines one sweep of a read touches at most: its whole
/// object, or one line per element when the stride is longer than a line,
/// or what the read table knows of the sweep's span, the smaller; `None`
/// when neither the object's size nor the span is known.
fn sweep_bytes(c: &ReadCost, cache: &CacheGeometry) -> Option<u64> {
    let line = cache.line_bytes.max(1);
    let by_span = match c.reuse {
        _ if c.sweep == 0 => None,
        Reuse::Stride(s) if s.unsigned_abs() > line => Some(c.sweep / s.unsigned_abs() * line),
        Reuse::Row { stride, .. } if u64::from(stride.unsigned_abs()) > line => {
            Some(c.sweep / u64::from(stride.unsigned_abs()) * line)
        }
        _ => Some(c.sweep),
    };
    let by_object = (c.footprint > 0).then(|| object_sweep_bytes(c, line));
    match (by_span, by_object) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// [`sweep_bytes`] from the object's size alone.
fn object_sweep_bytes(c: &ReadCost, line: u64) -> u64 {
    match c.reuse {
        Reuse::Stride(s) if s.unsigned_abs() > line => c.footprint / s.unsigned_abs() * line,
        // trip·n lines with trip·stride·n² ≤ footprint.
        Reuse::Rows { trip, stride } => {
            let n = (c.footprint as f64 / (trip as f64 * stride.max(1) as f64)).sqrt();
            (trip as f64 * n) as u64 * line
        }
        // trip·n elements of a row, with pitch·n² ≤ footprint.
        Reuse::Row {
            stride,
            trip,
            pitch,
        } => {
            let n = (c.footprint as f64 / pitch.max(1) as f64).sqrt();
            (trip as f64 * n * stride.unsigned_abs() as f64) as u64
        }
        _ => c.footprint,
    }
}

/// What a read that stays in the cache keeps of its weight (the first
/// sweep and conflict misses are not nothing).
const REUSED: f64 = 0.02;

/// The source lines the miss reported at `line` may really come from.
/// Lines are counted among the function's lines with code; the window stops
/// at a line holding a call (blame does not move backwards through calls)
/// and at the function's first line. Probabilities are renormalized.
pub fn skid_window(f: &FunctionSummary, line: u32, model: LineSkid) -> SkidWindow {
    let Some(pos) = f.lines.iter().position(|&l| l == line) else {
        return SkidWindow {
            lines: vec![(line, 1.0)],
            ..Default::default()
        };
    };
    let call_lines: BTreeSet<u32> = f.call_sites.iter().map(|c| c.line).collect();
    // Earliest reachable position going back from the reported line.
    let mut earliest = pos;
    while earliest > 0 && !call_lines.contains(&f.lines[earliest - 1]) {
        earliest -= 1;
    }
    // The call's own line is included, nothing before it.
    earliest = earliest.saturating_sub(1);
    let mut truncated = false;
    let mut lines: BTreeMap<u32, f64> = BTreeMap::new();
    for (back, p) in model.offsets() {
        if back < 0 {
            continue; // after the reported line: skid only moves forward
        }
        let target = pos as i64 - back;
        if target < earliest as i64 {
            truncated = true;
            continue;
        }
        *lines.entry(f.lines[target as usize]).or_default() += p;
    }
    let total: f64 = lines.values().sum();
    if total <= 0.0 {
        return SkidWindow {
            lines: vec![(line, 1.0)],
            truncated,
            ..Default::default()
        };
    }
    SkidWindow {
        lines: lines.into_iter().map(|(l, p)| (l, p / total)).collect(),
        truncated,
        ..Default::default()
    }
}

/// Skid negation (eq. 5.6–5.8): every unique read on a line of the window
/// gets that line's probability; values are normalized to sum to 1.
pub fn skid_shares(f: &FunctionSummary, window: &SkidWindow) -> Vec<(u32, MemRead, f64)> {
    let raw: Vec<(u32, MemRead, f64)> = window
        .lines
        .iter()
        .flat_map(|&(line, p)| {
            reads_on_line(f, line)
                .into_iter()
                .map(move |r| (line, r, p))
        })
        .collect();
    let sum: f64 = raw.iter().map(|r| r.2).sum();
    if sum <= 0.0 {
        return Vec::new();
    }
    raw.into_iter().map(|(l, r, v)| (l, r, v / sum)).collect()
}

/// One function's lines of a skid window: a window that crosses inlined
/// code holds lines of several functions (the caller's load of an inlined
/// call's argument, the inlined callee's reads), each read in its own
/// function's read table with its own footprints.
pub struct WindowPart<'a> {
    pub f: &'a FunctionSummary,
    pub lines: Vec<(u32, f64)>,
    pub footprint_of: FootprintOf<'a>,
}

/// Shares of one part of a skid window, by variable of the part's function.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PartShares {
    pub skid: Vec<(u32, f64)>,
    pub skid_loop: Vec<(u32, f64)>,
    pub skid_loop_access: Vec<(u32, f64)>,
}

/// Skid negation, loop compensation and access weighting over a window of
/// several functions' lines (eq. 5.6–5.8 over all of them: every read of a
/// line gets the line's probability; then each read's loop weight in its
/// own function's innermost loop, then its access weight among all the
/// window's reads), normalized together so the parts' shares sum to 1.
/// With one part this is [`skid_shares`], [`loop_compensate`] and
/// [`access_weight`].
pub fn skid_parts(parts: &[WindowPart], threshold: f64, cache: &CacheGeometry) -> Vec<PartShares> {
    // Reads are told apart by part: (part, line) is the key `reweigh` sees.
    type Key = (usize, u32);
    let mut raw: Vec<(Key, MemRead, f64)> = parts
        .iter()
        .enumerate()
        .flat_map(|(k, part)| {
            part.lines.iter().flat_map(move |&(line, p)| {
                reads_on_line(part.f, line)
                    .into_iter()
                    .map(move |r| ((k, line), r, p))
            })
        })
        .collect();
    let sum: f64 = raw.iter().map(|r| r.2).sum();
    if sum <= 0.0 {
        return parts.iter().map(|_| PartShares::default()).collect();
    }
    raw.iter_mut().for_each(|r| r.2 /= sum);
    let mut loops: BTreeMap<(usize, usize), BTreeMap<MemRead, LoopWeight>> = BTreeMap::new();
    let looped = reweigh_by(&raw, |(k, line), r| {
        let f = parts[k].f;
        match innermost_loop(f, line) {
            Some(l) => loops
                .entry((k, l))
                .or_insert_with(|| loop_weights(f, l, threshold))
                .get(r)
                .map(|w| w.final_weight)
                .unwrap_or(1.0),
            None => 1.0,
        }
    });
    let mut costs: BTreeMap<Key, BTreeMap<MemRead, f64>> = BTreeMap::new();
    let accessed = reweigh_by(&looped, |(k, line), r| {
        let part = &parts[k];
        costs
            .entry((k, line))
            .or_insert_with(|| {
                line_weights(&read_costs(part.f, line, cache), cache, part.footprint_of)
            })
            .get(r)
            .copied()
            .unwrap_or(1.0)
    });
    let of = |shares: &[(Key, MemRead, f64)], k: usize| {
        let mut m: BTreeMap<u32, f64> = BTreeMap::new();
        for (_, r, x) in shares.iter().filter(|s| s.0 .0 == k) {
            *m.entry(r.variable).or_default() += x;
        }
        m.into_iter().collect::<Vec<_>>()
    };
    (0..parts.len())
        .map(|k| PartShares {
            skid: of(&raw, k),
            skid_loop: of(&looped, k),
            skid_loop_access: of(&accessed, k),
        })
        .collect()
}

/// [`reweigh`] over shares keyed by any line key.
fn reweigh_by<K: Copy>(
    shares: &[(K, MemRead, f64)],
    mut weight: impl FnMut(K, &MemRead) -> f64,
) -> Vec<(K, MemRead, f64)> {
    let total: f64 = shares.iter().map(|s| s.2).sum();
    let weighted: Vec<(K, MemRead, f64)> = shares
        .iter()
        .map(|(key, r, share)| (*key, r.clone(), share * weight(*key, r)))
        .collect();
    let wsum: f64 = weighted.iter().map(|s| s.2).sum();
    if wsum <= 0.0 {
        return shares.to_vec();
    }
    weighted
        .into_iter()
        .map(|(k, r, x)| (k, r, x * total / wsum))
        .collect()
}

/// Per-method shares of one miss at `line`: raw, loop-compensated, and (with
/// a skid model) skid-negated then loop-compensated.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MissShares {
    pub raw: Vec<(u32, f64)>,
    pub loop_adjusted: Vec<(u32, f64)>,
    pub skid: Vec<(u32, f64)>,
    pub skid_loop: Vec<(u32, f64)>,
    /// Loop compensation, then access weighting.
    pub loop_access: Vec<(u32, f64)>,
    /// Skid negation, loop compensation, then access weighting.
    pub skid_loop_access: Vec<(u32, f64)>,
    pub skid_truncated: bool,
}

fn by_variable(shares: &[(u32, MemRead, f64)]) -> Vec<(u32, f64)> {
    let mut m: BTreeMap<u32, f64> = BTreeMap::new();
    for (_, r, x) in shares {
        *m.entry(r.variable).or_default() += x;
    }
    m.into_iter().collect()
}

/// All methods for one miss at `line` of `f`, by variable index.
pub fn attribute_miss(
    f: &FunctionSummary,
    line: u32,
    threshold: f64,
    skid: Option<&SkidWindow>,
    cache: &CacheGeometry,
    footprint_of: FootprintOf,
) -> MissShares {
    let raw: Vec<(u32, MemRead, f64)> = raw_shares(f, line)
        .into_iter()
        .map(|(r, x)| (line, r, x))
        .collect();
    let looped = loop_compensate(f, &raw, threshold);
    let mut out = MissShares {
        raw: by_variable(&raw),
        loop_adjusted: by_variable(&looped),
        loop_access: by_variable(&access_weight(f, &looped, cache, footprint_of)),
        ..Default::default()
    };
    if let Some(window) = skid {
        let s = skid_shares(f, window);
        let skid_looped = loop_compensate(f, &s, threshold);
        out.skid = by_variable(&s);
        out.skid_loop = by_variable(&skid_looped);
        out.skid_loop_access = by_variable(&access_weight(f, &skid_looped, cache, footprint_of));
        out.skid_truncated = window.truncated;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests_fig3_14::{func, var};
    use blame_formats::static_db::{
        CallOutput, CallSite, LineReads, OutputBinding, ReadIndex, Reuse,
    };

    /// Reuse across the enclosing loop: a repeated sweep of an array known
    /// to fit in half the L1 weighs ~0 beside a read that moves on; one of
    /// unknown size (a heap block behind a pointer) keeps its weight, and so
    /// does one too large to stay.
    #[test]
    fn repeated_sweeps_of_small_known_arrays_stay_cached() {
        use blame_formats::static_db::{OuterReuse, ReadCost, ReadIndex, Reuse};
        let cache = CacheGeometry::default();
        let read = |v| MemRead {
            variable: v,
            index: ReadIndex::None,
        };
        let cost = |outer, footprint| ReadCost {
            reuse: Reuse::Stride(8),
            outer,
            footprint,
            sweep: 0,
            swept_before: false,
        };
        let line = |x_footprint| {
            let reads = BTreeMap::from([
                (read(0), cost(OuterReuse::Moves, 0)),
                (read(1), cost(OuterReuse::Same, x_footprint)),
            ]);
            line_weights(&reads, &cache, &no_footprints)
        };
        let small = line(2560);
        assert_eq!(small[&read(0)], 0.125);
        assert!(small[&read(1)] < 0.01, "{small:?}");
        for footprint in [0, 64 * 1024] {
            let w = line(footprint);
            assert_eq!(w[&read(1)], 0.125, "footprint {footprint}: {w:?}");
        }
    }

    /// The accumulation of `c[i][j] += alpha * a[i][k] * b[k][j]` after a
    /// pass rescaled the row of C in place: the row (768 bytes, the sweep's
    /// span from the read table, the 36 KB matrix too large to stay) is in
    /// the cache, so C weighs nothing beside the stream of B, and without
    /// the earlier pass it weighs its first touches; a row of 24 KB does
    /// not stay, whatever pass came before, and weighs as B does. Without
    /// the span, the object's size decides, as before.
    #[test]
    fn rows_swept_by_an_earlier_pass_weigh_nothing_when_they_fit() {
        use blame_formats::static_db::{OuterReuse, ReadCost, ReadIndex, Reuse};
        let cache = CacheGeometry::default();
        let read = |v| MemRead {
            variable: v,
            index: ReadIndex::None,
        };
        let cost = |outer, sweep, swept_before| ReadCost {
            reuse: Reuse::Stride(8),
            outer,
            footprint: 0,
            sweep,
            swept_before,
        };
        let c_weight = |sweep, swept_before| {
            let reads = BTreeMap::from([
                (read(0), cost(OuterReuse::Moves, sweep, false)),
                (read(1), cost(OuterReuse::Same, sweep, swept_before)),
            ]);
            let w = line_weights(&reads, &cache, &|v| if v == 1 { 36_864 } else { 49_152 });
            assert_eq!(w[&read(0)], 0.125, "{w:?}");
            w[&read(1)]
        };
        assert_eq!(c_weight(768, true), 0.0);
        let first_touches = c_weight(768, false);
        assert!(
            first_touches > 0.0 && first_touches < 0.01,
            "{first_touches}"
        );
        assert_eq!(c_weight(24_576, true), 0.125);
        assert_eq!(
            c_weight(0, true),
            0.125,
            "no span: the 36 KB matrix decides"
        );
        // A span of 50 elements at a stride of two lines: 50 lines.
        let long = ReadCost {
            reuse: Reuse::Stride(128),
            ..cost(OuterReuse::Same, 6_400, false)
        };
        assert_eq!(sweep_bytes(&long, &cache), Some(3_200));
    }

    /// Heap blocks' sizes from the run (`footprint_of`): a gather into a 16
    /// KB table and a vector re-swept beside a stream stay in the L1, a
    /// 4 MB vector does not; a column of C re-read for every k (a stride
    /// of 8·n bytes, n iterations) stays when the n lines fit, which an 80
    /// KB matrix bounds to 100 lines and an 8 MB one does not.
    #[test]
    fn heap_footprints_decide_what_stays_cached() {
        use blame_formats::static_db::{OuterReuse, ReadCost, ReadIndex, Reuse};
        let cache = CacheGeometry::default();
        let read = |v| MemRead {
            variable: v,
            index: ReadIndex::None,
        };
        let cost = |reuse, outer| ReadCost {
            reuse,
            outer,
            footprint: 0,
            sweep: 0,
            swept_before: false,
        };
        let weights = |second: ReadCost, bytes: u64| {
            let reads = BTreeMap::from([
                (read(0), cost(Reuse::Stride(8), OuterReuse::Moves)),
                (read(1), second),
            ]);
            line_weights(&reads, &cache, &|v| if v == 1 { bytes } else { 0 })
        };
        let gather = cost(Reuse::Irregular, OuterReuse::Unknown);
        assert!(weights(gather, 16 * 1024)[&read(1)] < 0.05);
        assert_eq!(weights(gather, 0)[&read(1)], 1.0);
        let resweep = cost(Reuse::Stride(8), OuterReuse::Same);
        assert!(weights(resweep, 2560)[&read(1)] < 0.01);
        assert_eq!(weights(resweep, 4 << 20)[&read(1)], 0.125);
        let column = cost(Reuse::Rows { trip: 1, stride: 8 }, OuterReuse::Same);
        assert!(weights(column, 80_000)[&read(1)] < 0.05);
        assert_eq!(weights(column, 8_000_000)[&read(1)], 1.0);
        // A row of B re-read for every i (kij): 100 doubles of an 80 KB
        // n x n matrix stay, a row of a 800 MB one (80 KB) does not.
        let row = Reuse::Row {
            stride: 8,
            trip: 1,
            pitch: 8,
        };
        let row = cost(row, OuterReuse::Same);
        assert!(weights(row, 80_000)[&read(1)] < 0.01);
        assert_eq!(weights(row, 800_000_000)[&read(1)], 0.125);
        // A line whose reads all hit: the data just written stands for the
        // store that touched it first.
        let reads = BTreeMap::from([
            (read(0), cost(Reuse::Recent, OuterReuse::Unknown)),
            (read(1), cost(Reuse::Fixed, OuterReuse::Unknown)),
        ]);
        let w = line_weights(&reads, &cache, &no_footprints);
        assert_eq!((w[&read(0)], w[&read(1)]), (1.0, 0.0));
        // The stream itself is never helped by another read's footprint.
        assert_eq!(weights(column, 80_000)[&read(0)], 0.125);
    }

    /// the access patterns give the gather `x` one miss per access, the
    /// streams one per cache line (8 doubles, 16 ints), the accumulator none.
    #[test]
    fn access_weights_follow_the_access_patterns() {
        let vars = ["col", "val", "x", "sum", "k"]
            .iter()
            .map(|n| var(n, VarKind::Local, None, None, false, &[]))
            .collect();
        let mut f = func("spmv", vars, vec![]);
        let read = |variable, index| MemRead { variable, index };
        let cost = |reuse| ReadCost {
            reuse,
            footprint: 0,
            outer: Default::default(),
            sweep: 0,
            swept_before: false,
        };
        f.reads = vec![
            LineReads {
                line: 5,
                reads: vec![read(4, ReadIndex::None)],
                costs: vec![cost(Reuse::Fixed)],
            },
            LineReads {
                line: 6,
                reads: vec![
                    read(0, ReadIndex::Var(4)),
                    read(1, ReadIndex::Var(4)),
                    read(2, ReadIndex::Expr(9)),
                    read(3, ReadIndex::None),
                    read(4, ReadIndex::None),
                ],
                costs: vec![
                    cost(Reuse::Stride(4)),
                    cost(Reuse::Stride(8)),
                    cost(Reuse::Irregular),
                    cost(Reuse::Fixed),
                    cost(Reuse::Fixed),
                ],
            },
        ];
        f.loops = vec![blame_formats::static_db::LoopInfo {
            header_line: 5,
            lines: vec![5, 6],
            parent: None,
        }];
        f.lines = vec![5, 6];
        let m = attribute_miss(&f, 6, 0.75, None, &CacheGeometry::default(), &no_footprints);
        let share = |v: &[(u32, f64)], i: u32| v.iter().find(|x| x.0 == i).map_or(0.0, |x| x.1);
        // k is read on both lines: loop compensation already drops it.
        assert_eq!(share(&m.loop_adjusted, 4), 0.0);
        for i in 0..4 {
            assert!((share(&m.loop_adjusted, i) - 0.25).abs() < 1e-12);
        }
        let total = 1.0 + 1.0 / 8.0 + 1.0 / 16.0;
        assert!((share(&m.loop_access, 2) - 1.0 / total).abs() < 1e-12);
        assert!((share(&m.loop_access, 1) - 0.125 / total).abs() < 1e-12);
        assert!((share(&m.loop_access, 0) - 0.0625 / total).abs() < 1e-12);
        assert_eq!(share(&m.loop_access, 3), 0.0);
        // A line of scalars only: the access weights cannot choose, the
        // loop shares stand.
        let m = attribute_miss(&f, 5, 0.75, None, &CacheGeometry::default(), &no_footprints);
        assert_eq!(m.loop_access, m.loop_adjusted);
        // A small table (512 bytes of a 32 KiB L1) read irregularly misses
        // less than a stream of doubles.
        f.reads[1].costs[2].footprint = 512;
        let m = attribute_miss(&f, 6, 0.75, None, &CacheGeometry::default(), &no_footprints);
        assert!(share(&m.loop_access, 2) < share(&m.loop_access, 1));
        // Summaries without access patterns: weight 1, the loop shares.
        f.reads[1].costs.clear();
        let m = attribute_miss(&f, 6, 0.75, None, &CacheGeometry::default(), &no_footprints);
        assert_eq!(m.loop_access, m.loop_adjusted);
    }

    /// Figure 5.1 as the static pass records it (blame-static's golden
    /// test): line 5 reads `x[N-1]`, line 7 reads `y[N-2]` with `y` an alias
    /// of `x`. Direct attribution names the block `x` (it receives the
    /// malloc on line 4); the approximation used to blame `y` for line 7.
    #[test]
    fn reads_through_an_alias_count_for_the_allocated_variable() {
        let mut x = var("x", VarKind::Local, None, None, false, &[]);
        x.is_pointer = true;
        x.line = 4;
        x.write_lines = vec![4];
        x.aliases = vec![2];
        let mut y = var("y", VarKind::Local, None, None, false, &[]);
        y.is_pointer = true;
        y.line = 6;
        y.write_lines = vec![6];
        y.aliases = vec![0];
        let z = var("z", VarKind::Local, None, None, false, &[]);
        let mut f = func(
            "f",
            vec![x, z, y],
            vec![CallSite {
                line: 4,
                column: 20,
                callee: Some("malloc".into()),
                arg_count: 1,
                outputs: vec![OutputBinding {
                    output: CallOutput::Return,
                    blamed: vec![0, 2],
                    pointees: vec![],
                    field: String::new(),
                    explicit: vec![0, 2],
                }],
                model: Some(vec![CallOutput::Return]),
            }],
        );
        let read = |variable, c| MemRead {
            variable,
            index: ReadIndex::Const(c),
        };
        f.reads = vec![
            LineReads {
                line: 5,
                reads: vec![read(0, 15)],
                costs: vec![],
            },
            LineReads {
                line: 7,
                reads: vec![read(2, 14)],
                costs: vec![],
            },
        ];
        f.lines = vec![4, 5, 6, 7, 8];
        assert_eq!(canonical_variable(&f, 2), 0);
        assert_eq!(canonical_variable(&f, 1), 1);
        for line in [5, 7] {
            let m = attribute_miss(
                &f,
                line,
                0.75,
                None,
                &CacheGeometry::default(),
                &no_footprints,
            );
            assert_eq!(m.raw, vec![(0, 1.0)], "line {line}");
            assert_eq!(m.loop_adjusted, vec![(0, 1.0)], "line {line}");
        }
        // x[b] and an alias's y[b] on one line are one read.
        f.reads[1].reads = vec![read(2, 14), read(0, 14)];
        assert_eq!(reads_on_line(&f, 7), vec![read(0, 14)]);
    }

    /// `smvp(K, disp[t], ...)` followed by `vel[i] = disp[t][i] ...`: the
    /// binding of the argument lists `disp` and `vel`; only `disp` is read
    /// on the call's line, so a read through the parameter is `disp`'s.
    #[test]
    fn a_read_through_a_parameter_lifts_to_the_variable_passed() {
        let mut disp = var("disp", VarKind::Global, None, None, true, &[]);
        disp.is_pointer = true;
        let mut vel = var("vel", VarKind::Global, None, None, true, &[]);
        vel.is_pointer = true;
        let t = var("t", VarKind::Local, None, None, false, &[]);
        let mut f = func("time_step", vec![disp, vel, t], vec![]);
        f.reads = vec![
            LineReads {
                line: 10,
                reads: vec![
                    MemRead {
                        variable: 0,
                        index: ReadIndex::Var(2),
                    },
                    MemRead {
                        variable: 2,
                        index: ReadIndex::None,
                    },
                ],
                costs: vec![],
            },
            LineReads {
                line: 12,
                reads: vec![MemRead {
                    variable: 0,
                    index: ReadIndex::Var(2),
                }],
                costs: vec![],
            },
        ];
        assert_eq!(passed_variables(&f, 10, &[0, 1]), vec![0]);
        // Nothing of the candidates read on the line (an array argument): all stay.
        assert_eq!(passed_variables(&f, 11, &[0, 1]), vec![0, 1]);
    }

    /// Without an allocation in the class, a parameter names it (the
    /// caller's variable is reached through the call stack).
    #[test]
    fn an_alias_class_without_allocation_is_named_by_its_parameter() {
        let mut p = var("p", VarKind::Param, None, Some(0), true, &[]);
        p.aliases = vec![1];
        p.line = 1;
        let mut q = var("q", VarKind::Local, None, None, false, &[]);
        q.aliases = vec![0];
        q.line = 2;
        let f = func("g", vec![p, q], vec![]);
        assert_eq!(canonical_variable(&f, 1), 0);
        assert_eq!(canonical_variable(&f, 0), 0);
    }

    /// A window across inline instances (`locate(ax, density[c], ..)`
    /// inlined): the caller's line loads `density[c]` (a stream), the
    /// callee's line reads the axis struct through a pointer (a fixed
    /// address). Read each in its own function, the stream takes nearly all
    /// of the miss; one part alone is the single-function methods.
    #[test]
    fn windows_over_several_functions_weigh_all_their_reads_together() {
        let read = |variable| MemRead {
            variable,
            index: ReadIndex::None,
        };
        let cost = |reuse| ReadCost {
            reuse,
            footprint: 0,
            outer: Default::default(),
            sweep: 0,
            swept_before: false,
        };
        let mut caller = func(
            "sweep",
            vec![
                var("density", VarKind::Local, None, None, false, &[]),
                var("c", VarKind::Local, None, None, false, &[]),
            ],
            vec![],
        );
        caller.reads = vec![LineReads {
            line: 49,
            reads: vec![read(0), read(1)],
            costs: vec![cost(Reuse::Stride(8)), cost(Reuse::Fixed)],
        }];
        caller.lines = vec![47, 49];
        let mut callee = func(
            "locate",
            vec![var("ax", VarKind::Param, None, Some(0), true, &[])],
            vec![],
        );
        callee.reads = vec![LineReads {
            line: 26,
            reads: vec![read(0)],
            costs: vec![cost(Reuse::Fixed)],
        }];
        callee.lines = vec![26];
        let cache = CacheGeometry::default();
        let parts = [
            WindowPart {
                f: &callee,
                lines: vec![(26, 0.5)],
                footprint_of: &no_footprints,
            },
            WindowPart {
                f: &caller,
                lines: vec![(49, 0.5)],
                footprint_of: &no_footprints,
            },
        ];
        let s = skid_parts(&parts, 0.75, &cache);
        // Skid negation: three reads at 1/2 each, normalized.
        assert_eq!(s[0].skid, vec![(0, 1.0 / 3.0)]);
        assert_eq!(s[1].skid, vec![(0, 1.0 / 3.0), (1, 1.0 / 3.0)]);
        // Access weights: only the stream can miss.
        assert!(s[0].skid_loop_access[0].1.abs() < 1e-12, "{s:?}");
        assert!((s[1].skid_loop_access[0].1 - 1.0).abs() < 1e-12, "{s:?}");
        // One part is attribute_miss's skid methods.
        let window = SkidWindow {
            lines: vec![(49, 1.0)],
            ..Default::default()
        };
        let one = attribute_miss(&caller, 49, 0.75, Some(&window), &cache, &no_footprints);
        let alone = skid_parts(&parts[1..], 0.75, &cache);
        assert_eq!(alone[0].skid, one.skid);
        assert_eq!(alone[0].skid_loop, one.skid_loop);
        assert_eq!(alone[0].skid_loop_access, one.skid_loop_access);
    }
}
