//! The one parser of perf records, for the live ring buffer and for
//! perf.data alike: `linux-perf-event-reader` reads each record with the
//! sample layout of the attributes its event was opened with
//! ([`RecordParseInfo`]); this module guards the records that parser would
//! trip over and turns the ones blame reads into [`PerfRecord`]s. Pure
//! byte parsing: no syscalls, testable alone.

use linux_perf_event_reader::{
    CpuMode, Endianness, EventRecord, Mmap2FileId, PerfEventAttr, RawData, RawEventRecord,
    ReadFormat, RecordType,
};
pub use linux_perf_event_reader::{RecordParseInfo, SampleFormat};
use std::borrow::Cow;

/// x86_64 `perf_regs.h` numbers of the registers the unwinder needs.
const REG_BP: u64 = 6;
const REG_SP: u64 = 7;
const REG_IP: u64 = 8;
/// The user registers the recorder samples: BP, SP, IP.
pub const REGS_MASK: u64 = (1 << REG_BP) | (1 << REG_SP) | (1 << REG_IP);

/// Callchain entries at or above this are context markers (PERF_CONTEXT_*).
const CONTEXT_MAX: u64 = u64::MAX - 4095;
const CONTEXT_USER: u64 = u64::MAX - 511;
const PROT_EXEC: u32 = 4;
const MISC_MMAP_BUILD_ID: u16 = 1 << 14;

/// The parse information of events opened with `attr`, given as the bytes
/// of a `perf_event_attr` in this machine's byte order (the recorder's
/// own attributes).
pub fn parse_info_of_attr(attr: &[u8]) -> std::io::Result<RecordParseInfo> {
    let (attr, _) = PerfEventAttr::parse::<_, byteorder::NativeEndian>(attr)?;
    let endian = if cfg!(target_endian = "little") {
        Endianness::LittleEndian
    } else {
        Endianness::BigEndian
    };
    Ok(RecordParseInfo::new(&attr, endian))
}

/// A record of the live ring buffer (header included) in this machine's
/// byte order; `None` when it is shorter than its header.
pub fn raw_record<'a>(bytes: &'a [u8], info: RecordParseInfo) -> Option<RawEventRecord<'a>> {
    let kind = u32::from_ne_bytes(bytes.get(..4)?.try_into().ok()?);
    let misc = u16::from_ne_bytes(bytes.get(4..6)?.try_into().ok()?);
    let body = bytes.get(8..)?;
    Some(RawEventRecord::new(
        RecordType(kind),
        misc,
        RawData::Single(body),
        info,
    ))
}

/// The event id of a live record (`PERF_SAMPLE_IDENTIFIER`, which the
/// recorder asks for with every event): which event's layout to parse it with.
pub fn record_identifier(bytes: &[u8]) -> Option<u64> {
    let kind = u32::from_ne_bytes(bytes.get(..4)?.try_into().ok()?);
    linux_perf_event_reader::get_record_identifier::<byteorder::NativeEndian>(
        RecordType(kind),
        RawData::Single(bytes.get(8..)?),
        true,
    )
}

/// One sample, borrowing its stack copy from the record bytes.
#[derive(Debug)]
pub struct Sample<'a> {
    /// The event's id (`PERF_SAMPLE_IDENTIFIER` or `ID`).
    pub id: Option<u64>,
    pub ip: Option<u64>,
    pub pid: Option<i32>,
    pub tid: Option<i32>,
    pub time: Option<u64>,
    pub addr: Option<u64>,
    pub period: Option<u64>,
    pub cpu_mode: CpuMode,
    /// The callchain's user-space frames (context markers removed), innermost first.
    pub user_chain: Vec<u64>,
    /// The callchain's kernel frames, innermost first.
    pub kernel_chain: Vec<u64>,
    /// (bp, sp, ip) when user registers were sampled and the thread was in user mode.
    pub regs: Option<(u64, u64, u64)>,
    /// The copied user stack (the part the kernel filled), when the sample asked for one.
    pub stack: Option<Cow<'a, [u8]>>,
}

