//! Results: resolved blame per variable, per process (rank) and context,
//! written by `blame post` (one file per shard) and reduced by `blame merge`.

use crate::container::{encode_f64s, encode_u32s, write_atomic_led, ContainerReader, Kind};
use crate::error::{FormatError, RecordRefused, Result};
use crate::files::open_regular;
use crate::stream::EventDesc;
use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::io::{BufReader, Read};
use std::path::Path;
use std::sync::Arc;

pub const RESULTS: Kind = Kind {
    name: "blame results",
    magic: *b"BLAMERES",
    version: 9,
};

/// The `process` of the application's stacks and contexts in a result
/// whose contexts are summed over ranks ([`ResultsHeader::summed`]): they
/// belong to all the application's ranks at once.
pub const ALL_RANKS: u32 = u32::MAX;

/// The oldest results version this build reads (version 2: no provenance,
/// no lost counts, no damage notes; read as unknown provenance; versions 2
/// and 3: frames and variable keys repeated in every stack and context
/// record, interned while reading).
pub const OLDEST_READABLE: u32 = 2;

/// A symbolized frame, as results and JSON-lines samples carry it.
///
/// In JSON a zero `column` and a false `inlined` are left out; in the binary
/// (bincode) files every field is always written, because bincode is not
/// self-describing and cannot skip fields (see the manual `Serialize`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, Encode, Decode)]
pub struct SymFrame {
    pub function: String,
    #[serde(default)]
    pub file: String,
    #[serde(default)]
    pub line: u32,
    #[serde(default)]
    pub column: u32,
    /// True for a frame expanded from DWARF inline info.
    #[serde(default)]
    pub inlined: bool,
}

impl Serialize for SymFrame {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        // Skipping fields is only safe for self-describing formats.
        let human = s.is_human_readable();
        let skip_column = human && self.column == 0;
        let skip_inlined = human && !self.inlined;
        let fields = 3 + usize::from(!skip_column) + usize::from(!skip_inlined);
        let mut st = s.serialize_struct("SymFrame", fields)?;
        st.serialize_field("function", &self.function)?;
        st.serialize_field("file", &self.file)?;
        st.serialize_field("line", &self.line)?;
        if skip_column {
            st.skip_field("column")?;
        } else {
            st.serialize_field("column", &self.column)?;
        }
        if skip_inlined {
            st.skip_field("inlined")?;
        } else {
            st.serialize_field("inlined", &self.inlined)?;
        }
        st.end()
    }
}

/// A [`SymFrame`] borrowed from the bytes it was read from (a merge reads
/// each partial result's frames, nearly all of which it has already): it
/// hashes as the frame does, field by field, so that tables of frames are
/// searched with it and the frame is made only when it is new.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FrameRef<'a> {
    pub function: &'a str,
    pub file: &'a str,
    pub line: u32,
    pub column: u32,
    pub inlined: bool,
}

impl FrameRef<'_> {
    pub fn to_frame(self) -> SymFrame {
        SymFrame {
            function: self.function.to_owned(),
            file: self.file.to_owned(),
            line: self.line,
            column: self.column,
            inlined: self.inlined,
        }
    }
}

impl SymFrame {
    pub fn as_ref(&self) -> FrameRef<'_> {
        FrameRef {
            function: &self.function,
            file: &self.file,
            line: self.line,
            column: self.column,
            inlined: self.inlined,
        }
    }
}

/// A [`VariableKey`] borrowed from the bytes it was read from; it hashes
/// as the key does (see [`FrameRef`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VariableKeyRef<'a> {
    pub name: &'a str,
    pub function: &'a str,
    pub file: &'a str,
    pub line: u32,
    pub type_name: &'a str,
    pub kind: &'a str,
    pub scalar: bool,
    pub event: u16,
}

impl VariableKeyRef<'_> {
    pub fn to_key(self) -> VariableKey {
        VariableKey {
            name: self.name.to_owned(),
            function: self.function.to_owned(),
            file: self.file.to_owned(),
            line: self.line,
            type_name: self.type_name.to_owned(),
            kind: self.kind.to_owned(),
            scalar: self.scalar,
            event: self.event,
        }
    }
}

impl VariableKey {
    pub fn as_ref(&self) -> VariableKeyRef<'_> {
        VariableKeyRef {
            name: &self.name,
            function: &self.function,
            file: &self.file,
            line: self.line,
            type_name: &self.type_name,
            kind: &self.kind,
            scalar: self.scalar,
            event: self.event,
        }
    }
}

/// A [`FunctionKey`] borrowed from the bytes it was read from; it hashes
/// as the key does (see [`FrameRef`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FunctionKeyRef<'a> {
    pub name: &'a str,
    pub file: &'a str,
    pub event: u16,
}

impl FunctionKeyRef<'_> {
    pub fn to_key(self) -> FunctionKey {
        FunctionKey {
            name: self.name.to_owned(),
            file: self.file.to_owned(),
            event: self.event,
        }
    }
}

impl FunctionKey {
    pub fn as_ref(&self) -> FunctionKeyRef<'_> {
        FunctionKeyRef {
            name: &self.name,
            file: &self.file,
            event: self.event,
        }
    }
}

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

