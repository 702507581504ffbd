//! Element owners of local pointers, iterators and views (`element_of`):
//! `bp = &blocks[n]`, a cursor walking a list, `auto it = parts.begin()`
//! belong to the variable whose memory they walk; and the bindings of
//! element pointers, which are no writes their owners inherit.

use super::locations::Resolver;
use super::variables::Vars;
use super::view_types::is_view_type;
use super::writes::Writes;
use super::{is_ptr_value, root_of};
use crate::ir::*;
use crate::library_models as library;
use crate::{HashMap, HashSet};
use blame_formats::static_db::*;
use std::collections::{BTreeMap, BTreeSet};

/// Element pointers and cursors (`bp = &blocks[n]`, `row = &A->rows[i]`,
/// `p = plist; ...; p = p->next`): a local pointer all of whose stored
/// addresses point into one other variable (or into what it already
/// points to) belongs to that variable. When the addresses come from
/// several places of one variable (`&A->rows[i]` and `A->rows`), the
/// shortest path names it. An address loaded through another element
/// pointer is one into that pointer's owner (`next = &n->left; n =
/// *next` walks `n`'s own tree), so owners are found to a fixpoint.
pub(super) fn element_owners(
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
pub(super) fn unbind_element_pointers(
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
pub(super) fn iterator_owners(m: &Module, f: &Function, res: &mut Resolver, vars: &mut Vars) {
    let candidate = iterator_candidates(m, vars);
    if !candidate.iter().any(|&c| c) {
        return;
    }
    let mut found = IteratorSources {
        f,
        res,
        vars,
        candidate,
        sources: BTreeMap::new(),
    };
    for inst in &f.insts {
        match &inst.op {
            Op::Store => found.store(inst),
            Op::Call { callee: Some(c) } if c.starts_with("_Z") => found.method_call(inst, c),
            _ => {}
        }
    }
    let sources = found.sources;
    settle_owners(vars, &sources);
}

/// Per variable, whether it may be an iterator, a view or an element copy:
/// a local of an iterator class or of a view type.
fn iterator_candidates(m: &Module, vars: &Vars) -> Vec<bool> {
    (0..vars.out.len())
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
        .collect()
}

/// Per candidate, the variables its writes are made from (`None`: a
/// write from something else), found instruction by instruction.
struct IteratorSources<'a, 'r, 'm, 'v> {
    f: &'a Function,
    res: &'r mut Resolver<'m>,
    vars: &'r mut Vars<'v>,
    candidate: Vec<bool>,
    sources: BTreeMap<u32, BTreeSet<Option<u32>>>,
}

impl IteratorSources<'_, '_, '_, '_> {
    /// The candidate whose own storage address `a` is (one location, no
    /// dereference).
    fn own_storage(&mut self, a: &Value) -> Option<u32> {
        let locs = self.res.locs(a);
        let [l] = locs.as_slice() else { return None };
        let t = (l.deref == 0)
            .then(|| self.vars.get(l.root, &[], None))
            .flatten()?;
        self.candidate
            .get(t as usize)
            .copied()
            .unwrap_or(false)
            .then_some(t)
    }

    /// The variables a value points into: the member it names when the
    /// summary has one (`this->r_` of `auto r = r_;`), else its root.
    fn roots_of(&mut self, v: &Value) -> BTreeSet<u32> {
        let mut out = BTreeSet::new();
        for l in self.res.locs(v) {
            let member = (!l.path.is_empty())
                .then(|| self.vars.get(l.root, &l.path, None))
                .flatten();
            if let Some(x) = member.or_else(|| self.vars.get(l.root, &[], None)) {
                out.insert(x);
            }
        }
        out
    }

    /// A store into a candidate's own storage (not through it: `it->f =
    /// ..` writes the element).
    fn store(&mut self, inst: &Inst) {
        let f = self.f;
        let Some(t) = self.own_storage(&inst.args[1]) else {
            return;
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
            Some(o) => self.roots_of(o),
            None => BTreeSet::new(),
        };
        given.remove(&t);
        let e = self.sources.entry(t).or_default();
        if given.is_empty() {
            e.insert(None);
        }
        e.extend(given.into_iter().map(Some));
    }

    /// A call of C++ method `c` given a candidate's own storage.
    fn method_call(&mut self, inst: &Inst, c: &str) {
        let f = self.f;
        let Some(t) = inst.args.first().and_then(|a| self.own_storage(a)) else {
            return;
        };
        let mut given: BTreeSet<u32> = BTreeSet::new();
        match library::this_argument(c, inst.args.len()) {
            // Returned into it by a method of another object
            // (`Row r = A.row(i)`).
            Some(1) => given.extend(self.roots_of(&inst.args[1])),
            // Its own method: a const one (`it != end`) writes
            // nothing; a constructor or an update is made from the
            // memory it is given (`RowIterator(col_, val_)`).
            _ if crate::demangle(c).ends_with(" const") => return,
            _ => {
                for a in inst.args[1..].iter().filter(|a| is_ptr_value(f, a)) {
                    given.extend(self.roots_of(a));
                }
            }
        }
        given.remove(&t);
        // `++it`: nothing new.
        self.sources
            .entry(t)
            .or_default()
            .extend(given.into_iter().map(Some));
    }
}

/// An owner that is itself a view of another is that one's (`end` of
/// the row `it` walks).
/// (The member itself when its root is no view: `this.reg_` of
/// `reg_.get(name)`, so that the view is the registry's, not the whole
/// object's.)
fn owner_root(out: &[Variable], mut v: u32) -> u32 {
    for _ in 0..8 {
        let r = root_of(out, v);
        match out[r as usize].element_of {
            Some(o) if root_of(out, o) != r => v = o,
            _ => return v,
        }
    }
    v
}

/// Each candidate made from one variable's memory only is `element_of`
/// it (its owner root): settled over a few rounds.
fn settle_owners(vars: &mut Vars, sources: &BTreeMap<u32, BTreeSet<Option<u32>>>) {
    for _ in 0..3 {
        let mut changed = false;
        for (&t, os) in sources {
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
