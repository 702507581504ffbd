//! Results: resolved blame per variable, per process (rank) and context,
//! written by `blame post` (one file per shard) and reduced by `blame merge`.
//!
//! This file holds [`Results`] (a results file in memory) and what asks it
//! for each rank's contexts; its modules hold the rest, one job each: what
//! results name (`keys`), their data records (`records`), the processes
//! and their tables (`processes`), provenance (`provenance`), the header
//! and opening a file of any version (`header`), the checks of records
//! (`check`), reading (`read`, `read_in_place`) and writing (`write`).

mod check;
mod header;
mod keys;
mod processes;
mod provenance;
mod read;
mod read_in_place;
mod records;
mod write;

pub(crate) use check::RecordCheck;
pub(crate) use header::open_results_parts;
pub use header::{Coverage, ResultsHeader, Shard, SummedContexts};
pub use keys::{FrameRef, FunctionKey, FunctionKeyRef, SymFrame, VariableKey, VariableKeyRef};
pub use processes::{ProcessCounts, ProcessInfo, ProcessTableBytes};
pub use provenance::{FileId, InputsId, Provenance};
pub(crate) use records::path_after;
pub use records::{
    CallPath, ContextBlame, ContextBlameV3, FunctionBlame, PathStack, ProcessValue, ResultRecord,
    ResultRecordV3, StackRecord, StackRecordV3, VariableBlame,
};
pub(crate) use write::{shared_in_order, PathHasher, StackView, WriteParts};

use crate::container::Kind;
use crate::error::Result;
use std::path::Path;

pub const RESULTS: Kind = Kind {
    name: "blame results",
    magic: *b"BLAMERES",
    version: 9,
};

/// The `process` of the application's stacks and contexts in a result
/// whose contexts are summed over ranks ([`ResultsHeader::summed`]): they
/// belong to all the application's ranks at once.
pub const ALL_RANKS: u32 = u32::MAX;

/// The oldest results version this build reads (version 2: no provenance,
/// no lost counts, no damage notes; read as unknown provenance; versions 2
/// and 3: frames and variable keys repeated in every stack and context
/// record, interned while reading).
pub const OLDEST_READABLE: u32 = 2;

/// A results file in memory.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Results {
    pub header: ResultsHeader,
    /// Sorted by key (`blame post` and `blame merge` write them so).
    pub variables: Vec<VariableBlame>,
    pub functions: Vec<FunctionBlame>,
    /// The distinct frames of `stacks`, each once.
    pub frames: Vec<SymFrame>,
    pub stacks: Vec<StackRecord>,
    pub contexts: Vec<ContextBlame>,
}

impl Results {
    /// True when the application's stacks and contexts are summed over its
    /// ranks ([`ResultsHeader::summed`]).
    pub fn is_summed(&self) -> bool {
        self.header.summed.is_some()
    }

    /// The rank of `process` as stacks and contexts name it: `None` for
    /// [`ALL_RANKS`] and processes without a rank.
    pub fn rank_of(&self, process: u32) -> Option<u32> {
        self.header
            .processes
            .get(process as usize)
            .and_then(|p| p.rank)
    }

    /// For what needs each rank's calling contexts (`what`): the refusal
    /// when this result has them summed over ranks, naming the results to
    /// use instead; `None` when it has them per process.
    pub fn per_rank_contexts_missing(&self, what: &str) -> Option<PerRankContextsMissing> {
        let summed = self.header.summed.as_ref()?;
        Some(PerRankContextsMissing {
            what: what.to_string(),
            ranks: self.header.processes.iter().filter(|p| !p.launcher).count(),
            merged_from: summed.from.clone(),
        })
    }

    /// The frames of stack `stack`, innermost first.
    pub fn stack_frames(&self, stack: u32) -> impl DoubleEndedIterator<Item = &SymFrame> + '_ {
        self.stacks[stack as usize]
            .frames
            .iter()
            .map(|&f| &self.frames[f as usize])
    }

    /// The frames of `stack`, innermost first.
    pub fn frames_of<'a>(
        &'a self,
        stack: &'a StackRecord,
    ) -> impl DoubleEndedIterator<Item = &'a SymFrame> + ExactSizeIterator + 'a {
        stack.frames.iter().map(|&f| &self.frames[f as usize])
    }

    /// Adds a stack of `process` whose frames are given whole (they are
    /// looked up in `frames` one by one, added when missing: for building
    /// small results, such as tests' and imports'). Returns its index.
    pub fn push_stack(&mut self, process: u32, frames: Vec<SymFrame>, samples: Vec<f64>) -> u32 {
        let frames = frames
            .into_iter()
            .map(|f| match self.frames.iter().position(|x| *x == f) {
                Some(i) => i as u32,
                None => {
                    self.frames.push(f);
                    self.frames.len() as u32 - 1
                }
            })
            .collect();
        self.stacks.push(StackRecord {
            process,
            frames,
            samples,
        });
        self.stacks.len() as u32 - 1
    }

    /// The index of the variable record of `key`.
    pub fn variable_index(&self, key: &VariableKey) -> Option<u32> {
        self.variables
            .iter()
            .position(|v| v.key == *key)
            .map(|i| i as u32)
    }

    /// The key of the variable a context blames.
    pub fn context_key(&self, c: &ContextBlame) -> &VariableKey {
        &self.variables[c.variable as usize].key
    }

    /// Writes atomically (temporary file, then rename), so a reader never
    /// sees half a result. Records are encoded from `self` one at a time,
    /// never copied whole.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<()> {
        let h = &self.header;
        WriteParts {
            header: h,
            processes: &ProcessTableBytes::of(&h.processes),
            counts: ProcessCounts::of(&h.processes, h.events.len()),
            variables: &self.variables,
            functions: &self.functions,
            frames: &self.frames,
            stacks: &self.stacks[..],
            contexts: &self.contexts,
        }
        .write(path.as_ref())
    }
}

/// What needs each rank's calling contexts, refused by results whose
/// contexts are summed over ranks (`blame merge --sum-contexts`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{what} needs the calling contexts of each rank, but these results were merged with \
         `blame merge --sum-contexts`: their calling contexts are summed over the {ranks} \
         ranks (variables and functions are still per rank); use {}",
    use_instead(merged_from)
)]
pub struct PerRankContextsMissing {
    pub what: String,
    /// The application's ranks the contexts are summed over.
    pub ranks: usize,
    /// The results merged (empty: merged in memory, names not kept).
    pub merged_from: Vec<String>,
}

fn use_instead(merged_from: &[String]) -> String {
    if merged_from.is_empty() {
        "the results it was merged from (merged in memory: their names were not kept)".to_string()
    } else {
        format!(
            "one of the results it was merged from: {}",
            merged_from.join(", ")
        )
    }
}
