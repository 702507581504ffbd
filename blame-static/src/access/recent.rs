//! Recent reuse: the loads and stores of a region (a loop's own blocks, or
//! the code outside loops) grouped by address polynomial with the addresses
//! each group touched one or two iterations earlier, so that a read looks
//! up whether another access touched its address recently (or a dominating
//! store wrote it) instead of comparing with every access.

use super::polynomials::{Atom, Poly};
use super::{AccessPatterns, Slot, Steps};
use crate::ir::{InstId, Op, Value};
use crate::HashMap;
use std::collections::BTreeMap;
use std::rc::Rc;

/// How many iterations back another access may have touched a read's
/// data for the read to count as reusing it (`p[j - 1]` after `p[j] = ..`).
const RECENT_ITERATIONS: i64 = 2;

/// The loads and stores of one region (a loop's own blocks, or the code
/// outside loops) grouped by address polynomial, with the addresses each
/// group touched one or two iterations earlier, so that a read finds the
/// accesses it reuses by lookup instead of comparing with every access of
/// the region (which was quadratic in the region's size).
#[derive(Default)]
pub(super) struct Accesses {
    pub(super) groups: Vec<Group>,
    pub(super) by_poly: HashMap<Poly, u32>,
    /// Fingerprint of a shifted address (see [`shifts`]) to the groups and
    /// shifts that give it; checked exactly on lookup.
    pub(super) shifted: HashMap<u64, Vec<(u32, u8)>>,
}

/// The accesses of one address polynomial in a region.
pub(super) struct Group {
    pub(super) poly: Poly,
    /// The first access, and whether there are others.
    pub(super) first: InstId,
    pub(super) several: bool,
    /// Stores: per block the first store's position, and the dominator
    /// intervals of the blocks holding one (sorted by entry number, with the
    /// running maximum of exit numbers).
    pub(super) first_store: HashMap<u32, u32>,
    pub(super) store_blocks: Vec<(u32, u32)>,
}

fn fingerprint(p: &Poly) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    p.hash(&mut h);
    h.finish()
}

/// `p` with every counter `c` of `steps` replaced by `c + k·step`: the
/// address `k` iterations later (earlier for negative `k`). A counter whose
/// step is unknown (`i64::MIN`) makes the comparison fail: `None`-like
/// empty polynomial that no address equals.
pub(super) fn shifted(p: &Poly, steps: &BTreeMap<Slot, i64>, k: i64) -> Poly {
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

impl AccessPatterns<'_> {
    /// Outside loops: whether a store outside loops wrote `addr` before the
    /// load `at` on every path to it (earlier in its block, or in a block
    /// that dominates it): `xsout[0] *= f` after `xsout[0] = ...` in the
    /// same call reads data just written.
    pub(super) fn written_before(&self, addr: &Value, at: InstId) -> bool {
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
    pub(super) fn recently_touched(&self, addr: &Value, at: InstId, l: usize) -> bool {
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
}