/// [`ProcessInfo`] of results versions 3 to 5: host and command written
/// out for every process.
#[derive(Decode)]
struct ProcessInfoV5 {
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

/// The header as results versions 3 to 6 lay it out, read owned and
/// written from references: `Pr` is the process table (versions 3 to 5: a
/// [`ProcessInfoV5`] per process; 6: a [`ProcessTable`]), `V` the
/// provenance (3 to 5: [`ProvenanceV5s`]) and `Su` whether contexts are
/// summed (3 and 4: [`NotSummed`], which takes no bytes).
#[derive(Encode, Decode)]
struct HeaderLayout<P, E, Pr, S, B, C, V, D, Su> {
    producer: P,
    events: E,
    processes: Pr,
    shard: S,
    blame_points: B,
    coverage: C,
    provenance: V,
    damage: D,
    summed: Su,
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

/// A process table as one results version stores it.
trait StoredProcesses {
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
    fn into_whole(self, events: usize) -> Option<Vec<ProcessInfo>> {
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

/// A process table that holds each distinct host and command once, the
/// processes naming theirs by index: version 6 with each process's counts
/// ([`ProcessEntry`]), version 7 without ([`ProcessIdentity`]).
#[derive(Encode, Decode)]
struct HostTable<E> {
    hosts: Vec<String>,
    commands: Vec<Vec<String>>,
    processes: Vec<E>,
}

/// The process table of results version 6 (read only).
type ProcessTable = HostTable<ProcessEntry>;

#[derive(Encode, Decode)]
struct ProcessEntry {
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
trait TableEntry {
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
struct ProcessesV7 {
    table: ProcessTableBytes,
    counts: Vec<ProcessCounts>,
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
    bytes: Arc<[u8]>,
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
struct ProcessesV9 {
    processes: u64,
    counts: Vec<ProcessCounts>,
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
fn read_process_table<R: Read>(
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

/// What a result whose application contexts are summed over ranks (results
/// version 5, `blame merge --sum-contexts`) was merged from.
///
/// Its variables, functions and per-process sample counts are kept per
/// process as in any result, so every rank statistic stays exact; its
/// stacks and contexts of application processes are summed over them
/// (process [`ALL_RANKS`]), those of launchers kept per process. What needs
/// each rank's calling contexts (per-rank profiles, the drill-down of one
/// rank) reads the results it was merged from instead.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, Encode, Decode)]
pub struct SummedContexts {
    /// The results with per-rank contexts under this one (sorted, each
    /// once): the inputs of the merge, or what merged summed inputs named.
    pub from: Vec<String>,
}

/// A file that went into a result, identified by its size and content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct FileId {
    /// The path as given (for messages; not compared).
    pub path: String,
    pub bytes: u64,
    /// xxHash64, seeded with `bytes`, of the whole file (static db), or
    /// of its first and last 64 KiB when larger than 128 KiB (sample inputs).
    pub hash: u64,
}

impl FileId {
    /// Identifies `path` by its size and a hash of all its bytes (the
    /// static db: one changed summary anywhere changes the results).
    pub fn of(path: &Path) -> std::io::Result<FileId> {
        Self::hashed(path, u64::MAX)
    }

    /// Identifies `path` by its size and a hash of its first and last 64
    /// KiB (sample inputs, which change only by being recorded again: the
    /// header at the start holds the recording's start time and pid, the
    /// end the last chunk written). Every shard of a post identifies every
    /// input of the run, so this stays small: 128 KiB a file, not the
    /// file (a MiB a side made it most of what a shard of a 1,024-rank
    /// run read).
    pub fn of_input(path: &Path) -> std::io::Result<FileId> {
        Self::hashed(path, 64 << 10)
    }

    /// The whole file when it is at most `2 * part` bytes, else its first
    /// and last `part` bytes.
    fn hashed(path: &Path, part: u64) -> std::io::Result<FileId> {
        use std::hash::Hasher;
        use std::io::{Seek, SeekFrom};
        let mut file = open_regular(path)?;
        let bytes = file.metadata()?.len();
        let mut h = twox_hash::XxHash64::with_seed(bytes);
        let mut feed = |r: &mut dyn Read| -> std::io::Result<()> {
            let mut buf = vec![0u8; 1 << 16];
            loop {
                match r.read(&mut buf) {
                    Ok(0) => return Ok(()),
                    Ok(n) => h.write(&buf[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
        };
        if bytes <= part.saturating_mul(2) {
            feed(&mut file)?;
        } else {
            feed(&mut (&mut file).take(part))?;
            file.seek(SeekFrom::End(-(part as i64)))?;
            feed(&mut file.take(part))?;
        }
        Ok(FileId {
            path: path.display().to_string(),
            bytes,
            hash: h.finish(),
        })
    }

    /// Same content (the path does not matter).
    pub fn same_content(&self, other: &FileId) -> bool {
        (self.bytes, self.hash) == (other.bytes, other.hash)
    }
}

/// The sample inputs of a result as one identity: how many there are,
/// their bytes in all, and a hash of each input's size and content hash in
/// order. The same inputs give the same identity and a change to any of
/// them changes it. (Results versions 3 to 5 listed every input's
/// [`FileId`]: a partial result of a 10^5-rank run held 10^5 paths, which
/// every merge read once per part.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, Encode, Decode)]
pub struct InputsId {
    pub count: u64,
    pub bytes: u64,
    pub hash: u64,
}

impl InputsId {
    /// The identity of `files`, in their order (paths do not matter).
    pub fn of(files: &[FileId]) -> InputsId {
        use std::hash::Hasher;
        let mut h = twox_hash::XxHash64::with_seed(files.len() as u64);
        for f in files {
            h.write_u64(f.bytes);
            h.write_u64(f.hash);
        }
        InputsId {
            count: files.len() as u64,
            bytes: files.iter().map(|f| f.bytes).sum(),
            hash: h.finish(),
        }
    }
}

/// What produced a result: cached results are reused only for the same
/// inputs, static db and options.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, Encode, Decode)]
pub struct Provenance {
    /// The static db used, `None` when there was none.
    pub static_db: Option<FileId>,
    /// The sample inputs (streams of the run dir, perf.data or JSON-lines files).
    pub inputs: InputsId,
    /// Every option that changes the results, as (name, value), sorted by name.
    pub options: Vec<(String, String)>,
}

/// An optional [`ProvenanceV5`], as version 5's header holds it.
#[derive(Decode)]
struct ProvenanceV5s(Option<ProvenanceV5>);

impl From<ProvenanceV5s> for Option<Provenance> {
    fn from(p: ProvenanceV5s) -> Self {
        p.0.map(Provenance::from)
    }
}

/// [`Provenance`] of results versions 3 to 5: every input listed.
#[derive(Decode)]
struct ProvenanceV5 {
    static_db: Option<FileId>,
    inputs: Vec<FileId>,
    options: Vec<(String, String)>,
}

impl From<ProvenanceV5> for Provenance {
    fn from(p: ProvenanceV5) -> Self {
        Provenance {
            static_db: p.static_db,
            inputs: InputsId::of(&p.inputs),
            options: p.options,
        }
    }
}

impl Provenance {
    /// True when `self` and `other` describe the same computation: same
    /// input and db contents, same options (paths may differ).
    pub fn matches(&self, other: &Provenance) -> bool {
        let same_db = match (&self.static_db, &other.static_db) {
            (None, None) => true,
            (Some(a), Some(b)) => a.same_content(b),
            _ => false,
        };
        same_db && self.options == other.options && self.inputs == other.inputs
    }

    /// What differs from `other`, for messages ("the static db", "options").
    pub fn differences(&self, other: &Provenance) -> Vec<String> {
        let mut out = Vec::new();
        match (&self.static_db, &other.static_db) {
            (None, None) => {}
            (Some(a), Some(b)) if a.same_content(b) => {}
            (Some(a), Some(b)) => out.push(format!("static db {} (was {})", b.path, a.path)),
            (None, Some(b)) => out.push(format!("static db {} (was none)", b.path)),
            (Some(a), None) => out.push(format!("no static db (was {})", a.path)),
        }
        if self.options != other.options {
            let show = |o: &[(String, String)]| {
                o.iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            out.push(format!(
                "options {} (was {})",
                show(&other.options),
                show(&self.options)
            ));
        }
        if self.inputs != other.inputs {
            out.push("sample streams".into());
        }
        out
    }
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

/// The blame of one variable (or function) in one process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Decode)]
pub struct ProcessValue {
    /// Index into `ResultsHeader::processes`.
    pub process: u32,
    /// Samples whose blame reaches the variable (fractional for memory events).
    pub inclusive: f64,
    /// Samples that wrote the variable's own memory directly.
    pub exclusive: f64,
    /// Samples whose explicit blame (data flow only, no control
    /// dependence) reaches the variable; `inclusive` is the total blame.
    #[serde(default)]
    pub explicit: f64,
    /// For scalars: explicit samples that also blame a data structure
    /// (array, pointer, struct), so that the scalar's blame there is
    /// inherited from it (a norm of a vector, the index of a loop filling an array).
    #[serde(default)]
    pub inherited: f64,
    /// For memory events: the attribution under each method (`raw`, `loop`, `skid`, `direct`).
    #[serde(default)]
    pub methods: Vec<(String, f64)>,
}

/// What a blamed name is.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Encode, Decode,
)]
pub struct VariableKey {
    pub name: String,
    /// Defining function (demangled); empty for globals.
    pub function: String,
    pub file: String,
    pub line: u32,
    pub type_name: String,
    /// local, param, global, field, heap.
    pub kind: String,
    /// A scalar of a basic type (no fields): see `Variable::is_scalar`.
    #[serde(default)]
    pub scalar: bool,
    pub event: u16,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct VariableBlame {
    pub key: VariableKey,
    pub values: Vec<ProcessValue>,
}

/// Code-centric totals for one function.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Encode, Decode,
)]
pub struct FunctionKey {
    pub name: String,
    pub file: String,
    pub event: u16,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct FunctionBlame {
    pub key: FunctionKey,
    pub values: Vec<ProcessValue>,
}

/// A symbolized calling context of one process, stored once and referred
/// to by index from [`ContextBlame`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Decode)]
pub struct StackRecord {
    pub process: u32,
    /// Innermost first, as indices into `Results::frames`; the innermost
    /// frame's line is the sampled line.
    pub frames: Vec<u32>,
    /// Samples of each event with exactly this stack (for code-centric trees).
    pub samples: Vec<f64>,
}

/// A call path of results version 8: frame ids, innermost first, stored
/// once however many processes' stacks run through it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct CallPath {
    pub frames: Vec<u32>,
}

/// A stack of results version 8 on a call path that other stacks share: a
/// process's samples on a path, an index into the file's [`CallPath`]
/// records stored as the difference from the path of the `PathStack`
/// before (from 0 for the first): stacks run through paths mostly in the
/// order paths are stored, a step of a byte.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct PathStack {
    pub process: u32,
    pub path_step: i64,
    pub samples: Vec<f64>,
}

/// [`PathStack`] borrowed for writing (bincode's layout is the same).
#[derive(Serialize)]
struct PathStackRef<'a> {
    process: u32,
    path_step: i64,
    samples: &'a [f64],
}

/// A call path's frame ids borrowed for writing, encoded as bincode
/// encodes a slice ([`encode_u32s`]).
#[derive(Serialize)]
struct Ids<'a>(&'a [u32]);

// The records a results file holds most of, encoded as bincode's derive
// would (fields in order), their vectors in runs ([`encode_u32s`],
// [`encode_f64s`]) and a value's four sums in one write.

impl Encode for ProcessValue {
    fn encode<E: bincode::enc::Encoder>(
        &self,
        e: &mut E,
    ) -> std::result::Result<(), bincode::error::EncodeError> {
        use bincode::enc::write::Writer;
        self.process.encode(e)?;
        let mut sums = [0u8; 32];
        for (bytes, v) in sums.chunks_exact_mut(8).zip([
            self.inclusive,
            self.exclusive,
            self.explicit,
            self.inherited,
        ]) {
            bytes.copy_from_slice(&v.to_le_bytes());
        }
        e.writer().write(&sums)?;
        self.methods.encode(e)
    }
}

impl Encode for StackRecord {
    fn encode<E: bincode::enc::Encoder>(
        &self,
        e: &mut E,
    ) -> std::result::Result<(), bincode::error::EncodeError> {
        self.process.encode(e)?;
        encode_u32s(e, &self.frames)?;
        encode_f64s(e, &self.samples)
    }
}

impl Encode for PathStackRef<'_> {
    fn encode<E: bincode::enc::Encoder>(
        &self,
        e: &mut E,
    ) -> std::result::Result<(), bincode::error::EncodeError> {
        self.process.encode(e)?;
        self.path_step.encode(e)?;
        encode_f64s(e, self.samples)
    }
}

impl Encode for Ids<'_> {
    fn encode<E: bincode::enc::Encoder>(
        &self,
        e: &mut E,
    ) -> std::result::Result<(), bincode::error::EncodeError> {
        encode_u32s(e, self.0)
    }
}

/// The path of a [`PathStack`] whose step is `step` after a stack on
/// `before` (`None`: a step out of range, which no path has).
pub(crate) fn path_after(before: u32, step: i64) -> Option<u32> {
    u32::try_from(i64::from(before).checked_add(step)?).ok()
}

/// One calling context that contributed to a variable's blame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct ContextBlame {
    /// Index into `Results::variables`.
    pub variable: u32,
    pub process: u32,
    /// Index into `Results::stacks`.
    pub stack: u32,
    pub samples: f64,
}

/// The data records of results version 8, borrowed for writing (bincode
/// encodes a reference as the value, so this is the owned enum's layout;
/// a path's frames are encoded as a vector).
#[derive(Serialize, Encode)]
enum RecordRef<'a> {
    Variable(&'a VariableBlame),
    Function(&'a FunctionBlame),
    Frame(&'a SymFrame),
    Stack(StackRef<'a>),
    Context(&'a ContextBlame),
    Path(Ids<'a>),
    PathStack(PathStackRef<'a>),
}

/// [`StackRecord`] borrowed for writing (bincode's layout is the same).
#[derive(Serialize)]
struct StackRef<'a> {
    process: u32,
    frames: &'a [u32],
    samples: &'a [f64],
}

impl Encode for StackRef<'_> {
    fn encode<E: bincode::enc::Encoder>(
        &self,
        e: &mut E,
    ) -> std::result::Result<(), bincode::error::EncodeError> {
        self.process.encode(e)?;
        encode_u32s(e, self.frames)?;
        encode_f64s(e, self.samples)
    }
}

/// Stacks as the writer reads them: [`Results::stacks`] or the flat
/// tables of [`crate::results_flat::FlatStacks`].
pub(crate) trait StackView {
    fn process_of(&self, i: usize) -> u32;
    fn frames_of(&self, i: usize) -> &[u32];
    fn samples_of(&self, i: usize) -> &[f64];
    /// The call paths that more than one stack runs through, in the order
    /// they first appear, and each stack's path among them (`None`: a path
    /// of its own, which its record holds).
    fn shared_paths(&self) -> (Vec<&[u32]>, Vec<Option<u32>>);
}

impl StackView for [StackRecord] {
    fn process_of(&self, i: usize) -> u32 {
        self[i].process
    }
    fn frames_of(&self, i: usize) -> &[u32] {
        &self[i].frames
    }
    fn samples_of(&self, i: usize) -> &[f64] {
        &self[i].samples
    }
    fn shared_paths(&self) -> (Vec<&[u32]>, Vec<Option<u32>>) {
        call_paths(self.iter().map(|st| st.frames.as_slice()))
    }
}

/// The header and records of a results file, borrowed for writing.
pub(crate) struct WriteParts<'a, S: StackView + ?Sized> {
    pub header: &'a ResultsHeader,
    /// The process table and the counts of those that counted anything.
    pub processes: &'a ProcessTableBytes,
    pub counts: Vec<ProcessCounts>,
    pub variables: &'a [VariableBlame],
    pub functions: &'a [FunctionBlame],
    pub frames: &'a [SymFrame],
    pub stacks: &'a S,
    pub contexts: &'a [ContextBlame],
}

impl<S: StackView + ?Sized> WriteParts<'_, S> {
    /// Writes atomically (temporary file, then rename), so a reader never
    /// sees half a result. Records are encoded one at a time, never copied
    /// whole; the bytes depend only on the records, not on how the stacks
    /// are held.
    pub(crate) fn write(self, path: &Path) -> Result<()> {
        let stacks = self.stacks;
        let (paths, path_of) = stacks.shared_paths();
        let mut before = 0;
        let records = self
            .variables
            .iter()
            .map(RecordRef::Variable)
            .chain(self.functions.iter().map(RecordRef::Function))
            .chain(self.frames.iter().map(RecordRef::Frame))
            .chain(paths.into_iter().map(|p| RecordRef::Path(Ids(p))))
            .chain(
                path_of
                    .into_iter()
                    .enumerate()
                    .map(move |(i, path)| match path {
                        None => RecordRef::Stack(StackRef {
                            process: stacks.process_of(i),
                            frames: stacks.frames_of(i),
                            samples: stacks.samples_of(i),
                        }),
                        Some(path) => {
                            let path_step = i64::from(path) - i64::from(before);
                            before = path;
                            RecordRef::PathStack(PathStackRef {
                                process: stacks.process_of(i),
                                path_step,
                                samples: stacks.samples_of(i),
                            })
                        }
                    }),
            )
            .chain(self.contexts.iter().map(RecordRef::Context));
        let h = self.header;
        let header = HeaderLayout {
            producer: &h.producer,
            events: &h.events,
            processes: ProcessesV9 {
                processes: self.processes.len() as u64,
                counts: self.counts,
            },
            shard: &h.shard,
            blame_points: &h.blame_points,
            coverage: &h.coverage,
            provenance: &h.provenance,
            damage: &h.damage,
            summed: &h.summed,
        };
        write_atomic_led(path, RESULTS, &header, Some(&self.processes.bytes), records)
    }
}

/// The data records of results versions 4 to 8: frames are stored once and
/// stacks name them by index, contexts name their variable by index.
/// Versions 4 to 7 wrote each stack's frames in its `Stack` record;
/// version 8 writes each call path that more than one stack runs through
/// once (`Path`), before the stacks, and the stacks on it as `PathStack`
/// records naming it (the others as `Stack` records).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub enum ResultRecord {
    Variable(VariableBlame),
    Function(FunctionBlame),
    Frame(SymFrame),
    Stack(StackRecord),
    Context(ContextBlame),
    Path(CallPath),
    PathStack(PathStack),
}

/// [`StackRecord`] of versions 2 and 3: every frame written out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct StackRecordV3 {
    pub process: u32,
    pub frames: Vec<SymFrame>,
    pub samples: Vec<f64>,
}

/// [`ContextBlame`] of versions 2 and 3: the variable's whole key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct ContextBlameV3 {
    pub variable: VariableKey,
    pub process: u32,
    pub stack: u32,
    pub samples: f64,
}

/// The data records of versions 2 and 3 (read, never written).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub enum ResultRecordV3 {
    Variable(VariableBlame),
    Function(FunctionBlame),
    Stack(StackRecordV3),
    Context(ContextBlameV3),
}

/// A results file in memory.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Results {
    pub header: ResultsHeader,
    /// Sorted by key (`blame post` and `blame merge` write them so).
    pub variables: Vec<VariableBlame>,
    pub functions: Vec<FunctionBlame>,
    /// The distinct frames of `stacks`, each once.
    pub frames: Vec<SymFrame>,
    pub stacks: Vec<StackRecord>,
    pub contexts: Vec<ContextBlame>,
}

impl Results {
    /// True when the application's stacks and contexts are summed over its
    /// ranks ([`ResultsHeader::summed`]).
    pub fn is_summed(&self) -> bool {
        self.header.summed.is_some()
    }

