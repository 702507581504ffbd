//! The header of a results file ([`ResultsHeader`]: producer, events,
//! processes, shard, blame points, coverage, provenance, damage, summed
//! contexts), how each results version from 2 lays it out, and the
//! opening of a results file of any readable version ([`open_results`]).

use super::processes::read_process_table;
use super::processes::{
    ProcessInfo, ProcessInfoV5, ProcessTable, ProcessesRead, ProcessesV7, ProcessesV9,
    StoredProcesses,
};
use super::provenance::{Provenance, ProvenanceV5s};
use super::{OLDEST_READABLE, RESULTS};
use crate::container::ContainerReader;
use crate::error::{FormatError, Result};
use crate::stream::EventDesc;
use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::path::Path;

/// [`ProcessInfo`] of results version 2.
#[derive(Deserialize, Decode)]
struct ProcessInfoV2 {
    rank: Option<u32>,
    pid: u32,
    host: String,
    command: Vec<String>,
    launcher: bool,
    samples: Vec<f64>,
}

/// [`ResultsHeader`] of results version 2.
#[derive(Deserialize, Decode)]
struct ResultsHeaderV2 {
    producer: String,
    events: Vec<EventDesc>,
    processes: Vec<ProcessInfoV2>,
    shard: Option<Shard>,
    blame_points: Vec<String>,
    coverage: Vec<Coverage>,
}

impl From<ResultsHeaderV2> for ResultsHeader {
    fn from(h: ResultsHeaderV2) -> Self {
        ResultsHeader {
            producer: h.producer,
            events: h.events,
            processes: h
                .processes
                .into_iter()
                .map(|p| ProcessInfo {
                    rank: p.rank,
                    pid: p.pid,
                    host: p.host.into(),
                    command: p.command.into(),
                    launcher: p.launcher,
                    samples: p.samples,
                    lost: 0,
                })
                .collect(),
            shard: h.shard,
            blame_points: h.blame_points,
            coverage: h.coverage,
            provenance: None,
            damage: Vec::new(),
            summed: None,
        }
    }
}

/// The header as results versions 3 to 6 lay it out, read owned and
/// written from references: `Pr` is the process table (versions 3 to 5: a
/// [`ProcessInfoV5`] per process; 6: a [`ProcessTable`]), `V` the
/// provenance (3 to 5: [`ProvenanceV5s`]) and `Su` whether contexts are
/// summed (3 and 4: [`NotSummed`], which takes no bytes).
#[derive(Encode, Decode)]
pub(super) struct HeaderLayout<P, E, Pr, S, B, C, V, D, Su> {
    pub(super) producer: P,
    pub(super) events: E,
    pub(super) processes: Pr,
    pub(super) shard: S,
    pub(super) blame_points: B,
    pub(super) coverage: C,
    pub(super) provenance: V,
    pub(super) damage: D,
    pub(super) summed: Su,
}

type OwnedHeader<Pr, V, Su> = HeaderLayout<
    String,
    Vec<EventDesc>,
    Pr,
    Option<Shard>,
    Vec<String>,
    Vec<Coverage>,
    V,
    Vec<String>,
    Su,
>;

/// The `summed` of results versions 3 and 4, which had none.
#[derive(Decode)]
struct NotSummed;

impl From<NotSummed> for Option<SummedContexts> {
    fn from(_: NotSummed) -> Self {
        None
    }
}

impl<Pr, V, Su> OwnedHeader<Pr, V, Su> {
    /// The header with `processes` in place of its own.
    fn with_processes<P2>(self, processes: P2) -> OwnedHeader<P2, V, Su> {
        HeaderLayout {
            producer: self.producer,
            events: self.events,
            processes,
            shard: self.shard,
            blame_points: self.blame_points,
            coverage: self.coverage,
            provenance: self.provenance,
            damage: self.damage,
            summed: self.summed,
        }
    }
}

impl<Pr, V, Su> OwnedHeader<Pr, V, Su>
where
    Pr: StoredProcesses,
    V: Into<Option<Provenance>>,
    Su: Into<Option<SummedContexts>>,
{
    /// The header, without its processes, and the processes as stored.
    fn into_parts(self, path: &Path) -> Result<(ResultsHeader, ProcessesRead)> {
        let processes =
            self.processes
                .into_processes()
                .ok_or_else(|| FormatError::CorruptHeader {
                    path: path.to_path_buf(),
                    reason: "a process names a host or command the table does not hold".into(),
                })?;
        let header = ResultsHeader {
            producer: self.producer,
            events: self.events,
            processes: Vec::new(),
            shard: self.shard,
            blame_points: self.blame_points,
            coverage: self.coverage,
            provenance: self.provenance.into(),
            damage: self.damage,
            summed: self.summed.into(),
        };
        Ok((header, processes))
    }
}

/// What a result whose application contexts are summed over ranks (results
/// version 5, `blame merge --sum-contexts`) was merged from.
///
/// Its variables, functions and per-process sample counts are kept per
/// process as in any result, so every rank statistic stays exact; its
/// stacks and contexts of application processes are summed over them
/// (process [`ALL_RANKS`](crate::results::ALL_RANKS)), those of launchers kept per process. What needs
/// each rank's calling contexts (per-rank profiles, the drill-down of one
/// rank) reads the results it was merged from instead.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, Encode, Decode)]
pub struct SummedContexts {
    /// The results with per-rank contexts under this one (sorted, each
    /// once): the inputs of the merge, or what merged summed inputs named.
    pub from: Vec<String>,
}

