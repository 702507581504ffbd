//! The processes of a result ([`ProcessInfo`]) and the process tables
//! each results version stores: every process written out (versions 2 to
//! 5), each distinct host and command once (6), who the processes are
//! apart from what they counted (7: [`ProcessTableBytes`] and
//! [`ProcessCounts`]), the table in a chunk of its own that a thread
//! decompresses once for all the partial results of a run (9).

use crate::container::ContainerReader;
use crate::error::{FormatError, Result};
use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// One profiled process in the results.
///
/// Host and command are shared between the processes that have the same
/// (all ranks of a job run one command, a node's ranks one host): a result
/// of 10^5 ranks holds each once, in memory and in the file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProcessInfo {
    pub rank: Option<u32>,
    pub pid: u32,
    pub host: Arc<str>,
    pub command: Arc<[String]>,
    /// mpirun, a shell...: recorded, but not part of the application's ranks.
    pub launcher: bool,
    /// Samples of each event (indexed like `ResultsHeader::events`).
    pub samples: Vec<f64>,
    /// Samples the kernel or the recorder dropped (ring-buffer overruns).
    pub lost: u64,
}

/// [`ProcessInfo`] of results versions 3 to 5: host and command written
/// out for every process.
#[derive(Decode)]
pub(super) struct ProcessInfoV5 {
    rank: Option<u32>,
    pid: u32,
    host: String,
    command: Vec<String>,
    launcher: bool,
    samples: Vec<f64>,
    lost: u64,
}

impl From<ProcessInfoV5> for ProcessInfo {
    fn from(p: ProcessInfoV5) -> Self {
        ProcessInfo {
            rank: p.rank,
            pid: p.pid,
            host: p.host.into(),
            command: p.command.into(),
            launcher: p.launcher,
            samples: p.samples,
            lost: p.lost,
        }
    }
}

/// A process table as one results version stores it.
pub(super) trait StoredProcesses {
    /// The processes; `None` when the table contradicts itself.
    fn into_processes(self) -> Option<ProcessesRead>;
}

impl StoredProcesses for Vec<ProcessInfoV5> {
    fn into_processes(self) -> Option<ProcessesRead> {
        Some(ProcessesRead::Whole(
            self.into_iter().map(ProcessInfo::from).collect(),
        ))
    }
}

/// The processes of a results header as read: whole (versions 2 to 6), or
/// as version 7 stores them, the table apart from the counts.
pub(crate) enum ProcessesRead {
    Whole(Vec<ProcessInfo>),
    Table {
        table: ProcessTableBytes,
        counts: Vec<ProcessCounts>,
    },
}

impl ProcessesRead {
    /// The processes, each with its counts (`events` zeros where it has none).
    pub(super) fn into_whole(self, events: usize) -> Option<Vec<ProcessInfo>> {
        match self {
            ProcessesRead::Whole(p) => Some(p),
            ProcessesRead::Table { table, counts } => {
                let mut processes = table.processes(events)?;
                for c in counts {
                    let p = processes.get_mut(c.process as usize)?;
                    p.samples = c.samples;
                    p.lost = c.lost;
                }
                Some(processes)
            }
        }
    }

    /// The table and the counts of the processes that have any.
    pub(crate) fn into_table(self, events: usize) -> (ProcessTableBytes, Vec<ProcessCounts>) {
        match self {
            ProcessesRead::Whole(p) => (ProcessTableBytes::of(&p), ProcessCounts::of(&p, events)),
            ProcessesRead::Table { table, counts } => (table, counts),
        }
    }
}

/// A process table that holds each distinct host and command once, the
/// processes naming theirs by index: version 6 with each process's counts
/// ([`ProcessEntry`]), version 7 without ([`ProcessIdentity`]).
#[derive(Encode, Decode)]
pub(super) struct HostTable<E> {
    hosts: Vec<String>,
    commands: Vec<Vec<String>>,
    processes: Vec<E>,
}

/// The process table of results version 6 (read only).
pub(super) type ProcessTable = HostTable<ProcessEntry>;

#[derive(Encode, Decode)]
pub(super) struct ProcessEntry {
    rank: Option<u32>,
    pid: u32,
    host: u32,
    command: u32,
    launcher: bool,
    samples: Vec<f64>,
    lost: u64,
}

/// A process of a [`HostTable`]: its host and command indices, and the
/// process they make with them.
pub(super) trait TableEntry {
    fn names(&self) -> (u32, u32);
    fn into_process(self, host: Arc<str>, command: Arc<[String]>, events: usize) -> ProcessInfo;
}

