//! Call sites with their output bindings (the caller side of transfer
//! functions, 3.3.3): what each call's return value and arguments blame,
//! lambdas' captures, and the buffers MPI waits complete.

use super::alias_classes::Classes;
use super::closure;
use super::defined::DefinedFunctions;
use super::is_ptr_value;
use super::locations::Resolver;
use super::reach::Reach;
use super::variables::Vars;
use super::writes::Writes;
use crate::ir::*;
use crate::library_models as library;
use blame_formats::static_db::*;
use std::collections::BTreeSet;

/// The variables a value argument is read from: the loads its computation
/// (arithmetic, casts, selects and phis, not calls) starts from, resolved
/// to the variables they read.
fn value_sources(f: &Function, res: &mut Resolver, vars: &Vars, v: &Value) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    let mut seen: BTreeSet<InstId> = BTreeSet::new();
    let mut stack: Vec<InstId> = match v {
        Value::Inst(i) => vec![*i],
        _ => vec![],
    };
    while let Some(i) = stack.pop() {
        if !seen.insert(i) || seen.len() > 64 {
            continue;
        }
        let inst = &f.insts[i as usize];
        match &inst.op {
            Op::Load => {
                for l in res.locs(&inst.args[0]) {
                    if let Some(&var) = vars.by_key.get(&(l.root, l.path.clone())) {
                        out.insert(var);
                    }
                }
            }
            Op::Binary { .. } | Op::Cast | Op::Select | Op::Phi | Op::Other(_) => {
                stack.extend(inst.args.iter().filter_map(|a| match a {
                    Value::Inst(j) => Some(*j),
                    _ => None,
                }));
            }
            _ => {}
        }
    }
    out
}

