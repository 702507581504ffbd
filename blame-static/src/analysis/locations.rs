//! Where values point: the locations (variable or field, with pointer
//! dereferences) an address resolves to through GEP/load/cast chains (Up
//! pointers, 3.1), and the module-level facts that let a caller resolve
//! through calls: where returned pointers point (accessors) and which fields
//! of returned objects point into arguments (factories).

use super::write_sets::ParamWrite;
use crate::ir::*;
use crate::HashMap;
use std::collections::{BTreeMap, BTreeSet};

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
            Op::Alloca { .. } => match self.alloca_var.get(&i) {
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
            },
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
            Op::Gep { steps, .. } => {
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
                                    if let Some(DiType::Array { base }) =
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
            Op::Call { callee: Some(name) } if inst.is_pointer => {
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
            Op::Phi | Op::Select => {
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
            _ => vec![],
        };
        out.truncate(MAX_LOCS);
        self.busy[i as usize] = false;
        self.memo[i as usize] = Some(out.clone());
        out
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

/// The functions of a module that have a body (calls to any other name use
/// the library models), and where those returning pointers point. Built
/// once per module so that looking up a callee does not scan every function
/// of the module.
pub struct DefinedFunctions<'a> {
    names: HashMap<&'a str, bool>,
    pub(super) rets: HashMap<String, Vec<ReturnsInto>>,
    fields: HashMap<String, Vec<FieldAlias>>,
    /// Per function, the parameters declared as pointers or references to
    /// const (`const Real_t *const x`, `const Vec &v`): the body cannot
    /// write through them.
    const_params: HashMap<&'a str, Vec<u32>>,
    /// Per function, each parameter's declared type (by position).
    param_types: HashMap<&'a str, Vec<(u32, Option<TypeId>)>>,
    /// Per function, per parameter, where the body may write through it
    /// and what it may read through it.
    access: super::write_sets::AccessSets,
    /// Per function, the globals it writes, itself or through its callees.
    globals: super::global_writes::GlobalWrites,
    module: &'a Module,
    /// The module's complete C++ classes by demangled qualified name,
    /// built on first use (`by_value_class`).
    classes: std::sync::OnceLock<HashMap<String, TypeId>>,
}

/// A field of the object a function returns that points into memory of an
/// argument: `ret_path` below the returned pointer's target aliases
/// `arg_path` below what argument `arg` points to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldAlias {
    pub ret_path: Vec<String>,
    pub arg: u32,
    pub arg_path: Vec<String>,
}

impl<'a> DefinedFunctions<'a> {
    pub fn new(m: &'a Module) -> Self {
        Self::with_external(m, &super::write_sets::AccessSets::default())
    }

    /// [`DefinedFunctions::new`] with the write and read sets of functions
    /// of other units (`AccessSets::external`): calls to them may-define
    /// and read only what those sets say.
    pub fn with_external(m: &'a Module, external: &super::write_sets::AccessSets) -> Self {
        let mut names = HashMap::with_capacity_and_hasher(m.functions.len(), Default::default());
        for g in &m.functions {
            // The first function of a name decides, as a linear search would.
            names.entry(g.name.as_str()).or_insert(!g.is_declaration);
        }
        let rets = returns_into(m);
        let fields = field_aliases(m, &rets);
        let mut const_params: HashMap<&str, Vec<u32>> = HashMap::default();
        let mut param_types: HashMap<&str, Vec<(u32, Option<TypeId>)>> = HashMap::default();
        for g in m.functions.iter().filter(|g| !g.is_declaration) {
            let (_, _, param_of, _) = variable_bindings(g);
            param_types.entry(g.name.as_str()).or_insert_with(|| {
                let mut ts: Vec<(u32, Option<TypeId>)> = param_of
                    .iter()
                    .map(|(&var, &k)| (k, g.vars[var as usize].ty))
                    .collect();
                ts.sort_unstable();
                ts
            });
            let mut ks: Vec<u32> = param_of
                .iter()
                .filter(|(&var, _)| m.points_to_const(g.vars[var as usize].ty))
                .map(|(_, &k)| k)
                .collect();
            ks.sort_unstable();
            ks.dedup();
            if !ks.is_empty() {
                const_params.entry(g.name.as_str()).or_insert(ks);
            }
        }
        let access = super::write_sets::access_sets(m, &rets, &names, &const_params, external);
        let globals = super::global_writes::module_global_writes(m);
        DefinedFunctions {
            names,
            rets,
            fields,
            const_params,
            param_types,
            access,
            globals,
            module: m,
            classes: std::sync::OnceLock::new(),
        }
    }

