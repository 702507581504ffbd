//! Captures of Linux `perf record` (perf.data, read with `linux-perf-data`)
//! turned into what a run directory gives post-processing: per process
//! image its executable mappings (with build-ids), a parent-linked stack
//! table and the samples, exactly the records of a sample stream
//! ([`blame_formats::stream`]), kept in memory.
//!
//! The records go through the recorder's own parser
//! ([`crate::perf_records`]) and process table ([`crate::process_table`]),
//! into [`crate::imported_images`]. Stacks come from the kernel's
//! callchains (`--call-graph fp`) or are unwound from the copied user
//! stack and registers (`--call-graph dwarf`) with the recorder's
//! unwinder. Kernel frames are dropped, as `blame record` does without
//! `--kernel`. perf.data holds no MPI environment, so ranks come from the
//! files: one file alone has no ranks, several files are ranks 0, 1, ...
//! in the order given.

use crate::error::{ImportError, ImportWarning, Result};
use crate::imported_images::{CaptureFiles, ImportedImages};
pub use crate::imported_images::{PerfCapture, PerfProcess};
use crate::perf_records::{self, PerfRecord, Sample};
use crate::process_table::{ProcessTable, SampleInfo, SampledStack};
use crate::unwind::{read_file as read_object, ObjectCache, MAX_FRAMES};
use blame_formats::stream::{is_memory_event, EventDesc, Sampling};
use linux_perf_data::linux_perf_event_reader::{
    CpuMode, PerfEventType, SamplingPolicy, SoftwareCounterType,
};
use linux_perf_data::{DsoKey, Feature, PerfFileReader, PerfFileRecord};
use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Kernel addresses start here on x86_64.
const KERNEL_START: u64 = 0xffff_8000_0000_0000;
/// `perf_file_header`: magic, size, attr_size, attrs, data, event_types, feature bits.
const HEADER_SIZE: u64 = 8 + 8 + 8 + 3 * 16 + 32;
const PERF_RECORD_AUXTRACE: u32 = 71;
/// The most distinct events an event index (u16) holds.
const MAX_EVENTS: usize = 1 << 16;

/// Reads perf.data files. With more than one file, file `i` is MPI rank `i`.
/// `binary_paths` are searched (by file name) for the objects whose unwind
/// tables dwarf stacks need, before their recorded paths.
pub fn read_perf_data(paths: &[PathBuf], binary_paths: &[PathBuf]) -> Result<PerfCapture> {
    let mut capture = PerfCapture::default();
    let mut objects = Some(ObjectCache::new(read_object));
    for (i, path) in paths.iter().enumerate() {
        let rank = (paths.len() > 1).then_some(i as u32);
        // The parser is not ours: a panic on a malformed file is a read error, not a crash.
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            read_file(path, rank, binary_paths, &mut objects, &mut capture)
        }));
        match read {
            Ok(r) => r?,
            Err(_) => {
                return Err(unreadable(
                    path,
                    "malformed perf.data (its records could not be parsed)".into(),
                ))
            }
        }
    }
    if capture.processes.is_empty() {
        return Err(ImportError::NoSamples {
            paths: paths.to_vec(),
        });
    }
    Ok(capture)
}

