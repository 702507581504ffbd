//! Access patterns of reads (extends ch. 5's read table): how a load's
//! address moves across iterations of the innermost loop around it, the
//! reference classes of a locality model (a fixed or loop-invariant address
//! is reused, a short stride reuses each cache line, an index loaded from
//! memory is irregular). Post-processing weighs a line's reads with it, so
//! `sum += val[k] * x[col[k]]` gives the gather `x[col[k]]` more of the
//! line's misses than the streams `val[k]`, `col[k]` and nothing to `sum`.
//!
//! Strides are found on the IR as written: a scalar slot stored in the loop
//! only as `v = v ± C` (`i++`, `p++`) advances by C per iteration, a phi of
//! the loop header updated that way likewise (optimized IR), anything
//! defined outside the loop is invariant, and address arithmetic (GEPs,
//! adds, multiplications by constants) combines strides in bytes.

use crate::cfg::Cfg;
use crate::ir::strip_casts;
use crate::ir::{BinCode, Function, GepStep, InstId, Module, Op, Value};
use crate::{HashMap, HashSet};
use blame_formats::static_db::{OuterReuse, ReadCost, Reuse};
use std::cell::{OnceCell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

/// A scalar slot: an alloca or a global, plus a constant byte offset.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
enum Slot {
    Stack(InstId, i64),
    Global(u32, i64),
}

/// Stride of a value across iterations of one loop: `Some(step)` in the
/// value's own units (bytes for pointers), `None` when irregular.
type Stride = Option<i64>;

/// (instruction, loop, inner loop taken as restarting, or `u32::MAX`):
/// 12 bytes, as the memo holds an entry per instruction and loop of a
/// function.
type StrideKey = (InstId, u32, u32);

/// The step of each counter of a loop (see [`AccessPatterns::counter_steps`]).
type Steps = Rc<BTreeMap<Slot, i64>>;

/// A value an address polynomial does not decompose: a scalar slot as
/// loaded (a counter, a size, a pointer), an argument, a global's address,
/// any other instruction.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
enum Atom {
    Slot(Slot),
    Arg(u32),
    Global(u32),
    Inst(InstId),
    /// A counter of step ±1 of a loop, standing for whichever slot counts
    /// it: two loops over the same range in passes one after the other
    /// (`for (int j ..) c[i][j] *= beta; .. for (int j ..) c[i][j] += ..`)
    /// touch the same addresses although each counts with its own `j`.
    Counter(i64),
}

/// An address (or index) as a polynomial over atoms: monomial (sorted
/// atoms) to coefficient, zero coefficients absent. `p[(i - 1) * n + j]`
/// of doubles is `8·p⁰ ... `: `{[p]: 1, [i, n]: 8, [n]: -8, [j]: 8}`.
type Poly = std::collections::BTreeMap<Vec<Atom>, i64>;

/// Bounds that keep address polynomials small.
const MAX_TERMS: usize = 16;
const MAX_DEGREE: usize = 4;

/// Strides kept in [`AccessPatterns::memo`] before it starts afresh: an
/// address shares subexpressions with the addresses read just before it,
/// not with the whole function's (a function of 840k instructions kept
/// 2M strides, 100 MB).
const MAX_MEMO: usize = 1 << 16;

/// How many iterations back another access may have touched a read's
/// data for the read to count as reusing it (`p[j - 1]` after `p[j] = ..`).
const RECENT_ITERATIONS: i64 = 2;

/// Access-pattern analysis of one function.
pub struct AccessPatterns<'a> {
    m: &'a Module,
    f: &'a Function,
    cfg: &'a Cfg,
    /// Per loop, the values stored into each scalar slot inside it.
    stores: Vec<HashMap<Slot, Vec<Value>>>,
    /// Stack slots stored exactly once in the function, from arithmetic
    /// that does not read them, and only loaded and stored
    /// (`int c = j * nx + i`, `p = &bank[i]`): an address polynomial reads
    /// the arithmetic for the slot, so its counters shift. A slot stored
    /// from a constant, an argument or a call stays an atom (a size known
    /// at run time).
    defined_once: HashMap<Slot, Value>,
    /// Strides already computed, per (instruction, loop, restarting
    /// loop): address expressions share subexpressions, so each is walked once.
    memo: RefCell<HashMap<StrideKey, Stride>>,
    /// While computing a stride across iterations of an enclosing loop: the
    /// inner loop whose counters restart each iteration (taken as unchanged).
    restart: std::cell::Cell<Option<usize>>,
    /// The innermost loop of each block.
    innermost: Vec<Option<usize>>,
    /// Each instruction's position in its block.
    position: Vec<u32>,
    /// Stores outside loops by address, for [`Self::written_before`]
    /// (made on first use).
    outside: OnceCell<Accesses>,
    /// Per loop, the accesses of its own blocks by address and shifted
    /// address, for [`Self::recently_touched`] (made on first use).
    touched: RefCell<HashMap<usize, Rc<Accesses>>>,
    /// [`Self::counter_steps`] per (loop, restarting loop).
    steps: RefCell<HashMap<(usize, Option<usize>), Steps>>,
    /// [`Self::counter_step`] per (slot, loop).
    counters: RefCell<HashMap<(Slot, usize), Stride>>,
    /// [`Self::trip`] per loop.
    trips: RefCell<HashMap<usize, Option<(Atom, i64)>>>,
    /// The loops of each loop (`None`: of the function's body), for
    /// [`Self::swept_before`].
    children: HashMap<Option<usize>, Vec<usize>>,
    /// [`Self::sweeps_of`] per loop.
    sweeps: RefCell<HashMap<usize, Rc<HashSet<Sweep>>>>,
}

/// What one pass of an innermost loop touches, for comparing passes of
/// different loops: an access's address with the loop's counters of step
/// ±1 as [`Atom::Counter`], and the bound the loop's header compares its
/// counter with.
type Sweep = (Poly, Poly);

/// The loads and stores of one region (a loop's own blocks, or the code
/// outside loops) grouped by address polynomial, with the addresses each
/// group touched one or two iterations earlier, so that a read finds the
/// accesses it reuses by lookup instead of comparing with every access of
/// the region (which was quadratic in the region's size).
#[derive(Default)]
struct Accesses {
    groups: Vec<Group>,
    by_poly: HashMap<Poly, u32>,
    /// Fingerprint of a shifted address (see [`shifts`]) to the groups and
    /// shifts that give it; checked exactly on lookup.
    shifted: HashMap<u64, Vec<(u32, u8)>>,
}

/// The accesses of one address polynomial in a region.
struct Group {
    poly: Poly,
    /// The first access, and whether there are others.
    first: InstId,
    several: bool,
    /// Stores: per block the first store's position, and the dominator
    /// intervals of the blocks holding one (sorted by entry number, with the
    /// running maximum of exit numbers).
    first_store: HashMap<u32, u32>,
    store_blocks: Vec<(u32, u32)>,
}

fn fingerprint(p: &Poly) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    p.hash(&mut h);
    h.finish()
}

