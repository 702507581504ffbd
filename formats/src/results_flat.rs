//! A results file read into flat tables, for what reduces many of them
//! (`blame merge` of 10^3 partial results): every call path's frame ids
//! and every stack's sample counts are appended to one vector each,
//! decoded straight into them from the chunk's bytes
//! ([`crate::record_bytes`]), instead of vectors allocated per stack (most
//! of a partial result's records are stacks), and the stacks on a path
//! share it.
//! The file layout is [`crate::results`]'; nothing here writes.
//!
//! This file holds the flat tables ([`FlatStacks`], [`FlatResults`]) and
//! their conversions; reading a file record by record is `streaming_read`'s.

mod streaming_read;

pub use streaming_read::{FlatHead, FlatItem, FlatReader};

use crate::error::{FormatError, Result};
use crate::results::{
    shared_in_order, ContextBlame, FunctionBlame, PathHasher, ProcessCounts, ProcessTableBytes,
    Results, ResultsHeader, StackRecord, StackView, SymFrame, VariableBlame, WriteParts,
};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::path::Path;

/// Stacks as flat tables: stack `i` is its process, a call path (a run of
/// frame ids, which many stacks may share: the processes of a partial
/// result of many ranks run through the same paths) and a run of sample
/// counts. Runs are appended; a stack whose samples grow
/// ([`FlatStacks::add_samples`] of a longer vector) gets a new run.
#[derive(Debug, Clone, Default)]
pub struct FlatStacks {
    process: Vec<u32>,
    /// Each stack's call path.
    path: Vec<u32>,
    /// End of each path's run in `frame_ids` (it starts at the end before).
    path_ends: Vec<usize>,
    frame_ids: Vec<u32>,
    /// (start, length) of each stack's run in `samples`.
    sample_runs: Vec<(usize, usize)>,
    samples: Vec<f64>,
    /// While a file is read: the path its last `PathStack` named, from
    /// which the next one steps.
    named: u32,
}

/// Equal stacks in the same order, however their paths are shared.
impl PartialEq for FlatStacks {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && (0..self.len()).all(|i| {
                self.process(i) == other.process(i)
                    && self.frames(i) == other.frames(i)
                    && self.samples(i) == other.samples(i)
            })
    }
}

impl FlatStacks {
    pub fn len(&self) -> usize {
        self.process.len()
    }

    pub fn is_empty(&self) -> bool {
        self.process.is_empty()
    }

    pub fn process(&self, i: usize) -> u32 {
        self.process[i]
    }

    /// The call path of stack `i`.
    pub fn path(&self, i: usize) -> u32 {
        self.path[i]
    }

    /// The number of call paths.
    pub fn paths(&self) -> usize {
        self.path_ends.len()
    }

    /// The frame ids of call path `p`, innermost first.
    pub fn path_frames(&self, p: u32) -> &[u32] {
        let p = p as usize;
        let start = if p == 0 { 0 } else { self.path_ends[p - 1] };
        &self.frame_ids[start..self.path_ends[p]]
    }

    /// Where the frame ids of call path `p` are (start, length): for
    /// [`Self::frames_at`], and stable, since paths are only appended.
    pub fn path_span(&self, p: u32) -> (usize, usize) {
        let p = p as usize;
        let start = if p == 0 { 0 } else { self.path_ends[p - 1] };
        (start, self.path_ends[p] - start)
    }

    /// The frame ids at `span` ([`Self::path_span`]).
    #[inline]
    pub fn frames_at(&self, (start, len): (usize, usize)) -> &[u32] {
        &self.frame_ids[start..start + len]
    }

    /// The frame ids of stack `i`, innermost first.
    pub fn frames(&self, i: usize) -> &[u32] {
        self.path_frames(self.path[i])
    }

    /// The sample counts of stack `i`, per event.
    pub fn samples(&self, i: usize) -> &[f64] {
        let (start, len) = self.sample_runs[i];
        &self.samples[start..start + len]
    }

    /// Appends a stack on a call path of its own; its index.
    pub fn push(&mut self, process: u32, frames: &[u32], samples: &[f64]) -> u32 {
        let path = self.push_path(frames);
        self.push_on_path(process, path, samples)
    }

