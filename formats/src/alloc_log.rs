//! Allocation log: written by the LD_PRELOAD allocation tracer
//! (`alloc-tracer/blame_alloc.c`, started by `blame record --track-allocations`),
//! read by post-processing to name the heap block a data address falls in
//! and to count the memory each variable holds.
//!
//! Version 2 (written now):
//! ```text
//! file    := magic "BLAMEALC" version:u32le=2 pid:u32le sample_bytes:u64le
//!            exact_allocs:u64le start_ns:u64le record*
//! record  := event | maps | site | totals
//! event   := kind:u32le site:u32le time_ns:u64le seq:u64le address:u64le
//!            [size:u64le old_address:u64le]      (size and old: not for frees)
//! maps    := 6:u32le 0:u32le len:u64le text[len]
//! site    := 7:u32le depth:u32le id:u64le frames:u64le[depth]
//! totals  := 8:u32le n:u32le=14 allocs bytes frees live_bytes live_blocks
//!            peak_bytes peak_blocks peak_seq peak_ns seq end_ns table sites 0
//! ```
//! `kind`'s low byte is 1 malloc, 2 calloc, 3 realloc, 4 free, 5 aligned
//! (posix_memalign, aligned_alloc, memalign); bit 8 set: the block was
//! sampled. The tracer logs every allocation until `exact_allocs` of them,
//! then every block of at least `sample_bytes` and smaller ones sampled by
//! bytes (a block of s bytes with probability 1 - exp(-s/sample_bytes); it
//! stands for the inverse of that many blocks, [`AllocLog::weight`]); a
//! realloc is logged as the free of its old block and a new block. `seq`
//! numbers every allocation and free of the process (logged or not), so the
//! process's peak (`peak_seq` of the totals) has its place among the events.
//! The totals (exact counts over every call) are written at exit, and
//! again after each event that follows (the last record is the process's
//! end); a log without them (the process was killed, or exec'ed) is summed from its
//! events. Frames are return addresses, innermost first: frame 0 is the
//! call of the allocation function in the program.
//!
//! Version 1 (read): no header fields after the pid, every record
//! `kind:u32le depth:u32le time_ns address size old_address frames[depth]`,
//! every allocation logged with its frames, no totals.
//!
//! Records are buffered and written whole, so a torn tail is at most part
//! of the last buffer: what was read before it is kept.

use crate::error::{FormatError, Result};
use std::collections::HashMap;
use std::path::Path;

pub const MAGIC: [u8; 8] = *b"BLAMEALC";
/// The version the tracer writes.
pub const VERSION: u32 = 2;
/// At most this many frames per record; more is corruption.
pub const MAX_DEPTH: u32 = 64;
/// A maps line longer than this is corruption.
pub const MAX_MAPS_LINE: u64 = 1 << 16;
/// The `site` of an event without one (frees).
pub const NO_SITE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AllocKind {
    Malloc,
    Calloc,
    Realloc,
    Free,
    Aligned,
}

impl AllocKind {
    /// The allocation function's name (frees: `free`).
    pub fn function(self) -> &'static str {
        match self {
            AllocKind::Malloc => "malloc",
            AllocKind::Calloc => "calloc",
            AllocKind::Realloc => "realloc",
            AllocKind::Free => "free",
            AllocKind::Aligned => "aligned_alloc",
        }
    }
}

/// One allocation event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllocEvent {
    pub kind: AllocKind,
    pub time_ns: u64,
    /// The number of allocations and frees of the process up to and
    /// including this one (version 1: the event's index).
    pub seq: u64,
    /// The block returned (or freed).
    pub address: u64,
    pub size: u64,
    /// For realloc (version 1 only): the block it replaced.
    pub old_address: u64,
    /// Index into [`AllocLog::sites`]: the allocation's call stack
    /// ([`NO_SITE`] for frees of version 2).
    pub site: u32,
    /// A block sampled by bytes: it stands for [`AllocLog::weight`] blocks.
    pub sampled: bool,
}

