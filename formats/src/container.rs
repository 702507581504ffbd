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

use crate::error::{BadChunkHeader, FormatError, Result};
pub(crate) use crate::record_bytes::codec;
pub use crate::record_bytes::MAX_RECORD_MEMORY;
use crate::record_bytes::{RecordBytes, RecordFault};
use bincode::{Decode, Encode};
use std::collections::VecDeque;
use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};

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

/// Appends one value to a payload buffer.
pub(crate) fn encode_into<T: Encode>(buf: &mut Vec<u8>, value: &T) -> Result<()> {
    bincode::encode_into_std_write(value, buf, codec()).map_err(|e| FormatError::Encode {
        context: "record".into(),
        reason: e.to_string(),
    })?;
    Ok(())
}

/// Writes a whole container file atomically (a temporary file beside
/// `path`, renamed into place once complete, so a reader never sees half of
/// it): `header`, then `records`, encoded one at a time (never copied whole)
/// into chunks of about 1 MiB. A file of more than one chunk is compressed
/// and written by a second thread while the next chunk is encoded (a merged
/// result of 10^3 ranks is tens of chunks).
pub fn write_atomic<H: Encode, R: Encode>(
    path: &Path,
    kind: Kind,
    header: &H,
    records: impl IntoIterator<Item = R>,
) -> Result<()> {
    write_atomic_led(path, kind, header, None, records)
}

/// [`write_atomic`] with a chunk of one record, `lead` (its encoded
/// bytes), right after the header: a part of the header that many files
/// share, which their readers can recognize by its compressed bytes
/// without decompressing it (the process table of a run's results).
pub fn write_atomic_led<H: Encode, R: Encode>(
    path: &Path,
    kind: Kind,
    header: &H,
    lead: Option<&[u8]>,
    records: impl IntoIterator<Item = R>,
) -> Result<()> {
    const CHUNK: usize = 1 << 20;
    let file = crate::files::AtomicFile::create(path).map_err(|e| FormatError::io(path, e))?;
    let mut w = ContainerWriter::new(file, path, kind, header)?;
    if let Some(lead) = lead {
        w.write_chunk(lead, 1)?;
    }
    let mut records = records.into_iter();
    // The next chunk's payload and record count; `true` when it is full.
    let mut fill = |buf: &mut Vec<u8>| -> Result<(u32, bool)> {
        let mut count = 0u32;
        for rec in records.by_ref() {
            encode_into(buf, &rec)?;
            count += 1;
            if buf.len() > CHUNK {
                return Ok((count, true));
            }
        }
        Ok((count, false))
    };
    let mut buf = Vec::new();
    let (count, more) = fill(&mut buf)?;
    if !more {
        if count > 0 {
            w.write_chunk(&buf, count)?;
        }
    } else {
        w = std::thread::scope(|scope| -> Result<_> {
            let (to_writer, chunks) = std::sync::mpsc::sync_channel::<(Vec<u8>, u32)>(2);
            let writer = scope.spawn(move || -> Result<_> {
                for (payload, count) in chunks {
                    w.write_chunk(&payload, count)?;
                }
                Ok(w)
            });
            // The first chunk too: it is compressed while the second is
            // encoded (a file of two chunks was written one step at a time).
            let first = to_writer.send((buf, count));
            let encoded = (|| -> Result<()> {
                if first.is_err() {
                    return Ok(());
                }
                loop {
                    let mut buf = Vec::with_capacity(CHUNK + (CHUNK >> 2));
                    let (count, more) = fill(&mut buf)?;
                    // A writer that stopped has its error to tell.
                    if count == 0 || to_writer.send((buf, count)).is_err() || !more {
                        return Ok(());
                    }
                }
            })();
            drop(to_writer);
            let written = writer.join().expect("the chunk writer does not panic");
            encoded?;
            written
        })?;
    }
    w.write_end()?;
    w.flush()?;
    w.into_inner()
        .commit()
        .map_err(|e| FormatError::io(path, e))
}

/// Writes a container: preamble, header chunk, then data chunks.
pub struct ContainerWriter<W: Write> {
    out: W,
    path: PathBuf,
    bytes_written: u64,
    chunks_written: u64,
    level: i32,
}

