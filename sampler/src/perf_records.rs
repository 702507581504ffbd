//! Parsing of the kernel's perf records, for the sample layout the sampler
//! asks for (see [`Layout`]). Pure byte parsing: no syscalls, testable alone.

/// PERF_RECORD_* types the sampler reads.
const MMAP: u32 = 1;
const LOST: u32 = 2;
const COMM: u32 = 3;
const EXIT: u32 = 4;
const FORK: u32 = 7;
const SAMPLE: u32 = 9;
const MMAP2: u32 = 10;

const MISC_COMM_EXEC: u16 = 1 << 13;
const MISC_MMAP_BUILD_ID: u16 = 1 << 14;

pub const SAMPLE_IP: u64 = 1 << 0;
pub const SAMPLE_TID: u64 = 1 << 1;
pub const SAMPLE_TIME: u64 = 1 << 2;
pub const SAMPLE_ADDR: u64 = 1 << 3;
pub const SAMPLE_CALLCHAIN: u64 = 1 << 5;
pub const SAMPLE_CPU: u64 = 1 << 7;
pub const SAMPLE_PERIOD: u64 = 1 << 8;
pub const SAMPLE_REGS_USER: u64 = 1 << 12;
pub const SAMPLE_STACK_USER: u64 = 1 << 13;
pub const SAMPLE_IDENTIFIER: u64 = 1 << 16;

/// x86_64 user registers the dwarf unwinder needs: BP, SP, IP (perf_regs.h order).
pub const REGS_MASK: u64 = (1 << 6) | (1 << 7) | (1 << 8);

/// Callchain entries at or above this are context markers (PERF_CONTEXT_*).
const CONTEXT_MAX: u64 = u64::MAX - 4095;
const CONTEXT_USER: u64 = u64::MAX - 511;

/// What each sample carries: the `sample_type` bits the events were opened with.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    pub sample_type: u64,
    pub regs_mask: u64,
}

impl Layout {
    /// Size of the sample_id trailer of non-sample records (sample_id_all).
    fn trailer_len(&self) -> usize {
        let t = self.sample_type;
        8 * [SAMPLE_TID, SAMPLE_TIME, SAMPLE_CPU, SAMPLE_IDENTIFIER]
            .iter()
            .filter(|&&b| t & b != 0)
            .count()
    }

    fn trailer(&self, body: &[u8]) -> Option<Trailer> {
        let len = self.trailer_len();
        let mut r = Reader::new(body.get(body.len().checked_sub(len)?..)?);
        let mut t = Trailer::default();
        if self.sample_type & SAMPLE_TID != 0 {
            t.pid = r.u32()?;
            t.tid = r.u32()?;
        }
        if self.sample_type & SAMPLE_TIME != 0 {
            t.time = r.u64()?;
        }
        Some(t)
    }
}

#[derive(Default, Clone, Copy)]
struct Trailer {
    pid: u32,
    tid: u32,
    time: u64,
}

/// One sample, borrowing its variable-length parts from the record bytes.
#[derive(Debug)]
pub struct RawSample<'a> {
    pub id: u64,
    pub ip: u64,
    pub pid: u32,
    pub tid: u32,
    pub time: u64,
    pub addr: Option<u64>,
    pub period: u64,
    /// User-space callchain (context markers and kernel frames removed), innermost first.
    pub callchain: Vec<u64>,
    /// Kernel frames of the callchain, innermost first.
    pub kernel_chain: Vec<u64>,
    /// (bp, sp, ip) when user registers were sampled and the thread was in user mode.
    pub regs: Option<(u64, u64, u64)>,
    pub stack: &'a [u8],
}

/// A parsed record.
#[derive(Debug)]
pub enum PerfRecord<'a> {
    Sample(RawSample<'a>),
    Mmap {
        pid: u32,
        start: u64,
        len: u64,
        pgoff: u64,
        executable: bool,
        build_id: Vec<u8>,
        path: String,
        time: u64,
    },
    Comm {
        pid: u32,
        tid: u32,
        exec: bool,
        name: String,
        time: u64,
    },
    Fork {
        pid: u32,
        ppid: u32,
        tid: u32,
        time: u64,
    },
    Exit {
        pid: u32,
        tid: u32,
        time: u64,
    },
    Lost {
        count: u64,
        time: u64,
    },
    Other {
        kind: u32,
    },
}

