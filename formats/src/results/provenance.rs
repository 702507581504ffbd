//! What produced a result ([`Provenance`]): the static db and the sample
//! inputs identified by size and content ([`FileId`], [`InputsId`]) and
//! the options, which decide whether stored results may be reused; and
//! provenance as results versions 3 to 5 stored it.

use crate::files::open_regular;
use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::path::Path;

/// A file that went into a result, identified by its size and content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct FileId {
    /// The path as given (for messages; not compared).
    pub path: String,
    pub bytes: u64,
    /// xxHash64, seeded with `bytes`, of the whole file (static db), or
    /// of its first and last 64 KiB when larger than 128 KiB (sample inputs).
    pub hash: u64,
}

impl FileId {
    /// Identifies `path` by its size and a hash of all its bytes (the
    /// static db: one changed summary anywhere changes the results).
    pub fn of(path: &Path) -> std::io::Result<FileId> {
        Self::hashed(path, u64::MAX)
    }

    /// Identifies `path` by its size and a hash of its first and last 64
    /// KiB (sample inputs, which change only by being recorded again: the
    /// header at the start holds the recording's start time and pid, the
    /// end the last chunk written). Every shard of a post identifies every
    /// input of the run, so this stays small: 128 KiB a file, not the
    /// file (a MiB a side made it most of what a shard of a 1,024-rank
    /// run read).
    pub fn of_input(path: &Path) -> std::io::Result<FileId> {
        Self::hashed(path, 64 << 10)
    }

    /// The whole file when it is at most `2 * part` bytes, else its first
    /// and last `part` bytes.
    fn hashed(path: &Path, part: u64) -> std::io::Result<FileId> {
        use std::hash::Hasher;
        use std::io::{Seek, SeekFrom};
        let mut file = open_regular(path)?;
        let bytes = file.metadata()?.len();
        let mut h = twox_hash::XxHash64::with_seed(bytes);
        let mut feed = |r: &mut dyn Read| -> std::io::Result<()> {
            let mut buf = vec![0u8; 1 << 16];
            loop {
                match r.read(&mut buf) {
                    Ok(0) => return Ok(()),
                    Ok(n) => h.write(&buf[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
        };
        if bytes <= part.saturating_mul(2) {
            feed(&mut file)?;
        } else {
            feed(&mut (&mut file).take(part))?;
            file.seek(SeekFrom::End(-(part as i64)))?;
            feed(&mut file.take(part))?;
        }
        Ok(FileId {
            path: path.display().to_string(),
            bytes,
            hash: h.finish(),
        })
    }

    /// Same content (the path does not matter).
    pub fn same_content(&self, other: &FileId) -> bool {
        (self.bytes, self.hash) == (other.bytes, other.hash)
    }
}

/// The sample inputs of a result as one identity: how many there are,
/// their bytes in all, and a hash of each input's size and content hash in
/// order. The same inputs give the same identity and a change to any of
/// them changes it. (Results versions 3 to 5 listed every input's
/// [`FileId`]: a partial result of a 10^5-rank run held 10^5 paths, which
/// every merge read once per part.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, Encode, Decode)]
pub struct InputsId {
    pub count: u64,
    pub bytes: u64,
    pub hash: u64,
}

impl InputsId {
    /// The identity of `files`, in their order (paths do not matter).
    pub fn of(files: &[FileId]) -> InputsId {
        use std::hash::Hasher;
        let mut h = twox_hash::XxHash64::with_seed(files.len() as u64);
        for f in files {
            h.write_u64(f.bytes);
            h.write_u64(f.hash);
        }
        InputsId {
            count: files.len() as u64,
            bytes: files.iter().map(|f| f.bytes).sum(),
            hash: h.finish(),
        }
    }
}

/// What produced a result: cached results are reused only for the same
/// inputs, static db and options.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, Encode, Decode)]
pub struct Provenance {
    /// The static db used, `None` when there was none.
    pub static_db: Option<FileId>,
    /// The sample inputs (streams of the run dir, perf.data or JSON-lines files).
    pub inputs: InputsId,
    /// Every option that changes the results, as (name, value), sorted by name.
    pub options: Vec<(String, String)>,
}

/// An optional [`ProvenanceV5`], as version 5's header holds it.
#[derive(Decode)]
pub(super) struct ProvenanceV5s(Option<ProvenanceV5>);

impl From<ProvenanceV5s> for Option<Provenance> {
    fn from(p: ProvenanceV5s) -> Self {
        p.0.map(Provenance::from)
    }
}

/// [`Provenance`] of results versions 3 to 5: every input listed.
#[derive(Decode)]
struct ProvenanceV5 {
    static_db: Option<FileId>,
    inputs: Vec<FileId>,
    options: Vec<(String, String)>,
}

impl From<ProvenanceV5> for Provenance {
    fn from(p: ProvenanceV5) -> Self {
        Provenance {
            static_db: p.static_db,
            inputs: InputsId::of(&p.inputs),
            options: p.options,
        }
    }
}

impl Provenance {
    /// True when `self` and `other` describe the same computation: same
    /// input and db contents, same options (paths may differ).
    pub fn matches(&self, other: &Provenance) -> bool {
        let same_db = match (&self.static_db, &other.static_db) {
            (None, None) => true,
            (Some(a), Some(b)) => a.same_content(b),
            _ => false,
        };
        same_db && self.options == other.options && self.inputs == other.inputs
    }

    /// What differs from `other`, for messages ("the static db", "options").
    pub fn differences(&self, other: &Provenance) -> Vec<String> {
        let mut out = Vec::new();
        match (&self.static_db, &other.static_db) {
            (None, None) => {}
            (Some(a), Some(b)) if a.same_content(b) => {}
            (Some(a), Some(b)) => out.push(format!("static db {} (was {})", b.path, a.path)),
            (None, Some(b)) => out.push(format!("static db {} (was none)", b.path)),
            (Some(a), None) => out.push(format!("no static db (was {})", a.path)),
        }
        if self.options != other.options {
            let show = |o: &[(String, String)]| {
                o.iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            out.push(format!(
                "options {} (was {})",
                show(&other.options),
                show(&self.options)
            ));
        }
        if self.inputs != other.inputs {
            out.push("sample streams".into());
        }
        out
    }
}
