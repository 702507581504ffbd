//! Lambdas' closures passed to calls (`parallel_for(range, [&](int i) {
//! ... })`, `std::for_each(b, e, [=](T &x) { ... })`): a compiler temporary
//! with no variable of its own, whose members are the captures; and
//! handles to shared storage passed by value (a copy made for the call).
//! Stage of the per-function analysis's call sites: what each capture
//! holds, so that a callee's outputs through the closure (`f.cnew.ptr_`)
//! reach the variables the lambda captured (`cnew`).

use super::*;
use std::collections::BTreeMap;

/// A function's unnamed temporaries (allocas of no variable), indexed
/// once: their one-field-step members, and the stores and calls that fill
/// each temporary or member (a store's address, a call's first argument).
pub(super) struct Temporaries {
    /// Per temporary, its members: (GEP, field index, byte offset).
    members: HashMap<InstId, Vec<(InstId, u32, u64)>>,
    /// Per temporary or member, the instructions that fill it.
    filled_by: HashMap<InstId, Vec<InstId>>,
}

impl Temporaries {
    pub(super) fn new(f: &Function, res: &mut Resolver) -> Temporaries {
        let temp = |res: &mut Resolver, a: InstId| {
            matches!(f.insts[a as usize].op, Op::Alloca { .. })
                && matches!(res.locs(&Value::Inst(a)).as_slice(), [l] if matches!(l.root, Root::Hidden(_)))
        };
        let mut members: HashMap<InstId, Vec<(InstId, u32, u64)>> = HashMap::default();
        let mut is_temp: HashMap<InstId, bool> = HashMap::default();
        for (n, i) in f.insts.iter().enumerate() {
            let Op::Gep { steps, .. } = &i.op else {
                continue;
            };
            let (Some(&Value::Inst(a)), [GepStep::Field { index, offset }]) =
                (i.args.first(), steps.as_slice())
            else {
                continue;
            };
            if *is_temp.entry(a).or_insert_with(|| temp(res, a)) {
                members
                    .entry(a)
                    .or_default()
                    .push((n as InstId, *index, *offset));
            }
        }
        let mut filled_by: HashMap<InstId, Vec<InstId>> = HashMap::default();
        for (n, i) in f.insts.iter().enumerate() {
            let target = match i.op {
                Op::Store if is_ptr_value(f, &i.args[0]) => i.args.get(1),
                Op::Call { .. } => i.args.first(),
                _ => None,
            };
            let Some(&Value::Inst(t)) = target else {
                continue;
            };
            let known = is_temp.get(&t).copied().unwrap_or(false)
                || matches!(f.insts[t as usize].op, Op::Gep { .. })
                    && matches!(f.insts[t as usize].args.first(), Some(Value::Inst(a)) if members.contains_key(a))
                || (matches!(f.insts[t as usize].op, Op::Alloca { .. })
                    && *is_temp.entry(t).or_insert_with(|| temp(res, t)));
            if known {
                filled_by.entry(t).or_default().push(n as InstId);
            }
        }
        Temporaries { members, filled_by }
    }
}

/// For argument `k` of call `call` (to `callee`, a function of the module),
/// when it is a temporary of no variable: a copy of a handle made for the
/// call (member `*`: the whole argument reaches the variable copied), or
/// per member of a closure (named by the callee's parameter type, the
/// closure's class), the variables the member reaches. A capture by
/// reference stores the variable's address (the variable itself); a
/// capture by value copies it, by a constructor call or `memcpy` given the
/// variable (a handle's copy reaches what the handle does: the variable
/// copied).
#[allow(clippy::too_many_arguments)]
pub(super) fn captures(
    m: &Module,
    defined: &DefinedFunctions,
    temps: &Temporaries,
    f: &Function,
    res: &mut Resolver,
    vars: &Vars,
    call: InstId,
    k: u32,
) -> Vec<(String, BTreeSet<u32>)> {
    let inst = &f.insts[call as usize];
    let Op::Call {
        callee: Some(callee),
    } = &inst.op
    else {
        return Vec::new();
    };
    // The temporary: an alloca of no variable, passed (through casts).
    let mut arg = inst.args[k as usize].clone();
    for _ in 0..4 {
        match arg {
            Value::Inst(i) if matches!(f.insts[i as usize].op, Op::Cast) => {
                arg = f.insts[i as usize].args[0].clone()
            }
            _ => break,
        }
    }
    let Value::Inst(a) = arg else {
        return Vec::new();
    };
    if !temps.filled_by.contains_key(&a) && !temps.members.contains_key(&a) {
        return Vec::new();
    }
    // The callee's parameter: a handle passed by value, or the closure's
    // class.
    let Some(declared) = defined
        .param_type(callee, k)
        .or_else(|| defined.by_value_class(callee, inst.args.len(), k))
        .map(Some)
    else {
        return Vec::new();
    };
    // The variables what fills `into` (but the call itself) points into.
    let sources = |res: &mut Resolver, into: InstId| -> BTreeSet<u32> {
        let mut out = BTreeSet::new();
        for &n in temps.filled_by.get(&into).into_iter().flatten() {
            if n == call {
                continue;
            }
            let i = &f.insts[n as usize];
            let from: Vec<&Value> = match i.op {
                Op::Store => vec![&i.args[0]],
                _ => i.args[1..].iter().filter(|s| is_ptr_value(f, s)).collect(),
            };
            for v in from {
                out.extend(res.locs(v).iter().filter_map(|l| {
                    vars.by_key
                        .get(&(l.root, l.path.clone()))
                        .or_else(|| vars.by_key.get(&(l.root, Vec::new())))
                        .copied()
                }));
            }
        }
        out
    };
    if super::view_types::is_handle_type(m, declared) {
        // A copy of the caller's handle made for the call (by its copy
        // constructor): the variable copied, for the whole argument (member
        // `*`: the handle's own fields are no paths of the data it reaches).
        let whole = sources(res, a);
        return if whole.is_empty() {
            Vec::new()
        } else {
            vec![("*".to_string(), whole)]
        };
    }
    let mut class = declared;
    for _ in 0..4 {
        if m.is_struct(class) {
            break;
        }
        class = m.pointee(class);
    }
    if !m.is_struct(class) {
        return Vec::new();
    }
    let mut out: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    for &(gep, index, offset) in temps.members.get(&a).into_iter().flatten() {
        let Some(mb) = m
            .member_at(class, offset, index)
            .filter(|mb| !mb.name.is_empty())
        else {
            continue;
        };
        let t = sources(res, gep);
        if !t.is_empty() {
            out.entry(mb.name.clone()).or_default().extend(t);
        }
    }
    out.into_iter().collect()
}
