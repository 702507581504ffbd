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

mod alias_classes;
mod call_sites;
mod closure;
mod data_edges;
mod defined;
mod element_owners;
mod global_writes;
mod graph;
mod index_cursors;
mod later_writes;
mod locations;
mod override_sets;
mod pointer_sets;
mod reach;
mod reads;
mod records;
mod result_records;
mod side_effects;
mod slots;
mod variables;
mod view_types;
mod write_sets;
mod writes;

pub use defined::{DefinedFunctions, FieldAlias};
pub use locations::ReturnsInto;
pub use override_sets::add_from_db as add_override_sets_from_db;
pub use pointer_sets::add_from_db as add_pointer_sets_from_db;
#[cfg(test)]
pub(crate) use reads::read_table_tests;
pub use write_sets::{summary_flows, summary_record_params, AccessSets, ParamWrite, StoredSets};

use crate::cfg::Cfg;
use crate::ir::*;
use crate::{HashMap, HashSet};
use blame_formats::static_db::*;
use graph::CallRoots;
use locations::{variable_bindings, Resolver, Root};
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
    let t0 = std::time::Instant::now();
    let profile = std::env::var_os("BLAME_PROFILE").is_some();
    let cfg = Cfg::new(f);
    let t_cfg = t0.elapsed();

    // Variables of allocas and arguments, and which parameter each variable holds.
    let (alloca_var, arg_var, param_of, declared_line) = variable_bindings(f);
    let mut res = Resolver::new(m, f, &defined.rets, alloca_var, arg_var);
    let mut vars = declared_variables(m, f, &res, &param_of, &declared_line);

    let mut w = writes::collect_writes(m, defined, f, &mut res, &mut vars);
    // Element pointers are known from their bindings alone: reads through
    // one depend on its binding (`data_edges`).
    let element_pointers = element_owners::element_owners(&vars.out, &w.pointer_sources);
    let (unbound, element_roots) = unbound_element_pointers(f, &w, &vars, &element_pointers);
    let call_roots = call_roots(&vars, &w);
    let graph = data_edges::data_edges(
        f,
        &cfg,
        defined,
        &mut res,
        &mut w,
        &element_roots,
        &call_roots,
    );
    alias_classes::factory_aliases(f, defined, &mut res, &mut vars, &mut w.alias_pairs);
    // (Before the alias classes and the writes per variable: it may name
    // the member a view is copied from.)
    element_owners::iterator_owners(m, f, &mut res, &mut vars);
    let classes = alias_classes::alias_classes(vars.out.len(), &w.alias_pairs);
    let mut var_writes = alias_classes::do_store(&mut vars, &w, &classes);
    // The return value: a variable written by the returns.
    if f.returns_value {
        add_return_variable(f, &mut vars, &mut var_writes);
    }

    let t_graph = t0.elapsed();
    for (l, o) in element_pointers {
        vars.out[l as usize].element_of = Some(o);
    }
    element_owners::unbind_element_pointers(&mut vars, &w, &unbound, &mut var_writes);
    let reads_of_params = reach::param_reads(f, &mut res, &param_of, &graph.load_locs);
    let reach = reach::reach(
        f,
        &cfg,
        &graph,
        &w,
        &reads_of_params,
        &mut vars,
        &var_writes,
    );
    let t_reach = t0.elapsed();
    alias_classes::set_aliases(f, &mut res, &mut vars, &classes);
    let (mut side, param_aliases) = side_effects::side_effects(&vars, &classes, &reach);
    let call_sites = call_sites::call_sites(f, defined, &mut res, &vars, &classes, &w, &reach);
    side_effects::forwarded(defined, &vars.out, &call_sites, &mut side);
    let (loops, reads) = reads::loops_and_reads(m, f, &cfg, &mut res, &mut vars);
    name_private_copies(f, &mut vars.out);
    reads::allocation_sizes(f, &mut res, &mut vars);
    // (After the writes are numbered: it may name a global only read here.)
    index_cursors::index_cursors(f, &mut res, &mut vars);
    let fields_feeding_data = mark_records(f, defined, &mut vars, &var_writes, &w, &graph, &reach);

    let mut lines: Vec<u32> = f.insts.iter().map(|i| i.line).filter(|&l| l > 0).collect();
    lines.sort_unstable();
    lines.dedup();
    if profile && t0.elapsed().as_millis() > 20 {
        eprintln!(
            "{}: {} insts, {} blocks, {} vars, {} nodes, {} defs: cfg {:?}, graph {:?}, reach {:?}, rest {:?}",
            f.name,
            f.insts.len(),
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
        side_effects: side_effect_list(side),
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
        returns_into: vec![],
        unit_function_pointers: vec![],
    }
}

/// The variables of `f`'s declarations, numbered before any other.
fn declared_variables<'a>(
    m: &'a Module,
    f: &'a Function,
    res: &Resolver,
    param_of: &'a HashMap<u32, u32>,
    declared_line: &BTreeMap<u32, u32>,
) -> Vars<'a> {
    let mut vars = Vars {
        m,
        f,
        param_of,
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
    vars
}