impl<'a> AccessPatterns<'a> {
    pub fn new(m: &'a Module, f: &'a Function, cfg: &'a Cfg) -> AccessPatterns<'a> {
        let mut ap = AccessPatterns {
            m,
            f,
            cfg,
            stores: Vec::new(),
            defined_once: HashMap::default(),
            memo: RefCell::new(HashMap::default()),
            restart: std::cell::Cell::new(None),
            innermost: cfg.innermost_loop_of_blocks(f.blocks.len()),
            position: vec![0; f.insts.len()],
            outside: OnceCell::new(),
            touched: RefCell::new(HashMap::default()),
            steps: RefCell::new(HashMap::default()),
            counters: RefCell::new(HashMap::default()),
            trips: RefCell::new(HashMap::default()),
            children: HashMap::default(),
            sweeps: RefCell::new(HashMap::default()),
        };
        for (li, l) in cfg.loops.iter().enumerate() {
            ap.children.entry(l.parent).or_default().push(li);
        }
        for b in &f.blocks {
            for (k, &i) in b.insts.iter().enumerate() {
                if let Some(p) = ap.position.get_mut(i as usize) {
                    *p = k as u32;
                }
            }
        }
        let mut stores = vec![HashMap::default(); cfg.loops.len()];
        for (li, l) in cfg.loops.iter().enumerate() {
            for &b in &l.blocks {
                for &i in &f.blocks[b as usize].insts {
                    let inst = &f.insts[i as usize];
                    if !matches!(inst.op, Op::Store) {
                        continue;
                    }
                    if let Some(slot) = ap.slot(&inst.args[1]) {
                        let list: &mut Vec<Value> = stores[li].entry(slot).or_default();
                        list.push(inst.args[0].clone());
                    }
                }
            }
        }
        ap.stores = stores;
        ap.defined_once = ap.slots_defined_once();
        ap
    }

    /// The access pattern of a load from `addr` (the load's address, or
    /// the element a scalar copies) per iteration of loop `innermost`, the
    /// innermost loop of the load's source line (post-processing weighs a
    /// line's reads against each other). A load of that line placed before
    /// the loop (a `for` header's initialization) runs once per entry to
    /// the loop, so it counts as invariant there.
    ///
    /// `at` is the load (of the element, for a copy): a read of what another
    /// access of the loop touched in the same iteration before it, or one or
    /// two iterations earlier (of the line's loop or of the loop around it),
    /// is [`Reuse::Recent`].
    pub fn cost(&self, addr: &Value, at: InstId, innermost: Option<usize>) -> ReadCost {
        let footprint = self.footprint(addr);
        let reuse = if self.slot(addr).is_some() {
            Reuse::Fixed
        } else {
            match innermost {
                None if self.written_before(addr, at) => Reuse::Recent,
                None => Reuse::NoLoop,
                Some(l) => match self.stride(addr, l, 0) {
                    Some(0) => Reuse::Invariant,
                    _ if self.recently_touched(addr, at, l) => Reuse::Recent,
                    Some(s) => self.row(addr, l, s).unwrap_or(Reuse::Stride(s)),
                    None => self.rows(addr, l).unwrap_or(Reuse::Irregular),
                },
            }
        };
        let outer = match innermost.and_then(|l| self.cfg.loops[l].parent.map(|p| (l, p))) {
            Some((l, parent)) if !matches!(reuse, Reuse::Fixed) => {
                self.restart.set(Some(l));
                let s = self.stride(addr, parent, 0);
                self.restart.set(None);
                match s {
                    Some(0) => OuterReuse::Same,
                    _ => OuterReuse::Moves,
                }
            }
            _ => OuterReuse::Unknown,
        };
        let (sweep, swept_before) = match (reuse, innermost) {
            (Reuse::Stride(s), Some(l)) => (self.sweep(addr, l, s), self.swept_before(addr, l)),
            (Reuse::Row { stride, .. }, Some(l)) => (
                self.sweep(addr, l, i64::from(stride)),
                self.swept_before(addr, l),
            ),
            _ => (0, false),
        };
        ReadCost {
            reuse,
            outer,
            footprint,
            sweep,
            swept_before,
        }
    }

    /// The bytes one sweep of loop `l` spans for an address advancing by
    /// `s` bytes per iteration (0: not known): the stride times the bound
    /// of a loop whose header compares its counter with a constant (`j <
    /// 96`, a counter taken to start at 0 or above), else the pitch of the
    /// row it runs along, the smallest constant coefficient larger than the
    /// stride of a counter of an enclosing loop (`c[i][j]` of a `double
    /// (*c)[96]` spans one row of 768 bytes however far `j` runs); the
    /// smaller of the two when both are known.
    fn sweep(&self, addr: &Value, l: usize, s: i64) -> u64 {
        let s = s.unsigned_abs();
        let by_trip = self
            .constant_bound(l)
            .filter(|&b| b > 0)
            .map(|b| b.unsigned_abs().saturating_mul(s));
        let by_row = self.poly(addr, 0).and_then(|p| {
            let mut pitch: Option<u64> = None;
            let mut outer = self.cfg.loops[l].parent;
            while let Some(o) = outer {
                let counters = self.counter_steps(o, None);
                for (m, c) in &p {
                    let [Atom::Slot(x)] = m[..] else { continue };
                    let unit = counters.get(&x).is_some_and(|&st| st == 1 || st == -1);
                    if unit && c.unsigned_abs() > s {
                        pitch = Some(pitch.map_or(c.unsigned_abs(), |q| q.min(c.unsigned_abs())));
                    }
                }
                outer = self.cfg.loops[o].parent;
            }
            pitch
        });
        match (by_trip, by_row) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => 0,
        }
    }

    /// Whether loops that run before the nest of loop `l` in the same
    /// iteration of an enclosing loop (or of the function's body) touched
    /// the read's addresses over the same range: a pass that rescales,
    /// zeroes or normalises an output in place before the nest accumulates
    /// into it (`c[i][j] *= beta` over the row, then `c[i][j] += a[i][k] *
    /// b[k][j]` for every k). Those are the loops before `l`, or before a
    /// loop around `l`, among the loops of the same parent whose header
    /// dominates it. Each loop's counters of step ±1 are compared as one
    /// ([`Atom::Counter`]) and the bounds their headers compare them with
    /// must be equal (where the counters start is not compared: a pass from
    /// 1 and one from 0 count as the same range). Whether the data is still
    /// in the cache then depends on the sweep's size against the cache's
    /// (post-processing's call).
    fn swept_before(&self, addr: &Value, l: usize) -> bool {
        let Some(key) = self.poly(addr, 0).and_then(|a| self.sweep_key(&a, l)) else {
            return false;
        };
        let mut child = l;
        loop {
            let parent = self.cfg.loops[child].parent;
            let header = self.cfg.loops[child].header;
            let earlier = self
                .children
                .get(&parent)
                .into_iter()
                .flatten()
                .filter(|&&s| s != child && self.cfg.dominates(self.cfg.loops[s].header, header));
            for &s in earlier {
                if self.sweeps_of(s).contains(&key) {
                    return true;
                }
            }
            match parent {
                Some(p) => child = p,
                None => return false,
            }
        }
    }

    /// The sweeps of the accesses (loads and stores through pointers, not
    /// scalar slots) of loop `l` and the loops in it, each in its own
    /// innermost loop (see [`Sweep`]).
    fn sweeps_of(&self, l: usize) -> Rc<HashSet<Sweep>> {
        if let Some(known) = self.sweeps.borrow().get(&l) {
            return known.clone();
        }
        let mut out = HashSet::default();
        for &b in &self.cfg.loops[l].blocks {
            let Some(inner) = self.innermost.get(b as usize).copied().flatten() else {
                continue;
            };
            for &i in &self.f.blocks[b as usize].insts {
                let inst = &self.f.insts[i as usize];
                let addr = match inst.op {
                    Op::Load => &inst.args[0],
                    Op::Store => &inst.args[1],
                    _ => continue,
                };
                if self.slot(addr).is_some() {
                    continue;
                }
                if let Some(key) = self.poly(addr, 0).and_then(|p| self.sweep_key(&p, inner)) {
                    out.insert(key);
                }
            }
        }
        let out = Rc::new(out);
        self.sweeps.borrow_mut().insert(l, out.clone());
        out
    }

