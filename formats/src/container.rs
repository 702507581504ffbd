//! The chunked container every binary blame file uses.
//!
//! ```text
//! file   := preamble header-chunk chunk* [end-marker]
//! preamble := magic[8] version:u32le flags:u32le            (16 bytes)
//! chunk  := "CHNK":u32le compressed_len:u32le uncompressed_len:u32le
//!           record_count:u32le crc32(compressed):u32le zstd-frame[compressed_len]
//! ```
//!
//! A chunk's payload is `record_count` bincode values (varint, little endian).
//! Chunks are independent, so a writer that dies loses at most the chunk it was
//! filling, and a reader stops at the last complete chunk of a torn file.
//!
//! A writer that finishes cleanly appends an *end marker*: a chunk with zero
//! records and an empty payload ([`ContainerWriter::write_end`]). Nothing may
//! follow it. Whole-file formats (static db, results) require it, so a file
//! cut exactly at a chunk boundary is reported as truncated instead of being
//! read as a smaller, wrong, result. Writers set [`FLAG_END_MARKER`] in the
//! preamble, so a reader can tell a file cut short from one written before
//! writers finished files with the marker (sample streams of blame 0.1).
//!
//! Readers that must keep what is intact of a damaged file (post-processing
//! of sample streams) use [`ContainerReader::next_raw_chunk_salvaging`]: a
//! damaged chunk is skipped and reading resumes at the next chunk whose
//! header and checksum are valid.
//!
//! This file holds the layout's constants and [`Kind`]; its modules hold
//! the rest, one job each: encoding values into payloads (`encoding`),
//! writing a container (`writer`), chunks parsed, decompressed and decoded
//! (`chunk`) and reading a container, salvaging included (`reader`).

mod chunk;
mod encoding;
mod reader;
mod writer;

pub use chunk::{Chunk, ChunkHeader, RawChunk};
pub(crate) use encoding::encode_into;
pub use encoding::{encode_f64s, encode_u32s};
pub use reader::{ContainerReader, Salvaged, Skipped};
pub use writer::{write_atomic, write_atomic_led, ContainerWriter};

pub(crate) use crate::record_bytes::codec;
pub use crate::record_bytes::MAX_RECORD_MEMORY;

pub const CHUNK_MAGIC: u32 = u32::from_le_bytes(*b"CHNK");
pub const PREAMBLE_LEN: u64 = 16;
pub const CHUNK_HEADER_LEN: u64 = 20;
/// No chunk may claim more than this many uncompressed bytes; a larger claim
/// is corruption, never an allocation.
pub const MAX_CHUNK_BYTES: u32 = 64 << 20;
/// Preamble flag: the writer ends the file with an end marker. Files
/// without it (sample streams of blame 0.1) cannot tell a cut from an end.
pub const FLAG_END_MARKER: u32 = 1;

/// What kind of file a container holds: its magic and the version this build writes.
#[derive(Debug, Clone, Copy)]
pub struct Kind {
    pub name: &'static str,
    pub magic: [u8; 8],
    pub version: u32,
}
