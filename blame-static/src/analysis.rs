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

use crate::access::AccessPatterns;
use crate::cfg::Cfg;
use crate::ir::*;
use crate::library::{self, LibModel};
use blame_formats::static_db::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
enum Root {
    /// A DILocalVariable of the function.
    Var(u32),
    Global(u32),
    /// An alloca without debug info (retval, temporaries): tracked, never reported.
    Hidden(u32),
    /// A pointer parameter used without a declared variable (optimized IR).
    RawArg(u32),
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
struct Loc {
    root: Root,
    path: Vec<String>,
    /// Number of pointer dereferences from the root's own storage.
    deref: u32,
    /// Debug type of the memory at this location.
    ty: Option<TypeId>,
    /// False once an array index or pointer arithmetic was applied.
    exact: bool,
}

type Key = (Root, Vec<String>);

const MAX_LOCS: usize = 16;

struct Resolver<'a> {
    m: &'a Module,
    f: &'a Function,
    /// Where the pointers returned by the module's functions point.
    rets: &'a HashMap<String, Vec<ReturnsInto>>,
    /// Per instruction, the addresses its value (casts aside) is stored to.
    stored_to: HashMap<InstId, Vec<Value>>,
    alloca_var: HashMap<InstId, u32>,
    arg_var: HashMap<u32, (u32, bool)>,
    memo: Vec<Option<Vec<Loc>>>,
    busy: Vec<bool>,
}

impl Resolver<'_> {
    fn locs(&mut self, v: &Value) -> Vec<Loc> {
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
                        let mut path = l.path.clone();
                        path.extend(r.path.iter().cloned());
                        let loc = Loc {
                            root: l.root,
                            path,
                            deref: l.deref + r.deref,
                            ty: None,
                            exact: false,
                        };
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
fn stored_to(f: &Function) -> HashMap<InstId, Vec<Value>> {
    let mut out: HashMap<InstId, Vec<Value>> = HashMap::new();
    for inst in f.insts.iter().filter(|i| matches!(i.op, Op::Store)) {
        if let (Value::Inst(j), Some(addr)) = (strip_casts(f, &inst.args[0]), inst.args.get(1)) {
            out.entry(j).or_default().push(addr.clone());
        }
    }
    out
}

pub(crate) fn strip_casts<'a>(f: &'a Function, mut v: &'a Value) -> Value {
    for _ in 0..16 {
        match v {
            Value::Inst(i) if matches!(f.insts[*i as usize].op, Op::Cast) => {
                v = &f.insts[*i as usize].args[0]
            }
            _ => break,
        }
    }
    v.clone()
}

struct Vars<'a> {
    m: &'a Module,
    f: &'a Function,
    param_of: &'a HashMap<u32, u32>,
    out: Vec<Variable>,
    by_key: HashMap<Key, u32>,
    declared: BTreeSet<u32>,
    /// Declared debug type of each variable.
    decl_ty: Vec<Option<TypeId>>,
}

impl Vars<'_> {
    fn get(&mut self, root: Root, path: &[String], ty: Option<TypeId>) -> Option<u32> {
        if matches!(root, Root::Hidden(_)) {
            return None;
        }
        let key = (root, path.to_vec());
        if let Some(&i) = self.by_key.get(&key) {
            return Some(i);
        }
        let mut decl_field_ty = None;
        let var = if path.is_empty() {
            match root {
                Root::Var(v) => {
                    let lv = &self.f.vars[v as usize];
                    let param = self.param_of.get(&v).copied();
                    let ir_ptr = param
                        .and_then(|k| self.f.params.get(k as usize))
                        .is_some_and(|p| p.is_pointer);
                    let ptr = self.m.is_pointer(lv.ty) || (lv.ty.is_none() && ir_ptr);
                    Variable {
                        name: lv.name.clone(),
                        kind: if param.is_some() {
                            VarKind::Param
                        } else {
                            VarKind::Local
                        },
                        type_name: self.m.type_name_opt(lv.ty),
                        line: lv.line,
                        parent: None,
                        param_index: param,
                        is_exit: param.is_some() && ptr,
                        is_pointer: ptr,
                        is_scalar: (!ptr && self.m.is_scalar(lv.ty)) || self.m.is_handle(lv.ty),
                        explicit_lines: vec![],
                        implicit_lines: vec![],
                        write_lines: vec![],
                        aliases: vec![],
                    }
                }
                Root::Global(g) => {
                    let gl = &self.m.globals[g as usize];
                    // String literals and other compiler-made globals: tracked, never reported.
                    if gl.artificial {
                        return None;
                    }
                    Variable {
                        name: gl.source_name.clone().unwrap_or_else(|| gl.name.clone()),
                        // A function-static local is its function's variable.
                        kind: if gl.function.is_some() {
                            VarKind::Local
                        } else {
                            VarKind::Global
                        },
                        type_name: self.m.type_name_opt(gl.ty),
                        line: gl.line,
                        parent: None,
                        param_index: None,
                        is_exit: true,
                        is_pointer: self.m.is_pointer(gl.ty),
                        is_scalar: self.m.is_scalar(gl.ty) || self.m.is_handle(gl.ty),
                        explicit_lines: vec![],
                        implicit_lines: vec![],
                        write_lines: vec![],
                        aliases: vec![],
                    }
                }
                Root::RawArg(k) => Variable {
                    name: format!("arg{k}"),
                    kind: VarKind::Param,
                    type_name: String::new(),
                    line: 0,
                    parent: None,
                    param_index: Some(k),
                    is_exit: true,
                    is_pointer: true,
                    is_scalar: false,
                    explicit_lines: vec![],
                    implicit_lines: vec![],
                    write_lines: vec![],
                    aliases: vec![],
                },
                Root::Hidden(_) => return None,
            }
        } else {
            let parent = self.get(root, &path[..path.len() - 1], None)?;
            let p = &self.out[parent as usize];
            let last = &path[path.len() - 1];
            // The member's declared type, found through the parent's type
            // (the location's type is the pointee once dereferenced).
            let mut pt = self.decl_ty.get(parent as usize).copied().flatten();
            for _ in 0..8 {
                if self.m.is_struct(pt) {
                    break;
                }
                match self.m.pointee(pt) {
                    Some(t) => pt = Some(t),
                    None => break,
                }
            }
            let member = match self.m.resolve(pt).map(|t| self.m.ty(t)) {
                Some(DiType::Struct { members, .. }) => {
                    members.iter().find(|mm| &mm.name == last).map(|mm| mm.ty)
                }
                _ => None,
            };
            let ty = member.unwrap_or(ty);
            decl_field_ty = ty;
            Variable {
                name: format!("{}.{}", p.name, last),
                kind: VarKind::Field,
                type_name: self.m.type_name_opt(ty),
                line: p.line,
                parent: Some(parent),
                param_index: None,
                is_exit: p.is_exit,
                is_pointer: self.m.is_pointer(ty),
                is_scalar: self.m.is_scalar(ty) || self.m.is_handle(ty),
                explicit_lines: vec![],
                implicit_lines: vec![],
                write_lines: vec![],
                aliases: vec![],
            }
        };
        let idx = self.out.len() as u32;
        let decl = match (root, path.is_empty()) {
            (Root::Var(v), true) => self.f.vars[v as usize].ty,
            (Root::Global(g), true) => self.m.globals[g as usize].ty,
            _ => decl_field_ty,
        };
        self.decl_ty.push(decl);
        self.out.push(var);
        self.by_key.insert(key, idx);
        Some(idx)
    }
}