    /// Appends a call path; its index.
    pub fn push_path(&mut self, frames: &[u32]) -> u32 {
        self.frame_ids.extend_from_slice(frames);
        self.close_path()
    }

    /// Appends a stack on call path `path`; its index.
    pub fn push_on_path(&mut self, process: u32, path: u32, samples: &[f64]) -> u32 {
        self.samples.extend_from_slice(samples);
        self.close_stack(process, path, samples.len())
    }

    /// Ends the call path whose frame ids were appended last; its index.
    fn close_path(&mut self) -> u32 {
        self.path_ends.push(self.frame_ids.len());
        self.path_ends.len() as u32 - 1
    }

    /// Ends the stack on `path` whose `samples` sample counts were
    /// appended last; its index.
    fn close_stack(&mut self, process: u32, path: u32, samples: usize) -> u32 {
        self.process.push(process);
        self.path.push(path);
        self.sample_runs
            .push((self.samples.len() - samples, samples));
        self.process.len() as u32 - 1
    }

    /// Adds `samples` to stack `i`'s, event by event (the shorter is
    /// extended with zeros).
    pub fn add_samples(&mut self, i: usize, samples: &[f64]) {
        let (start, len) = self.sample_runs[i];
        if len < samples.len() {
            let moved = self.samples.len();
            self.samples.extend_from_within(start..start + len);
            self.samples.resize(moved + samples.len(), 0.0);
            self.sample_runs[i] = (moved, samples.len());
        }
        let (start, _) = self.sample_runs[i];
        for (a, b) in self.samples[start..].iter_mut().zip(samples) {
            *a += b;
        }
    }

    /// Empty tables with room for `stacks` stacks of `samples` sample
    /// counts in all, on `paths` call paths of `frame_ids` ids in all
    /// (allocated once each: a table grown by doubling leaves the smaller
    /// buffers it outgrew behind in the heap).
    pub fn with_capacity(stacks: usize, samples: usize, paths: usize, frame_ids: usize) -> Self {
        FlatStacks {
            process: Vec::with_capacity(stacks),
            path: Vec::with_capacity(stacks),
            path_ends: Vec::with_capacity(paths),
            frame_ids: Vec::with_capacity(frame_ids),
            sample_runs: Vec::with_capacity(stacks),
            samples: Vec::with_capacity(samples),
            named: 0,
        }
    }

    /// The number of sample counts held (of every stack, and any a stack
    /// outgrew).
    pub fn sample_count(&self) -> usize {
        self.samples.len()
    }

    /// The number of frame ids of every call path.
    pub fn frame_id_count(&self) -> usize {
        self.frame_ids.len()
    }

    /// Empties the tables, keeping their memory.
    pub fn clear(&mut self) {
        self.process.clear();
        self.path.clear();
        self.path_ends.clear();
        self.frame_ids.clear();
        self.sample_runs.clear();
        self.samples.clear();
        self.named = 0;
    }

    /// Empties the tables of the records read, keeping their memory and
    /// the path the last stack on a path named (a streaming read's, whose
    /// stacks step from it).
    fn clear_records(&mut self) {
        let named = self.named;
        self.clear();
        self.named = named;
    }

    /// The same call paths, with no stacks.
    pub fn paths_only(&self) -> FlatStacks {
        FlatStacks {
            path_ends: self.path_ends.clone(),
            frame_ids: self.frame_ids.clone(),
            ..Default::default()
        }
    }

    /// Frees every path's frame ids (they are empty after).
    pub fn clear_frames(&mut self) {
        self.frame_ids = Vec::new();
        self.path_ends.iter_mut().for_each(|e| *e = 0);
    }
}

