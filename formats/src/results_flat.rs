//! A results file read into flat tables, for what reduces many of them
//! (`blame merge` of 10^3 partial results): every call path's frame ids
//! and every stack's sample counts are appended to one vector each,
//! decoded straight into them from the chunk's bytes
//! ([`crate::record_bytes`]), instead of vectors allocated per stack (most
//! of a partial result's records are stacks), and the stacks on a path
//! share it.
//! The file layout is [`crate::results`]'; nothing here writes.

use crate::error::{FormatError, RecordRefused, Result};
use crate::files::open_regular;
use crate::results::{
    open_results_parts, path_after, shared_in_order, ContextBlame, FrameRef, FunctionBlame,
    FunctionKeyRef, PathHasher, ProcessCounts, ProcessTableBytes, ProcessValue, RecordCheck,
    Results, ResultsHeader, StackRecord, StackView, SymFrame, VariableBlame, VariableKeyRef,
    WriteParts,
};
use bincode::error::{AllowedEnumVariants, DecodeError};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::io::BufReader;
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

/// A record of a results file as a streaming read hands it on
/// ([`FlatReader::read_each`], [`FlatResults::for_each_item`]), in the
/// file's order: what a record refers to (a variable, frame, path or
/// stack, by its index among those of its kind before it) comes before it.
#[derive(Debug)]
pub enum FlatItem<'a> {
    /// A variable's key and its values, borrowed.
    Variable {
        key: VariableKeyRef<'a>,
        values: &'a [ProcessValue],
    },
    /// A function's key and its values, borrowed.
    Function {
        key: FunctionKeyRef<'a>,
        values: &'a [ProcessValue],
    },
    /// A frame, borrowed from the bytes it was read from.
    Frame(FrameRef<'a>),
    /// The next call path: its frame ids, innermost first.
    Path(&'a [u32]),
    /// The next stack: its process, its call path and its sample counts.
    Stack {
        process: u32,
        path: u32,
        samples: &'a [f64],
    },
    Context(ContextBlame),
}

/// The header of a results file read flat: the header without processes,
/// the process table, and the counts of the processes that counted.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FlatHead {
    pub header: ResultsHeader,
    pub processes: ProcessTableBytes,
    pub counts: Vec<ProcessCounts>,
}

/// A results file whose header is read, its records next
/// ([`FlatReader::read_each`]).
pub struct FlatReader {
    source: Source,
}

enum Source {
    Records {
        path: std::path::PathBuf,
        reader: crate::container::ContainerReader<BufReader<std::fs::File>>,
        check: RecordCheck,
    },
    /// A file of a version before 4, read whole and converted.
    Converted(Box<FlatResults>),
}

impl FlatReader {
    /// Opens a results file of any readable version and reads its header,
    /// with the checks [`Results::read`] makes.
    pub fn open(path: impl AsRef<Path>) -> Result<(FlatHead, FlatReader)> {
        let path = path.as_ref();
        let file = open_regular(path).map_err(|e| FormatError::io(path, e))?;
        // Partial results are small: one read takes most whole.
        let len = file.metadata().map_or(0, |m| m.len());
        let buffer = usize::try_from(len.clamp(8 << 10, 1 << 20)).unwrap_or(8 << 10);
        let (reader, header, processes) =
            open_results_parts(BufReader::with_capacity(buffer, file), path)?;
        if reader.version < 4 {
            let mut old: FlatResults = Results::read(path)?.into();
            let head = FlatHead {
                header: std::mem::take(&mut old.header),
                processes: std::mem::take(&mut old.processes),
                counts: std::mem::take(&mut old.counts),
            };
            let source = Source::Converted(Box::new(old));
            return Ok((head, FlatReader { source }));
        }
        let (processes, counts) = processes.into_table(header.events.len());
        if let Some(c) = counts
            .iter()
            .find(|c| c.process as usize >= processes.len())
        {
            return Err(FormatError::CorruptHeader {
                path: path.to_path_buf(),
                reason: format!("counts of process {} of {}", c.process, processes.len()),
            });
        }
        let check = RecordCheck::new(processes.len(), &header, reader.version);
        let head = FlatHead {
            header,
            processes,
            counts,
        };
        let source = Source::Records {
            path: path.to_path_buf(),
            reader,
            check,
        };
        Ok((head, FlatReader { source }))
    }