    /// The rank of `process` as stacks and contexts name it: `None` for
    /// [`ALL_RANKS`] and processes without a rank.
    pub fn rank_of(&self, process: u32) -> Option<u32> {
        self.header
            .processes
            .get(process as usize)
            .and_then(|p| p.rank)
    }

    /// For what needs each rank's calling contexts (`what`): the refusal
    /// when this result has them summed over ranks, naming the results to
    /// use instead; `None` when it has them per process.
    pub fn per_rank_contexts_missing(&self, what: &str) -> Option<PerRankContextsMissing> {
        let summed = self.header.summed.as_ref()?;
        Some(PerRankContextsMissing {
            what: what.to_string(),
            ranks: self.header.processes.iter().filter(|p| !p.launcher).count(),
            merged_from: summed.from.clone(),
        })
    }

    /// The frames of stack `stack`, innermost first.
    pub fn stack_frames(&self, stack: u32) -> impl DoubleEndedIterator<Item = &SymFrame> + '_ {
        self.stacks[stack as usize]
            .frames
            .iter()
            .map(|&f| &self.frames[f as usize])
    }

    /// The frames of `stack`, innermost first.
    pub fn frames_of<'a>(
        &'a self,
        stack: &'a StackRecord,
    ) -> impl DoubleEndedIterator<Item = &'a SymFrame> + ExactSizeIterator + 'a {
        stack.frames.iter().map(|&f| &self.frames[f as usize])
    }