    /// The class a function of another unit takes by value as argument `k`
    /// of a call of `nargs` (`solve(lg::View<double>, ...)`, read from its
    /// mangled name), when this module knows the class's members.
    pub fn by_value_class(&self, callee: &str, nargs: usize, k: u32) -> Option<TypeId> {
        if !self.module.is_cxx || self.names.get(callee) == Some(&true) {
            return None;
        }
        let name = crate::library_models::by_value_class_param(callee, nargs, k as usize)?;
        let classes = self.classes.get_or_init(|| {
            let mut out: HashMap<String, TypeId> = HashMap::default();
            for (t, ty) in self.module.types.iter().enumerate() {
                if let DiType::Struct {
                    identifier,
                    declaration: false,
                    ..
                } = ty
                {
                    let d = crate::demangle(identifier);
                    if let Some(q) = d.strip_prefix("typeinfo name for ") {
                        out.entry(q.to_string()).or_insert(t as TypeId);
                    }
                }
            }
            out
        });
        classes.get(&name).copied()
    }

    /// The declared type of `name`'s parameter `k` (a function of the
    /// module with debug info for it).
    pub fn param_type(&self, name: &str, k: u32) -> Option<TypeId> {
        let ts = self.param_types.get(name)?;
        let i = ts.binary_search_by_key(&k, |&(p, _)| p).ok()?;
        ts[i].1
    }

    /// True when `name`'s parameter `k` is a pointer or reference to const.
    pub fn is_const_param(&self, name: &str, k: u32) -> bool {
        self.const_params
            .get(name)
            .is_some_and(|ks| ks.binary_search(&k).is_ok())
    }

    /// `name`'s write and read sets as the static db stores them.
    pub fn stored_sets(&self, name: &str) -> super::write_sets::StoredSets {
        self.access.stored(name)
    }

    /// Where `name`'s body may write through its parameter `k` (below what
    /// the argument points to), or, for a function of another unit, its
    /// stored write set; `None` when not known: anything the argument
    /// reaches.
    pub fn param_writes(&self, name: &str, k: u32) -> Option<&[ParamWrite]> {
        self.access
            .writes
            .get(name)
            .and_then(|ws| ws.get(k as usize))
            .map(Vec::as_slice)
    }

    /// The parameters whose values or pointees `name` computes what it
    /// writes through parameter `k` from (besides `k` itself), when its
    /// summary is known (a function of another unit, or of this module
    /// after a first analysis); `None`: every argument.
    pub fn param_flows(&self, name: &str, k: u32) -> Option<&[u32]> {
        self.access
            .flows
            .get(name)
            .map(|fs| fs.get(k as usize).map(Vec::as_slice).unwrap_or(&[]))
    }

    /// Sets the flows of this module's functions from their summaries
    /// (`summary_flows`), for a second analysis of their callers.
    pub fn set_flows(&mut self, flows: HashMap<String, Vec<Vec<u32>>>) {
        self.access.flows.extend(flows);
    }

    /// What `name`'s body may read through its parameter `k` (below what
    /// the argument points to); `None` when not known: anything.
    pub fn param_reads(&self, name: &str, k: u32) -> Option<&[ParamWrite]> {
        self.access
            .reads
            .get(name)
            .and_then(|ws| ws.get(k as usize))
            .map(Vec::as_slice)
    }

