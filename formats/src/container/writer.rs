//! Writing a container: preamble, header chunk, then data chunks, each
//! compressed and written in one write ([`ContainerWriter`]); whole files
//! written atomically, compressed on a second thread while the next chunk
//! is encoded ([`write_atomic`], [`write_atomic_led`]).

use super::encoding::encode_into;
use super::{Kind, CHUNK_HEADER_LEN, CHUNK_MAGIC, FLAG_END_MARKER, MAX_CHUNK_BYTES, PREAMBLE_LEN};
use crate::error::{FormatError, Result};
use bincode::Encode;
use std::io::Write;
use std::path::{Path, PathBuf};

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
