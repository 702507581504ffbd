//! Where every section of a node file is ([`NodeIndex`], a
//! [`SectionInfo`] per process image), found by walking chunk headers with
//! bodies skipped and damage resynchronised; the index opens each
//! section's reader.

use super::read_at::{read_full_at, ReadAt, ReadFrom};
use super::section_chunk::{read_open_chunk, ChunkRef};
use super::section_reader::SectionReader;
use super::{parse_tag, NodeHeader, KIND_CLOSE, KIND_OPEN, NODE, SECTION_TAG_LEN};
use crate::container::{ChunkHeader, ContainerReader, Salvaged, Skipped, CHUNK_HEADER_LEN};
use crate::error::{FormatError, Result};
use crate::stream::{Pending, StreamHeader};
use std::collections::HashMap;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

/// One process image's section of a node file.
#[derive(Debug, Clone)]
pub struct SectionInfo {
    pub section: u32,
    /// The process's stream header; `None` when its open chunk is damaged
    /// (the section's records cannot be read without it).
    pub header: Option<StreamHeader>,
    /// The section's chunks after its open chunk, in file order.
    pub chunks: Vec<ChunkRef>,
}

impl SectionInfo {
    /// `rank-N` for an MPI rank, else `pid-N`: what a stream file of this
    /// process would have been named.
    pub fn label(&self) -> String {
        match &self.header {
            Some(h) => match h.rank {
                Some(r) => format!("rank-{r}"),
                None => format!("pid-{}", h.pid),
            },
            None => format!("section-{}", self.section),
        }
    }

    /// The close chunk is present (not checked for damage).
    pub fn closed(&self) -> bool {
        self.chunks.last().is_some_and(|c| c.kind == KIND_CLOSE)
    }

    /// Bytes of the section's chunks after its open chunk.
    pub fn bytes(&self) -> u64 {
        self.chunks
            .iter()
            .map(|c| CHUNK_HEADER_LEN + c.header.clen as u64)
            .sum()
    }
}

/// Where every section of a node file is, found by walking chunk headers.
#[derive(Debug)]
pub struct NodeIndex {
    pub path: PathBuf,
    pub header: NodeHeader,
    /// In the order the recorder opened them.
    pub sections: Vec<SectionInfo>,
    /// Damaged stretches the walk skipped (their sections, unknown here,
    /// see the gaps when they read their chunks).
    pub damage: Vec<Skipped>,
    /// A torn last chunk: where the intact part of the file ends, and why.
    pub torn_at: Option<(u64, String)>,
    /// The file ends with its end marker: the recorder closed it.
    pub complete: bool,
    /// The file's length when it was walked.
    pub bytes: u64,
}

impl NodeIndex {
    /// Walks the node file at `path`. Only a damaged preamble or header
    /// chunk is an error; other damage is listed in the index.
    pub fn open(path: impl AsRef<Path>) -> Result<NodeIndex> {
        let path = path.as_ref();
        let file = crate::files::open_regular(path).map_err(|e| FormatError::io(path, e))?;
        Self::scan(&file, path)
    }

    /// [`Self::open`] over any positioned input.
    pub fn scan<R: ReadAt>(src: &R, path: impl Into<PathBuf>) -> Result<NodeIndex> {
        let path = path.into();
        let size = src.size().map_err(|e| FormatError::io(&path, e))?;
        let (reader, chunk) = ContainerReader::open_header(
            BufReader::new(ReadFrom { src, pos: 0 }),
            &path,
            NODE,
            NODE.version,
        )?;
        let header: NodeHeader = ContainerReader::<&[u8]>::decode_header(&chunk, &path)?;
        let (version, flags) = (reader.version, reader.flags);
        let mut index = NodeIndex {
            path,
            header,
            sections: Vec::new(),
            damage: Vec::new(),
            torn_at: None,
            complete: false,
            bytes: size,
        };
        let mut by_id: HashMap<u32, usize> = HashMap::new();
        let mut at = reader.offset();
        let mut head = [0u8; CHUNK_HEADER_LEN as usize + SECTION_TAG_LEN];
        while at < size {
            let got =
                read_full_at(src, &mut head, at).map_err(|e| FormatError::io(&index.path, e))?;
            let parsed = (got >= CHUNK_HEADER_LEN as usize)
                .then(|| {
                    ChunkHeader::parse(head[..CHUNK_HEADER_LEN as usize].try_into().expect("20"))
                        .ok()
                })
                .flatten();
            let Some(h) = parsed else {
                match index.resync(src, at, version, flags)? {
                    Some(next) => {
                        at = next;
                        continue;
                    }
                    None => break,
                }
            };
            let end = at + CHUNK_HEADER_LEN + h.clen as u64;
            if h.count == 0 {
                // The end marker: nothing may follow it.
                index.complete = true;
                if end != size {
                    index.damage.push(Skipped {
                        offset: end,
                        resumed_at: None,
                        error: FormatError::CorruptChunk {
                            path: index.path.clone(),
                            chunk: 0,
                            offset: end,
                            reason: "data after the end marker".into(),
                        },
                    });
                }
                break;
            }
            if end > size || (h.clen as usize) < SECTION_TAG_LEN || got < head.len() {
                // Runs past the end (a torn tail, or a damaged length) or
                // too short for a section chunk: the container decides.
                match index.resync(src, at, version, flags)? {
                    Some(next) => {
                        at = next;
                        continue;
                    }
                    None => break,
                }
            }
            let (section, seq, kind) = parse_tag(&head[CHUNK_HEADER_LEN as usize..]);
            let slot = *by_id.entry(section).or_insert_with(|| {
                index.sections.push(SectionInfo {
                    section,
                    header: None,
                    chunks: Vec::new(),
                });
                index.sections.len() - 1
            });
            let chunk = ChunkRef {
                offset: at,
                header: h,
                seq,
                kind,
            };
            if kind == KIND_OPEN && seq == 0 && index.sections[slot].header.is_none() {
                match read_open_chunk(src, &index.path, &chunk) {
                    Ok(header) => index.sections[slot].header = Some(header),
                    Err(skip) => index.damage.push(skip),
                }
            } else {
                index.sections[slot].chunks.push(chunk);
            }
            at = end;
        }
        Ok(index)
    }