    /// `p` as a [`Sweep`] of loop `l`: `None` when the loop has no bound
    /// or `p` does not move with a counter of step ±1 of the loop.
    fn sweep_key(&self, p: &Poly, l: usize) -> Option<Sweep> {
        let bound = self.header_bound(l)?;
        let steps = self.counter_steps(l, None);
        let mut moved = false;
        let mut out = Poly::new();
        for (m, c) in p {
            let mut m: Vec<Atom> = m
                .iter()
                .map(|a| match a {
                    Atom::Slot(x) => match steps.get(x) {
                        Some(&st) if st == 1 || st == -1 => {
                            moved = true;
                            Atom::Counter(st)
                        }
                        _ => *a,
                    },
                    _ => *a,
                })
                .collect();
            m.sort_unstable();
            out = poly_add(&out, &Poly::from([(m, *c)]), 1)?;
        }
        moved.then_some((out, bound))
    }

    /// Outside loops: whether a store outside loops wrote `addr` before the
    /// load `at` on every path to it (earlier in its block, or in a block
    /// that dominates it): `xsout[0] *= f` after `xsout[0] = ...` in the
    /// same call reads data just written.
    fn written_before(&self, addr: &Value, at: InstId) -> bool {
        let Some(a) = self.poly(addr, 0) else {
            return false;
        };
        let outside = self.outside.get_or_init(|| self.region(None));
        outside
            .by_poly
            .get(&a)
            .is_some_and(|&g| self.stored_before(&outside.groups[g as usize], at))
    }

    /// Whether a store of group `g` comes before the load `at` on every
    /// path to it: earlier in its block, or in a block that dominates it.
    fn stored_before(&self, g: &Group, at: InstId) -> bool {
        let b = self.f.insts[at as usize].block;
        if g.first_store
            .get(&b)
            .is_some_and(|&p| p < self.position[at as usize])
        {
            return true;
        }
        let Some((pre, post)) = self.cfg.dom_interval(b) else {
            return false;
        };
        // Blocks entered before `b` in the dominator tree: one of them
        // dominates `b` when the latest exit among them is after `b`'s.
        let k = g.store_blocks.partition_point(|&(p, _)| p < pre);
        k > 0 && g.store_blocks[k - 1].1 >= post
    }

    /// The accesses (loads and stores through pointers, not scalar slots) of
    /// the own blocks of loop `l` (not of loops nested in it), or the stores
    /// outside loops, grouped by address; for a loop, with the addresses
    /// each group touched one or two iterations earlier.
    fn region(&self, l: Option<usize>) -> Accesses {
        let mut acc = Accesses::default();
        let mut add = |i: InstId, store: bool| {
            let inst = &self.f.insts[i as usize];
            let other = if store { &inst.args[1] } else { &inst.args[0] };
            if self.slot(other).is_some() {
                return;
            }
            let Some(o) = self.poly(other, 0) else { return };
            let next = acc.groups.len() as u32;
            let g = *acc.by_poly.entry(o.clone()).or_insert(next);
            if g == next {
                acc.groups.push(Group {
                    poly: o,
                    first: i,
                    several: false,
                    first_store: HashMap::default(),
                    store_blocks: Vec::new(),
                });
            } else {
                acc.groups[g as usize].several = true;
            }
            if store {
                let group = &mut acc.groups[g as usize];
                group
                    .first_store
                    .entry(inst.block)
                    .or_insert(self.position[i as usize]);
                if let Some(interval) = self.cfg.dom_interval(inst.block) {
                    group.store_blocks.push(interval);
                }
            }
        };
        let in_region = |b: u32| self.innermost.get(b as usize).copied().flatten() == l;
        match l {
            None => {
                for (i, inst) in self.f.insts.iter().enumerate() {
                    if matches!(inst.op, Op::Store) && in_region(inst.block) {
                        add(i as InstId, true);
                    }
                }
            }
            Some(l) => {
                for &b in &self.cfg.loops[l].blocks {
                    if !in_region(b) {
                        continue;
                    }
                    for &i in &self.f.blocks[b as usize].insts {
                        match self.f.insts[i as usize].op {
                            Op::Load => add(i, false),
                            Op::Store => add(i, true),
                            _ => {}
                        }
                    }
                }
            }
        }
        for g in &mut acc.groups {
            g.store_blocks.sort_unstable();
            g.store_blocks.dedup();
            let mut latest = 0;
            for (_, post) in &mut g.store_blocks {
                latest = latest.max(*post);
                *post = latest;
            }
        }
        if let Some(l) = l {
            let (inner, outer) = self.shift_steps(l);
            for (k, g) in acc.groups.iter().enumerate() {
                for (code, q) in shifts(&g.poly, &inner, outer.as_deref()) {
                    let list = acc.shifted.entry(fingerprint(&q)).or_default();
                    list.push((k as u32, code));
                }
            }
        }
        acc
    }

    /// The counters of loop `l` and of the loop around it (whose inner
    /// counters restart), with their steps.
    fn shift_steps(&self, l: usize) -> (Steps, Option<Steps>) {
        let inner = self.counter_steps(l, None);
        let outer = self.cfg.loops[l]
            .parent
            .map(|p| self.counter_steps(p, Some(l)));
        (inner, outer)
    }

    /// Whether a store of loop `l` (in its own blocks, not in loops nested
    /// in it) writes `addr` before the load `at` in the same iteration, or
    /// another load or store touched it one or two iterations earlier of `l` or of
    /// the loop around `l` (whose inner counters restart): the group and
    /// write-read reuse of a locality model (`q[j - 1]` after `q[j] = ..`,
    /// `u[i - 1][j]` after `u[i + 1][j]` two rows ago). Compared as
    /// polynomials of the addresses, counters shifted by their steps.
    ///
    /// (A load of the same address on an earlier line is not taken: which
    /// of a group's reads takes its lines needs the group's spatial reuse,
    /// not modeled; equake's `v[col][0]` on three lines. Only accesses that
    /// move with the loop count: a sweep repeated in every iteration of the
    /// outer loop is reused across a whole inner sweep, which the footprints
    /// weigh.)
    fn recently_touched(&self, addr: &Value, at: InstId, l: usize) -> bool {
        let Some(a) = self.poly(addr, 0) else {
            return false;
        };
        let known = self.touched.borrow().get(&l).cloned();
        let acc = known.unwrap_or_else(|| {
            let acc = Rc::new(self.region(Some(l)));
            self.touched.borrow_mut().insert(l, acc.clone());
            acc
        });
        // Written earlier in the same iteration.
        if let Some(&g) = acc.by_poly.get(&a) {
            if self.stored_before(&acc.groups[g as usize], at) {
                return true;
            }
        }
        // Touched one or two iterations earlier (of the outer loop, within
        // two of the inner one: `u[i][j + 1]` was read as `u[i + 1][j + 1]`
        // a row before).
        let Some(candidates) = acc.shifted.get(&fingerprint(&a)) else {
            return false;
        };
        let (inner, outer) = self.shift_steps(l);
        candidates.iter().any(|&(g, code)| {
            let g = &acc.groups[g as usize];
            (g.several || g.first != at)
                && shifts(&g.poly, &inner, outer.as_deref()).any(|(c, q)| c == code && q == a)
        })
    }

    /// [`Reuse::Rows`]: the address advances by `b·n` bytes per iteration
    /// of loop `l` (`n` a value the loop does not change, `b` a constant)
    /// and the loop runs `a·n` times (see [`Self::trip`]).
    fn rows(&self, addr: &Value, l: usize) -> Option<Reuse> {
        let steps = self.counter_steps(l, None);
        let p = self.poly(addr, 0)?;
        let delta = poly_add(&shifted(&p, &steps, 1), &p, -1)?;
        let terms: Vec<(Vec<Atom>, i64)> = delta.into_iter().collect();
        let [(stride_atoms, b)] = &terms[..] else {
            return None;
        };
        let (&[n], b) = (&stride_atoms[..], *b) else {
            return None;
        };
        let (trip_atom, a) = self.trip(l)?;
        (trip_atom == n).then_some(())?;
        Some(Reuse::Rows {
            trip: u32::try_from(a).ok()?,
            stride: u32::try_from(b.unsigned_abs()).ok()?,
        })
    }