pub(super) fn call_sites(
    f: &Function,
    defined: &DefinedFunctions,
    res: &mut Resolver,
    vars: &Vars,
    classes: &Classes,
    w: &Writes,
    reach: &Reach,
) -> Vec<CallSite> {
    let (class_id, members) = (&classes.class_id, &classes.members);
    let (call_models, ret_bind, arg_bind) = (&w.call_models, &reach.ret_bind, &reach.arg_bind);
    // Call sites with their output bindings (the transfer function's caller side).
    let mut call_sites = Vec::new();
    // (requests, blamed, explicit, only sends)
    type Posted = (BTreeSet<u32>, BTreeSet<u32>, BTreeSet<u32>, bool);
    let mut request_buffers: Vec<Posted> = Vec::new();
    // The function's unnamed temporaries, indexed at the first call that
    // passes one.
    let mut temps: Option<closure::Temporaries> = None;
    let targets_of = |res: &mut Resolver, vars: &Vars, v: &Value| -> BTreeSet<u32> {
        res.locs(v)
            .iter()
            .filter_map(|l| vars.by_key.get(&(l.root, l.path.clone())).copied())
            .collect()
    };
    for (i, inst) in f.insts.iter().enumerate() {
        let i = i as InstId;
        let Some((name, model)) = call_models.get(&i) else {
            continue;
        };
        let mut outputs = Vec::new();
        if !inst.is_void {
            if let Some((b, x)) = ret_bind.get(&i) {
                outputs.push(OutputBinding {
                    output: CallOutput::Return,
                    blamed: b.clone(),
                    explicit: x.clone(),
                    pointees: vec![],
                    field: String::new(),
                });
            }
        }
        for k in 0..inst.args.len() as u32 {
            if !is_ptr_value(f, &inst.args[k as usize]) {
                // A value argument names the variables it is read from, so
                // that a side effect of the callee from this parameter
                // (`axpy(y, alpha, x)` computes *y from alpha) fires when
                // they are blamed. Nothing is written through it: it
                // blames nothing itself.
                let sources: Vec<u32> = value_sources(f, res, vars, &inst.args[k as usize])
                    .into_iter()
                    .collect();
                if !sources.is_empty() {
                    // A handle passed by value that the library model
                    // blames (an `int` communicator of MPICH's
                    // `MPI_Barrier(comm)`): the variable it is read from.
                    let blamed = if model
                        .as_ref()
                        .is_some_and(|md| md.outputs.contains(&CallOutput::Arg(k)))
                    {
                        sources.clone()
                    } else {
                        vec![]
                    };
                    outputs.push(OutputBinding {
                        output: CallOutput::Arg(k),
                        explicit: blamed.clone(),
                        blamed,
                        pointees: sources,
                        field: String::new(),
                    });
                }
                continue;
            }
            // The argument's targets with their alias classes, and what the
            // output reaches (sorted vectors: this can be every variable).
            let targets = targets_of(res, vars, &inst.args[k as usize]);
            let classes: BTreeSet<u32> = targets.iter().map(|&t| class_id[t as usize]).collect();
            let mut pointees: Vec<u32> = targets.into_iter().collect();
            for c in classes {
                pointees.extend(&members[c as usize]);
            }
            pointees.sort_unstable();
            pointees.dedup();
            let mut blamed = pointees.clone();
            let mut explicit = pointees.clone();
            if let Some((b, x)) = arg_bind.get(&(i, k)) {
                blamed.extend(b);
                explicit.extend(x);
            }
            blamed.sort_unstable();
            blamed.dedup();
            explicit.sort_unstable();
            explicit.dedup();
            if !blamed.is_empty() {
                outputs.push(OutputBinding {
                    output: CallOutput::Arg(k),
                    blamed,
                    explicit,
                    pointees,
                    field: String::new(),
                });
            } else {
                // A lambda's closure (a temporary of no variable): each
                // capture is bound to what it captures.
                let m = res.m;
                let temps = temps.get_or_insert_with(|| closure::Temporaries::new(f, res));
                for (field, captured) in closure::captures(m, defined, temps, f, res, vars, i, k) {
                    let mut reached: Vec<u32> = captured
                        .iter()
                        .flat_map(|&t| members[class_id[t as usize] as usize].iter().copied())
                        .chain(captured.iter().copied())
                        .collect();
                    reached.sort_unstable();
                    reached.dedup();
                    outputs.push(OutputBinding {
                        output: CallOutput::Arg(k),
                        blamed: reached.clone(),
                        explicit: reached,
                        pointees: captured.into_iter().collect(),
                        field,
                    });
                }
            }
        }
        // A nonblocking MPI call: which buffers its request completes.
        let routine = name.as_deref().and_then(library::mpi_routine);
        if let Some((buffers, req)) = routine.as_deref().and_then(library::mpi_request_buffers) {
            if (req as usize) < inst.args.len() {
                // The buffers and what the call's outputs through them flow
                // into (a receive buffer unpacked into the grid blames the
                // grid too): what waiting for the request is for.
                let (mut blamed, mut explicit) = (BTreeSet::new(), BTreeSet::new());
                for &b in &buffers {
                    if let Some(a) = inst.args.get(b as usize) {
                        let t = targets_of(res, vars, a);
                        blamed.extend(t.iter().copied());
                        explicit.extend(t);
                    }
                    if let Some(o) = outputs.iter().find(|o| o.output == CallOutput::Arg(b)) {
                        blamed.extend(o.blamed.iter().copied());
                        explicit.extend(o.explicit.iter().copied());
                    }
                }
                let req = targets_of(res, vars, &inst.args[req as usize]);
                let sends = routine.as_deref().is_some_and(library::mpi_only_sends);
                request_buffers.push((req, blamed, explicit, sends));
            }
        }
        call_sites.push((
            i,
            CallSite {
                line: inst.line,
                column: inst.col,
                callee: name.clone(),
                arg_count: inst.args.len() as u32,
                outputs,
                model: model.as_ref().map(|md| md.outputs.clone()),
            },
        ));
    }
    // MPI_Wait and its kin complete nonblocking sends and receives: the
    // buffers of the calls that posted their requests are what they blame.
    for (i, cs) in &mut call_sites {
        let Some(k) = cs
            .callee
            .as_deref()
            .and_then(library::mpi_routine)
            .and_then(|m| library::mpi_completion_requests(&m))
        else {
            continue;
        };
        let k = k as usize;
        let Some(arg) = f.insts[*i as usize].args.get(k) else {
            continue;
        };
        let req = targets_of(res, vars, arg);
        let (mut extra, mut extra_explicit) = (BTreeSet::new(), BTreeSet::new());
        // A wait that completes receives too waits for those: the sends'
        // buffers leave at once (a halo's packed faces are no wait's).
        let completes_receives = request_buffers
            .iter()
            .any(|(r, _, _, sends)| !sends && !r.is_disjoint(&req));
        for (r, b, x, sends) in &request_buffers {
            if !(r.is_disjoint(&req) || *sends && completes_receives) {
                extra.extend(b.iter().copied());
                extra_explicit.extend(x.iter().copied());
            }
        }
        if extra.is_empty() {
            continue;
        }
        match cs
            .outputs
            .iter_mut()
            .find(|o| o.output == CallOutput::Arg(k as u32))
        {
            Some(o) => {
                extra_explicit.extend(o.explicit.iter().copied());
                o.explicit = extra_explicit.into_iter().collect();
                extra.extend(o.blamed.iter().copied());
                o.blamed = extra.into_iter().collect();
            }
            None => cs.outputs.push(OutputBinding {
                output: CallOutput::Arg(k as u32),
                explicit: extra_explicit.into_iter().collect(),
                blamed: extra.into_iter().collect(),
                pointees: vec![],
                field: String::new(),
            }),
        }
    }
    let call_sites: Vec<CallSite> = call_sites.into_iter().map(|(_, c)| c).collect();

    call_sites
}
