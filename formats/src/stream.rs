//! Sample stream: one file per profiled process, written by the sampler.
//!
//! Records are appended in chunks (see [`crate::container`]). Stacks are
//! deduplicated into a parent-linked table: each [`StackNode`] is one frame
//! plus the id of the node for its caller, so a sample stores a single id and
//! a stack of depth 20 seen a million times is stored once.
//!
//! This file holds the stream's kind; its modules hold the rest, one job
//! each: the header and its events (`header`), the records (`records`),
//! the stack table's interning (`stack_interner`), writing (`writer`),
//! reading chunk by chunk or record by record (`reader`), a whole stream
//! in memory (`whole_stream`) and salvaging a damaged one (`salvage`).

mod header;
mod reader;
mod records;
mod salvage;
mod stack_interner;
mod whole_stream;
mod writer;

pub use header::{is_launcher, is_memory_event, EventDesc, Sampling, StreamHeader};
pub use reader::{decode_chunk, decode_chunk_each, leading_mappings, ChunkSource, StreamReader};
pub(crate) use reader::{decode_or_skip, Pending};
pub use records::{Item, Lost, Mapping, ProcessEnd, Record, Sample, StackNode, ThreadName};
pub use salvage::{salvage_from, salvage_stream, salvage_stream_bytes, Salvage, SalvagedStacks};
pub use stack_interner::StackInterner;
pub use whole_stream::{read_stream, read_stream_bytes, read_stream_recovering, Recovery, Stream};
pub(crate) use writer::SectionOut;
pub use writer::StreamWriter;

use crate::container::Kind;

pub const STREAM: Kind = Kind {
    name: "blame sample stream",
    magic: *b"BLAMESMP",
    version: 1,
};
