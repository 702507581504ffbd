//! Intraprocedural variable blame of one function (dissertation 3.1–3.3,
//! 5.1) on the plain IR model.
//!
//! The blame graph has one node per instruction, per parameter value, and
//! per (call, pointer argument) output. Data edges follow Table 3.1: a value
//! depends on its operands; `load @V` depends on the stores to V that reach
//! it (the Temp-Blame set, with kills), a load through a pointer on every
//! write to that memory that can run before it (an earlier instruction of
//! its block, or a block from which the load's block is reachable), a call's
//! output being such a write when the callee has a body or its library
//! model writes that argument; a store depends on the stored value and on its
//! address computation (the Down-pointer edge). Stores are attributed with
//! `doStore` semantics: to the variable or field the address resolves to
//! through GEP/load/cast chains (Up pointers, GEP as BASE or FIELD), then
//! to its containers (Field parent) and aliases. Implicit edges (Figure 3.4)
//! go from every instruction of a block to the terminators it is control
//! dependent on (post-dominator based; loop bodies depend on the loop's
//! exit test). A variable's explicit lines are the lines reached over data
//! edges from its writes; its implicit lines those reached once a control
//! edge has been taken. Reachability replaces the compact graph of 3.2.1:
//! the lines stored at each migrated node are exactly what it reaches.

mod closure;
mod defined;
mod global_writes;
mod graph;
mod index_cursors;
mod locations;
mod reads;
mod records;
mod slots;
mod variables;
mod write_sets;

pub use defined::{DefinedFunctions, FieldAlias};
pub use locations::ReturnsInto;
#[cfg(test)]
pub(crate) use reads::read_table_tests;
pub use write_sets::{summary_flows, AccessSets, ParamWrite, StoredSets};

use crate::cfg::Cfg;
use crate::ir::*;
use crate::library_models::{self as library, LibModel};
use crate::{HashMap, HashSet};
use blame_formats::static_db::*;
use graph::{find, CallRoots, Components, EdgeList, Edges, MayDefVisibility};
use locations::{returned_values, variable_bindings, Key, Loc, Resolver, Root};
use std::collections::{BTreeMap, BTreeSet};
use variables::Vars;

/// Analyzes one defined function into its summary (names, file, hash filled by the caller).
pub fn analyze(m: &Module, f: &Function) -> FunctionSummary {
    analyze_with(m, &DefinedFunctions::new(m), f)
}

/// [`analyze`] with the module's defined functions computed once by the
/// caller. The phases: variables, writes, reaching definitions, data edges,
/// alias classes and `doStore`, reachability (explicit and implicit lines,
/// call bindings), aliases, side effects, call sites, and the read table.
pub fn analyze_with(m: &Module, defined: &DefinedFunctions, f: &Function) -> FunctionSummary {
    let ni = f.insts.len();
    let t0 = std::time::Instant::now();
    let profile = std::env::var_os("BLAME_PROFILE").is_some();
    let cfg = Cfg::new(f);
    let t_cfg = t0.elapsed();

    // Variables of allocas and arguments, and which parameter each variable holds.
    let (alloca_var, arg_var, param_of, declared_line) = variable_bindings(f);
    let mut res = Resolver::new(m, f, &defined.rets, alloca_var, arg_var);
    let mut vars = Vars {
        m,
        f,
        param_of: &param_of,
        out: Vec::new(),
        by_key: HashMap::default(),
        declared: BTreeSet::new(),
        decl_ty: Vec::new(),
    };
    // Parameters first (by position), then locals in declaration order.
    let mut declared: Vec<u32> = declared_line.keys().copied().collect();
    declared.extend(res.arg_var.values().map(|&(v, _)| v));
    declared.sort_by_key(|v| (param_of.get(v).copied().unwrap_or(u32::MAX), *v));
    declared.dedup();
    for &v in &declared {
        if let Some(i) = vars.get(Root::Var(v), &[], None) {
            if !param_of.contains_key(&v) {
                vars.declared.insert(i);
            }
        }
    }

    let mut w = collect_writes(m, defined, f, &mut res, &mut vars);
    // Element pointers are known from their bindings alone: reads through
    // one depend on its binding (`data_edges`).
    let element_pointers = element_owners(&vars.out, &w.pointer_sources);
    // Those holding addresses inside an array or object (`&blocks[n]`,
    // `&nodes[i]`), not copies of another pointer (`x = y`, a cursor
    // starting at a list's head).
    let unbound: HashSet<u32> = element_pointers
        .iter()
        .filter(|&&(_, o)| !vars.out[o as usize].is_pointer)
        .map(|&(l, _)| l)
        .collect();
    let element_roots: HashSet<Root> = vars
        .by_key
        .iter()
        .filter(|((_, path), v)| path.is_empty() && unbound.contains(v))
        .map(|((root, _), _)| *root)
        .collect();
    // Per call, the data structures (root variables) it may write and
    // those it reads through its pointer arguments.
    let mut call_roots: CallRoots = Default::default();
    for (c, _, targets, may_write) in &w.arg_targets {
        let roots = targets.iter().map(|&t| root_of(&vars.out, t));
        call_roots.1.entry(*c).or_default().extend(roots.clone());
        if *may_write {
            call_roots.0.entry(*c).or_default().extend(roots);
        }
    }
    let graph = data_edges(
        f,
        &cfg,
        defined,
        &mut res,
        &mut w,
        &element_roots,
        &call_roots,
    );
    factory_aliases(f, defined, &mut res, &mut vars, &mut w.alias_pairs);
    // (Before the alias classes and the writes per variable: it may name
    // the member a view is copied from.)
    iterator_owners(m, f, &mut res, &mut vars);
    let classes = alias_classes(vars.out.len(), &w.alias_pairs);
    let mut var_writes = do_store(&mut vars, &w, &classes);
    // The return value: a variable written by the returns.
    if f.returns_value {
        vars.out.push(Variable {
            name: "return".into(),
            kind: VarKind::Return,
            type_name: String::new(),
            line: f.line,
            parent: None,
            param_index: None,
            is_exit: true,
            is_pointer: false,
            is_scalar: false,
            explicit_lines: vec![],
            implicit_lines: vec![],
            write_lines: vec![],
            aliases: vec![],
            heap_bytes: 0,
            element_of: None,
            is_record: false,
            is_result: false,
        });
        let rets: Vec<u32> = f
            .insts
            .iter()
            .enumerate()
            .filter(|(_, i)| matches!(i.op, Op::Ret) && !i.args.is_empty())
            .map(|(n, _)| n as u32)
            .collect();
        var_writes.push(rets);
    }

    let t_graph = t0.elapsed();
    for (l, o) in element_pointers {
        vars.out[l as usize].element_of = Some(o);
    }
    unbind_element_pointers(&mut vars, &w, &unbound, &mut var_writes);
    let reads_of_params = param_reads(f, &mut res, &param_of, &graph.load_locs);
    let reach = reach(
        f,
        &cfg,
        &graph,
        &w,
        &reads_of_params,
        &mut vars,
        &var_writes,
    );
    let t_reach = t0.elapsed();
    set_aliases(f, &mut res, &mut vars, &classes);
    let (side, param_aliases) = side_effects(&vars, &classes, &reach);
    let call_sites = call_sites(f, defined, &mut res, &vars, &classes, &w, &reach);
    let (loops, reads) = reads::loops_and_reads(m, f, &cfg, &mut res, &mut vars);
    name_private_copies(f, &mut vars.out);
    reads::allocation_sizes(f, &mut res, &mut vars);
    // (After the writes are numbered: it may name a global only read here.)
    index_cursors::index_cursors(f, &mut res, &mut vars);
    let mut feeds = records::Feeds {
        other: reach.feeds_other.clone(),
        roots: reach.fed_roots.clone(),
    };
    feeds.other.resize(vars.out.len(), false);
    feeds.roots.resize(vars.out.len(), Vec::new());
    for g in records::globals_read_into_data(&graph, &vars, &var_writes) {
        feeds.other[g as usize] = true;
        feeds.roots[g as usize].clear();
    }
    let fields_feeding_data =
        records::record_fields(f, defined, &mut vars, &var_writes, &w, &graph);
    records::result_records(
        f,
        defined,
        &mut vars.out,
        &var_writes,
        &w,
        graph.first_obj,
        &feeds,
    );

    let mut lines: Vec<u32> = f.insts.iter().map(|i| i.line).filter(|&l| l > 0).collect();
    lines.sort_unstable();
    lines.dedup();
    if profile && t0.elapsed().as_millis() > 20 {
        eprintln!(
            "{}: {} insts, {} blocks, {} vars, {} nodes, {} defs: cfg {:?}, graph {:?}, reach {:?}, rest {:?}",
            f.name,
            ni,
            f.blocks.len(),
            vars.out.len(),
            graph.data.len(),
            w.def_node.len(),
            t_cfg,
            t_graph - t_cfg,
            t_reach - t_graph,
            t0.elapsed() - t_reach
        );
    }
    FunctionSummary {
        linkage_name: f.name.clone(),
        name: f.name.clone(),
        file: f.file.clone(),
        line: f.line,
        ir_hash: 0,
        has_line_info: !lines.is_empty(),
        variables: vars.out,
        call_sites,
        side_effects: side
            .into_iter()
            .map(
                |((blamed_param, blamed_path, blamed_type, from_param, from_path), explicit)| {
                    SideEffect {
                        blamed_param,
                        from_param,
                        blamed_path,
                        blamed_type,
                        from_path,
                        implicit: !explicit,
                    }
                },
            )
            .collect(),
        param_alias_paths: param_aliases
            .iter()
            .map(|(_, pa, _, pb)| (pa.clone(), pb.clone()))
            .collect(),
        param_aliases: param_aliases.iter().map(|&(a, _, b, _)| (a, b)).collect(),
        loops,
        reads,
        lines,
        param_writes: None,
        param_reads: None,
        unit: String::new(),
        unit_globals: vec![],
        fields_feeding_data,
    }
}

