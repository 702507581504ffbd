//! Stacks cut short inside libraries without frame information.
//!
//! Optimized library kernels (OpenBLAS's `dgemm_kernel`, hand-written
//! assembly) keep no frame pointer and often no unwind tables: a sample in
//! them unwinds to garbage (`dgemm_kernel <- [unknown 0x5dc]`), on the
//! thread that called the library and on the library's own worker threads
//! alike. Such a stack holds none of the program's frames, so it reaches
//! no variable, although the program's call into the library is what it
//! computes. As the OpenMP workers are completed with the master's frames
//! (`openmp.rs`), a cut stack is completed with the program's way into the
//! library: from the process's complete stacks, the frames from the library
//! routine the program called outward (`LAPACKE_dgetrf_work <- main <-
//! ..`). The entry taken is the most sampled one whose library frames hold
//! the cut stack's innermost routine, else the most sampled of all.
//!
//! A stack can also be cut above the program's own frames: a deep call
//! into MPI's progress engine (no frame pointers, `rbp` used for data)
//! fills the stack copy and breaks the kernel's frame-pointer chain, and
//! the walk stops in the solver that called `MPI_Allreduce`. Its outermost
//! frame is a call site the process's complete stacks pass through; it is
//! completed with their callers of that call site, so its variables are
//! carried up to `main` as every other sample's are.

use crate::input::frame_table::cmp_stacks;
use crate::input::Context;
use blame_formats::results::SymFrame;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::HashMap;

/// Frames a complete stack ends in (the process's and threads' entries).
fn is_root(f: &SymFrame) -> bool {
    matches!(
        f.function.as_str(),
        "_start"
            | "__libc_start_main"
            | "__libc_start_call_main"
            | "start_thread"
            | "clone"
            | "clone3"
            | "__clone"
            | "__clone3"
            | "__GI___clone3"
            | "thread_start"
    )
}

/// A stack that reaches its thread's entry through named frames only.
fn is_complete(frames: &[SymFrame], stack: &[u32]) -> bool {
    stack.last().is_some_and(|&l| is_root(&frames[l as usize]))
        && !stack.iter().any(|&f| is_garbage(&frames[f as usize]))
}

/// A frame of the program's own code (with debug line information).
fn is_program(f: &SymFrame) -> bool {
    !f.file.is_empty() && f.line > 0
}

/// A frame the unwinder could not name.
fn is_garbage(f: &SymFrame) -> bool {
    f.function.starts_with("[unknown") || f.function.is_empty()
}

/// Completes stacks cut short in code without frame information with the
/// program's most sampled way into that code, taken from `reference` (all
/// the process's stacks, in a sample-level shard, so that every shard
/// chooses alike) or else from `contexts`. Returns how many contexts were
/// completed.
pub fn graft_cut_stacks(
    frames: &[SymFrame],
    contexts: &mut [Context],
    reference: &[Context],
) -> usize {
    // Entries: (library frames of the stack, frames from the routine the
    // program called outward) with their samples.
    let mut entries: Vec<(Vec<u32>, Vec<u32>, f64)> = Vec::new();
    let sources: &[Context] = if reference.is_empty() {
        contexts
    } else {
        reference
    };
    for c in sources.iter() {
        if !is_complete(frames, &c.frames) {
            continue;
        }
        let Some(k) = c
            .frames
            .iter()
            .position(|&f| is_program(&frames[f as usize]))
        else {
            continue;
        };
        if k == 0 {
            continue;
        }
        let weight: f64 = c.counts.iter().sum();
        let library = c.frames[..k].to_vec();
        let suffix = c.frames[k - 1..].to_vec();
        match entries.iter_mut().find(|(_, s, _)| *s == suffix) {
            Some(e) => {
                e.2 += weight;
                for f in library {
                    if !e.0.contains(&f) {
                        e.0.push(f);
                    }
                }
            }
            None => entries.push((library, suffix, weight)),
        }
    }
    if entries.is_empty() {
        return 0;
    }
    let heavier = |a: &&(Vec<u32>, Vec<u32>, f64), b: &&(Vec<u32>, Vec<u32>, f64)| {
        a.2.total_cmp(&b.2)
            .then_with(|| cmp_stacks(frames, &b.1, &a.1))
    };
    let best_overall = entries.iter().max_by(heavier).map(|e| e.1.clone());
    // Per library routine, the heaviest entry whose library frames hold it.
    let mut by_routine: HashMap<&str, Vec<u32>> = HashMap::new();
    let mut routines: Vec<&str> = entries
        .iter()
        .flat_map(|e| e.0.iter().map(|&f| frames[f as usize].function.as_str()))
        .collect();
    routines.sort_unstable();
    routines.dedup();
    for r in routines {
        if let Some(e) = entries
            .iter()
            .filter(|e| e.0.iter().any(|&f| frames[f as usize].function == r))
            .max_by(heavier)
        {
            by_routine.insert(r, e.1.clone());
        }
    }
    let mut grafted = 0;
    for c in contexts.iter_mut() {
        if is_complete(frames, &c.frames)
            || c.frames.iter().any(|&f| is_program(&frames[f as usize]))
        {
            continue;
        }
        // The named frames before the cut.
        let named = c
            .frames
            .iter()
            .position(|&f| is_garbage(&frames[f as usize]))
            .unwrap_or(c.frames.len());
        if named == 0 {
            continue;
        }
        let suffix = c.frames[..named]
            .iter()
            .find_map(|&f| by_routine.get(frames[f as usize].function.as_str()))
            .or(best_overall.as_ref());
        if let Some(suffix) = suffix {
            c.frames.truncate(named);
            c.frames.extend(suffix.iter().copied());
            grafted += 1;
        }
    }
    grafted
}