fn find(uf: &mut [u32], mut x: u32) -> u32 {
    while uf[x as usize] != x {
        uf[x as usize] = uf[uf[x as usize] as usize];
        x = uf[x as usize];
    }
    x
}

/// The strongly connected components of a graph (Tarjan's algorithm,
/// iterative), numbered in reverse topological order: an edge from a node of
/// component `a` to one of component `b` has `a >= b`.
struct Components {
    comp: Vec<u32>,
    /// Nodes grouped by component: those of component `c` are
    /// `nodes[start[c]..start[c + 1]]`.
    nodes: Vec<u32>,
    start: Vec<u32>,
}

impl Components {
    fn new<I: Iterator<Item = u32>>(n: usize, succs: impl Fn(u32) -> I) -> Components {
        const UNSEEN: u32 = u32::MAX;
        let mut index = vec![UNSEEN; n];
        let mut low = vec![0u32; n];
        let mut on_stack = vec![false; n];
        let mut comp = vec![0u32; n];
        let mut stack: Vec<u32> = Vec::new();
        let mut calls: Vec<(u32, I)> = Vec::new();
        let mut next_index = 0u32;
        let mut count = 0u32;
        for root in 0..n as u32 {
            if index[root as usize] != UNSEEN {
                continue;
            }
            let mut enter = Some(root);
            loop {
                if let Some(v) = enter.take() {
                    index[v as usize] = next_index;
                    low[v as usize] = next_index;
                    next_index += 1;
                    on_stack[v as usize] = true;
                    stack.push(v);
                    calls.push((v, succs(v)));
                }
                let Some(top) = calls.len().checked_sub(1) else {
                    break;
                };
                let v = calls[top].0;
                match calls[top].1.next() {
                    Some(w) if index[w as usize] == UNSEEN => enter = Some(w),
                    Some(w) => {
                        if on_stack[w as usize] {
                            low[v as usize] = low[v as usize].min(index[w as usize]);
                        }
                    }
                    None => {
                        calls.pop();
                        if let Some(&(u, _)) = calls.last() {
                            low[u as usize] = low[u as usize].min(low[v as usize]);
                        }
                        if low[v as usize] == index[v as usize] {
                            while let Some(w) = stack.pop() {
                                on_stack[w as usize] = false;
                                comp[w as usize] = count;
                                if w == v {
                                    break;
                                }
                            }
                            count += 1;
                        }
                    }
                }
            }
        }
        let mut start = vec![0u32; count as usize + 1];
        for &c in &comp {
            start[c as usize + 1] += 1;
        }
        for c in 0..count as usize {
            start[c + 1] += start[c];
        }
        let mut fill = start.clone();
        let mut nodes = vec![0u32; n];
        for (v, &c) in comp.iter().enumerate() {
            nodes[fill[c as usize] as usize] = v as u32;
            fill[c as usize] += 1;
        }
        Components { comp, nodes, start }
    }

    fn count(&self) -> usize {
        self.start.len() - 1
    }

    fn of(&self, n: u32) -> usize {
        self.comp[n as usize] as usize
    }

    /// Closes per-component bit masks under reachability: afterwards each
    /// component's mask includes the masks of every component reaching it.
    fn propagate<I: Iterator<Item = u32>>(&self, masks: &mut [u64], succs: impl Fn(u32) -> I) {
        for c in (0..self.count()).rev() {
            let bits = masks[c];
            if bits == 0 {
                continue;
            }
            for &n in &self.nodes[self.start[c] as usize..self.start[c + 1] as usize] {
                for d in succs(n) {
                    masks[self.comp[d as usize] as usize] |= bits;
                }
            }
        }
    }
}

/// Bitset helpers for reaching definitions.
fn bit(s: &[u64], i: usize) -> bool {
    s[i / 64] >> (i % 64) & 1 == 1
}

/// Flow sensitivity of may-definitions (stores through pointers, call
/// outputs): a read sees a write only when the write can execute before it,
/// that is when the write is earlier in the read's block or the read's block
/// is reachable from the write's. The memory-object node of all writes to a
/// location is used when every write is visible; otherwise a node of the
/// visible subset is made (shared by all reads that see the same subset),
/// so a read in straight-line code no longer depends on a call made after it.
struct MayDefVisibility<'a> {
    f: &'a Function,
    ni: usize,
    np: usize,
    out_node_info: &'a [(InstId, u32)],
    /// Position of each instruction in its block.
    pos: Vec<u32>,
    /// Blocks reachable from a block over one edge or more, per block asked for.
    reach: HashMap<u32, Vec<u64>>,
    /// Objects of visible subsets, by their writes.
    subsets: HashMap<Vec<u32>, u32>,
    /// Per (object, reading block) with no write of the object in that block: the answer.
    cache: HashMap<(u32, u32), Option<u32>>,
}

impl<'a> MayDefVisibility<'a> {
    fn new(f: &'a Function, ni: usize, np: usize, out_node_info: &'a [(InstId, u32)]) -> Self {
        let mut pos = vec![0u32; f.insts.len()];
        for b in &f.blocks {
            for (k, &i) in b.insts.iter().enumerate() {
                pos[i as usize] = k as u32;
            }
        }
        MayDefVisibility {
            f,
            ni,
            np,
            out_node_info,
            pos,
            reach: HashMap::new(),
            subsets: HashMap::new(),
            cache: HashMap::new(),
        }
    }

    /// The instruction a write node stands for (a store, or the call of an output).
    fn inst_of(&self, node: u32) -> Option<InstId> {
        let n = node as usize;
        if n < self.ni {
            Some(node)
        } else if n >= self.ni + self.np && n - self.ni - self.np < self.out_node_info.len() {
            Some(self.out_node_info[n - self.ni - self.np].0)
        } else {
            None
        }
    }

    fn reaches(&mut self, from: u32, to: u32) -> bool {
        let nb = self.f.blocks.len();
        let f = self.f;
        let bits = self.reach.entry(from).or_insert_with(|| {
            let mut bits = vec![0u64; nb.div_ceil(64)];
            let mut stack: Vec<u32> = f.blocks[from as usize].succs.clone();
            while let Some(b) = stack.pop() {
                if bits[b as usize / 64] >> (b % 64) & 1 == 1 {
                    continue;
                }
                bits[b as usize / 64] |= 1 << (b % 64);
                stack.extend(&f.blocks[b as usize].succs);
            }
            bits
        });
        bit(bits, to as usize)
    }