/// The tracer's exact counts over every allocation call of the process.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AllocTotals {
    pub allocs: u64,
    pub bytes: u64,
    pub frees: u64,
    /// Bytes and blocks still allocated at exit.
    pub live_bytes: u64,
    pub live_blocks: u64,
    pub peak_bytes: u64,
    pub peak_blocks: u64,
    /// The `seq` of the allocation that reached the peak.
    pub peak_seq: u64,
    /// About when (the first free after the peak).
    pub peak_ns: u64,
    pub seq: u64,
    pub end_ns: u64,
}

/// A whole allocation log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AllocLog {
    pub version: u32,
    pub pid: u32,
    /// Mean bytes between sampled small blocks (0: every block logged).
    pub sample_bytes: u64,
    /// The first this many allocations are all logged.
    pub exact_allocs: u64,
    /// When tracing started (version 1: the first event's time).
    pub start_ns: u64,
    pub events: Vec<AllocEvent>,
    /// Call stacks: return addresses, innermost first.
    pub sites: Vec<Vec<u64>>,
    /// /proc/self/maps lines seen by the tracer (to symbolize frames).
    pub maps: Vec<String>,
    /// The exact counts, when the process exited normally (version 2).
    pub totals: Option<AllocTotals>,
    /// Set when the file ended inside a record: what was read is kept.
    pub torn_at: Option<u64>,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

fn kind_of(k: u32) -> Option<AllocKind> {
    Some(match k {
        1 => AllocKind::Malloc,
        2 => AllocKind::Calloc,
        3 => AllocKind::Realloc,
        4 => AllocKind::Free,
        5 => AllocKind::Aligned,
        _ => return None,
    })
}

impl AllocLog {
    pub fn read(path: impl AsRef<Path>) -> Result<AllocLog> {
        let path = path.as_ref();
        // A regular file only (never a FIFO planted at the name).
        let mut bytes = Vec::new();
        crate::files::open_regular(path)
            .and_then(|mut f| std::io::Read::read_to_end(&mut f, &mut bytes))
            .map_err(|e| FormatError::io(path, e))?;
        Self::parse(&bytes, path)
    }

    /// The call stack of an allocation event (empty for frees).
    pub fn frames(&self, e: &AllocEvent) -> &[u64] {
        self.sites
            .get(e.site as usize)
            .map_or(&[], |s| s.as_slice())
    }

    /// How many blocks a logged block stands for: 1, or for a block sampled
    /// by bytes, the inverse of its chance of being sampled.
    pub fn weight(&self, e: &AllocEvent) -> f64 {
        if !e.sampled || self.sample_bytes == 0 {
            return 1.0;
        }
        let p = -(-(e.size.max(1) as f64) / self.sample_bytes as f64).exp_m1();
        1.0 / p
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
        match version {
            1 => Ok(Self::parse_v1(bytes, path)?),
            2 => Self::parse_v2(bytes, path),
            found => Err(FormatError::UnsupportedVersion {
                path: path.to_path_buf(),
                kind: "blame allocation log",
                found,
                supported: VERSION,
            }),
        }
    }

    fn parse_v2(bytes: &[u8], path: &Path) -> Result<AllocLog> {
        if bytes.len() < 40 {
            return Err(FormatError::Truncated {
                path: path.to_path_buf(),
                offset: bytes.len() as u64,
                what: "allocation log header incomplete".into(),
            });
        }
        let mut log = AllocLog {
            version: 2,
            pid: u32_at(bytes, 12),
            sample_bytes: u64_at(bytes, 16),
            exact_allocs: u64_at(bytes, 24),
            start_ns: u64_at(bytes, 32),
            ..Default::default()
        };
        // Site ids as the tracer numbered them, to indices of `sites`.
        let mut site_index: HashMap<u64, u32> = HashMap::new();
        let mut at = 40usize;
        while at < bytes.len() {
            let have = bytes.len() - at;
            if have < 8 {
                log.torn_at = Some(at as u64);
                break;
            }
            let word = u32_at(bytes, at);
            let second = u32_at(bytes, at + 4);
            let corrupt = |reason: String| FormatError::CorruptChunk {
                path: path.to_path_buf(),
                chunk: 0,
                offset: at as u64,
                reason,
            };
            let Some(need) = Self::record_len_v2(bytes, at, word, second, &corrupt)? else {
                log.torn_at = Some(at as u64);
                break;
            };
            if word & !0x1ff != 0 || (word & 0x100 != 0 && !matches!(word & 0xff, 1..=5)) {
                return Err(corrupt(format!("unknown record flags {word:#x}")));
            }
            if have < need {
                log.torn_at = Some(at as u64);
                break;
            }
            let r = &bytes[at..at + need];
            log.add_record_v2(word, second, r, &mut site_index, &corrupt)?;
            at += need;
        }
        Ok(log)
    }