    /// [`Reuse::Row`]: a constant stride `s` over a loop of `a·n`
    /// iterations, in an address with a term `pitch·n·c` where `c` counts an
    /// enclosing loop of `a'·n` iterations (a row of a matrix indexed
    /// `c * n + j`): the object holds at least `pitch·a'·n²` bytes.
    fn row(&self, addr: &Value, l: usize, s: i64) -> Option<Reuse> {
        let (n, a) = self.trip(l)?;
        let p = self.poly(addr, 0)?;
        let mut outer = self.cfg.loops[l].parent;
        while let Some(o) = outer {
            let (on, oa) = self.trip(o)?;
            let counters = self.counter_steps(o, None);
            let pitch = p.iter().find_map(|(m, c)| match m[..] {
                [x, y]
                    if (x == n && matches!(y, Atom::Slot(v) if counters.contains_key(&v)))
                        || (y == n && matches!(x, Atom::Slot(v) if counters.contains_key(&v))) =>
                {
                    Some(*c)
                }
                _ => None,
            });
            if let (Some(pitch), true) = (pitch, on == n) {
                return Some(Reuse::Row {
                    stride: i32::try_from(s).ok()?,
                    trip: u32::try_from(a).ok()?,
                    pitch: u32::try_from(pitch.checked_mul(oa)?.unsigned_abs()).ok()?,
                });
            }
            outer = self.cfg.loops[o].parent;
        }
        None
    }

    /// The trip count of loop `l` as `a·n`: its header compares a counter of
    /// step ±1 with `a·n` plus a constant, `n` a value the loop does not
    /// change.
    fn trip(&self, l: usize) -> Option<(Atom, i64)> {
        if let Some(known) = self.trips.borrow().get(&l) {
            return *known;
        }
        let t = self.trip_of(l);
        self.trips.borrow_mut().insert(l, t);
        t
    }

    fn trip_of(&self, l: usize) -> Option<(Atom, i64)> {
        let steps = self.counter_steps(l, None);
        let bound = self.header_bound(l)?;
        let terms: Vec<(&Vec<Atom>, &i64)> = bound.iter().filter(|(m, _)| !m.is_empty()).collect();
        let [(m, &a)] = terms[..] else { return None };
        let &[n] = &m[..] else { return None };
        if matches!(n, Atom::Slot(s) if steps.contains_key(&s)) || a <= 0 {
            return None;
        }
        Some((n, a))
    }

    /// The constant loop `l`'s header compares a counter of step ±1 with
    /// (`j < 96`), when it is one.
    fn constant_bound(&self, l: usize) -> Option<i64> {
        match self.header_bound(l)?.into_iter().collect::<Vec<_>>()[..] {
            [(ref m, c)] if m.is_empty() => Some(c),
            _ => None,
        }
    }

    /// What loop `l`'s header compares a counter of step ±1 with, as a
    /// polynomial.
    fn header_bound(&self, l: usize) -> Option<Poly> {
        let steps = self.counter_steps(l, None);
        let header = self.cfg.loops[l].header;
        let counter = |x: &Poly| match x.iter().collect::<Vec<_>>()[..] {
            [(m, 1)] => match m[..] {
                [Atom::Slot(s)] => steps.get(&s).is_some_and(|st| st.unsigned_abs() == 1),
                _ => false,
            },
            _ => false,
        };
        self.f.blocks[header as usize]
            .insts
            .iter()
            .map(|&i| &self.f.insts[i as usize])
            .filter(|inst| matches!(inst.op, Op::Compare) && inst.args.len() == 2)
            .find_map(|inst| {
                let (x, y) = (self.poly(&inst.args[0], 0)?, self.poly(&inst.args[1], 0)?);
                if counter(&x) {
                    Some(y)
                } else if counter(&y) {
                    Some(x)
                } else {
                    None
                }
            })
    }

    /// The step of every slot loop `l` stores (`restart`: an inner loop
    /// whose counters restart each iteration, taken as unchanged): a
    /// counter's step, `i64::MIN` for a slot that is not a counter (its
    /// value per iteration is not known).
    fn counter_steps(&self, l: usize, restart: Option<usize>) -> Steps {
        if let Some(known) = self.steps.borrow().get(&(l, restart)) {
            return known.clone();
        }
        let steps = Rc::new(self.counter_steps_of(l, restart));
        self.steps.borrow_mut().insert((l, restart), steps.clone());
        steps
    }

    fn counter_steps_of(&self, l: usize, restart: Option<usize>) -> BTreeMap<Slot, i64> {
        let mut out = BTreeMap::new();
        for &slot in self.stores[l].keys() {
            if restart.is_some_and(|inner| self.stores[inner].contains_key(&slot)) {
                continue;
            }
            match self.counter_step(slot, l) {
                Some(0) => {}
                Some(step) => {
                    out.insert(slot, step);
                }
                None => {
                    out.insert(slot, i64::MIN);
                }
            }
        }
        out
    }

    /// Stack slots with one store in the function whose value does not read
    /// the slot, used only by loads and stores (see `defined_once`).
    fn slots_defined_once(&self) -> HashMap<Slot, Value> {
        let f = self.f;
        let mut stores: HashMap<InstId, Vec<Value>> = HashMap::default();
        let mut other_use: HashSet<InstId> = Default::default();
        for inst in &f.insts {
            for (pos, a) in inst.args.iter().enumerate() {
                let Value::Inst(j) = a else { continue };
                if !matches!(f.insts[*j as usize].op, Op::Alloca { .. }) {
                    continue;
                }
                match (&inst.op, pos) {
                    (Op::Load, 0) | (Op::DbgDeclare { .. }, _) => {}
                    (Op::Store, 1) => stores.entry(*j).or_default().push(inst.args[0].clone()),
                    _ => {
                        other_use.insert(*j);
                    }
                }
            }
        }
        stores
            .into_iter()
            .filter(|(a, _)| !other_use.contains(a))
            .filter_map(|(a, values)| {
                let [v] = values.as_slice() else { return None };
                let slot = Slot::Stack(a, 0);
                let Value::Inst(x) = strip_casts(f, v) else {
                    return None;
                };
                let arithmetic =
                    matches!(f.insts[x as usize].op, Op::Binary { .. } | Op::Gep { .. });
                (arithmetic && !self.reads_slot(v, slot)).then(|| (slot, v.clone()))
            })
            .collect()
    }