/// A parsed record of a kind blame reads.
#[derive(Debug)]
pub enum PerfRecord<'a> {
    Sample(Sample<'a>),
    Mmap {
        pid: i32,
        start: u64,
        len: u64,
        pgoff: u64,
        executable: bool,
        /// From an MMAP2 record with a build-id.
        build_id: Option<Vec<u8>>,
        path: Cow<'a, [u8]>,
        cpu_mode: CpuMode,
    },
    Comm {
        pid: i32,
        tid: i32,
        exec: bool,
        name: String,
    },
    Fork {
        pid: i32,
        ppid: i32,
        tid: i32,
    },
    Exit {
        pid: i32,
        tid: i32,
        time: u64,
    },
    Lost {
        count: u64,
    },
    /// A record blame does not read.
    Other,
}

/// Why a record cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct MalformedRecord(pub String);

/// Parses one record.
pub fn parse<'a>(record: &RawEventRecord<'a>) -> Result<PerfRecord<'a>, MalformedRecord> {
    if let Some(what) = unparsable(record) {
        return Err(MalformedRecord(what.into()));
    }
    let parsed = record.parse().map_err(|e| MalformedRecord(e.to_string()))?;
    Ok(match parsed {
        EventRecord::Sample(s) => {
            let mut user_chain = Vec::new();
            let mut kernel_chain = Vec::new();
            if let Some(chain) = &s.callchain {
                let mut in_user = false;
                for i in 0..chain.len() {
                    let Some(a) = chain.get(i) else { break };
                    if a >= CONTEXT_MAX {
                        in_user = a == CONTEXT_USER;
                    } else if in_user {
                        user_chain.push(a);
                    } else {
                        kernel_chain.push(a);
                    }
                }
            }
            let regs = s
                .user_regs
                .as_ref()
                .and_then(|r| Some((r.get(REG_BP)?, r.get(REG_SP)?, r.get(REG_IP)?)));
            let stack = s
                .user_stack
                .as_ref()
                .filter(|(stack, _)| !stack.is_empty())
                .map(|(stack, dyn_size)| match stack.as_slice() {
                    Cow::Borrowed(b) => Cow::Borrowed(&b[..(*dyn_size as usize).min(b.len())]),
                    Cow::Owned(mut b) => {
                        b.truncate(*dyn_size as usize);
                        Cow::Owned(b)
                    }
                });
            PerfRecord::Sample(Sample {
                id: s.id,
                ip: s.ip,
                pid: s.pid,
                tid: s.tid,
                time: s.timestamp,
                addr: s.addr,
                period: s.period,
                cpu_mode: s.cpu_mode,
                user_chain,
                kernel_chain,
                regs,
                stack,
            })
        }
        EventRecord::Mmap(m) => PerfRecord::Mmap {
            pid: m.pid,
            start: m.address,
            len: m.length,
            pgoff: m.page_offset,
            executable: m.is_executable,
            build_id: None,
            path: m.path.as_slice(),
            cpu_mode: m.cpu_mode,
        },
        EventRecord::Mmap2(m) => PerfRecord::Mmap {
            pid: m.pid,
            start: m.address,
            len: m.length,
            pgoff: m.page_offset,
            executable: m.protection & PROT_EXEC != 0,
            build_id: match m.file_id {
                Mmap2FileId::BuildId(b) => Some(b),
                Mmap2FileId::InodeAndVersion(_) => None,
            },
            path: m.path.as_slice(),
            cpu_mode: m.cpu_mode,
        },
        EventRecord::Comm(c) => PerfRecord::Comm {
            pid: c.pid,
            tid: c.tid,
            exec: c.is_execve,
            name: String::from_utf8_lossy(&c.name.as_slice()).into_owned(),
        },
        EventRecord::Fork(f) => PerfRecord::Fork {
            pid: f.pid,
            ppid: f.ppid,
            tid: f.tid,
        },
        EventRecord::Exit(e) => PerfRecord::Exit {
            pid: e.pid,
            tid: e.tid,
            time: e.timestamp,
        },
        EventRecord::Lost(l) => PerfRecord::Lost { count: l.count },
        _ => PerfRecord::Other,
    })
}

