//! Allocation log: written by the LD_PRELOAD allocation tracer
//! (`alloc-tracer/blame_alloc.c`, started by `blame record --track-allocations`),
//! read by post-processing to name the heap block a data address falls in.
//!
//! ```text
//! file    := magic "BLAMEALC" version:u32le pid:u32le record*
//! record  := kind:u32le depth:u32le time_ns:u64le address:u64le size:u64le
//!            old_address:u64le frames:u64le[depth]
//! ```
//! `kind` is 1 malloc, 2 calloc, 3 realloc, 4 free, 5 aligned (posix_memalign,
//! aligned_alloc, memalign), 6 a line of /proc/self/maps follows (`size`
//! bytes of text, no frames). Frames are return addresses, innermost first:
//! frame 0 is the call of the allocation function in the program. Records
//! are written with one `write` each, so a torn tail is at most one record.

use crate::error::{FormatError, Result};
use std::path::Path;

pub const MAGIC: [u8; 8] = *b"BLAMEALC";
pub const VERSION: u32 = 1;
/// At most this many frames per record; more is corruption.
pub const MAX_DEPTH: u32 = 64;
/// A maps line longer than this is corruption.
pub const MAX_MAPS_LINE: u64 = 1 << 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocKind {
    Malloc,
    Calloc,
    Realloc,
    Free,
    Aligned,
}

/// One allocation event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllocEvent {
    pub kind: AllocKind,
    pub time_ns: u64,
    /// The block returned (or freed).
    pub address: u64,
    pub size: u64,
    /// For realloc: the block it replaced.
    pub old_address: u64,
    /// Return addresses, innermost first.
    pub frames: Vec<u64>,
}

/// A whole allocation log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AllocLog {
    pub pid: u32,
    pub events: Vec<AllocEvent>,
    /// /proc/self/maps lines seen by the tracer (to symbolize frames).
    pub maps: Vec<String>,
    /// Set when the file ended inside a record: what was read is kept.
    pub torn_at: Option<u64>,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

