//! Strides: how a value moves across iterations of one loop (counters
//! stored as `v = v ± C`, phis of the header, address arithmetic combining
//! strides in bytes), and the step of each counter of a loop.

use super::{const_offset, AccessPatterns, Slot, Steps, Stride, MAX_MEMO};
use crate::ir::{strip_casts, BinCode, GepStep, InstId, Op, Value};
use std::collections::BTreeMap;
use std::rc::Rc;

impl AccessPatterns<'_> {
    /// The step of every slot loop `l` stores (`restart`: an inner loop
    /// whose counters restart each iteration, taken as unchanged): a
    /// counter's step, `i64::MIN` for a slot that is not a counter (its
    /// value per iteration is not known).
    pub(super) fn counter_steps(&self, l: usize, restart: Option<usize>) -> Steps {
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

    fn in_loop(&self, i: InstId, l: usize) -> bool {
        let b = self.f.insts[i as usize].block;
        self.cfg.loops[l].blocks.binary_search(&b).is_ok()
    }

    /// How `v` changes per iteration of loop `l`.
    pub(super) fn stride(&self, v: &Value, l: usize, depth: u32) -> Stride {
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
    pub(super) fn counter_step(&self, slot: Slot, l: usize) -> Stride {
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
    pub(super) fn reads_slot(&self, v: &Value, slot: Slot) -> bool {
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
