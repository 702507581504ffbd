//! Where values point: the locations (variable or field, with pointer
//! dereferences) an address resolves to through GEP/load/cast chains (Up
//! pointers, 3.1), given where callees' returned pointers point
//! (`ReturnsInto`, found module-wide in `defined.rs`).

use crate::ir::*;
use crate::HashMap;
use std::collections::BTreeMap;

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub(super) enum Root {
    /// A DILocalVariable of the function.
    Var(u32),
    Global(u32),
    /// An alloca without debug info (retval, temporaries): tracked, never reported.
    Hidden(u32),
    /// A pointer parameter used without a declared variable (optimized IR).
    RawArg(u32),
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(super) struct Loc {
    pub(super) root: Root,
    pub(super) path: Vec<String>,
    /// Number of pointer dereferences from the root's own storage.
    pub(super) deref: u32,
    /// Debug type of the memory at this location.
    pub(super) ty: Option<TypeId>,
    /// False once an array index or pointer arithmetic was applied.
    pub(super) exact: bool,
}

impl Loc {
    /// The memory `path` and `deref` dereferences below this location (its
    /// type unknown, no longer exact).
    pub(super) fn below(&self, path: &[String], deref: u32) -> Loc {
        let mut p = self.path.clone();
        p.extend(path.iter().cloned());
        Loc {
            root: self.root,
            path: p,
            deref: self.deref + deref,
            ty: None,
            exact: false,
        }
    }
}

pub(super) type Key = (Root, Vec<String>);

pub(super) const MAX_LOCS: usize = 16;

pub(super) struct Resolver<'a> {
    pub(super) m: &'a Module,
    pub(super) f: &'a Function,
    /// Where the pointers returned by the module's functions point.
    pub(super) rets: &'a HashMap<String, Vec<ReturnsInto>>,
    /// Per call, the addresses its value (casts aside) is stored to.
    pub(super) stored_to: HashMap<InstId, Vec<Value>>,
    pub(super) alloca_var: HashMap<InstId, u32>,
    pub(super) arg_var: HashMap<u32, (u32, bool)>,
    pub(super) memo: Vec<Option<Vec<Loc>>>,
    pub(super) busy: Vec<bool>,
}

impl<'a> Resolver<'a> {
    /// A resolver of `f`'s values, nothing resolved yet.
    pub(super) fn new(
        m: &'a Module,
        f: &'a Function,
        rets: &'a HashMap<String, Vec<ReturnsInto>>,
        alloca_var: HashMap<InstId, u32>,
        arg_var: HashMap<u32, (u32, bool)>,
    ) -> Self {
        Resolver {
            m,
            f,
            rets,
            stored_to: stored_to(f),
            alloca_var,
            arg_var,
            memo: vec![None; f.insts.len()],
            busy: vec![false; f.insts.len()],
        }
    }
}