impl AllocLog {
    pub fn read(path: impl AsRef<Path>) -> Result<AllocLog> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| FormatError::io(path, e))?;
        Self::parse(&bytes, path)
    }

    /// Parses a log; a record cut short by the end of the file ends the log
    /// (reported in `torn_at`), anything malformed is an error.
    pub fn parse(bytes: &[u8], path: &Path) -> Result<AllocLog> {
        if bytes.len() < 16 {
            return Err(FormatError::Truncated {
                path: path.to_path_buf(),
                offset: bytes.len() as u64,
                what: "allocation log header incomplete".into(),
            });
        }
        let magic: [u8; 8] = bytes[..8].try_into().expect("8 bytes");
        if magic != MAGIC {
            return Err(FormatError::WrongMagic {
                path: path.to_path_buf(),
                expected: "blame allocation log",
                found: magic,
            });
        }
        let version = u32_at(bytes, 8);
        if version != VERSION {
            return Err(FormatError::UnsupportedVersion {
                path: path.to_path_buf(),
                kind: "blame allocation log",
                found: version,
                supported: VERSION,
            });
        }
        let mut log = AllocLog {
            pid: u32_at(bytes, 12),
            ..Default::default()
        };
        let mut at = 16usize;
        const HEAD: usize = 40;
        while at < bytes.len() {
            if bytes.len() - at < HEAD {
                log.torn_at = Some(at as u64);
                break;
            }
            let kind = u32_at(bytes, at);
            let depth = u32_at(bytes, at + 4);
            let corrupt = |reason: String| FormatError::CorruptChunk {
                path: path.to_path_buf(),
                chunk: 0,
                offset: at as u64,
                reason,
            };
            if kind == 6 {
                let len = u64_at(bytes, at + 24);
                if len > MAX_MAPS_LINE {
                    return Err(corrupt(format!("maps line of {len} bytes")));
                }
                let end = at + HEAD + len as usize;
                if end > bytes.len() {
                    log.torn_at = Some(at as u64);
                    break;
                }
                log.maps.push(
                    String::from_utf8_lossy(&bytes[at + HEAD..end])
                        .trim_end()
                        .to_string(),
                );
                at = end;
                continue;
            }
            if depth > MAX_DEPTH {
                return Err(corrupt(format!(
                    "record claims {depth} frames (at most {MAX_DEPTH})"
                )));
            }
            let kind = match kind {
                1 => AllocKind::Malloc,
                2 => AllocKind::Calloc,
                3 => AllocKind::Realloc,
                4 => AllocKind::Free,
                5 => AllocKind::Aligned,
                k => return Err(corrupt(format!("unknown record kind {k}"))),
            };
            let end = at + HEAD + 8 * depth as usize;
            if end > bytes.len() {
                log.torn_at = Some(at as u64);
                break;
            }
            log.events.push(AllocEvent {
                kind,
                time_ns: u64_at(bytes, at + 8),
                address: u64_at(bytes, at + 16),
                size: u64_at(bytes, at + 24),
                old_address: u64_at(bytes, at + 32),
                frames: (0..depth as usize)
                    .map(|i| u64_at(bytes, at + HEAD + 8 * i))
                    .collect(),
            });
            at = end;
        }
        Ok(log)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(kind: u32, time: u64, addr: u64, size: u64, old: u64, frames: &[u64]) -> Vec<u8> {
        let mut b = Vec::new();
        for v in [kind, frames.len() as u32] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        for v in [time, addr, size, old] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        for f in frames {
            b.extend_from_slice(&f.to_le_bytes());
        }
        b
    }

    fn log() -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&VERSION.to_le_bytes());
        b.extend_from_slice(&42u32.to_le_bytes());
        let maps = b"55550000-55551000 r-xp 00000000 08:01 12 /bin/prog\n";
        let mut m = record(6, 0, 0, maps.len() as u64, 0, &[]);
        m.extend_from_slice(maps);
        b.extend(m);
        b.extend(record(1, 10, 0x1000, 64, 0, &[0x5555_0010, 0x5555_0200]));
        b.extend(record(4, 20, 0x1000, 0, 0, &[0x5555_0300]));
        b
    }

    #[test]
    fn round_trip_of_a_log() {
        let l = AllocLog::parse(&log(), Path::new("t")).unwrap();
        assert_eq!(l.pid, 42);
        assert_eq!(
            l.maps,
            vec!["55550000-55551000 r-xp 00000000 08:01 12 /bin/prog"]
        );
        assert_eq!(l.events.len(), 2);
        assert_eq!(l.events[0].frames, vec![0x5555_0010, 0x5555_0200]);
        assert_eq!(l.events[1].kind, AllocKind::Free);
        assert_eq!(l.torn_at, None);
    }

    #[test]
    fn torn_tail_keeps_whole_records_and_bad_bytes_are_errors() {
        let full = log();
        let maps_end = 16 + 40 + 51;
        let boundaries = [16, maps_end, maps_end + 56, full.len()];
        assert_eq!(maps_end + 56 + 48, full.len());
        for cut in 16..=full.len() {
            let l = AllocLog::parse(&full[..cut], Path::new("t")).unwrap();
            // A cut between records is a shorter log; inside one, a torn tail.
            assert_eq!(
                l.torn_at.is_none(),
                boundaries.contains(&cut),
                "cut at {cut}"
            );
            let whole = boundaries.iter().filter(|&&b| b <= cut).count() - 1;
            assert_eq!(l.maps.len() + l.events.len(), whole, "cut at {cut}");
        }
        let mut bad = full.clone();
        bad[maps_end] = 9; // kind of the malloc record
        assert!(AllocLog::parse(&bad, Path::new("t")).is_err());
        let mut deep = full.clone();
        deep[maps_end + 4] = 200; // depth
        assert!(AllocLog::parse(&deep, Path::new("t")).is_err());
        assert!(matches!(
            AllocLog::parse(b"BLAMEALX\x01\0\0\0\0\0\0\0", Path::new("t")),
            Err(FormatError::WrongMagic { .. })
        ));
    }
}
