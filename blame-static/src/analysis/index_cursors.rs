//! Index cursors of linked lists kept in index arrays (the linked-cell
//! lists of particle and molecular-dynamics codes: `for (k = head[c]; k >=
//! 0; k = next[k])`). Stage of the per-function analysis, beside the
//! element pointers and iterators: such a cursor walks the list's memory
//! as a pointer cursor (`p = p->next`) does, so it is `element_of` the
//! array it advances through, and reports add it there instead of listing
//! a loop counter. A scalar copy of an element read through an iterator or
//! an element pointer (`for (double v : x)`) is that container's element
//! too.

use super::*;
use std::collections::BTreeMap;

/// Marks a local integer `k` as `element_of` array `next` when each of its
/// writes is a constant or an element loaded from an array (`k =
/// head[c]`), and one loads it from an element chosen by `k` itself (`k =
/// next[k]`).
pub(super) fn index_cursors(f: &Function, res: &mut Resolver, vars: &mut Vars) {
    let n = vars.out.len();
    let candidate = |out: &[Variable], t: u32| {
        let v = &out[t as usize];
        v.kind == VarKind::Local
            && v.parent.is_none()
            && v.is_scalar
            && !v.is_pointer
            && !v.is_exit
            && v.element_of.is_none()
    };
    if !(0..n as u32).any(|t| candidate(&vars.out, t)) {
        return;
    }
    // Per candidate: `Some((arrays its self-chosen elements come from,
    // owners of the elements it copies through a cursor, every write such
    // a copy))`, or `None` once a write of something else is seen.
    type Seen = (BTreeSet<u32>, BTreeSet<u32>, bool);
    let mut verdict: BTreeMap<u32, Option<Seen>> = BTreeMap::new();
    for inst in &f.insts {
        if !matches!(inst.op, Op::Store) {
            continue;
        }
        let Some(t) = own_slot(res, vars, &inst.args[1]) else {
            continue;
        };
        if !candidate(&vars.out, t) {
            continue;
        }
        let entry = verdict
            .entry(t)
            .or_insert_with(|| Some((BTreeSet::new(), BTreeSet::new(), true)));
        let Some((arrays, copied, only_copies)) = entry else {
            continue;
        };
        let stored = element_load(f, res, vars, &inst.args[0], t);
        match stored {
            Some(Stored::Constant) => *only_copies = false,
            Some(Stored::Element {
                array,
                chosen_by_self,
            }) => {
                if chosen_by_self {
                    arrays.insert(array);
                }
                match cursor_owner(&vars.out, array) {
                    Some(owner) => {
                        copied.insert(owner);
                    }
                    None => *only_copies = false,
                }
            }
            None => *entry = None,
        }
    }
    for (t, seen) in verdict {
        let Some((arrays, copied, only_copies)) = seen else {
            continue;
        };
        let one = |s: BTreeSet<u32>| (s.len() == 1).then(|| s.into_iter().next()).flatten();
        let owner = match one(arrays) {
            Some(array) => Some(array),
            None if only_copies => one(copied),
            None => None,
        };
        if owner.is_some_and(|o| o != t) {
            vars.out[t as usize].element_of = owner;
        }
    }
}

/// The container a variable walks when it is (a field of) an iterator or
/// an element pointer: its root's `element_of`.
fn cursor_owner(out: &[Variable], v: u32) -> Option<u32> {
    let r = root_of(out, v);
    let o = out[r as usize].element_of?;
    Some(root_of(out, o)).filter(|&o| o != r)
}

/// What a store into a cursor stores.
enum Stored {
    Constant,
    /// An element of `array`, at an index computed from the cursor itself
    /// or not.
    Element {
        array: u32,
        chosen_by_self: bool,
    },
}

/// The variable whose own storage `addr` is (one location, not through a
/// pointer, not a field).
fn own_slot(res: &mut Resolver, vars: &Vars, addr: &Value) -> Option<u32> {
    let locs = res.locs(addr);
    let [l] = locs.as_slice() else { return None };
    if l.deref != 0 || !l.path.is_empty() {
        return None;
    }
    vars.by_key.get(&(l.root, Vec::new())).copied()
}

/// `value` (through casts) as a constant or as an element loaded from one
/// data structure's memory; whether its index reads `cursor`.
fn element_load(
    f: &Function,
    res: &mut Resolver,
    vars: &mut Vars,
    value: &Value,
    cursor: u32,
) -> Option<Stored> {
    let mut v = value.clone();
    for _ in 0..4 {
        match v {
            Value::ConstInt(_) => return Some(Stored::Constant),
            Value::Inst(i) => {
                let inst = &f.insts[i as usize];
                match inst.op {
                    Op::Cast => v = inst.args[0].clone(),
                    Op::Load => {
                        let addr = inst.args[0].clone();
                        let locs = res.locs(&addr);
                        let [l] = locs.as_slice() else { return None };
                        if l.deref == 0 {
                            return None;
                        }
                        // (A global only read here is named now.)
                        let array = vars.get(l.root, &l.path, None)?;
                        let av = &vars.out[array as usize];
                        if array == cursor || (av.is_scalar && !av.is_pointer) {
                            return None;
                        }
                        return Some(Stored::Element {
                            array,
                            chosen_by_self: reads_slot(f, res, vars, &addr, cursor),
                        });
                    }
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
    None
}

/// Whether address `addr` is computed (through index arithmetic) from a
/// load of `cursor`'s own storage.
fn reads_slot(f: &Function, res: &mut Resolver, vars: &Vars, addr: &Value, cursor: u32) -> bool {
    let mut stack = vec![addr.clone()];
    let mut seen = 0;
    while let Some(v) = stack.pop() {
        seen += 1;
        if seen > 32 {
            return false;
        }
        let Value::Inst(i) = v else { continue };
        let inst = &f.insts[i as usize];
        match inst.op {
            Op::Load if own_slot(res, vars, &inst.args[0]) == Some(cursor) => return true,
            // The base's own address is not the index.
            Op::Gep { .. } => stack.extend(inst.args.iter().skip(1).cloned()),
            Op::Cast | Op::Binary { .. } => stack.extend(inst.args.iter().cloned()),
            _ => {}
        }
    }
    false
}