impl PerfRecord<'_> {
    /// The record's time stamp (0 when it has none), for ordering records of several ring buffers.
    pub fn time(&self) -> u64 {
        match self {
            PerfRecord::Sample(s) => s.time,
            PerfRecord::Mmap { time, .. }
            | PerfRecord::Comm { time, .. }
            | PerfRecord::Fork { time, .. }
            | PerfRecord::Exit { time, .. }
            | PerfRecord::Lost { time, .. } => *time,
            PerfRecord::Other { .. } => 0,
        }
    }
}

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn new(b: &'a [u8]) -> Self {
        Reader { b, pos: 0 }
    }
    fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(s)
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_ne_bytes(self.bytes(8)?.try_into().ok()?))
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_ne_bytes(self.bytes(4)?.try_into().ok()?))
    }
    fn rest(&self) -> &'a [u8] {
        &self.b[self.pos.min(self.b.len())..]
    }
}

fn c_string(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// Parses one record (header included). `None` for a malformed record.
pub fn parse<'a>(record: &'a [u8], layout: &Layout) -> Option<PerfRecord<'a>> {
    let mut h = Reader::new(record);
    let kind = h.u32()?;
    let misc = u16::from_ne_bytes(h.bytes(2)?.try_into().ok()?);
    let _size = h.bytes(2)?;
    let body = h.rest();
    let mut r = Reader::new(body);
    Some(match kind {
        SAMPLE => PerfRecord::Sample(parse_sample(body, layout)?),
        MMAP | MMAP2 => {
            let pid = r.u32()?;
            let _tid = r.u32()?;
            let start = r.u64()?;
            let len = r.u64()?;
            let pgoff = r.u64()?;
            let mut build_id = Vec::new();
            let mut executable = true;
            if kind == MMAP2 {
                if misc & MISC_MMAP_BUILD_ID != 0 {
                    let id_len = r.bytes(1)?[0] as usize;
                    let _reserved = r.bytes(3)?;
                    let id = r.bytes(20)?;
                    build_id = id[..id_len.min(20)].to_vec();
                } else {
                    let _maj_min_ino_gen = r.bytes(24)?;
                }
                let prot = r.u32()?;
                let _flags = r.u32()?;
                executable = prot & libc::PROT_EXEC as u32 != 0;
            }
            let trailer = layout.trailer(body).unwrap_or_default();
            let path_end = body.len() - layout.trailer_len().min(body.len());
            let path = c_string(body.get(r.pos..path_end).unwrap_or_default());
            PerfRecord::Mmap {
                pid,
                start,
                len,
                pgoff,
                executable,
                build_id,
                path,
                time: trailer.time,
            }
        }
        COMM => {
            let pid = r.u32()?;
            let tid = r.u32()?;
            let trailer = layout.trailer(body).unwrap_or_default();
            let name_end = body.len() - layout.trailer_len().min(body.len());
            PerfRecord::Comm {
                pid,
                tid,
                exec: misc & MISC_COMM_EXEC != 0,
                name: c_string(body.get(r.pos..name_end).unwrap_or_default()),
                time: trailer.time,
            }
        }
        FORK | EXIT => {
            let pid = r.u32()?;
            let ppid = r.u32()?;
            let tid = r.u32()?;
            let _ptid = r.u32()?;
            let time = r.u64()?;
            if kind == FORK {
                PerfRecord::Fork {
                    pid,
                    ppid,
                    tid,
                    time,
                }
            } else {
                PerfRecord::Exit { pid, tid, time }
            }
        }
        LOST => {
            let _id = r.u64()?;
            let count = r.u64()?;
            let time = layout.trailer(body).map(|t| t.time).unwrap_or(0);
            PerfRecord::Lost { count, time }
        }
        kind => PerfRecord::Other { kind },
    })
}

