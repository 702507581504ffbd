//! Every sample of a run directory or of one sample file, one at a time
//! with its symbolized stack, as `blame dump` prints them. Reading a run
//! for blame counts samples per stack instead ([`super::Run`]); both take
//! the same files, stack tables and symbolizer. Damage is skipped and said
//! (or refused with `strict`), as `blame post` does.

use crate::error::{PostError, Warning};
use crate::input::symbolize::Symbolizer;
use blame_formats::jsonl::JsonSample;
use blame_formats::lock::RunDirLock;
use blame_formats::node_file::StreamIn;
use blame_formats::run_dir;
use blame_formats::stream::{self, ChunkSource, StreamHeader};
use std::path::{Path, PathBuf};

/// How to read what is dumped.
#[derive(Debug, Clone, Default)]
pub struct DumpOptions {
    /// Where binaries are looked for besides their recorded paths.
    pub binary_paths: Vec<PathBuf>,
    /// Refuse damage instead of skipping it.
    pub strict: bool,
}

/// What a dump skipped and what symbolization warned about.
#[derive(Debug, Default)]
pub struct Dumped {
    /// Each damaged or unreadable stretch, and what was done instead.
    pub damage: Vec<String>,
    pub warnings: Vec<Warning>,
}

/// Why a dump stops.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    #[error("{}: no such file or directory", path.display())]
    Missing { path: PathBuf },
    #[error(transparent)]
    Post(#[from] PostError),
    #[error(transparent)]
    Format(#[from] blame_formats::FormatError),
    /// `--strict` and damage.
    #[error("{what}; refused (--strict)")]
    Refused { what: String },
    #[error("none of the {count} sample streams can be read:\n  {}", errors.join("\n  "))]
    NoneReadable { count: usize, errors: Vec<String> },
    #[error("{}: {reason}", path.display())]
    BadStack {
        path: PathBuf,
        reason: blame_formats::error::StackTableRefused,
    },
    #[error("cannot list {}: {error}", path.display())]
    List {
        path: PathBuf,
        error: std::io::Error,
    },
    /// What the caller's `each` returned (writing a sample).
    #[error(transparent)]
    Write(std::io::Error),
}

/// Calls `each` with every sample of `input` (a run directory, a node
/// file or a stream file), streams in file order.
pub fn each_sample(
    input: &Path,
    options: &DumpOptions,
    mut each: impl FnMut(&JsonSample) -> std::io::Result<()>,
) -> Result<Dumped, DumpError> {
    if !input.exists() {
        return Err(DumpError::Missing {
            path: input.to_path_buf(),
        });
    }
    // Refused while a recorder writes the directory.
    let _lock = if input.is_dir() {
        Some(RunDirLock::read(input).map_err(|e| match e.kind() {
            std::io::ErrorKind::WouldBlock => PostError::Busy {
                dir: input.to_path_buf(),
                lock: e,
            },
            _ => PostError::Io {
                path: input.to_path_buf(),
                source: e,
            },
        })?)
    } else {
        None
    };
    let files: Vec<PathBuf> = if input.is_dir() {
        run_dir::sample_files(input).map_err(|error| DumpError::List {
            path: input.to_path_buf(),
            error,
        })?
    } else {
        vec![input.to_path_buf()]
    };
    let mut out = Dumped::default();
    let mut unreadable = Vec::new();
    let streams = open_streams(&files, options.strict, &mut out, &mut unreadable)?;
    let count = streams.len() + unreadable.len();
    for stream in streams {
        // Mappings and stacks precede the samples that use them, so one pass suffices.
        let (reader, header) = match stream.open() {
            Ok(x) => x,
            Err(e) if !options.strict && count > 1 => {
                out.damage.push(format!("{e}: stream skipped"));
                unreadable.push(e);
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        dump_stream(&stream, reader, &header, options, &mut out, &mut each)?;
    }
    if count > 0 && unreadable.len() == count {
        return Err(DumpError::NoneReadable {
            count,
            errors: unreadable.iter().map(|e| e.to_string()).collect(),
        });
    }
    Ok(out)
}

/// Every stream file, and every section of every node file; what cannot
/// be opened is skipped (unless `strict` or it is the only file).
fn open_streams(
    files: &[PathBuf],
    strict: bool,
    out: &mut Dumped,
    unreadable: &mut Vec<blame_formats::FormatError>,
) -> Result<Vec<StreamIn>, DumpError> {
    let mut streams = Vec::new();
    for path in files {
        match StreamIn::all_of(path) {
            Ok((mut all, index)) => {
                for skip in index.iter().flat_map(|i| &i.damage) {
                    let what = format!(
                        "{}: damaged bytes from {} skipped ({})",
                        path.display(),
                        skip.offset,
                        skip.error
                    );
                    if strict {
                        return Err(DumpError::Refused { what });
                    }
                    out.damage.push(what);
                }
                streams.append(&mut all);
            }
            Err(e) if !strict && files.len() > 1 => {
                out.damage.push(format!("{e}: stream skipped"));
                unreadable.push(e);
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(streams)
}

/// The samples of one stream, with its own stack table and symbolizer.
fn dump_stream(
    stream: &StreamIn,
    mut reader: Box<dyn ChunkSource + Send>,
    header: &StreamHeader,
    options: &DumpOptions,
    out: &mut Dumped,
    each: &mut impl FnMut(&JsonSample) -> std::io::Result<()>,
) -> Result<(), DumpError> {
    let path = stream.path();
    let mut mappings = Vec::new();
    let mut parents: Vec<(u32, u64)> = vec![(0, 0)];
    let mut table = stream::SalvagedStacks::default();
    let mut dropped = 0u64;
    // The stream's directory holds what the recorder saved for symbolization (kallsyms).
    let search: Vec<PathBuf> = options
        .binary_paths
        .iter()
        .cloned()
        .chain(path.parent().map(Path::to_path_buf))
        .collect();
    let mut symbolizer = Symbolizer::new(search);
    let mut checked = 0;
    while let Some(record) = next_record(&mut reader, &path, options.strict, out, &mut table)? {
        match record {
            stream::Record::Mapping(m) => mappings.push(m),
            stream::Record::Stack(n) => {
                table.push(n).map_err(|reason| DumpError::BadStack {
                    path: path.to_path_buf(),
                    reason,
                })?;
                parents.resize(n.id as usize, (u32::MAX, 0));
                parents.push((n.parent, n.address));
            }
            stream::Record::Sample(s) => {
                if !table.check(s.stack).unwrap_or(false) {
                    dropped += 1;
                    continue;
                }
                if checked < mappings.len() {
                    symbolizer.verify_build_ids(&mappings[checked..], &path)?;
                    checked = mappings.len();
                }
                let mut addresses = Vec::new();
                let mut cur = s.stack;
                while cur != 0 && (cur as usize) < parents.len() {
                    addresses.push(parents[cur as usize].1);
                    cur = parents[cur as usize].0;
                }
                let sample = JsonSample {
                    stack: symbolizer.stack(&mappings, &addresses),
                    event: header
                        .events
                        .get(s.event as usize)
                        .map(|e| e.name.clone())
                        .unwrap_or_else(|| format!("event{}", s.event)),
                    weight: 1.0,
                    rank: header.rank,
                    thread: s.tid,
                    pid: Some(header.pid),
                    time_ns: Some(s.time_ns),
                    data_address: s.data_address,
                };
                each(&sample).map_err(DumpError::Write)?;
            }
            _ => {}
        }
    }
    if dropped > 0 {
        out.damage.push(format!(
            "{}: {dropped} samples left out: their stacks were defined in the skipped bytes (or never)",
            path.display()
        ));
    }
    out.warnings.append(&mut symbolizer.warnings);
    Ok(())
}

/// The stream's next record, damage skipped and said (`None`: its end).
fn next_record(
    reader: &mut Box<dyn ChunkSource + Send>,
    path: &Path,
    strict: bool,
    out: &mut Dumped,
    table: &mut stream::SalvagedStacks,
) -> Result<Option<stream::Record>, DumpError> {
    loop {
        match reader.next_item_salvaging() {
            Ok(Some(stream::Item::Record(r))) => return Ok(Some(r)),
            Ok(Some(stream::Item::Skipped(skip))) => {
                let what = format!(
                    "{}: damaged bytes from {} skipped ({}){}",
                    path.display(),
                    skip.offset,
                    skip.error,
                    skip.resumed_at
                        .map(|r| format!(", read on from byte {r}"))
                        .unwrap_or_default()
                );
                if strict {
                    return Err(DumpError::Refused { what });
                }
                out.damage.push(what);
                table.damaged = true;
            }
            Ok(None) => {
                if !reader.complete() && reader.end_marker_expected() {
                    let what = format!(
                        "{}: cut at byte {} (no end marker); dumped the records before it",
                        path.display(),
                        reader.offset()
                    );
                    if strict {
                        return Err(DumpError::Refused { what });
                    }
                    out.damage.push(what);
                }
                return Ok(None);
            }
            Err(e) if e.is_truncation() && !strict => {
                out.damage
                    .push(format!("{e}; dumped the records before it"));
                return Ok(None);
            }
            Err(e) => return Err(e.into()),
        }
    }
}