impl StackView for FlatStacks {
    fn process_of(&self, i: usize) -> u32 {
        self.process(i)
    }
    fn frames_of(&self, i: usize) -> &[u32] {
        self.frames(i)
    }
    fn samples_of(&self, i: usize) -> &[f64] {
        self.samples(i)
    }
    /// By path: each distinct path's frame ids hashed once (not each
    /// stack's), paths of equal frame ids taken as one.
    fn shared_paths(&self) -> (Vec<&[u32]>, Vec<Option<u32>>) {
        let mut ids: HashMap<&[u32], u32, BuildHasherDefault<PathHasher>> = HashMap::default();
        let same: Vec<u32> = (0..self.paths() as u32)
            .map(|p| *ids.entry(self.path_frames(p)).or_insert(p))
            .collect();
        drop(ids);
        // Distinct paths numbered in the order stacks first run through them.
        let mut number = vec![u32::MAX; same.len()];
        let mut first: Vec<&[u32]> = Vec::new();
        let mut uses: Vec<u32> = Vec::new();
        let distinct: Vec<u32> = self
            .path
            .iter()
            .map(|&p| {
                let p = same[p as usize];
                let n = &mut number[p as usize];
                if *n == u32::MAX {
                    *n = first.len() as u32;
                    first.push(self.path_frames(p));
                    uses.push(0);
                }
                uses[*n as usize] += 1;
                *n
            })
            .collect();
        shared_in_order(first, &uses, &distinct)
    }
}

impl From<&[StackRecord]> for FlatStacks {
    fn from(stacks: &[StackRecord]) -> Self {
        let mut flat = FlatStacks::default();
        for st in stacks {
            flat.push(st.process, &st.frames, &st.samples);
        }
        flat
    }
}

/// A results file with its processes as a table and the counts of those
/// that counted anything, and its stacks in [`FlatStacks`]; the other
/// records as [`Results`] holds them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FlatResults {
    /// The header, without processes (`processes` and `counts` hold them).
    pub header: ResultsHeader,
    pub processes: ProcessTableBytes,
    /// Processes not listed counted no samples and lost none.
    pub counts: Vec<ProcessCounts>,
    pub variables: Vec<VariableBlame>,
    pub functions: Vec<FunctionBlame>,
    pub frames: Vec<SymFrame>,
    pub stacks: FlatStacks,
    pub contexts: Vec<ContextBlame>,
}

/// The tables of a [`FlatResults`] whose memory a read may reuse
/// ([`FlatResults::read_reusing`]).
#[derive(Debug, Default)]
pub struct FlatTables {
    pub stacks: FlatStacks,
    pub contexts: Vec<ContextBlame>,
}

impl From<Results> for FlatResults {
    fn from(mut r: Results) -> Self {
        let processes = std::mem::take(&mut r.header.processes);
        FlatResults {
            stacks: FlatStacks::from(&r.stacks[..]),
            processes: ProcessTableBytes::of(&processes),
            counts: ProcessCounts::of(&processes, r.header.events.len()),
            header: r.header,
            variables: r.variables,
            functions: r.functions,
            frames: r.frames,
            contexts: r.contexts,
        }
    }
}

impl FlatResults {
    /// Results whose header holds its processes (moved into the table and
    /// the counts).
    pub fn of(
        mut header: ResultsHeader,
        variables: Vec<VariableBlame>,
        functions: Vec<FunctionBlame>,
        frames: Vec<SymFrame>,
        stacks: FlatStacks,
        contexts: Vec<ContextBlame>,
    ) -> FlatResults {
        let processes = std::mem::take(&mut header.processes);
        FlatResults {
            processes: ProcessTableBytes::of(&processes),
            counts: ProcessCounts::of(&processes, header.events.len()),
            header,
            variables,
            functions,
            frames,
            stacks,
            contexts,
        }
    }

    /// Writes the bytes [`Results::write`] writes of the same records
    /// (atomically), from the flat tables: no vector per stack.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<()> {
        WriteParts {
            header: &self.header,
            processes: &self.processes,
            counts: self.counts.clone(),
            variables: &self.variables,
            functions: &self.functions,
            frames: &self.frames,
            stacks: &self.stacks,
            contexts: &self.contexts,
        }
        .write(path.as_ref())
    }
}

