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
    let mut b = CallSites {
        f,
        defined,
        res,
        vars,
        classes,
        reach,
        request_buffers: Vec::new(),
        temps: None,
    };
    // Call sites with their output bindings (the transfer function's caller side).
    let mut call_sites = Vec::new();
    for (i, inst) in f.insts.iter().enumerate() {
        let i = i as InstId;
        let Some((name, model)) = w.call_models.get(&i) else {
            continue;
        };
        call_sites.push((i, b.call_site(i, inst, name, model)));
    }
    // MPI_Wait and its kin complete nonblocking sends and receives: the
    // buffers of the calls that posted their requests are what they blame.
    for (i, cs) in &mut call_sites {
        b.complete_requests(*i, cs);
    }
    let call_sites: Vec<CallSite> = call_sites.into_iter().map(|(_, c)| c).collect();

    call_sites
}

/// The buffers of a nonblocking MPI call: (requests, blamed, explicit,
/// only sends).
type Posted = (BTreeSet<u32>, BTreeSet<u32>, BTreeSet<u32>, bool);

/// The call sites of a function, with what they share.
struct CallSites<'a, 'r, 'm> {
    f: &'a Function,
    defined: &'a DefinedFunctions<'a>,
    res: &'r mut Resolver<'m>,
    vars: &'a Vars<'a>,
    classes: &'a Classes,
    reach: &'a Reach,
    request_buffers: Vec<Posted>,
    /// The function's unnamed temporaries, indexed at the first call that
    /// passes one.
    temps: Option<closure::Temporaries>,
}