    /// The length of the version 2 record at `at` whose first words are
    /// `word` (its kind and flags) and `second`, by its kind; `None` when
    /// the bytes that say it are cut off (a maps line's length).
    fn record_len_v2(
        bytes: &[u8],
        at: usize,
        word: u32,
        second: u32,
        corrupt: &impl Fn(String) -> FormatError,
    ) -> Result<Option<usize>> {
        let have = bytes.len() - at;
        let need = match word & 0xff {
            4 => 32,
            1..=5 => 48,
            6 => {
                if have < 16 {
                    return Ok(None);
                }
                let len = u64_at(bytes, at + 8);
                if len > MAX_MAPS_LINE {
                    return Err(corrupt(format!("maps line of {len} bytes")));
                }
                16 + len as usize
            }
            7 => {
                if second > MAX_DEPTH {
                    return Err(corrupt(format!(
                        "stack of {second} frames (at most {MAX_DEPTH})"
                    )));
                }
                16 + 8 * second as usize
            }
            8 => {
                if second != 14 {
                    return Err(corrupt(format!("totals of {second} fields, not 14")));
                }
                8 + 8 * 14
            }
            k => return Err(corrupt(format!("unknown record kind {k}"))),
        };
        Ok(Some(need))
    }

    /// Adds the version 2 record `r` (whole, its first words `word` and
    /// `second`) to the log: a maps line, a stack (numbered in
    /// `site_index`), the tracer's totals, or an allocation event.
    fn add_record_v2(
        &mut self,
        word: u32,
        second: u32,
        r: &[u8],
        site_index: &mut HashMap<u64, u32>,
        corrupt: &impl Fn(String) -> FormatError,
    ) -> Result<()> {
        match word & 0xff {
            6 => self
                .maps
                .push(String::from_utf8_lossy(&r[16..]).trim_end().to_string()),
            7 => {
                let id = u64_at(r, 8);
                let frames = (0..second as usize)
                    .map(|i| u64_at(r, 16 + 8 * i))
                    .collect();
                site_index.insert(id, self.sites.len() as u32);
                self.sites.push(frames);
            }
            8 => {
                let f = |i: usize| u64_at(r, 8 + 8 * i);
                self.totals = Some(AllocTotals {
                    allocs: f(0),
                    bytes: f(1),
                    frees: f(2),
                    live_bytes: f(3),
                    live_blocks: f(4),
                    peak_bytes: f(5),
                    peak_blocks: f(6),
                    peak_seq: f(7),
                    peak_ns: f(8),
                    seq: f(9),
                    end_ns: f(10),
                });
            }
            k => {
                let kind = kind_of(k).expect("kinds 1 to 5");
                let site = if kind == AllocKind::Free {
                    NO_SITE
                } else {
                    *site_index.get(&(second as u64)).ok_or_else(|| {
                        corrupt(format!("allocation of stack {second}, never logged"))
                    })?
                };
                let free = kind == AllocKind::Free;
                self.events.push(AllocEvent {
                    kind,
                    time_ns: u64_at(r, 8),
                    seq: u64_at(r, 16),
                    address: u64_at(r, 24),
                    size: if free { 0 } else { u64_at(r, 32) },
                    old_address: if free { 0 } else { u64_at(r, 40) },
                    site,
                    sampled: word & 0x100 != 0,
                });
            }
        }
        Ok(())
    }

