//! Lambdas' closures passed to calls (`parallel_for(range, [&](int i) {
//! ... })`, `std::for_each(b, e, [=](T &x) { ... })`): a compiler temporary
//! with no variable of its own, whose members are the captures. Stage of
//! the per-function analysis's call sites: what each capture holds, so that
//! a callee's outputs through the closure (`f.cnew.ptr_`) reach the
//! variables the lambda captured (`cnew`).

use super::*;

/// For argument `k` of call `call` (to `callee`, a function of the module),
/// when it is a temporary of no variable: a copy of a variable made for the
/// call (member `*`: the whole argument reaches the variable copied), or
/// per member of it (named by the callee's parameter type, the closure's
/// class), the variables the member reaches. A capture by reference stores the variable's address (the
/// variable itself); a capture by value copies it, by a constructor call
/// or `memcpy` given the variable (a handle's copy reaches what the handle
/// does: the variable copied).
pub(super) fn captures(
    m: &Module,
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
    if !matches!(f.insts[a as usize].op, Op::Alloca { .. })
        || !matches!(res.locs(&Value::Inst(a)).as_slice(), [l] if matches!(l.root, Root::Hidden(_)))
    {
        return Vec::new();
    }
    // The variables a value points into.
    let targets = |res: &mut Resolver, v: &Value| -> BTreeSet<u32> {
        res.locs(v)
            .iter()
            .filter_map(|l| {
                vars.by_key
                    .get(&(l.root, l.path.clone()))
                    .or_else(|| vars.by_key.get(&(l.root, Vec::new())))
                    .copied()
            })
            .collect()
    };
    // The callee's parameter: a handle passed by value, or the closure's
    // class.
    let Some(g) = m
        .functions
        .iter()
        .find(|g| &g.name == callee && !g.is_declaration)
    else {
        return Vec::new();
    };
    let (_, _, param_of, _) = variable_bindings(g);
    let Some(declared) = param_of
        .iter()
        .find(|&(_, &p)| p == k)
        .map(|(&v, _)| g.vars[v as usize].ty)
    else {
        return Vec::new();
    };
    if super::is_handle_type(m, declared) {
        // A copy of the caller's handle made for the call (by its copy
        // constructor): the variable copied, for the whole argument (member
        // `*`: the handle's own fields are no paths of the data it reaches).
        let mut whole: BTreeSet<u32> = BTreeSet::new();
        for (n, i) in f.insts.iter().enumerate() {
            if n as InstId != call
                && matches!(i.op, Op::Call { .. })
                && i.args.first() == Some(&Value::Inst(a))
            {
                for src in i.args[1..].iter().filter(|s| is_ptr_value(f, s)) {
                    whole.extend(targets(res, src));
                }
            }
        }
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
    // The members of the temporary: GEPs of one field step from it.
    let mut member_of: HashMap<InstId, String> = HashMap::default();
    for (n, i) in f.insts.iter().enumerate() {
        if let Op::Gep { steps, .. } = &i.op {
            if i.args.first() == Some(&Value::Inst(a)) {
                if let [GepStep::Field { index, offset }] = steps.as_slice() {
                    if let Some(mb) = m.member_at(class, *offset, *index) {
                        if !mb.name.is_empty() {
                            member_of.insert(n as InstId, mb.name.clone());
                        }
                    }
                }
            }
        }
    }
    let member = |v: &Value| match v {
        Value::Inst(i) => member_of.get(i).cloned(),
        _ => None,
    };
    let mut out: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    for (n, i) in f.insts.iter().enumerate() {
        if n as InstId == call {
            continue;
        }
        match &i.op {
            Op::Store if is_ptr_value(f, &i.args[0]) => {
                if let Some(mb) = member(&i.args[1]) {
                    let t = targets(res, &i.args[0]);
                    out.entry(mb).or_default().extend(t);
                }
            }
            Op::Call { .. } => {
                let Some(mb) = i.args.first().and_then(member) else {
                    continue;
                };
                for src in i.args[1..].iter().filter(|s| is_ptr_value(f, s)) {
                    let t = targets(res, src);
                    out.entry(mb.clone()).or_default().extend(t);
                }
            }
            _ => {}
        }
    }
    out.into_iter().filter(|(_, t)| !t.is_empty()).collect()
}