    /// Skips the damaged chunk at `at` the way the container's salvaging
    /// reader does; where reading resumes, `None` at the end.
    fn resync<R: ReadAt>(
        &mut self,
        src: &R,
        at: u64,
        version: u32,
        flags: u32,
    ) -> Result<Option<u64>> {
        let mut reader = ContainerReader::resume_at(
            BufReader::new(ReadFrom { src, pos: at }),
            &self.path,
            at,
            version,
            flags,
        );
        match reader.next_raw_chunk_salvaging() {
            Ok(Some(Salvaged::Skipped(skip))) => {
                let next = skip.resumed_at;
                self.damage.push(skip);
                Ok(next)
            }
            Ok(Some(Salvaged::Chunk(_))) => {
                // A whole chunk, but too short to carry a section tag.
                let next = reader.offset();
                self.damage.push(Skipped {
                    offset: at,
                    resumed_at: Some(next),
                    error: FormatError::CorruptChunk {
                        path: self.path.clone(),
                        chunk: 0,
                        offset: at,
                        reason: "a chunk without a section tag".into(),
                    },
                });
                Ok(Some(next))
            }
            Ok(None) => {
                self.complete = reader.saw_end();
                Ok(None)
            }
            Err(FormatError::Truncated { offset, what, .. }) => {
                self.torn_at = Some((offset, what));
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// The reader of section `i` (an index into `sections`), over a new
    /// handle of the file. Fails when the section's header is damaged.
    pub fn section_reader(&self, i: usize) -> Result<SectionReader<File>> {
        let file =
            crate::files::open_regular(&self.path).map_err(|e| FormatError::io(&self.path, e))?;
        self.section_reader_in(file, i)
    }

    /// [`Self::section_reader`] over `src`, the same bytes the index walked.
    pub fn section_reader_in<R: ReadAt>(&self, src: R, i: usize) -> Result<SectionReader<R>> {
        let s = &self.sections[i];
        let label = self.section_path(i);
        if s.header.is_none() {
            return Err(FormatError::CorruptHeader {
                path: label,
                reason: format!(
                    "the open chunk of section {} is damaged: its {} chunks cannot be read",
                    s.section,
                    s.chunks.len()
                ),
            });
        }
        Ok(SectionReader {
            src,
            label,
            chunks: s.chunks.clone(),
            next: 0,
            expected_seq: 1,
            closed: false,
            torn_at: self.torn_at.clone(),
            offset: 0,
            pending: Pending::default(),
        })
    }

    /// `FILE#LABEL`: how messages name section `i`.
    pub fn section_path(&self, i: usize) -> PathBuf {
        let mut p = self.path.clone().into_os_string();
        p.push(format!("#{}", self.sections[i].label()));
        PathBuf::from(p)
    }

    /// One line for users: complete or cut, and the damage the walk skipped.
    pub fn describe(&self) -> String {
        let mut text = if self.complete {
            "complete".to_string()
        } else {
            let cut = self.torn_at.as_ref().map(|t| t.0).unwrap_or(self.bytes);
            format!("cut at byte {cut} (no end marker: the recorder did not close it; everything before byte {cut} is intact)")
        };
        for s in &self.damage {
            match s.resumed_at {
                Some(r) => text.push_str(&format!(
                    "; damaged bytes {}..{r} skipped ({}), read on from byte {r}",
                    s.offset, s.error
                )),
                None => text.push_str(&format!(
                    "; damaged from byte {} to the end, skipped ({})",
                    s.offset, s.error
                )),
            }
        }
        text
    }
}
