//! Alias classes of a function's variables (Table 3.1's A sets): the pairs
//! factories add (fields of a returned object pointing into arguments), the
//! classes closed under containers, `doStore`'s attribution of each write to
//! its targets, their containers and aliases, and the aliases each variable
//! lists (the return value's included).

use super::defined::DefinedFunctions;
use super::graph::find;
use super::is_ptr_value;
use super::locations::{returned_values, Loc, Resolver};
use super::variables::Vars;
use super::writes::Writes;
use crate::ir::*;
use crate::HashMap;
use std::collections::BTreeSet;

pub(super) fn factory_aliases(
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
pub(super) struct Classes {
    pub(super) class_id: Vec<u32>,
    /// Members of each class, ascending.
    pub(super) members: Vec<Vec<u32>>,
    /// How many variables the classes cover.
    pub(super) declared: usize,
}

pub(super) fn alias_classes(nv: usize, alias_pairs: &[(u32, u32)]) -> Classes {
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
pub(super) fn do_store(vars: &mut Vars, w: &Writes, classes: &Classes) -> Vec<Vec<u32>> {
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

pub(super) fn set_aliases(f: &Function, res: &mut Resolver, vars: &mut Vars, classes: &Classes) {
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