    /// Adds a stack of `process` whose frames are given whole (they are
    /// looked up in `frames` one by one, added when missing: for building
    /// small results, such as tests' and imports'). Returns its index.
    pub fn push_stack(&mut self, process: u32, frames: Vec<SymFrame>, samples: Vec<f64>) -> u32 {
        let frames = frames
            .into_iter()
            .map(|f| match self.frames.iter().position(|x| *x == f) {
                Some(i) => i as u32,
                None => {
                    self.frames.push(f);
                    self.frames.len() as u32 - 1
                }
            })
            .collect();
        self.stacks.push(StackRecord {
            process,
            frames,
            samples,
        });
        self.stacks.len() as u32 - 1
    }

    /// The index of the variable record of `key`.
    pub fn variable_index(&self, key: &VariableKey) -> Option<u32> {
        self.variables
            .iter()
            .position(|v| v.key == *key)
            .map(|i| i as u32)
    }

    /// The key of the variable a context blames.
    pub fn context_key(&self, c: &ContextBlame) -> &VariableKey {
        &self.variables[c.variable as usize].key
    }

    /// Writes atomically (temporary file, then rename), so a reader never
    /// sees half a result. Records are encoded from `self` one at a time,
    /// never copied whole.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<()> {
        let h = &self.header;
        WriteParts {
            header: h,
            processes: &ProcessTableBytes::of(&h.processes),
            counts: ProcessCounts::of(&h.processes, h.events.len()),
            variables: &self.variables,
            functions: &self.functions,
            frames: &self.frames,
            stacks: &self.stacks[..],
            contexts: &self.contexts,
        }
        .write(path.as_ref())
    }

    pub fn read(path: impl AsRef<Path>) -> Result<Results> {
        let path = path.as_ref();
        let file = open_regular(path).map_err(|e| FormatError::io(path, e))?;
        Self::read_from(BufReader::new(file), path)
    }

    pub fn read_bytes(bytes: &[u8]) -> Result<Results> {
        Self::read_from(bytes, Path::new("<memory>"))
    }

    fn read_from<R: Read>(input: R, path: &Path) -> Result<Results> {
        let (mut r, header) = open_results(input, path)?;
        let check = RecordCheck::of(&header, r.version);
        let mut out = Results {
            header,
            ..Default::default()
        };
        let mut old = (r.version < 4).then(OldLayout::default);
        let mut paths = PathsRead::default();
        while let Some(chunk) = r.next_chunk()? {
            let corrupt = |reason: RecordRefused| chunk.corrupt(path, reason);
            // Records are decoded straight from the chunk's bytes into
            // `out`. Old records are converted one at a time, each after the
            // records before it are in `out` (a context names a variable
            // read earlier, maybe in the same chunk).
            match old.as_mut() {
                None => chunk.decode_each::<ResultRecord>(path, |rec| {
                    Self::push_record(&mut out, &mut paths, rec, &check).map_err(corrupt)
                })?,
                Some(old) => chunk.decode_each::<ResultRecordV3>(path, |rec| {
                    let rec = old.convert(rec, &mut out);
                    Self::push_record(&mut out, &mut paths, rec, &check).map_err(corrupt)
                })?,
            }
        }
        r.require_end()?;
        Ok(out)
    }

    /// Checks one decoded record against what is already read and appends
    /// it (a call path to `paths`, where the stacks after it find it).
    fn push_record(
        out: &mut Results,
        paths: &mut PathsRead,
        rec: ResultRecord,
        check: &RecordCheck,
    ) -> std::result::Result<(), RecordRefused> {
        match rec {
            ResultRecord::Variable(v) => {
                check.values(&v.values)?;
                out.variables.push(v)
            }
            ResultRecord::Function(f) => {
                check.values(&f.values)?;
                out.functions.push(f)
            }
            ResultRecord::Frame(f) => out.frames.push(f),
            ResultRecord::Stack(st) => {
                check.stack(st.process, &st.frames, out.frames.len())?;
                out.stacks.push(st)
            }
            ResultRecord::Context(c) => {
                check.context(&c, out.stacks.len(), out.variables.len())?;
                out.contexts.push(c)
            }
            ResultRecord::Path(p) => {
                check.path(&p.frames, out.frames.len(), out.stacks.len())?;
                paths.paths.push(p.frames)
            }
            ResultRecord::PathStack(st) => {
                let path = path_after(paths.last, st.path_step);
                check.path_stack(st.process, path, paths.paths.len())?;
                let path = path.expect("checked");
                paths.last = path;
                out.stacks.push(StackRecord {
                    process: st.process,
                    frames: paths.paths[path as usize].clone(),
                    samples: st.samples,
                })
            }
        }
        Ok(())
    }
}

