//! Which globals a function writes, itself or through its callees: what a
//! call of it computes besides its outputs through arguments. A caller's
//! summary takes such a call for a write of each data-structure global it
//! writes, computed from what the call is given (`fill_ghost(..,
//! recv_buff + off)` copying a received face into the global `blocks`), so
//! data that flows into the call flows into the global (a wait for a receive is for
//! the blocks its buffer is unpacked into).
//!
//! Within a module, from the stores of each body (an address based on a
//! global, directly, through a pointer loaded from it, or through a local
//! pointer only ever set from one: `bp = &blocks[n]; bp->array[..] = a`)
//! and `memcpy`/`memset` into one, of values computed from a parameter,
//! closed over the calls between the module's functions. (A function of
//! another unit: not known; its summary does not say what it computes a
//! global from.)

use crate::ir::{Function, Module, Op, Value};
use std::collections::{BTreeSet, HashMap};

/// Per function, the names (as summaries name them) of the globals it
/// writes, sorted.
pub type GlobalWrites = HashMap<String, Vec<String>>;

/// The globals written by the functions of `m` from what they are given:
/// a store into a global (or `memcpy`/`memset` into one) whose value is
/// computed from a parameter (`row[i] = buf[i]` with `buf` a parameter),
/// or a call passing something computed from a parameter to a function
/// that does so. A global written from nothing a caller passes (a timer
/// array set from the clock, a counter) is written by the callee alone:
/// the caller's data does not flow into it.
pub fn module_global_writes(m: &Module) -> GlobalWrites {
    let name_of = |g: u32| -> Option<String> {
        let gl = m.globals.get(g as usize)?;
        (!gl.artificial && gl.function.is_none())
            .then(|| gl.source_name.clone().unwrap_or_else(|| gl.name.clone()))
    };
    let mut own: HashMap<&str, BTreeSet<String>> = HashMap::new();
    // Per function, the callees it passes something of its parameters.
    let mut calls: HashMap<&str, BTreeSet<&str>> = HashMap::new();
    for f in m.functions.iter().filter(|f| !f.is_declaration) {
        let mut body = Body::new(f);
        let written = own.entry(f.name.as_str()).or_default();
        for inst in &f.insts {
            let (target, value) = match &inst.op {
                Op::Store => (inst.args.get(1), inst.args.first().map(|v| (v, false))),
                Op::Call { callee: Some(c) } if is_block_write(c) => {
                    // memcpy's source is memory; memset's fill a value.
                    let pointer = !c.contains("memset") && c != "bzero";
                    (inst.args.first(), inst.args.get(1).map(|v| (v, pointer)))
                }
                Op::Call { callee: Some(c) } => {
                    if inst.args.iter().any(|a| body.computed_from_param(a)) {
                        calls.entry(f.name.as_str()).or_default().insert(c.as_str());
                    }
                    continue;
                }
                _ => continue,
            };
            let Some((value, pointer)) = value else {
                continue;
            };
            let given = if pointer {
                body.base_is_param(value)
            } else {
                body.computed_from_param(value)
            };
            if !given {
                continue;
            }
            if let Some(g) = target
                .and_then(|a| body.global_base(a))
                .filter(|&g| g != CYCLE)
                .and_then(name_of)
            {
                written.insert(g);
            }
        }
    }
    // Closed over the calls: a function writes what the callees it passes
    // its parameters to write.
    let mut out: HashMap<&str, BTreeSet<String>> = own;
    loop {
        let mut changed = false;
        let names: Vec<&str> = out.keys().copied().collect();
        for f in names {
            let add: BTreeSet<String> = calls
                .get(f)
                .into_iter()
                .flatten()
                .filter_map(|c| out.get(c))
                .flatten()
                .cloned()
                .collect();
            let ws = out.get_mut(f).expect("listed");
            for g in add {
                changed |= ws.insert(g);
            }
        }
        if !changed {
            break;
        }
    }
    out.into_iter()
        .filter(|(_, ws)| !ws.is_empty())
        .map(|(f, ws)| (f.to_string(), ws.into_iter().collect()))
        .collect()
}

/// `memcpy`, `memmove`, `memset` and their intrinsics: they write what
/// their first argument points to.
fn is_block_write(callee: &str) -> bool {
    matches!(callee, "memcpy" | "memmove" | "memset" | "bzero")
        || callee.starts_with("llvm.memcpy")
        || callee.starts_with("llvm.memmove")
        || callee.starts_with("llvm.memset")
}

/// [`Body::global_base`] of an address met again while it is looked up:
/// it adds no base of its own.
const CYCLE: u32 = u32::MAX;

/// What is known of one body's values while it is scanned: the values
/// stored into each local slot, and the answers so far (each value is
/// looked at once, so loops of phis and long chains stay linear).
struct Body<'a> {
    f: &'a Function,
    /// Per alloca, the values stored into it.
    slots: HashMap<u32, Vec<Value>>,
    from_param: HashMap<u32, bool>,
    base_is_param: HashMap<u32, bool>,
    global_base: HashMap<u32, Option<u32>>,
    /// Per local slot, the one global its stored values are based on.
    slot_base: HashMap<u32, Option<u32>>,
    /// The addresses whose base is being looked up (a cycle of phis).
    visiting: std::collections::HashSet<u32>,
}

