//! Approximate data-centric attribution of one memory-event sample
//! (chapter 5) under each method: the miss spread over the reads near the
//! sampled line, with the footprints of their objects, skid windows across
//! inline instances, and reads of a parameter's memory lifted to the
//! caller's variables passed for it.

use super::call_sites::{arg_bindings, call_sites_at, output_vars};
use super::{with_containers, VarRef};
use crate::attribution::static_index::{root_of, StaticIndex};
use blame_formats::results::SymFrame;
use blame_formats::static_db::VarKind;
use std::collections::BTreeSet;

/// Attribution of one memory-event sample under each method, by variable.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct MemoryResolution {
    /// (method, variable, share); shares of one method sum to at most 1.
    pub shares: Vec<(&'static str, VarRef, f64)>,
    pub skid_truncated: bool,
}

/// Method names as results and reports show them.
pub const METHOD_RAW: &str = "raw";
pub const METHOD_LOOP: &str = "loop";
pub const METHOD_SKID: &str = "skid";
pub const METHOD_SKID_LOOP: &str = "skid+loop";
pub const METHOD_LOOP_ACCESS: &str = "loop+access";
pub const METHOD_SKID_LOOP_ACCESS: &str = "skid+loop+access";
/// Attribution by the data address itself (the ground truth, 5.3.4).
pub const METHOD_DIRECT: &str = "direct";

/// Approximate data-centric attribution of a memory-event sample (ch. 5):
/// the innermost frame with a summary distributes the miss over the reads
/// near its line; reads through a parameter are mapped to the caller's
/// variables (interprocedural aliasing from the call stack, 5.1). `heap`:
/// the bytes of heap blocks each variable received in this process (from
/// its allocation log), which decide whether a read through a pointer
/// stays in the cache.
pub fn resolve_memory(
    index: &StaticIndex,
    frames: &[&SymFrame],
    options: &crate::MemoryOptions,
    instruction_window: Option<&crate::input::skid_model::SkidWindow>,
    heap: Option<&crate::attribution::footprints::HeapFootprints>,
) -> MemoryResolution {
    let mut out = MemoryResolution::default();
    let Some(depth) = frames
        .iter()
        .position(|fr| index.lookup(&fr.function, &fr.file).is_some())
    else {
        return out;
    };
    let fi = index
        .lookup(&frames[depth].function, &frames[depth].file)
        .expect("found above");
    let f = &index.functions[fi];
    // An instruction model was mapped to lines when the samples were loaded;
    // without code for this sample, the reported line stands alone.
    let window = match options.skid {
        Some(crate::input::skid_model::SkidModel::Lines(model)) => Some(
            crate::attribution::datacentric::skid_window(f, frames[depth].line, model),
        ),
        Some(crate::input::skid_model::SkidModel::Instructions(_)) => Some(
            instruction_window
                .cloned()
                .unwrap_or(crate::input::skid_model::SkidWindow {
                    lines: vec![(frames[depth].line, 1.0)],
                    ..Default::default()
                }),
        ),
        None => None,
    };
    let footprint_of = footprints_in(index, heap, frames, depth, fi as u32);
    let m = crate::attribution::datacentric::attribute_miss(
        f,
        frames[depth].line,
        options.loop_threshold,
        window.as_ref(),
        &options.cache,
        &footprint_of,
    );
    out.skid_truncated = m.skid_truncated;
    let methods: [(&'static str, &Vec<(u32, f64)>); 6] = [
        (METHOD_RAW, &m.raw),
        (METHOD_LOOP, &m.loop_adjusted),
        (METHOD_SKID, &m.skid),
        (METHOD_SKID_LOOP, &m.skid_loop),
        (METHOD_LOOP_ACCESS, &m.loop_access),
        (METHOD_SKID_LOOP_ACCESS, &m.skid_loop_access),
    ];
    let crosses = window.as_ref().is_some_and(|w| !w.inlined.is_empty());
    for (method, shares) in methods {
        if crosses && [METHOD_SKID, METHOD_SKID_LOOP, METHOD_SKID_LOOP_ACCESS].contains(&method) {
            continue;
        }
        for &(vi, share) in shares {
            for (target, part) in lift_through_callers(index, frames, depth, fi as u32, vi, share) {
                out.shares.push((method, target, part));
            }
        }
    }
    if let Some(window) = window.filter(|_| crosses) {
        skid_across_inlined(
            index, frames, depth, fi as u32, &window, options, heap, &mut out,
        );
    }
    out
}

/// A read's object as the run knows it, for reads of function `fi` at
/// `frames[depth]`: the blocks held by the variable itself, or by the
/// caller's variables passed for it (all of them known).
fn footprints_in<'a>(
    index: &'a StaticIndex,
    heap: Option<&'a crate::attribution::footprints::HeapFootprints>,
    frames: &'a [&'a SymFrame],
    depth: usize,
    fi: u32,
) -> impl Fn(u32) -> u64 + 'a {
    move |vi: u32| -> u64 {
        let heap = heap.filter(|h| !h.is_empty());
        // The run's heap blocks, else an array the target's function names
        // directly (a caller's `double macro[4]` passed as `xsout`), else
        // the block of a constant size it receives (`malloc(8192)`).
        let held = |v: VarRef| {
            with_containers(index, v).into_iter().find_map(|c| {
                heap.and_then(|h| h.get(index, c))
                    .or_else(|| array_bytes(index, c))
                    .or_else(|| static_heap_bytes(index, c))
            })
        };
        let targets = lift_through_callers(index, frames, depth, fi, vi, 1.0);
        targets
            .iter()
            .map(|&(t, _)| held(t))
            .try_fold(0u64, |most, b| b.map(|b| most.max(b)))
            .unwrap_or(0)
    }
}