/// The call paths of a result read so far, and the path of its last
/// `PathStack`.
#[derive(Default)]
struct PathsRead {
    paths: Vec<Vec<u32>>,
    last: u32,
}

/// The hash of a call path's frame ids: XXH3 of their bytes in one call
/// (a slice of integers hashes as its length, then its bytes in one
/// write). The streaming XXH3 hasher sets up its whole state for every
/// key, several times the work of hashing 40 ids (most of writing the
/// stacks of a result of 10^3 ranks).
#[derive(Default)]
pub(crate) struct PathHasher(u64);

impl std::hash::Hasher for PathHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0 = twox_hash::XxHash3_64::oneshot_with_seed(self.0, bytes);
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = self.0.rotate_left(5) ^ n as u64;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// The call paths of `stacks` (each stack's frame ids) that more than one
/// stack runs through, in the order they first appear, and each stack's
/// path among them (`None`: a path of its own, which its record holds).
pub(crate) fn call_paths<'a>(
    stacks: impl Iterator<Item = &'a [u32]>,
) -> (Vec<&'a [u32]>, Vec<Option<u32>>) {
    // Each distinct path's id, in the order paths first appear (one hash
    // per stack), and how many stacks run through it.
    let mut ids: HashMap<&[u32], u32, BuildHasherDefault<PathHasher>> = HashMap::default();
    let mut first: Vec<&[u32]> = Vec::new();
    let mut uses: Vec<u32> = Vec::new();
    let distinct: Vec<u32> = stacks
        .map(|frames| {
            let id = *ids.entry(frames).or_insert_with(|| {
                first.push(frames);
                uses.push(0);
                first.len() as u32 - 1
            });
            uses[id as usize] += 1;
            id
        })
        .collect();
    drop(ids);
    shared_in_order(first, &uses, &distinct)
}

