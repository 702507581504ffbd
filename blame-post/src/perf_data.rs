//! Captures of Linux `perf record` (perf.data, read with `linux-perf-data`)
//! turned into what a run directory gives post-processing: per process
//! image its executable mappings (with build-ids), a parent-linked stack
//! table and the samples, exactly the records of a sample stream
//! ([`blame_formats::stream`]), kept in memory.
//!
//! Stacks come from the kernel's callchains (`--call-graph fp`) or are
//! unwound here from the copied user stack and registers (`--call-graph
//! dwarf`) with the recorder's own unwinder ([`blame_sampler::unwind`]).
//! Kernel frames are dropped, as `blame record` does without `--kernel`.
//! Processes follow fork, exec and comm records: one image per exec, as
//! in a recording. perf.data holds no MPI environment, so ranks come from
//! the files: one file alone has no ranks, several files are ranks 0, 1,
//! ... in the order given.

use crate::error::{io, PostError, Result};
use blame_formats::results::ProcessInfo;
use blame_formats::stream::{is_launcher, is_memory_event, EventDesc, Mapping, Sample, Sampling};
use blame_formats::stream::{StackInterner, StackNode};
use blame_sampler::unwind::{ObjectCache, ProcessUnwinder};
use linux_perf_data::linux_perf_event_reader::{
    CpuMode, EventRecord, Mmap2FileId, PerfEventType, RawEventRecord, ReadFormat, RecordType,
    SampleFormat, SamplingPolicy, SoftwareCounterType,
};
use linux_perf_data::{DsoKey, Feature, PerfFileReader, PerfFileRecord};
use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// One process image of a capture, in the shape of a sample stream.
#[derive(Debug, Clone)]
pub struct PerfProcess {
    /// The perf.data file it was read from.
    pub file: PathBuf,
    pub info: ProcessInfo,
    /// The executable mappings, in the order they were made.
    pub mappings: Vec<Mapping>,
    /// Stack table: entry `i` is (parent, address) of stack id `i`; entry 0 is the empty stack.
    pub stacks: Vec<(u32, u64)>,
    /// Samples; `event` indexes [`PerfCapture::events`], `weight` is the sample's period.
    pub samples: Vec<Sample>,
}

/// The processes and events of one or more perf.data files.
#[derive(Debug, Clone, Default)]
pub struct PerfCapture {
    pub events: Vec<EventDesc>,
    pub processes: Vec<PerfProcess>,
    /// Not fatal: lost samples, stacks that could not be walked, unwinding refused.
    pub warnings: Vec<String>,
}

/// x86_64 `perf_regs.h` numbers of the registers the unwinder needs.
const REG_BP: u64 = 6;
const REG_SP: u64 = 7;
const REG_IP: u64 = 8;
/// Callchain entries at or above this are context markers (PERF_CONTEXT_*).
const CONTEXT_MAX: u64 = u64::MAX - 4095;
const CONTEXT_USER: u64 = u64::MAX - 511;
/// Kernel addresses start here on x86_64.
const KERNEL_START: u64 = 0xffff_8000_0000_0000;
const PROT_EXEC: u32 = 4;
/// `perf_file_header`: magic, size, attr_size, attrs, data, event_types, feature bits.
const HEADER_SIZE: u64 = 8 + 8 + 8 + 3 * 16 + 32;
const PERF_RECORD_AUXTRACE: u32 = 71;

/// Reads perf.data files. With more than one file, file `i` is MPI rank `i`.
/// `binary_paths` are searched (by file name) for the objects whose unwind
/// tables dwarf stacks need, before their recorded paths.
pub fn read_perf_data(paths: &[PathBuf], binary_paths: &[PathBuf]) -> Result<PerfCapture> {
    let mut capture = PerfCapture::default();
    let mut objects = ObjectCache::default();
    for (i, path) in paths.iter().enumerate() {
        let rank = (paths.len() > 1).then_some(i as u32);
        // The parser is not ours: a panic on a malformed file is a read error, not a crash.
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            read_file(path, rank, binary_paths, &mut objects, &mut capture)
        }));
        match read {
            Ok(r) => r?,
            Err(_) => {
                return Err(PostError::Input(format!(
                    "{}: malformed perf.data (its records could not be parsed)",
                    path.display()
                )))
            }
        }
    }
    if capture.processes.is_empty() {
        return Err(PostError::Input(format!(
            "{}: no samples with user-space stacks in {}",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            if paths.len() == 1 {
                "this capture"
            } else {
                "these captures"
            }
        )));
    }
    Ok(capture)
}

