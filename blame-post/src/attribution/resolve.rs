//! Blame resolution of one calling context (dissertation 3.3.3, 3.4.3).
//!
//! The innermost frame with a static summary blames the variables whose
//! blamed lines contain the sampled line. Blamed exit variables become call
//! outputs (argument N's memory, the return value) that the caller's call
//! site binds to caller variables: the transfer function, applied frame by
//! frame up the stack until no exit variable is blamed. Frames without a
//! summary (libraries without IR) pass blame through the library model
//! recorded at the call site. At every frame, side effects and parameter
//! aliases of the calls it makes are applied, then aliases and containers
//! (container resolution: a field's blame lifts to every enclosing variable).
//!
//! This file holds what a resolution gives and its entry points; the walk
//! over the frames is `walk`, the exit variables a blame leaves a function
//! through `exits`, the call sites a frame came from `call_sites`, outputs
//! bound to a caller's variables `binding`, a frame's closure under side
//! effects, aliases and containers `closure`, the coverage reasons
//! `unexplained`, and a memory-event sample's attribution `memory_sample`.

mod binding;
mod call_sites;
mod closure;
mod exits;
mod memory_sample;
mod unexplained;
mod walk;

use crate::attribution::static_index::StaticIndex;
use blame_formats::results::SymFrame;
use blame_formats::static_db::CallOutput;
use std::collections::BTreeSet;
use std::sync::Arc;

pub use crate::attribution::static_index::VarRef;
pub use memory_sample::{
    resolve_memory, MemoryResolution, METHOD_DIRECT, METHOD_LOOP, METHOD_LOOP_ACCESS, METHOD_RAW,
    METHOD_SKID, METHOD_SKID_LOOP, METHOD_SKID_LOOP_ACCESS,
};
pub use unexplained::{is_runtime_lifecycle, Unexplained};
use walk::walk;

/// A field path below a caller variable that the caller's own code never
/// names, reached because a callee blamed that field of its parameter:
/// `base` is `sim.fields`, `suffix` `.temperature`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct DerivedField {
    pub base: VarRef,
    pub suffix: String,
    /// Type from the callee's debug info; empty for intermediate paths.
    pub type_name: String,
}

/// What one calling context blames.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Resolution {
    /// Variables to report (exit variables whose blame moved to a caller are
    /// left out): total blame, explicit and implicit.
    pub blamed: Vec<VarRef>,
    /// Field paths below blamed variables, carried over from callees.
    pub derived: Vec<DerivedField>,
    /// The variables of `blamed` (and paths of `derived`) that the sample
    /// reaches over data flow alone: explicit blame (3.1, Table 3.4).
    pub explicit: Vec<VarRef>,
    pub explicit_derived: Vec<DerivedField>,
    /// Variables whose own memory the sampled line writes (where their
    /// blame is lifted to, when it is: `a.fx` written through `Particle &a =
    /// parts_[i]` is the caller's `sys.parts_.fx`).
    pub exclusive: Vec<VarRef>,
    pub exclusive_derived: Vec<DerivedField>,
    /// True when no frame had a static summary: the sample counts for code views only.
    pub code_only: bool,
    /// Why the sample blames no variable (`None` when it blames one).
    pub unexplained: Option<Unexplained>,
}

/// Which blame a resolution follows: data flow only, or data and control flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Explicit,
    Total,
}

/// A blamed call output and the field path below it that was blamed
/// (empty for the whole output), with that field's type and the type of the
/// callee's parameter (or return value) the path starts from.
type OutputPath = (CallOutput, String, String, String);

/// Field paths below a frame's variables: (variable, path, type).
type Paths = BTreeSet<(u32, String, String)>;

/// Blame of stacks already resolved, by their frames as ids of a table
/// shared by the processes of a shard: the ranks of one binary share most
/// of their calling contexts, and each distinct stack is resolved once.
pub(crate) type ResolutionCache = rustc_hash::FxHashMap<Vec<u32>, Arc<Resolution>>;

