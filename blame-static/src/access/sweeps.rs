//! Sweeps of loops: the span of one sweep when it is known statically (a
//! constant trip count, the pitch of the row it runs along), rows of a
//! matrix sized at run time, loop bounds and trip counts, and whether a
//! loop before a read's nest swept the same addresses over the same range.

use super::polynomials::{poly_add, Atom, Poly};
use super::recent::shifted;
use super::AccessPatterns;
use crate::ir::{Op, Value};
use crate::HashSet;
use blame_formats::static_db::Reuse;
use std::rc::Rc;

/// What one pass of an innermost loop touches, for comparing passes of
/// different loops: an access's address with the loop's counters of step
/// ±1 as [`Atom::Counter`], and the bound the loop's header compares its
/// counter with.
pub(super) type Sweep = (Poly, Poly);

impl AccessPatterns<'_> {
    /// The bytes one sweep of loop `l` spans for an address advancing by
    /// `s` bytes per iteration (0: not known): the stride times the bound
    /// of a loop whose header compares its counter with a constant (`j <
    /// 96`, a counter taken to start at 0 or above), else the pitch of the
    /// row it runs along, the smallest constant coefficient larger than the
    /// stride of a counter of an enclosing loop (`c[i][j]` of a `double
    /// (*c)[96]` spans one row of 768 bytes however far `j` runs); the
    /// smaller of the two when both are known.
    pub(super) fn sweep(&self, addr: &Value, l: usize, s: i64) -> u64 {
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
    pub(super) fn swept_before(&self, addr: &Value, l: usize) -> bool {
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
    pub(super) fn sweeps_of(&self, l: usize) -> Rc<HashSet<Sweep>> {
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

    /// [`Reuse::Rows`]: the address advances by `b·n` bytes per iteration
    /// of loop `l` (`n` a value the loop does not change, `b` a constant)
    /// and the loop runs `a·n` times (see [`Self::trip`]).
    pub(super) fn rows(&self, addr: &Value, l: usize) -> Option<Reuse> {
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
    pub(super) fn row(&self, addr: &Value, l: usize, s: i64) -> Option<Reuse> {
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
    pub(super) fn trip(&self, l: usize) -> Option<(Atom, i64)> {
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
}