/// The state of one live process while its file is read.
struct Live {
    /// Index of its current image in `PerfCapture::processes`.
    image: usize,
    unwinder: ProcessUnwinder,
    interner: StackInterner,
}

struct FileReader<'a> {
    path: &'a Path,
    rank: Option<u32>,
    host: String,
    /// perf's own command line after `--`: the workload, for the image whose comm matches.
    workload: Vec<String>,
    binary_paths: &'a [PathBuf],
    build_ids: HashMap<DsoKey, Vec<u8>>,
    live: HashMap<i32, Live>,
    /// Images of this file, appended to the capture at the end (those with samples).
    images: Vec<PerfProcess>,
    frames: Vec<u64>,
    nodes: Vec<StackNode>,
    lost: u64,
    no_user_stack: u64,
    shallow: u64,
    /// Objects whose unwind tables could not be used, with the reason.
    refused: Vec<String>,
}

fn read_file(
    path: &Path,
    rank: Option<u32>,
    binary_paths: &[PathBuf],
    objects: &mut ObjectCache,
    capture: &mut PerfCapture,
) -> Result<()> {
    let file = blame_formats::files::open_regular(path).map_err(io(path))?;
    let mut file = std::io::BufReader::new(file);
    check_layout(path, &mut file)?;
    file.seek(SeekFrom::Start(0)).map_err(io(path))?;
    let bad = |e: linux_perf_data::Error| {
        PostError::Input(format!("{}: not a readable perf.data: {e}", path.display()))
    };
    let PerfFileReader {
        mut perf_file,
        mut record_iter,
    } = PerfFileReader::parse_file(file).map_err(bad)?;
    if perf_file.is_stats() {
        return Err(PostError::Input(format!(
            "{}: written by `perf stat record`: it holds counts, not samples",
            path.display()
        )));
    }
    // Events of this file → the capture's events (merged by name across files).
    let mut event_of_attr = Vec::new();
    for (i, attr) in perf_file.event_attributes().iter().enumerate() {
        let desc = event_desc(attr.name(), &attr.attr, i);
        let index = match capture.events.iter().position(|e| e.name == desc.name) {
            Some(j) => j,
            None => {
                capture.events.push(desc);
                capture.events.len() - 1
            }
        };
        let index = u16::try_from(index).map_err(|_| {
            PostError::Input(format!(
                "{}: more than {} distinct events, more than blame can index",
                path.display(),
                crate::input::MAX_EVENTS
            ))
        })?;
        event_of_attr.push(index);
    }
    let arch = perf_file.arch().ok().flatten().map(str::to_string);
    let build_ids = perf_file
        .build_ids()
        .map_err(bad)?
        .into_iter()
        .map(|(k, v)| (k, v.build_id))
        .collect();
    let cmdline = perf_file
        .feature_section_data(Feature::CMDLINE)
        .map(string_list)
        .unwrap_or_default();
    let workload = cmdline
        .iter()
        .position(|a| a == "--")
        .map(|i| cmdline[i + 1..].to_vec())
        .unwrap_or_default();
    let mut r = FileReader {
        path,
        rank,
        host: perf_file
            .hostname()
            .ok()
            .flatten()
            .unwrap_or_default()
            .to_string(),
        workload,
        binary_paths,
        build_ids,
        live: HashMap::new(),
        images: Vec::new(),
        frames: Vec::with_capacity(128),
        nodes: Vec::new(),
        lost: 0,
        no_user_stack: 0,
        shallow: 0,
        refused: Vec::new(),
    };
    let mut n = 0u64;
    loop {
        let record = match record_iter.next_record(&mut perf_file) {
            Ok(Some(r)) => r,
            Ok(None) => break,
            Err(e) => {
                return Err(PostError::Input(format!(
                    "{}: record {n} cannot be read: {e} (is the file cut short or corrupt?)",
                    path.display()
                )))
            }
        };
        n += 1;
        let PerfFileRecord::EventRecord { attr_index, record } = record else {
            continue;
        };
        if let Some(what) = unparsable(&record) {
            return Err(PostError::Input(format!(
                "{}: record {n} ({:?}) is malformed: {what}",
                path.display(),
                record.record_type
            )));
        }
        let parsed = record.parse().map_err(|e| {
            PostError::Input(format!(
                "{}: record {n} ({:?}) is malformed: {e}",
                path.display(),
                record.record_type
            ))
        })?;
        match parsed {
            EventRecord::Sample(s) => {
                if s.user_regs.is_some() && arch.as_deref().is_some_and(|a| a != "x86_64") {
                    return Err(PostError::Input(format!(
                        "{}: recorded on {} with --call-graph dwarf; only x86_64 stacks can be unwound (record with --call-graph fp)",
                        path.display(),
                        arch.as_deref().unwrap_or_default()
                    )));
                }
                let event = event_of_attr.get(attr_index).copied().unwrap_or(0);
                r.sample(&s, event);
            }
            EventRecord::Comm(c) => {
                let name = String::from_utf8_lossy(&c.name.as_slice()).into_owned();
                r.comm(c.pid, c.tid, &name, c.is_execve);
            }
            EventRecord::Fork(f) => r.fork(f.pid, f.ppid, f.tid),
            EventRecord::Mmap(m) if m.is_executable => {
                let path = m.path.as_slice();
                r.mmap(
                    m.pid,
                    m.address,
                    m.length,
                    m.page_offset,
                    &path,
                    m.cpu_mode,
                    None,
                    objects,
                );
            }
            EventRecord::Mmap2(m) if m.protection & PROT_EXEC != 0 => {
                let build_id = match &m.file_id {
                    Mmap2FileId::BuildId(b) => Some(b.clone()),
                    Mmap2FileId::InodeAndVersion(_) => None,
                };
                let path = m.path.as_slice();
                r.mmap(
                    m.pid,
                    m.address,
                    m.length,
                    m.page_offset,
                    &path,
                    m.cpu_mode,
                    build_id,
                    objects,
                );
            }
            EventRecord::Lost(l) => r.lost += l.count,
            _ => {}
        }
    }
    if n == 0 {
        return Err(PostError::Input(format!(
            "{}: the data section holds no records",
            path.display()
        )));
    }
    r.finish(capture);
    Ok(())
}