/// An OpenMP region's private copy of a reduction variable (`sum` of
/// `reduction(+ : sum)`: a local the compiler declares without a line, of
/// the name of the shared variable the region takes by reference, whose
/// blame the shared one takes whole through the reduction) is named as the
/// compiler's (`.private.sum`), so reports list the shared variable, not
/// the same blame twice.
fn name_private_copies(f: &Function, vars: &mut [Variable]) {
    if !f.name.contains(".omp_outlined") {
        return;
    }
    for i in 0..vars.len() {
        let v = &vars[i];
        if v.kind != VarKind::Local || v.line != 0 || v.parent.is_some() {
            continue;
        }
        let shared = vars.iter().any(|p| {
            p.kind == VarKind::Param
                && p.is_exit
                && p.name == v.name
                && v.explicit_lines
                    .iter()
                    .all(|l| p.explicit_lines.binary_search(l).is_ok())
        });
        if shared {
            let name = format!(".private.{}", v.name);
            vars[i].name = name;
        }
    }
}

/// Element pointers and cursors (`bp = &blocks[n]`, `row = &A->rows[i]`,
/// `p = plist; ...; p = p->next`): a local pointer all of whose stored
/// addresses point into one other variable (or into what it already
/// points to) belongs to that variable. When the addresses come from
/// several places of one variable (`&A->rows[i]` and `A->rows`), the
/// shortest path names it. An address loaded through another element
/// pointer is one into that pointer's owner (`next = &n->left; n =
/// *next` walks `n`'s own tree), so owners are found to a fixpoint.
fn element_owners(
    vars: &[Variable],
    sources: &BTreeMap<u32, BTreeSet<Option<u32>>>,
) -> Vec<(u32, u32)> {
    let mut found: BTreeMap<u32, u32> = BTreeMap::new();
    // A chain of n pointers takes n passes.
    for _ in 0..4 {
        // Where a source points once the element pointers it goes
        // through are read as their owners.
        let resolve = |mut s: u32| {
            for _ in 0..8 {
                match found.get(&root_of(vars, s)) {
                    Some(&o) if root_of(vars, o) != root_of(vars, s) => s = o,
                    _ => break,
                }
            }
            s
        };
        let mut next_found = BTreeMap::new();
        for (&l, srcs) in sources {
            let lv = &vars[l as usize];
            if lv.kind != VarKind::Local || lv.parent.is_some() || !lv.is_pointer || lv.is_exit {
                continue;
            }
            let mut owner: Option<u32> = None;
            let mut one_root = true;
            for s in srcs {
                let Some(s) = *s else {
                    one_root = false;
                    break;
                };
                let s = resolve(s);
                let r = root_of(vars, s);
                if r == l {
                    continue;
                }
                owner = match owner {
                    None => Some(s),
                    Some(o) if root_of(vars, o) != r => {
                        one_root = false;
                        break;
                    }
                    Some(o) if vars[s as usize].name.len() < vars[o as usize].name.len() => Some(s),
                    keep => keep,
                };
            }
            if one_root {
                if let Some(o) = owner {
                    next_found.insert(l, o);
                }
            }
        }
        if next_found == found {
            break;
        }
        found = next_found;
    }
    found.into_iter().collect()
}

/// An element pointer's binding (`const Node &a = nodes[c.n[k]]`, `bp =
/// &blocks[n]`, `p = p->next`) computes an address into its owner, it
/// does not compute the owner's data: the binding is no write of the
/// pointer that its owner would inherit (a mesh only read through
/// references stays unblamed), nor is its declaration line; it is blamed
/// on what the reads through the pointer compute (`data_edges`). What is
/// written through it (`bp->v[0] += ..`) still is its owner's.
fn unbind_element_pointers(
    vars: &mut Vars,
    w: &Writes,
    unbound: &HashSet<u32>,
    var_writes: &mut [Vec<u32>],
) {
    let mut bindings: HashMap<u32, BTreeSet<u32>> = HashMap::default();
    for &wi in &w.pointer_stores {
        let (node, targets) = &w.writes[wi];
        for &t in targets.iter().filter(|&t| unbound.contains(t)) {
            bindings.entry(t).or_default().insert(*node);
        }
    }
    for (t, nodes) in bindings {
        if let Some(ws) = var_writes.get_mut(t as usize) {
            ws.retain(|n| !nodes.contains(n));
        }
        vars.declared.remove(&t);
        // (Its own memory is the address: no exclusive blame either.)
        vars.out[t as usize].write_lines.clear();
    }
}