fn unreadable(path: &Path, what: String) -> ImportError {
    ImportError::Unreadable {
        path: path.to_path_buf(),
        what,
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ImportError + '_ {
    move |source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// One file's records fed to the process table.
struct FileReader<'a> {
    table: ProcessTable<ImportedImages, CaptureFiles<'a>>,
    /// perf's own command line after `--`: the workload, for the image whose comm matches.
    workload: Vec<String>,
    build_ids: HashMap<DsoKey, Vec<u8>>,
    frames: Vec<u64>,
    lost: u64,
    no_user_stack: u64,
}

fn read_file(
    path: &Path,
    rank: Option<u32>,
    binary_paths: &[PathBuf],
    objects: &mut Option<ObjectCache>,
    capture: &mut PerfCapture,
) -> Result<()> {
    let file = blame_formats::files::open_regular(path).map_err(io(path))?;
    let mut file = std::io::BufReader::new(file);
    check_layout(path, &mut file)?;
    file.seek(SeekFrom::Start(0)).map_err(io(path))?;
    let bad =
        |e: linux_perf_data::Error| unreadable(path, format!("not a readable perf.data: {e}"));
    let PerfFileReader {
        mut perf_file,
        mut record_iter,
    } = PerfFileReader::parse_file(file).map_err(bad)?;
    if perf_file.is_stats() {
        return Err(unreadable(
            path,
            "written by `perf stat record`: it holds counts, not samples".into(),
        ));
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
            unreadable(
                path,
                format!("more than {MAX_EVENTS} distinct events, more than blame can index"),
            )
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
    let host = perf_file
        .hostname()
        .ok()
        .flatten()
        .unwrap_or_default()
        .to_string();
    let sink = ImportedImages::new(path, rank, host);
    let source = CaptureFiles::new(binary_paths);
    let objects_of_file = objects
        .take()
        .expect("the object cache is put back after each file");
    let mut r = FileReader {
        table: ProcessTable::new(sink, source, objects_of_file),
        workload,
        build_ids,
        frames: Vec::with_capacity(128),
        lost: 0,
        no_user_stack: 0,
    };
    let mut n = 0u64;
    let read = (|| -> Result<()> {
        loop {
            let record = match record_iter.next_record(&mut perf_file) {
                Ok(Some(r)) => r,
                Ok(None) => break,
                Err(e) => {
                    return Err(unreadable(
                        path,
                        format!(
                            "record {n} cannot be read: {e} (is the file cut short or corrupt?)"
                        ),
                    ))
                }
            };
            n += 1;
            let PerfFileRecord::EventRecord { attr_index, record } = record else {
                continue;
            };
            let parsed = perf_records::parse(&record).map_err(|e| {
                unreadable(
                    path,
                    format!("record {n} ({:?}) is malformed: {e}", record.record_type),
                )
            })?;
            match parsed {
                PerfRecord::Sample(s) => {
                    if s.regs.is_some() && arch.as_deref().is_some_and(|a| a != "x86_64") {
                        return Err(unreadable(
                            path,
                            format!(
                                "recorded on {} with --call-graph dwarf; only x86_64 stacks can be unwound (record with --call-graph fp)",
                                arch.as_deref().unwrap_or_default()
                            ),
                        ));
                    }
                    let event = event_of_attr.get(attr_index).copied().unwrap_or(0);
                    r.sample(&s, event);
                }
                PerfRecord::Comm {
                    pid,
                    tid,
                    exec,
                    name,
                } => r.comm(pid, tid, &name, exec),
                PerfRecord::Fork { pid, ppid, tid } => r.fork(pid, ppid, tid),
                PerfRecord::Mmap {
                    pid,
                    start,
                    len,
                    pgoff,
                    executable: true,
                    build_id,
                    path,
                    cpu_mode,
                } => r.mmap(pid, start, len, pgoff, &path, cpu_mode, build_id),
                PerfRecord::Lost { count } => r.lost += count,
                _ => {}
            }
        }
        Ok(())
    })();
    let FileReader {
        table,
        lost,
        no_user_stack,
        ..
    } = r;
    let mut table = table;
    table.finish(0);
    let (sink, source, stats, objects_of_file) = table.into_parts();
    *objects = Some(objects_of_file);
    read?;
    if n == 0 {
        return Err(unreadable(path, "the data section holds no records".into()));
    }
    let (images, refused) = (sink.into_images(), source.refused);
    let samples: usize = images.iter().map(|p| p.samples.len()).sum();
    if lost > 0 {
        capture.warnings.push(ImportWarning::Lost {
            path: path.to_path_buf(),
            lost,
        });
    }
    if no_user_stack > 0 {
        capture.warnings.push(ImportWarning::NoUserStack {
            path: path.to_path_buf(),
            samples: no_user_stack,
        });
    }
    let shallow = stats.shallow_stacks;
    if shallow * 2 > samples as u64 && samples > 0 {
        capture.warnings.push(ImportWarning::ShallowStacks {
            path: path.to_path_buf(),
            shallow,
            samples: samples as u64,
        });
    }
    capture.warnings.extend(refused);
    capture.processes.extend(images);
    Ok(())
}

/// Checks the file header's sections against the file's length before the
/// parser trusts them: a cut or corrupt file is refused with a reason
/// instead of being read past its end (or allocating what a bad length claims).
fn check_layout<R: Read + Seek>(path: &Path, f: &mut R) -> Result<()> {
    let len = f.seek(SeekFrom::End(0)).map_err(io(path))?;
    f.seek(SeekFrom::Start(0)).map_err(io(path))?;
    let err = |what: String| unreadable(path, what);
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
        memory: is_memory_event(&name),
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
    /// Makes `pid` known to the table (a file's processes are created by
    /// their first record of any kind).
    fn known(&mut self, pid: i32) -> Option<u32> {
        let pid = u32::try_from(pid).ok().filter(|&p| p > 0)?;
        self.table.adopt(pid);
        Some(pid)
    }

    fn fork(&mut self, pid: i32, ppid: i32, tid: i32) {
        if pid != tid || pid <= 0 || self.table.is_live(pid as u32) {
            return;
        }
        // A child of a process the file does not show (perf itself) is
        // created by its own first record.
        if ppid > 0 && self.table.is_live(ppid as u32) {
            self.table.fork(pid as u32, ppid as u32, tid as u32);
        }
    }

    /// A thread's name; with `exec`, the process replaced its image.
    fn comm(&mut self, pid: i32, tid: i32, name: &str, exec: bool) {
        let Some(pid) = self.known(pid) else {
            return;
        };
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
        if exec {
            self.table.exec(pid, name, 0);
            if let Some(p) = self.table.process_mut(pid) {
                p.command = command;
            }
        } else {
            self.table.thread_name(pid, tid as u32, name);
            match self.table.process_mut(pid) {
                Some(p) if pid as i32 == tid && p.command.is_empty() => p.command = command,
                _ => {}
            }
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
        let Some(pid) = self.known(pid) else {
            return;
        };
        let end = start.saturating_add(len);
        self.table.mmap(pid, start, end, pgoff, &recorded, build_id);
    }

    fn sample(&mut self, s: &Sample, event: u16) {
        let Some(pid) = s.pid.filter(|&p| p > 0) else {
            self.no_user_stack += 1;
            return;
        };
        let pid = pid as u32;
        self.table.adopt(pid);
        let mut frames = std::mem::take(&mut self.frames);
        frames.clear();
        let stack = match (s.regs, &s.stack) {
            (Some((bp, sp, ip)), Some(stack)) => SampledStack::Raw {
                ip,
                sp,
                bp,
                stack,
                kernel: &[],
            },
            _ => {
                frames.extend(s.user_chain.iter().filter(|&&a| a < KERNEL_START));
                frames.truncate(MAX_FRAMES);
                if frames.is_empty() {
                    if let (Some(ip), CpuMode::User) = (s.ip, s.cpu_mode) {
                        frames.push(ip);
                    } else if let Some((_, _, ip)) = s.regs {
                        // Sampled in the kernel: the user-space pc it entered from.
                        frames.push(ip);
                    }
                }
                if frames.is_empty() {
                    self.no_user_stack += 1;
                    self.frames = frames;
                    return;
                }
                SampledStack::Frames(&frames)
            }
        };
        let info = SampleInfo {
            tid: s.tid.unwrap_or(pid as i32) as u32,
            time_ns: s.time.unwrap_or(0),
            event,
            weight: s.period.unwrap_or(1),
            data_address: s.addr.filter(|&a| a != 0),
        };
        self.table.sample(pid, &info, stack);
        self.frames = frames;
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
}
