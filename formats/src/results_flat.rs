//! A results file read into flat tables, for what reduces many of them
//! (`blame merge` of 10^3 partial results): every stack's frame ids and
//! sample counts are appended to one vector each, decoded straight into
//! them through bincode's decode context, instead of two vectors allocated
//! per stack (most of a partial result's records are stacks of ~40 frames).
//! The file layout is [`crate::results`]'; nothing here writes.

use crate::container::{decode_claimed_f64s, decode_claimed_u32s, decode_unclaimed};
use crate::error::{FormatError, Result};
use crate::files::open_regular;
use crate::results::{
    open_results_parts, ContextBlame, FunctionBlame, ProcessCounts, ProcessTableBytes, RecordCheck,
    Results, ResultsHeader, StackRecord, SymFrame, VariableBlame,
};
use bincode::de::{Decode, Decoder};
use bincode::error::DecodeError;
use std::io::BufReader;
use std::path::Path;

/// Stacks as flat tables: stack `i` is its process, a run of frame ids and
/// a run of sample counts. Runs are appended; a stack whose samples grow
/// ([`FlatStacks::add_samples`] of a longer vector) gets a new run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FlatStacks {
    process: Vec<u32>,
    /// End of each stack's run in `frame_ids` (it starts at the end before).
    frame_ends: Vec<usize>,
    frame_ids: Vec<u32>,
    /// (start, length) of each stack's run in `samples`.
    sample_runs: Vec<(usize, usize)>,
    samples: Vec<f64>,
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

    /// The frame ids of stack `i`, innermost first.
    pub fn frames(&self, i: usize) -> &[u32] {
        let start = if i == 0 { 0 } else { self.frame_ends[i - 1] };
        &self.frame_ids[start..self.frame_ends[i]]
    }

    /// The sample counts of stack `i`, per event.
    pub fn samples(&self, i: usize) -> &[f64] {
        let (start, len) = self.sample_runs[i];
        &self.samples[start..start + len]
    }

    /// Appends a stack; its index.
    pub fn push(&mut self, process: u32, frames: &[u32], samples: &[f64]) -> u32 {
        self.frame_ids.extend_from_slice(frames);
        self.samples.extend_from_slice(samples);
        self.close(process, samples.len())
    }

    /// Ends the stack whose frame ids and `samples` sample counts were
    /// appended last; its index.
    fn close(&mut self, process: u32, samples: usize) -> u32 {
        self.process.push(process);
        self.frame_ends.push(self.frame_ids.len());
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

    /// Frees every stack's frame ids (they are empty after).
    pub fn clear_frames(&mut self) {
        self.frame_ids = Vec::new();
        self.frame_ends.iter_mut().for_each(|e| *e = 0);
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

/// The data records of results versions 4 to 7, as [`crate::results`]
/// writes them (bincode's layout of an enum: the variant's index, then its
/// value), with stacks decoded into the context's [`FlatStacks`]. The few
/// records that hold strings are boxed, so that the many stacks and
/// contexts are not moved about in a value the size of a variable's.
enum FlatRecord {
    Variable(Box<VariableBlame>),
    Function(Box<FunctionBlame>),
    Frame(Box<SymFrame>),
    Stack(StackAppended),
    Context(ContextBlame),
}

impl Decode<StackSink> for FlatRecord {
    fn decode<D: Decoder<Context = StackSink>>(
        d: &mut D,
    ) -> std::result::Result<Self, DecodeError> {
        Ok(match decode_unclaimed::<_, u32>(d)? {
            0 => FlatRecord::Variable(Box::new(VariableBlame::decode(d)?)),
            1 => FlatRecord::Function(Box::new(FunctionBlame::decode(d)?)),
            2 => FlatRecord::Frame(Box::new(SymFrame::decode(d)?)),
            3 => FlatRecord::Stack(StackAppended::decode(d)?),
            // Integers and a float: nothing to claim.
            4 => FlatRecord::Context(decode_unclaimed(d)?),
            found => {
                return Err(DecodeError::UnexpectedVariant {
                    type_name: "FlatRecord",
                    allowed: &bincode::error::AllowedEnumVariants::Range { min: 0, max: 4 },
                    found,
                })
            }
        })
    }
}

/// A [`StackRecord`] (process, frame ids, sample counts: bincode's layout
/// of the struct and its two vectors) appended to the decode context's
/// stacks as it is decoded; it holds the stack's largest frame id, for the
/// check of the record.
struct StackAppended(Option<u32>);

/// A vector's length as bincode writes it (a u64).
fn vector_len<D: Decoder>(d: &mut D) -> std::result::Result<usize, DecodeError> {
    let n: u64 = decode_unclaimed(d)?;
    usize::try_from(n).map_err(|_| DecodeError::OutsideUsizeRange(n))
}

/// The decode context of [`FlatRecord`]: the stacks being read, boxed so
/// that handing it from one record's decoder to the next moves a pointer.
#[derive(Default)]
struct StackSink(Option<Box<FlatStacks>>);

impl Decode<StackSink> for StackAppended {
    fn decode<D: Decoder<Context = StackSink>>(
        d: &mut D,
    ) -> std::result::Result<Self, DecodeError> {
        let mut stacks = d
            .context()
            .0
            .take()
            .ok_or(DecodeError::Other("a stack outside a stack table"))?;
        let appended = Self::append(d, &mut stacks);
        d.context().0 = Some(stacks);
        appended.map(StackAppended)
    }
}

impl StackAppended {
    fn append<D: Decoder>(
        d: &mut D,
        stacks: &mut FlatStacks,
    ) -> std::result::Result<Option<u32>, DecodeError> {
        let process = decode_unclaimed(d)?;
        // Each vector's memory is claimed against the container's limit
        // per record, as bincode's own vector decoding claims it, and its
        // elements appended to the tables as they are decoded.
        let frames = vector_len(d)?;
        d.claim_container_read::<u32>(frames)?;
        let largest = decode_claimed_u32s(d, frames, &mut stacks.frame_ids)?;
        let samples = vector_len(d)?;
        d.claim_container_read::<f64>(samples)?;
        decode_claimed_f64s(d, samples, &mut stacks.samples)?;
        stacks.close(process, samples);
        Ok(largest)
    }
}

bincode::impl_borrow_decode_with_context!(StackAppended, StackSink);

impl FlatResults {
    /// Reads a results file of any readable version (versions before 4,
    /// whose records are converted as read, through [`Results::read`]),
    /// with the checks [`Results::read`] makes.
    pub fn read(path: impl AsRef<Path>) -> Result<FlatResults> {
        let path = path.as_ref();
        let file = open_regular(path).map_err(|e| FormatError::io(path, e))?;
        let (mut r, header, processes) = open_results_parts(BufReader::new(file), path)?;
        if r.version < 4 {
            return Ok(Results::read(path)?.into());
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
        let check = RecordCheck::new(processes.len(), &header);
        let mut out = FlatResults {
            header,
            processes,
            counts,
            ..Default::default()
        };
        let mut sink = StackSink(Some(Box::default()));
        while let Some(chunk) = r.next_chunk()? {
            let corrupt = |reason: String| chunk.corrupt(path, reason);
            if let Some(stacks) = sink.0.as_deref_mut() {
                // Every frame id takes a byte or more, every count eight:
                // room for all the chunk may hold, so its stacks are
                // appended without growing the vectors.
                stacks.frame_ids.reserve(chunk.payload.len());
                stacks.samples.reserve(chunk.payload.len() / 8);
            }
            sink = chunk.decode_each_into(path, sink, |rec: FlatRecord, sink| {
                let stacks = sink.0.as_deref().expect("the stack table is back");
                match rec {
                    FlatRecord::Variable(v) => {
                        check.values(&v.values).map_err(corrupt)?;
                        out.variables.push(*v)
                    }
                    FlatRecord::Function(f) => {
                        check.values(&f.values).map_err(corrupt)?;
                        out.functions.push(*f)
                    }
                    FlatRecord::Frame(f) => out.frames.push(*f),
                    FlatRecord::Stack(StackAppended(largest)) => check
                        .stack_of_largest(
                            stacks.process(stacks.len() - 1),
                            largest,
                            out.frames.len(),
                        )
                        .map_err(corrupt)?,
                    FlatRecord::Context(c) => {
                        check
                            .context(&c, stacks.len(), out.variables.len())
                            .map_err(corrupt)?;
                        out.contexts.push(c)
                    }
                }
                Ok(())
            })?;
        }
        out.stacks = *sink.0.expect("the stack table is back");
        r.require_end()?;
        Ok(out)
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