/// Local iterators, views and element copies of a container: a local of
/// an iterator class (`auto it = parts.begin()`, a range-for's
/// `__begin1`), or of a small class of numbers and pointers only (a row
/// view `Row r = A.row(i)`, an `Entry e = *it`), whose every write is a
/// call given one variable's memory (a container's `begin`, `row`,
/// `operator*`, a constructor from its pointers), walks that variable's
/// memory as an element pointer does: it is `element_of` it. Its own
/// `++it` adds nothing; a const method (`it != end`) writes nothing.
/// (Element pointers proper are `element_owners`'.)
fn iterator_owners(m: &Module, f: &Function, res: &mut Resolver, vars: &mut Vars) {
    let n = vars.out.len();
    let candidate: Vec<bool> = (0..n)
        .map(|t| {
            let tv = &vars.out[t];
            if tv.kind != VarKind::Local || tv.parent.is_some() || tv.is_pointer || tv.is_exit {
                return false;
            }
            // `iterator`, `const_iterator`, `__normal_iterator<T *, ..>`,
            // `RowIterator`.
            let class = tv.type_name.split('<').next().unwrap_or("").trim_end();
            let lower = class.to_ascii_lowercase();
            lower.ends_with("iterator") || is_view_type(m, vars.decl_ty.get(t).copied().flatten())
        })
        .collect();
    if !candidate.iter().any(|&c| c) {
        return;
    }
    // The candidate whose own storage address `a` is (one location, no
    // dereference).
    let own_storage = |res: &mut Resolver, vars: &mut Vars, a: &Value| -> Option<u32> {
        let locs = res.locs(a);
        let [l] = locs.as_slice() else { return None };
        let t = (l.deref == 0)
            .then(|| vars.get(l.root, &[], None))
            .flatten()?;
        candidate
            .get(t as usize)
            .copied()
            .unwrap_or(false)
            .then_some(t)
    };
    // Per candidate, the variables its writes are made from (`None`: a
    // write from something else).
    let mut sources: BTreeMap<u32, BTreeSet<Option<u32>>> = BTreeMap::new();
    // The variables a value points into: the member it names when the
    // summary has one (`this->r_` of `auto r = r_;`), else its root.
    let roots_of = |res: &mut Resolver, vars: &mut Vars, v: &Value| -> BTreeSet<u32> {
        let mut out = BTreeSet::new();
        for l in res.locs(v) {
            let member = (!l.path.is_empty())
                .then(|| vars.get(l.root, &l.path, None))
                .flatten();
            if let Some(x) = member.or_else(|| vars.get(l.root, &[], None)) {
                out.insert(x);
            }
        }
        out
    };
    for inst in &f.insts {
        match &inst.op {
            Op::Store => {
                // Into its own storage (not through it: `it->f = ..`
                // writes the element).
                let Some(t) = own_storage(res, vars, &inst.args[1]) else {
                    continue;
                };
                // The stored value: a call's result (through casts).
                // The stored value: what a method returned of its object
                // (`*it`, `parts.begin()`), through casts.
                let mut v = inst.args[0].clone();
                let mut object = None;
                for _ in 0..4 {
                    let Value::Inst(i) = v else { break };
                    let src = &f.insts[i as usize];
                    match &src.op {
                        // A class returned in registers is stored a field at
                        // a time (`extractvalue`).
                        Op::Cast => v = src.args[0].clone(),
                        Op::Other(op) if op.contains("ExtractValue") && !src.args.is_empty() => {
                            v = src.args[0].clone()
                        }
                        Op::Call { callee: Some(c) } => {
                            if library::this_argument(c, src.args.len()) == Some(0) {
                                object = Some(src.args[0].clone());
                            }
                            break;
                        }
                        _ => break,
                    }
                }
                let mut given = match &object {
                    Some(o) => roots_of(res, vars, o),
                    None => BTreeSet::new(),
                };
                given.remove(&t);
                let e = sources.entry(t).or_default();
                if given.is_empty() {
                    e.insert(None);
                }
                e.extend(given.into_iter().map(Some));
            }
            Op::Call { callee: Some(c) } if c.starts_with("_Z") => {
                let Some(t) = inst.args.first().and_then(|a| own_storage(res, vars, a)) else {
                    continue;
                };
                let mut given: BTreeSet<u32> = BTreeSet::new();
                match library::this_argument(c, inst.args.len()) {
                    // Returned into it by a method of another object
                    // (`Row r = A.row(i)`).
                    Some(1) => given.extend(roots_of(res, vars, &inst.args[1])),
                    // Its own method: a const one (`it != end`) writes
                    // nothing; a constructor or an update is made from the
                    // memory it is given (`RowIterator(col_, val_)`).
                    _ if crate::demangle(c).ends_with(" const") => continue,
                    _ => {
                        for a in inst.args[1..].iter().filter(|a| is_ptr_value(f, a)) {
                            given.extend(roots_of(res, vars, a));
                        }
                    }
                }
                given.remove(&t);
                // `++it`: nothing new.
                sources
                    .entry(t)
                    .or_default()
                    .extend(given.into_iter().map(Some));
            }
            _ => {}
        }
    }
    // An owner that is itself a view of another is that one's (`end` of
    // the row `it` walks): settled over a few rounds.
    // (The member itself when its root is no view: `this.reg_` of
    // `reg_.get(name)`, so that the view is the registry's, not the whole
    // object's.)
    let owner_root = |out: &[Variable], mut v: u32| -> u32 {
        for _ in 0..8 {
            let r = root_of(out, v);
            match out[r as usize].element_of {
                Some(o) if root_of(out, o) != r => v = o,
                _ => return v,
            }
        }
        v
    };
    for _ in 0..3 {
        let mut changed = false;
        for (&t, os) in &sources {
            if vars.out[t as usize].element_of.is_some() || os.is_empty() || os.contains(&None) {
                continue;
            }
            let roots: BTreeSet<u32> = os
                .iter()
                .flatten()
                .map(|&o| owner_root(&vars.out, o))
                .filter(|&r| root_of(&vars.out, r) != t)
                .collect();
            if let [r] = roots.into_iter().collect::<Vec<_>>()[..] {
                vars.out[t as usize].element_of = Some(r);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}

/// A small class of numbers and pointers only (an iterator, a row view, a
/// pair of an index and a value): no memory of its own to speak of. Or a
/// handle to shared storage (a `View<T>` of a `std::shared_ptr<T>`, a raw
/// pointer into it, extents and a label): a copy of it is the same data.
fn is_view_type(m: &Module, t: Option<crate::ir::TypeId>) -> bool {
    let Some(t) = m.resolve(t) else { return false };
    let DiType::Struct {
        members,
        declaration: false,
        ..
    } = m.ty(t)
    else {
        return false;
    };
    let kind = |mb: &crate::ir::Member| m.resolve(mb.ty).map(|x| m.ty(x));
    let small = members.len() <= 4
        && members.iter().all(|mb| {
            matches!(
                kind(mb),
                Some(DiType::Basic { .. }) | Some(DiType::Pointer { .. })
            )
        });
    let shared = |mb: &crate::ir::Member| {
        let name = m.type_name_opt(mb.ty);
        let name = name
            .trim_start_matches("const ")
            .trim_start_matches("std::");
        name.starts_with("shared_ptr<")
    };
    let handle = members.len() <= 6
        && members.iter().any(shared)
        && members
            .iter()
            .any(|mb| matches!(kind(mb), Some(DiType::Pointer { .. })));
    !members.is_empty() && (small || handle)
}

/// A view type (`is_view_type`) that points somewhere (a pointer member):
/// writes through a copy of it reach the memory the original does, unlike a
/// copy of a small record of numbers.
fn is_handle_type(m: &Module, t: Option<crate::ir::TypeId>) -> bool {
    is_view_type(m, t)
        && matches!(m.resolve(t).map(|t| m.ty(t)), Some(DiType::Struct { members, .. })
        if members.iter().any(|mb| matches!(
            m.resolve(mb.ty).map(|x| m.ty(x)),
            Some(DiType::Pointer { .. })
        )))
}

/// The variable `v` is a field of (itself when it is none).
fn root_of(vars: &[Variable], mut v: u32) -> u32 {
    for _ in 0..vars.len() {
        match vars[v as usize].parent {
            Some(p) => v = p,
            None => break,
        }
    }
    v
}

/// True when store `store` records a number: its value is computed (through
/// arithmetic, casts and merges) from constants, call results, scalar
/// variables and the stored location itself (an accumulation `times[0] +=
/// t`), and loads no other memory of a data structure (`a[i] = a[i - 1] *
/// 2` or `y[i] = b[i]` compute data, they do not record it).
fn records_a_number(f: &Function, res: &mut Resolver, vars: &Vars, store: &Inst) -> bool {
    let addr = &store.args[1];
    let mut stack = vec![store.args[0].clone()];
    let mut seen: BTreeSet<InstId> = BTreeSet::new();
    while let Some(v) = stack.pop() {
        let Value::Inst(i) = v else { continue };
        if !seen.insert(i) || seen.len() > 64 {
            continue;
        }
        let inst = &f.insts[i as usize];
        match &inst.op {
            Op::Load => {
                if &inst.args[0] == addr {
                    continue;
                }
                // One fixed element of a data structure (`hist[k] =
                // work[NX + 1]`, a probe of the solution) is a number taken
                // from it; an element chosen by a loop's index is data.
                if fixed_element(f, &inst.args[0]) {
                    continue;
                }
                for l in res.locs(&inst.args[0]) {
                    let scalar = l.deref == 0
                        && vars
                            .by_key
                            .get(&(l.root, l.path.clone()))
                            .is_some_and(|&v| vars.out[v as usize].is_scalar);
                    if !scalar {
                        return false;
                    }
                }
            }
            // Arithmetic in a call's clothes (`llvm.fmuladd` of `y[i] +=
            // a * x[i]`, `sqrt(x[i])`) computes from its arguments; any
            // other call's result is a number it returned.
            Op::Call { callee: Some(name) } if library::is_arithmetic(name) => {
                stack.extend(inst.args.iter().cloned());
            }
            Op::Call { .. } => {}
            Op::Binary { .. } | Op::Cast | Op::Select | Op::Phi | Op::Other(_) => {
                stack.extend(inst.args.iter().cloned());
            }
            _ => return false,
        }
    }
    true
}

/// True when address `a` is one element of a variable at constant indices
/// (`work[NX + 1]`, `grid[0][5]`, `s->hist[3]`): element pointers stepped
/// by constants from a variable's own storage, a pointer variable's value
/// or a parameter.
fn fixed_element(f: &Function, a: &Value) -> bool {
    let mut a = a.clone();
    let mut stepped = false;
    for _ in 0..16 {
        let Value::Inst(i) = a else {
            return stepped && matches!(a, Value::Global(_) | Value::Arg(_));
        };
        let inst = &f.insts[i as usize];
        match &inst.op {
            Op::Gep { .. } => {
                if !inst.args[1..]
                    .iter()
                    .all(|x| matches!(x, Value::ConstInt(_)))
                {
                    return false;
                }
                stepped = true;
                a = inst.args[0].clone();
            }
            Op::Cast => a = inst.args[0].clone(),
            // The value of a pointer variable: its own storage.
            Op::Load => {
                return stepped
                    && (matches!(&inst.args[0], Value::Global(_))
                        || matches!(&inst.args[0], Value::Inst(j)
                            if matches!(f.insts[*j as usize].op, Op::Alloca { .. })));
            }
            Op::Alloca { .. } => return stepped,
            _ => return false,
        }
    }
    false
}

/// The variable of the module's global named `name` (as summaries name
/// it: its source name), if the module declares it.
fn global_variable(m: &Module, vars: &mut Vars, name: &str) -> Option<u32> {
    let g = m.globals.iter().position(|gl| {
        !gl.artificial
            && gl.function.is_none()
            && gl.source_name.as_deref().unwrap_or(gl.name.as_str()) == name
    })?;
    let ty = m.globals[g].ty;
    vars.get(Root::Global(g as u32), &[], ty)
}

/// True when `v` is the address a call to an allocator returned (through
/// casts): a record's own buffer (`stats.values = new double[n]`), not a
/// link to other data.
fn is_fresh_allocation(f: &Function, v: &Value) -> bool {
    let mut v = v.clone();
    for _ in 0..8 {
        let Value::Inst(i) = v else { return false };
        let inst = &f.insts[i as usize];
        match &inst.op {
            Op::Call { callee: Some(c) } => return library::is_allocator(c),
            Op::Cast => v = inst.args[0].clone(),
            _ => return false,
        }
    }
    false
}

/// True when `v` is a pointer.
fn is_ptr_value(f: &Function, v: &Value) -> bool {
    match v {
        Value::Inst(i) => f.insts[*i as usize].is_pointer,
        Value::Arg(k) => f.params.get(*k as usize).is_some_and(|p| p.is_pointer),
        Value::Global(_) => true,
        _ => false,
    }
}

/// The writes of a function (phase 1): nodes beyond the instructions (one
/// per parameter, one per call output), killing and may-definitions, what
/// each write reaches, pointer copies (alias pairs) and the library models
/// of calls.
struct Writes {
    node_line: Vec<u32>,
    node_block: Vec<u32>,
    /// (call, arg) -> output node.
    out_nodes: HashMap<(InstId, u32), u32>,
    out_node_info: Vec<(InstId, u32)>,
    kill_key: HashMap<InstId, Key>,
    /// Location -> numbers of the exact stores to it.
    kill_defs: HashMap<Key, Vec<u32>>,
    def_node: Vec<u32>,
    may_defs: HashMap<(Key, u32), Vec<u32>>,
    /// Store/out node -> direct target variables.
    writes: Vec<(u32, Vec<u32>)>,
    /// The writes (indices into `writes`) that store a pointer: they bind
    /// their targets to memory (`const Node &a = nodes[i]`, `p->next = q`),
    /// and write the targets themselves, not what the targets alias.
    pointer_stores: BTreeSet<usize>,
    alias_pairs: Vec<(u32, u32)>,
    own_writes: Vec<(u32, u32)>,
    call_models: HashMap<InstId, (Option<String>, Option<LibModel>)>,
    /// Per variable stored into as a whole pointer (`bp = ...`): the
    /// variables the stored addresses point into (`None`: unknown).
    pointer_sources: BTreeMap<u32, BTreeSet<Option<u32>>>,
    /// The (call, argument) pairs whose argument points into a variable
    /// that is no scalar (a data structure, not a temporary or a number).
    data_args: BTreeSet<(InstId, u32)>,
    /// Stores of a number that records a result: computed from scalars,
    /// call results and the stored location itself (`times[0] += t`,
    /// `norms[it] = solve(..)`), not from other memory of data structures.
    numeric_stores: BTreeSet<InstId>,
    /// Call outputs that may write what their argument points to, with
    /// the argument's target variables (writes or not).
    may_write_nodes: Vec<(u32, Vec<u32>)>,
    /// Every pointer argument of a call.
    arg_targets: Vec<ArgTarget>,
}

/// A pointer argument of a call: (call, argument, its target variables,
/// whether the call may write through it).
type ArgTarget = (InstId, u32, Vec<u32>, bool);

fn collect_writes(
    m: &Module,
    defined: &DefinedFunctions,
    f: &Function,
    res: &mut Resolver,
    vars: &mut Vars,
) -> Writes {
    let np = f.params.len();
    // Node numbering: instructions, parameters, call outputs.
    let mut node_line: Vec<u32> = f.insts.iter().map(|i| i.line).collect();
    let mut node_block: Vec<u32> = f.insts.iter().map(|i| i.block).collect();
    node_line.extend(std::iter::repeat_n(0, np));
    node_block.extend(std::iter::repeat_n(u32::MAX, np));
    // (call, arg) -> output node
    let mut out_nodes: HashMap<(InstId, u32), u32> = HashMap::default();
    let mut out_node_info: Vec<(InstId, u32)> = Vec::new();

    // Writes: killing definitions (exact stores to a slot) and may-definitions.
    let mut kill_key: HashMap<InstId, Key> = HashMap::default();
    let mut kill_defs: HashMap<Key, Vec<u32>> = HashMap::default(); // key -> def numbers
    let mut def_node: Vec<u32> = Vec::new();
    let mut may_defs: HashMap<(Key, u32), Vec<u32>> = HashMap::default();
    // Store/out node -> direct target variables
    let mut writes: Vec<(u32, Vec<u32>)> = Vec::new();
    let mut pointer_stores: BTreeSet<usize> = BTreeSet::new();
    let mut alias_pairs: Vec<(u32, u32)> = Vec::new();
    let mut own_writes: Vec<(u32, u32)> = Vec::new();
    let mut call_models: HashMap<InstId, (Option<String>, Option<LibModel>)> = HashMap::default();
    let mut pointer_sources: BTreeMap<u32, BTreeSet<Option<u32>>> = BTreeMap::new();
    let mut data_args: BTreeSet<(InstId, u32)> = BTreeSet::new();
    let mut numeric_stores: BTreeSet<InstId> = BTreeSet::new();
    let mut may_write_nodes: Vec<(u32, Vec<u32>)> = Vec::new();
    let mut arg_targets: Vec<ArgTarget> = Vec::new();

    let callee_name = |inst: &Inst| -> Option<Option<String>> {
        match &inst.op {
            Op::Call { callee: Some(c) } if c.starts_with("llvm.") => {
                library::intrinsic_as_libc(c).map(|n| Some(n.to_string()))
            }
            Op::Call { callee } => Some(callee.clone()),
            _ => None,
        }
    };

    for (i, inst) in f.insts.iter().enumerate() {
        let i = i as InstId;
        match &inst.op {
            Op::Store => {
                let locs = res.locs(&inst.args[1]);
                let mut targets = Vec::new();
                for l in &locs {
                    if let Some(v) = vars.get(l.root, &l.path, l.ty) {
                        targets.push(v);
                        // Exclusive blame: a store into the variable's own storage
                        // (not into memory it points to). A field reached through
                        // its root pointer (`g->energy = ...`, no index on the way)
                        // is stored in the pointee: one dereference is its own.
                        let field_of_pointee = l.deref == 1 && l.exact && !l.path.is_empty();
                        if (l.deref == 0 || field_of_pointee) && inst.line > 0 {
                            own_writes.push((v, inst.line));
                        }
                    }
                }
                if locs.len() == 1 && locs[0].deref == 0 && locs[0].exact {
                    let key = (locs[0].root, locs[0].path.clone());
                    let d = def_node.len() as u32;
                    def_node.push(i);
                    kill_defs.entry(key.clone()).or_default().push(d);
                    kill_key.insert(i, key);
                } else {
                    for l in &locs {
                        may_defs
                            .entry(((l.root, l.path.clone()), l.deref))
                            .or_default()
                            .push(i);
                    }
                }
                if is_ptr_value(f, &inst.args[0]) {
                    // A store into a local pointer's own slot: where the
                    // pointers it holds point (element owners).
                    let own_slot = (locs.len() == 1
                        && locs[0].deref == 0
                        && locs[0].exact
                        && locs[0].path.is_empty())
                    .then(|| targets.first().copied())
                    .flatten();
                    let srcs = res.locs(&inst.args[0]);
                    if let Some(t) = own_slot {
                        let entry = pointer_sources.entry(t).or_default();
                        // A fresh allocation makes it an owner of memory,
                        // never an element pointer (`u = calloc(..)`, then
                        // swapped with `unew` through `tmp`).
                        if srcs.is_empty() || is_fresh_allocation(f, &inst.args[0]) {
                            entry.insert(None);
                        }
                    }
                    for src in srcs {
                        let sv = vars.get(src.root, &src.path, src.ty);
                        if let Some(t) = own_slot {
                            pointer_sources.entry(t).or_default().insert(sv);
                        }
                        if let Some(sv) = sv {
                            for &t in &targets {
                                if t != sv {
                                    alias_pairs.push((sv, t));
                                }
                            }
                        }
                    }
                }
                if is_ptr_value(f, &inst.args[0]) {
                    pointer_stores.insert(writes.len());
                } else if records_a_number(f, res, vars, inst) {
                    numeric_stores.insert(i);
                }
                writes.push((i, targets));
            }
            Op::Call { .. } => {
                let Some(name) = callee_name(inst) else {
                    continue;
                };
                // The data-structure globals the callee writes: written by
                // the call, from what it is given.
                if let Some(n) = name.as_deref() {
                    let mut written: Vec<u32> = Vec::new();
                    for g in defined.global_writes(n) {
                        if let Some(v) = global_variable(m, vars, g) {
                            if !vars.out[v as usize].is_scalar {
                                written.push(v);
                            }
                        }
                    }
                    if !written.is_empty() {
                        writes.push((i, written));
                    }
                }
                let has_body = name.as_deref().is_some_and(|n| defined.contains(n));
                let ptr_args: Vec<u32> = (0..inst.args.len() as u32)
                    .filter(|&k| is_ptr_value(f, &inst.args[k as usize]))
                    .collect();
                let model = match &name {
                    Some(n) if !has_body => Some(
                        library::known(n)
                            .or_else(|| {
                                // A fork of a region of this module: the
                                // shared variables the region writes.
                                let outputs = library::omp_fork_written(n, &inst.args, |r, k| {
                                    if !defined.contains(r) {
                                        return None;
                                    }
                                    defined.param_writes(r, k).map(|ws| !ws.is_empty())
                                })?;
                                Some(LibModel::new(outputs, false))
                            })
                            .or_else(|| library::omp_fork(n, inst.args.len() as u32))
                            .unwrap_or_else(|| {
                                // A library routine cannot write through a
                                // pointer to const (`dgemm`'s `const double
                                // *a`, or a C++ function of another unit
                                // whose mangled name says `double const*`):
                                // only the others take its blame.
                                let consts = library::const_pointer_params(n, inst.args.len());
                                let writable: Vec<u32> = ptr_args
                                    .iter()
                                    .copied()
                                    .filter(|&k| {
                                        if consts.as_ref().is_some_and(|c| c[k as usize]) {
                                            return false;
                                        }
                                        let locs = res.locs(&inst.args[k as usize]);
                                        locs.is_empty() || !locs.iter().all(|l| m.is_const(l.ty))
                                    })
                                    .collect();
                                let blamed = if writable.is_empty() && inst.is_void {
                                    &ptr_args
                                } else {
                                    &writable
                                };
                                library::heuristic(blamed, !inst.is_void)
                            }),
                    ),
                    _ => None,
                };
                for &k in &ptr_args {
                    let locs = res.locs(&inst.args[k as usize]);
                    if locs.is_empty() {
                        continue;
                    }
                    let node = node_line.len() as u32;
                    node_line.push(inst.line);
                    node_block.push(inst.block);
                    out_nodes.insert((i, k), node);
                    out_node_info.push((i, k));
                    // A library call may write only what its model says it
                    // writes (MPI_Comm_rank writes the rank, not the
                    // communicator); a call with a body may write anything
                    // reachable from its pointer arguments.
                    // Nor can a body write through a parameter it declares
                    // as a pointer to const (`CalcElemVolume(const Real_t
                    // *const x, ...)` leaves the caller's `xl` as it was).
                    let const_param = has_body
                        && name
                            .as_deref()
                            .is_some_and(|n| defined.is_const_param(n, k));
                    let may_write = !const_param && model.as_ref().is_none_or(|md| md.may_write(k));
                    // A body of the module writes only where its write set
                    // says (`kernel(dom)` writing `dom->fx[..]` leaves
                    // `dom.cycle` as it was).
                    // So does a function of another unit whose write set
                    // the static db holds.
                    let through: Option<&[write_sets::ParamWrite]> = match &name {
                        Some(n) => defined.param_writes(n, k),
                        _ => None,
                    };
                    let mut targets = Vec::new();
                    for l in &locs {
                        if may_write {
                            match through {
                                Some(ws) => {
                                    for pw in ws {
                                        let mut path = l.path.clone();
                                        path.extend(pw.path.iter().cloned());
                                        may_defs
                                            .entry(((l.root, path), l.deref + pw.deref))
                                            .or_default()
                                            .push(node);
                                    }
                                }
                                None => may_defs
                                    .entry(((l.root, l.path.clone()), l.deref))
                                    .or_default()
                                    .push(node),
                            }
                        }
                        if let Some(v) = vars.get(l.root, &l.path, l.ty) {
                            targets.push(v);
                        }
                    }
                    // A library call writes what its model says. A value
                    // type's own operations (a user-written `operator=` or
                    // copy constructor writing its `this`, an operator
                    // returning through a hidden result pointer) write where
                    // their write sets say, as the compiler's copies would,
                    // so what flows into them reaches the assigned element.
                    // Other calls pass blame through their transfer
                    // functions (3.3.3): their writes are not the caller's.
                    let written = model.as_ref().is_some_and(|md| md.writes_arg(k))
                        || (may_write
                            && through.is_some_and(|ws| !ws.is_empty())
                            && name.as_deref().is_some_and(|n| {
                                library::moves_values(n) || library::is_cxx_method_of_program(n)
                            }));
                    if targets.iter().any(|&t| !vars.out[t as usize].is_scalar) {
                        data_args.insert((i, k));
                    }
                    if may_write {
                        may_write_nodes.push((node, targets.clone()));
                    }
                    arg_targets.push((i, k, targets.clone(), may_write));
                    if written {
                        writes.push((node, targets));
                    }
                }
                call_models.insert(i, (name, model));
            }
            _ => {}
        }
    }

    Writes {
        node_line,
        node_block,
        out_nodes,
        out_node_info,
        kill_key,
        kill_defs,
        def_node,
        may_defs,
        writes,
        pointer_stores,
        alias_pairs,
        own_writes,
        call_models,
        pointer_sources,
        data_args,
        numeric_stores,
        may_write_nodes,
        arg_targets,
    }
}

/// The data edges of the blame graph.
struct Graph {
    /// Per node, the nodes it depends on.
    data: Edges,
    /// Per load, the locations it reads.
    load_locs: HashMap<InstId, Vec<Loc>>,
    /// The first memory-object node.
    first_obj: usize,
}

fn data_edges(
    f: &Function,
    cfg: &Cfg,
    defined: &DefinedFunctions,
    res: &mut Resolver,
    w: &mut Writes,
    element_roots: &HashSet<Root>,
    call_roots: &CallRoots,
) -> Graph {
    let ni = f.insts.len();
    let np = f.params.len();
    let arg_node = |k: u32| (ni + k as usize) as u32;
    let Writes {
        node_line,
        node_block,
        out_nodes,
        out_node_info,
        kill_key,
        kill_defs,
        def_node,
        may_defs,
        ..
    } = w;
    // Memory-object nodes keep the edges linear: a read depends on the
    // object, the object on every write to it (instead of reads x writes edges).
    let n_out = out_node_info.len();
    let mut obj_edges: Vec<Vec<u32>> = Vec::new();
    let mut new_obj = |edges: Vec<u32>, node_line: &mut Vec<u32>, node_block: &mut Vec<u32>| {
        let id = node_line.len() as u32;
        node_line.push(0);
        node_block.push(u32::MAX);
        obj_edges.push(edges);
        id
    };
    let mut may_obj: HashMap<(Key, u32), u32> = HashMap::default();
    let mut call_obj: HashMap<(Key, u32), u32> = HashMap::default();
    for (k, ns) in may_defs.iter() {
        may_obj.insert(k.clone(), new_obj(ns.clone(), node_line, node_block));
        let calls: Vec<u32> = ns
            .iter()
            .copied()
            .filter(|&n| n as usize >= ni + np)
            .collect();
        if !calls.is_empty() {
            call_obj.insert(k.clone(), new_obj(calls, node_line, node_block));
        }
    }
    let mut kill_all_obj: HashMap<Key, u32> = HashMap::default();
    for (k, ds) in kill_defs.iter() {
        let nodes = ds.iter().map(|&d| def_node[d as usize]).collect();
        kill_all_obj.insert(k.clone(), new_obj(nodes, node_line, node_block));
    }
    let def_number: HashMap<InstId, u32> = def_node
        .iter()
        .enumerate()
        .map(|(d, &n)| (n, d as u32))
        .collect();
    let mut visible = MayDefVisibility::new(f, cfg, call_roots, ni, np, out_node_info);

    // Data edges.
    // The values reads of exact slots see: stores, or merges of them.
    let stores: HashMap<Key, Vec<InstId>> = kill_defs
        .iter()
        .map(|(k, ds)| {
            (
                k.clone(),
                ds.iter().map(|&d| def_node[d as usize]).collect(),
            )
        })
        .collect();
    let slots = slots::slot_values(f, cfg, res, &stores, kill_key, node_line.len() as u32);
    node_line.resize(node_line.len() + slots.merges.len(), 0);
    node_block.resize(node_block.len() + slots.merges.len(), u32::MAX);

    let nn = node_line.len();
    let first_obj = ni + np + n_out;
    let mut data: Vec<EdgeList> = vec![EdgeList::new(); nn];
    for (node, ins) in &slots.merges {
        data[*node as usize] = EdgeList::from_slice(ins);
    }
    for (j, e) in obj_edges.into_iter().enumerate() {
        data[first_obj + j] = e.into();
    }
    let push_val = |edges: &mut Vec<u32>, v: &Value| match v {
        Value::Inst(j) => edges.push(*j),
        Value::Arg(k) => edges.push(arg_node(*k)),
        _ => {}
    };
    // Reads of a location: reaching exact defs, then every other write to it or an enclosing object.
    let mut load_locs: HashMap<InstId, Vec<Loc>> = HashMap::default();
    let mut current: HashMap<Key, u32> = HashMap::default();
    // Call outputs with their own inputs (per-output transfer functions).
    let mut per_output: Vec<(u32, Vec<u32>)> = Vec::new();
    for (b, blk) in f.blocks.iter().enumerate() {
        current.clear();
        for &i in &blk.insts {
            let inst = &f.insts[i as usize];
            let mut edges = Vec::new();
            let mut read_locs: Vec<Loc> = Vec::new();
            // For a call: the argument each read location comes from, and
            // per argument the nodes it brings in (its value, what is read
            // through it), for outputs whose callee says which arguments
            // flow into them.
            let mut loc_arg: Vec<u32> = Vec::new();
            let mut per_arg: Vec<Vec<u32>> = Vec::new();
            match &inst.op {
                Op::Load => {
                    read_locs = res.locs(&inst.args[0]);
                    push_val(&mut edges, &inst.args[0]);
                }
                Op::Store => {
                    push_val(&mut edges, &inst.args[0]);
                    push_val(&mut edges, &inst.args[1]);
                }
                Op::Call { callee } => {
                    // A body of the module reads only its read set through
                    // each argument (an accessor reads nothing: it returns
                    // an address); anything else reads what they reach.
                    let reads_of = |k: u32| match callee.as_deref() {
                        Some(n) => defined.param_reads(n, k),
                        _ => None,
                    };
                    // Per-argument inputs only for a callee whose flows are known.
                    let flows_known = callee
                        .as_deref()
                        .is_some_and(|n| defined.param_flows(n, 0).is_some());
                    if flows_known {
                        per_arg = vec![Vec::new(); inst.args.len()];
                    }
                    for (k, a) in inst.args.iter().enumerate() {
                        push_val(&mut edges, a);
                        if let Some(p) = per_arg.get_mut(k) {
                            push_val(p, a);
                        }
                        if !is_ptr_value(f, a) {
                            continue;
                        }
                        match reads_of(k as u32) {
                            Some(rs) => {
                                for l in res.locs(a) {
                                    for r in rs {
                                        let mut l = l.clone();
                                        l.path.extend(r.path.iter().cloned());
                                        l.deref += r.deref;
                                        read_locs.push(l);
                                    }
                                }
                            }
                            None => read_locs.extend(res.locs(a)),
                        }
                        if flows_known {
                            loc_arg.resize(read_locs.len(), k as u32);
                        }
                    }
                }
                Op::DbgDeclare { .. } | Op::DbgValue { .. } | Op::Alloca { .. } => {}
                _ => {
                    for a in &inst.args {
                        push_val(&mut edges, a);
                    }
                }
            }
            for (li, l) in read_locs.iter().enumerate() {
                let before = edges.len();
                let key = (l.root, l.path.clone());
                // A read through an element pointer depends on its binding
                // (the address computed into the owner, `&nodes[c.n[k]]`):
                // what the read computes is what the binding was for.
                if l.deref > 0 && element_roots.contains(&l.root) {
                    let bound = (l.root, Vec::new());
                    if let Some(&d) = current.get(&bound) {
                        edges.push(def_node[d as usize]);
                    } else if let Some(v) = slots.at_entry(b as u32, &bound) {
                        edges.push(v);
                    }
                }
                if l.deref == 0 {
                    if let Some(&d) = current.get(&key) {
                        edges.push(def_node[d as usize]);
                    } else if let Some(v) = slots.at_entry(b as u32, &key) {
                        edges.push(v);
                    }
                    // Exact writes to enclosing objects (whole-struct stores).
                    for k in 0..l.path.len() {
                        if let Some(&o) = kill_all_obj.get(&(l.root, l.path[..k].to_vec())) {
                            edges.push(o);
                        }
                    }
                }
                if matches!(inst.op, Op::Call { .. }) {
                    // A call reads what its pointer argument reaches, at
                    // any depth: writes below the argument (`g->u[i]`,
                    // a callee's write set `.u`) are read too.
                    for ((key, d), &o) in may_obj.iter() {
                        let below = key.0 == l.root
                            && key.1.starts_with(&l.path)
                            && *d >= l.deref
                            && (key.1.len() > l.path.len() || *d > l.deref);
                        if below {
                            if let Some(o) = visible.object(o, i, &mut data, first_obj) {
                                edges.push(o);
                            }
                        }
                    }
                }
                for k in 0..=l.path.len() {
                    let pk = (l.root, l.path[..k].to_vec());
                    for d in 0..=l.deref {
                        let obj = if d == l.deref {
                            may_obj.get(&(pk.clone(), d))
                        } else {
                            call_obj.get(&(pk.clone(), d))
                        };
                        if let Some(&o) = obj {
                            if let Some(o) = visible.object(o, i, &mut data, first_obj) {
                                edges.push(o);
                            }
                        }
                    }
                }
                if let Some(&k) = loc_arg.get(li) {
                    per_arg[k as usize].extend_from_slice(&edges[before..]);
                }
            }
            if matches!(inst.op, Op::Load) && !read_locs.is_empty() {
                read_locs.shrink_to_fit();
                load_locs.insert(i, read_locs);
            }
            if let Some(key) = kill_key.get(&i) {
                let d = def_number[&i];
                current.insert(key.clone(), d);
            }
            edges.sort_unstable();
            edges.dedup();
            edges.retain(|&e| e != i);
            if let Op::Call { callee } = &inst.op {
                // A call reads its pointer arguments before it writes them.
                let before_call = |e: &u32| {
                    let e = *e as usize;
                    if e == i as usize {
                        return false;
                    }
                    if (ni + np..first_obj).contains(&e) {
                        return out_node_info[e - ni - np].0 != i;
                    }
                    if e >= first_obj {
                        // An object written by this call only.
                        return data[e].iter().any(|&w| {
                            let w = w as usize;
                            !(ni + np..first_obj).contains(&w) || out_node_info[w - ni - np].0 != i
                        });
                    }
                    true
                };
                edges.retain(before_call);
                // Per-output transfer functions: when the callee says which
                // of its arguments flow into what it writes through
                // argument k (`dot(n, x, y, &result, &time)` computes
                // `result` from x and y, `time` from a timer), the output
                // depends on those arguments only, not on the whole call.
                if let Some(name) = callee.as_deref() {
                    for k in 0..inst.args.len() as u32 {
                        let (Some(&node), Some(from)) =
                            (out_nodes.get(&(i, k)), defined.param_flows(name, k))
                        else {
                            continue;
                        };
                        let mut out: Vec<u32> = Vec::new();
                        for j in from.iter().copied().chain([k]) {
                            if let Some(e) = per_arg.get(j as usize) {
                                out.extend(e.iter().copied().filter(before_call));
                            }
                        }
                        out.sort_unstable();
                        out.dedup();
                        per_output.push((node, out));
                    }
                }
            }
            data[i as usize] = edges.into();
        }
    }
    let mut own_flows: BTreeSet<u32> = BTreeSet::new();
    for (node, out) in per_output {
        data[node as usize] = out.into();
        own_flows.insert(node);
    }
    for (&(c, _), &node) in out_nodes.iter() {
        if !own_flows.contains(&node) {
            data[node as usize].push(c);
        }
    }
    // Objects of visible subsets were added while reading.
    let nn = data.len();
    node_line.resize(nn, 0);
    node_block.resize(nn, u32::MAX);

    Graph {
        data: Edges::from_lists(data),
        load_locs,
        first_obj,
    }
}

fn factory_aliases(
    f: &Function,
    defined: &DefinedFunctions,
    res: &mut Resolver,
    vars: &mut Vars,
    alias_pairs: &mut Vec<(u32, u32)>,
) {
    // A factory's result: its fields point where the callee made them
    // point (`panel = panel_new(A, ..)` with `p->trail = &A->mat[..]` makes
    // `panel.trail` alias `A.mat`).
    for (i, inst) in f.insts.iter().enumerate() {
        let Op::Call { callee: Some(name) } = &inst.op else {
            continue;
        };
        let fields = defined.field_aliases(name);
        if fields.is_empty() {
            continue;
        }
        let holders: Vec<Loc> = res
            .stored_to
            .get(&(i as InstId))
            .cloned()
            .unwrap_or_default()
            .iter()
            .flat_map(|slot| res.locs(slot))
            .filter(|l| l.deref == 0)
            .collect();
        for fa in fields {
            let Some(arg) = inst.args.get(fa.arg as usize) else {
                continue;
            };
            for h in &holders {
                let mut hp = h.path.clone();
                hp.extend(fa.ret_path.iter().cloned());
                let Some(a) = vars.get(h.root, &hp, None) else {
                    continue;
                };
                for l in res.locs(arg) {
                    let mut lp = l.path.clone();
                    lp.extend(fa.arg_path.iter().cloned());
                    if let Some(b) = vars.get(l.root, &lp, None) {
                        if a != b {
                            alias_pairs.push((a, b));
                        }
                    }
                }
            }
        }
    }
}

/// Alias classes of the variables that exist before the return value.
struct Classes {
    class_id: Vec<u32>,
    /// Members of each class, ascending.
    members: Vec<Vec<u32>>,
    /// How many variables the classes cover.
    declared: usize,
}

fn alias_classes(nv: usize, alias_pairs: &[(u32, u32)]) -> Classes {
    // Alias classes (Table 3.1 A sets), closed under containers.
    let mut uf: Vec<u32> = (0..nv as u32).collect();
    for &(a, b) in alias_pairs {
        let (ra, rb) = (find(&mut uf, a), find(&mut uf, b));
        if ra != rb {
            uf[ra as usize] = rb;
        }
    }
    // Dense class ids; members ascending.
    let mut class_id: Vec<u32> = vec![u32::MAX; nv];
    let mut members: Vec<Vec<u32>> = Vec::new();
    let mut root_class: HashMap<u32, u32> = HashMap::default();
    for v in 0..nv as u32 {
        let r = find(&mut uf, v);
        let c = *root_class.entry(r).or_insert_with(|| {
            members.push(Vec::new());
            members.len() as u32 - 1
        });
        class_id[v as usize] = c;
        members[c as usize].push(v);
    }

    Classes {
        class_id,
        members,
        declared: nv,
    }
}

/// Per variable, the write nodes that reach it.
fn do_store(vars: &mut Vars, w: &Writes, classes: &Classes) -> Vec<Vec<u32>> {
    let nv = vars.out.len();
    let (class_id, members) = (&classes.class_id, &classes.members);
    let (writes, own_writes) = (&w.writes, &w.own_writes);
    // doStore: each write reaches its targets, their containers and aliases:
    // whole alias classes, and the classes of their members' containers.
    // Walking classes (each once per write) instead of variables keeps a
    // write into a large alias class linear in what it reaches.
    let mut class_parents: Vec<Vec<u32>> = vec![Vec::new(); members.len()];
    for v in 0..nv {
        if let Some(p) = vars.out[v].parent {
            class_parents[class_id[v] as usize].push(class_id[p as usize]);
        }
    }
    for ps in &mut class_parents {
        ps.sort_unstable();
        ps.dedup();
    }
    let mut var_writes: Vec<Vec<u32>> = vec![Vec::new(); nv];
    for &(v, line) in own_writes {
        vars.out[v as usize].write_lines.push(line);
    }
    let mut class_stamp = vec![usize::MAX; members.len()];
    let mut stack: Vec<u32> = Vec::new();
    for (wi, (node, targets)) in writes.iter().enumerate() {
        if w.pointer_stores.contains(&wi) {
            // Binding a pointer writes the pointer (and its containers),
            // not the memory it points to, which its aliases share.
            for &t in targets {
                var_writes[t as usize].push(*node);
                if let Some(p) = vars.out[t as usize].parent {
                    stack.push(class_id[p as usize]);
                }
            }
        } else {
            stack.extend(targets.iter().map(|&t| class_id[t as usize]));
        }
        while let Some(c) = stack.pop() {
            if class_stamp[c as usize] == wi {
                continue;
            }
            class_stamp[c as usize] = wi;
            for &t in &members[c as usize] {
                var_writes[t as usize].push(*node);
            }
            stack.extend(&class_parents[c as usize]);
        }
    }
    var_writes
}

/// What reachability found beyond each variable's lines: who reaches the
/// nodes of call bindings and of parameter reads, (total, explicit).
struct Reach {
    ret_bind: HashMap<InstId, (Vec<u32>, Vec<u32>)>,
    arg_bind: HashMap<(InstId, u32), (Vec<u32>, Vec<u32>)>,
    reads_param: Vec<BTreeSet<ParamRead>>,
    reads_param_explicit: Vec<BTreeSet<ParamRead>>,
    /// Per root variable: true when what is stored in it (or in its
    /// fields) flows, over data edges, into another variable's writes.
    feeds_other: Vec<bool>,
    /// Per root variable that feeds others, the roots it feeds when they
    /// are few (at most `FED_ROOTS`; empty: more, or not known).
    fed_roots: Vec<Vec<u32>>,
}

/// How many fed roots `Reach::fed_roots` lists before it gives up.
const FED_ROOTS: usize = 8;

/// The non-void call whose returned pointer `addr` is (through casts and
/// constant-offset or indexed GEPs), if any.
fn returned_address(f: &Function, addr: &Value) -> Option<InstId> {
    let mut v = addr.clone();
    for _ in 0..8 {
        let Value::Inst(i) = v else { return None };
        let inst = &f.insts[i as usize];
        match inst.op {
            Op::Call { .. } if !inst.is_void && inst.is_pointer => return Some(i),
            Op::Cast | Op::Gep { .. } => v = inst.args.first()?.clone(),
            _ => return None,
        }
    }
    None
}

/// A read of a parameter: its position, and the field path (`.m_x`) below
/// what it points to that the read loads, `None` for its value (the
/// pointer itself, or a parameter passed by value).
type ParamRead = (u32, Option<String>);

/// Per load of a parameter's memory, the parameters and paths it reads,
/// also through local copies of pointers into it (`const double *c =
/// app->coords; .. c[i]` reads `.coords` below `app`).
fn param_reads(
    f: &Function,
    res: &mut Resolver,
    param_of: &HashMap<u32, u32>,
    load_locs: &HashMap<InstId, Vec<Loc>>,
) -> HashMap<InstId, Vec<ParamRead>> {
    let bases = write_sets::param_bases(f, res);
    let slots = write_sets::slot_stores(f, res);
    let mut out: HashMap<InstId, Vec<ParamRead>> = HashMap::default();
    for (&i, locs) in load_locs {
        let mut reads: Vec<ParamRead> = Vec::new();
        for l in locs {
            let param = match l.root {
                Root::Var(x) => param_of.get(&x).copied(),
                Root::RawArg(k) => Some(k),
                _ => None,
            };
            let found: Vec<ParamRead> = match param.map(|k| (k, bases.get(k as usize))) {
                // The parameter's own slot: its value.
                Some((k, Some(Some(b)))) if l.deref < b.deref => vec![(k, None)],
                Some((k, Some(None))) => vec![(k, None)],
                _ => write_sets::to_params(res, param_of, &bases, &slots, l.clone(), 0)
                    .into_iter()
                    .map(|(k, w)| {
                        let path: String = w.path.iter().map(|c| format!(".{c}")).collect();
                        (k, Some(path))
                    })
                    .collect(),
            };
            for r in found {
                if !reads.contains(&r) {
                    reads.push(r);
                }
            }
        }
        if !reads.is_empty() {
            out.insert(i, reads);
        }
    }
    out
}

fn reach(
    f: &Function,
    cfg: &Cfg,
    graph: &Graph,
    w: &Writes,
    param_reads: &HashMap<InstId, Vec<ParamRead>>,
    vars: &mut Vars,
    var_writes: &[Vec<u32>],
) -> Reach {
    let ni = f.insts.len();
    let np = f.params.len();
    let nv = vars.out.len();
    let (data, first_obj) = (&graph.data, graph.first_obj);
    let nn = data.len();
    let (node_line, node_block, out_node_info) = (&w.node_line, &w.node_block, &w.out_node_info);
    // Control edges: terminators of the blocks each block depends on.
    let term: Vec<u32> = f
        .blocks
        .iter()
        .map(|b| b.insts.last().copied().unwrap_or(u32::MAX))
        .collect();
    let block_ctrl: Vec<Vec<u32>> = cfg
        .control_deps
        .iter()
        .map(|deps| {
            deps.iter()
                .map(|&a| term[a as usize])
                .filter(|&t| t != u32::MAX)
                .collect()
        })
        .collect();
    let no_ctrl: Vec<u32> = Vec::new();
    let ctrl = |n: u32| -> &[u32] {
        match node_block[n as usize] {
            u32::MAX => &no_ctrl,
            b => &block_ctrl[b as usize],
        }
    };

    // Reachability, for 64 variables at a time. Phase 1 (explicit blame):
    // the nodes reached from a variable's writes over data edges. Phase 2
    // (implicit blame): the nodes reached over data and control edges from
    // the terminators that phase-1 nodes are control dependent on.
    //
    // Each phase runs on the graph's strongly connected components: every
    // node of a component is reached by the same variables, so one bit mask
    // per component, pushed along the edges in topological order, gives in
    // one pass what a depth-first search per variable gives. A batch costs
    // O(nodes + edges), whatever the loops and however many variables reach
    // a node (an interpreter loop with 700 variables and 14,000 nodes takes
    // milliseconds, not the seconds of a search per variable).
    let data_comp = Components::new(nn, |n| data[n as usize].iter().copied());
    let all_comp = Components::new(nn, |n| data[n as usize].iter().chain(ctrl(n)).copied());
    let mut line_list: Vec<u32> = node_line.iter().copied().filter(|&l| l > 0).collect();
    line_list.sort_unstable();
    line_list.dedup();
    let line_index: Vec<u32> = node_line
        .iter()
        .map(|&l| match line_list.binary_search(&l) {
            Ok(k) if l > 0 => k as u32,
            _ => u32::MAX,
        })
        .collect();
    // The nodes whose reach matters beyond their line: non-void calls (return
    // bindings), loads of parameter memory and parameter values (side
    // effects), call outputs (argument bindings).
    enum Hit {
        Ret(InstId),
        Params(Vec<ParamRead>),
        Out((InstId, u32)),
    }
    let mut hits: Vec<(u32, Hit)> = Vec::new();
    for n in 0..first_obj {
        if n < ni {
            match &f.insts[n].op {
                Op::Call { .. } if !f.insts[n].is_void => {
                    hits.push((n as u32, Hit::Ret(n as InstId)))
                }
                Op::Load => {
                    if let Some(ks) = param_reads.get(&(n as InstId)) {
                        hits.push((n as u32, Hit::Params(ks.clone())));
                    }
                    // A load through a pointer a call returned (an accessor
                    // read: `other = state_(nb, v)`): what the loaded value
                    // flows into is what the call's work is for.
                    if let Some(c) = returned_address(f, &f.insts[n].args[0]) {
                        hits.push((n as u32, Hit::Ret(c)));
                    }
                }
                _ => {}
            }
        } else if n < ni + np {
            hits.push((n as u32, Hit::Params(vec![((n - ni) as u32, None)])));
        } else {
            hits.push((n as u32, Hit::Out(out_node_info[n - ni - np])));
        }
    }
    // Per hit node, the variables reaching it, ascending (batches and bits
    // are visited in order).
    let mut hit_vars: Vec<Vec<u32>> = vec![Vec::new(); hits.len()];
    // The same over data edges only (explicit blame).
    let mut hit_explicit: Vec<Vec<u32>> = vec![Vec::new(); hits.len()];
    let mut explicit: Vec<Vec<u32>> = vec![Vec::new(); nv];
    let mut implicit: Vec<Vec<u32>> = vec![Vec::new(); nv];
    let mut m1 = vec![0u64; data_comp.count()];
    let mut m2 = vec![0u64; all_comp.count()];
    let mut acc = vec![0u64; line_list.len()];
    // Calls `f` with the variable of each set bit of `bits`, in ascending order.
    fn each_var(base: usize, mut bits: u64, mut f: impl FnMut(usize)) {
        while bits != 0 {
            f(base + bits.trailing_zeros() as usize);
            bits &= bits - 1;
        }
    }
    // Which roots' writes each write node is (for `feeds_other`); an
    // element pointer's root is its owner's.
    let root_of: Vec<u32> = (0..nv as u32)
        .map(|mut v| {
            for _ in 0..nv {
                let var = &vars.out[v as usize];
                match var.parent.or(var.element_of) {
                    Some(p) if p != v => v = p,
                    _ => break,
                }
            }
            v
        })
        .collect();
    let mut writers: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (v, ws) in var_writes.iter().enumerate() {
        for &n in ws {
            writers.entry(n).or_default().push(v as u32);
        }
    }
    // Calls that may write a variable without being its writes (an OpenMP
    // region filling it) hand on what it holds too.
    for (n, ts) in &w.may_write_nodes {
        let e = writers.entry(*n).or_default();
        for &t in ts {
            if !e.contains(&t) {
                e.push(t);
            }
        }
    }
    let mut feeds_other = vec![false; nv];
    // (`full`: the root feeds more than FED_ROOTS others.)
    let mut fed_roots: Vec<Vec<u32>> = vec![Vec::new(); nv];
    let mut full = vec![false; nv];
    // Only a result's candidates (locals of no scalar type) need the roots
    // they feed; the others stop at the first.
    let listed: Vec<bool> = vars
        .out
        .iter()
        .map(|v| v.kind == VarKind::Local && v.parent.is_none() && !v.is_scalar)
        .collect();
    // Each batch visits only the components its writes reach (a function
    // with thousands of variables, each local to a loop nest, is not
    // variables x graph): the writers, control edges, lines and hits of
    // each component, found by component.
    let (mut touched1, mut touched2) = (Vec::new(), Vec::new());
    let mut queued1 = vec![false; data_comp.count()];
    let mut queued2 = vec![false; all_comp.count()];
    let mut writers_of: HashMap<usize, Vec<u32>> = HashMap::default();
    for &n in writers.keys() {
        writers_of.entry(data_comp.of(n)).or_default().push(n);
    }
    let mut hits_of1: HashMap<usize, Vec<usize>> = HashMap::default();
    let mut hits_of2: HashMap<usize, Vec<usize>> = HashMap::default();
    for (h, (n, _)) in hits.iter().enumerate() {
        hits_of1.entry(data_comp.of(*n)).or_default().push(h);
        hits_of2.entry(all_comp.of(*n)).or_default().push(h);
    }
    let mut hit_seen = vec![false; hits.len()];
    let mut lines_touched: Vec<usize> = Vec::new();
    for base in (0..nv).step_by(64) {
        let batch = (nv - base).min(64);
        for (b, v) in (base..base + batch).enumerate() {
            for &w in &var_writes[v] {
                let c = data_comp.of(w);
                m1[c] |= 1 << b;
                if !queued1[c] {
                    queued1[c] = true;
                    touched1.push(c);
                }
            }
        }
        data_comp.propagate_from(&mut m1, &mut touched1, &mut queued1, |n| {
            data[n as usize].iter().copied()
        });
        // A write of root r reached (backward) from another root's writes:
        // what r holds flows into that other variable.
        for &c in &touched1 {
            let bits = m1[c];
            if bits == 0 {
                continue;
            }
            for n in writers_of.get(&c).into_iter().flatten() {
                let ws = &writers[n];
                for r in ws.iter().map(|&v| root_of[v as usize]) {
                    if full[r as usize] || (feeds_other[r as usize] && !listed[r as usize]) {
                        continue;
                    }
                    let fed = &mut fed_roots[r as usize];
                    each_var(base, bits, |v| {
                        // Arithmetic into a local scalar (a mean to print, a
                        // reduction's operand) feeds nothing back; a data
                        // structure, a parameter, a global or the return does.
                        let w = &vars.out[root_of[v] as usize];
                        let feeds = !w.is_scalar || w.is_exit || w.kind != VarKind::Local;
                        if root_of[v] != r && !ws.contains(&(v as u32)) && feeds {
                            let t = root_of[v];
                            if !fed.contains(&t) {
                                fed.push(t);
                            }
                        }
                    });
                    if !fed.is_empty() {
                        feeds_other[r as usize] = true;
                    }
                    if fed.len() > FED_ROOTS {
                        full[r as usize] = true;
                        fed.clear();
                    }
                }
            }
        }
        for &c in &touched1 {
            let bits = m1[c];
            if bits == 0 {
                continue;
            }
            for &n in data_comp.nodes(c) {
                for &t in ctrl(n) {
                    let c2 = all_comp.of(t);
                    m2[c2] |= bits;
                    if !queued2[c2] {
                        queued2[c2] = true;
                        touched2.push(c2);
                    }
                }
            }
        }
        all_comp.propagate_from(&mut m2, &mut touched2, &mut queued2, |n| {
            data[n as usize].iter().chain(ctrl(n)).copied()
        });
        // Lines, in ascending order per variable.
        for (comps, masks, touched, out) in [
            (&data_comp, &m1, &touched1, &mut explicit),
            (&all_comp, &m2, &touched2, &mut implicit),
        ] {
            for &c in touched {
                let bits = masks[c];
                for &n in comps.nodes(c) {
                    let k = line_index[n as usize];
                    if k != u32::MAX && bits != 0 {
                        if acc[k as usize] == 0 {
                            lines_touched.push(k as usize);
                        }
                        acc[k as usize] |= bits;
                    }
                }
            }
            lines_touched.sort_unstable();
            for &k in &lines_touched {
                each_var(base, acc[k], |v| out[v].push(line_list[k]));
                acc[k] = 0;
            }
            lines_touched.clear();
        }
        let mut batch_hits: Vec<usize> = Vec::new();
        for (touched, of) in [(&touched1, &hits_of1), (&touched2, &hits_of2)] {
            for c in touched.iter() {
                for &h in of.get(c).into_iter().flatten() {
                    if !hit_seen[h] {
                        hit_seen[h] = true;
                        batch_hits.push(h);
                    }
                }
            }
        }
        for h in batch_hits {
            hit_seen[h] = false;
            let n = hits[h].0;
            let explicit = m1[data_comp.of(n)];
            let bits = explicit | m2[all_comp.of(n)];
            each_var(base, bits, |v| hit_vars[h].push(v as u32));
            each_var(base, explicit, |v| hit_explicit[h].push(v as u32));
        }
        for c in touched1.drain(..) {
            m1[c] = 0;
            queued1[c] = false;
        }
        for c in touched2.drain(..) {
            m2[c] = 0;
            queued2[c] = false;
        }
    }
    // (total, explicit) per binding.
    let mut ret_bind: HashMap<InstId, (Vec<u32>, Vec<u32>)> = HashMap::default();
    let mut arg_bind: HashMap<(InstId, u32), (Vec<u32>, Vec<u32>)> = HashMap::default();
    let mut reads_param: Vec<BTreeSet<ParamRead>> = vec![BTreeSet::new(); nv];
    let mut reads_param_explicit: Vec<BTreeSet<ParamRead>> = vec![BTreeSet::new(); nv];
    for ((_, hit), (vs, xs)) in hits.into_iter().zip(hit_vars.into_iter().zip(hit_explicit)) {
        if vs.is_empty() {
            continue;
        }
        match hit {
            Hit::Ret(i) => {
                let (b, x) = ret_bind.entry(i).or_default();
                for (to, from) in [(b, vs), (x, xs)] {
                    to.extend(from);
                    to.sort_unstable();
                    to.dedup();
                }
            }
            Hit::Params(ks) => {
                for v in vs {
                    reads_param[v as usize].extend(ks.iter().cloned());
                }
                for v in xs {
                    reads_param_explicit[v as usize].extend(ks.iter().cloned());
                }
            }
            Hit::Out(key) => {
                arg_bind.insert(key, (vs, xs));
            }
        }
    }
    for (v, (mut explicit, implicit)) in explicit.into_iter().zip(implicit).enumerate() {
        if vars.declared.contains(&(v as u32)) {
            let l = vars.out[v].line;
            if l > 0 {
                explicit.push(l);
                explicit.sort_unstable();
                explicit.dedup();
            }
        }
        let var = &mut vars.out[v];
        var.explicit_lines = explicit;
        var.implicit_lines = implicit;
        var.write_lines.sort_unstable();
        var.write_lines.dedup();
    }
    Reach {
        ret_bind,
        arg_bind,
        reads_param,
        reads_param_explicit,
        feeds_other,
        fed_roots,
    }
}

fn set_aliases(f: &Function, res: &mut Resolver, vars: &mut Vars, classes: &Classes) {
    let nv = vars.out.len();
    let class_of = |v: u32| -> &[u32] { &classes.members[classes.class_id[v as usize] as usize] };
    // Aliases per variable.
    for v in 0..classes.declared as u32 {
        let mut a: Vec<u32> = class_of(v).iter().copied().filter(|&x| x != v).collect();
        a.sort_unstable();
        vars.out[v as usize].aliases = a;
    }
    // A returned pointer: the variables whose memory it points into alias
    // the return value, so that what the function computes into them is what
    // its caller receives (`p = malloc(..); fill(p); return p;`).
    if f.returns_value && nv > classes.declared {
        let ret = classes.declared as u32;
        let values: Vec<Value> = returned_values(f, &res.alloca_var)
            .into_iter()
            .filter(|v| is_ptr_value(f, v))
            .collect();
        let mut with: BTreeSet<u32> = BTreeSet::new();
        for value in &values {
            for l in res.locs(value) {
                if let Some(&v) = vars.by_key.get(&(l.root, l.path.clone())) {
                    if (v as usize) < classes.declared {
                        with.extend(class_of(v));
                    }
                }
            }
        }
        for &v in &with {
            vars.out[v as usize].aliases.push(ret);
        }
        vars.out[ret as usize].aliases = with.into_iter().collect();
    }
}

/// Side effects (blamed, from) -> explicit, and parameter alias pairs.
/// (blamed param, path written below it, that path's type, from param, path
/// read below it) → explicit; and the parameter alias pairs.
type SideEffects = (
    BTreeMap<(u32, String, String, u32, String), bool>,
    BTreeSet<(u32, String, u32, String)>,
);

/// Distinct paths read below one parameter kept per written variable; more
/// collapse into the whole parameter.
const MAX_FROM_PATHS: usize = 8;

fn side_effects(vars: &Vars, classes: &Classes, reach: &Reach) -> SideEffects {
    let nv = vars.out.len();
    let members = &classes.members;
    let (reads_param, reads_param_explicit) = (&reach.reads_param, &reach.reads_param_explicit);
    // Root (through containers) of a variable.
    let root_of = |vars: &Vec<Variable>, mut v: u32| -> u32 {
        for _ in 0..64 {
            match vars[v as usize].parent {
                Some(p) => v = p,
                None => break,
            }
        }
        v
    };
    let root_param = |vars: &Vec<Variable>, v: u32| -> Option<u32> {
        let r = &vars[root_of(vars, v) as usize];
        if r.kind == VarKind::Param {
            r.param_index
        } else {
            None
        }
    };

    let param_is_pointer: BTreeSet<u32> = vars
        .out
        .iter()
        .filter(|v| v.kind == VarKind::Param && v.parent.is_none() && v.is_pointer)
        .filter_map(|v| v.param_index)
        .collect();
    // Side effects (3.3.1.3): a pointer parameter whose writes read another
    // parameter, with the field path written and the paths read (`y.x`
    // computed from `a.vals`: the caller blames its `y.x` when its `a.vals`
    // is blamed, not when anything of `a` is). A read of the other
    // parameter's value only (the pointer, or a value parameter) reads it
    // all. Explicit: true when some write reads the path over data edges.
    let mut side: BTreeMap<(u32, String, String, u32, String), bool> = BTreeMap::new();
    for v in 0..nv as u32 {
        let var = &vars.out[v as usize];
        if !var.is_exit {
            continue;
        }
        let Some(k) = root_param(&vars.out, v) else {
            continue;
        };
        let root_name = &vars.out[root_of(&vars.out, v) as usize].name;
        let blamed_path = var
            .name
            .strip_prefix(root_name.as_str())
            .unwrap_or("")
            .to_string();
        let blamed_type = if blamed_path.is_empty() {
            String::new()
        } else {
            var.type_name.clone()
        };
        let params: BTreeSet<u32> = reads_param[v as usize].iter().map(|(j, _)| *j).collect();
        for j in params.into_iter().filter(|&j| j != k) {
            let reads: Vec<&ParamRead> = reads_param[v as usize]
                .iter()
                .filter(|(x, _)| *x == j)
                .collect();
            // A pointer parameter's address stored in a pointer or reference
            // member (a constructor's `timers_(timers)`, `s->x = x`) binds
            // the member, it computes no data below it: the parameter alias
            // says what the member holds (`param_aliases`), and the member
            // is no field path of its own for what the pointee's computation
            // costs. (The whole parameter keeps its side effect, Figure
            // 3.13's `absorbEV`.)
            let address_only = reads.iter().all(|(_, p)| p.is_none());
            if address_only
                && !blamed_path.is_empty()
                && param_is_pointer.contains(&j)
                && vars.out[v as usize].is_pointer
            {
                continue;
            }
            let mut paths: BTreeSet<String> = reads.iter().filter_map(|(_, p)| p.clone()).collect();
            if paths.is_empty() || paths.contains("") || paths.len() > MAX_FROM_PATHS {
                paths = [String::new()].into_iter().collect();
            }
            let explicit_reads = &reads_param_explicit[v as usize];
            for from_path in paths {
                let explicit = explicit_reads.iter().any(|(x, p)| {
                    *x == j
                        && (from_path.is_empty()
                            || p.as_deref()
                                .is_none_or(|p| p.starts_with(from_path.as_str())))
                });
                *side
                    .entry((k, blamed_path.clone(), blamed_type.clone(), j, from_path))
                    .or_default() |= explicit;
            }
        }
    }
    // Parameter aliases, with the field path of each side (`this.mesh_`
    // holds what `mesh` points to: `(".mesh_", "")`).
    let mut param_aliases: BTreeSet<(u32, String, u32, String)> = BTreeSet::new();
    for members in members {
        let ps: BTreeSet<(u32, String)> = members
            .iter()
            .filter_map(|&m| {
                let p = root_param(&vars.out, m)?;
                let root_name = &vars.out[root_of(&vars.out, m) as usize].name;
                let path = vars.out[m as usize]
                    .name
                    .strip_prefix(root_name.as_str())
                    .unwrap_or("")
                    .to_string();
                Some((p, path))
            })
            .collect();
        let ps: Vec<(u32, String)> = ps.into_iter().collect();
        for a in 0..ps.len() {
            for b in a + 1..ps.len() {
                if ps[a].0 != ps[b].0 {
                    param_aliases.insert((ps[a].0, ps[a].1.clone(), ps[b].0, ps[b].1.clone()));
                }
            }
        }
    }
    (side, param_aliases)
}

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

fn call_sites(
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