    /// Reads the records, each checked against those before it, and hands
    /// each to `each` as it is decoded. Call paths and stacks are decoded
    /// into `stacks` (emptied first); with `keep` they stay there (the
    /// file's stack table, returned), else each is dropped once `each` has
    /// seen it (a merge that reduces every record as it is read: `stacks`
    /// holds one record, in the caches). On an error, `each` has seen the
    /// records before the damage.
    pub fn read_each(
        self,
        mut stacks: FlatStacks,
        keep: bool,
        mut each: impl FnMut(FlatItem<'_>),
    ) -> Result<FlatStacks> {
        stacks.clear();
        let (path, mut r, check) = match self.source {
            Source::Converted(old) => {
                let tables = old.for_each_item(&mut each);
                return Ok(if keep { tables.stacks } else { stacks });
            }
            Source::Records {
                path,
                reader,
                check,
            } => (path, reader, check),
        };
        let path = path.as_path();
        // Records read so far, by kind: what later records may refer to.
        let (mut variables, mut frames, mut paths, mut stacks_read) = (0, 0, 0u32, 0);
        // The file's `Path` records: the first paths of the table (they
        // come before every stack).
        let mut file_paths = 0;
        // A variable's or function's values, one record's at a time.
        let mut values = Vec::new();
        while let Some(chunk) = r.next_chunk()? {
            let corrupt = |reason: RecordRefused| chunk.corrupt(path, reason);
            // Every count takes eight bytes: room for all the chunk may
            // hold, so its stacks are appended without growing the vector
            // (frame ids are reserved per path or stack).
            stacks.samples.reserve(chunk.payload.len() / 8);
            // Each record as `crate::results::ResultRecord` lays it out:
            // its variant's index, then its fields.
            chunk.read_records(path, |rec| {
                match rec.u32()? {
                    0 => {
                        let key = rec.variable_key()?;
                        values.clear();
                        rec.values_into(&mut values)?;
                        check.values(&values).map_err(corrupt)?;
                        variables += 1;
                        each(FlatItem::Variable {
                            key,
                            values: &values,
                        })
                    }
                    1 => {
                        let key = rec.function_key()?;
                        values.clear();
                        rec.values_into(&mut values)?;
                        check.values(&values).map_err(corrupt)?;
                        each(FlatItem::Function {
                            key,
                            values: &values,
                        })
                    }
                    2 => {
                        frames += 1;
                        each(FlatItem::Frame(rec.frame()?))
                    }
                    // A stack with its own frames: process, frame ids,
                    // sample counts.
                    3 => {
                        let process = rec.u32()?;
                        let largest = rec.u32s_into(&mut stacks.frame_ids)?;
                        let own = stacks.close_path();
                        let samples = rec.f64s_into(&mut stacks.samples)?;
                        let i = stacks.close_stack(process, own, samples) as usize;
                        check
                            .stack_of_largest(process, largest, frames)
                            .map_err(corrupt)?;
                        each(FlatItem::Path(stacks.path_frames(own)));
                        each(FlatItem::Stack {
                            process,
                            path: paths,
                            samples: stacks.samples(i),
                        });
                        paths += 1;
                        stacks_read += 1;
                    }
                    4 => {
                        let c = ContextBlame {
                            variable: rec.u32()?,
                            process: rec.u32()?,
                            stack: rec.u32()?,
                            samples: rec.f64()?,
                        };
                        check.context(&c, stacks_read, variables).map_err(corrupt)?;
                        each(FlatItem::Context(c))
                    }
                    // A call path: frame ids.
                    5 => {
                        let largest = rec.u32s_into(&mut stacks.frame_ids)?;
                        let own = stacks.close_path();
                        check
                            .path_of_largest(largest, frames, stacks_read)
                            .map_err(corrupt)?;
                        file_paths += 1;
                        each(FlatItem::Path(stacks.path_frames(own)));
                        paths += 1;
                    }
                    // A stack on a path: process, the step from the path
                    // of the stack on a path before, sample counts. Until
                    // it is checked, a step to no path names `u32::MAX`.
                    6 => {
                        let process = rec.u32()?;
                        let on = path_after(stacks.named, rec.i64()?);
                        let samples = rec.f64s_into(&mut stacks.samples)?;
                        let i =
                            stacks.close_stack(process, on.unwrap_or(u32::MAX), samples) as usize;
                        stacks.named = on.unwrap_or(0);
                        check.path_stack(process, on, file_paths).map_err(corrupt)?;
                        each(FlatItem::Stack {
                            process,
                            path: on.expect("checked: a path"),
                            samples: stacks.samples(i),
                        });
                        stacks_read += 1;
                    }
                    found => {
                        return Err(DecodeError::UnexpectedVariant {
                            type_name: "ResultRecord",
                            allowed: &AllowedEnumVariants::Range { min: 0, max: 6 },
                            found,
                        }
                        .into())
                    }
                }
                if !keep {
                    stacks.clear_records();
                }
                Ok(())
            })?;
        }
        r.require_end()?;
        Ok(stacks)
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