impl<W: Write> ContainerWriter<W> {
    pub fn new<H: Encode>(
        out: W,
        path: impl Into<PathBuf>,
        kind: Kind,
        header: &H,
    ) -> Result<Self> {
        let mut w = ContainerWriter {
            out,
            path: path.into(),
            bytes_written: 0,
            chunks_written: 0,
            level: 1,
        };
        let mut pre = Vec::with_capacity(PREAMBLE_LEN as usize);
        pre.extend_from_slice(&kind.magic);
        pre.extend_from_slice(&kind.version.to_le_bytes());
        pre.extend_from_slice(&FLAG_END_MARKER.to_le_bytes());
        w.write_raw(&pre)?;
        let mut payload = Vec::new();
        encode_into(&mut payload, header)?;
        w.write_chunk(&payload, 1)?;
        Ok(w)
    }

    /// Compresses and writes one chunk holding `record_count` encoded records.
    pub fn write_chunk(&mut self, payload: &[u8], record_count: u32) -> Result<()> {
        self.write_chunk_prefixed(&[], payload, record_count)
    }

    /// [`Self::write_chunk`] with `prefix` stored uncompressed in front of
    /// the zstd frame: counted in `compressed_len` and covered by the CRC,
    /// so a reader can tell what a chunk is from its first bytes without
    /// decompressing it (the section tag of node files).
    pub fn write_chunk_prefixed(
        &mut self,
        prefix: &[u8],
        payload: &[u8],
        record_count: u32,
    ) -> Result<()> {
        if payload.len() > MAX_CHUNK_BYTES as usize {
            return Err(FormatError::Encode {
                context: self.path.display().to_string(),
                reason: format!(
                    "chunk of {} bytes exceeds the {} byte limit",
                    payload.len(),
                    MAX_CHUNK_BYTES
                ),
            });
        }
        let frame = zstd::bulk::compress(payload, self.level)
            .map_err(|e| FormatError::io(&self.path, e))?;
        let compressed = if prefix.is_empty() {
            frame
        } else {
            [prefix, &frame].concat()
        };
        let mut head = Vec::with_capacity(CHUNK_HEADER_LEN as usize + compressed.len());
        head.extend_from_slice(&CHUNK_MAGIC.to_le_bytes());
        head.extend_from_slice(&(compressed.len() as u32).to_le_bytes());
        head.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        head.extend_from_slice(&record_count.to_le_bytes());
        head.extend_from_slice(&crc32fast::hash(&compressed).to_le_bytes());
        // One write per chunk keeps a torn tail to a single partial chunk.
        head.extend_from_slice(&compressed);
        self.write_raw(&head)?;
        self.chunks_written += 1;
        Ok(())
    }

    /// Appends the end marker (a chunk of zero records): the file is complete.
    /// Write nothing after it.
    pub fn write_end(&mut self) -> Result<()> {
        self.write_chunk(&[], 0)
    }

    fn write_raw(&mut self, bytes: &[u8]) -> Result<()> {
        self.out
            .write_all(bytes)
            .map_err(|e| FormatError::io(&self.path, e))?;
        self.bytes_written += bytes.len() as u64;
        Ok(())
    }

    pub fn flush(&mut self) -> Result<()> {
        self.out.flush().map_err(|e| FormatError::io(&self.path, e))
    }

    pub fn bytes_written(&self) -> u64 {
        self.bytes_written
    }

    pub fn chunks_written(&self) -> u64 {
        self.chunks_written
    }

    pub fn into_inner(self) -> W {
        self.out
    }

    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }
}

/// The fields of a chunk header, checked against the limits.
#[derive(Debug, Clone, Copy)]
pub struct ChunkHeader {
    /// Bytes of the chunk's body after its header (prefix and zstd frame).
    pub clen: u32,
    pub ulen: u32,
    pub count: u32,
    pub crc: u32,
}