/// Resolves every calling context of a process, in parallel: blame where
/// the context has samples of time events (from `cache` when a process
/// before it had the same stack: `keys[i]` are context `i`'s frames as
/// ids of the shard's table), the approximate data-centric attribution of
/// chapter 5 where it has samples of memory events (not cached: it
/// depends on the context's skid window too).
#[allow(clippy::too_many_arguments)]
pub(crate) fn resolve_contexts(
    index: &StaticIndex,
    frames: &[SymFrame],
    contexts: &[crate::input::Context],
    keys: &[&[u32]],
    cache: &mut ResolutionCache,
    memory_events: &[bool],
    memory: &crate::MemoryOptions,
    heap: Option<&crate::attribution::footprints::HeapFootprints>,
) -> Vec<(Arc<Resolution>, MemoryResolution)> {
    use rayon::prelude::*;
    let is_memory = |e: usize| memory_events.get(e).copied().unwrap_or(false);
    let has = |c: &crate::input::Context, memory: bool| {
        c.counts
            .iter()
            .enumerate()
            .any(|(e, &n)| n > 0.0 && is_memory(e) == memory)
    };
    let none = Arc::new(Resolution::default());
    let known: &ResolutionCache = cache;
    let resolved: Vec<(Arc<Resolution>, bool, MemoryResolution)> = contexts
        .par_iter()
        .zip(keys)
        .map(|(c, key)| {
            let stack =
                || -> Vec<&SymFrame> { c.frames.iter().map(|&f| &frames[f as usize]).collect() };
            let (blame, new) = if !has(c, false) {
                (none.clone(), false)
            } else if let Some(r) = known.get(*key) {
                (r.clone(), false)
            } else {
                (Arc::new(resolve_stack(index, &stack())), true)
            };
            let attributed = if has(c, true) {
                resolve_memory(index, &stack(), memory, c.skid_window.as_ref(), heap)
            } else {
                MemoryResolution::default()
            };
            (blame, new, attributed)
        })
        .collect();
    resolved
        .into_iter()
        .zip(keys)
        .map(|((blame, new, attributed), key)| {
            if new {
                cache.insert(key.to_vec(), blame.clone());
            }
            (blame, attributed)
        })
        .collect()
}

/// Resolves a stack (innermost frame first), explicit and total blame.
pub fn resolve(index: &StaticIndex, frames: &[SymFrame]) -> Resolution {
    resolve_stack(index, &frames.iter().collect::<Vec<_>>())
}

/// [`resolve`] of a stack whose frames live in a table.
pub fn resolve_stack(index: &StaticIndex, frames: &[&SymFrame]) -> Resolution {
    let total = walk(index, frames, Mode::Total);
    let explicit = walk(index, frames, Mode::Explicit);
    // Exclusive blame is part of the total: a variable whose memory the
    // line writes but that the walk handed on (a `const &` parameter the
    // caller's temporary backs) keeps none.
    let mut exclusive = total.exclusive;
    exclusive.retain(|v| total.blamed.contains(v));
    exclusive.sort_unstable();
    exclusive.dedup();
    let mut exclusive_derived = total.exclusive_derived;
    exclusive_derived.retain(|d| total.derived.contains(d));
    let unexplained = if total.blamed.is_empty() && total.derived.is_empty() {
        total.unexplained
    } else {
        None
    };
    Resolution {
        blamed: total.blamed.into_iter().collect(),
        derived: total.derived.into_iter().collect(),
        explicit: explicit.blamed.into_iter().collect(),
        explicit_derived: explicit.derived.into_iter().collect(),
        exclusive,
        exclusive_derived: exclusive_derived.into_iter().collect(),
        code_only: total.code_only,
        unexplained,
    }
}

/// The variable and all its containers (container resolution).
pub fn with_containers(index: &StaticIndex, (fi, vi): VarRef) -> Vec<VarRef> {
    let f = &index.functions[fi as usize];
    let mut out = vec![(fi, vi)];
    let mut p = f.variables[vi as usize].parent;
    while let Some(pi) = p {
        if out.len() > f.variables.len() {
            break;
        }
        out.push((fi, pi));
        p = f.variables[pi as usize].parent;
    }
    out
}