impl Resolver<'_> {
    pub(super) fn locs(&mut self, v: &Value) -> Vec<Loc> {
        match v {
            Value::Inst(i) => self.inst_locs(*i),
            Value::Arg(k) => match self.arg_var.get(k) {
                Some(&(var, true)) => vec![Loc {
                    root: Root::Var(var),
                    path: vec![],
                    deref: 0,
                    ty: self.f.vars[var as usize].ty,
                    exact: true,
                }],
                Some(&(var, false)) => vec![Loc {
                    root: Root::Var(var),
                    path: vec![],
                    deref: 1,
                    ty: self.m.pointee(self.f.vars[var as usize].ty),
                    exact: true,
                }],
                None if self.f.params.get(*k as usize).is_some_and(|p| p.is_pointer) => {
                    vec![Loc {
                        root: Root::RawArg(*k),
                        path: vec![],
                        deref: 1,
                        ty: None,
                        exact: true,
                    }]
                }
                None => vec![],
            },
            Value::Global(g) => vec![Loc {
                root: Root::Global(*g),
                path: vec![],
                deref: 0,
                ty: self.m.globals[*g as usize].ty,
                exact: true,
            }],
            _ => vec![],
        }
    }

    fn inst_locs(&mut self, i: InstId) -> Vec<Loc> {
        if let Some(l) = &self.memo[i as usize] {
            return l.clone();
        }
        if self.busy[i as usize] {
            return vec![];
        }
        self.busy[i as usize] = true;
        let inst = &self.f.insts[i as usize];
        let mut out: Vec<Loc> = match &inst.op {
            Op::Alloca { .. } => self.alloca_locs(i),
            Op::Load if inst.is_pointer => {
                let a = inst.args[0].clone();
                self.locs(&a)
                    .into_iter()
                    .map(|l| Loc {
                        deref: l.deref + 1,
                        ty: self.m.pointee(l.ty),
                        exact: true,
                        ..l
                    })
                    .collect()
            }
            Op::Gep { .. } => self.gep_locs(i),
            Op::Cast => {
                let a = inst.args[0].clone();
                self.locs(&a)
            }
            // A pointer returned by a function of the module that returns
            // pointers into its arguments' memory (accessors: `double &x(int
            // i) { return m_x[i]; }`, `T *get(S *s) { return s->t; }`).
            Op::Call { callee: Some(name) } if inst.is_pointer && !self.rets.contains_key(name) => {
                self.fresh_locs(i)
            }
            Op::Call { callee: None } if inst.is_pointer => self.fresh_locs(i),
            Op::Call { callee: Some(name) } if inst.is_pointer => self.returned_locs(i, name),
            Op::Phi | Op::Select => self.merged_locs(i),
            _ => vec![],
        };
        out.truncate(MAX_LOCS);
        self.busy[i as usize] = false;
        self.memo[i as usize] = Some(out.clone());
        out
    }

    /// The storage of alloca `i`: its variable's, else hidden memory.
    fn alloca_locs(&self, i: InstId) -> Vec<Loc> {
        match self.alloca_var.get(&i) {
            Some(&var) => vec![Loc {
                root: Root::Var(var),
                path: vec![],
                deref: 0,
                ty: self.f.vars[var as usize].ty,
                exact: true,
            }],
            None => vec![Loc {
                root: Root::Hidden(i),
                path: vec![],
                deref: 0,
                ty: None,
                exact: true,
            }],
        }
    }

    /// GEP `i`'s locations: its base's, down its steps (fields named on
    /// the path, indices making them inexact).
    fn gep_locs(&mut self, i: InstId) -> Vec<Loc> {
        let inst = &self.f.insts[i as usize];
        let Op::Gep { steps, .. } = &inst.op else {
            return vec![];
        };
        let base = inst.args[0].clone();
        let first_zero = matches!(inst.args.get(1), Some(Value::ConstInt(0)));
        let steps = steps.clone();
        self.locs(&base)
            .into_iter()
            .map(|mut l| {
                if !first_zero {
                    l.exact = false;
                }
                for s in &steps {
                    match s {
                        GepStep::Field { index, offset } => {
                            let member = self.m.member_at(l.ty, *offset, *index);
                            if let Some(name) = member.and_then(path_component) {
                                l.path.push(name.to_string());
                            }
                            l.ty = member.and_then(|mem| mem.ty);
                        }
                        GepStep::Index { .. } => {
                            l.exact = false;
                            if let Some(DiType::Array { base, .. }) =
                                self.m.resolve(l.ty).map(|t| self.m.ty(t))
                            {
                                l.ty = *base;
                            }
                        }
                    }
                }
                l
            })
            .collect()
    }

    /// Where the pointer call `i` to `name` returns points: below the
    /// arguments it returns pointers into.
    fn returned_locs(&mut self, i: InstId, name: &str) -> Vec<Loc> {
        let inst = &self.f.insts[i as usize];
        let into = self.rets.get(name).cloned().unwrap_or_default();
        let mut v = Vec::new();
        for r in into {
            let Some(a) = inst.args.get(r.arg as usize).cloned() else {
                continue;
            };
            for l in self.locs(&a) {
                let loc = l.below(&r.path, r.deref);
                if !v.contains(&loc) {
                    v.push(loc);
                }
            }
        }
        v
    }

    /// The locations of any of phi or select `i`'s values.
    fn merged_locs(&mut self, i: InstId) -> Vec<Loc> {
        let inst = &self.f.insts[i as usize];
        let args: Vec<Value> = if matches!(inst.op, Op::Select) {
            inst.args.iter().skip(1).cloned().collect()
        } else {
            inst.args.clone()
        };
        let mut v = Vec::new();
        for a in &args {
            for l in self.locs(a) {
                if !v.contains(&l) {
                    v.push(l);
                }
            }
        }
        v
    }
}