impl CallSites<'_, '_, '_> {
    /// The variables value `v` points to.
    fn targets_of(&mut self, v: &Value) -> BTreeSet<u32> {
        let vars = self.vars;
        self.res
            .locs(v)
            .iter()
            .filter_map(|l| vars.by_key.get(&(l.root, l.path.clone())).copied())
            .collect()
    }

    /// Call `i` with its output bindings: its return value, then each
    /// argument; the buffers it posts if it is a nonblocking MPI call.
    fn call_site(
        &mut self,
        i: InstId,
        inst: &Inst,
        name: &Option<String>,
        model: &Option<library::LibModel>,
    ) -> CallSite {
        let f = self.f;
        let mut outputs = Vec::new();
        if !inst.is_void {
            if let Some((b, x)) = self.reach.ret_bind.get(&i) {
                // A returned pointer's holders: the variables it is stored
                // in (`void *nls = NewtonCreate(..)`), as an argument's
                // pointees are the variables it points into.
                let pointees: Vec<u32> = if inst.is_pointer {
                    let slots = self.res.stored_to.get(&i).cloned().unwrap_or_default();
                    let mut held: Vec<u32> =
                        slots.iter().flat_map(|s| self.targets_of(s)).collect();
                    held.sort_unstable();
                    held.dedup();
                    held
                } else {
                    Vec::new()
                };
                outputs.push(OutputBinding {
                    output: CallOutput::Return,
                    blamed: b.clone(),
                    explicit: x.clone(),
                    pointees,
                    field: String::new(),
                });
            }
        }
        for k in 0..inst.args.len() as u32 {
            if !is_ptr_value(f, &inst.args[k as usize]) {
                self.value_arg(inst, k, model, &mut outputs);
            } else {
                self.pointer_arg(i, inst, k, &mut outputs);
            }
        }
        self.post_requests(inst, name, &outputs);
        CallSite {
            line: inst.line,
            column: inst.col,
            callee: name.clone(),
            arg_count: inst.args.len() as u32,
            outputs,
            model: model.as_ref().map(|md| md.outputs.clone()),
        }
    }

    /// A value argument names the variables it is read from, so that a
    /// side effect of the callee from this parameter (`axpy(y, alpha, x)`
    /// computes *y from alpha) fires when they are blamed. Nothing is
    /// written through it: it blames nothing itself.
    fn value_arg(
        &mut self,
        inst: &Inst,
        k: u32,
        model: &Option<library::LibModel>,
        outputs: &mut Vec<OutputBinding>,
    ) {
        let sources: Vec<u32> = value_sources(self.f, self.res, self.vars, &inst.args[k as usize])
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
    }

    /// A pointer argument: its targets with their alias classes and what
    /// the output reaches; or, for a lambda's closure, its captures.
    fn pointer_arg(&mut self, i: InstId, inst: &Inst, k: u32, outputs: &mut Vec<OutputBinding>) {
        let (class_id, members) = (&self.classes.class_id, &self.classes.members);
        // The argument's targets with their alias classes, and what the
        // output reaches (sorted vectors: this can be every variable).
        let targets = self.targets_of(&inst.args[k as usize]);
        let classes: BTreeSet<u32> = targets.iter().map(|&t| class_id[t as usize]).collect();
        let mut pointees: Vec<u32> = targets.into_iter().collect();
        for c in classes {
            pointees.extend(&members[c as usize]);
        }
        pointees.sort_unstable();
        pointees.dedup();
        let mut blamed = pointees.clone();
        let mut explicit = pointees.clone();
        if let Some((b, x)) = self.reach.arg_bind.get(&(i, k)) {
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
            self.closure_captures(i, k, outputs);
        }
    }

    /// A lambda's closure (a temporary of no variable): each capture is
    /// bound to what it captures.
    fn closure_captures(&mut self, i: InstId, k: u32, outputs: &mut Vec<OutputBinding>) {
        let (f, defined, vars) = (self.f, self.defined, self.vars);
        let (class_id, members) = (&self.classes.class_id, &self.classes.members);
        let m = self.res.m;
        let res = &mut *self.res;
        let temps = self
            .temps
            .get_or_insert_with(|| closure::Temporaries::new(f, res));
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

    /// A nonblocking MPI call: which buffers its request completes.
    fn post_requests(&mut self, inst: &Inst, name: &Option<String>, outputs: &[OutputBinding]) {
        let routine = name.as_deref().and_then(library::mpi_routine);
        if let Some((buffers, req)) = routine.as_deref().and_then(library::mpi_request_buffers) {
            if (req as usize) < inst.args.len() {
                // The buffers and what the call's outputs through them flow
                // into (a receive buffer unpacked into the grid blames the
                // grid too): what waiting for the request is for.
                let (mut blamed, mut explicit) = (BTreeSet::new(), BTreeSet::new());
                for &b in &buffers {
                    if let Some(a) = inst.args.get(b as usize) {
                        let t = self.targets_of(a);
                        blamed.extend(t.iter().copied());
                        explicit.extend(t);
                    }
                    if let Some(o) = outputs.iter().find(|o| o.output == CallOutput::Arg(b)) {
                        blamed.extend(o.blamed.iter().copied());
                        explicit.extend(o.explicit.iter().copied());
                    }
                }
                let req = self.targets_of(&inst.args[req as usize]);
                let sends = routine.as_deref().is_some_and(library::mpi_only_sends);
                self.request_buffers.push((req, blamed, explicit, sends));
            }
        }
    }

    /// A wait completing requests (call `i`) blames the buffers of the
    /// calls that posted them.
    fn complete_requests(&mut self, i: InstId, cs: &mut CallSite) {
        let Some(k) = cs
            .callee
            .as_deref()
            .and_then(library::mpi_routine)
            .and_then(|m| library::mpi_completion_requests(&m))
        else {
            return;
        };
        let k = k as usize;
        let Some(arg) = self.f.insts[i as usize].args.get(k) else {
            return;
        };
        let req = self.targets_of(arg);
        let (mut extra, mut extra_explicit) = (BTreeSet::new(), BTreeSet::new());
        // A wait that completes receives too waits for those: the sends'
        // buffers leave at once (a halo's packed faces are no wait's).
        let completes_receives = self
            .request_buffers
            .iter()
            .any(|(r, _, _, sends)| !sends && !r.is_disjoint(&req));
        for (r, b, x, sends) in &self.request_buffers {
            if !(r.is_disjoint(&req) || *sends && completes_receives) {
                extra.extend(b.iter().copied());
                extra_explicit.extend(x.iter().copied());
            }
        }
        if extra.is_empty() {
            return;
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
}
