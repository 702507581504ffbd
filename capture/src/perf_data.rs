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

mod layout;

use layout::check_layout;

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
    let event_of_attr = capture_events(path, &perf_file, capture)?;
    let arch = perf_file.arch().ok().flatten().map(str::to_string);
    let build_ids = perf_file
        .build_ids()
        .map_err(bad)?
        .into_iter()
        .map(|(k, v)| (k, v.build_id))
        .collect();
    let workload = workload_of(&perf_file);
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
    let read = r.read_records(
        path,
        &mut perf_file,
        &mut record_iter,
        &event_of_attr,
        arch.as_deref(),
        &mut n,
    );
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
    let shallow = stats.shallow_stacks;
    capture
        .warnings
        .extend(file_warnings(path, lost, no_user_stack, shallow, samples));
    capture.warnings.extend(refused);
    capture.processes.extend(images);
    Ok(())
}

/// Events of this file → the capture's events (merged by name across
/// files): the capture's index of each of the file's attributes.
fn capture_events(
    path: &Path,
    perf_file: &linux_perf_data::PerfFile,
    capture: &mut PerfCapture,
) -> Result<Vec<u16>> {
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
    Ok(event_of_attr)
}

/// perf's own command line after `--`: the workload it ran (empty when
/// the file does not say).
fn workload_of(perf_file: &linux_perf_data::PerfFile) -> Vec<String> {
    let cmdline = perf_file
        .feature_section_data(Feature::CMDLINE)
        .map(string_list)
        .unwrap_or_default();
    cmdline
        .iter()
        .position(|a| a == "--")
        .map(|i| cmdline[i + 1..].to_vec())
        .unwrap_or_default()
}

/// What a read file warns of: samples lost, samples without a user stack,
/// and most stacks shallow.
fn file_warnings(
    path: &Path,
    lost: u64,
    no_user_stack: u64,
    shallow: u64,
    samples: usize,
) -> Vec<ImportWarning> {
    let mut warnings = Vec::new();
    if lost > 0 {
        warnings.push(ImportWarning::Lost {
            path: path.to_path_buf(),
            lost,
        });
    }
    if no_user_stack > 0 {
        warnings.push(ImportWarning::NoUserStack {
            path: path.to_path_buf(),
            samples: no_user_stack,
        });
    }
    if shallow * 2 > samples as u64 && samples > 0 {
        warnings.push(ImportWarning::ShallowStacks {
            path: path.to_path_buf(),
            shallow,
            samples: samples as u64,
        });
    }
    warnings
}

impl FileReader<'_> {
    /// Feeds the file's records to the process table, counting them in `n`
    /// (an error names the record that could not be read or parsed).
    fn read_records<R: Read>(
        &mut self,
        path: &Path,
        perf_file: &mut linux_perf_data::PerfFile,
        record_iter: &mut linux_perf_data::PerfRecordIter<R>,
        event_of_attr: &[u16],
        arch: Option<&str>,
        n: &mut u64,
    ) -> Result<()> {
        loop {
            let record = match record_iter.next_record(perf_file) {
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
            *n += 1;
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
                    if s.regs.is_some() && arch.is_some_and(|a| a != "x86_64") {
                        return Err(unreadable(
                            path,
                            format!(
                                "recorded on {} with --call-graph dwarf; only x86_64 stacks can be unwound (record with --call-graph fp)",
                                arch.unwrap_or_default()
                            ),
                        ));
                    }
                    let event = event_of_attr.get(attr_index).copied().unwrap_or(0);
                    self.sample(&s, event);
                }
                PerfRecord::Comm {
                    pid,
                    tid,
                    exec,
                    name,
                } => self.comm(pid, tid, &name, exec),
                PerfRecord::Fork { pid, ppid, tid } => self.fork(pid, ppid, tid),
                PerfRecord::Mmap {
                    pid,
                    start,
                    len,
                    pgoff,
                    executable: true,
                    build_id,
                    path,
                    cpu_mode,
                } => self.mmap(pid, start, len, pgoff, &path, cpu_mode, build_id),
                PerfRecord::Lost { count } => self.lost += count,
                _ => {}
            }
        }
        Ok(())
    }
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
}
