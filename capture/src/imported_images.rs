//! The importer's side of the process table: its [`ImageSink`] keeps each
//! process image in memory in the shape of a sample stream
//! ([`PerfProcess`]), and its [`ProcessSource`] knows nothing of the
//! processes beyond the records, only where their object files are now
//! ([`crate::locate`]).

use crate::error::ImportWarning;
use crate::locate::locate;
use crate::process_table::{ImageSink, Process, ProcessSource, SampleInfo};
use crate::unwind::ObjectCache;
use blame_formats::results::ProcessInfo;
use blame_formats::stream::{is_launcher, EventDesc, Mapping, Sample};
use blame_formats::stream::{StackInterner, StackNode};
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
    pub warnings: Vec<ImportWarning>,
}

/// One image being read: its stack table and samples.
pub struct OpenImage {
    serial: u64,
    stacks: Vec<(u32, u64)>,
    samples: Vec<Sample>,
    interner: StackInterner,
}

/// The images of one perf.data file, kept in memory.
pub struct ImportedImages {
    file: PathBuf,
    rank: Option<u32>,
    host: String,
    /// Closed images with their serial numbers (the order they appeared).
    images: Vec<(u64, PerfProcess)>,
    nodes: Vec<StackNode>,
}

impl ImportedImages {
    /// The images of `file`, all of MPI rank `rank`, recorded on `host`.
    pub fn new(file: &Path, rank: Option<u32>, host: String) -> ImportedImages {
        ImportedImages {
            file: file.to_path_buf(),
            rank,
            host,
            images: Vec::new(),
            nodes: Vec::new(),
        }
    }

    /// The closed images, in the order they appeared in the file.
    pub fn into_images(mut self) -> Vec<PerfProcess> {
        self.images.sort_by_key(|(serial, _)| *serial);
        self.images.into_iter().map(|(_, p)| p).collect()
    }
}

impl ImageSink for ImportedImages {
    type Image = OpenImage;

    fn open(&mut self, p: &Process, _time_ns: u64) -> Option<OpenImage> {
        Some(OpenImage {
            serial: p.serial,
            stacks: vec![(0, 0)],
            samples: Vec::new(),
            interner: StackInterner::default(),
        })
    }

    fn sample(&mut self, image: &mut OpenImage, sample: &SampleInfo, frames: &[u64]) -> bool {
        self.nodes.clear();
        let stack = image.interner.intern(frames, &mut self.nodes);
        image
            .stacks
            .extend(self.nodes.iter().map(|n| (n.parent, n.address)));
        image.samples.push(Sample {
            tid: sample.tid,
            time_ns: sample.time_ns,
            event: sample.event,
            weight: sample.weight,
            stack,
            data_address: sample.data_address,
        });
        true
    }

    fn close(
        &mut self,
        image: OpenImage,
        p: &Process,
        _end: Option<(Option<i32>, Option<i32>)>,
        _time_ns: u64,
    ) {
        let launcher = is_launcher(&p.command);
        let process = PerfProcess {
            file: self.file.clone(),
            info: ProcessInfo {
                rank: if launcher { None } else { self.rank },
                pid: p.pid,
                host: self.host.clone().into(),
                launcher,
                command: p.command.clone().into(),
                samples: Vec::new(),
                lost: 0,
            },
            mappings: p.mappings.clone(),
            stacks: image.stacks,
            samples: image.samples,
        };
        self.images.push((image.serial, process));
    }
}

/// What a capture file tells of its processes beyond the records: nothing;
/// their object files are looked up with the `--binary-path` directories.
pub struct CaptureFiles<'a> {
    binary_paths: &'a [PathBuf],
    /// Objects whose unwind tables could not be used, with the reason.
    pub refused: Vec<ImportWarning>,
}

impl<'a> CaptureFiles<'a> {
    pub fn new(binary_paths: &'a [PathBuf]) -> CaptureFiles<'a> {
        CaptureFiles {
            binary_paths,
            refused: Vec::new(),
        }
    }
}

impl ProcessSource for CaptureFiles<'_> {
    /// The local file of the mapping, when its build-id (if both have one) matches the capture's.
    fn unwind_file(&mut self, objects: &mut ObjectCache, m: &mut Mapping) -> Option<String> {
        let local = locate(self.binary_paths, &m.path, &m.build_id)?;
        let local = local.to_string_lossy().into_owned();
        let usable = objects
            .get(&local)
            .map(|o| m.build_id.is_empty() || o.build_id.is_empty() || o.build_id == m.build_id)?;
        if usable {
            return Some(local);
        }
        let why = ImportWarning::UnwindBinaryChanged {
            path: PathBuf::from(&local),
        };
        if !self.refused.contains(&why) {
            self.refused.push(why);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process_table::{ProcessTable, SampledStack};
    use crate::unwind::read_file;

    fn table(dirs: &[PathBuf]) -> ProcessTable<ImportedImages, CaptureFiles<'_>> {
        let sink = ImportedImages::new(Path::new("x.data"), Some(3), "h".into());
        ProcessTable::new(sink, CaptureFiles::new(dirs), ObjectCache::new(read_file))
    }

    fn sample(t: &mut ProcessTable<ImportedImages, CaptureFiles<'_>>, pid: u32, frames: &[u64]) {
        let info = SampleInfo {
            tid: pid,
            time_ns: 0,
            event: 0,
            weight: 1,
            data_address: None,
        };
        t.sample(pid, &info, SampledStack::Frames(frames));
    }

    /// Images come out in the order their processes appeared, an exec
    /// after samples starting a new image and one before reusing it;
    /// mappings and stacks belong to the image that made them (stack
    /// tables are rooted at the outermost frame: 0x20 and 0x30, each with
    /// its own 0x1010 inside, beside the empty stack).
    #[test]
    fn images_in_the_order_they_appeared() {
        let mut t = table(&[]);
        t.adopt(10);
        t.fork(11, 10, 11);
        t.exec(10, "early", 0); // no samples yet: the same image
        t.mmap(10, 0x1000, 0x2000, 0, "/nonexistent/a", vec![1, 2]);
        sample(&mut t, 11, &[0x10]);
        sample(&mut t, 10, &[0x1010, 0x20]);
        sample(&mut t, 10, &[0x1010, 0x30]);
        t.exec(10, "late", 0); // after samples: a new image
        sample(&mut t, 10, &[0x40]);
        t.finish(0);
        let images = t.into_parts().0.into_images();
        let summary: Vec<(u32, Vec<String>, usize, usize, usize)> = images
            .iter()
            .map(|p| {
                let c = p.info.command.to_vec();
                (
                    p.info.pid,
                    c,
                    p.samples.len(),
                    p.mappings.len(),
                    p.stacks.len(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                (10, vec!["early".to_string()], 2, 1, 5),
                (11, vec![], 1, 0, 2),
                (10, vec!["late".to_string()], 1, 0, 2),
            ]
        );
        assert!(images.iter().all(|p| p.info.rank == Some(3)));
        assert_eq!(images[0].mappings[0].build_id, [1, 2]);
    }
}
