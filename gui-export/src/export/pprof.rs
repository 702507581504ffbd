//! pprof's profile.proto (gzip-compressed), through prost. Messages mirror
//! github.com/google/pprof/proto/profile.proto field by field. The variable
//! path (data tree) and the rank are sample labels.

use crate::trees::{TreeKind, WeightedStack};
use blame_formats::results::Results;
use prost::Message;
use std::collections::HashMap;
use std::io::Write;

#[derive(Clone, PartialEq, Message)]
pub struct Profile {
    #[prost(message, repeated, tag = "1")]
    pub sample_type: Vec<ValueType>,
    #[prost(message, repeated, tag = "2")]
    pub sample: Vec<Sample>,
    #[prost(message, repeated, tag = "3")]
    pub mapping: Vec<Mapping>,
    #[prost(message, repeated, tag = "4")]
    pub location: Vec<Location>,
    #[prost(message, repeated, tag = "5")]
    pub function: Vec<Function>,
    #[prost(string, repeated, tag = "6")]
    pub string_table: Vec<String>,
    #[prost(int64, tag = "7")]
    pub drop_frames: i64,
    #[prost(int64, tag = "8")]
    pub keep_frames: i64,
    #[prost(int64, tag = "9")]
    pub time_nanos: i64,
    #[prost(int64, tag = "10")]
    pub duration_nanos: i64,
    #[prost(message, optional, tag = "11")]
    pub period_type: Option<ValueType>,
    #[prost(int64, tag = "12")]
    pub period: i64,
    #[prost(int64, repeated, tag = "13")]
    pub comment: Vec<i64>,
    #[prost(int64, tag = "14")]
    pub default_sample_type: i64,
}

#[derive(Clone, PartialEq, Message)]
pub struct ValueType {
    #[prost(int64, tag = "1")]
    pub r#type: i64,
    #[prost(int64, tag = "2")]
    pub unit: i64,
}

#[derive(Clone, PartialEq, Message)]
pub struct Sample {
    #[prost(uint64, repeated, tag = "1")]
    pub location_id: Vec<u64>,
    #[prost(int64, repeated, tag = "2")]
    pub value: Vec<i64>,
    #[prost(message, repeated, tag = "3")]
    pub label: Vec<Label>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Label {
    #[prost(int64, tag = "1")]
    pub key: i64,
    #[prost(int64, tag = "2")]
    pub str: i64,
    #[prost(int64, tag = "3")]
    pub num: i64,
    #[prost(int64, tag = "4")]
    pub num_unit: i64,
}

#[derive(Clone, PartialEq, Message)]
pub struct Mapping {
    #[prost(uint64, tag = "1")]
    pub id: u64,
    #[prost(uint64, tag = "2")]
    pub memory_start: u64,
    #[prost(uint64, tag = "3")]
    pub memory_limit: u64,
    #[prost(uint64, tag = "4")]
    pub file_offset: u64,
    #[prost(int64, tag = "5")]
    pub filename: i64,
    #[prost(int64, tag = "6")]
    pub build_id: i64,
    #[prost(bool, tag = "7")]
    pub has_functions: bool,
    #[prost(bool, tag = "8")]
    pub has_filenames: bool,
    #[prost(bool, tag = "9")]
    pub has_line_numbers: bool,
    #[prost(bool, tag = "10")]
    pub has_inline_frames: bool,
}

#[derive(Clone, PartialEq, Message)]
pub struct Location {
    #[prost(uint64, tag = "1")]
    pub id: u64,
    #[prost(uint64, tag = "2")]
    pub mapping_id: u64,
    #[prost(uint64, tag = "3")]
    pub address: u64,
    #[prost(message, repeated, tag = "4")]
    pub line: Vec<Line>,
    #[prost(bool, tag = "5")]
    pub is_folded: bool,
}

#[derive(Clone, PartialEq, Message)]
pub struct Line {
    #[prost(uint64, tag = "1")]
    pub function_id: u64,
    #[prost(int64, tag = "2")]
    pub line: i64,
    #[prost(int64, tag = "3")]
    pub column: i64,
}

#[derive(Clone, PartialEq, Message)]
pub struct Function {
    #[prost(uint64, tag = "1")]
    pub id: u64,
    #[prost(int64, tag = "2")]
    pub name: i64,
    #[prost(int64, tag = "3")]
    pub system_name: i64,
    #[prost(int64, tag = "4")]
    pub filename: i64,
    #[prost(int64, tag = "5")]
    pub start_line: i64,
}

#[derive(Default)]
pub(crate) struct Strings {
    pub(crate) table: Vec<String>,
    ids: HashMap<String, i64>,
}

impl Strings {
    pub(crate) fn new() -> Self {
        let mut s = Strings::default();
        s.id(""); // string 0 is always empty
        s
    }

