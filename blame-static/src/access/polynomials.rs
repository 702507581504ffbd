//! Address polynomials: an address as a sum of products of atoms (loaded
//! slots, loop counters, arguments) with constant coefficients, the
//! arithmetic of slots defined once expanded, so that two accesses'
//! addresses compare term by term.

use super::{AccessPatterns, Slot};
use crate::ir::{strip_casts, BinCode, GepStep, InstId, Op, Value};
use crate::{HashMap, HashSet};

/// A value an address polynomial does not decompose: a scalar slot as
/// loaded (a counter, a size, a pointer), an argument, a global's address,
/// any other instruction.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub(super) enum Atom {
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
pub(super) type Poly = std::collections::BTreeMap<Vec<Atom>, i64>;

/// Bounds that keep address polynomials small.
const MAX_TERMS: usize = 16;

const MAX_DEGREE: usize = 4;

/// `x + sign·y`, zero terms dropped; `None` when too large.
pub(super) fn poly_add(x: &Poly, y: &Poly, sign: i64) -> Option<Poly> {
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

impl AccessPatterns<'_> {
    /// Stack slots with one store in the function whose value does not read
    /// the slot, used only by loads and stores (see `defined_once`).
    pub(super) fn slots_defined_once(&self) -> HashMap<Slot, Value> {
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
    pub(super) fn poly(&self, v: &Value, depth: u32) -> Option<Poly> {
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
}