    /// `v` as a polynomial of atoms (see [`Poly`]); `None` when too large.
    fn poly(&self, v: &Value, depth: u32) -> Option<Poly> {
        let atom = |a: Atom| Some(Poly::from([(vec![a], 1)]));
        if depth > 24 {
            return None;
        }
        let d = depth + 1;
        match v {
            Value::ConstInt(0) => Some(Poly::new()),
            Value::ConstInt(c) => Some(Poly::from([(vec![], *c)])),
            Value::Arg(k) => atom(Atom::Arg(*k)),
            Value::Global(g) => atom(Atom::Global(*g)),
            Value::Inst(i) => {
                let inst = &self.f.insts[*i as usize];
                let args = &inst.args;
                match &inst.op {
                    Op::Cast => self.poly(&args[0], d),
                    Op::Load => match self.slot(&args[0]) {
                        Some(slot) => match self.defined_once.get(&slot) {
                            Some(value) => self.poly(value, d),
                            None => atom(Atom::Slot(slot)),
                        },
                        None => atom(Atom::Inst(*i)),
                    },
                    Op::Binary { code } => {
                        let (x, y) = (|| self.poly(&args[0], d), || self.poly(&args[1], d));
                        match code {
                            BinCode::Add => poly_add(&x()?, &y()?, 1),
                            BinCode::Sub => poly_add(&x()?, &y()?, -1),
                            BinCode::Mul => poly_mul(&x()?, &y()?),
                            BinCode::Shl => match &args[1] {
                                Value::ConstInt(c) if (0..32).contains(c) => {
                                    poly_mul(&x()?, &Poly::from([(vec![], 1i64 << c)]))
                                }
                                _ => atom(Atom::Inst(*i)),
                            },
                            BinCode::Other => atom(Atom::Inst(*i)),
                        }
                    }
                    Op::Gep { steps, elem_size } => {
                        let mut total = self.poly(&args[0], d)?;
                        let scaled = |idx: Option<&Value>, size: u64| -> Option<Poly> {
                            match idx {
                                None => Some(Poly::new()),
                                Some(x) => poly_mul(
                                    &self.poly(x, d)?,
                                    &Poly::from([(vec![], i64::try_from(size).ok()?)]),
                                ),
                            }
                        };
                        total = poly_add(&total, &scaled(args.get(1), *elem_size)?, 1)?;
                        for s in steps {
                            let term = match s {
                                GepStep::Field { offset, .. } => {
                                    Poly::from([(vec![], i64::try_from(*offset).ok()?)])
                                }
                                GepStep::Index { arg, elem_size } => {
                                    scaled(args.get(*arg as usize), *elem_size)?
                                }
                            };
                            total = poly_add(&total, &term, 1)?;
                        }
                        Some(total)
                    }
                    _ => atom(Atom::Inst(*i)),
                }
            }
            _ => None,
        }
    }