    pub(crate) fn id(&mut self, text: &str) -> i64 {
        if let Some(&i) = self.ids.get(text) {
            return i;
        }
        self.table.push(text.to_string());
        let i = self.table.len() as i64 - 1;
        self.ids.insert(text.to_string(), i);
        i
    }

    /// A sample's label naming MPI rank `rank` under the key `rank_key`. A
    /// string label: pprof drops numeric labels whose value is 0.
    pub(crate) fn rank_label(&mut self, rank_key: i64, rank: u32) -> Label {
        Label {
            key: rank_key,
            str: self.id(&rank.to_string()),
            ..Default::default()
        }
    }
}

/// The functions and locations of a profile, each (function, file, line)
/// once: one location per source line, one function per (name, file).
#[derive(Default)]
pub(crate) struct Locations {
    pub(crate) functions: Vec<Function>,
    pub(crate) locations: Vec<Location>,
    function_ids: HashMap<(String, String), u64>,
    location_ids: HashMap<(String, String, u32), u64>,
}

impl Locations {
    /// The id of the location of `name` at `file:line`, made when new.
    pub(crate) fn id(&mut self, strings: &mut Strings, name: &str, file: &str, line: u32) -> u64 {
        let key = (name.to_string(), file.to_string(), line);
        if let Some(&id) = self.location_ids.get(&key) {
            return id;
        }
        let fkey = (name.to_string(), file.to_string());
        let functions = &mut self.functions;
        let function_id = *self.function_ids.entry(fkey).or_insert_with(|| {
            let id = functions.len() as u64 + 1;
            functions.push(Function {
                id,
                name: strings.id(name),
                system_name: strings.id(name),
                filename: strings.id(file),
                start_line: 0,
            });
            id
        });
        let id = self.locations.len() as u64 + 1;
        self.locations.push(Location {
            id,
            mapping_id: 0,
            address: 0,
            line: vec![Line {
                function_id,
                line: line as i64,
                column: 0,
            }],
            is_folded: false,
        });
        self.location_ids.insert(key, id);
        id
    }
}

/// The profile, before gzip (exposed for tests).
pub fn profile(
    results: &Results,
    stacks: &[WeightedStack],
    event: &str,
    tree: TreeKind,
) -> Profile {
    let mut strings = Strings::new();
    let fractional = stacks.iter().any(|s| s.weight.fract() != 0.0);
    let (unit, scale) = if fractional {
        ("millisamples", 1000.0)
    } else {
        ("count", 1.0)
    };
    let sample_type = vec![ValueType {
        r#type: strings.id(&format!("{event} samples")),
        unit: strings.id(unit),
    }];
    let mut table = Locations::default();
    let variable_key = strings.id("variable");
    let rank_key = strings.id("rank");
    let mut samples = Vec::new();
    for s in stacks {
        let mut ids = Vec::with_capacity(s.frames.len());
        // pprof lists locations leaf first.
        for f in s.frames.iter().rev() {
            let id = table.id(&mut strings, &f.name, &f.file, f.line);
            ids.push(id);
        }
        let mut label = Vec::new();
        if let Some(v) = &s.variable {
            label.push(Label {
                key: variable_key,
                str: strings.id(v),
                ..Default::default()
            });
        }
        if let Some(r) = results
            .header
            .processes
            .get(s.process as usize)
            .and_then(|p| p.rank)
        {
            label.push(strings.rank_label(rank_key, r));
        }
        samples.push(Sample {
            location_id: ids,
            value: vec![(s.weight * scale).round() as i64],
            label,
        });
    }
    let comment = vec![strings.id(match tree {
        TreeKind::Code => "blame: code-centric tree",
        TreeKind::Data => "blame: data-centric tree (frames are variable paths)",
    })];
    Profile {
        period_type: sample_type.first().cloned(),
        period: 1,
        sample_type,
        sample: samples,
        location: table.locations,
        function: table.functions,
        string_table: strings.table,
        comment,
        ..Default::default()
    }
}

pub fn pprof(results: &Results, stacks: &[WeightedStack], event: &str, tree: TreeKind) -> Vec<u8> {
    gzipped(&profile(results, stacks, event, tree))
}

/// A profile encoded and gzip-compressed, as pprof files are.
pub(crate) fn gzipped(p: &Profile) -> Vec<u8> {
    let bytes = p.encode_to_vec();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&bytes).expect("in-memory gzip");
    gz.finish().expect("in-memory gzip")
}