    fn parse_v1(bytes: &[u8], path: &Path) -> Result<AllocLog> {
        let mut log = AllocLog {
            version: 1,
            pid: u32_at(bytes, 12),
            ..Default::default()
        };
        let mut site_index: HashMap<Vec<u64>, u32> = HashMap::new();
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
            let Some(kind) = kind_of(kind) else {
                return Err(corrupt(format!("unknown record kind {kind}")));
            };
            let end = at + HEAD + 8 * depth as usize;
            if end > bytes.len() {
                log.torn_at = Some(at as u64);
                break;
            }
            let frames: Vec<u64> = (0..depth as usize)
                .map(|i| u64_at(bytes, at + HEAD + 8 * i))
                .collect();
            // Version 1 logged the stacks of frees too.
            let next = log.sites.len() as u32;
            let site = *site_index.entry(frames.clone()).or_insert_with(|| {
                log.sites.push(frames);
                next
            });
            let time_ns = u64_at(bytes, at + 8);
            if log.events.is_empty() {
                log.start_ns = time_ns;
            }
            log.events.push(AllocEvent {
                kind,
                time_ns,
                seq: log.events.len() as u64 + 1,
                address: u64_at(bytes, at + 16),
                size: u64_at(bytes, at + 24),
                old_address: u64_at(bytes, at + 32),
                site,
                sampled: false,
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
        b.extend_from_slice(&1u32.to_le_bytes());
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
        assert_eq!(l.frames(&l.events[0]), [0x5555_0010, 0x5555_0200]);
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

    fn v2_log() -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&2u32.to_le_bytes());
        b.extend_from_slice(&42u32.to_le_bytes());
        for v in [1024u64, 1, 5] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        // A stack of two frames, id 9.
        for v in [7u32, 2] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        for v in [9u64, 0x5555_0010, 0x5555_0200] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        // A logged malloc, a sampled one, the first one's free.
        for (kind, seq, addr, size) in [(1u32, 1u64, 0x1000u64, 64u64), (0x101, 2, 0x2000, 16)] {
            b.extend_from_slice(&kind.to_le_bytes());
            b.extend_from_slice(&9u32.to_le_bytes());
            for v in [10 * seq, seq, addr, size, 0] {
                b.extend_from_slice(&v.to_le_bytes());
            }
        }
        b.extend_from_slice(&4u32.to_le_bytes());
        b.extend_from_slice(&u32::MAX.to_le_bytes());
        for v in [30u64, 3, 0x1000] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&8u32.to_le_bytes());
        b.extend_from_slice(&14u32.to_le_bytes());
        for v in [5u64, 300, 1, 236, 4, 300, 5, 2, 20, 3, 40, 4, 1, 0] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b
    }

    /// Version 2: stacks logged once, sampled blocks weighed by their
    /// chance, frees without stacks, the exact totals; a cut inside the
    /// totals keeps the events before it.
    #[test]
    fn version_2_sites_weights_and_totals() {
        let bytes = v2_log();
        let l = AllocLog::parse(&bytes, Path::new("t")).unwrap();
        assert_eq!((l.version, l.sample_bytes, l.exact_allocs), (2, 1024, 1));
        assert_eq!(l.sites, vec![vec![0x5555_0010, 0x5555_0200]]);
        assert_eq!(l.events.len(), 3);
        assert_eq!(l.frames(&l.events[1]), [0x5555_0010, 0x5555_0200]);
        assert_eq!(l.weight(&l.events[0]), 1.0);
        let w = l.weight(&l.events[1]);
        assert!(
            (w - 1.0 / (1.0 - (-16.0f64 / 1024.0).exp())).abs() < 1e-9,
            "{w}"
        );
        assert_eq!(l.events[2].kind, AllocKind::Free);
        assert_eq!(l.events[2].site, NO_SITE);
        let t = l.totals.unwrap();
        assert_eq!(
            (t.allocs, t.bytes, t.peak_bytes, t.live_bytes),
            (5, 300, 300, 236)
        );
        let cut = AllocLog::parse(&bytes[..bytes.len() - 3], Path::new("t")).unwrap();
        assert_eq!(cut.events, l.events);
        assert_eq!(cut.totals, None);
        assert!(cut.torn_at.is_some());
        // An allocation naming a stack never logged is corrupt.
        let mut bad = bytes.clone();
        let first_event = 40 + 16 + 16;
        bad[first_event + 4] = 8;
        assert!(AllocLog::parse(&bad, Path::new("t")).is_err());
    }
}