/// A stack that stops short of its thread's entry but holds none of the
/// frames [`graft_cut_stacks`] replaces: cut above the program's own
/// frames (a deep call into a library without frame pointers, such as
/// MPI's progress engine, used the whole stack copy and broke the frame
/// pointer chain at the sample).
fn cut_in_program(frames: &[SymFrame], c: &Context) -> bool {
    !c.frames.is_empty()
        && !is_complete(frames, &c.frames)
        && !c.frames.iter().any(|&f| is_garbage(&frames[f as usize]))
        && c.frames.iter().any(|&f| is_program(&frames[f as usize]))
}

/// Completes stacks cut short above program frames with the callers their
/// outermost frame has in the process's complete stacks: the frames from
/// that same call site (function, file and line) outward, from `reference`
/// (all the process's stacks, so that every shard chooses alike) or else
/// from `contexts`. A call site reached by several ways takes the most
/// sampled one; a stack whose outermost call site no complete stack
/// passes through is left as it is. Returns how many contexts were
/// completed.
pub fn graft_cut_program_stacks(
    frames: &[SymFrame],
    contexts: &mut [Context],
    reference: &[Context],
) -> usize {
    let wanted: FxHashSet<u32> = contexts
        .iter()
        .filter(|c| cut_in_program(frames, c))
        .filter_map(|c| c.frames.last().copied())
        .collect();
    if wanted.is_empty() {
        return 0;
    }
    let sources: &[Context] = if reference.is_empty() {
        contexts
    } else {
        reference
    };
    // The complete stacks' ways out of each wanted frame, with their samples.
    let mut ways: FxHashMap<&[u32], f64> = FxHashMap::default();
    for c in sources {
        if !is_complete(frames, &c.frames) {
            continue;
        }
        let weight: f64 = c.counts.iter().sum();
        let mut seen = FxHashSet::default();
        for (i, f) in c.frames.iter().enumerate() {
            // Recursion: the innermost activation's way out, once per stack.
            if wanted.contains(f) && seen.insert(*f) {
                *ways.entry(&c.frames[i..]).or_insert(0.0) += weight;
            }
        }
    }
    let mut best: FxHashMap<u32, (&[u32], f64)> = FxHashMap::default();
    for (&way, &w) in &ways {
        let e = best.entry(way[0]).or_insert((way, w));
        let heavier = w
            .total_cmp(&e.1)
            .then_with(|| cmp_stacks(frames, e.0, way))
            .is_gt();
        if heavier {
            *e = (way, w);
        }
    }
    let best: FxHashMap<u32, Vec<u32>> = best
        .into_iter()
        .map(|(f, (way, _))| (f, way.to_vec()))
        .collect();
    let mut grafted = 0;
    for c in contexts.iter_mut() {
        if !cut_in_program(frames, c) {
            continue;
        }
        let Some(way) = c.frames.last().and_then(|l| best.get(l)) else {
            continue;
        };
        c.frames.pop();
        c.frames.extend(way.iter().copied());
        grafted += 1;
    }
    grafted
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::frame_table::FrameTable;

    fn frame(name: &str, file: &str, line: u32) -> SymFrame {
        SymFrame {
            function: name.into(),
            file: file.into(),
            line,
            column: 0,
            inlined: false,
        }
    }

    fn ctx(table: &mut FrameTable, fs: &[(&str, &str, u32)], n: f64) -> Context {
        Context {
            frames: fs
                .iter()
                .map(|&(f, file, l)| table.intern(frame(f, file, l)))
                .collect(),
            counts: vec![n],
            direct: vec![],
            skid_window: None,
        }
    }

    /// OpenBLAS: the main thread's kernel samples unwind to garbage, a
    /// worker's too; both take main's call of dgetrf, the routine whose
    /// library frames hold the kernel (not the lighter dgemv entry). An
    /// idle OpenMP worker (complete, no program frames) is left alone.
    #[test]
    fn cut_library_stacks_take_the_programs_way_into_the_library() {
        let mut t = FrameTable::default();
        let entry = [
            ("dgemm_kernel", "", 0),
            ("dgetrf_parallel", "", 0),
            ("LAPACKE_dgetrf_work", "", 0),
            ("main", "lu.c", 20),
            ("_start", "", 0),
        ];
        let gemv = [
            ("dgemv_n", "", 0),
            ("cblas_dgemv", "", 0),
            ("main", "lu.c", 22),
            ("_start", "", 0),
        ];
        let cut_main = [("dgemm_kernel", "", 0), ("[unknown 0x5dc]", "", 0)];
        let cut_worker = [("dgemm_kernel", "", 0), ("[unknown 0x7f00]", "", 0)];
        let idle = [("pthread_cond_wait", "", 0), ("start_thread", "", 0)];
        let mut cs = vec![
            ctx(&mut t, &entry, 1.0),
            ctx(&mut t, &gemv, 5.0),
            ctx(&mut t, &cut_main, 40.0),
            ctx(&mut t, &cut_worker, 30.0),
            ctx(&mut t, &idle, 3.0),
        ];
        let frames = t.into_frames();
        assert_eq!(graft_cut_stacks(&frames, &mut cs, &[]), 2);
        let names = |c: &Context| -> Vec<String> {
            c.frames
                .iter()
                .map(|&f| frames[f as usize].function.clone())
                .collect()
        };
        for c in &cs[2..4] {
            assert_eq!(
                names(c),
                ["dgemm_kernel", "LAPACKE_dgetrf_work", "main", "_start"],
                "{:?}",
                names(c)
            );
        }
        assert_eq!(names(&cs[4]), ["pthread_cond_wait", "start_thread"]);
    }

    /// A sample-level shard holds a cut stack but not the complete ones:
    /// the process's reference stacks decide, as they do in every shard.
    #[test]
    fn a_shard_completes_cut_stacks_from_the_whole_process() {
        let mut t = FrameTable::default();
        let entry = [
            ("dgemm_kernel", "", 0),
            ("LAPACKE_dgetrf_work", "", 0),
            ("main", "lu.c", 20),
            ("_start", "", 0),
        ];
        let cut = [("dgemm_kernel", "", 0), ("[unknown 0x5dc]", "", 0)];
        let reference = vec![ctx(&mut t, &entry, 3.0), ctx(&mut t, &cut, 9.0)];
        let mut shard = vec![ctx(&mut t, &cut, 4.0)];
        let frames = t.into_frames();
        assert_eq!(graft_cut_stacks(&frames, &mut shard, &[]), 0);
        assert_eq!(graft_cut_stacks(&frames, &mut shard, &reference), 1);
        assert_eq!(shard[0].frames.len(), 4);
    }

    /// MPI's progress engine cut the stack in the solver's call of
    /// MPI_Allreduce: it takes main's way into that call site (the most
    /// sampled of two), and a cut stack through a call site no complete
    /// stack passes is left alone.
    #[test]
    fn stacks_cut_above_program_frames_take_the_callers_of_their_call_site() {
        let mut t = FrameTable::default();
        let way = |main_line| {
            [
                ("par_dot", "v.c", 87),
                ("gmres", "g.c", 104),
                ("newton", "n.c", 161),
                ("main", "m.c", main_line),
                ("__libc_start_main", "", 0),
            ]
        };
        let cut = [
            ("opal_progress", "", 0),
            ("MPI_Allreduce", "", 0),
            ("par_allreduce", "v.c", 77),
            ("par_dot", "v.c", 87),
            ("gmres", "g.c", 104),
            ("newton", "n.c", 161),
        ];
        let elsewhere = [("par_dot", "v.c", 87), ("setup", "s.c", 9)];
        let mut cs = vec![
            ctx(&mut t, &way(30), 50.0),
            ctx(&mut t, &way(31), 2.0),
            ctx(&mut t, &cut, 1.0),
            ctx(&mut t, &elsewhere, 1.0),
        ];
        let frames = t.into_frames();
        assert_eq!(graft_cut_stacks(&frames, &mut cs, &[]), 0);
        assert_eq!(graft_cut_program_stacks(&frames, &mut cs, &[]), 1);
        let names = |c: &Context| -> Vec<(String, u32)> {
            c.frames
                .iter()
                .map(|&f| (frames[f as usize].function.clone(), frames[f as usize].line))
                .collect()
        };
        let grafted = names(&cs[2]);
        assert_eq!(grafted.len(), 8, "{grafted:?}");
        assert_eq!(grafted[6], ("main".to_string(), 30), "{grafted:?}");
        assert_eq!(names(&cs[3]).len(), 2);
    }
}
