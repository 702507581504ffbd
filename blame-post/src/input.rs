//! Inputs of post-processing: a recorded run directory (one sample stream
//! per process) or JSON-lines symbolic samples. Either becomes a list of
//! processes, each a set of unique symbolized stacks with per-event counts:
//! samples that share a stack are resolved once (memoization per calling
//! context), and memory does not grow with the number of samples.

use crate::error::{io, PostError, Result};
use crate::shard::ShardSpec;
use crate::symbolize::Symbolizer;
use blame_formats::jsonl::{read_samples, JsonSample};
use blame_formats::results::{ProcessInfo, SymFrame};
use blame_formats::stream::{EventDesc, Record, Sampling, StreamReader};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Names of processes that launch the application rather than being part of it.
const LAUNCHERS: &[&str] = &["mpirun", "mpiexec", "orterun", "prterun", "orted", "prted", "srun", "hydra_pmi_proxy", "bash", "sh", "dash", "env", "blame", "time"];

pub fn is_launcher(command: &[String]) -> bool {
    command
        .first()
        .map(|c| Path::new(c).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default())
        .is_some_and(|name| LAUNCHERS.contains(&name.as_str()))
}

/// One unique calling context of a process and how many samples of each event hit it.
#[derive(Debug, Clone)]
pub struct Context {
    pub frames: Vec<SymFrame>,
    /// Indexed by the run's event list.
    pub counts: Vec<f64>,
}

/// The samples of one process that fall in this shard.
#[derive(Debug, Clone)]
pub struct ProcessProfile {
    pub index: u32,
    pub contexts: Vec<Context>,
    pub warnings: Vec<String>,
}

/// Where the samples come from.
pub enum Source {
    RunDir { dir: PathBuf, streams: Vec<PathBuf>, binary_paths: Vec<PathBuf> },
    Json { samples: Vec<JsonSample>, groups: Vec<Vec<usize>> },
}

/// A whole run: its events and processes, before any samples are resolved.
pub struct Run {
    pub events: Vec<EventDesc>,
    pub processes: Vec<ProcessInfo>,
    source: Source,
}

fn event_index(events: &mut Vec<EventDesc>, e: &EventDesc) -> usize {
    match events.iter().position(|x| x.name == e.name) {
        Some(i) => i,
        None => {
            events.push(e.clone());
            events.len() - 1
        }
    }
}

/// Event names that count memory misses (approximate data-centric mode).
pub fn is_memory_event(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.contains("miss") || n.starts_with("mem-") || n.starts_with("mem_")
}

