//! Reading a sample stream: record by record ([`StreamReader`]), chunk by
//! chunk wherever the chunks are stored ([`ChunkSource`]: a stream file or
//! a node file's section), damaged chunks skipped when salvaging, a chunk's
//! records decoded with absolute sample times ([`decode_chunk_each`]), and
//! the mappings before a stream's first sample ([`leading_mappings`]).

use super::header::StreamHeader;
use super::records::{Item, Mapping, Record, Sample, WireRecord};
use super::STREAM;
use crate::container::{ContainerReader, RawChunk, Salvaged, Skipped};
use crate::error::{FormatError, Result};
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

/// Reads a sample stream record by record.
pub struct StreamReader<R: Read> {
    pub(super) container: ContainerReader<R>,
    pending: Pending,
}

/// The decoded records of the chunk being handed out, one by one, with
/// absolute sample times.
#[derive(Default)]
pub(crate) struct Pending {
    records: std::vec::IntoIter<WireRecord>,
    last_time: u64,
    records_read: u64,
}

impl Pending {
    pub(crate) fn next(&mut self) -> Option<Record> {
        let wire = self.records.next()?;
        self.records_read += 1;
        Some(from_wire(wire, &mut self.last_time))
    }

    /// The records of the next chunk (sample times restart in each chunk).
    pub(crate) fn load(&mut self, records: Vec<WireRecord>) {
        self.records = records.into_iter();
        self.last_time = 0;
    }

    pub(crate) fn records_read(&self) -> u64 {
        self.records_read
    }
}

/// Decodes an intact chunk's records; a chunk that does not decompress or
/// decode is a damaged stretch, skipped (reading resumes at `next_offset`).
pub(crate) fn decode_or_skip(
    chunk: RawChunk,
    path: &Path,
    next_offset: u64,
) -> std::result::Result<Vec<WireRecord>, Skipped> {
    let offset = chunk.offset;
    chunk
        .decompress(path)
        .and_then(|c| c.decode::<WireRecord>(path))
        .map_err(|error| Skipped {
            offset,
            resumed_at: Some(next_offset),
            error,
        })
}

/// The chunks of one process's stream, wherever they are stored: a stream
/// file ([`StreamReader`]) or a section of a node file
/// ([`crate::node_file::SectionReader`]). What post-processing, `blame
/// dump` and `blame check` read.
pub trait ChunkSource {
    /// The next intact chunk, undecoded, or the next damaged stretch.
    /// `Ok(None)` at the end; a torn tail is the `Truncated` error.
    fn next_chunk_salvaging(&mut self) -> Result<Option<Salvaged>>;
    /// The next record of an intact chunk, or the next damaged stretch.
    /// Do not mix with `next_chunk_salvaging` on the same source.
    fn next_item_salvaging(&mut self) -> Result<Option<Item>>;
    /// The file (and, for a section, which process in it) for messages.
    fn path(&self) -> &Path;
    /// Byte offset just past the last chunk read.
    fn offset(&self) -> u64;
    /// The writer closed this stream (end marker, or section close).
    fn complete(&self) -> bool;
    /// The writer promised to close it: not closed means cut short.
    fn end_marker_expected(&self) -> bool;
    fn records_read(&self) -> u64;
}

impl<R: Read> ChunkSource for StreamReader<R> {
    fn next_chunk_salvaging(&mut self) -> Result<Option<Salvaged>> {
        StreamReader::next_chunk_salvaging(self)
    }
    fn next_item_salvaging(&mut self) -> Result<Option<Item>> {
        StreamReader::next_item_salvaging(self)
    }
    fn path(&self) -> &Path {
        StreamReader::path(self)
    }
    fn offset(&self) -> u64 {
        StreamReader::offset(self)
    }
    fn complete(&self) -> bool {
        StreamReader::complete(self)
    }
    fn end_marker_expected(&self) -> bool {
        StreamReader::end_marker_expected(self)
    }
    fn records_read(&self) -> u64 {
        StreamReader::records_read(self)
    }
}

impl StreamReader<BufReader<File>> {
    pub fn open(path: impl AsRef<Path>) -> Result<(Self, StreamHeader)> {
        let path = path.as_ref();
        let file = crate::files::open_regular(path).map_err(|e| FormatError::io(path, e))?;
        Self::new(BufReader::new(file), path)
    }
}

impl<R: Read> StreamReader<R> {
    pub fn new(input: R, path: impl Into<PathBuf>) -> Result<(Self, StreamHeader)> {
        let (container, header) = ContainerReader::open(input, path, STREAM)?;
        Ok((
            StreamReader {
                container,
                pending: Pending::default(),
            },
            header,
        ))
    }

    /// The next record, `Ok(None)` at a clean end.
    pub fn next_record(&mut self) -> Result<Option<Record>> {
        loop {
            if let Some(record) = self.pending.next() {
                return Ok(Some(record));
            }
            match self.container.next_chunk()? {
                None => return Ok(None),
                Some(chunk) => {
                    // Decode the whole chunk before handing any of it out: a
                    // corrupt chunk yields an error, never half its records.
                    self.pending.load(chunk.decode(self.container.path())?);
                }
            }
        }
    }

    /// The next undecoded chunk, for readers that decode chunks in parallel
    /// with [`decode_chunk`] (chunks are independent). Do not mix with
    /// [`Self::next_record`] on the same reader.
    pub fn next_chunk(&mut self) -> Result<Option<RawChunk>> {
        self.container.next_raw_chunk()
    }