impl TableEntry for ProcessEntry {
    fn names(&self) -> (u32, u32) {
        (self.host, self.command)
    }
    fn into_process(self, host: Arc<str>, command: Arc<[String]>, _: usize) -> ProcessInfo {
        ProcessInfo {
            rank: self.rank,
            pid: self.pid,
            host,
            command,
            launcher: self.launcher,
            samples: self.samples,
            lost: self.lost,
        }
    }
}

impl<E: TableEntry> HostTable<E> {
    /// The processes, sharing each host and command (`events` zero counts
    /// each where the entries hold none); `None` when an index is out of range.
    fn into_infos(self, events: usize) -> Option<Vec<ProcessInfo>> {
        let hosts: Vec<Arc<str>> = self.hosts.into_iter().map(Arc::from).collect();
        let commands: Vec<Arc<[String]>> = self.commands.into_iter().map(Arc::from).collect();
        self.processes
            .into_iter()
            .map(|p| {
                let (host, command) = p.names();
                let host = hosts.get(host as usize)?.clone();
                let command = commands.get(command as usize)?.clone();
                Some(p.into_process(host, command, events))
            })
            .collect()
    }
}

impl StoredProcesses for ProcessTable {
    fn into_processes(self) -> Option<ProcessesRead> {
        // Version 6 entries carry their counts: `events` is not used.
        self.into_infos(0).map(ProcessesRead::Whole)
    }
}

/// The processes of results version 7: who they are ([`ProcessTableBytes`])
/// apart from what they counted ([`ProcessCounts`], only for the processes
/// that counted anything). Every partial result of a run holds the same
/// table bytes and the counts of its own ranks only: a merge of 10^3 parts
/// decodes one table and compares the others' bytes, instead of decoding
/// 10^3 tables of 10^3 processes (version 6 repeated every process's
/// counts in every part).
#[derive(Encode, Decode)]
pub(super) struct ProcessesV7 {
    pub(super) table: ProcessTableBytes,
    pub(super) counts: Vec<ProcessCounts>,
}

impl StoredProcesses for ProcessesV7 {
    fn into_processes(self) -> Option<ProcessesRead> {
        Some(ProcessesRead::Table {
            table: self.table,
            counts: self.counts,
        })
    }
}

/// A process table (rank, pid, host, command and launcher of each process,
/// each distinct host and command once) encoded on its own, with its
/// number of processes: equal tables are equal bytes.
#[derive(Debug, Clone, PartialEq, Eq, Default, Encode, Decode)]
pub struct ProcessTableBytes {
    processes: u64,
    /// Shared: the partial results of a run hold the same table, which a
    /// thread reads once ([`read_process_table`]).
    pub(super) bytes: Arc<[u8]>,
}

/// The processes of results version 9: the header holds their number and
/// the counts of those that counted anything; who they are
/// ([`ProcessTableBytes`]'s bytes) is the one record of the chunk after the
/// header. The partial results of a run hold the same table: a merge
/// recognizes it by its compressed bytes and decompresses it once per
/// thread, not once per part (version 7's table, inside the header chunk,
/// was decompressed with every part's header: a sixth of what a one-rank
/// partial result of 1,024 ranks held, and most of it at 10^5 ranks).
#[derive(Encode, Decode)]
pub(super) struct ProcessesV9 {
    pub(super) processes: u64,
    pub(super) counts: Vec<ProcessCounts>,
}

/// A process table chunk as read: its compressed bytes, and the table's.
type TableRead = (Vec<u8>, Arc<[u8]>);

thread_local! {
    /// The process table chunk this thread read last.
    static LAST_TABLE: std::cell::RefCell<Option<TableRead>> =
        const { std::cell::RefCell::new(None) };
}