impl ChunkHeader {
    /// Parses a chunk header; why it cannot be one otherwise.
    pub fn parse(
        head: &[u8; CHUNK_HEADER_LEN as usize],
    ) -> std::result::Result<ChunkHeader, BadChunkHeader> {
        let field =
            |i: usize| u32::from_le_bytes(head[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
        let (magic, clen, ulen, count, crc) = (field(0), field(1), field(2), field(3), field(4));
        if magic != CHUNK_MAGIC {
            return Err(BadChunkHeader::Marker { found: magic });
        }
        if ulen > MAX_CHUNK_BYTES || clen > MAX_CHUNK_BYTES.saturating_add(1 << 16) {
            return Err(BadChunkHeader::TooLarge {
                ulen,
                clen,
                limit: MAX_CHUNK_BYTES,
            });
        }
        if count as u64 > ulen as u64 {
            return Err(BadChunkHeader::TooManyRecords { count, ulen });
        }
        if count == 0 && ulen != 0 {
            return Err(BadChunkHeader::EndWithPayload { ulen });
        }
        Ok(ChunkHeader {
            clen,
            ulen,
            count,
            crc,
        })
    }
}

/// One decompressed chunk: its position and the records it holds.
pub struct Chunk {
    pub index: u64,
    pub offset: u64,
    pub record_count: u32,
    pub payload: Vec<u8>,
}

impl Chunk {
    /// Decodes every record of the chunk, or fails naming this chunk.
    pub fn decode<T: Decode<()>>(&self, path: &Path) -> Result<Vec<T>> {
        // Never trust the count for allocation: each record takes at least one
        // byte, and a record may be much larger in memory than on disk, so the
        // up-front reservation is capped; the vector grows with what decodes.
        let mut out = Vec::with_capacity(
            (self.record_count as usize)
                .min(self.payload.len())
                .min(4096),
        );
        self.decode_each(path, |value| {
            out.push(value);
            Ok(())
        })?;
        Ok(out)
    }

    /// Decodes the records of the chunk one at a time, straight from the
    /// decompressed bytes, handing each to `each` as it is decoded (no
    /// vector of records). On an error, `each` has seen the records before
    /// the damage: callers that must not use half a chunk keep what they
    /// collect apart until this returns `Ok`. An error of `each` stops
    /// decoding and is returned.
    pub fn decode_each<T: Decode<()>>(
        &self,
        path: &Path,
        mut each: impl FnMut(T) -> Result<()>,
    ) -> Result<()> {
        self.read_records(path, |rec| {
            each(rec.decode()?)?;
            Ok(())
        })
    }

    /// Reads the records of the chunk in place: `each` decodes one record
    /// from the bytes it is lent ([`RecordBytes`]), once per record, and
    /// may refuse it; a record that does not decode, or bytes left over
    /// after the last, are corruption naming this chunk. On an error,
    /// `each` has seen the records before the damage.
    pub fn read_records(
        &self,
        path: &Path,
        mut each: impl FnMut(&mut RecordBytes<'_>) -> std::result::Result<(), RecordFault>,
    ) -> Result<()> {
        let mut rest = RecordBytes::new(&self.payload);
        for i in 0..self.record_count {
            each(&mut rest).map_err(|fault| match fault {
                RecordFault::Decode(e) => {
                    self.corrupt(path, format!("record {i} of {}: {e}", self.record_count))
                }
                RecordFault::Refused(e) => e,
            })?;
        }
        if !rest.rest().is_empty() {
            return Err(self.corrupt(
                path,
                format!(
                    "{} bytes left over after its {} records",
                    rest.rest().len(),
                    self.record_count
                ),
            ));
        }
        Ok(())
    }

    /// The error of a record of this chunk that does not decode or does not fit.
    pub fn corrupt(&self, path: &Path, reason: impl std::fmt::Display) -> FormatError {
        FormatError::CorruptChunk {
            path: path.to_path_buf(),
            chunk: self.index,
            offset: self.offset,
            reason: reason.to_string(),
        }
    }
}

/// Encodes `values` as bincode encodes a `[u32]` (its length, then each
/// value as a varint), in runs of one write each: bincode writes every
/// value through its own call, which costs more than the encoding (a
/// results file holds 10^5–10^7 frame ids).
pub fn encode_u32s<E: bincode::enc::Encoder>(
    encoder: &mut E,
    values: &[u32],
) -> std::result::Result<(), bincode::error::EncodeError> {
    use bincode::enc::write::Writer;
    bincode::Encode::encode(&(values.len() as u64), encoder)?;
    let mut run = [0u8; 5 * 64];
    for block in values.chunks(64) {
        let mut len = 0;
        for &v in block {
            match v {
                0..=250 => {
                    run[len] = v as u8;
                    len += 1;
                }
                251..=0xffff => {
                    run[len] = 251;
                    run[len + 1..len + 3].copy_from_slice(&(v as u16).to_le_bytes());
                    len += 3;
                }
                _ => {
                    run[len] = 252;
                    run[len + 1..len + 5].copy_from_slice(&v.to_le_bytes());
                    len += 5;
                }
            }
        }
        encoder.writer().write(&run[..len])?;
    }
    Ok(())
}

/// Encodes `values` as bincode encodes a `[f64]` (its length, then each
/// value's eight bytes, little endian), in one write per run.
pub fn encode_f64s<E: bincode::enc::Encoder>(
    encoder: &mut E,
    values: &[f64],
) -> std::result::Result<(), bincode::error::EncodeError> {
    use bincode::enc::write::Writer;
    bincode::Encode::encode(&(values.len() as u64), encoder)?;
    let mut run = [0u8; 8 * 16];
    for block in values.chunks(16) {
        for (bytes, v) in run.chunks_exact_mut(8).zip(block) {
            bytes.copy_from_slice(&v.to_le_bytes());
        }
        encoder.writer().write(&run[..8 * block.len()])?;
    }
    Ok(())
}

/// A chunk whose checksum matched, not yet decompressed.
pub struct RawChunk {
    pub index: u64,
    pub offset: u64,
    pub record_count: u32,
    pub uncompressed_len: u32,
    pub compressed: Vec<u8>,
}

impl RawChunk {
    /// Decodes records from the start of the chunk, decompressing only as
    /// far as they are read, until `each` returns `false` or the records
    /// end: for readers that need a chunk's first records only (a stream's
    /// mappings come before its first sample). A damaged chunk is an error.
    pub fn decode_leading<T: Decode<()>>(
        &self,
        path: &Path,
        mut each: impl FnMut(T) -> bool,
    ) -> Result<()> {
        let corrupt = |i: u32, reason: String| FormatError::CorruptChunk {
            path: path.to_path_buf(),
            chunk: self.index,
            offset: self.offset,
            reason: format!("record {i} of {}: {reason}", self.record_count),
        };
        let mut input = std::io::BufReader::new(
            zstd::stream::read::Decoder::with_buffer(&self.compressed[..])
                .map_err(|e| corrupt(0, format!("zstd: {e}")))?,
        );
        for i in 0..self.record_count {
            let value = bincode::decode_from_std_read(&mut input, codec())
                .map_err(|e| corrupt(i, e.to_string()))?;
            if !each(value) {
                break;
            }
        }
        Ok(())
    }

    pub fn decompress(self, path: &Path) -> Result<Chunk> {
        let corrupt = |reason: String| FormatError::CorruptChunk {
            path: path.to_path_buf(),
            chunk: self.index,
            offset: self.offset,
            reason: reason.to_string(),
        };
        let ulen = self.uncompressed_len as usize;
        // The zstd frame states its own size: check it against the chunk
        // header before allocating the output buffer.
        match zstd::zstd_safe::get_frame_content_size(&self.compressed) {
            Ok(Some(n)) if n != ulen as u64 => {
                return Err(corrupt(format!(
                    "zstd frame holds {n} bytes, chunk header says {ulen}"
                )))
            }
            Ok(_) => {}
            Err(_) => return Err(corrupt("zstd: not a zstd frame".into())),
        }
        let mut payload = SPARE_PAYLOAD.with(|spare| spare.take());
        payload.clear();
        payload.reserve(ulen);
        DECOMPRESSOR
            .with(|d| match d.borrow_mut().as_mut() {
                Ok(d) => d.decompress_to_buffer(&self.compressed, &mut payload),
                Err(e) => Err(std::io::Error::new(e.kind(), e.to_string())),
            })
            .map_err(|e| corrupt(format!("zstd: {e}")))?;
        if payload.len() != ulen {
            return Err(corrupt(format!(
                "decompressed to {} bytes, header says {ulen}",
                payload.len()
            )));
        }
        Ok(Chunk {
            index: self.index,
            offset: self.offset,
            record_count: self.record_count,
            payload,
        })
    }
}

/// The largest payload buffer a thread keeps for its next chunk.
const SPARE_PAYLOAD_MAX: usize = 8 << 20;

impl Drop for Chunk {
    /// The payload's memory goes to the thread's next chunk: a merge of
    /// 10^3 parts decompresses two chunks per part, and a buffer of a
    /// chunk's size allocated and freed each time costs glibc a heap
    /// consolidation.
    fn drop(&mut self) {
        if self.payload.capacity() <= SPARE_PAYLOAD_MAX {
            let payload = std::mem::take(&mut self.payload);
            SPARE_PAYLOAD.with(|spare| {
                if spare.borrow().capacity() < payload.capacity() {
                    spare.replace(payload);
                }
            });
        }
    }
}

thread_local! {
    /// The payload buffer of the thread's last chunk (see `Drop for Chunk`).
    static SPARE_PAYLOAD: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };

    /// One zstd decompression context per thread, reused for every chunk:
    /// a context is ~100 KiB, whose allocation and first use cost more than
    /// decompressing a small chunk (a merge of 10^3 partial results
    /// decompresses two small chunks per part).
    static DECOMPRESSOR: std::cell::RefCell<std::io::Result<zstd::bulk::Decompressor<'static>>> =
        std::cell::RefCell::new(zstd::bulk::Decompressor::new());
}

/// Reads a container chunk by chunk from any byte source.
pub struct ContainerReader<R: Read> {
    input: R,
    path: PathBuf,
    offset: u64,
    next_index: u64,
    ended: bool,
    pub version: u32,
    /// The preamble's flags ([`FLAG_END_MARKER`]).
    pub flags: u32,
    /// Bytes given back to be read again before `input` (resynchronisation
    /// after a damaged chunk).
    pushback: VecDeque<u8>,
    /// The bytes of the chunk that just failed to read, from its first
    /// byte: where [`Self::next_raw_chunk_salvaging`] scans from.
    failed: Option<(u64, Vec<u8>)>,
}

/// What [`ContainerReader::next_raw_chunk_salvaging`] found next.
pub enum Salvaged {
    Chunk(RawChunk),
    /// A damaged stretch of the file, skipped.
    Skipped(Skipped),
}

/// A damaged stretch of a file that a salvaging reader skipped.
#[derive(Debug)]
pub struct Skipped {
    /// Byte offset where the damaged chunk starts.
    pub offset: u64,
    /// Where reading resumed: the next chunk with a valid header and
    /// checksum; `None` when no valid chunk follows.
    pub resumed_at: Option<u64>,
    /// What was wrong with the chunk at `offset`.
    pub error: FormatError,
}

impl<R: Read> ContainerReader<R> {
    /// Checks the preamble and returns the reader with the decoded header.
    pub fn open<H: Decode<()>>(
        input: R,
        path: impl Into<PathBuf>,
        kind: Kind,
    ) -> Result<(Self, H)> {
        let (r, chunk) = Self::open_header(input, path, kind, kind.version)?;
        let header = Self::decode_header(&chunk, &r.path)?;
        Ok((r, header))
    }

    /// Decodes the header chunk returned by [`Self::open_header`].
    pub fn decode_header<H: Decode<()>>(chunk: &Chunk, path: &Path) -> Result<H> {
        let mut headers: Vec<H> = chunk.decode(path).map_err(|e| FormatError::CorruptHeader {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        if headers.len() != 1 {
            return Err(FormatError::CorruptHeader {
                path: path.to_path_buf(),
                reason: format!("header chunk holds {} records, expected 1", headers.len()),
            });
        }
        Ok(headers.pop().expect("one header"))
    }

    /// Checks the preamble, accepting versions `oldest..=kind.version`
    /// (`self.version` says which), and returns the header chunk undecoded:
    /// the header's type depends on the version.
    pub fn open_header(
        input: R,
        path: impl Into<PathBuf>,
        kind: Kind,
        oldest: u32,
    ) -> Result<(Self, Chunk)> {
        let mut r = ContainerReader {
            input,
            path: path.into(),
            offset: 0,
            next_index: 0,
            ended: false,
            version: 0,
            flags: 0,
            pushback: VecDeque::new(),
            failed: None,
        };
        let mut pre = [0u8; PREAMBLE_LEN as usize];
        let got = r.read_up_to(&mut pre)?;
        let magic: [u8; 8] = pre[0..8].try_into().expect("8 bytes");
        // A short file that does not even start like the magic is the wrong
        // file, not a truncated one.
        let seen = got.min(8);
        if magic[..seen] != kind.magic[..seen] {
            return Err(FormatError::WrongMagic {
                path: r.path.clone(),
                expected: kind.name,
                found: magic,
            });
        }
        if got < pre.len() {
            return Err(FormatError::Truncated {
                path: r.path.clone(),
                offset: got as u64,
                what: "file preamble (magic and version) incomplete".into(),
            });
        }
        if magic != kind.magic {
            return Err(FormatError::WrongMagic {
                path: r.path.clone(),
                expected: kind.name,
                found: magic,
            });
        }
        r.version = u32::from_le_bytes(pre[8..12].try_into().expect("4 bytes"));
        r.flags = u32::from_le_bytes(pre[12..16].try_into().expect("4 bytes"));
        if r.version > kind.version || r.version < oldest {
            return Err(FormatError::UnsupportedVersion {
                path: r.path.clone(),
                kind: kind.name,
                found: r.version,
                supported: kind.version,
            });
        }
        let header_chunk = match r.next_chunk() {
            Ok(Some(c)) => c,
            Ok(None) if r.ended => {
                return Err(FormatError::CorruptHeader {
                    path: r.path.clone(),
                    reason: "end marker where the header chunk should be".into(),
                })
            }
            Ok(None) => {
                return Err(FormatError::Truncated {
                    path: r.path.clone(),
                    offset: r.offset,
                    what: "the header chunk is missing".into(),
                })
            }
            Err(FormatError::CorruptChunk { reason, .. }) => {
                return Err(FormatError::CorruptHeader {
                    path: r.path.clone(),
                    reason,
                })
            }
            Err(e) => return Err(e),
        };
        Ok((r, header_chunk))
    }

    /// A reader of the chunks of a container whose preamble was read
    /// elsewhere (`version`, `flags`), positioned so that `input`'s next byte
    /// is byte `offset` of the file: readers that walk chunk headers
    /// themselves resume here after damage.
    pub fn resume_at(
        input: R,
        path: impl Into<PathBuf>,
        offset: u64,
        version: u32,
        flags: u32,
    ) -> Self {
        ContainerReader {
            input,
            path: path.into(),
            offset,
            next_index: 0,
            ended: false,
            version,
            flags,
            pushback: VecDeque::new(),
            failed: None,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Byte offset just past the last complete chunk read.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// True once the end marker was read: the writer finished the file.
    pub fn saw_end(&self) -> bool {
        self.ended
    }

    /// True when the writer promised an end marker ([`FLAG_END_MARKER`]):
    /// a file without one was cut short. Files of older writers lack both.
    pub fn end_marker_expected(&self) -> bool {
        self.flags & FLAG_END_MARKER != 0
    }

    /// For whole-file formats: fails with [`FormatError::Truncated`] unless
    /// the end marker was read (call after `next_chunk` returned `None`).
    pub fn require_end(&self) -> Result<()> {
        if self.ended {
            return Ok(());
        }
        Err(FormatError::Truncated {
            path: self.path.clone(),
            offset: self.offset,
            what: format!(
                "the file ends after chunk {} without its end marker; it was cut short \
                 (copy it again or re-create it)",
                self.next_index.saturating_sub(1)
            ),
        })
    }

    /// The next chunk, `None` at a clean end of file or at the end marker.
    pub fn next_chunk(&mut self) -> Result<Option<Chunk>> {
        match self.next_raw_chunk()? {
            None => Ok(None),
            Some(raw) => raw.decompress(&self.path).map(Some),
        }
    }

    /// The next chunk with its checksum verified but still compressed, so
    /// callers can decompress several chunks in parallel.
    pub fn next_raw_chunk(&mut self) -> Result<Option<RawChunk>> {
        if self.ended {
            return Ok(None);
        }
        self.failed = None;
        let start = self.offset;
        let mut head = [0u8; CHUNK_HEADER_LEN as usize];
        let got = self.read_up_to(&mut head)?;
        if got == 0 {
            return Ok(None);
        }
        if got < head.len() {
            self.failed = Some((start, head[..got].to_vec()));
            return Err(self.truncated(
                start,
                format!(
                    "chunk {} header ({} of {} bytes present)",
                    self.next_index,
                    got,
                    head.len()
                ),
            ));
        }
        let index = self.next_index;
        let corrupt = |path: &Path, reason: String| FormatError::CorruptChunk {
            path: path.to_path_buf(),
            chunk: index,
            offset: start,
            reason,
        };
        let h = match ChunkHeader::parse(&head) {
            Ok(h) => h,
            Err(reason) => {
                self.failed = Some((start, head.to_vec()));
                return Err(corrupt(&self.path, reason.to_string()));
            }
        };
        let compressed = self.read_body(h.clen)?;
        if compressed.len() < h.clen as usize {
            let got = compressed.len();
            self.failed = Some((start, [&head[..], &compressed].concat()));
            return Err(self.truncated(
                start,
                format!("chunk {index} body ({got} of {} bytes present)", h.clen),
            ));
        }
        // Fuzzing builds skip the checksum so mutated inputs reach the decoders.
        if !cfg!(fuzzing) && crc32fast::hash(&compressed) != h.crc {
            self.failed = Some((start, [&head[..], &compressed].concat()));
            return Err(corrupt(&self.path, "checksum mismatch".into()));
        }
        self.next_index += 1;
        if h.count == 0 {
            // The end marker: nothing may follow it.
            let mut probe = [0u8; 1];
            self.ended = true;
            if self.read_up_to(&mut probe)? != 0 {
                return Err(FormatError::CorruptChunk {
                    path: self.path.clone(),
                    chunk: index + 1,
                    offset: self.offset - 1,
                    reason: "data after the end marker".into(),
                });
            }
            return Ok(None);
        }
        Ok(Some(RawChunk {
            index,
            offset: start,
            record_count: h.count,
            uncompressed_len: h.ulen,
            compressed,
        }))
    }

    /// [`Self::next_raw_chunk`] for readers that keep what is intact of a
    /// damaged file: a chunk that is corrupt (bad marker, sizes, checksum)
    /// or whose length runs past the end of the file is skipped, and reading
    /// resumes at the next chunk whose header and checksum are valid. A cut
    /// with no valid chunk after it (a torn tail) is still the `Truncated`
    /// error: everything before it was read. I/O errors stay errors.
    pub fn next_raw_chunk_salvaging(&mut self) -> Result<Option<Salvaged>> {
        match self.next_raw_chunk() {
            Ok(chunk) => Ok(chunk.map(Salvaged::Chunk)),
            Err(error @ (FormatError::CorruptChunk { .. } | FormatError::Truncated { .. })) => {
                let Some((start, bytes)) = self.failed.take() else {
                    // Data after the end marker: the file itself is whole.
                    let offset = self.offset;
                    self.skip_rest()?;
                    return Ok(Some(Salvaged::Skipped(Skipped {
                        offset,
                        resumed_at: None,
                        error,
                    })));
                };
                let resumed_at = self.resync(start, bytes)?;
                if resumed_at.is_none() && error.is_truncation() {
                    // A torn tail: nothing valid after the cut.
                    return Err(error);
                }
                // The chunk index is unknown past damage; count on.
                self.next_index += 1;
                Ok(Some(Salvaged::Skipped(Skipped {
                    offset: start,
                    resumed_at,
                    error,
                })))
            }
            Err(e) => Err(e),
        }
    }

    /// Scans from one byte past `start` (the failed chunk, whose bytes read
    /// so far are `bytes`) for the next chunk with a sane header and a
    /// matching checksum, and leaves the reader there.
    fn resync(&mut self, start: u64, bytes: Vec<u8>) -> Result<Option<u64>> {
        self.give_back(&bytes[1.min(bytes.len())..]);
        debug_assert_eq!(self.offset, start + 1.min(bytes.len() as u64));
        let mut window = [0u8; 4];
        let mut seen = 0usize;
        loop {
            let mut byte = [0u8; 1];
            if self.read_up_to(&mut byte)? == 0 {
                return Ok(None);
            }
            window.rotate_left(1);
            window[3] = byte[0];
            seen += 1;
            if seen < 4 || u32::from_le_bytes(window) != CHUNK_MAGIC {
                continue;
            }
            let candidate = self.offset - 4;
            let mut rest = [0u8; CHUNK_HEADER_LEN as usize - 4];
            let got = self.read_up_to(&mut rest)?;
            let mut taken = rest[..got].to_vec();
            let mut head = [0u8; CHUNK_HEADER_LEN as usize];
            head[..4].copy_from_slice(&window);
            head[4..4 + got].copy_from_slice(&rest[..got]);
            let valid = got == rest.len()
                && match ChunkHeader::parse(&head) {
                    Ok(h) => {
                        let body = self.read_body(h.clen)?;
                        let ok = body.len() == h.clen as usize
                            && (cfg!(fuzzing) || crc32fast::hash(&body) == h.crc);
                        taken.extend_from_slice(&body);
                        ok
                    }
                    Err(_) => false,
                };
            if valid {
                self.give_back(&[&window[..], &taken].concat());
                return Ok(Some(candidate));
            }
            // "CHNK" cannot overlap itself: scan on after these four bytes.
            self.give_back(&taken);
            seen = 0;
        }
    }

    /// Reads and drops the rest of the input.
    fn skip_rest(&mut self) -> Result<()> {
        self.pushback.clear();
        let n = std::io::copy(&mut self.input, &mut std::io::sink())
            .map_err(|e| FormatError::io(&self.path, e))?;
        self.offset += n;
        Ok(())
    }

    /// Up to `len` bytes (fewer at the end of the file), without allocating
    /// `len` up front: a corrupt length reads what is there, no more.
    fn read_body(&mut self, len: u32) -> Result<Vec<u8>> {
        let len = len as usize;
        let from_pushback = len.min(self.pushback.len());
        let mut out: Vec<u8> = self.pushback.drain(..from_pushback).collect();
        self.offset += from_pushback as u64;
        if out.len() < len {
            // Room for the body (read_to_end would grow a vector from a
            // few bytes, moving it each time); a corrupt length claims at
            // most a MiB before the bytes are there.
            out.reserve((len - out.len()).min(1 << 20));
            let got = (&mut self.input)
                .take((len - out.len()) as u64)
                .read_to_end(&mut out)
                .map_err(|e| FormatError::io(&self.path, e))?;
            self.offset += got as u64;
        }
        Ok(out)
    }

    /// Puts `bytes` back in front of the unread input.
    fn give_back(&mut self, bytes: &[u8]) {
        for &b in bytes.iter().rev() {
            self.pushback.push_front(b);
        }
        self.offset -= bytes.len() as u64;
    }

    fn truncated(&self, chunk_start: u64, what: String) -> FormatError {
        FormatError::Truncated {
            path: self.path.clone(),
            offset: chunk_start,
            what: format!("incomplete {what}; everything before byte {chunk_start} is intact"),
        }
    }

    fn read_up_to(&mut self, buf: &mut [u8]) -> Result<usize> {
        let mut filled = 0;
        while filled < buf.len() && !self.pushback.is_empty() {
            buf[filled] = self.pushback.pop_front().expect("not empty");
            filled += 1;
        }
        while filled < buf.len() {
            match self.input.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(FormatError::io(&self.path, e)),
            }
        }
        self.offset += filled as u64;
        Ok(filled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Slices encoded in runs are bincode's bytes, in every varint form
    /// and across runs.
    #[test]
    fn slices_encode_as_bincode_encodes_them() {
        struct Runs<'a>(&'a [u32], &'a [f64]);
        impl bincode::Encode for Runs<'_> {
            fn encode<E: bincode::enc::Encoder>(
                &self,
                e: &mut E,
            ) -> std::result::Result<(), bincode::error::EncodeError> {
                encode_u32s(e, self.0)?;
                encode_f64s(e, self.1)
            }
        }
        let ids: Vec<u32> = (0..300u32)
            .map(|i| match i % 7 {
                0 => 250,
                1 => 251,
                2 => 65_535,
                3 => 65_536,
                4 => u32::MAX,
                _ => i,
            })
            .collect();
        let values: Vec<f64> = (0..40).map(|i| i as f64 * -0.75).collect();
        for n in [0, 1, 63, 64, 65, 300] {
            let (ids, values) = (&ids[..n], &values[..n.min(40)]);
            let ours = bincode::encode_to_vec(Runs(ids, values), codec()).unwrap();
            let theirs = bincode::encode_to_vec((ids, values), codec()).unwrap();
            assert_eq!(ours, theirs, "{n} values");
        }
    }
}
