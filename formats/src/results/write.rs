//! Writing a results file: the records borrowed for writing in the
//! layout of the current version ([`WriteParts`]: header, process table,
//! then the records, which `Results::write` and `FlatResults::write` both
//! write), and the call paths more than one stack runs through, found once
//! ([`call_paths`], [`shared_in_order`]).

use super::header::{HeaderLayout, ResultsHeader};
use super::keys::SymFrame;
use super::processes::{ProcessCounts, ProcessTableBytes, ProcessesV9};
use super::records::{ContextBlame, FunctionBlame, StackRecord, VariableBlame};
use super::RESULTS;
use crate::container::{encode_f64s, encode_u32s, write_atomic_led};
use crate::error::Result;
use bincode::Encode;
use serde::Serialize;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::path::Path;

/// [`PathStack`] borrowed for writing (bincode's layout is the same).
#[derive(Serialize)]
struct PathStackRef<'a> {
    process: u32,
    path_step: i64,
    samples: &'a [f64],
}

/// A call path's frame ids borrowed for writing, encoded as bincode
/// encodes a slice ([`encode_u32s`]).
#[derive(Serialize)]
struct Ids<'a>(&'a [u32]);

// The records a results file holds most of, encoded as bincode's derive
// would (fields in order), their vectors in runs ([`encode_u32s`],
// [`encode_f64s`]).

impl Encode for PathStackRef<'_> {
    fn encode<E: bincode::enc::Encoder>(
        &self,
        e: &mut E,
    ) -> std::result::Result<(), bincode::error::EncodeError> {
        self.process.encode(e)?;
        self.path_step.encode(e)?;
        encode_f64s(e, self.samples)
    }
}

impl Encode for Ids<'_> {
    fn encode<E: bincode::enc::Encoder>(
        &self,
        e: &mut E,
    ) -> std::result::Result<(), bincode::error::EncodeError> {
        encode_u32s(e, self.0)
    }
}