    /// Whether the write `node` can execute before instruction `read`.
    fn sees(&mut self, node: u32, read: InstId) -> bool {
        let Some(w) = self.inst_of(node) else {
            return true;
        };
        let (wb, rb) = (
            self.f.insts[w as usize].block,
            self.f.insts[read as usize].block,
        );
        if wb as usize >= self.f.blocks.len() || rb as usize >= self.f.blocks.len() {
            return true;
        }
        (wb == rb && self.pos[w as usize] < self.pos[read as usize]) || self.reaches(wb, rb)
    }

    /// The object node the read `read` should depend on instead of `obj`
    /// (all writes to a location), or `None` when it sees none of them.
    fn object(
        &mut self,
        obj: u32,
        read: InstId,
        data: &mut Vec<Vec<u32>>,
        first_obj: usize,
    ) -> Option<u32> {
        let rb = self.f.insts[read as usize].block;
        let writes = data[obj as usize].clone();
        let in_block = writes.iter().any(|&w| {
            self.inst_of(w)
                .is_some_and(|i| self.f.insts[i as usize].block == rb)
        });
        if !in_block {
            if let Some(&o) = self.cache.get(&(obj, rb)) {
                return o;
            }
        }
        let seen: Vec<u32> = writes
            .iter()
            .copied()
            .filter(|&w| self.sees(w, read))
            .collect();
        let o = if seen.len() == writes.len() {
            Some(obj)
        } else if seen.is_empty() {
            None
        } else if let Some(&o) = self.subsets.get(&seen) {
            Some(o)
        } else {
            let o = data.len() as u32;
            debug_assert!(o as usize >= first_obj);
            data.push(seen.clone());
            self.subsets.insert(seen, o);
            Some(o)
        };
        if !in_block {
            self.cache.insert((obj, rb), o);
        }
        o
    }
}

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
    rets: HashMap<String, Vec<ReturnsInto>>,
    fields: HashMap<String, Vec<FieldAlias>>,
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
        let mut names = HashMap::with_capacity(m.functions.len());
        for g in &m.functions {
            // The first function of a name decides, as a linear search would.
            names.entry(g.name.as_str()).or_insert(!g.is_declaration);
        }
        let rets = returns_into(m);
        let fields = field_aliases(m, &rets);
        DefinedFunctions {
            names,
            rets,
            fields,
        }
    }

    /// The fields of the object `name` returns that point into its arguments.
    pub fn field_aliases(&self, name: &str) -> &[FieldAlias] {
        self.fields.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    pub fn contains(&self, name: &str) -> bool {
        self.names.get(name).copied().unwrap_or(false)
    }

    /// Where the pointer `name` returns points (empty when unknown or fresh memory).
    pub fn returns_into(&self, name: &str) -> &[ReturnsInto] {
        self.rets.get(name).map(Vec::as_slice).unwrap_or(&[])
    }
}

/// Variables of allocas and arguments of `f`: (alloca → variable,
/// argument → (variable, declared on the argument itself), variable →
/// parameter position, variable → declaration line of allocas).
type Bindings = (
    HashMap<InstId, u32>,
    HashMap<u32, (u32, bool)>,
    HashMap<u32, u32>,
    BTreeMap<u32, u32>,
);