    /// The next record of an intact chunk, or the next damaged stretch,
    /// skipped (a chunk that is corrupt, or intact but does not decode).
    /// `Ok(None)` at the end; a torn tail is the `Truncated` error, after
    /// every record before it. Do not mix with [`Self::next_record`].
    pub fn next_item_salvaging(&mut self) -> Result<Option<Item>> {
        loop {
            if let Some(record) = self.pending.next() {
                return Ok(Some(Item::Record(record)));
            }
            let chunk = match self.container.next_raw_chunk_salvaging()? {
                None => return Ok(None),
                Some(Salvaged::Skipped(skip)) => return Ok(Some(Item::Skipped(skip))),
                Some(Salvaged::Chunk(c)) => c,
            };
            match decode_or_skip(chunk, self.container.path(), self.container.offset()) {
                Ok(records) => self.pending.load(records),
                Err(skip) => return Ok(Some(Item::Skipped(skip))),
            }
        }
    }

    /// [`Self::next_chunk`], skipping damaged chunks (see
    /// [`ContainerReader::next_raw_chunk_salvaging`]).
    pub fn next_chunk_salvaging(&mut self) -> Result<Option<Salvaged>> {
        self.container.next_raw_chunk_salvaging()
    }

    pub fn path(&self) -> &Path {
        self.container.path()
    }

    /// Byte offset just past the last chunk read.
    pub fn offset(&self) -> u64 {
        self.container.offset()
    }

    /// True when the writer ends its streams with an end marker (every
    /// stream written since blame 0.2): a stream without one was cut short.
    pub fn end_marker_expected(&self) -> bool {
        self.container.end_marker_expected()
    }

    pub fn records_read(&self) -> u64 {
        self.pending.records_read()
    }

    /// True once the end marker written by [`StreamWriter::finish`](crate::stream::StreamWriter::finish) was read:
    /// the recording of this process was closed cleanly.
    pub fn complete(&self) -> bool {
        self.container.saw_end()
    }
}

fn from_wire(wire: WireRecord, last_time: &mut u64) -> Record {
    match wire {
        WireRecord::Mapping(m) => Record::Mapping(m),
        WireRecord::Thread(t) => Record::Thread(t),
        WireRecord::Stack(s) => Record::Stack(s),
        WireRecord::Lost(l) => Record::Lost(l),
        WireRecord::Exec { command } => Record::Exec { command },
        WireRecord::End(e) => Record::End(e),
        WireRecord::Sample(e) => {
            *last_time = last_time.wrapping_add(e.time_delta_ns as u64);
            Record::Sample(Sample {
                tid: e.tid,
                time_ns: *last_time,
                event: e.event,
                weight: e.weight,
                stack: e.stack,
                data_address: e.data_address,
            })
        }
    }
}

/// Decompresses and decodes every record of one chunk of a sample stream
/// (see [`StreamReader::next_chunk`]).
pub fn decode_chunk(chunk: RawChunk, path: &Path) -> Result<Vec<Record>> {
    let mut out = Vec::with_capacity((chunk.record_count as usize).min(4096));
    decode_chunk_each(chunk, path, |r| out.push(r))?;
    Ok(out)
}

/// Decompresses one chunk of a sample stream and hands its records to
/// `each` one at a time as they are decoded, without a vector of records:
/// what post-processing's first pass uses. On an error `each` has seen the
/// records before the damage, so a caller that must not use half a chunk
/// keeps what it collects apart until this returns `Ok`.
pub fn decode_chunk_each(chunk: RawChunk, path: &Path, mut each: impl FnMut(Record)) -> Result<()> {
    let chunk = chunk.decompress(path)?;
    let mut last_time = 0;
    chunk.decode_each::<WireRecord>(path, |w| {
        each(from_wire(w, &mut last_time));
        Ok(())
    })
}

/// The mappings a stream's first chunk holds before its first sample,
/// decompressing and decoding no further than that sample: what a reader
/// needs to open the debug info of the process's binaries early. Empty when
/// the first chunk is damaged.
pub fn leading_mappings(reader: &mut dyn ChunkSource) -> Vec<Mapping> {
    let mut mappings = Vec::new();
    if let Ok(Some(Salvaged::Chunk(c))) = reader.next_chunk_salvaging() {
        let path = reader.path().to_path_buf();
        let _ = c.decode_leading::<WireRecord>(&path, |w| match w {
            WireRecord::Mapping(m) => {
                mappings.push(m);
                true
            }
            WireRecord::Sample(_) => false,
            _ => true,
        });
    }
    mappings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::StreamWriter;

    /// The mappings before the first sample are read without decoding the
    /// rest of the chunk, and a later mapping (a `dlopen` after samples
    /// began) is not among them.
    #[test]
    fn leading_mappings_stop_at_the_first_sample() {
        let header = crate::node_file::tests::header(1, None);
        let mapping = |start: u64| Mapping {
            pid: 1,
            start,
            end: start + 0x1000,
            file_offset: 0,
            path: format!("/lib{start:x}.so"),
            build_id: vec![],
        };
        let mut w = StreamWriter::new(Vec::new(), "<t>", &header).unwrap();
        w.write_mapping(mapping(0x1000)).unwrap();
        w.write_mapping(mapping(0x4000)).unwrap();
        for i in 0..5000u64 {
            w.write_sample_with_stack(1, i, 0, 1, &[0x1010, 0x4020 + i % 7], None)
                .unwrap();
        }
        w.write_mapping(mapping(0x9000)).unwrap();
        let bytes = w.finish().unwrap();
        let (mut r, _) = StreamReader::new(&bytes[..], "<t>").unwrap();
        let got = leading_mappings(&mut r);
        assert_eq!(got, vec![mapping(0x1000), mapping(0x4000)]);
    }
}