/// The results as [`Results`] holds them: a vector of frame ids and one of
/// samples per stack, the processes in the header (for reports and tests;
/// what writes results writes [`FlatResults`] as they are).
impl TryFrom<FlatResults> for Results {
    type Error = FormatError;
    fn try_from(r: FlatResults) -> Result<Results> {
        let events = r.header.events.len();
        let mut processes =
            r.processes
                .processes(events)
                .ok_or_else(|| FormatError::CorruptHeader {
                    path: "<memory>".into(),
                    reason: "the process table does not decode".into(),
                })?;
        for c in r.counts {
            if let Some(p) = processes.get_mut(c.process as usize) {
                p.samples = c.samples;
                p.lost = c.lost;
            }
        }
        let stacks = (0..r.stacks.len())
            .map(|i| StackRecord {
                process: r.stacks.process(i),
                frames: r.stacks.frames(i).to_vec(),
                samples: r.stacks.samples(i).to_vec(),
            })
            .collect();
        Ok(Results {
            header: ResultsHeader {
                processes,
                ..r.header
            },
            variables: r.variables,
            functions: r.functions,
            frames: r.frames,
            stacks,
            contexts: r.contexts,
        })
    }
}

impl FlatResults {
    /// Reads a results file of any readable version (versions before 4,
    /// whose records are converted as read, through [`Results::read`]),
    /// with the checks [`Results::read`] makes.
    pub fn read(path: impl AsRef<Path>) -> Result<FlatResults> {
        Self::read_reusing(path, FlatTables::default())
    }

    /// [`Self::read`] into the memory of `tables` (those of a result read
    /// before: a merge of 10^3 parts allocates them once per thread, not
    /// once per part).
    pub fn read_reusing(path: impl AsRef<Path>, tables: FlatTables) -> Result<FlatResults> {
        let (head, reader) = FlatReader::open(path)?;
        let FlatTables {
            stacks,
            mut contexts,
        } = tables;
        contexts.clear();
        let mut out = FlatResults {
            header: head.header,
            processes: head.processes,
            counts: head.counts,
            contexts,
            ..Default::default()
        };
        let (variables, functions, frames, contexts) = (
            &mut out.variables,
            &mut out.functions,
            &mut out.frames,
            &mut out.contexts,
        );
        out.stacks = reader.read_each(stacks, true, |item| match item {
            FlatItem::Variable { key, values } => variables.push(VariableBlame {
                key: key.to_key(),
                values: values.to_vec(),
            }),
            FlatItem::Function { key, values } => functions.push(FunctionBlame {
                key: key.to_key(),
                values: values.to_vec(),
            }),
            FlatItem::Frame(f) => frames.push(f.to_frame()),
            // They stay in the stack table.
            FlatItem::Path(_) | FlatItem::Stack { .. } => {}
            FlatItem::Context(c) => contexts.push(c),
        })?;
        Ok(out)
    }

    /// Hands every record to `each` as a streaming read of its file would
    /// ([`FlatReader::read_each`]): variables, functions, frames, call
    /// paths, stacks, contexts. The stack table as it was and the context
    /// table emptied, for a read to reuse (a read empties them first).
    pub fn for_each_item(self, mut each: impl FnMut(FlatItem<'_>)) -> FlatTables {
        self.variables.iter().for_each(|v| {
            each(FlatItem::Variable {
                key: v.key.as_ref(),
                values: &v.values,
            })
        });
        self.functions.iter().for_each(|f| {
            each(FlatItem::Function {
                key: f.key.as_ref(),
                values: &f.values,
            })
        });
        self.frames
            .iter()
            .for_each(|f| each(FlatItem::Frame(f.as_ref())));
        let stacks = self.stacks;
        for p in 0..stacks.paths() as u32 {
            each(FlatItem::Path(stacks.path_frames(p)));
        }
        for i in 0..stacks.len() {
            each(FlatItem::Stack {
                process: stacks.process(i),
                path: stacks.path(i),
                samples: stacks.samples(i),
            });
        }
        let mut contexts = self.contexts;
        contexts.drain(..).for_each(|c| each(FlatItem::Context(c)));
        FlatTables { stacks, contexts }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_that_grow_move_and_keep_their_sums() {
        let mut s = FlatStacks::default();
        s.push(1, &[3, 4], &[1.0]);
        s.push(2, &[5], &[2.0, 3.0]);
        s.add_samples(0, &[1.0, 7.0]);
        s.add_samples(1, &[1.0]);
        assert_eq!(s.samples(0), [2.0, 7.0]);
        assert_eq!(s.samples(1), [3.0, 3.0]);
        assert_eq!(s.frames(0), [3, 4]);
        assert_eq!(s.frames(1), [5]);
        assert_eq!(s.process(1), 2);
    }
}