/// Of the distinct paths `first` (in the order they first appear, each
/// run through by `uses` stacks), the shared ones numbered in that order,
/// and the shared path of each stack (`distinct`: its path's index in
/// `first`).
pub(crate) fn shared_in_order<'a>(
    first: Vec<&'a [u32]>,
    uses: &[u32],
    distinct: &[u32],
) -> (Vec<&'a [u32]>, Vec<Option<u32>>) {
    let mut shared = Vec::new();
    let index: Vec<Option<u32>> = first
        .iter()
        .zip(uses)
        .map(|(&frames, &n)| {
            (n > 1).then(|| {
                shared.push(frames);
                shared.len() as u32 - 1
            })
        })
        .collect();
    let path_of = distinct.iter().map(|&id| index[id as usize]).collect();
    (shared, path_of)
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

/// What a data record may refer to, by its result's header: the checks
/// every reader of results makes before it keeps a record (a corrupt file
/// is an error naming it, never an index out of range later).
pub(crate) struct RecordCheck {
    processes: u32,
    /// Stacks and contexts of a summed result may belong to all ranks.
    summed: bool,
    /// Call paths may be stored, and stacks name them (version 8).
    paths: bool,
}

impl RecordCheck {
    pub(crate) fn of(header: &ResultsHeader, version: u32) -> RecordCheck {
        Self::new(header.processes.len(), header, version)
    }

    /// The checks of a result of `version`, of `processes` processes and
    /// this header's kind.
    pub(crate) fn new(processes: usize, header: &ResultsHeader, version: u32) -> RecordCheck {
        RecordCheck {
            processes: processes as u32,
            summed: header.summed.is_some(),
            paths: version >= 8,
        }
    }

    /// Call paths, and stacks naming them, exist from version 8.
    #[inline]
    fn paths_exist(&self) -> std::result::Result<(), RecordRefused> {
        match self.paths {
            true => Ok(()),
            false => Err(RecordRefused::PathsBeforeVersion8),
        }
    }

    #[inline]
    fn process(&self, p: u32) -> std::result::Result<(), RecordRefused> {
        if p < self.processes {
            Ok(())
        } else {
            Err(RecordRefused::Process {
                process: p,
                processes: self.processes,
            })
        }
    }

    #[inline]
    fn context_process(&self, p: u32) -> std::result::Result<(), RecordRefused> {
        if self.summed && p == ALL_RANKS {
            Ok(())
        } else {
            self.process(p)
        }
    }

    /// A variable's or function's values.
    pub(crate) fn values(&self, values: &[ProcessValue]) -> std::result::Result<(), RecordRefused> {
        values.iter().try_for_each(|v| self.process(v.process))
    }

    /// A stack, when `frames` frames are read before it.
    pub(crate) fn stack(
        &self,
        process: u32,
        ids: &[u32],
        frames: usize,
    ) -> std::result::Result<(), RecordRefused> {
        // The largest id, not the first out of range: a loop the compiler
        // vectorizes (every stack of every result read is checked).
        self.stack_of_largest(process, ids.iter().copied().max(), frames)
    }

    /// A call path, when `frames` frames and `stacks` stacks are read
    /// before it (paths come before every stack).
    pub(crate) fn path(
        &self,
        ids: &[u32],
        frames: usize,
        stacks: usize,
    ) -> std::result::Result<(), RecordRefused> {
        self.path_of_largest(ids.iter().copied().max(), frames, stacks)
    }

    /// [`Self::path`] of a path whose largest frame id is `largest`.
    #[inline]
    pub(crate) fn path_of_largest(
        &self,
        largest: Option<u32>,
        frames: usize,
        stacks: usize,
    ) -> std::result::Result<(), RecordRefused> {
        self.paths_exist()?;
        Self::frame_ids("path", largest, frames)?;
        match stacks {
            0 => Ok(()),
            _ => Err(RecordRefused::PathAfterStacks { stacks }),
        }
    }

    /// Frame ids of a `what` whose largest is `largest`, when `frames`
    /// frames are read before it.
    #[inline]
    fn frame_ids(
        what: &'static str,
        largest: Option<u32>,
        frames: usize,
    ) -> std::result::Result<(), RecordRefused> {
        match largest {
            Some(f) if f as usize >= frames => Err(RecordRefused::Frame {
                what,
                frame: f,
                frames,
            }),
            _ => Ok(()),
        }
    }

    /// A stack on a call path (`None`: a step to no path, see
    /// [`path_after`]), when `paths` paths are read before it.
    #[inline]
    pub(crate) fn path_stack(
        &self,
        process: u32,
        path: Option<u32>,
        paths: usize,
    ) -> std::result::Result<(), RecordRefused> {
        self.paths_exist()?;
        self.context_process(process)?;
        match path {
            Some(p) if (p as usize) < paths => Ok(()),
            Some(path) => Err(RecordRefused::Path { path, paths }),
            None => Err(RecordRefused::PathOutOfRange { paths }),
        }
    }

    /// [`Self::stack`] of a stack whose largest frame id is `largest`
    /// (`None`: no frames), found as its ids were decoded.
    #[inline]
    pub(crate) fn stack_of_largest(
        &self,
        process: u32,
        largest: Option<u32>,
        frames: usize,
    ) -> std::result::Result<(), RecordRefused> {
        self.context_process(process)?;
        Self::frame_ids("stack", largest, frames)
    }

    /// A context, when `stacks` stacks and `variables` variables are read before it.
    #[inline]
    pub(crate) fn context(
        &self,
        c: &ContextBlame,
        stacks: usize,
        variables: usize,
    ) -> std::result::Result<(), RecordRefused> {
        // What is wrong is told apart out of line, from the fields' values:
        // the record stays in registers (a merge checks 10^6 contexts).
        let (variable, process, stack) = (c.variable, c.process, c.stack);
        let process_ok = process < self.processes || (self.summed && process == ALL_RANKS);
        if process_ok && (stack as usize) < stacks && (variable as usize) < variables {
            return Ok(());
        }
        self.context_refused(variable, process, stack, stacks, variables)
    }

    #[cold]
    #[inline(never)]
    fn context_refused(
        &self,
        variable: u32,
        process: u32,
        stack: u32,
        stacks: usize,
        variables: usize,
    ) -> std::result::Result<(), RecordRefused> {
        self.context_process(process)?;
        if stack as usize >= stacks {
            return Err(RecordRefused::Stack { stack, stacks });
        }
        if variable as usize >= variables {
            return Err(RecordRefused::Variable {
                variable,
                variables,
            });
        }
        Ok(())
    }
}

/// What needs each rank's calling contexts, refused by results whose
/// contexts are summed over ranks (`blame merge --sum-contexts`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{what} needs the calling contexts of each rank, but these results were merged with \
         `blame merge --sum-contexts`: their calling contexts are summed over the {ranks} \
         ranks (variables and functions are still per rank); use {}",
    use_instead(merged_from)
)]
pub struct PerRankContextsMissing {
    pub what: String,
    /// The application's ranks the contexts are summed over.
    pub ranks: usize,
    /// The results merged (empty: merged in memory, names not kept).
    pub merged_from: Vec<String>,
}