impl Run {
    /// Opens a run directory: every `*.bstream` file in it, sorted by name.
    pub fn open_dir(dir: &Path, binary_paths: Vec<PathBuf>) -> Result<Run> {
        let mut streams: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(io(dir))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "bstream"))
            .collect();
        streams.sort();
        if streams.is_empty() {
            return Err(PostError::Input(format!(
                "{}: no sample streams (*.bstream) here; record one with `blame record -o {} -- CMD`",
                dir.display(),
                dir.display()
            )));
        }
        let mut events = Vec::new();
        let mut processes = Vec::new();
        for path in &streams {
            let (_, header) = StreamReader::open(path)?;
            for e in &header.events {
                event_index(&mut events, e);
            }
            processes.push(ProcessInfo {
                rank: header.rank,
                pid: header.pid,
                host: header.host.clone(),
                launcher: is_launcher(&header.command),
                command: header.command.clone(),
                samples: Vec::new(),
            });
        }
        Ok(Run {
            events,
            processes,
            source: Source::RunDir {
                dir: dir.to_path_buf(),
                streams,
                binary_paths,
            },
        })
    }

    /// Reads JSON-lines samples; processes are told apart by (rank, pid).
    pub fn open_jsonl(path: &Path) -> Result<Run> {
        let file = std::fs::File::open(path).map_err(io(path))?;
        let samples = read_samples(std::io::BufReader::new(file), &path.display().to_string())?;
        Self::from_json_samples(samples)
    }

    pub fn from_json_samples(samples: Vec<JsonSample>) -> Result<Run> {
        if samples.is_empty() {
            return Err(PostError::Input("the sample file holds no samples".into()));
        }
        let mut events = Vec::new();
        let mut keys: Vec<(Option<u32>, Option<u32>)> = Vec::new();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut by_key: HashMap<(Option<u32>, Option<u32>), usize> = HashMap::new();
        for (i, s) in samples.iter().enumerate() {
            event_index(
                &mut events,
                &EventDesc {
                    name: s.event.clone(),
                    sampling: Sampling::Period(1),
                    unit: "samples".into(),
                    memory: is_memory_event(&s.event),
                },
            );
            let key = (s.rank, s.pid);
            let g = *by_key.entry(key).or_insert_with(|| {
                keys.push(key);
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[g].push(i);
        }
        // Order processes by rank then pid so indices do not depend on line order.
        let mut order: Vec<usize> = (0..keys.len()).collect();
        order.sort_by_key(|&g| keys[g]);
        let processes = order
            .iter()
            .map(|&g| ProcessInfo {
                rank: keys[g].0,
                pid: keys[g].1.unwrap_or(0),
                host: String::new(),
                command: Vec::new(),
                launcher: false,
                samples: Vec::new(),
            })
            .collect();
        let groups = order.iter().map(|&g| std::mem::take(&mut groups[g])).collect();
        Ok(Run {
            events,
            processes,
            source: Source::Json { samples, groups },
        })
    }

    /// The run directory, when the input is a recording.
    pub fn dir(&self) -> Option<&Path> {
        match &self.source {
            Source::RunDir { dir, .. } => Some(dir),
            Source::Json { .. } => None,
        }
    }

    /// Loads the samples of process `index` that belong to `shard`.
    pub fn load_process(&self, index: usize, shard: ShardSpec) -> Result<ProcessProfile> {
        let nproc = self.processes.len();
        let whole_process = shard.count as usize <= nproc;
        if whole_process && !shard.owns_unit(index) {
            return Ok(ProcessProfile {
                index: index as u32,
                contexts: Vec::new(),
                warnings: Vec::new(),
            });
        }
        let keep = |seq: usize| whole_process || shard.owns_unit(seq);
        let nevents = self.events.len();
        match &self.source {
            Source::Json { samples, groups } => {
                let mut by_stack: HashMap<Vec<SymFrame>, Vec<f64>> = HashMap::new();
                for (seq, &i) in groups[index].iter().enumerate() {
                    if !keep(seq) {
                        continue;
                    }
                    let s = &samples[i];
                    let e = self.events.iter().position(|x| x.name == s.event).expect("event indexed at open");
                    by_stack.entry(s.stack.clone()).or_insert_with(|| vec![0.0; nevents])[e] += s.weight;
                }
                Ok(ProcessProfile {
                    index: index as u32,
                    contexts: into_contexts(by_stack),
                    warnings: Vec::new(),
                })
            }
            Source::RunDir { streams, binary_paths, .. } => {
                let path = &streams[index];
                let (mut reader, header) = StreamReader::open(path)?;
                let map_event: Vec<usize> = header.events.iter().map(|e| self.events.iter().position(|x| x.name == e.name).expect("event indexed at open")).collect();
                let mut mappings = Vec::new();
                let mut parents: Vec<(u32, u64)> = vec![(0, 0)];
                let mut counts: HashMap<(u32, u16), f64> = HashMap::new();
                let mut seq = 0usize;
                let mut warnings = Vec::new();
                loop {
                    match reader.next_record() {
                        Ok(None) => break,
                        Err(e) if e.is_truncation() => {
                            warnings.push(format!("{e}; using the {} records before it", reader.records_read()));
                            break;
                        }
                        Err(e) => return Err(e.into()),
                        Ok(Some(Record::Mapping(m))) => mappings.push(m),
                        Ok(Some(Record::Stack(n))) => {
                            if n.id as usize != parents.len() || n.parent >= n.id {
                                return Err(PostError::Input(format!("{}: stack node {} out of order", path.display(), n.id)));
                            }
                            parents.push((n.parent, n.address));
                        }
                        Ok(Some(Record::Sample(s))) => {
                            if keep(seq) {
                                if s.stack as usize >= parents.len() || s.event as usize >= map_event.len() {
                                    return Err(PostError::Input(format!("{}: sample {seq} refers to an undefined stack or event", path.display())));
                                }
                                *counts.entry((s.stack, s.event)).or_insert(0.0) += 1.0;
                            }
                            seq += 1;
                        }
                        Ok(Some(_)) => {}
                    }
                }
                let mut symbolizer = Symbolizer::new(binary_paths.clone());
                symbolizer.verify_build_ids(&mappings)?;
                let mut by_stack: HashMap<Vec<SymFrame>, Vec<f64>> = HashMap::new();
                let mut addresses = Vec::new();
                for ((stack, event), n) in counts {
                    addresses.clear();
                    let mut cur = stack;
                    while cur != 0 {
                        let (parent, address) = parents[cur as usize];
                        addresses.push(address);
                        cur = parent;
                    }
                    let frames = symbolizer.stack(&mappings, &addresses);
                    by_stack.entry(frames).or_insert_with(|| vec![0.0; nevents])[map_event[event as usize]] += n;
                }
                warnings.append(&mut symbolizer.warnings);
                Ok(ProcessProfile {
                    index: index as u32,
                    contexts: into_contexts(by_stack),
                    warnings,
                })
            }
        }
    }
}

fn into_contexts(by_stack: HashMap<Vec<SymFrame>, Vec<f64>>) -> Vec<Context> {
    let mut contexts: Vec<Context> = by_stack.into_iter().map(|(frames, counts)| Context { frames, counts }).collect();
    contexts.sort_by(|a, b| a.frames.cmp(&b.frames));
    contexts
}