/// The bytes of variable `v` when its function's read table knows them (an
/// array named directly: a global, a stack array).
fn array_bytes(index: &StaticIndex, (fi, vi): VarRef) -> Option<u64> {
    index.functions[fi as usize]
        .reads
        .iter()
        .flat_map(|lr| lr.reads.iter().zip(&lr.costs))
        .filter(|(r, c)| r.variable == vi && c.footprint > 0)
        .map(|(_, c)| c.footprint)
        .max()
}

/// The bytes of the heap block variable `v` receives from an allocation of
/// a size known at compile time, when the static pass saw one.
fn static_heap_bytes(index: &StaticIndex, (fi, vi): VarRef) -> Option<u64> {
    let bytes = index.functions[fi as usize].variables[vi as usize].heap_bytes;
    (bytes > 0).then_some(bytes)
}

/// The skid methods of a window that crosses inline instances: each
/// instance's lines are read in its own function (the first of its inline
/// frames with a summary) and lifted through its own frames, the sample's
/// callers above the machine function being the same for all.
#[allow(clippy::too_many_arguments)]
fn skid_across_inlined(
    index: &StaticIndex,
    frames: &[&SymFrame],
    depth: usize,
    fi: u32,
    window: &crate::input::skid_model::SkidWindow,
    options: &crate::MemoryOptions,
    heap: Option<&crate::attribution::footprints::HeapFootprints>,
    out: &mut MemoryResolution,
) {
    // The sampled instruction's own inline frames end at the first frame
    // not expanded from inline info (the machine function).
    let own = frames
        .iter()
        .position(|f| !f.inlined)
        .map_or(frames.len(), |p| p + 1);
    let stacks: Vec<Vec<&SymFrame>> = window
        .inlined
        .iter()
        .map(|(chain, _)| chain.iter().chain(frames[own..].iter().copied()).collect())
        .collect();
    // (frames, depth, function, lines) of each part; the sampled frame first.
    type Part<'a> = (&'a [&'a SymFrame], usize, u32, Vec<(u32, f64)>);
    let mut parts: Vec<Part> = vec![(frames, depth, fi, window.lines.clone())];
    for (stack, (_, p)) in stacks.iter().zip(&window.inlined) {
        let Some((d, g)) = stack
            .iter()
            .enumerate()
            .find_map(|(d, fr)| index.lookup(&fr.function, &fr.file).map(|g| (d, g as u32)))
        else {
            continue;
        };
        parts.push((stack, d, g, vec![(stack[d].line, *p)]));
    }
    let footprints: Vec<Box<dyn Fn(u32) -> u64 + '_>> = parts
        .iter()
        .map(|&(fr, d, g, _)| {
            Box::new(footprints_in(index, heap, fr, d, g)) as Box<dyn Fn(u32) -> u64>
        })
        .collect();
    let window_parts: Vec<crate::attribution::datacentric::WindowPart> = parts
        .iter()
        .zip(&footprints)
        .map(
            |(&(_, _, g, ref lines), fp)| crate::attribution::datacentric::WindowPart {
                f: &index.functions[g as usize],
                lines: lines.clone(),
                footprint_of: fp.as_ref(),
            },
        )
        .collect();
    let shares = crate::attribution::datacentric::skid_parts(
        &window_parts,
        options.loop_threshold,
        &options.cache,
    );
    for (&(fr, d, g, _), s) in parts.iter().zip(&shares) {
        for (method, by_var) in [
            (METHOD_SKID, &s.skid),
            (METHOD_SKID_LOOP, &s.skid_loop),
            (METHOD_SKID_LOOP_ACCESS, &s.skid_loop_access),
        ] {
            for &(vi, share) in by_var {
                for (target, part) in lift_through_callers(index, fr, d, g, vi, share) {
                    out.shares.push((method, target, part));
                }
            }
        }
    }
}

/// Follows a read of a parameter's memory up the stack to the caller
/// variables passed in that position, splitting the share among them.
fn lift_through_callers(
    index: &StaticIndex,
    frames: &[&SymFrame],
    depth: usize,
    fi: u32,
    vi: u32,
    share: f64,
) -> Vec<(VarRef, f64)> {
    let f = &index.functions[fi as usize];
    let root = root_of(f, vi);
    let rv = &f.variables[root as usize];
    // A struct passed by value is the callee's copy, but the memory its
    // pointers reach is the caller's (`mesh.vx[c]` reads the block of the
    // caller's `mesh.vx`): lifted like a pointer parameter.
    let by_value_aggregate = !rv.is_scalar && !rv.is_pointer;
    let (VarKind::Param, Some(k), true) =
        (rv.kind, rv.param_index, rv.is_exit || by_value_aggregate)
    else {
        return vec![((fi, vi), share)];
    };
    let Some((cdepth, cfi)) = frames
        .iter()
        .enumerate()
        .skip(depth + 1)
        .find_map(|(d, fr)| index.lookup(&fr.function, &fr.file).map(|i| (d, i)))
    else {
        return vec![((fi, vi), share)];
    };
    let caller = &index.functions[cfi];
    let mut targets: BTreeSet<u32> = BTreeSet::new();
    let mut pointees: BTreeSet<u32> = BTreeSet::new();
    for c in call_sites_at(
        caller,
        frames[cdepth].line,
        frames[cdepth].column,
        &f.linkage_name,
    ) {
        targets.extend(output_vars(c, k));
        pointees.extend(arg_bindings(c, k).flat_map(|b| b.pointees.iter().copied()));
    }
    // Only the variables the argument points into, not those computed from
    // it later (`move(&world)` then `g = energy(&world)` puts `g` in the
    // binding of `move`'s argument): the binding's pointees when the static
    // pass knew them, else the candidates read on the call's line.
    let known = !pointees.is_empty();
    let targets = if known { pointees } else { targets };
    // Containers of other targets get their share through container resolution.
    let containers: BTreeSet<u32> = targets
        .iter()
        .filter_map(|&t| caller.variables[t as usize].parent)
        .collect();
    let direct: Vec<u32> = targets.difference(&containers).copied().collect();
    // Of variables holding pointers into one object (`akk = a + k * n + k`
    // aliases `a`), the memory is the first one's: the share is not split
    // among its aliases.
    let direct: Vec<u32> = direct
        .iter()
        .copied()
        .filter(|&t| {
            !caller.variables[t as usize]
                .aliases
                .iter()
                .any(|&a| a < t && direct.contains(&a))
        })
        .collect();
    let direct = if known {
        direct
    } else {
        crate::attribution::datacentric::passed_variables(caller, frames[cdepth].line, &direct)
    };
    if direct.is_empty() {
        return vec![((fi, vi), share)];
    }
    let part = share / direct.len() as f64;
    direct
        .into_iter()
        .flat_map(|t| lift_through_callers(index, frames, cdepth, cfi as u32, t, part))
        .collect()
}

#[cfg(test)]
mod static_footprint_tests {
    use super::*;
    use crate::tests_fig3_14::{func, var};
    use blame_formats::static_db::{
        LineReads, MemRead, OuterReuse, ReadCost, ReadIndex, Reuse, StaticDb,
    };

    /// Without an allocation log, a table that received `malloc(8192)`
    /// (the static pass's `heap_bytes`) stays in the L1 beside a stream:
    /// the stream takes the miss. A table of unknown size is weighed as a
    /// gather (one miss per read).
    #[test]
    fn constant_allocation_sizes_are_footprints_without_a_log() {
        let shares = |table_bytes: u64| {
            let mut table = var("table", VarKind::Local, None, None, false, &[]);
            table.heap_bytes = table_bytes;
            let stream = var("density", VarKind::Local, None, None, false, &[]);
            let mut f = func("main", vec![table, stream], vec![]);
            let cost = |reuse| ReadCost {
                reuse,
                outer: OuterReuse::Unknown,
                footprint: 0,
                sweep: 0,
                swept_before: false,
            };
            f.reads = vec![LineReads {
                line: 7,
                reads: (0..2)
                    .map(|variable| MemRead {
                        variable,
                        index: ReadIndex::None,
                    })
                    .collect(),
                costs: vec![cost(Reuse::Irregular), cost(Reuse::Stride(8))],
            }];
            f.lines = vec![6, 7];
            f.loops = vec![blame_formats::static_db::LoopInfo {
                header_line: 6,
                lines: vec![6, 7],
                parent: None,
            }];
            let mut db = StaticDb::default();
            db.insert(f);
            let index = StaticIndex::new(db);
            let frame = SymFrame {
                function: "main".into(),
                file: "fig3_14.c".into(),
                line: 7,
                column: 0,
                inlined: false,
            };
            let options = crate::MemoryOptions {
                loop_threshold: 0.75,
                skid: None,
                cache: Default::default(),
            };
            let r = resolve_memory(&index, &[&frame], &options, None, None);
            r.shares
                .iter()
                .filter(|s| s.0 == METHOD_LOOP_ACCESS && s.1 .1 == 0)
                .map(|s| s.2)
                .sum::<f64>()
        };
        // 2% of a gather (first touches) against 1/8 of a line: ~14%.
        assert!(shares(8192) < 0.2, "{}", shares(8192));
        assert!(shares(0) > 0.8, "{}", shares(0));
    }
}