    /// The fixed slot an address names, when no pointer is loaded on the
    /// way (casts and constant GEPs of an alloca or a global).
    fn slot(&self, addr: &Value) -> Option<Slot> {
        let mut v = addr.clone();
        let mut offset = 0i64;
        for _ in 0..32 {
            match v {
                Value::Global(g) => return Some(Slot::Global(g, offset)),
                Value::Inst(i) => {
                    let inst = &self.f.insts[i as usize];
                    match &inst.op {
                        Op::Alloca { .. } => return Some(Slot::Stack(i, offset)),
                        Op::Cast => v = inst.args[0].clone(),
                        Op::Gep { steps, elem_size } => {
                            offset += const_offset(&inst.args, steps, *elem_size)?;
                            v = inst.args[0].clone();
                        }
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
        None
    }

    /// Bytes of the global or stack object the address lies in, when it is
    /// named directly (0 when reached through a pointer or unknown).
    fn footprint(&self, addr: &Value) -> u64 {
        let mut v = addr.clone();
        for _ in 0..32 {
            match v {
                Value::Global(g) => return self.m.globals.get(g as usize).map_or(0, |g| g.size),
                Value::Inst(i) => {
                    let inst = &self.f.insts[i as usize];
                    match &inst.op {
                        Op::Alloca { size } => return *size,
                        Op::Cast | Op::Gep { .. } => v = inst.args[0].clone(),
                        _ => return 0,
                    }
                }
                _ => return 0,
            }
        }
        0
    }

    fn in_loop(&self, i: InstId, l: usize) -> bool {
        let b = self.f.insts[i as usize].block;
        self.cfg.loops[l].blocks.binary_search(&b).is_ok()
    }

    /// How `v` changes per iteration of loop `l`.
    fn stride(&self, v: &Value, l: usize, depth: u32) -> Stride {
        let Value::Inst(i) = v else {
            return Some(0); // constants, globals, arguments
        };
        if depth > 32 {
            return None;
        }
        if !self.in_loop(*i, l) {
            return Some(0); // computed before the loop
        }
        let key = (
            *i,
            l as u32,
            self.restart.get().map_or(u32::MAX, |r| r as u32),
        );
        if let Some(&known) = self.memo.borrow().get(&key) {
            return known;
        }
        let s = self.inst_stride(*i, l, depth);
        let mut memo = self.memo.borrow_mut();
        if memo.len() >= MAX_MEMO {
            memo.clear();
        }
        memo.insert(key, s);
        s
    }

    /// [`Self::stride`] of instruction `i` inside loop `l`.
    fn inst_stride(&self, i: InstId, l: usize, depth: u32) -> Stride {
        let d = depth + 1;
        let inst = &self.f.insts[i as usize];
        let args = &inst.args;
        let invariant_args = |this: &Self| {
            if args.iter().all(|a| this.stride(a, l, d) == Some(0)) {
                Some(0)
            } else {
                None
            }
        };
        match &inst.op {
            Op::Alloca { .. } => Some(0),
            Op::Cast => self.stride(&args[0], l, d),
            Op::Load => match self.slot(&args[0]) {
                Some(slot) => self.slot_stride(slot, l, d),
                // Memory at an invariant address is taken as unchanged.
                None if self.stride(&args[0], l, d) == Some(0) => Some(0),
                None => None,
            },
            Op::Binary { code } => {
                let a = || self.stride(&args[0], l, d);
                let b = || self.stride(&args[1], l, d);
                match code {
                    BinCode::Add => a()?.checked_add(b()?),
                    BinCode::Sub => a()?.checked_sub(b()?),
                    BinCode::Mul => match (&args[0], &args[1]) {
                        (Value::ConstInt(c), x) | (x, Value::ConstInt(c)) => {
                            self.stride(x, l, d)?.checked_mul(*c)
                        }
                        _ => invariant_args(self),
                    },
                    BinCode::Shl => match &args[1] {
                        Value::ConstInt(c) if (0..32).contains(c) => a()?.checked_mul(1i64 << c),
                        _ => invariant_args(self),
                    },
                    BinCode::Other => invariant_args(self),
                }
            }
            Op::Gep { steps, elem_size } => {
                let mut total = self.stride(&args[0], l, d)?;
                let mut terms = vec![(args.get(1), *elem_size)];
                for s in steps {
                    if let GepStep::Index { arg, elem_size } = s {
                        terms.push((args.get(*arg as usize), *elem_size));
                    }
                }
                for (idx, size) in terms {
                    let Some(idx) = idx else { continue };
                    let s = self.stride(idx, l, d)?;
                    if s != 0 && size == 0 {
                        return None;
                    }
                    total = total.checked_add(s.checked_mul(size as i64)?)?;
                }
                Some(total)
            }
            Op::Phi => self.phi_stride(i, l),
            Op::Select | Op::Compare | Op::Other(_) => invariant_args(self),
            _ => None,
        }
    }

    /// A scalar slot's stride: unchanged when the loop never stores it,
    /// C when every store in the loop is `slot = slot ± C`, and the stride
    /// of the value when the loop stores it once from other values (`c = j
    /// * nx + i` advances with `i`).
    fn slot_stride(&self, slot: Slot, l: usize, depth: u32) -> Stride {
        // A counter of the restarting inner loop runs over the same values
        // in each iteration of `l`.
        if let Some(inner) = self.restart.get() {
            if self.stores[inner].contains_key(&slot) && self.counter_step(slot, inner).is_some() {
                return Some(0);
            }
        }
        let Some(values) = self.stores[l].get(&slot) else {
            return Some(0);
        };
        if let [v] = values.as_slice() {
            if self.counter_step(slot, l).is_none() && !self.reads_slot(v, slot) {
                return self.stride(v, l, depth + 1);
            }
        }
        self.counter_step(slot, l)
    }

    /// C when every store of `slot` in loop `l` is `slot = slot ± C`.
    fn counter_step(&self, slot: Slot, l: usize) -> Stride {
        if let Some(known) = self.counters.borrow().get(&(slot, l)) {
            return *known;
        }
        let step = self.counter_step_of(slot, l);
        self.counters.borrow_mut().insert((slot, l), step);
        step
    }

    fn counter_step_of(&self, slot: Slot, l: usize) -> Stride {
        let values = self.stores[l].get(&slot)?;
        let loads_slot = |x: &Value| match x {
            Value::Inst(j) => {
                let load = &self.f.insts[*j as usize];
                matches!(load.op, Op::Load) && self.slot(&load.args[0]) == Some(slot)
            }
            _ => false,
        };
        let mut step = None;
        for v in values {
            let s = self.self_increment(v, loads_slot)?;
            if step.is_some_and(|p| p != s) {
                return None;
            }
            step = Some(s);
        }
        step
    }

    /// Whether computing `v` loads `slot` (a recurrence such as `s = 2 * s`).
    fn reads_slot(&self, v: &Value, slot: Slot) -> bool {
        let mut todo = vec![v.clone()];
        let mut seen = 0;
        while let Some(x) = todo.pop() {
            let Value::Inst(i) = x else { continue };
            seen += 1;
            if seen > 256 {
                return true;
            }
            let inst = &self.f.insts[i as usize];
            if matches!(inst.op, Op::Load) {
                if self.slot(&inst.args[0]) == Some(slot) {
                    return true;
                }
                continue;
            }
            if !matches!(inst.op, Op::Phi | Op::Alloca { .. }) {
                todo.extend(inst.args.iter().cloned());
            }
        }
        false
    }

    /// A phi of the loop updated as `phi ± C` on every path through the loop.
    fn phi_stride(&self, phi: InstId, l: usize) -> Stride {
        let mut step = None;
        for v in &self.f.insts[phi as usize].args {
            let inside = matches!(v, Value::Inst(j) if self.in_loop(*j, l));
            if !inside {
                continue; // the value on entry
            }
            let s = self.self_increment(v, |x| *x == Value::Inst(phi))?;
            if step.is_some_and(|p| p != s) {
                return None;
            }
            step = Some(s);
        }
        step.or(Some(0))
    }

    /// `v` as `old + C`, `old - C` or `gep old, C` (C in bytes for
    /// pointers), where `is_old` recognizes the previous value.
    fn self_increment(&self, v: &Value, is_old: impl Fn(&Value) -> bool) -> Stride {
        let mut v = v.clone();
        for _ in 0..8 {
            let Value::Inst(i) = &v else { return None };
            let inst = &self.f.insts[*i as usize];
            match (&inst.op, inst.args.as_slice()) {
                (Op::Cast, [x]) => v = x.clone(),
                (Op::Binary { code: BinCode::Add }, [x, Value::ConstInt(c)])
                | (Op::Binary { code: BinCode::Add }, [Value::ConstInt(c), x])
                    if is_old(&strip_casts(self.f, x)) =>
                {
                    return Some(*c)
                }
                (Op::Binary { code: BinCode::Sub }, [x, Value::ConstInt(c)])
                    if is_old(&strip_casts(self.f, x)) =>
                {
                    return c.checked_neg()
                }
                (Op::Gep { steps, elem_size }, [x, ..]) if is_old(&strip_casts(self.f, x)) => {
                    return const_offset(&inst.args, steps, *elem_size)
                }
                _ => return None,
            }
        }
        None
    }
}

/// `x + sign·y`, zero terms dropped; `None` when too large.
fn poly_add(x: &Poly, y: &Poly, sign: i64) -> Option<Poly> {
    let mut out = x.clone();
    for (m, c) in y {
        let e = out.entry(m.clone()).or_insert(0);
        *e = e.checked_add(c.checked_mul(sign)?)?;
        if *e == 0 {
            out.remove(m);
        }
    }
    (out.len() <= MAX_TERMS).then_some(out)
}

/// `x · y`; `None` when too large.
fn poly_mul(x: &Poly, y: &Poly) -> Option<Poly> {
    let mut out = Poly::new();
    for (mx, cx) in x {
        for (my, cy) in y {
            let mut m: Vec<Atom> = mx.iter().chain(my).copied().collect();
            if m.len() > MAX_DEGREE {
                return None;
            }
            m.sort_unstable();
            out = poly_add(&out, &Poly::from([(m, cx.checked_mul(*cy)?)]), 1)?;
        }
    }
    Some(out)
}

/// `p` with every counter `c` of `steps` replaced by `c + k·step`: the
/// address `k` iterations later (earlier for negative `k`). A counter whose
/// step is unknown (`i64::MIN`) makes the comparison fail: `None`-like
/// empty polynomial that no address equals.
fn shifted(p: &Poly, steps: &BTreeMap<Slot, i64>, k: i64) -> Poly {
    let mut out = Poly::new();
    for (m, c) in p {
        // Expand the product of (atom + shift) over the monomial's atoms.
        let mut terms: Vec<(Vec<Atom>, i64)> = vec![(vec![], *c)];
        for a in m {
            let shift = match a {
                Atom::Slot(s) => steps.get(s).copied(),
                _ => None,
            };
            let mut next = Vec::with_capacity(terms.len() * 2);
            for (tm, tc) in terms {
                let mut with = tm.clone();
                with.push(*a);
                next.push((with, tc));
                if let Some(step) = shift {
                    if step == i64::MIN {
                        return Poly::from([(vec![Atom::Inst(InstId::MAX)], 1)]);
                    }
                    next.push((tm, tc.saturating_mul(step.saturating_mul(k))));
                }
            }
            terms = next;
        }
        for (mut tm, tc) in terms {
            tm.sort_unstable();
            let e = out.entry(tm.clone()).or_insert(0);
            *e = e.saturating_add(tc);
            if *e == 0 {
                out.remove(&tm);
            }
        }
    }
    out
}

/// The addresses an access at `o` touched earlier, with a code for each
/// shift: 1 and 2 iterations of the loop earlier (counters `inner`; codes 0
/// and 1), and 1 and 2 iterations of the loop around it (counters `outer`)
/// within two iterations of the inner one (codes 2..12); only shifts that
/// move the address (by the outer counters, for the second kind).
fn shifts<'p>(
    o: &'p Poly,
    inner: &'p BTreeMap<Slot, i64>,
    outer: Option<&'p BTreeMap<Slot, i64>>,
) -> impl Iterator<Item = (u8, Poly)> + 'p {
    let moved = move |steps, k: i64| Some(shifted(o, steps, -k)).filter(|m| m != o);
    let recent =
        (1..=RECENT_ITERATIONS).filter_map(move |k| Some(((k - 1) as u8, moved(inner, k)?)));
    let rows = outer.into_iter().flat_map(move |outer| {
        (1..=RECENT_ITERATIONS).flat_map(move |k| {
            let row = moved(outer, k);
            (-RECENT_ITERATIONS..=RECENT_ITERATIONS).filter_map(move |d| {
                let code = 2 + (k - 1) * 5 + (d + RECENT_ITERATIONS);
                Some((code as u8, shifted(row.as_ref()?, inner, d)))
            })
        })
    });
    recent.chain(rows)
}

/// The byte offset of a GEP whose indices are all constants.
fn const_offset(args: &[Value], steps: &[GepStep], elem_size: u64) -> Option<i64> {
    let konst = |v: Option<&Value>| match v {
        Some(Value::ConstInt(c)) => Some(*c),
        None => Some(0),
        _ => None,
    };
    let mut offset = konst(args.get(1))?.checked_mul(elem_size as i64)?;
    for s in steps {
        let step = match s {
            GepStep::Field { offset, .. } => *offset as i64,
            GepStep::Index { arg, elem_size } => {
                konst(args.get(*arg as usize))?.checked_mul(*elem_size as i64)?
            }
        };
        offset = offset.checked_add(step)?;
    }
    Some(offset)
}

#[cfg(test)]
mod tests {
    use crate::analysis::read_table_tests::{summary, summary_at};
    use blame_formats::static_db::{FunctionSummary, Reuse};

    /// (variable, reuse) of every read on line `l`, sorted.
    fn reads(f: &FunctionSummary, l: u32) -> Vec<(String, Reuse)> {
        let mut v: Vec<(String, Reuse)> = f
            .reads
            .iter()
            .filter(|r| r.line == l)
            .flat_map(|r| r.reads.iter().zip(&r.costs))
            .map(|(r, c)| (f.variables[r.variable as usize].name.clone(), c.reuse))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    fn reuse_of(f: &FunctionSummary, l: u32, name: &str) -> Reuse {
        let r = reads(f, l);
        r.iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no read of {name} on line {l}: {r:?}"))
            .1
    }

    /// The outer pattern of the read of `name` on line `l`.
    fn outer_of(f: &FunctionSummary, l: u32, name: &str) -> blame_formats::static_db::OuterReuse {
        f.reads
            .iter()
            .filter(|r| r.line == l)
            .flat_map(|r| r.reads.iter().zip(&r.costs))
            .find(|(r, _)| f.variables[r.variable as usize].name == name)
            .unwrap_or_else(|| panic!("no read of {name} on line {l}"))
            .1
            .outer
    }

    /// Across iterations of the loop around the innermost one: the vector
    /// of a matrix-vector product and the C row of an ikj product are swept
    /// again, the matrix rows move on (the inner counter restarts each time).
    #[test]
    fn outer_loops_repeat_or_move_the_sweep() {
        use blame_formats::static_db::OuterReuse::{Moves, Same};
        let f = summary(
            "void mv(int n, int m, const double *a, const double *x, double *y) {
  for (int i = 0; i < n; i++) {
    double acc = 0.0;
    for (int k = 0; k < m; k++)
      acc += a[i * m + k] * x[k];
    y[i] = acc;
  }
}
",
            "mv",
        );
        assert_eq!(outer_of(&f, 5, "x"), Same);
        assert_eq!(outer_of(&f, 5, "a"), Moves);
        let g = summary(
            "void ikj(int n, const double *a, const double *b, double *c) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++) {
      double aik = a[i * n + k];
      for (int j = 0; j < n; j++)
        c[i * n + j] += aik * b[k * n + j];
    }
}
",
            "ikj",
        );
        assert_eq!(outer_of(&g, 6, "c"), Same);
        assert_eq!(outer_of(&g, 6, "b"), Moves);
    }

