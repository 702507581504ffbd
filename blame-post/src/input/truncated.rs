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

use crate::input::frame_table::cmp_stacks;
use crate::input::Context;
use blame_formats::results::SymFrame;
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
        let Some(last) = c.frames.last() else {
            continue;
        };
        if !is_root(&frames[*last as usize])
            || c.frames.iter().any(|&f| is_garbage(&frames[f as usize]))
        {
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
        let cut = c
            .frames
            .last()
            .is_some_and(|&l| !is_root(&frames[l as usize]))
            || c.frames.iter().any(|&f| is_garbage(&frames[f as usize]));
        if !cut || c.frames.iter().any(|&f| is_program(&frames[f as usize])) {
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
}
