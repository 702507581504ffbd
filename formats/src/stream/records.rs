//! The records of a sample stream: mappings, thread names, stack table
//! nodes, samples, losses, execs and the process's end, as readers see them
//! ([`Record`], [`Sample`]) and as they are encoded (`WireRecord`, a
//! sample's time relative to the one before); and what a salvaging read
//! hands out ([`Item`]).

use crate::container::Skipped;
use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};

/// A file mapped into the process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct Mapping {
    pub pid: u32,
    pub start: u64,
    pub end: u64,
    pub file_offset: u64,
    pub path: String,
    /// GNU build-id of the object, empty when it has none or it could not be read.
    pub build_id: Vec<u8>,
}

/// A thread's name (from PERF_RECORD_COMM or /proc).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct ThreadName {
    pub pid: u32,
    pub tid: u32,
    pub name: String,
}

/// One node of the stack table. The stack of a node is its frame followed by
/// the stack of its parent, so the innermost frame comes first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct StackNode {
    /// Ids start at 1; 0 is the empty stack.
    pub id: u32,
    pub parent: u32,
    /// The sampled PC for the innermost frame, a return address for the others.
    pub address: u64,
}

/// One sample. `time_delta_ns` is relative to the previous sample of the same
/// chunk (the first sample of a chunk carries the absolute time), which keeps
/// samples a few bytes each; readers hand out absolute times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub(crate) struct EncodedSample {
    pub(super) tid: u32,
    pub(super) time_delta_ns: i64,
    pub(super) event: u16,
    pub(super) weight: u64,
    pub(super) stack: u32,
    pub(super) data_address: Option<u64>,
}

/// A sample as readers see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    pub tid: u32,
    /// Nanoseconds, on the clock of `StreamHeader::start_time_ns`'s host (CLOCK_MONOTONIC for perf).
    pub time_ns: u64,
    /// Index into `StreamHeader::events`.
    pub event: u16,
    /// The event count this sample stands for (period, or ns for clocks).
    pub weight: u64,
    pub stack: u32,
    pub data_address: Option<u64>,
}

/// Samples the kernel or the sampler had to drop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct Lost {
    pub event: u16,
    pub count: u64,
}

/// The last record of a stream whose process ended while being recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct ProcessEnd {
    /// Exit code, or `128 + signal` when killed.
    pub exit_status: Option<i32>,
    pub signal: Option<i32>,
    pub time_ns: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub(crate) enum WireRecord {
    Mapping(Mapping),
    Thread(ThreadName),
    Stack(StackNode),
    Sample(EncodedSample),
    Lost(Lost),
    Exec { command: Vec<String> },
    End(ProcessEnd),
}

/// What a salvaging read ([`StreamReader::next_item_salvaging`](crate::stream::StreamReader::next_item_salvaging)) hands out.
#[derive(Debug)]
pub enum Item {
    Record(Record),
    Skipped(Skipped),
}

/// A record as readers see it.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    Mapping(Mapping),
    Thread(ThreadName),
    Stack(StackNode),
    Sample(Sample),
    Lost(Lost),
    Exec { command: Vec<String> },
    End(ProcessEnd),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every stream record encodes to the bytes bincode 1's serde path
    /// wrote for it (streams of earlier blame versions stay readable, and
    /// files written now are read by them), extremes of every varint width
    /// included.
    #[test]
    fn records_are_bincode_1_bytes() {
        use bincode1::Options;
        let old = bincode1::DefaultOptions::new()
            .with_varint_encoding()
            .with_little_endian();
        let mut records = Vec::new();
        for v in [0u64, 250, 251, 65_535, 65_536, 1 << 32, u64::MAX] {
            records.extend([
                WireRecord::Mapping(Mapping {
                    pid: v as u32,
                    start: v,
                    end: v.wrapping_add(1),
                    file_offset: v / 3,
                    path: "/usr/lib/libé.so".into(),
                    build_id: vec![v as u8; 20],
                }),
                WireRecord::Thread(ThreadName {
                    pid: 1,
                    tid: v as u32,
                    name: String::new(),
                }),
                WireRecord::Stack(StackNode {
                    id: v as u32,
                    parent: (v >> 1) as u32,
                    address: v,
                }),
                WireRecord::Sample(EncodedSample {
                    tid: v as u32,
                    time_delta_ns: -(v as i64),
                    event: v as u16,
                    weight: v,
                    stack: v as u32,
                    data_address: (v % 2 == 0).then_some(v),
                }),
                WireRecord::Lost(Lost { event: 1, count: v }),
                WireRecord::Exec {
                    command: vec!["./a".into(), v.to_string()],
                },
                WireRecord::End(ProcessEnd {
                    exit_status: Some(-(v as i32)),
                    signal: None,
                    time_ns: v,
                }),
            ]);
        }
        for r in &records {
            let mut now = Vec::new();
            crate::container::encode_into(&mut now, r).unwrap();
            assert_eq!(now, old.serialize(r).unwrap(), "{r:?}");
            let (back, used): (WireRecord, usize) =
                bincode::decode_from_slice(&now, crate::container::codec()).unwrap();
            assert_eq!((&back, used), (r, now.len()));
        }
    }
}