/// The name a member adds to a field path, or `None` when the member's
/// fields count as its owner's: base-class subobjects (C++ inheritance),
/// anonymous structs and unions, and the standard library's internals
/// (reserved identifiers such as `_M_impl`, `_M_start`, `__begin_`), so
/// that `dom.m_x` is reported, not `dom.m_x._M_impl._M_start`. A member of
/// an unknown type is its owner too: field paths never show placeholders.
fn path_component(member: &Member) -> Option<&str> {
    let name = member.name.as_str();
    let mut chars = name.chars();
    let reserved = match (chars.next(), chars.next()) {
        (Some('_'), Some(c)) => c == '_' || c.is_ascii_uppercase(),
        _ => false,
    };
    if member.is_base || name.is_empty() || reserved {
        None
    } else {
        Some(name)
    }
}

impl Resolver<'_> {
    /// A pointer to memory of its own (`new`, `malloc`, a factory): the
    /// memory of the variables it is stored into (`Dom *dom = new Dom(n)`
    /// constructs `dom`'s object through the call's result).
    /// True when `v` (casts aside) is a pointer returned by a call that
    /// points into none of the call's arguments as far as the module
    /// knows (a factory, `Lattice *src = lattice_create(..)`): memory of
    /// its own, which the pointer it is stored to owns (`fresh_locs`).
    pub(super) fn returns_fresh(&self, v: &Value) -> bool {
        let Value::Inst(i) = strip_casts(self.f, v) else {
            return false;
        };
        let inst = &self.f.insts[i as usize];
        match &inst.op {
            Op::Call { callee: Some(name) } => inst.is_pointer && !self.rets.contains_key(name),
            Op::Call { callee: None } => inst.is_pointer,
            _ => false,
        }
    }

    fn fresh_locs(&mut self, i: InstId) -> Vec<Loc> {
        let slots = self.stored_to.get(&i).cloned().unwrap_or_default();
        let mut v = Vec::new();
        for slot in slots {
            for l in self.locs(&slot) {
                if l.deref != 0 {
                    continue;
                }
                let loc = Loc {
                    root: l.root,
                    path: l.path,
                    deref: 1,
                    ty: self.m.pointee(l.ty),
                    exact: true,
                };
                if !v.contains(&loc) {
                    v.push(loc);
                }
            }
        }
        v
    }
}

/// Per instruction of `f`, the addresses its value is stored to.
pub(super) fn stored_to(f: &Function) -> HashMap<InstId, Vec<Value>> {
    let mut out: HashMap<InstId, Vec<Value>> = HashMap::default();
    for inst in f.insts.iter().filter(|i| matches!(i.op, Op::Store)) {
        if let (Value::Inst(j), Some(addr)) = (strip_casts(f, &inst.args[0]), inst.args.get(1)) {
            // Only calls' results are looked up (a function of 240k stores
            // kept 48 MB of lists for the others).
            if matches!(f.insts[j as usize].op, Op::Call { .. }) {
                out.entry(j).or_default().push(addr.clone());
            }
        }
    }
    out
}