/// Which slice of the run a partial result covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ResultsHeader {
    pub producer: String,
    pub events: Vec<EventDesc>,
    pub processes: Vec<ProcessInfo>,
    /// `None` for a complete (merged) result.
    pub shard: Option<Shard>,
    /// Implicit blame points (3.5.1.2): functions seen in the samples whose
    /// summaries have no exit variables, so their variables cannot be lifted further.
    pub blame_points: Vec<String>,
    /// Per event: how many samples reached a named variable, and why the
    /// others did not.
    #[serde(default)]
    pub coverage: Vec<Coverage>,
    /// What produced this result; `None` for results of version 2.
    pub provenance: Option<Provenance>,
    /// What a salvaging `blame post` left out of a damaged recording.
    pub damage: Vec<String>,
    /// `Some` when the application's stacks and contexts are summed over
    /// its ranks (results version 5); `None` for per-process contexts.
    pub summed: Option<SummedContexts>,
}

/// What share of one event's samples blame could explain (reached at least
/// one named variable), and for the rest the reasons with their counts.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Encode, Decode)]
pub struct Coverage {
    pub event: u16,
    /// Samples of the event (all processes of the result, launchers included).
    pub samples: f64,
    /// Samples that blamed at least one named variable.
    pub resolved: f64,
    /// Why the other samples blamed nothing: (reason, samples), largest first
    /// once merged.
    pub reasons: Vec<(String, f64)>,
}

impl Coverage {
    /// Adds `other` (same event) into `self`: sums, reasons matched by text.
    pub fn add(&mut self, other: &Coverage) {
        self.samples += other.samples;
        self.resolved += other.resolved;
        for (reason, n) in &other.reasons {
            match self.reasons.iter_mut().find(|(r, _)| r == reason) {
                Some(slot) => slot.1 += n,
                None => self.reasons.push((reason.clone(), *n)),
            }
        }
        self.reasons
            .sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    }

    /// Adds `c` to the record of its event in `list` (made when missing).
    pub fn add_to(list: &mut Vec<Coverage>, c: &Coverage) {
        match list.iter_mut().find(|h| h.event == c.event) {
            Some(h) => h.add(c),
            None => {
                let mut h = Coverage {
                    event: c.event,
                    ..Default::default()
                };
                h.add(c);
                list.push(h);
            }
        }
    }

    /// Share of the samples that reached a named variable, in percent.
    pub fn percent(&self) -> f64 {
        if self.samples > 0.0 {
            100.0 * self.resolved / self.samples
        } else {
            100.0
        }
    }
}

/// Opens a results file: checks its preamble and decodes its header,
/// whatever its version (`reader.version` says which).
pub(crate) fn open_results<R: Read>(
    input: R,
    path: &Path,
) -> Result<(ContainerReader<R>, ResultsHeader)> {
    let (r, mut header, processes) = open_results_parts(input, path)?;
    header.processes =
        processes
            .into_whole(header.events.len())
            .ok_or_else(|| FormatError::CorruptHeader {
                path: path.to_path_buf(),
                reason:
                    "the process table does not decode, or counts name a process it does not hold"
                        .into(),
            })?;
    Ok((r, header))
}

/// [`open_results`] with the header's processes as the file stores them
/// (the header's own `processes` are left empty).
pub(crate) fn open_results_parts<R: Read>(
    input: R,
    path: &Path,
) -> Result<(ContainerReader<R>, ResultsHeader, ProcessesRead)> {
    let (mut r, chunk) = ContainerReader::open_header(input, path, RESULTS, OLDEST_READABLE)?;
    let (header, processes) = match r.version {
        2 => {
            let mut h: ResultsHeader =
                ContainerReader::<R>::decode_header::<ResultsHeaderV2>(&chunk, path)?.into();
            let processes = ProcessesRead::Whole(std::mem::take(&mut h.processes));
            (h, processes)
        }
        3 | 4 => ContainerReader::<R>::decode_header::<
            OwnedHeader<Vec<ProcessInfoV5>, ProvenanceV5s, NotSummed>,
        >(&chunk, path)?
        .into_parts(path)?,
        5 => ContainerReader::<R>::decode_header::<
            OwnedHeader<Vec<ProcessInfoV5>, ProvenanceV5s, Option<SummedContexts>>,
        >(&chunk, path)?
        .into_parts(path)?,
        6 => ContainerReader::<R>::decode_header::<
            OwnedHeader<ProcessTable, Option<Provenance>, Option<SummedContexts>>,
        >(&chunk, path)?
        .into_parts(path)?,
        7 | 8 => ContainerReader::<R>::decode_header::<
            OwnedHeader<ProcessesV7, Option<Provenance>, Option<SummedContexts>>,
        >(&chunk, path)?
        .into_parts(path)?,
        _ => {
            let mut h = ContainerReader::<R>::decode_header::<
                OwnedHeader<ProcessesV9, Option<Provenance>, Option<SummedContexts>>,
            >(&chunk, path)?;
            let table = read_process_table(&mut r, path, h.processes.processes)?;
            let counts = std::mem::take(&mut h.processes.counts);
            h.with_processes(ProcessesV7 { table, counts })
                .into_parts(path)?
        }
    };
    Ok((r, header, processes))
}
