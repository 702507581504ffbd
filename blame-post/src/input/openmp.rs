//! Calling contexts of OpenMP worker threads.
//!
//! A thread of the OpenMP runtime runs an outlined parallel region on a
//! stack that starts in the runtime (`start_thread`, libomp's worker loop):
//! the function that opened the region and its callers are only on the
//! master thread's stack. Without them a worker's samples stop at the
//! outlined function's parameters. As HPCToolkit does, a worker's stack is
//! completed with the master's: the frames above the outlined function are
//! replaced by those of the master thread's most frequent stack through the
//! same outlined function, whose callers include the fork call
//! (`__kmpc_fork_call`) and the function that forked.

use crate::input::frame_table::cmp_stacks;
use crate::input::Context;
use blame_formats::results::SymFrame;
use std::collections::HashMap;

/// Where a runtime frame hands control to the outlined function.
fn is_invoke(f: &SymFrame) -> bool {
    f.function == "__kmp_invoke_microtask" || f.function.starts_with("__kmp_invoke_task_func")
}

/// A fork entry of the runtime (the master thread's path into a region).
fn is_fork(f: &SymFrame) -> bool {
    matches!(
        f.function.as_str(),
        "__kmpc_fork_call" | "__kmpc_fork_teams" | "GOMP_parallel"
    )
}

/// Position of the outlined function's frame: the frame just inside the
/// runtime's invocation of it (`stack` as ids into `frames`).
fn outlined_at(frames: &[SymFrame], stack: &[u32]) -> Option<usize> {
    stack
        .iter()
        .position(|&f| is_invoke(&frames[f as usize]))
        .and_then(|i| i.checked_sub(1))
}

/// Completes worker threads' stacks with the master thread's frames above
/// the same outlined function (contexts' frames are ids into `frames`, the
/// process's table, which already holds every frame a graft adds).
/// Returns how many contexts were completed.
pub fn graft_worker_stacks(frames: &[SymFrame], contexts: &mut [Context]) -> usize {
    let forks = |s: &[u32]| s.iter().any(|&f| is_fork(&frames[f as usize]));
    // Master stacks (those that pass through a fork entry): per outlined
    // function, the frames from the invocation outward, with their samples.
    let mut suffixes: HashMap<&str, Vec<(Vec<u32>, f64)>> = HashMap::new();
    for c in contexts.iter() {
        let Some(o) = outlined_at(frames, &c.frames) else {
            continue;
        };
        if !forks(&c.frames[o + 1..]) {
            continue;
        }
        let weight: f64 = c.counts.iter().sum();
        let suffix = c.frames[o + 1..].to_vec();
        let list = suffixes
            .entry(frames[c.frames[o] as usize].function.as_str())
            .or_default();
        match list.iter_mut().find(|(s, _)| *s == suffix) {
            Some(slot) => slot.1 += weight,
            None => list.push((suffix, weight)),
        }
    }
    let best: HashMap<&str, Vec<u32>> = suffixes
        .iter()
        .filter_map(|(k, list)| {
            list.iter()
                .max_by(|a, b| {
                    a.1.total_cmp(&b.1)
                        .then_with(|| cmp_stacks(frames, &b.0, &a.0))
                })
                .map(|(s, _)| (*k, s.clone()))
        })
        .collect();
    let mut grafted = 0;
    for c in contexts.iter_mut() {
        let Some(o) = outlined_at(frames, &c.frames) else {
            continue;
        };
        if forks(&c.frames[o + 1..]) {
            continue;
        }
        if let Some(suffix) = best.get(frames[c.frames[o] as usize].function.as_str()) {
            c.frames.truncate(o + 1);
            c.frames.extend(suffix.iter().copied());
            grafted += 1;
        }
    }
    grafted
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::frame_table::FrameTable;

    fn frame(name: &str) -> SymFrame {
        SymFrame {
            function: name.into(),
            file: String::new(),
            line: 0,
            column: 0,
            inlined: false,
        }
    }

    fn ctx(table: &mut FrameTable, names: &[&str], n: f64) -> Context {
        Context {
            frames: names.iter().map(|n| table.intern(frame(n))).collect(),
            counts: vec![n],
            direct: vec![],
            skid_window: None,
        }
    }

    #[test]
    fn a_worker_takes_the_masters_frames_above_the_region() {
        let master = [
            "relax.omp_outlined_debug__",
            "relax.omp_outlined",
            "__kmp_invoke_microtask",
            "__kmp_fork_call",
            "__kmpc_fork_call",
            "relax",
            "main",
            "_start",
        ];
        let worker = [
            "relax.omp_outlined_debug__",
            "relax.omp_outlined",
            "__kmp_invoke_microtask",
            "[libomp.so.5+0x473e5]",
            "start_thread",
        ];
        let other = ["rhs.omp_outlined", "__kmp_invoke_microtask", "start_thread"];
        let mut t = FrameTable::default();
        let mut cs = vec![
            ctx(&mut t, &master, 5.0),
            ctx(&mut t, &worker, 4.0),
            ctx(&mut t, &other, 1.0),
        ];
        assert_eq!(graft_worker_stacks(&t.frames, &mut cs), 1);
        let names: Vec<&str> = cs[1]
            .frames
            .iter()
            .map(|&f| t.frames[f as usize].function.as_str())
            .collect();
        assert_eq!(names, master);
        // No master stack for that region: left as it was.
        assert_eq!(cs[2].frames.len(), 3);
    }
}