pub(crate) use crate::ir::strip_casts;

/// Where a function's returned pointer points: into the memory its
/// argument `arg` points to, `path` fields below it, `deref` pointer loads
/// further (0: the argument itself, as `return this;` does).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReturnsInto {
    pub arg: u32,
    pub path: Vec<String>,
    pub deref: u32,
}

impl ReturnsInto {
    /// Where a stored summary says its returned pointer points.
    pub fn stored(s: &blame_formats::static_db::FunctionSummary) -> Vec<ReturnsInto> {
        s.returns_into
            .iter()
            .map(|r| ReturnsInto {
                arg: r.arg,
                path: r.path.clone(),
                deref: r.deref,
            })
            .collect()
    }
}

/// Variables of allocas and arguments of `f`: (alloca → variable,
/// argument → (variable, declared on the argument itself), variable →
/// parameter position, variable → declaration line of allocas).
pub(super) type Bindings = (
    HashMap<InstId, u32>,
    HashMap<u32, (u32, bool)>,
    HashMap<u32, u32>,
    BTreeMap<u32, u32>,
);

pub(super) fn variable_bindings(f: &Function) -> Bindings {
    let mut alloca_var = HashMap::default();
    let mut arg_var = HashMap::default();
    let mut declared_line: BTreeMap<u32, u32> = BTreeMap::new();
    for inst in &f.insts {
        match (&inst.op, inst.args.first()) {
            (Op::DbgDeclare { var }, Some(Value::Inst(a))) => {
                alloca_var.insert(*a, *var);
                declared_line.insert(*var, f.vars[*var as usize].line);
            }
            (Op::DbgDeclare { var }, Some(Value::Arg(k))) => {
                arg_var.insert(*k, (*var, true));
            }
            (Op::DbgValue { var }, Some(Value::Arg(k))) => {
                arg_var.entry(*k).or_insert((*var, false));
            }
            _ => {}
        }
    }
    let mut param_of: HashMap<u32, u32> = HashMap::default();
    for (k, &(var, _)) in &arg_var {
        param_of.insert(var, *k);
    }
    // -O0: a parameter is spilled to its variable's alloca; the incoming
    // value is that variable's value.
    for inst in &f.insts {
        if let (Op::Store, Some(Value::Arg(k)), Some(Value::Inst(a))) =
            (&inst.op, inst.args.first(), inst.args.get(1))
        {
            if let Some(&var) = alloca_var.get(a) {
                param_of.entry(var).or_insert(*k);
                arg_var.entry(*k).or_insert((var, false));
            }
        }
    }
    (alloca_var, arg_var, param_of, declared_line)
}

/// The values `f` returns: the operands of its `ret`s and, at -O0 with
/// several returns (`ret (load %retval)`), the values stored into that
/// hidden slot.
pub(super) fn returned_values(f: &Function, alloca_var: &HashMap<InstId, u32>) -> Vec<Value> {
    let mut values: Vec<Value> = Vec::new();
    for inst in f.insts.iter().filter(|i| matches!(i.op, Op::Ret)) {
        let Some(a) = inst.args.first() else { continue };
        values.push(a.clone());
        if let Value::Inst(l) = strip_casts(f, a) {
            let load = &f.insts[l as usize];
            if let (Op::Load, Some(Value::Inst(slot))) = (&load.op, load.args.first()) {
                // The compiler's return slot, or a local pointer returned
                // (`Node *n = pool_alloc(p); ..; return n;`): what is
                // stored there is what is returned.
                let local_pointer = alloca_var.contains_key(slot) && load.is_pointer;
                if !alloca_var.contains_key(slot) || local_pointer {
                    values.extend(
                        f.insts
                            .iter()
                            .filter(|s| {
                                matches!(s.op, Op::Store)
                                    && s.args.get(1) == Some(&Value::Inst(*slot))
                            })
                            .map(|s| s.args[0].clone()),
                    );
                }
            }
        }
    }
    values
}