fn use_instead(merged_from: &[String]) -> String {
    if merged_from.is_empty() {
        "the results it was merged from (merged in memory: their names were not kept)".to_string()
    } else {
        format!(
            "one of the results it was merged from: {}",
            merged_from.join(", ")
        )
    }
}

/// Interning of version 2 and 3 records while they are read: frames into
/// `Results::frames`, context keys into indices of `Results::variables`
/// (a key no variable record has, which those versions did not forbid,
/// gets a variable record of no values).
#[derive(Default)]
struct OldLayout {
    frame_ids: std::collections::HashMap<SymFrame, u32>,
    variable_ids: std::collections::HashMap<VariableKey, u32>,
}

impl OldLayout {
    fn convert(&mut self, rec: ResultRecordV3, out: &mut Results) -> ResultRecord {
        match rec {
            ResultRecordV3::Variable(v) => ResultRecord::Variable(v),
            ResultRecordV3::Function(f) => ResultRecord::Function(f),
            ResultRecordV3::Stack(st) => {
                let frames = st
                    .frames
                    .into_iter()
                    .map(|f| match self.frame_ids.get(&f) {
                        Some(&id) => id,
                        None => {
                            let id = out.frames.len() as u32;
                            self.frame_ids.insert(f.clone(), id);
                            out.frames.push(f);
                            id
                        }
                    })
                    .collect();
                ResultRecord::Stack(StackRecord {
                    process: st.process,
                    frames,
                    samples: st.samples,
                })
            }
            ResultRecordV3::Context(c) => {
                if self.variable_ids.len() < out.variables.len() {
                    for (i, v) in out.variables.iter().enumerate() {
                        self.variable_ids.entry(v.key.clone()).or_insert(i as u32);
                    }
                }
                let variable = match self.variable_ids.get(&c.variable) {
                    Some(&id) => id,
                    None => {
                        let id = out.variables.len() as u32;
                        self.variable_ids.insert(c.variable.clone(), id);
                        out.variables.push(VariableBlame {
                            key: c.variable,
                            values: Vec::new(),
                        });
                        id
                    }
                };
                ResultRecord::Context(ContextBlame {
                    variable,
                    process: c.process,
                    stack: c.stack,
                    samples: c.samples,
                })
            }
        }
    }
}
/// The records of results read in place ([`crate::record_bytes`] knows
/// bincode's layout, this file the schema).
impl<'a> crate::record_bytes::RecordBytes<'a> {
    /// A [`SymFrame`], borrowed.
    pub fn frame(&mut self) -> Result<FrameRef<'a>, bincode::error::DecodeError> {
        Ok(FrameRef {
            function: self.str()?,
            file: self.str()?,
            line: self.u32()?,
            column: self.u32()?,
            inlined: self.bool()?,
        })
    }

    /// A [`VariableKey`], borrowed.
    pub fn variable_key(&mut self) -> Result<VariableKeyRef<'a>, bincode::error::DecodeError> {
        Ok(VariableKeyRef {
            name: self.str()?,
            function: self.str()?,
            file: self.str()?,
            line: self.u32()?,
            type_name: self.str()?,
            kind: self.str()?,
            scalar: self.bool()?,
            event: self.u16()?,
        })
    }

    /// A [`FunctionKey`], borrowed.
    pub fn function_key(&mut self) -> Result<FunctionKeyRef<'a>, bincode::error::DecodeError> {
        Ok(FunctionKeyRef {
            name: self.str()?,
            file: self.str()?,
            event: self.u16()?,
        })
    }

    /// A `Vec<ProcessValue>` appended to `into` (its methods' names are
    /// the only strings made).
    pub fn values_into(
        &mut self,
        into: &mut Vec<ProcessValue>,
    ) -> Result<(), bincode::error::DecodeError> {
        // A value takes a byte of process, four sums and a byte of methods.
        let count = self.vector_len(34)?;
        into.reserve(count);
        for _ in 0..count {
            let process = self.u32()?;
            let [inclusive, exclusive, explicit, inherited] =
                [self.f64()?, self.f64()?, self.f64()?, self.f64()?];
            let methods = (0..self.vector_len(9)?)
                .map(|_| Ok((self.str()?.to_owned(), self.f64()?)))
                .collect::<Result<_, bincode::error::DecodeError>>()?;
            into.push(ProcessValue {
                process,
                inclusive,
                exclusive,
                explicit,
                inherited,
                methods,
            });
        }
        Ok(())
    }
}