/// Reads the process table chunk of a results file of version 9, whose
/// header says it has `processes` processes: its bytes are those of the
/// last table this thread read when its compressed bytes are (a checksum
/// matched both), else decompressed.
pub(super) fn read_process_table<R: Read>(
    r: &mut ContainerReader<R>,
    path: &Path,
    processes: u64,
) -> Result<ProcessTableBytes> {
    let Some(raw) = r.next_raw_chunk()? else {
        // A file cut after its header is cut short, not corrupt.
        r.require_end()?;
        return Err(FormatError::CorruptHeader {
            path: path.to_path_buf(),
            reason: "no process table follows the header".into(),
        });
    };
    if raw.record_count != 1 {
        return Err(FormatError::CorruptChunk {
            path: path.to_path_buf(),
            chunk: raw.index,
            offset: raw.offset,
            reason: format!(
                "the process table chunk holds {} records, not one",
                raw.record_count
            ),
        });
    }
    let bytes = LAST_TABLE.with(|last| -> Result<Arc<[u8]>> {
        let mut last = last.borrow_mut();
        if let Some((compressed, bytes)) = last.as_ref() {
            // The chunk header's length is not under the checksum.
            if *compressed == raw.compressed && bytes.len() == raw.uncompressed_len as usize {
                return Ok(bytes.clone());
            }
        }
        let compressed = raw.compressed.clone();
        let bytes: Arc<[u8]> = Arc::from(&raw.decompress(path)?.payload[..]);
        *last = Some((compressed, bytes.clone()));
        Ok(bytes)
    })?;
    Ok(ProcessTableBytes { processes, bytes })
}

/// The process table of results version 7.
type IdentityTable = HostTable<ProcessIdentity>;

#[derive(Encode, Decode)]
struct ProcessIdentity {
    rank: Option<u32>,
    pid: u32,
    host: u32,
    command: u32,
    launcher: bool,
}

impl TableEntry for ProcessIdentity {
    fn names(&self) -> (u32, u32) {
        (self.host, self.command)
    }
    fn into_process(self, host: Arc<str>, command: Arc<[String]>, events: usize) -> ProcessInfo {
        ProcessInfo {
            rank: self.rank,
            pid: self.pid,
            host,
            command,
            launcher: self.launcher,
            samples: vec![0.0; events],
            lost: 0,
        }
    }
}

impl ProcessTableBytes {
    /// The table of `processes` (their counts are left out).
    pub fn of(processes: &[ProcessInfo]) -> ProcessTableBytes {
        let mut hosts: HashMap<&str, u32> = HashMap::new();
        let mut commands: HashMap<&[String], u32> = HashMap::new();
        let mut table = IdentityTable {
            hosts: Vec::new(),
            commands: Vec::new(),
            processes: Vec::with_capacity(processes.len()),
        };
        for p in processes {
            let host = *hosts.entry(&p.host).or_insert_with(|| {
                table.hosts.push(p.host.to_string());
                table.hosts.len() as u32 - 1
            });
            let command = *commands.entry(&p.command).or_insert_with(|| {
                table.commands.push(p.command.to_vec());
                table.commands.len() as u32 - 1
            });
            table.processes.push(ProcessIdentity {
                rank: p.rank,
                pid: p.pid,
                host,
                command,
                launcher: p.launcher,
            });
        }
        let mut bytes = Vec::new();
        crate::container::encode_into(&mut bytes, &table).expect("encoding into memory");
        ProcessTableBytes {
            processes: processes.len() as u64,
            bytes: bytes.into(),
        }
    }

    /// The number of processes.
    pub fn len(&self) -> usize {
        self.processes as usize
    }

    pub fn is_empty(&self) -> bool {
        self.processes == 0
    }

    /// The processes, with `events` zero counts each; `None` when the
    /// table does not decode or contradicts itself.
    pub fn processes(&self, events: usize) -> Option<Vec<ProcessInfo>> {
        let (table, used): (IdentityTable, usize) =
            bincode::decode_from_slice(&self.bytes, crate::container::codec()).ok()?;
        if used != self.bytes.len() || table.processes.len() as u64 != self.processes {
            return None;
        }
        table.into_infos(events)
    }
}

/// What one process counted: its samples of each event and its losses.
#[derive(Debug, Clone, PartialEq, Encode, Decode)]
pub struct ProcessCounts {
    pub process: u32,
    pub samples: Vec<f64>,
    pub lost: u64,
}

impl ProcessCounts {
    /// The counts of the processes that counted anything: a process of
    /// `events` zero samples and no losses is left out (and read back so).
    pub fn of(processes: &[ProcessInfo], events: usize) -> Vec<ProcessCounts> {
        processes
            .iter()
            .enumerate()
            .filter(|(_, p)| {
                p.lost != 0
                    || p.samples.len() != events
                    || p.samples.iter().any(|&x| x.to_bits() != 0)
            })
            .map(|(i, p)| ProcessCounts {
                process: i as u32,
                samples: p.samples.clone(),
                lost: p.lost,
            })
            .collect()
    }
}
