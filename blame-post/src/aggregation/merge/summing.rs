//! A merger that sums the application's stacks and contexts over ranks
//! (`blame merge --sum-contexts`): one stack of all ranks per call path,
//! one context per (variable, stack), launchers' per process, and summing
//! mergers of groups of parts absorbed one into another.

use super::canonical::RawContext;
use super::process_sums::add_sums;
use super::{add_header, Merger};
use crate::error::Result;
use blame_formats::results::{ContextBlame, ALL_RANKS};
use blame_formats::results_flat::FlatItem;
use rustc_hash::FxHashMap;

/// The lookups of a [`Merger`] that sums contexts over ranks.
#[derive(Default)]
pub(super) struct SumTables {
    /// The stack of all ranks on each path of `Merger::stacks`
    /// ([`NO_STACK`]: none yet).
    all_ranks: Vec<u32>,
    /// The stacks of launchers, by (process, path).
    launcher_stacks: FxHashMap<(u32, u32), u32>,
    /// The contexts of each summed stack, as a chain: the index of its
    /// first in `Merger::contexts` ([`NO_STACK`]: none), and of the next
    /// after each. A stack holds the contexts of the few variables its
    /// samples blame: walking them is cheaper than hashing every key.
    first_context: Vec<u32>,
    next_context: Vec<u32>,
}

/// No stack (yet) in [`SumTables::all_ranks`].
const NO_STACK: u32 = u32::MAX;

/// The process a stack or context of `process` has in summed results:
/// launchers keep theirs, the application's ranks are all one.
pub(super) fn summed_process(launcher: &[bool], process: u32) -> u32 {
    match launcher.get(process as usize) {
        Some(true) => process,
        _ => ALL_RANKS,
    }
}

impl Merger {
    /// A merger whose result sums the application's stacks and contexts
    /// over ranks (`blame merge --sum-contexts`; results version 5).
    pub fn summing() -> Merger {
        Merger {
            summing: Some(SumTables::default()),
            ..Default::default()
        }
    }

    /// Adds what the summing merger `other` has merged, as if its parts
    /// had been added here after this merger's own: its header, its sums
    /// of variables and functions per process, and its summed stacks and
    /// contexts renumbered into this merger's tables (as [`Self::add_flat`]
    /// of the same records would, without making them records first).
    pub(super) fn absorb(&mut self, other: Merger) -> Result<()> {
        debug_assert!(
            self.summing.is_some() && other.summing.is_some(),
            "only summing mergers are absorbed"
        );
        if other.parts == 0 {
            return Ok(());
        }
        if self.parts == 0 {
            *self = other;
            return Ok(());
        }
        let Merger {
            header: theirs,
            keys,
            variables,
            functions,
            frames,
            stacks,
            contexts,
            parts,
            leaves,
            ..
        } = other;
        let theirs = theirs.expect("a merger with parts has a header");
        let ours = self
            .header
            .as_mut()
            .expect("a merger with parts has a header");
        let counts =
            blame_formats::results::ProcessCounts::of(&theirs.processes, theirs.events.len());
        add_header(ours, &theirs, theirs.processes.len(), &counts)?;
        self.parts += parts;
        self.leaves.extend(leaves);
        self.start_renumbering();
        // Sums per process as they are (no values made of them); the
        // other records as a part's ([`Self::add_item`]: their processes
        // are summed already, which summing again leaves as they are).
        for (key, sums) in keys.into_iter().zip(variables) {
            let id = self.key_id(key);
            add_sums(&mut self.variables[id as usize], sums);
            self.key_of.push(id);
        }
        for (key, sums) in functions {
            add_sums(self.functions.entry(key).or_default(), sums);
        }
        for f in &frames.into_frames() {
            self.add_item(FlatItem::Frame(f.as_ref()));
        }
        for p in 0..stacks.paths() as u32 {
            self.add_item(FlatItem::Path(stacks.path_frames(p)));
        }
        for i in 0..stacks.len() {
            self.add_item(FlatItem::Stack {
                process: stacks.process(i),
                path: stacks.path(i),
                samples: stacks.samples(i),
            });
        }
        for c in contexts {
            self.add_item(FlatItem::Context(ContextBlame {
                variable: c.variable,
                process: c.process,
                stack: c.stack,
                samples: c.samples,
            }));
        }
        Ok(())
    }

    /// From here on, sum the application's stacks and contexts over ranks:
    /// those added so far are summed now.
    pub(super) fn start_summing(&mut self) {
        self.summing = Some(SumTables::default());
        let contexts = std::mem::take(&mut self.contexts);
        // The paths stay; the stacks on them are summed anew.
        let paths = self.stacks.paths_only();
        let stacks = std::mem::replace(&mut self.stacks, paths);
        let stack_of: Vec<u32> = (0..stacks.len())
            .map(|i| {
                let process = summed_process(&self.launcher, stacks.process(i));
                self.sum_stack(process, stacks.path(i), stacks.samples(i))
            })
            .collect();
        for mut c in contexts {
            c.stack = stack_of[c.stack as usize];
            self.sum_context(c);
        }
    }

    /// Adds a stack of `process` (as summed: [`summed_process`]) on the
    /// merger's call path `path` to the summed stacks; its index.
    pub(super) fn sum_stack(&mut self, process: u32, path: u32, samples: &[f64]) -> u32 {
        let tables = self.summing.as_mut().expect("summing");
        let stacks = &mut self.stacks;
        // The application's (all ranks): one stack per path, by index.
        let slot = match process {
            ALL_RANKS => {
                if tables.all_ranks.len() <= path as usize {
                    tables.all_ranks.resize(path as usize + 1, NO_STACK);
                }
                &mut tables.all_ranks[path as usize]
            }
            _ => tables
                .launcher_stacks
                .entry((process, path))
                .or_insert(NO_STACK),
        };
        match *slot {
            NO_STACK => {
                *slot = stacks.push_on_path(process, path, samples);
                *slot
            }
            id => {
                stacks.add_samples(id as usize, samples);
                id
            }
        }
    }

    /// Adds a context (stack as a summed stack's index) to the summed contexts.
    pub(super) fn sum_context(&mut self, mut c: RawContext) {
        let tables = self.summing.as_mut().expect("summing");
        c.process = summed_process(&self.launcher, c.process);
        let stack = c.stack as usize;
        if tables.first_context.len() <= stack {
            tables.first_context.resize(stack + 1, NO_STACK);
        }
        let mut at = tables.first_context[stack];
        while at != NO_STACK {
            let known = &mut self.contexts[at as usize];
            if known.variable == c.variable && known.process == c.process {
                known.samples += c.samples;
                return;
            }
            at = tables.next_context[at as usize];
        }
        let id = self.contexts.len() as u32;
        tables.next_context.push(tables.first_context[stack]);
        tables.first_context[stack] = id;
        self.contexts.push(c);
    }
}