/// The element pointers holding addresses inside an array or object
/// (`&blocks[n]`, `&nodes[i]`, an element a call returns), not copies of
/// another pointer (`x = y`, a cursor starting at a list's head), and
/// their roots.
fn unbound_element_pointers(
    f: &Function,
    w: &writes::Writes,
    vars: &Vars,
    element_pointers: &[(u32, u32)],
) -> (HashSet<u32>, HashSet<Root>) {
    // A pointer bound only to addresses calls return into its owner
    // (`root = tree_build(&pool, ..)` handing out `&pool->nodes[k]`) holds
    // an element's address too, whatever the owner's type.
    let mut bindings: HashMap<u32, (usize, usize)> = HashMap::default();
    for &wi in &w.pointer_stores {
        let (node, targets) = &w.writes[wi];
        let returned = f.insts.get(*node as usize).is_some_and(|i| {
            matches!(i.args.first(), Some(Value::Inst(c))
                if matches!(f.insts[*c as usize].op, Op::Call { callee: Some(_) }))
        });
        for &t in targets {
            let e = bindings.entry(t).or_default();
            e.0 += 1;
            e.1 += usize::from(returned);
        }
    }
    let returned_only = |l: u32| bindings.get(&l).is_some_and(|&(n, r)| n > 0 && n == r);
    let unbound: HashSet<u32> = element_pointers
        .iter()
        .filter(|&&(l, o)| !vars.out[o as usize].is_pointer || returned_only(l))
        .map(|&(l, _)| l)
        .collect();
    let element_roots: HashSet<Root> = vars
        .by_key
        .iter()
        .filter(|((_, path), v)| path.is_empty() && unbound.contains(v))
        .map(|((root, _), _)| *root)
        .collect();
    (unbound, element_roots)
}

/// Per call, the data structures (root variables) it may write and
/// those it reads through its pointer arguments.
fn call_roots(vars: &Vars, w: &writes::Writes) -> CallRoots {
    let mut call_roots: CallRoots = Default::default();
    for (c, _, targets, may_write) in &w.arg_targets {
        let roots = targets.iter().map(|&t| root_of(&vars.out, t));
        call_roots.1.entry(*c).or_default().extend(roots.clone());
        if *may_write {
            call_roots.0.entry(*c).or_default().extend(roots);
        }
    }
    call_roots
}

/// The return value: a variable written by the returns.
fn add_return_variable(f: &Function, vars: &mut Vars, var_writes: &mut Vec<Vec<u32>>) {
    vars.out.push(Variable {
        line: f.line,
        is_exit: true,
        ..Variable::new("return", VarKind::Return)
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

/// Result records: the fields of objects (returning the names of those
/// read into other data) and the variables that only record numbers or
/// results.
fn mark_records(
    f: &Function,
    defined: &DefinedFunctions,
    vars: &mut Vars,
    var_writes: &[Vec<u32>],
    w: &writes::Writes,
    graph: &data_edges::Graph,
    reach: &reach::Reach,
) -> Vec<String> {
    let mut feeds = records::Feeds {
        other: reach.feeds_other.clone(),
        roots: reach.fed_roots.clone(),
        split: Default::default(),
    };
    feeds.other.resize(vars.out.len(), false);
    feeds.roots.resize(vars.out.len(), Vec::new());
    for g in records::globals_read_into_data(graph, vars, var_writes) {
        feeds.other[g as usize] = true;
        feeds.roots[g as usize].clear();
    }
    let fields_feeding_data = records::record_fields(f, defined, vars, var_writes, w, graph);
    // A local left without a verdict whose writes computed from data feed
    // only records, while only its writes of numbers feed data, is a
    // result (`later_writes`).
    feeds.split = later_writes::split_feeds(
        f,
        defined,
        &vars.out,
        var_writes,
        w,
        graph,
        &feeds.other,
        |n| records::records_write(f, defined, w, graph.first_obj, n as usize, false, false),
    );
    result_records::result_records(
        f,
        defined,
        &mut vars.out,
        var_writes,
        w,
        graph.first_obj,
        &feeds,
    );
    records::record_params(f, defined, &mut vars.out, var_writes, w, graph.first_obj);
    fields_feeding_data
}

/// The summary's side effects.
fn side_effect_list(side: BTreeMap<(u32, String, String, u32, String), bool>) -> Vec<SideEffect> {
    side.into_iter()
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
        .collect()
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

/// True when `v` is a pointer.
fn is_ptr_value(f: &Function, v: &Value) -> bool {
    match v {
        Value::Inst(i) => f.insts[*i as usize].is_pointer,
        Value::Arg(k) => f.params.get(*k as usize).is_some_and(|p| p.is_pointer),
        Value::Global(_) => true,
        _ => false,
    }
}
