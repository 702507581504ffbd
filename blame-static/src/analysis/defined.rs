//! The module-level facts a function's analysis looks callees up in
//! (`DefinedFunctions`): which functions have a body, where those returning
//! pointers point (accessors), which fields of returned objects point into
//! arguments (factories), which parameters are const, and each function's
//! write and read sets (`write_sets`) and global writes. Above both the
//! location resolver (`locations`) and the write sets, which it combines.

use super::locations::{returned_values, variable_bindings, Resolver, ReturnsInto, Root, MAX_LOCS};
use super::write_sets::ParamWrite;
use crate::ir::*;
use crate::HashMap;
use std::collections::BTreeSet;

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
        let mut rets = returns_into(m, &external.returns);
        super::pointer_sets::returns_of_module(&external.slots, &mut rets);
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
        let mut access = super::write_sets::access_sets(m, &rets, &names, &const_params, external);
        super::override_sets::of_module(m, &mut access);
        super::pointer_sets::of_module(&external.slots, &mut access);
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

    /// Per parameter `k` of a call through slot `name`, the parameters the
    /// functions stored there compute their writes through `k` from.
    pub fn slot_flows(&self, name: &str, k: u32) -> Option<&[u32]> {
        self.access
            .slot_flows
            .get(name)
            .map(|fs| fs.get(k as usize).map(Vec::as_slice).unwrap_or(&[]))
    }

    /// True when a call of `name` writes, through argument `k` pointing to
    /// an object of type `ty`, one of its pointer members (`gw->V =
    /// clone_array(..)` in `GmresWorkInit(&nm->gw, ..)`): it links the
    /// object to memory, building a data structure, not recording numbers.
    pub fn writes_links(&self, name: &str, k: u32, ty: Option<TypeId>) -> bool {
        self.param_writes(name, k).is_some_and(|ws| {
            ws.iter().any(|w| {
                w.deref == 0
                    && w.path.first().is_some_and(|m| {
                        self.module
                            .member_named(ty, m)
                            .is_some_and(|mm| self.module.is_pointer(mm.ty))
                    })
            })
        })
    }

    /// Sets the flows of this module's functions from their summaries
    /// (`summary_flows`), for a second analysis of their callers.
    pub fn set_flows(&mut self, flows: HashMap<String, Vec<Vec<u32>>>) {
        self.access.flows.extend(flows);
    }

    /// Sets the parameters this module's functions only record numbers
    /// through, from their summaries (`summary_record_params`).
    pub fn set_records(&mut self, records: HashMap<String, Vec<(u32, bool)>>) {
        self.access.records.extend(records);
    }

    /// The parameters through which `name` only records numbers (a history,
    /// a timing vector it fills), when its summary is known, each with
    /// whether it is the object returned by value.
    pub fn record_params(&self, name: &str) -> &[(u32, bool)] {
        self.access
            .records
            .get(name)
            .map(Vec::as_slice)
            .unwrap_or(&[])
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

/// For every defined function of `m` that returns a pointer, where it
/// points relative to its pointer arguments, to a fixed point over calls
/// (an accessor returning `m_x[i]` through `std::vector::operator[]`).
fn returns_into(
    m: &Module,
    external: &HashMap<String, Vec<ReturnsInto>>,
) -> HashMap<String, Vec<ReturnsInto>> {
    // Functions of other units, and slots called through, return what
    // their stored summaries say.
    let mut rets: HashMap<String, Vec<ReturnsInto>> = external.clone();
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