/// Checks the file header's sections against the file's length before the
/// parser trusts them: a cut or corrupt file is refused with a reason
/// instead of being read past its end (or allocating what a bad length claims).
fn check_layout<R: Read + Seek>(path: &Path, f: &mut R) -> Result<()> {
    let len = f.seek(SeekFrom::End(0)).map_err(io(path))?;
    f.seek(SeekFrom::Start(0)).map_err(io(path))?;
    let err = |what: String| PostError::Input(format!("{}: {what}", path.display()));
    let mut header = [0u8; HEADER_SIZE as usize];
    let got = read_up_to(f, &mut header).map_err(io(path))?;
    if got < 8 || &header[..8] != b"PERFILE2" {
        return Err(err(if &header[..8.min(got)] == b"2ELIFREP" {
            "a big-endian perf.data: only little-endian captures are supported".into()
        } else {
            "not a perf.data file (no PERFILE2 magic); give the file `perf record -o` wrote".into()
        }));
    }
    let word = |i: usize| u64::from_le_bytes(header[8 * i..8 * i + 8].try_into().unwrap());
    if got >= 16 && word(1) == 16 {
        return Err(err("perf.data written to a pipe (`perf record -o -`); convert it with `perf inject -i IN -o OUT.data` first".into()));
    }
    if (got as u64) < HEADER_SIZE {
        return Err(err(format!(
            "truncated perf.data: {len} bytes, shorter than perf's {HEADER_SIZE}-byte header"
        )));
    }
    let attr_size = word(2);
    let section = |i: usize| (word(i), word(i + 1));
    let ((attrs_at, attrs_len), (data_at, data_len), (types_at, types_len)) =
        (section(3), section(5), section(7));
    let within = |at: u64, size: u64| at.checked_add(size).is_some_and(|end| end <= len);
    if !(8..=4096).contains(&attr_size) || !within(attrs_at, attrs_len) {
        return Err(err(format!(
            "corrupt perf.data header: attribute section at {attrs_at} of {attrs_len} bytes (size {attr_size} each) in a {len}-byte file"
        )));
    }
    if data_len == 0 {
        return Err(err("the perf.data header says the data section is empty: was `perf record` stopped before it finished writing the file?".into()));
    }
    if !within(data_at, data_len) {
        return Err(err(format!(
            "truncated perf.data: the header says the samples run to byte {} but the file has {len} bytes (was the copy cut short, or `perf record` killed?)",
            data_at.saturating_add(data_len)
        )));
    }
    if types_len != 0 && !within(types_at, types_len) {
        return Err(err(format!(
            "corrupt perf.data header: event types at {types_at} of {types_len} bytes in a {len}-byte file"
        )));
    }
    let bits = [word(9), word(10), word(11), word(12)];
    let features: Vec<u32> = (0..256u32)
        .filter(|&b| bits[(b / 64) as usize] & (1 << (b % 64)) != 0)
        .collect();
    let table_at = data_at + data_len;
    if !within(table_at, features.len() as u64 * 16) {
        return Err(err(format!(
            "truncated perf.data: {len} bytes, but the header's feature sections start at byte {table_at} (was the copy cut short?)"
        )));
    }
    f.seek(SeekFrom::Start(table_at)).map_err(io(path))?;
    let mut table = vec![0u8; features.len() * 16];
    f.read_exact(&mut table).map_err(io(path))?;
    let le = |b: &[u8]| u64::from_le_bytes(b[..8].try_into().unwrap());
    for (k, &feature) in features.iter().enumerate() {
        let (at, size) = (le(&table[16 * k..]), le(&table[16 * k + 8..]));
        if !within(at, size) {
            return Err(err(format!(
                "truncated perf.data: header feature {feature} claims bytes {at}..{} of a {len}-byte file (was the copy cut short?)",
                at.saturating_add(size)
            )));
        }
        if feature == Feature::EVENT_DESC.0 {
            f.seek(SeekFrom::Start(at)).map_err(io(path))?;
            let mut desc = vec![0u8; size as usize];
            f.read_exact(&mut desc).map_err(io(path))?;
            if !event_desc_fits(&desc) {
                return Err(err("corrupt perf.data: the event descriptions (HEADER_EVENT_DESC) run past their section".into()));
            }
        }
    }
    if types_len != 0 {
        // Old files: (attr, id section) pairs; every id section must lie in the file.
        let entry = attr_size + 16;
        f.seek(SeekFrom::Start(types_at)).map_err(io(path))?;
        let mut types = vec![0u8; types_len as usize];
        f.read_exact(&mut types).map_err(io(path))?;
        for e in types.chunks_exact(entry as usize) {
            let ids = &e[attr_size as usize..];
            if !within(le(ids), le(&ids[8..])) {
                return Err(err(
                    "corrupt perf.data: an event's id list lies outside the file".into(),
                ));
            }
        }
    }
    // Records the parser sizes from their contents (AUX trace data) must fit in the data section.
    f.seek(SeekFrom::Start(data_at)).map_err(io(path))?;
    let mut records = std::io::BufReader::with_capacity(1 << 16, &mut *f);
    let (mut at, end) = (data_at, data_at + data_len);
    let mut head = [0u8; 16];
    while at + 8 <= end {
        if read_up_to(&mut records, &mut head[..8]).map_err(io(path))? < 8 {
            break;
        }
        let kind = u32::from_le_bytes(head[..4].try_into().unwrap());
        let size = u16::from_le_bytes(head[6..8].try_into().unwrap()) as u64;
        if size < 8 {
            return Err(err(format!(
                "corrupt perf.data: the record at byte {at} claims {size} bytes"
            )));
        }
        let mut skip = size - 8;
        if kind == PERF_RECORD_AUXTRACE && skip >= 8 {
            if read_up_to(&mut records, &mut head[8..]).map_err(io(path))? < 8 {
                break;
            }
            skip = (skip - 8).saturating_add(le(&head[8..]));
        }
        let next = at
            .saturating_add(8 + 8 * (kind == PERF_RECORD_AUXTRACE && size >= 16) as u64)
            .saturating_add(skip);
        if next > end {
            return Err(err(format!(
                "truncated perf.data: the record at byte {at} runs past the data section's end at byte {end}"
            )));
        }
        records.seek_relative(skip as i64).map_err(io(path))?;
        at = next;
    }
    Ok(())
}