impl<'a> Body<'a> {
    fn new(f: &'a Function) -> Self {
        let mut slots: HashMap<u32, Vec<Value>> = HashMap::new();
        for inst in &f.insts {
            if let (Op::Store, Some(Value::Inst(s))) = (&inst.op, inst.args.get(1)) {
                if matches!(f.insts[*s as usize].op, Op::Alloca { .. }) {
                    slots.entry(*s).or_default().push(inst.args[0].clone());
                }
            }
        }
        Body {
            f,
            slots,
            from_param: HashMap::new(),
            base_is_param: HashMap::new(),
            global_base: HashMap::new(),
            slot_base: HashMap::new(),
            visiting: Default::default(),
        }
    }

    /// True when value `v` is computed from a parameter: the parameter
    /// itself, memory read through it, or arithmetic and calls over those.
    fn computed_from_param(&mut self, v: &Value) -> bool {
        let Value::Inst(i) = v else {
            return matches!(v, Value::Arg(_));
        };
        if let Some(&known) = self.from_param.get(i) {
            return known;
        }
        // A cycle through phis adds nothing.
        self.from_param.insert(*i, false);
        let inst = &self.f.insts[*i as usize];
        let r = match &inst.op {
            Op::Load => inst.args.first().is_some_and(|a| self.base_is_param(a)),
            Op::Binary { .. }
            | Op::Cast
            | Op::Select
            | Op::Phi
            | Op::Gep { .. }
            | Op::Call { .. } => inst.args.iter().any(|a| self.computed_from_param(a)),
            _ => false,
        };
        self.from_param.insert(*i, r);
        r
    }

    /// True when address `a` points into a parameter's memory or is a
    /// parameter's own slot (unoptimized code keeps each parameter in one).
    fn base_is_param(&mut self, a: &Value) -> bool {
        let Value::Inst(i) = a else {
            return matches!(a, Value::Arg(_));
        };
        if let Some(&known) = self.base_is_param.get(i) {
            return known;
        }
        self.base_is_param.insert(*i, false);
        let inst = &self.f.insts[*i as usize];
        let r = match &inst.op {
            Op::Gep { .. } | Op::Cast | Op::Load => {
                inst.args.first().is_some_and(|b| self.base_is_param(b))
            }
            // A local slot: a parameter's, or a pointer set from one.
            Op::Alloca { .. } => {
                let stored = self.slots.get(i).cloned().unwrap_or_default();
                stored.iter().any(|v| self.computed_from_param(v))
            }
            Op::Phi | Op::Select => inst.args.iter().any(|b| self.base_is_param(b)),
            _ => false,
        };
        self.base_is_param.insert(*i, r);
        r
    }

    /// The global an address is based on: the global itself, an element
    /// or field of it, memory a pointer loaded from it points to, or
    /// through a local pointer whose every stored value is based on that
    /// one global.
    fn global_base(&mut self, a: &Value) -> Option<u32> {
        let i = match a {
            Value::Global(g) => return Some(*g),
            Value::Inst(i) => *i,
            _ => return None,
        };
        if let Some(&known) = self.global_base.get(&i) {
            return known;
        }
        // Back to an address being looked up: a pointer stepped in a loop
        // (`p = phi(base, p + 1)`, `p = p->next` kept in a slot).
        if !self.visiting.insert(i) {
            return Some(CYCLE);
        }
        let inst = &self.f.insts[i as usize];
        let r = match &inst.op {
            Op::Gep { .. } | Op::Cast => inst.args.first().and_then(|b| self.global_base(b)),
            Op::Load => match inst.args.first() {
                Some(Value::Inst(s))
                    if matches!(self.f.insts[*s as usize].op, Op::Alloca { .. }) =>
                {
                    self.stored_base(*s)
                }
                Some(addr) => self.global_base(addr),
                None => None,
            },
            Op::Phi | Op::Select => {
                let args: Vec<Value> = match inst.op {
                    Op::Select => inst.args[1..].to_vec(),
                    _ => inst.args.clone(),
                };
                let mut base = None;
                let mut known = true;
                for x in &args {
                    match self.global_base(x) {
                        // A back edge says nothing new.
                        Some(CYCLE) => {}
                        Some(b) if base.is_none_or(|y| y == b) => base = Some(b),
                        _ => known = false,
                    }
                }
                base.filter(|_| known)
            }
            _ => None,
        };
        self.visiting.remove(&i);
        self.global_base.insert(i, r);
        r
    }

    /// The one global every value stored into local slot `slot` is based on.
    fn stored_base(&mut self, slot: u32) -> Option<u32> {
        if let Some(&known) = self.slot_base.get(&slot) {
            return known;
        }
        // Met again while its stores are looked at: a pointer stepped and
        // kept in the same slot (`p = p->next`).
        self.slot_base.insert(slot, Some(CYCLE));
        let r = self.stored_base_of(slot);
        self.slot_base.insert(slot, r);
        r
    }

    fn stored_base_of(&mut self, slot: u32) -> Option<u32> {
        let stored = self.slots.get(&slot).cloned()?;
        let mut base = None;
        for v in &stored {
            match self.global_base(v)? {
                CYCLE => {}
                b if base.is_some_and(|x| x != b) => return None,
                b => base = Some(b),
            }
        }
        base
    }
}