    /// A column of a matrix whose size is known at run time: a stride of
    /// 8·n bytes over an `i < n` loop (a line per access, n lines per sweep).
    #[test]
    fn columns_of_a_matrix_sized_at_run_time() {
        let f = summary(
            "void jki(int n, const double *a, const double *b, double *c) {
  for (int j = 0; j < n; j++)
    for (int k = 0; k < n; k++) {
      double bkj = b[k * n + j];
      for (int i = 0; i < n; i++)
        c[i * n + j] += a[i * n + k] * bkj;
    }
}
",
            "jki",
        );
        assert_eq!(reuse_of(&f, 6, "c"), Reuse::Rows { trip: 1, stride: 8 });
        assert_eq!(reuse_of(&f, 6, "a"), Reuse::Rows { trip: 1, stride: 8 });
        assert_eq!(
            outer_of(&f, 6, "c"),
            blame_formats::static_db::OuterReuse::Same
        );
    }

    /// Reads of what the loop wrote one iteration earlier (`p[j - 1]`), or
    /// read one or two rows earlier (`u[i - 1][j]`, `u[i][j]` after `u[i +
    /// 1][j]`), are Recent; the leading read and the plain streams are not.
    #[test]
    fn reads_of_recently_touched_data() {
        let f = summary(
            "void sweep(int n, const double *u, double *p, double *q) {
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++) {
      double den = 2.0 + p[i * n + j - 1];
      p[i * n + j] = 1.0 / den;
      q[i * n + j] = u[(i - 1) * n + j] + u[i * n + j] + u[(i + 1) * n + j] - q[i * n + j - 1];
    }
}
",
            "sweep",
        );
        assert_eq!(reuse_of(&f, 4, "p"), Reuse::Recent);
        assert_eq!(reuse_of(&f, 6, "q"), Reuse::Recent);
        let mut u: Vec<Reuse> = reads(&f, 6)
            .into_iter()
            .filter(|r| r.0 == "u")
            .map(|r| r.1)
            .collect();
        u.sort_by_key(|r| format!("{r:?}"));
        let row = Reuse::Row {
            stride: 8,
            trip: 1,
            pitch: 8,
        };
        assert_eq!(u, [Reuse::Recent, Reuse::Recent, row], "row i + 1 of n x n");
    }

    /// spmv: the streams `val[k]`, `col[k]` advance by their element size,
    /// the gather `x[col[k]]` is irregular, the accumulator and the counter
    /// are fixed slots.
    #[test]
    fn streams_gathers_and_scalars_of_a_sparse_product() {
        let f = summary(
            "void spmv(int rows, const int *row_ptr, const int *col, const double *val,
          const double *x, double *y) {
  for (int r = 0; r < rows; r++) {
    double sum = 0.0;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; k++)
      sum += val[k] * x[col[k]];
    y[r] = sum;
  }
}
",
            "spmv",
        );
        assert_eq!(reuse_of(&f, 6, "val"), Reuse::Stride(8));
        assert_eq!(reuse_of(&f, 6, "col"), Reuse::Stride(4));
        assert_eq!(reuse_of(&f, 6, "x"), Reuse::Irregular);
        assert_eq!(reuse_of(&f, 6, "sum"), Reuse::Fixed);
        assert_eq!(reuse_of(&f, 6, "k"), Reuse::Fixed);
        // `row_ptr[r]` starts the inner loop (read once per entry to it) and
        // `row_ptr[r + 1]` is re-read by its condition at one address: per
        // iteration of the line's innermost loop, both are invariant.
        let row_ptr: Vec<Reuse> = reads(&f, 5)
            .into_iter()
            .filter(|r| r.0 == "row_ptr")
            .map(|r| r.1)
            .collect();
        assert_eq!(row_ptr, [Reuse::Invariant, Reuse::Invariant]);
    }

    /// A linked-cell scan: `cell_head[c]` starts the list once per cell,
    /// `cell_next[j]` runs once per atom; on their shared line only the
    /// second is per iteration of the line's loop.
    #[test]
    fn a_for_header_initialization_runs_once_per_entry() {
        let f = summary(
            "int count(const int *cell_head, const int *cell_next, int ncells) {
  int n = 0;
  for (int c = 0; c < ncells; c++)
    for (int j = cell_head[c]; j >= 0; j = cell_next[j])
      n++;
  return n;
}
",
            "count",
        );
        assert_eq!(reuse_of(&f, 4, "cell_head"), Reuse::Invariant);
        assert_eq!(reuse_of(&f, 4, "cell_next"), Reuse::Irregular);
    }

    /// Row-major and column-major walks, a loop-invariant row, a pointer
    /// bumped in the loop, a linked list, a small table, a read outside loops.
    #[test]
    fn strides_follow_the_address_arithmetic() {
        let f = summary(
            "struct node { struct node *next; double v; };
static double table[64];
double walk(const double *a, int n, const double *p, const struct node *list, int m) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      s += a[i * n + j];
      s += a[j * n + i];
      s += a[i * n] * table[j & 63];
    }
  for (int k = 0; k < m; k++, p++)
    s += *p;
  for (const struct node *q = list; q; q = q->next)
    s += q->v;
  for (int k = 0; k < m; k += 4)
    s += a[2 * k + 1];
  return s + a[m];
}
",
            "walk",
        );
        // Along a row of an n x n matrix (i < n outside, j < n inside).
        let row = Reuse::Row {
            stride: 8,
            trip: 1,
            pitch: 8,
        };
        assert_eq!(reuse_of(&f, 7, "a"), row);
        assert_eq!(
            reuse_of(&f, 8, "a"),
            Reuse::Rows { trip: 1, stride: 8 },
            "stride 8·n, n iterations"
        );
        let line9 = reads(&f, 9);
        assert!(line9.contains(&("a".into(), Reuse::Invariant)), "{line9:?}");
        assert!(
            line9.contains(&("table".into(), Reuse::Irregular)),
            "{line9:?}"
        );
        let table = f.reads.iter().find(|r| r.line == 9).unwrap();
        let k = table
            .reads
            .iter()
            .position(|r| f.variables[r.variable as usize].name == "table")
            .unwrap();
        assert_eq!(table.costs[k].footprint, 64 * 8);
        assert_eq!(reuse_of(&f, 12, "p"), Reuse::Stride(8));
        assert_eq!(reuse_of(&f, 14, "q"), Reuse::Irregular);
        assert_eq!(
            reuse_of(&f, 16, "a"),
            Reuse::Stride(64),
            "2 * 4 elements of 8 bytes"
        );
        assert_eq!(reuse_of(&f, 17, "a"), Reuse::NoLoop);
        assert_eq!(reuse_of(&f, 17, "s"), Reuse::Fixed);
    }

    /// Outside loops, a read of what a store before it wrote (`out[0] *= f`
    /// after `out[0] = ...`) is recent; one nothing wrote, or that a store
    /// only on one branch wrote, is not.
    #[test]
    fn reads_of_what_straight_line_code_just_wrote_are_recent() {
        let src =
            "void interp(const double *t, const double *u, int k, double f, int c, double *out) {
  out[0] = t[k] + f * (t[k + 1] - t[k]);
  out[1] = u[k];
  if (c)
    out[2] = 1.0;
  out[0] *= u[k + 1];
  out[1] += out[2];
}
";
        let f = summary(src, "interp");
        assert_eq!(reuse_of(&f, 2, "t"), Reuse::NoLoop);
        assert_eq!(reuse_of(&f, 6, "u"), Reuse::NoLoop);
        assert_eq!(reuse_of(&f, 6, "out"), Reuse::Recent);
        let mut seven: Vec<Reuse> = reads(&f, 7)
            .into_iter()
            .filter(|r| r.0 == "out")
            .map(|r| r.1)
            .collect();
        seven.sort_by_key(|r| format!("{r:?}"));
        // out[1] was written on line 3, out[2] only when c holds.
        assert_eq!(seven, [Reuse::NoLoop, Reuse::Recent], "{:?}", reads(&f, 7));
    }

    /// An index held in a local computed once per iteration (`int c = j *
    /// nx + i`) is its arithmetic: `rho[c - 1]` and `rho[c]` were read as
    /// `rho[c + 1]` one and two iterations earlier (recent), `rho[c + 1]` is
    /// the stream; a size stored from an argument stays a run-time size.
    #[test]
    fn an_index_defined_once_from_counters_shifts_with_them() {
        let src = "double up(const double *rho, int nx, int ny) {
  double s = 0.0;
  for (int j = 1; j < ny - 1; j++)
    for (int i = 1; i < nx - 1; i++) {
      int c = j * nx + i;
      s += rho[c - 1] + rho[c + 1];
      s += rho[c];
    }
  return s;
}
";
        let f = summary(src, "up");
        let six: Vec<Reuse> = reads(&f, 6)
            .into_iter()
            .filter(|r| r.0 == "rho")
            .map(|r| r.1)
            .collect();
        assert!(six.contains(&Reuse::Recent), "{:?}", reads(&f, 6));
        assert!(six.contains(&Reuse::Stride(8)), "{:?}", reads(&f, 6));
        assert_eq!(reuse_of(&f, 7, "rho"), Reuse::Recent);
    }

    /// Optimized IR keeps counters in phis of the loop header.
    #[test]
    fn phi_counters_of_optimized_ir() {
        let src = "double dot(const double *a, const float *b, const int *idx, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[idx[i]];
  return s;
}
";
        let f = summary_at(src, "dot", "-O1");
        assert_eq!(reuse_of(&f, 4, "a"), Reuse::Stride(8), "{:?}", reads(&f, 4));
        assert_eq!(reuse_of(&f, 4, "b"), Reuse::Irregular);
    }

    /// The access pattern of the read of `name` on line `l`.
    fn cost_of(f: &FunctionSummary, l: u32, name: &str) -> blame_formats::static_db::ReadCost {
        *f.reads
            .iter()
            .filter(|r| r.line == l)
            .flat_map(|r| r.reads.iter().zip(&r.costs))
            .find(|(r, _)| f.variables[r.variable as usize].name == name)
            .unwrap_or_else(|| panic!("no read of {name} on line {l}"))
            .1
    }

    /// An output rescaled in place by a loop before the nest that
    /// accumulates into it, in the same iteration of the row loop: the
    /// accumulation's reads of the row were swept before over the same range
    /// (each pass counting with its own `j`), the streamed operand's were
    /// not, nor the rescaling pass's own. One sweep spans the row's pitch
    /// for a column count fixed at compile time, the trip count times the
    /// stride for a constant bound.
    #[test]
    fn a_pass_before_the_accumulation_sweeps_the_output_row() {
        let f = summary(
            "void gemm(int ni, int nj, int nk, double alpha, double beta, double c[][96],
          double a[][64], double b[][96], double *s) {
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++)
      c[i][j] *= beta;
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++)
        c[i][j] += alpha * a[i][k] * b[k][j];
  }
  for (int j = 0; j < 50; j++)
    s[j] = 0.0;
  for (int j = 0; j < 50; j++)
    s[j] += c[1][j];
}
",
            "gemm",
        );
        let (c, b) = (cost_of(&f, 8, "c"), cost_of(&f, 8, "b"));
        assert_eq!(
            (c.reuse, c.sweep, c.swept_before),
            (Reuse::Stride(8), 768, true)
        );
        assert_eq!(
            (b.reuse, b.sweep, b.swept_before),
            (Reuse::Stride(8), 768, false)
        );
        assert!(
            !cost_of(&f, 5, "c").swept_before,
            "nothing before the first pass"
        );
        // Loops of the function's body: a constant bound, zeroed first.
        let s = cost_of(&f, 13, "s");
        assert_eq!((s.sweep, s.swept_before), (400, true));
        assert!(!cost_of(&f, 13, "c").swept_before);
    }

    /// Zeroing then accumulating with a transposed operand, the matrices
    /// indexed by hand with a size known at run time: the accumulation's
    /// reads of the row were swept before when the zeroing pass runs over
    /// the same bound, not when it runs over another one.
    #[test]
    fn a_zeroing_pass_over_the_same_range_sweeps_the_output_row() {
        let src = |bound: &str| {
            format!(
                "void atb(int n, int m, const double *a, const double *b, double *c) {{
  for (int i = 0; i < n; i++) {{
    for (int j = 0; j < {bound}; j++)
      c[i * n + j] = 0.0;
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        c[i * n + j] += a[k * n + i] * b[k * n + j];
  }}
}}
"
            )
        };
        let same = summary(&src("n"), "atb");
        assert!(cost_of(&same, 7, "c").swept_before);
        assert!(!cost_of(&same, 7, "b").swept_before);
        assert_eq!(reuse_of(&same, 7, "a"), Reuse::Invariant);
        let other = summary(&src("m"), "atb");
        assert!(!cost_of(&other, 7, "c").swept_before);
    }
}
