//! Cube4 and Thicket ensemble exports of the hand-built Figure 3.14 result
//! (three samples in `bar` under `main → foo` on each of two ranks): the
//! archive layout and values without a Python consumer (tests/interop.rs
//! reads real recordings back with pycubexr, Extra-P and Thicket).

use crate::export::cubex::cubex;
use crate::export::thicket::{thicket_runs, ThicketRun};
use crate::tests::fixture;

/// The members of a ustar archive, read by the tar crate (which checks
/// each header's checksum), and that the archive ends in two zero blocks.
fn untar(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    use std::io::Read;
    let mut out = Vec::new();
    let mut archive = tar::Archive::new(bytes);
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        assert_eq!(&entry.header().as_bytes()[257..263], b"ustar\0");
        let name = entry.path().unwrap().display().to_string();
        let mut data = Vec::new();
        entry.read_to_end(&mut data).unwrap();
        out.push((name, data));
    }
    assert!(
        bytes.len() >= 1024 && bytes[bytes.len() - 1024..].iter().all(|&b| b == 0),
        "two zero blocks end the archive"
    );
    out
}

#[test]
fn cubex_is_a_tar_of_anchor_index_and_data() {
    let files = untar(&cubex(&fixture(), None, false).unwrap());
    let names: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "anchor.xml",
            "0.index",
            "0.data",
            "1.index",
            "1.data",
            "2.index",
            "2.data",
            "3.index",
            "3.data"
        ]
    );
    let anchor = String::from_utf8(files[0].1.clone()).unwrap();
    assert!(
        anchor.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.0\">")
    );
    for want in [
        "<uniq_name>samples</uniq_name>",
        "<uniq_name>blame_total</uniq_name>",
        "<uniq_name>time</uniq_name>",
        "<name>MPI Rank 1</name>",
        "<name>foo::se</name>",
        "<name>[variables]</name>",
    ] {
        assert!(anchor.contains(want), "{want} in {anchor}");
    }
    // Samples: an index of the positions with values, rows of one double per rank.
    let (index, data) = (&files[1].1, &files[2].1);
    assert_eq!(&index[..11], b"CUBEX.INDEX");
    assert_eq!(i32::from_le_bytes(index[11..15].try_into().unwrap()), 1);
    let count = i32::from_le_bytes(index[18..22].try_into().unwrap()) as usize;
    assert_eq!(index.len(), 22 + 4 * count);
    assert_eq!(&data[..10], b"CUBEX.DATA");
    let values: Vec<f64> = data[10..]
        .chunks(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(values.len(), count * 2);
    // The root (always listed, no samples of its own) and bar, 3 samples per rank.
    assert_eq!(count, 2);
    assert_eq!(values, [0.0, 0.0, 3.0, 3.0]);
    // Time at 1000 Hz.
    let time: Vec<f64> = files[8].1[10..]
        .chunks(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(time, [0.0, 0.0, 0.003, 0.003]);
}

#[test]
fn an_ensemble_is_one_thicket_with_a_profile_per_run() {
    let a = fixture();
    let mut b = fixture();
    // The second run has no loopC and one more sample of bar on rank 0.
    b.variables.retain(|v| v.key.name != "loopC");
    b.stacks[0].samples[0] = 2.0;
    let runs = [
        ThicketRun {
            results: &a,
            label: "a".into(),
            metadata: vec![("n".into(), 1.into())],
        },
        ThicketRun {
            results: &b,
            label: "b".into(),
            metadata: vec![("n".into(), 2.into())],
        },
    ];
    let doc: serde_json::Value =
        serde_json::from_slice(&thicket_runs(&runs, None, false).unwrap()).unwrap();
    let profiles = doc["profile"].as_array().unwrap();
    assert_eq!(profiles.len(), 2);
    assert_eq!(doc["metadata"][0]["n"], 1);
    assert_eq!(doc["metadata"][1]["n"], 2);
    assert_eq!(doc["metadata"][1]["run"], "b");
    let nodes = doc["graph"][0].as_object().unwrap().len();
    let records = doc["dataframe"].as_array().unwrap();
    assert_eq!(records.len(), 2 * nodes, "every node in every profile");
    let value = |name: &str, p: usize, col: &str| {
        records
            .iter()
            .find(|r| r["name"] == name && r["profile"] == profiles[p])
            .unwrap()[col]
            .clone()
    };
    assert_eq!(value("bar", 0, "cpu-clock (inc)"), 6.0);
    assert_eq!(value("bar", 1, "cpu-clock (inc)"), 7.0);
    assert_eq!(value("bar", 0, "class"), "USR");
    assert_eq!(value("bar::loopC", 0, "cpu-clock (inc)"), 1.0);
    // Absent from the second run: 0.
    assert_eq!(value("bar::loopC", 1, "cpu-clock (inc)"), 0.0);
    assert_eq!(value("bar::loopC", 1, "explicit (inc)"), 0.0);
}