fn variable_bindings(f: &Function) -> Bindings {
    let mut alloca_var = HashMap::new();
    let mut arg_var = HashMap::new();
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
    let mut param_of: HashMap<u32, u32> = HashMap::new();
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
    let mut out = HashMap::new();
    for f in m
        .functions
        .iter()
        .filter(|f| !f.is_declaration && f.returns_value && f.params.iter().any(|p| p.is_pointer))
    {
        let (alloca_var, arg_var, param_of, _) = variable_bindings(f);
        let mut res = Resolver {
            m,
            f,
            rets,
            stored_to: stored_to(f),
            alloca_var,
            arg_var,
            memo: vec![None; f.insts.len()],
            busy: vec![false; f.insts.len()],
        };
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
fn returned_values(f: &Function, alloca_var: &HashMap<InstId, u32>) -> Vec<Value> {
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
    let mut rets: HashMap<String, Vec<ReturnsInto>> = HashMap::new();
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
            let mut res = Resolver {
                m,
                f,
                rets: &rets,
                stored_to: stored_to(f),
                alloca_var,
                arg_var,
                memo: vec![None; f.insts.len()],
                busy: vec![false; f.insts.len()],
            };
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

/// Analyzes one defined function into its summary (names, file, hash filled by the caller).
pub fn analyze(m: &Module, f: &Function) -> FunctionSummary {
    analyze_with(m, &DefinedFunctions::new(m), f)
}

/// [`analyze`] with the module's defined functions computed once by the caller.
pub fn analyze_with(m: &Module, defined: &DefinedFunctions, f: &Function) -> FunctionSummary {
    let ni = f.insts.len();
    let np = f.params.len();
    let t0 = std::time::Instant::now();
    let profile = std::env::var_os("BLAME_PROFILE").is_some();
    let cfg = Cfg::new(f);
    let t_cfg = t0.elapsed();

    // Variables of allocas and arguments, and which parameter each variable holds.
    let (alloca_var, arg_var, param_of, declared_line) = variable_bindings(f);
    let mut res = Resolver {
        m,
        f,
        rets: &defined.rets,
        stored_to: stored_to(f),
        alloca_var,
        arg_var,
        memo: vec![None; ni],
        busy: vec![false; ni],
    };
    let mut vars = Vars {
        m,
        f,
        param_of: &param_of,
        out: Vec::new(),
        by_key: HashMap::new(),
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

    // Node numbering: instructions, parameters, call outputs.
    let mut node_line: Vec<u32> = f.insts.iter().map(|i| i.line).collect();
    let mut node_block: Vec<u32> = f.insts.iter().map(|i| i.block).collect();
    node_line.extend(std::iter::repeat_n(0, np));
    node_block.extend(std::iter::repeat_n(u32::MAX, np));
    let arg_node = |k: u32| (ni + k as usize) as u32;
    // (call, arg) -> output node
    let mut out_nodes: HashMap<(InstId, u32), u32> = HashMap::new();
    let mut out_node_info: Vec<(InstId, u32)> = Vec::new();

    // Writes: killing definitions (exact stores to a slot) and may-definitions.
    let mut kill_key: HashMap<InstId, Key> = HashMap::new();
    let mut kill_defs: HashMap<Key, Vec<u32>> = HashMap::new(); // key -> def numbers
    let mut def_node: Vec<u32> = Vec::new();
    let mut may_defs: HashMap<(Key, u32), Vec<u32>> = HashMap::new();
    // Store/out node -> direct target variables
    let mut writes: Vec<(u32, Vec<u32>)> = Vec::new();
    let mut alias_pairs: Vec<(u32, u32)> = Vec::new();
    let mut own_writes: Vec<(u32, u32)> = Vec::new();
    let mut call_models: HashMap<InstId, (Option<String>, Option<LibModel>)> = HashMap::new();

    let callee_name = |inst: &Inst| -> Option<Option<String>> {
        match &inst.op {
            Op::Call { callee: Some(c) } if c.starts_with("llvm.") => {
                library::intrinsic_as_libc(c).map(|n| Some(n.to_string()))
            }
            Op::Call { callee } => Some(callee.clone()),
            _ => None,
        }
    };
    let is_ptr_value = |v: &Value| match v {
        Value::Inst(i) => f.insts[*i as usize].is_pointer,
        Value::Arg(k) => f.params.get(*k as usize).is_some_and(|p| p.is_pointer),
        Value::Global(_) => true,
        _ => false,
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
                        // (not into memory it points to).
                        if l.deref == 0 && inst.line > 0 {
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
                if is_ptr_value(&inst.args[0]) {
                    for src in res.locs(&inst.args[0]) {
                        if let Some(sv) = vars.get(src.root, &src.path, src.ty) {
                            for &t in &targets {
                                if t != sv {
                                    alias_pairs.push((sv, t));
                                }
                            }
                        }
                    }
                }
                writes.push((i, targets));
            }
            Op::Call { .. } => {
                let Some(name) = callee_name(inst) else {
                    continue;
                };
                let has_body = name.as_deref().is_some_and(|n| defined.contains(n));
                let ptr_args: Vec<u32> = (0..inst.args.len() as u32)
                    .filter(|&k| is_ptr_value(&inst.args[k as usize]))
                    .collect();
                let model = match &name {
                    Some(n) if !has_body => Some(
                        library::known(n)
                            .or_else(|| library::omp_fork(n, inst.args.len() as u32))
                            .unwrap_or_else(|| {
                                // A library routine cannot write through a
                                // pointer to const (`dgemm`'s `const double
                                // *a`): only the others take its blame.
                                let writable: Vec<u32> = ptr_args
                                    .iter()
                                    .copied()
                                    .filter(|&k| {
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
                    let may_write = model
                        .as_ref()
                        .is_none_or(|md| md.outputs.contains(&CallOutput::Arg(k)));
                    let mut targets = Vec::new();
                    for l in &locs {
                        if may_write {
                            may_defs
                                .entry(((l.root, l.path.clone()), l.deref))
                                .or_default()
                                .push(node);
                        }
                        if let Some(v) = vars.get(l.root, &l.path, l.ty) {
                            targets.push(v);
                        }
                    }
                    let written = model
                        .as_ref()
                        .is_some_and(|md| md.writes && md.outputs.contains(&CallOutput::Arg(k)));
                    if written {
                        writes.push((node, targets));
                    }
                }
                call_models.insert(i, (name, model));
            }
            _ => {}
        }
    }

    // Reaching definitions of exact slots (the Temp-Blame set with kills).
    let nd = def_node.len();
    let words = nd.div_ceil(64);
    let nb = f.blocks.len();
    let mut gen = vec![vec![0u64; words]; nb];
    let mut killm = vec![vec![0u64; words]; nb];
    if nd > 0 {
        let def_of: HashMap<InstId, u32> = def_node
            .iter()
            .enumerate()
            .map(|(d, &n)| (n, d as u32))
            .collect();
        for (b, blk) in f.blocks.iter().enumerate() {
            let mut last: HashMap<&Key, u32> = HashMap::new();
            for &i in &blk.insts {
                if let Some(key) = kill_key.get(&i) {
                    last.insert(key, def_of[&i]);
                }
            }
            for (key, d) in last {
                for &o in &kill_defs[key] {
                    killm[b][o as usize / 64] |= 1 << (o % 64);
                }
                gen[b][d as usize / 64] |= 1 << (d % 64);
            }
        }
    }
    let mut inb = vec![vec![0u64; words]; nb];
    let mut outb = gen.clone();
    if nd > 0 {
        let order: Vec<u32> = (0..nb as u32).filter(|&b| cfg.reachable(b)).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for &b in &order {
                let b = b as usize;
                let mut new_in = vec![0u64; words];
                for &p in &cfg.preds[b] {
                    for (w, x) in new_in.iter_mut().zip(&outb[p as usize]) {
                        *w |= x;
                    }
                }
                let new_out: Vec<u64> = (0..words)
                    .map(|w| gen[b][w] | (new_in[w] & !killm[b][w]))
                    .collect();
                if new_out != outb[b] {
                    outb[b] = new_out;
                    changed = true;
                }
                inb[b] = new_in;
            }
        }
    }

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
    let mut may_obj: HashMap<(Key, u32), u32> = HashMap::new();
    let mut call_obj: HashMap<(Key, u32), u32> = HashMap::new();
    for (k, ns) in &may_defs {
        may_obj.insert(
            k.clone(),
            new_obj(ns.clone(), &mut node_line, &mut node_block),
        );
        let calls: Vec<u32> = ns
            .iter()
            .copied()
            .filter(|&n| n as usize >= ni + np)
            .collect();
        if !calls.is_empty() {
            call_obj.insert(k.clone(), new_obj(calls, &mut node_line, &mut node_block));
        }
    }
    let mut kill_all_obj: HashMap<Key, u32> = HashMap::new();
    for (k, ds) in &kill_defs {
        let nodes = ds.iter().map(|&d| def_node[d as usize]).collect();
        kill_all_obj.insert(k.clone(), new_obj(nodes, &mut node_line, &mut node_block));
    }
    let def_number: HashMap<InstId, u32> = def_node
        .iter()
        .enumerate()
        .map(|(d, &n)| (n, d as u32))
        .collect();
    let mut visible = MayDefVisibility::new(f, ni, np, &out_node_info);

    // Data edges.
    let nn = node_line.len();
    let first_obj = ni + np + n_out;
    let mut data: Vec<Vec<u32>> = vec![Vec::new(); nn];
    for (j, e) in obj_edges.into_iter().enumerate() {
        data[first_obj + j] = e;
    }
    let push_val = |edges: &mut Vec<u32>, v: &Value| match v {
        Value::Inst(j) => edges.push(*j),
        Value::Arg(k) => edges.push(arg_node(*k)),
        _ => {}
    };
    // Reads of a location: reaching exact defs, then every other write to it or an enclosing object.
    let mut load_roots: HashMap<InstId, Vec<Root>> = HashMap::new();
    let mut current: HashMap<Key, u32> = HashMap::new();
    for (b, blk) in f.blocks.iter().enumerate() {
        current.clear();
        for &i in &blk.insts {
            let inst = &f.insts[i as usize];
            let mut edges = Vec::new();
            let mut read_locs: Vec<Loc> = Vec::new();
            match &inst.op {
                Op::Load => read_locs = res.locs(&inst.args[0]),
                Op::Store => {
                    push_val(&mut edges, &inst.args[0]);
                    push_val(&mut edges, &inst.args[1]);
                }
                Op::Call { .. } => {
                    for a in &inst.args {
                        push_val(&mut edges, a);
                        if is_ptr_value(a) {
                            read_locs.extend(res.locs(a));
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
            for l in &read_locs {
                if matches!(inst.op, Op::Load) {
                    load_roots.entry(i).or_default().push(l.root);
                }
                let key = (l.root, l.path.clone());
                if l.deref == 0 {
                    if let Some(&d) = current.get(&key) {
                        edges.push(def_node[d as usize]);
                    } else if let Some(ds) = kill_defs.get(&key) {
                        for &d in ds {
                            if bit(&inb[b], d as usize) {
                                edges.push(def_node[d as usize]);
                            }
                        }
                    }
                    // Exact writes to enclosing objects (whole-struct stores).
                    for k in 0..l.path.len() {
                        if let Some(&o) = kill_all_obj.get(&(l.root, l.path[..k].to_vec())) {
                            edges.push(o);
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
            }
            if let Some(key) = kill_key.get(&i) {
                let d = def_number[&i];
                current.insert(key.clone(), d);
            }
            edges.sort_unstable();
            edges.dedup();
            edges.retain(|&e| e != i);
            if matches!(inst.op, Op::Call { .. }) {
                // A call reads its pointer arguments before it writes them.
                edges.retain(|&e| {
                    let e = e as usize;
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
                });
            }
            data[i as usize] = edges;
        }
    }
    for (&(c, _), &node) in &out_nodes {
        data[node as usize].push(c);
    }
    // Objects of visible subsets were added while reading.
    let nn = data.len();
    node_line.resize(nn, 0);
    node_block.resize(nn, u32::MAX);

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

    // Alias classes (Table 3.1 A sets), closed under containers.
    let nv = vars.out.len();
    let mut uf: Vec<u32> = (0..nv as u32).collect();
    for &(a, b) in &alias_pairs {
        let (ra, rb) = (find(&mut uf, a), find(&mut uf, b));
        if ra != rb {
            uf[ra as usize] = rb;
        }
    }
    // Dense class ids; members ascending.
    let mut class_id: Vec<u32> = vec![u32::MAX; nv];
    let mut members: Vec<Vec<u32>> = Vec::new();
    let mut root_class: HashMap<u32, u32> = HashMap::new();
    for v in 0..nv as u32 {
        let r = find(&mut uf, v);
        let c = *root_class.entry(r).or_insert_with(|| {
            members.push(Vec::new());
            members.len() as u32 - 1
        });
        class_id[v as usize] = c;
        members[c as usize].push(v);
    }
    let class_of = |v: u32| -> &[u32] { &members[class_id[v as usize] as usize] };

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
    for &(v, line) in &own_writes {
        vars.out[v as usize].write_lines.push(line);
    }
    let mut class_stamp = vec![usize::MAX; members.len()];
    let mut stack: Vec<u32> = Vec::new();
    for (w, (node, targets)) in writes.iter().enumerate() {
        stack.extend(targets.iter().map(|&t| class_id[t as usize]));
        while let Some(c) = stack.pop() {
            if class_stamp[c as usize] == w {
                continue;
            }
            class_stamp[c as usize] = w;
            for &t in &members[c as usize] {
                var_writes[t as usize].push(*node);
            }
            stack.extend(&class_parents[c as usize]);
        }
    }
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
    let nv = vars.out.len();

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

    let t_graph = t0.elapsed();
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
        Params(Vec<u32>),
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
                    let ks: Vec<u32> = load_roots
                        .get(&(n as u32))
                        .into_iter()
                        .flatten()
                        .filter_map(|r| match r {
                            Root::Var(x) => param_of.get(x).copied(),
                            Root::RawArg(k) => Some(*k),
                            _ => None,
                        })
                        .collect();
                    if !ks.is_empty() {
                        hits.push((n as u32, Hit::Params(ks)));
                    }
                }
                _ => {}
            }
        } else if n < ni + np {
            hits.push((n as u32, Hit::Params(vec![(n - ni) as u32])));
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
    for base in (0..nv).step_by(64) {
        let batch = (nv - base).min(64);
        m1.fill(0);
        m2.fill(0);
        for (b, v) in (base..base + batch).enumerate() {
            for &w in &var_writes[v] {
                m1[data_comp.of(w)] |= 1 << b;
            }
        }
        data_comp.propagate(&mut m1, |n| data[n as usize].iter().copied());
        for n in 0..nn as u32 {
            let bits = m1[data_comp.of(n)];
            if bits != 0 {
                for &t in ctrl(n) {
                    m2[all_comp.of(t)] |= bits;
                }
            }
        }
        all_comp.propagate(&mut m2, |n| data[n as usize].iter().chain(ctrl(n)).copied());
        // Lines, in ascending order per variable.
        for (comps, masks, out) in [
            (&data_comp, &m1, &mut explicit),
            (&all_comp, &m2, &mut implicit),
        ] {
            acc.fill(0);
            for n in 0..nn {
                if line_index[n] != u32::MAX {
                    acc[line_index[n] as usize] |= masks[comps.of(n as u32)];
                }
            }
            for (k, &bits) in acc.iter().enumerate() {
                each_var(base, bits, |v| out[v].push(line_list[k]));
            }
        }
        for ((n, _), (vs, xs)) in hits
            .iter()
            .zip(hit_vars.iter_mut().zip(hit_explicit.iter_mut()))
        {
            let explicit = m1[data_comp.of(*n)];
            let bits = explicit | m2[all_comp.of(*n)];
            each_var(base, bits, |v| vs.push(v as u32));
            each_var(base, explicit, |v| xs.push(v as u32));
        }
    }
    // (total, explicit) per binding.
    let mut ret_bind: HashMap<InstId, (Vec<u32>, Vec<u32>)> = HashMap::new();
    let mut arg_bind: HashMap<(InstId, u32), (Vec<u32>, Vec<u32>)> = HashMap::new();
    let mut reads_param: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); nv];
    let mut reads_param_explicit: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); nv];
    for ((_, hit), (vs, xs)) in hits.into_iter().zip(hit_vars.into_iter().zip(hit_explicit)) {
        if vs.is_empty() {
            continue;
        }
        match hit {
            Hit::Ret(i) => {
                ret_bind.insert(i, (vs, xs));
            }
            Hit::Params(ks) => {
                for v in vs {
                    reads_param[v as usize].extend(&ks);
                }
                for v in xs {
                    reads_param_explicit[v as usize].extend(&ks);
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
    let t_reach = t0.elapsed();

    // Aliases per variable.
    for v in 0..uf.len() as u32 {
        let mut a: Vec<u32> = class_of(v).iter().copied().filter(|&x| x != v).collect();
        a.sort_unstable();
        vars.out[v as usize].aliases = a;
    }
    // A returned pointer: the variables whose memory it points into alias
    // the return value, so that what the function computes into them is what
    // its caller receives (`p = malloc(..); fill(p); return p;`).
    if f.returns_value && nv > uf.len() {
        let ret = uf.len() as u32;
        let values: Vec<Value> = returned_values(f, &res.alloca_var)
            .into_iter()
            .filter(|v| is_ptr_value(v))
            .collect();
        let mut with: BTreeSet<u32> = BTreeSet::new();
        for value in &values {
            for l in res.locs(value) {
                if let Some(&v) = vars.by_key.get(&(l.root, l.path.clone())) {
                    if (v as usize) < uf.len() {
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

    // Root parameter of a variable (through containers).
    let root_param = |vars: &Vec<Variable>, mut v: u32| -> Option<u32> {
        for _ in 0..64 {
            match vars[v as usize].parent {
                Some(p) => v = p,
                None => break,
            }
        }
        let r = &vars[v as usize];
        if r.kind == VarKind::Param {
            r.param_index
        } else {
            None
        }
    };

    // Side effects (3.3.1.3): a pointer parameter whose writes read another parameter.
    // (blamed, from) → explicit: true when some write reads `from` over data edges.
    let mut side: BTreeMap<(u32, u32), bool> = BTreeMap::new();
    for v in 0..nv as u32 {
        if !vars.out[v as usize].is_exit {
            continue;
        }
        if let Some(k) = root_param(&vars.out, v) {
            for &j in &reads_param[v as usize] {
                if j != k {
                    let explicit = reads_param_explicit[v as usize].contains(&j);
                    *side.entry((k, j)).or_default() |= explicit;
                }
            }
        }
    }
    let mut param_aliases: BTreeSet<(u32, u32)> = BTreeSet::new();
    for members in &members {
        let ps: BTreeSet<u32> = members
            .iter()
            .filter_map(|&m| root_param(&vars.out, m))
            .collect();
        let ps: Vec<u32> = ps.into_iter().collect();
        for a in 0..ps.len() {
            for b in a + 1..ps.len() {
                param_aliases.insert((ps[a], ps[b]));
            }
        }
    }

    // Call sites with their output bindings (the transfer function's caller side).
    let mut call_sites = Vec::new();
    let mut irecv_buffers: Vec<(BTreeSet<u32>, BTreeSet<u32>)> = Vec::new();
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
                });
            }
        }
        for k in 0..inst.args.len() as u32 {
            if !is_ptr_value(&inst.args[k as usize]) {
                continue;
            }
            // The argument's targets with their alias classes, and what the
            // output reaches (sorted vectors: this can be every variable).
            let targets = targets_of(&mut res, &vars, &inst.args[k as usize]);
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
                });
            }
        }
        let short = name
            .as_deref()
            .map(|n| n.strip_prefix("P").unwrap_or(n))
            .unwrap_or("");
        if short == "MPI_Irecv" && inst.args.len() > 6 {
            let buf = targets_of(&mut res, &vars, &inst.args[0]);
            let req = targets_of(&mut res, &vars, &inst.args[6]);
            irecv_buffers.push((req, buf));
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
    // MPI_Wait/Waitall complete an Irecv: the request's buffer is what they blame.
    for (i, cs) in &mut call_sites {
        let short = cs.callee.as_deref().unwrap_or("");
        let short = short.strip_prefix("P").unwrap_or(short);
        let k = match short {
            "MPI_Wait" | "MPI_Test" => 0,
            "MPI_Waitall" | "MPI_Testall" | "MPI_Waitany" | "MPI_Waitsome" => 1,
            _ => continue,
        };
        let req = targets_of(&mut res, &vars, &f.insts[*i as usize].args[k]);
        let mut extra: BTreeSet<u32> = BTreeSet::new();
        for (r, b) in &irecv_buffers {
            if !r.is_disjoint(&req) {
                extra.extend(b.iter().copied());
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
                let mut explicit = extra.clone();
                explicit.extend(o.explicit.iter().copied());
                o.explicit = explicit.into_iter().collect();
                extra.extend(o.blamed.iter().copied());
                o.blamed = extra.into_iter().collect();
            }
            None => cs.outputs.push(OutputBinding {
                output: CallOutput::Arg(k as u32),
                explicit: extra.iter().copied().collect(),
                blamed: extra.into_iter().collect(),
                pointees: vec![],
            }),
        }
    }
    let call_sites: Vec<CallSite> = call_sites.into_iter().map(|(_, c)| c).collect();

    // Chapter 5: loops and the distinct reads of each line.
    let mut loops = Vec::new();
    for l in &cfg.loops {
        let mut lines: Vec<u32> = l
            .blocks
            .iter()
            .flat_map(|&b| f.blocks[b as usize].insts.iter())
            .map(|&i| f.insts[i as usize].line)
            .filter(|&x| x > 0)
            .collect();
        lines.sort_unstable();
        lines.dedup();
        let header_line = f.blocks[l.header as usize]
            .insts
            .iter()
            .map(|&i| f.insts[i as usize].line)
            .find(|&x| x > 0)
            .unwrap_or(0);
        loops.push(LoopInfo {
            header_line,
            lines,
            parent: l.parent.map(|p| p as u32),
        });
    }
    let mut address_only = vec![true; ni];
    for inst in &f.insts {
        for (pos, a) in inst.args.iter().enumerate() {
            if let Value::Inst(j) = a {
                let addr_use = matches!(
                    (&inst.op, pos),
                    (Op::Load, 0) | (Op::Store, 1) | (Op::Gep { .. }, 0) | (Op::Cast, 0)
                );
                if !addr_use {
                    address_only[*j as usize] = false;
                }
            }
        }
    }
    let copies = element_copies(f, &cfg);
    let access = AccessPatterns::new(m, f, &cfg);
    // The innermost loop of each line, as post-processing finds it: the
    // loop with the fewest lines among those containing the line.
    let mut line_loop: HashMap<u32, usize> = HashMap::new();
    for (li, l) in loops.iter().enumerate() {
        for &line in &l.lines {
            let slot = line_loop.entry(line).or_insert(li);
            if l.lines.len() < loops[*slot].lines.len() {
                *slot = li;
            }
        }
    }
    let mut reads: BTreeMap<u32, BTreeMap<MemRead, ReadCost>> = BTreeMap::new();
    for (i, inst) in f.insts.iter().enumerate() {
        if !matches!(inst.op, Op::Load) || inst.line == 0 {
            continue;
        }
        if inst.is_pointer && address_only[i] {
            continue;
        }
        let mut addr = strip_casts(f, &inst.args[0]);
        // Reading a scalar that holds a copy of an element reads the element.
        if let Value::Inst(a) = addr {
            if let Some(&source) = copies.get(&a) {
                addr = strip_casts(f, &f.insts[source as usize].args[0]);
            }
        }
        let index = read_index(f, &mut res, &vars, &addr);
        let cost = access.cost(&addr, line_loop.get(&inst.line).copied());
        for l in res.locs(&addr) {
            // The variable whose memory holds the location: the location's own
            // variable, else the nearest container on its path (a field that
            // is only read, `a->x` or `atoms[i].x`, has no variable of its
            // own but is memory of `a`, `atoms`), else, for a global only
            // read in this function (no variable made for it yet), the global.
            let own = (0..=l.path.len())
                .rev()
                .find_map(|n| vars.by_key.get(&(l.root, l.path[..n].to_vec())).copied());
            let v = own.or_else(|| match l.root {
                Root::Global(_) => vars.get(l.root, &[], None),
                _ => None,
            });
            if let Some(v) = v {
                let read = MemRead {
                    variable: v,
                    index: index.clone(),
                };
                // The same read on a line twice: the pattern likelier to miss.
                let slot = reads
                    .entry(inst.line)
                    .or_default()
                    .entry(read)
                    .or_insert(cost);
                if misses(&cost) > misses(slot) {
                    *slot = cost;
                }
            }
        }
    }
    let reads = reads
        .into_iter()
        .map(|(line, r)| LineReads {
            line,
            costs: r.values().copied().collect(),
            reads: r.into_keys().collect(),
        })
        .collect();

    let mut lines: Vec<u32> = f.insts.iter().map(|i| i.line).filter(|&l| l > 0).collect();
    lines.sort_unstable();
    lines.dedup();
    if profile && t0.elapsed().as_millis() > 20 {
        eprintln!(
            "{}: {} insts, {} blocks, {} vars, {} nodes, {} defs: cfg {:?}, graph {:?}, reach {:?}, rest {:?}",
            f.name,
            ni,
            f.blocks.len(),
            nv,
            nn,
            def_node.len(),
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
            .map(|((blamed_param, from_param), explicit)| SideEffect {
                blamed_param,
                from_param,
                implicit: !explicit,
            })
            .collect(),
        param_aliases: param_aliases.into_iter().collect(),
        loops,
        reads,
        lines,
    }
}

/// Local scalars that only hold a copy of a value read from memory in the
/// same loop iteration (`double south = in[k]; ... out[j] = north + south`),
/// by alloca, with the load they copy.
///
/// The read table is built from `-O0` IR, where every local lives in a stack
/// slot, but is joined by line to the samples of an optimized binary. There
/// such a scalar is a register and the compiler moves the element load to
/// where the value is used (`addsd (%rdx,%rax,1),%xmm1` on the `out[j] = ...`
/// line). A read of the scalar on any line is therefore recorded as the read
/// of the element it copies (same variable, same index identity): the memory
/// the line may miss on. Only pure copies qualify: one store in the function,
/// whose value is a load (casts aside) of non-pointer data through a pointer,
/// an array or a global, never the slot of another scalar; the slot is only
/// loaded and stored (its address never escapes); and every read of it is in
/// the innermost loop of the store (a load is not sunk into a loop).
fn element_copies(f: &Function, cfg: &Cfg) -> HashMap<InstId, InstId> {
    let mut stores: HashMap<InstId, Vec<InstId>> = HashMap::new();
    let mut loads: HashMap<InstId, Vec<InstId>> = HashMap::new();
    let mut escapes: BTreeSet<InstId> = BTreeSet::new();
    for (i, inst) in f.insts.iter().enumerate() {
        for (pos, a) in inst.args.iter().enumerate() {
            let Value::Inst(j) = a else { continue };
            if !matches!(f.insts[*j as usize].op, Op::Alloca { .. }) {
                continue;
            }
            match (&inst.op, pos) {
                (Op::Load, 0) => loads.entry(*j).or_default().push(i as InstId),
                (Op::Store, 1) => stores.entry(*j).or_default().push(i as InstId),
                (Op::DbgDeclare { .. }, _) => {}
                _ => {
                    escapes.insert(*j);
                }
            }
        }
    }
    let innermost = cfg.innermost_loop_of_blocks(f.blocks.len());
    let loop_of = |i: InstId| {
        innermost
            .get(f.insts[i as usize].block as usize)
            .copied()
            .flatten()
            .unwrap_or(usize::MAX)
    };
    let mut out = HashMap::new();
    for (&slot, st) in &stores {
        let [store] = st.as_slice() else { continue };
        if escapes.contains(&slot) {
            continue;
        }
        let Value::Inst(v) = strip_casts(f, &f.insts[*store as usize].args[0]) else {
            continue;
        };
        let src = &f.insts[v as usize];
        if !matches!(src.op, Op::Load) || src.is_pointer {
            continue;
        }
        let from = strip_casts(f, &src.args[0]);
        if matches!(from, Value::Inst(j) if matches!(f.insts[j as usize].op, Op::Alloca { .. })) {
            continue; // a copy of another scalar: registers both
        }
        let here = loop_of(*store);
        if loads
            .get(&slot)
            .is_some_and(|ls| ls.iter().all(|&l| loop_of(l) == here))
        {
            out.insert(slot, v);
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod read_table_tests {
    use blame_formats::static_db::{FunctionSummary, MemRead, ReadIndex};

    /// The summary of `function` in C source `src`, compiled as `blame cc` does.
    pub(crate) fn summary(src: &str, function: &str) -> FunctionSummary {
        summary_at(src, function, "-O0")
    }

    /// As [`summary`], with the IR optimized at `opt` (`-O1`, ...).
    pub(crate) fn summary_at(src: &str, function: &str, opt: &str) -> FunctionSummary {
        let dir = tempfile::tempdir().unwrap();
        let c = dir.path().join("k.c");
        let bc = dir.path().join("k.bc");
        std::fs::write(&c, src).unwrap();
        let out = std::process::Command::new("clang-19")
            .args(["-g", opt, "-emit-llvm", "-c"])
            .arg(&c)
            .arg("-o")
            .arg(&bc)
            .output()
            .expect("clang-19 runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let m = crate::load_file(&bc).unwrap();
        crate::analyze_module(&m, None)
            .summaries
            .into_iter()
            .find(|s| s.name == function)
            .unwrap()
    }

    fn line(f: &FunctionSummary, l: u32) -> Vec<(String, ReadIndex)> {
        let mut v: Vec<(String, ReadIndex)> = f
            .reads
            .iter()
            .filter(|r| r.line == l)
            .flat_map(|r| r.reads.iter())
            .map(|r: &MemRead| {
                (
                    f.variables[r.variable as usize].name.clone(),
                    r.index.clone(),
                )
            })
            .collect();
        v.sort();
        v
    }

    /// The stencil kernel's temporaries: at -O1 the loads of `in` sit on
    /// the line that adds `north + south` (folded into `addsd`). The read
    /// table used to list the stack slots `north`, `south` there and no read
    /// of `in` at all, so misses on that line could never reach `in`.
    #[test]
    fn a_scalar_copy_of_an_element_reads_the_element_where_it_is_used() {
        let f = summary(
            "void k(double *out, const double *in, const double *coef, int n) {
  for (int j = 1; j < n - 1; j++) {
    double north = in[j - 1];
    double south = in[j + 1];
    out[j] = north + south + coef[j];
  }
  double first = in[0];
  for (int j = 0; j < n; j++)
    out[j] += first;
}
",
            "k",
        );
        let names = |l| line(&f, l).into_iter().map(|r| r.0).collect::<Vec<_>>();
        assert_eq!(names(5), ["coef", "in", "in", "j"], "{:?}", line(&f, 5));
        // The same reads (index identities) as on the lines that copy them.
        let ins = |l| {
            line(&f, l)
                .into_iter()
                .filter(|r| r.0 == "in")
                .map(|r| r.1)
                .collect::<Vec<_>>()
        };
        let mut copied = ins(3);
        copied.extend(ins(4));
        copied.sort();
        assert_eq!(ins(5), copied);
        assert!(matches!(ins(3)[0], ReadIndex::Expr(_)) && ins(3) != ins(4));
        // `out[j] = ...` is a store target, not a read.
        assert!(!names(5).contains(&"out".to_string()));
        // Read in another loop than the one that copies it: stays a scalar.
        assert_eq!(names(9), ["first", "j", "out"], "{:?}", line(&f, 9));
    }

    /// Reads of globals that the function never writes, and of fields that
    /// have no variable of their own (only read), used to be missing from
    /// the table: `atoms[i].x` read nothing but `i`, so no miss on the
    /// line could reach `atoms`; `aj->x` read nothing.
    #[test]
    fn reads_of_read_only_globals_and_fields_name_their_variable() {
        let src = "typedef struct { double x, y; int type; } ATOM;
ATOM *atoms;
int natoms;
double table[4][4];
double sum_x(void) {
  double s = 0.0;
  for (int i = 0; i < natoms; i++) {
    ATOM *a = &atoms[i];
    s += atoms[i].x * table[a->type][1];
    s += a->y;
  }
  return s;
}
";
        let f = summary(src, "sum_x");
        let names = |l| {
            let mut v: Vec<String> = line(&f, l).into_iter().map(|r| r.0).collect();
            v.dedup();
            v
        };
        assert_eq!(names(7), ["i", "natoms"], "{:?}", line(&f, 7));
        assert_eq!(
            names(9),
            ["a", "atoms", "i", "s", "table"],
            "{:?}",
            line(&f, 9)
        );
        assert_eq!(names(10), ["a", "s"], "{:?}", line(&f, 10));
        let global = |n: &str| {
            f.variables
                .iter()
                .find(|v| v.name == n)
                .map(|v| v.kind == blame_formats::static_db::VarKind::Global)
        };
        assert_eq!(global("atoms"), Some(true));
        assert_eq!(global("table"), Some(true));
    }
}

/// Expected misses of a read pattern, to choose between two loads of one read.
fn misses(c: &ReadCost) -> f64 {
    c.expected_misses(&CacheGeometry::default())
}

/// How the address of a read is indexed (5.2.1).
fn read_index(f: &Function, res: &mut Resolver, vars: &Vars, addr: &Value) -> ReadIndex {
    let Value::Inst(g) = addr else {
        return ReadIndex::None;
    };
    let Op::Gep { steps, .. } = &f.insts[*g as usize].op else {
        return ReadIndex::None;
    };
    let inst = &f.insts[*g as usize];
    let mut idx: Vec<&Value> = Vec::new();
    if let Some(first) = inst.args.get(1) {
        idx.push(first);
    }
    let mut has_field = false;
    for s in steps {
        match s {
            GepStep::Index { arg, .. } => {
                if let Some(v) = inst.args.get(*arg as usize) {
                    idx.push(v)
                }
            }
            GepStep::Field { .. } => has_field = true,
        }
    }
    if let Some(v) = idx.iter().rev().find(|v| !matches!(v, Value::ConstInt(_))) {
        let v = strip_casts(f, v);
        if let Value::Inst(j) = v {
            let li = &f.insts[j as usize];
            if matches!(li.op, Op::Load) {
                let locs = res.locs(&li.args[0]);
                if let [l] = locs.as_slice() {
                    if l.deref == 0 {
                        if let Some(&var) = vars.by_key.get(&(l.root, l.path.clone())) {
                            return ReadIndex::Var(var);
                        }
                    }
                }
            }
            return ReadIndex::Expr(j);
        }
        return ReadIndex::Expr(*g);
    }
    if has_field {
        return ReadIndex::None;
    }
    match idx.last() {
        Some(Value::ConstInt(c)) => ReadIndex::Const(*c),
        _ => ReadIndex::None,
    }
}

#[cfg(test)]
mod tests {
    use super::Components;

    /// Random graphs with cycles: component numbering is a reverse
    /// topological order, and propagating masks over components gives, for
    /// every node, exactly the start nodes a search from each start reaches.
    #[test]
    fn component_propagation_equals_a_search_per_start_node() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rand = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for round in 0..200 {
            let n = 1 + rand(60) as usize;
            let edges = rand(3 * n as u64 + 1) as usize;
            let mut succ: Vec<Vec<u32>> = vec![Vec::new(); n];
            for _ in 0..edges {
                let (a, b) = (rand(n as u64) as usize, rand(n as u64) as u32);
                succ[a].push(b);
            }
            let comps = Components::new(n, |v| succ[v as usize].iter().copied());
            for (a, ss) in succ.iter().enumerate() {
                for &b in ss {
                    assert!(comps.of(a as u32) >= comps.of(b), "round {round}");
                }
            }
            let starts: Vec<u32> = (0..n.min(64) as u32).filter(|_| rand(3) == 0).collect();
            let mut masks = vec![0u64; comps.count()];
            for (bit, &s) in starts.iter().enumerate() {
                masks[comps.of(s)] |= 1 << bit;
            }
            comps.propagate(&mut masks, |v| succ[v as usize].iter().copied());
            for (bit, &s) in starts.iter().enumerate() {
                let mut seen = vec![false; n];
                let mut stack = vec![s];
                seen[s as usize] = true;
                while let Some(v) = stack.pop() {
                    for &w in &succ[v as usize] {
                        if !seen[w as usize] {
                            seen[w as usize] = true;
                            stack.push(w);
                        }
                    }
                }
                for v in 0..n {
                    let got = masks[comps.of(v as u32)] >> bit & 1 == 1;
                    assert_eq!(got, seen[v], "round {round}: start {s}, node {v}");
                }
            }
        }
    }
}