fn parse_sample<'a>(body: &'a [u8], layout: &Layout) -> Option<RawSample<'a>> {
    let t = layout.sample_type;
    let mut r = Reader::new(body);
    let mut s = RawSample {
        id: 0,
        ip: 0,
        pid: 0,
        tid: 0,
        time: 0,
        addr: None,
        period: 1,
        callchain: Vec::new(),
        kernel_chain: Vec::new(),
        regs: None,
        stack: &[],
    };
    if t & SAMPLE_IDENTIFIER != 0 {
        s.id = r.u64()?;
    }
    if t & SAMPLE_IP != 0 {
        s.ip = r.u64()?;
    }
    if t & SAMPLE_TID != 0 {
        s.pid = r.u32()?;
        s.tid = r.u32()?;
    }
    if t & SAMPLE_TIME != 0 {
        s.time = r.u64()?;
    }
    if t & SAMPLE_ADDR != 0 {
        s.addr = Some(r.u64()?);
    }
    if t & SAMPLE_CPU != 0 {
        r.u64()?;
    }
    if t & SAMPLE_PERIOD != 0 {
        s.period = r.u64()?;
    }
    if t & SAMPLE_CALLCHAIN != 0 {
        let n = r.u64()? as usize;
        if n > 4096 {
            return None;
        }
        let mut in_user = false;
        for _ in 0..n {
            let ip = r.u64()?;
            if ip >= CONTEXT_MAX {
                in_user = ip == CONTEXT_USER;
                continue;
            }
            if in_user {
                s.callchain.push(ip);
            } else {
                s.kernel_chain.push(ip);
            }
        }
    }
    if t & SAMPLE_REGS_USER != 0 {
        let abi = r.u64()?;
        if abi != 0 {
            let mut values = [0u64; 64];
            let n = layout.regs_mask.count_ones() as usize;
            for v in values.iter_mut().take(n) {
                *v = r.u64()?;
            }
            // Registers come in mask bit order: BP (6), SP (7), IP (8).
            if layout.regs_mask == REGS_MASK {
                s.regs = Some((values[0], values[1], values[2]));
            }
        }
    }
    if t & SAMPLE_STACK_USER != 0 {
        let size = r.u64()? as usize;
        if size > 0 {
            let data = r.bytes(size)?;
            let dyn_size = r.u64()? as usize;
            s.stack = &data[..dyn_size.min(size)];
        }
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    const LAYOUT: Layout = Layout {
        sample_type: SAMPLE_IDENTIFIER
            | SAMPLE_IP
            | SAMPLE_TID
            | SAMPLE_TIME
            | SAMPLE_PERIOD
            | SAMPLE_CALLCHAIN
            | SAMPLE_REGS_USER
            | SAMPLE_STACK_USER,
        regs_mask: REGS_MASK,
    };

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
        let Some(PerfRecord::Sample(s)) = parse(&rec, &LAYOUT) else {
            panic!("not a sample")
        };
        assert_eq!(
            (s.id, s.ip, s.pid, s.tid, s.time),
            (42, 0x401000, 5, 7, 1_000)
        );
        assert_eq!(s.period, 250_000);
        assert_eq!(s.callchain, vec![0x401000, 0x401200]);
        assert_eq!(s.kernel_chain, vec![0xffff_ffff_8100_0000]);
        assert_eq!(s.regs, Some((0x7ffd_0010, 0x7ffd_0000, 0x401000)));
        assert_eq!(s.stack.len(), 12, "dyn_size trims the copy");
    }

    #[test]
    fn truncated_sample_is_rejected() {
        let rec = header(SAMPLE, 0, &words(&[42, 0x401000]));
        assert!(parse(&rec, &LAYOUT).is_none());
    }

    #[test]
    fn comm_exec_with_trailer() {
        let mut body = 9u32.to_ne_bytes().to_vec();
        body.extend(9u32.to_ne_bytes());
        body.extend(b"solver\0\0");
        body.extend(words(&[(9u64 << 32) | 9, 777, 42]));
        let layout = Layout {
            sample_type: SAMPLE_IDENTIFIER | SAMPLE_TID | SAMPLE_TIME,
            regs_mask: 0,
        };
        match parse(&header(COMM, MISC_COMM_EXEC, &body), &layout) {
            Some(PerfRecord::Comm {
                pid,
                exec,
                name,
                time,
                ..
            }) => assert_eq!((pid, exec, name.as_str(), time), (9, true, "solver", 777)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn mmap2_with_build_id() {
        let mut body = words(&[(3u64 << 32) | 3, 0x5000, 0x2000, 0x1000]);
        body.push(20);
        body.extend([0u8; 3]);
        body.extend([0xab; 20]);
        body.extend((libc::PROT_READ | libc::PROT_EXEC).to_ne_bytes());
        body.extend(0u32.to_ne_bytes());
        body.extend(b"/usr/bin/app\0\0\0\0");
        let layout = Layout {
            sample_type: 0,
            regs_mask: 0,
        };
        match parse(&header(MMAP2, MISC_MMAP_BUILD_ID, &body), &layout) {
            Some(PerfRecord::Mmap {
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
                assert_eq!(build_id, vec![0xab; 20]);
                assert_eq!(path, "/usr/bin/app");
            }
            other => panic!("{other:?}"),
        }
    }
}