/// The data records of results version 8, borrowed for writing (bincode
/// encodes a reference as the value, so this is the owned enum's layout;
/// a path's frames are encoded as a vector).
#[derive(Serialize, Encode)]
enum RecordRef<'a> {
    Variable(&'a VariableBlame),
    Function(&'a FunctionBlame),
    Frame(&'a SymFrame),
    Stack(StackRef<'a>),
    Context(&'a ContextBlame),
    Path(Ids<'a>),
    PathStack(PathStackRef<'a>),
}

/// [`StackRecord`] borrowed for writing (bincode's layout is the same).
#[derive(Serialize)]
struct StackRef<'a> {
    process: u32,
    frames: &'a [u32],
    samples: &'a [f64],
}

impl Encode for StackRef<'_> {
    fn encode<E: bincode::enc::Encoder>(
        &self,
        e: &mut E,
    ) -> std::result::Result<(), bincode::error::EncodeError> {
        self.process.encode(e)?;
        encode_u32s(e, self.frames)?;
        encode_f64s(e, self.samples)
    }
}

/// Stacks as the writer reads them: [`Results::stacks`] or the flat
/// tables of [`crate::results_flat::FlatStacks`].
pub(crate) trait StackView {
    fn process_of(&self, i: usize) -> u32;
    fn frames_of(&self, i: usize) -> &[u32];
    fn samples_of(&self, i: usize) -> &[f64];
    /// The call paths that more than one stack runs through, in the order
    /// they first appear, and each stack's path among them (`None`: a path
    /// of its own, which its record holds).
    fn shared_paths(&self) -> (Vec<&[u32]>, Vec<Option<u32>>);
}

impl StackView for [StackRecord] {
    fn process_of(&self, i: usize) -> u32 {
        self[i].process
    }
    fn frames_of(&self, i: usize) -> &[u32] {
        &self[i].frames
    }
    fn samples_of(&self, i: usize) -> &[f64] {
        &self[i].samples
    }
    fn shared_paths(&self) -> (Vec<&[u32]>, Vec<Option<u32>>) {
        call_paths(self.iter().map(|st| st.frames.as_slice()))
    }
}

/// The header and records of a results file, borrowed for writing.
pub(crate) struct WriteParts<'a, S: StackView + ?Sized> {
    pub header: &'a ResultsHeader,
    /// The process table and the counts of those that counted anything.
    pub processes: &'a ProcessTableBytes,
    pub counts: Vec<ProcessCounts>,
    pub variables: &'a [VariableBlame],
    pub functions: &'a [FunctionBlame],
    pub frames: &'a [SymFrame],
    pub stacks: &'a S,
    pub contexts: &'a [ContextBlame],
}

impl<S: StackView + ?Sized> WriteParts<'_, S> {
    /// Writes atomically (temporary file, then rename), so a reader never
    /// sees half a result. Records are encoded one at a time, never copied
    /// whole; the bytes depend only on the records, not on how the stacks
    /// are held.
    pub(crate) fn write(self, path: &Path) -> Result<()> {
        let stacks = self.stacks;
        let (paths, path_of) = stacks.shared_paths();
        let mut before = 0;
        let records = self
            .variables
            .iter()
            .map(RecordRef::Variable)
            .chain(self.functions.iter().map(RecordRef::Function))
            .chain(self.frames.iter().map(RecordRef::Frame))
            .chain(paths.into_iter().map(|p| RecordRef::Path(Ids(p))))
            .chain(
                path_of
                    .into_iter()
                    .enumerate()
                    .map(move |(i, path)| match path {
                        None => RecordRef::Stack(StackRef {
                            process: stacks.process_of(i),
                            frames: stacks.frames_of(i),
                            samples: stacks.samples_of(i),
                        }),
                        Some(path) => {
                            let path_step = i64::from(path) - i64::from(before);
                            before = path;
                            RecordRef::PathStack(PathStackRef {
                                process: stacks.process_of(i),
                                path_step,
                                samples: stacks.samples_of(i),
                            })
                        }
                    }),
            )
            .chain(self.contexts.iter().map(RecordRef::Context));
        let h = self.header;
        let header = HeaderLayout {
            producer: &h.producer,
            events: &h.events,
            processes: ProcessesV9 {
                processes: self.processes.len() as u64,
                counts: self.counts,
            },
            shard: &h.shard,
            blame_points: &h.blame_points,
            coverage: &h.coverage,
            provenance: &h.provenance,
            damage: &h.damage,
            summed: &h.summed,
        };
        write_atomic_led(path, RESULTS, &header, Some(&self.processes.bytes), records)
    }
}

/// The hash of a call path's frame ids: XXH3 of their bytes in one call
/// (a slice of integers hashes as its length, then its bytes in one
/// write). The streaming XXH3 hasher sets up its whole state for every
/// key, several times the work of hashing 40 ids (most of writing the
/// stacks of a result of 10^3 ranks).
#[derive(Default)]
pub(crate) struct PathHasher(u64);

impl std::hash::Hasher for PathHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0 = twox_hash::XxHash3_64::oneshot_with_seed(self.0, bytes);
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = self.0.rotate_left(5) ^ n as u64;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// The call paths of `stacks` (each stack's frame ids) that more than one
/// stack runs through, in the order they first appear, and each stack's
/// path among them (`None`: a path of its own, which its record holds).
pub(crate) fn call_paths<'a>(
    stacks: impl Iterator<Item = &'a [u32]>,
) -> (Vec<&'a [u32]>, Vec<Option<u32>>) {
    // Each distinct path's id, in the order paths first appear (one hash
    // per stack), and how many stacks run through it.
    let mut ids: HashMap<&[u32], u32, BuildHasherDefault<PathHasher>> = HashMap::default();
    let mut first: Vec<&[u32]> = Vec::new();
    let mut uses: Vec<u32> = Vec::new();
    let distinct: Vec<u32> = stacks
        .map(|frames| {
            let id = *ids.entry(frames).or_insert_with(|| {
                first.push(frames);
                uses.push(0);
                first.len() as u32 - 1
            });
            uses[id as usize] += 1;
            id
        })
        .collect();
    drop(ids);
    shared_in_order(first, &uses, &distinct)
}

/// Of the distinct paths `first` (in the order they first appear, each
/// run through by `uses` stacks), the shared ones numbered in that order,
/// and the shared path of each stack (`distinct`: its path's index in
/// `first`).
pub(crate) fn shared_in_order<'a>(
    first: Vec<&'a [u32]>,
    uses: &[u32],
    distinct: &[u32],
) -> (Vec<&'a [u32]>, Vec<Option<u32>>) {
    let mut shared = Vec::new();
    let index: Vec<Option<u32>> = first
        .iter()
        .zip(uses)
        .map(|(&frames, &n)| {
            (n > 1).then(|| {
                shared.push(frames);
                shared.len() as u32 - 1
            })
        })
        .collect();
    let path_of = distinct.iter().map(|&id| index[id as usize]).collect();
    (shared, path_of)
}
