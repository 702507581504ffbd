//! A results file read record by record ([`FlatReader::read_each`]):
//! its header first ([`FlatHead`]), then each record checked against those
//! before it and handed on as a [`FlatItem`], call paths and stacks decoded
//! straight from the chunk's bytes into a [`FlatStacks`].

use super::{FlatResults, FlatStacks};
use crate::error::{FormatError, RecordRefused, Result};
use crate::files::open_regular;
use crate::record_bytes::{RecordBytes, RecordFault};
use crate::results::{
    open_results_parts, path_after, ContextBlame, FrameRef, FunctionKeyRef, ProcessCounts,
    ProcessTableBytes, ProcessValue, RecordCheck, Results, ResultsHeader, VariableKeyRef,
};
use bincode::error::{AllowedEnumVariants, DecodeError};
use std::io::BufReader;
use std::path::Path;

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
        let mut so_far = ReadSoFar::default();
        while let Some(chunk) = r.next_chunk()? {
            let corrupt = |reason: RecordRefused| chunk.corrupt(path, reason);
            // Every count takes eight bytes: room for all the chunk may
            // hold, so its stacks are appended without growing the vector
            // (frame ids are reserved per path or stack).
            stacks.samples.reserve(chunk.payload.len() / 8);
            chunk.read_records(path, |rec| {
                so_far.record(rec, &mut stacks, &check, &corrupt, &mut each)?;
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

/// What the records of a file read so far let later records refer to, by
/// kind, and the values of the variable or function being read.
#[derive(Default)]
struct ReadSoFar {
    variables: usize,
    frames: usize,
    paths: u32,
    stacks_read: usize,
    /// The file's `Path` records: the first paths of the table (they
    /// come before every stack).
    file_paths: usize,
    /// A variable's or function's values, one record's at a time.
    values: Vec<ProcessValue>,
}

impl ReadSoFar {
    /// Reads one record as `crate::results::ResultRecord` lays it out (its
    /// variant's index, then its fields), checks it against the records
    /// before it and hands it to `each`; call paths and stacks go into
    /// `stacks`.
    #[inline]
    fn record(
        &mut self,
        rec: &mut RecordBytes<'_>,
        stacks: &mut FlatStacks,
        check: &RecordCheck,
        corrupt: &impl Fn(RecordRefused) -> FormatError,
        each: &mut impl FnMut(FlatItem<'_>),
    ) -> std::result::Result<(), RecordFault> {
        match rec.u32()? {
            0 => {
                let key = rec.variable_key()?;
                self.values_of(rec, check, corrupt)?;
                self.variables += 1;
                each(FlatItem::Variable {
                    key,
                    values: &self.values,
                })
            }
            1 => {
                let key = rec.function_key()?;
                self.values_of(rec, check, corrupt)?;
                each(FlatItem::Function {
                    key,
                    values: &self.values,
                })
            }
            2 => {
                self.frames += 1;
                each(FlatItem::Frame(rec.frame()?))
            }
            3 => self.stack(rec, stacks, check, corrupt, each)?,
            4 => {
                let c = ContextBlame {
                    variable: rec.u32()?,
                    process: rec.u32()?,
                    stack: rec.u32()?,
                    samples: rec.f64()?,
                };
                check
                    .context(&c, self.stacks_read, self.variables)
                    .map_err(corrupt)?;
                each(FlatItem::Context(c))
            }
            5 => self.path(rec, stacks, check, corrupt, each)?,
            6 => self.path_stack(rec, stacks, check, corrupt, each)?,
            found => {
                return Err(DecodeError::UnexpectedVariant {
                    type_name: "ResultRecord",
                    allowed: &AllowedEnumVariants::Range { min: 0, max: 6 },
                    found,
                }
                .into())
            }
        }
        Ok(())
    }

    /// A variable's or function's values, checked.
    #[inline]
    fn values_of(
        &mut self,
        rec: &mut RecordBytes<'_>,
        check: &RecordCheck,
        corrupt: &impl Fn(RecordRefused) -> FormatError,
    ) -> std::result::Result<(), RecordFault> {
        self.values.clear();
        rec.values_into(&mut self.values)?;
        check.values(&self.values).map_err(corrupt)?;
        Ok(())
    }

    /// A stack with its own frames: process, frame ids, sample counts.
    #[inline]
    fn stack(
        &mut self,
        rec: &mut RecordBytes<'_>,
        stacks: &mut FlatStacks,
        check: &RecordCheck,
        corrupt: &impl Fn(RecordRefused) -> FormatError,
        each: &mut impl FnMut(FlatItem<'_>),
    ) -> std::result::Result<(), RecordFault> {
        let process = rec.u32()?;
        let largest = rec.u32s_into(&mut stacks.frame_ids)?;
        let own = stacks.close_path();
        let samples = rec.f64s_into(&mut stacks.samples)?;
        let i = stacks.close_stack(process, own, samples) as usize;
        check
            .stack_of_largest(process, largest, self.frames)
            .map_err(corrupt)?;
        each(FlatItem::Path(stacks.path_frames(own)));
        each(FlatItem::Stack {
            process,
            path: self.paths,
            samples: stacks.samples(i),
        });
        self.paths += 1;
        self.stacks_read += 1;
        Ok(())
    }

    /// A call path: frame ids.
    #[inline]
    fn path(
        &mut self,
        rec: &mut RecordBytes<'_>,
        stacks: &mut FlatStacks,
        check: &RecordCheck,
        corrupt: &impl Fn(RecordRefused) -> FormatError,
        each: &mut impl FnMut(FlatItem<'_>),
    ) -> std::result::Result<(), RecordFault> {
        let largest = rec.u32s_into(&mut stacks.frame_ids)?;
        let own = stacks.close_path();
        check
            .path_of_largest(largest, self.frames, self.stacks_read)
            .map_err(corrupt)?;
        self.file_paths += 1;
        each(FlatItem::Path(stacks.path_frames(own)));
        self.paths += 1;
        Ok(())
    }

    /// A stack on a path: process, the step from the path of the stack on
    /// a path before, sample counts. Until it is checked, a step to no
    /// path names `u32::MAX`.
    #[inline]
    fn path_stack(
        &mut self,
        rec: &mut RecordBytes<'_>,
        stacks: &mut FlatStacks,
        check: &RecordCheck,
        corrupt: &impl Fn(RecordRefused) -> FormatError,
        each: &mut impl FnMut(FlatItem<'_>),
    ) -> std::result::Result<(), RecordFault> {
        let process = rec.u32()?;
        let on = path_after(stacks.named, rec.i64()?);
        let samples = rec.f64s_into(&mut stacks.samples)?;
        let i = stacks.close_stack(process, on.unwrap_or(u32::MAX), samples) as usize;
        stacks.named = on.unwrap_or(0);
        check
            .path_stack(process, on, self.file_paths)
            .map_err(corrupt)?;
        each(FlatItem::Stack {
            process,
            path: on.expect("checked: a path"),
            samples: stacks.samples(i),
        });
        self.stacks_read += 1;
        Ok(())
    }
}