/// What in a record the parser would trip over (it panics on these rather than failing).
fn unparsable(record: &RawEventRecord) -> Option<&'static str> {
    match record.record_type {
        RecordType::SAMPLE if !callchain_fits(record) => Some("its callchain runs past the record"),
        RecordType::MMAP2 if record.misc & MISC_MMAP_BUILD_ID != 0 => record
            .data
            .get(32..33)
            .map(|b| b.as_slice()[0])
            .filter(|&len| len > 20)
            .map(|_| "its build-id is longer than 20 bytes"),
        _ => None,
    }
}

/// Whether a sample's callchain length fits in the record. The parser
/// multiplies the length it reads, so a corrupt one must not reach it.
/// Walks the fields before the callchain in the parser's own order.
fn callchain_fits(record: &RawEventRecord) -> bool {
    let info = &record.parse_info;
    let format = info.sample_format;
    if !format.contains(SampleFormat::CALLCHAIN) {
        return true;
    }
    let data = record.data.as_slice();
    let little = matches!(info.endian, Endianness::LittleEndian);
    let mut at = 0usize;
    let mut next = || -> Option<u64> {
        let bytes: [u8; 8] = data.get(at..at + 8)?.try_into().ok()?;
        at += 8;
        Some(if little {
            u64::from_le_bytes(bytes)
        } else {
            u64::from_be_bytes(bytes)
        })
    };
    let fixed = [
        SampleFormat::IDENTIFIER,
        SampleFormat::IP,
        SampleFormat::TID,
        SampleFormat::TIME,
        SampleFormat::ADDR,
        SampleFormat::ID,
        SampleFormat::STREAM_ID,
        SampleFormat::CPU,
        SampleFormat::PERIOD,
    ];
    for f in fixed {
        if format.contains(f) && next().is_none() {
            return true; // the parser reports the short record itself
        }
    }
    if format.contains(SampleFormat::READ) {
        let read = info.read_format;
        let times = read.contains(ReadFormat::TOTAL_TIME_ENABLED) as usize
            + read.contains(ReadFormat::TOTAL_TIME_RUNNING) as usize;
        if read.contains(ReadFormat::GROUP) {
            for _ in 0..1 + times + read.contains(ReadFormat::ID) as usize {
                next();
            }
        } else {
            let Some(nr) = next() else { return true };
            for _ in 0..times {
                next();
            }
            let per = 1 + read.contains(ReadFormat::ID) as u64;
            if nr.saturating_mul(per) > (data.len() / 8) as u64 {
                return false;
            }
            for _ in 0..nr * per {
                next();
            }
        }
    }
    match next() {
        Some(nr) => nr <= ((data.len().saturating_sub(at)) / 8) as u64,
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: u32 = 9;
    const COMM: u32 = 3;
    const MMAP2: u32 = 10;
    const MISC_COMM_EXEC: u16 = 1 << 13;

    fn header(kind: u32, misc: u16, body: &[u8]) -> Vec<u8> {
        let mut v = kind.to_ne_bytes().to_vec();
        v.extend(misc.to_ne_bytes());
        v.extend(((body.len() + 8) as u16).to_ne_bytes());
        v.extend(body);
        v
    }

    fn words(ws: &[u64]) -> Vec<u8> {
        ws.iter().flat_map(|w| w.to_ne_bytes()).collect()
    }

    /// `perf_event_attr` bytes (version 8 layout, 136 bytes) with this
    /// sample type, user registers and sample_id_all.
    fn info(sample_type: u64, regs: u64) -> RecordParseInfo {
        let mut a = vec![0u8; 136];
        a[4..8].copy_from_slice(&136u32.to_ne_bytes());
        a[24..32].copy_from_slice(&sample_type.to_ne_bytes());
        let sample_id_all = 1u64 << 18;
        a[40..48].copy_from_slice(&sample_id_all.to_ne_bytes());
        a[80..88].copy_from_slice(&regs.to_ne_bytes());
        parse_info_of_attr(&a).unwrap()
    }

    fn recorder_info() -> RecordParseInfo {
        let st = SampleFormat::IDENTIFIER
            | SampleFormat::IP
            | SampleFormat::TID
            | SampleFormat::TIME
            | SampleFormat::PERIOD
            | SampleFormat::CALLCHAIN
            | SampleFormat::REGS_USER
            | SampleFormat::STACK_USER;
        info(st.bits(), REGS_MASK)
    }

    #[test]
    fn sample_with_callchain_regs_and_stack() {
        let pid_tid = (7u64 << 32) | 5;
        let mut body = words(&[
            42,
            0x401000,
            pid_tid,
            1_000,
            250_000,
            5,
            u64::MAX - 127, // PERF_CONTEXT_KERNEL
            0xffff_ffff_8100_0000,
            CONTEXT_USER,
            0x401000,
            0x401200,
            2, // abi 64
            0x7ffd_0010,
            0x7ffd_0000,
            0x401000,
            16,
        ]);
        body.extend([1u8; 16]);
        body.extend(words(&[12]));
        let rec = header(SAMPLE, 0, &body);
        let raw = raw_record(&rec, recorder_info()).unwrap();
        let Ok(PerfRecord::Sample(s)) = parse(&raw) else {
            panic!("not a sample")
        };
        assert_eq!(
            (s.id, s.ip, s.pid, s.tid, s.time),
            (Some(42), Some(0x401000), Some(5), Some(7), Some(1_000))
        );
        assert_eq!(s.period, Some(250_000));
        assert_eq!(s.user_chain, vec![0x401000, 0x401200]);
        assert_eq!(s.kernel_chain, vec![0xffff_ffff_8100_0000]);
        assert_eq!(s.regs, Some((0x7ffd_0010, 0x7ffd_0000, 0x401000)));
        assert_eq!(s.stack.unwrap().len(), 12, "dyn_size trims the copy");
    }

    #[test]
    fn truncated_sample_and_a_callchain_past_the_record_are_rejected() {
        let rec = header(SAMPLE, 0, &words(&[42, 0x401000]));
        assert!(parse(&raw_record(&rec, recorder_info()).unwrap()).is_err());
        let rec = header(SAMPLE, 0, &words(&[42, 0x401000, 1, 1, 1, u64::MAX / 4]));
        let err = parse(&raw_record(&rec, recorder_info()).unwrap()).unwrap_err();
        assert!(err.0.contains("callchain"), "{err}");
    }

    #[test]
    fn comm_exec_with_trailer() {
        let mut body = 9u32.to_ne_bytes().to_vec();
        body.extend(9u32.to_ne_bytes());
        body.extend(b"solver\0\0");
        body.extend(words(&[(9u64 << 32) | 9, 777, 42]));
        let st = SampleFormat::IDENTIFIER | SampleFormat::TID | SampleFormat::TIME;
        let info = info(st.bits(), 0);
        let rec = header(COMM, MISC_COMM_EXEC, &body);
        let raw = raw_record(&rec, info).unwrap();
        assert_eq!(raw.timestamp(), Some(777));
        match parse(&raw) {
            Ok(PerfRecord::Comm {
                pid, exec, name, ..
            }) => assert_eq!((pid, exec, name.as_str()), (9, true, "solver")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn mmap2_with_build_id() {
        let mut body = words(&[(3u64 << 32) | 3, 0x5000, 0x2000, 0x1000]);
        body.push(20);
        body.extend([0u8; 3]);
        body.extend([0xab; 20]);
        body.extend((1u32 | PROT_EXEC).to_ne_bytes());
        body.extend(0u32.to_ne_bytes());
        body.extend(b"/usr/bin/app\0\0\0\0");
        let rec = header(MMAP2, MISC_MMAP_BUILD_ID, &body);
        let raw = raw_record(&rec, info(0, 0)).unwrap();
        match parse(&raw) {
            Ok(PerfRecord::Mmap {
                pid,
                start,
                len,
                pgoff,
                executable,
                build_id,
                path,
                ..
            }) => {
                assert_eq!((pid, start, len, pgoff), (3, 0x5000, 0x2000, 0x1000));
                assert!(executable);
                assert_eq!(build_id, Some(vec![0xab; 20]));
                assert_eq!(&path[..], b"/usr/bin/app");
            }
            other => panic!("{other:?}"),
        }
        // A build-id length the parser would assert on is refused instead.
        let mut bad = body.clone();
        bad[32] = 21;
        let rec = header(MMAP2, MISC_MMAP_BUILD_ID, &bad);
        let raw = raw_record(&rec, info(0, 0)).unwrap();
        assert!(parse(&raw).is_err());
    }
}