    /// The fields of the object `name` returns that point into its arguments.
    pub fn field_aliases(&self, name: &str) -> &[FieldAlias] {
        self.fields.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    pub fn contains(&self, name: &str) -> bool {
        self.names.get(name).copied().unwrap_or(false)
    }

    /// The globals (as summaries name them) that a call of `name` writes.
    pub fn global_writes(&self, name: &str) -> &[String] {
        self.globals.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Where the pointer `name` returns points (empty when unknown or fresh memory).
    pub fn returns_into(&self, name: &str) -> &[ReturnsInto] {
        self.rets.get(name).map(Vec::as_slice).unwrap_or(&[])
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

/// For every defined function returning a pointer to an object it fills:
/// the fields of that object it points into its arguments' memory.
fn field_aliases(
    m: &Module,
    rets: &HashMap<String, Vec<ReturnsInto>>,
) -> HashMap<String, Vec<FieldAlias>> {
    let mut out = HashMap::default();
    for f in m
        .functions
        .iter()
        .filter(|f| !f.is_declaration && f.returns_value && f.params.iter().any(|p| p.is_pointer))
    {
        let (alloca_var, arg_var, param_of, _) = variable_bindings(f);
        let mut res = Resolver::new(m, f, rets, alloca_var, arg_var);
        // The variables whose target is returned (`return p;`).
        let returned: BTreeSet<Root> = returned_values(f, &res.alloca_var)
            .iter()
            .flat_map(|v| res.locs(v))
            .filter(|l| l.path.is_empty() && l.deref == 1)
            .map(|l| l.root)
            .collect();
        if returned.is_empty() {
            continue;
        }
        let mut found: BTreeSet<FieldAlias> = BTreeSet::new();
        for inst in f.insts.iter().filter(|i| matches!(i.op, Op::Store)) {
            let targets = res.locs(&inst.args[1]);
            let values = res.locs(&inst.args[0]);
            for t in targets
                .iter()
                .filter(|t| returned.contains(&t.root) && t.deref == 1 && !t.path.is_empty())
            {
                for v in &values {
                    let arg = match v.root {
                        Root::Var(x) => param_of.get(&x).copied(),
                        Root::RawArg(k) => Some(k),
                        _ => None,
                    };
                    let Some(arg) = arg else { continue };
                    found.insert(FieldAlias {
                        ret_path: t.path.clone(),
                        arg,
                        arg_path: v.path.clone(),
                    });
                }
            }
        }
        if !found.is_empty() {
            out.insert(
                f.name.clone(),
                found.into_iter().take(MAX_LOCS).collect::<Vec<_>>(),
            );
        }
    }
    out
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
                if !alloca_var.contains_key(slot) {
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

/// For every defined function of `m` that returns a pointer, where it
/// points relative to its pointer arguments, to a fixed point over calls
/// (an accessor returning `m_x[i]` through `std::vector::operator[]`).
fn returns_into(m: &Module) -> HashMap<String, Vec<ReturnsInto>> {
    let mut rets: HashMap<String, Vec<ReturnsInto>> = HashMap::default();
    let candidates: Vec<&Function> = m
        .functions
        .iter()
        .filter(|f| {
            !f.is_declaration
                && f.params.iter().any(|p| p.is_pointer)
                && f.insts.iter().any(|i| {
                    matches!(i.op, Op::Ret)
                        && i.args.first().is_some_and(|a| match a {
                            Value::Inst(j) => f.insts[*j as usize].is_pointer,
                            Value::Arg(k) => {
                                f.params.get(*k as usize).is_some_and(|p| p.is_pointer)
                            }
                            _ => false,
                        })
                })
        })
        .collect();
    // Chains of accessors are short; a few rounds reach the fixed point.
    for _ in 0..6 {
        let mut changed = false;
        for f in &candidates {
            let (alloca_var, arg_var, param_of, _) = variable_bindings(f);
            let mut res = Resolver::new(m, f, &rets, alloca_var, arg_var);
            let mut found: BTreeSet<ReturnsInto> = BTreeSet::new();
            for value in returned_values(f, &res.alloca_var) {
                for l in res.locs(&value) {
                    let arg = match l.root {
                        Root::Var(v) => param_of.get(&v).copied(),
                        Root::RawArg(k) => Some(k),
                        _ => None,
                    };
                    let Some(arg) = arg else { continue };
                    let base = res.locs(&Value::Arg(arg));
                    let Some(b) = base.first() else { continue };
                    if l.deref < b.deref || !l.path.starts_with(&b.path) {
                        continue;
                    }
                    found.insert(ReturnsInto {
                        arg,
                        path: l.path[b.path.len()..].to_vec(),
                        deref: l.deref - b.deref,
                    });
                }
            }
            let found: Vec<ReturnsInto> = found.into_iter().take(MAX_LOCS).collect();
            if !found.is_empty() && rets.get(&f.name) != Some(&found) {
                rets.insert(f.name.clone(), found);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    rets
}
