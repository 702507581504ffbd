//! Reading a container chunk by chunk from any byte source
//! ([`ContainerReader`]): the preamble and header checked, chunks read
//! whole or raw, a torn tail told apart from an end, and a damaged chunk
//! skipped with reading resumed at the next valid one ([`Salvaged`],
//! [`Skipped`]).

use super::chunk::{Chunk, ChunkHeader, RawChunk};
use super::{Kind, CHUNK_HEADER_LEN, CHUNK_MAGIC, FLAG_END_MARKER, PREAMBLE_LEN};
use crate::error::{FormatError, Result};
use bincode::Decode;
use std::collections::VecDeque;
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};

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