/// What in a record the parser would trip over (it panics on these rather than failing).
fn unparsable(record: &RawEventRecord) -> Option<&'static str> {
    const MMAP_BUILD_ID: u16 = 1 << 14;
    match record.record_type {
        RecordType::SAMPLE if !callchain_fits(record) => Some("its callchain runs past the record"),
        RecordType::MMAP2 if record.misc & MMAP_BUILD_ID != 0 => record
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
    let mut at = 0usize;
    let mut next = || -> Option<u64> {
        let v = u64::from_le_bytes(data.get(at..at + 8)?.try_into().ok()?);
        at += 8;
        Some(v)
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

fn read_up_to<R: Read>(f: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match f.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Whether a HEADER_EVENT_DESC section's counts fit in it (the parser allocates by them).
fn event_desc_fits(s: &[u8]) -> bool {
    let u32_at = |at: usize| -> Option<u64> {
        Some(u32::from_le_bytes(s.get(at..at + 4)?.try_into().ok()?) as u64)
    };
    let (Some(nr), Some(attr_size)) = (u32_at(0), u32_at(4)) else {
        return false;
    };
    let mut at = 8u64;
    for _ in 0..nr {
        // attr, nr_ids, string (u32 length + bytes), ids.
        let Some(nr_ids) = u32_at((at + attr_size) as usize) else {
            return false;
        };
        let Some(str_len) = u32_at((at + attr_size + 4) as usize) else {
            return false;
        };
        at += attr_size + 8 + str_len + 8 * nr_ids;
        if at > s.len() as u64 {
            return false;
        }
    }
    true
}

/// A perf header string list (`perf_header_string_list`), bounded by its section.
fn string_list(s: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let Some(n) = s
        .get(..4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
    else {
        return out;
    };
    let mut rest = &s[4..];
    for _ in 0..n {
        let Some(len) = rest
            .get(..4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()) as usize)
        else {
            break;
        };
        let Some(bytes) = rest.get(4..4 + len) else {
            break;
        };
        let text = bytes.split(|&b| b == 0).next().unwrap_or_default();
        out.push(String::from_utf8_lossy(text).into_owned());
        rest = &rest[4 + len..];
    }
    out
}

/// Memory events by name, with perf's modifiers (`:u`, `/P`): misses, `perf mem` loads and stores, AMD IBS.
fn is_memory_name(name: &str) -> bool {
    let base = name.split(':').next().unwrap_or_default();
    is_memory_event(base)
        || ["mem-loads", "mem-stores", "ibs_op"]
            .iter()
            .any(|m| base.contains(m))
}

/// The event's name as perf wrote it, its sampling and unit.
fn event_desc(
    name: Option<&str>,
    attr: &linux_perf_data::linux_perf_event_reader::PerfEventAttr,
    index: usize,
) -> EventDesc {
    let clock = matches!(
        attr.type_,
        PerfEventType::Software(SoftwareCounterType::CpuClock | SoftwareCounterType::TaskClock)
    );
    let name = match name.filter(|n| !n.is_empty()) {
        Some(n) => n.to_string(),
        None => match attr.type_ {
            PerfEventType::Software(SoftwareCounterType::CpuClock) => "cpu-clock".into(),
            PerfEventType::Software(SoftwareCounterType::TaskClock) => "task-clock".into(),
            _ => format!("event{index}"),
        },
    };
    EventDesc {
        memory: is_memory_name(&name),
        sampling: match attr.sampling_policy {
            SamplingPolicy::Frequency(hz) => Sampling::Frequency(hz),
            SamplingPolicy::Period(p) => Sampling::Period(p.get()),
            SamplingPolicy::NoSampling => Sampling::Period(0),
        },
        unit: if clock { "ns" } else { "events" }.into(),
        name,
    }
}

impl FileReader<'_> {
    /// The live process `pid`, created (with no mappings) when first seen in a sample.
    fn live(&mut self, pid: i32) -> &mut Live {
        if !self.live.contains_key(&pid) {
            let image = self.new_image(pid, Vec::new(), Vec::new());
            self.live.insert(
                pid,
                Live {
                    image,
                    unwinder: ProcessUnwinder::default(),
                    interner: StackInterner::default(),
                },
            );
        }
        self.live.get_mut(&pid).expect("inserted above")
    }

    fn new_image(&mut self, pid: i32, command: Vec<String>, mappings: Vec<Mapping>) -> usize {
        self.images.push(PerfProcess {
            file: self.path.to_path_buf(),
            info: ProcessInfo {
                rank: self.rank,
                pid: pid as u32,
                host: self.host.clone(),
                launcher: false,
                command,
                samples: Vec::new(),
                lost: 0,
            },
            mappings,
            stacks: vec![(0, 0)],
            samples: Vec::new(),
        });
        self.images.len() - 1
    }

    fn fork(&mut self, pid: i32, ppid: i32, tid: i32) {
        if pid != tid || self.live.contains_key(&pid) || pid <= 0 {
            return;
        }
        let Some(parent) = self.live.get(&ppid) else {
            return;
        };
        let unwinder = parent.unwinder.clone();
        let p = &self.images[parent.image];
        let command = p.info.command.clone();
        let mappings = p
            .mappings
            .iter()
            .map(|m| Mapping {
                pid: pid as u32,
                ..m.clone()
            })
            .collect();
        let image = self.new_image(pid, command, mappings);
        self.live.insert(
            pid,
            Live {
                image,
                unwinder,
                interner: StackInterner::default(),
            },
        );
    }

    /// A thread's name; with `exec`, the process replaced its image.
    fn comm(&mut self, pid: i32, tid: i32, name: &str, exec: bool) {
        if pid <= 0 {
            return;
        }
        let command = if exec
            && !self.workload.is_empty()
            && Path::new(&self.workload[0])
                .file_name()
                .is_some_and(|f| f.to_string_lossy().starts_with(name))
        {
            // The first exec of the workload perf started gets its whole command line.
            std::mem::take(&mut self.workload)
        } else {
            vec![name.to_string()]
        };
        let rank = self.rank;
        let live = self.live(pid);
        let index = live.image;
        if exec {
            live.unwinder.clear();
            live.interner = StackInterner::default();
            if !self.images[index].samples.is_empty() {
                let image = self.new_image(pid, command, Vec::new());
                self.live.get_mut(&pid).expect("live").image = image;
                return;
            }
            let p = &mut self.images[index];
            p.mappings.clear();
            p.stacks.truncate(1);
            p.info.command = command;
            p.info.rank = rank;
        } else if pid == tid && self.images[index].info.command.is_empty() {
            self.images[index].info.command = command;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn mmap(
        &mut self,
        pid: i32,
        start: u64,
        len: u64,
        pgoff: u64,
        path: &[u8],
        cpu_mode: CpuMode,
        build_id: Option<Vec<u8>>,
        objects: &mut ObjectCache,
    ) {
        // Kernel and module mappings (pid -1), anonymous code: nothing to symbolize.
        if pid <= 0
            || path.starts_with(b"[kernel")
            || path.starts_with(b"//")
            || start >= KERNEL_START
        {
            return;
        }
        let build_id = build_id
            .filter(|b| !b.is_empty())
            .or_else(|| {
                DsoKey::detect(path, cpu_mode).and_then(|k| self.build_ids.get(&k).cloned())
            })
            .unwrap_or_default();
        let recorded = String::from_utf8_lossy(path).into_owned();
        let local = self.locate(&recorded);
        let end = start.saturating_add(len);
        self.live(pid);
        let live = self.live.get_mut(&pid).expect("created above");
        if let Some(local) = local {
            let usable = objects
                .get(&local)
                .map(|o| build_id.is_empty() || o.build_id.is_empty() || o.build_id == build_id);
            match usable {
                Some(true) => {
                    live.unwinder
                        .add_mapping(objects, &local, start, end, pgoff);
                }
                Some(false) => {
                    let why = format!("{local}: its build-id differs from the capture's; dwarf stacks through it are not unwound (pass the original with --binary-path)");
                    if !self.refused.contains(&why) {
                        self.refused.push(why);
                    }
                }
                None => {}
            }
        }
        let image = self.live(pid).image;
        let p = &mut self.images[image];
        p.mappings.retain(|m| m.start != start);
        p.mappings.push(Mapping {
            pid: pid as u32,
            start,
            end,
            file_offset: pgoff,
            path: recorded,
            build_id,
        });
    }

    /// The object file to read unwind tables from: `--binary-path` directories first, then the recorded path.
    fn locate(&self, recorded: &str) -> Option<String> {
        if recorded.starts_with('[') {
            return None;
        }
        let p = Path::new(recorded);
        let name = p.file_name()?;
        self.binary_paths
            .iter()
            .map(|d| d.join(name))
            .chain(std::iter::once(p.to_path_buf()))
            .find(|c| c.is_file())
            .map(|c| c.to_string_lossy().into_owned())
    }

    fn sample(&mut self, s: &linux_perf_data::linux_perf_event_reader::SampleRecord, event: u16) {
        let Some(pid) = s.pid.filter(|&p| p > 0) else {
            self.no_user_stack += 1;
            return;
        };
        let mut frames = std::mem::take(&mut self.frames);
        frames.clear();
        let regs = s
            .user_regs
            .as_ref()
            .and_then(|r| Some((r.get(REG_IP)?, r.get(REG_SP)?, r.get(REG_BP)?)));
        self.live(pid);
        let live = self.live.get_mut(&pid).expect("created above");
        match (regs, &s.user_stack) {
            (Some((ip, sp, bp)), Some((stack, dyn_size))) if !stack.is_empty() => {
                let bytes = stack.as_slice();
                let n = (*dyn_size as usize).min(bytes.len());
                live.unwinder.unwind(ip, sp, bp, &bytes[..n], &mut frames);
            }
            _ => {
                if let Some(chain) = &s.callchain {
                    let mut in_user = false;
                    for i in 0..chain.len() {
                        let Some(a) = chain.get(i) else { break };
                        if a >= CONTEXT_MAX {
                            in_user = a == CONTEXT_USER;
                        } else if in_user && a < KERNEL_START {
                            frames.push(a);
                        }
                    }
                    frames.truncate(blame_sampler::unwind::MAX_FRAMES);
                }
                if frames.is_empty() {
                    if let (Some(ip), CpuMode::User) = (s.ip, s.cpu_mode) {
                        frames.push(ip);
                    } else if let Some((ip, _, _)) = regs {
                        // Sampled in the kernel: the user-space pc it entered from.
                        frames.push(ip);
                    }
                }
            }
        }
        if frames.is_empty() {
            self.no_user_stack += 1;
            self.frames = frames;
            return;
        }
        if frames.len() == 1 {
            self.shallow += 1;
        }
        self.nodes.clear();
        let stack = live.interner.intern(&frames, &mut self.nodes);
        let image = live.image;
        let p = &mut self.images[image];
        for node in &self.nodes {
            p.stacks.push((node.parent, node.address));
        }
        p.samples.push(Sample {
            tid: s.tid.unwrap_or(pid) as u32,
            time_ns: s.timestamp.unwrap_or(0),
            event,
            weight: s.period.unwrap_or(1),
            stack,
            data_address: s.addr.filter(|&a| a != 0),
        });
        self.frames = frames;
    }

    fn finish(self, capture: &mut PerfCapture) {
        let file = self.path.display();
        let kept: Vec<PerfProcess> = self
            .images
            .into_iter()
            .filter(|p| !p.samples.is_empty())
            .map(|mut p| {
                p.info.launcher = is_launcher(&p.info.command);
                if p.info.launcher {
                    p.info.rank = None;
                }
                p
            })
            .collect();
        let samples: usize = kept.iter().map(|p| p.samples.len()).sum();
        if self.lost > 0 {
            capture.warnings.push(format!(
                "{file}: perf lost {} samples (PERF_RECORD_LOST); raise `perf record -m` or lower -F",
                self.lost
            ));
        }
        if self.no_user_stack > 0 {
            capture.warnings.push(format!(
                "{file}: {} samples had no user-space stack (kernel threads, idle) and were left out",
                self.no_user_stack
            ));
        }
        if self.shallow * 2 > samples as u64 && samples > 0 {
            capture.warnings.push(format!(
                "{file}: {} of {samples} samples have only the sampled address (recorded without a call graph, or code without frame pointers under --call-graph fp: --call-graph dwarf walks without them)",
                self.shallow
            ));
        }
        capture.warnings.extend(self.refused);
        capture.processes.extend(kept);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_lists_are_bounded_by_their_section() {
        let mut s = Vec::new();
        s.extend_from_slice(&3u32.to_le_bytes());
        for w in ["perf", "--"] {
            s.extend_from_slice(&8u32.to_le_bytes());
            let mut b = w.as_bytes().to_vec();
            b.resize(8, 0);
            s.extend_from_slice(&b);
        }
        // The third string claims more bytes than there are.
        s.extend_from_slice(&1000u32.to_le_bytes());
        assert_eq!(string_list(&s), vec!["perf", "--"]);
        assert!(string_list(&[1, 2]).is_empty());
    }

    #[test]
    fn event_descriptions_must_fit() {
        let mut s = Vec::new();
        s.extend_from_slice(&1u32.to_le_bytes());
        s.extend_from_slice(&8u32.to_le_bytes());
        s.extend_from_slice(&[0; 8]);
        s.extend_from_slice(&u32::MAX.to_le_bytes()); // nr_ids
        s.extend_from_slice(&0u32.to_le_bytes());
        assert!(!event_desc_fits(&s));
        let n = s.len();
        s[n - 8..n - 4].copy_from_slice(&1u32.to_le_bytes());
        s.extend_from_slice(&[0; 8]);
        assert!(event_desc_fits(&s));
    }

    #[test]
    fn layout_checks_name_what_is_wrong() {
        let path = Path::new("x.data");
        let check = |bytes: &[u8]| {
            check_layout(path, &mut std::io::Cursor::new(bytes.to_vec()))
                .unwrap_err()
                .to_string()
        };
        assert!(check(b"hello").contains("not a perf.data file"));
        assert!(check(b"").contains("not a perf.data file"));
        assert!(check(b"PERFILE2\0\0\0\0").contains("truncated"));
        let mut h = vec![0u8; HEADER_SIZE as usize];
        h[..8].copy_from_slice(b"PERFILE2");
        h[8..16].copy_from_slice(&HEADER_SIZE.to_le_bytes());
        h[16..24].copy_from_slice(&136u64.to_le_bytes());
        assert!(check(&h).contains("data section is empty"));
        h[40..48].copy_from_slice(&HEADER_SIZE.to_le_bytes());
        h[48..56].copy_from_slice(&4096u64.to_le_bytes());
        assert!(check(&h).contains("samples run to byte 4200"));
    }

    #[test]
    fn memory_events_by_name() {
        assert!(is_memory_name("cpu/mem-loads,ldlat=30/P"));
        assert!(is_memory_name("cache-misses:u"));
        assert!(is_memory_name("L1-dcache-load-misses"));
        assert!(is_memory_name("ibs_op//"));
        assert!(!is_memory_name("cpu-clock"));
        assert!(!is_memory_name("cycles:P"));
    }
}
