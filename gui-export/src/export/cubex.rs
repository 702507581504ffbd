//! Cube4 (`.cubex`, the profile format of Score-P, Scalasca and Extra-P): a
//! tar of `anchor.xml` (metrics, regions, call tree, system tree) and per
//! metric `N.index` + `N.data` (values per call path × location).
//!
//! What blame puts in the three dimensions:
//!
//! - metrics (all exclusive, `DOUBLE`): `samples` of the event, `time`
//!   (samples × sampling period, for events sampled in time), and per
//!   variable `blame_total` (total blame: data flow and control) and
//!   `blame_explicit` (data flow only), in samples;
//! - call tree: one root named after the program; under it the calling
//!   contexts (the code tree, which carries `samples` and `time`) and the
//!   data tree `[variables]` → `function::variable` → fields (which carries
//!   the blame metrics; a node's own value is its blame minus its fields',
//!   so that Cube's inclusive value of a variable is its blame). Regions
//!   carry their class (`MPI`, `WRP`, `COM`, `USR`) as Cube's paradigm
//!   (`mpi` or `user`) and in their description;
//! - system tree: machine → host → one location group per process (`MPI
//!   Rank N`) → one location (results keep samples per process, so a
//!   process's threads are one location).
//!
//! Blame of different variables overlaps (one sample can blame several), so
//! the inclusive blame of `[variables]` and of the root is a sum of
//! overlapping shares, not a count of samples.
//!
//! Byte layouts as Cube's reader (`pycubexr`, the one Extra-P uses) reads
//! them: an index is `CUBEX.INDEX`, the int 1 (endianness), a u16 version,
//! a u8 format, an int count, then the call-tree positions (depth-first
//! order) that have values; data is `CUBEX.DATA` then one row of doubles
//! per listed position, one per location in location id order.

use super::ExportError;
use crate::regions::{self, RegionClass};
use crate::views::{self, Filters};
use blame_formats::results::Results;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A call-tree node: region, children by name, values per location per metric.
#[derive(Default)]
struct CNode {
    children: BTreeMap<String, CNode>,
    /// Source file and first line of the region (code nodes).
    file: String,
    line: u32,
    kind: Kind,
    samples: Vec<f64>,
    total: Vec<f64>,
    explicit: Vec<f64>,
}

#[derive(Default, Clone, Copy, PartialEq)]
enum Kind {
    #[default]
    Code,
    Data,
}

impl CNode {
    fn child(&mut self, name: &str, locations: usize, kind: Kind) -> &mut CNode {
        self.children
            .entry(name.to_string())
            .or_insert_with(|| CNode {
                kind,
                samples: vec![0.0; locations],
                total: vec![0.0; locations],
                explicit: vec![0.0; locations],
                ..Default::default()
            })
    }
}

/// `s` as XML text or attribute value (quick-xml's escaping of `&<>'"`);
/// control characters XML 1.0 cannot hold become spaces.
fn esc(s: &str) -> String {
    let unfit = |c: char| (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r');
    let clean: std::borrow::Cow<'_, str> = if s.contains(unfit) {
        s.replace(unfit, " ").into()
    } else {
        s.into()
    };
    quick_xml::escape::escape(clean.as_ref()).into_owned()
}

#[test]
fn xml_text_is_escaped() {
    assert_eq!(
        esc("a<b> & 'c' \"d\"\u{1}"),
        "a&lt;b&gt; &amp; &apos;c&apos; &quot;d&quot; "
    );
}

/// The regions and call-tree XML, written depth first (ids in that order).
struct Program {
    regions: Vec<(String, String, u32, Kind)>,
    region_ids: BTreeMap<(String, String, bool), usize>,
    cnodes: String,
    /// Depth-first order of the call-tree nodes: their values per metric.
    rows: Vec<[Vec<f64>; 3]>,
}

impl Program {
    fn region(&mut self, name: &str, file: &str, line: u32, kind: Kind) -> usize {
        let key = (name.to_string(), file.to_string(), kind == Kind::Data);
        if let Some(&id) = self.region_ids.get(&key) {
            return id;
        }
        let id = self.regions.len();
        self.regions
            .push((name.to_string(), file.to_string(), line, kind));
        self.region_ids.insert(key, id);
        id
    }

    fn walk(&mut self, name: &str, node: &CNode, depth: usize) {
        let region = self.region(name, &node.file, node.line, node.kind);
        let id = self.rows.len();
        self.rows.push([
            node.samples.clone(),
            node.total.clone(),
            node.explicit.clone(),
        ]);
        let pad = " ".repeat(depth + 2);
        let _ = writeln!(
            self.cnodes,
            "{pad}<cnode id=\"{id}\" calleeId=\"{region}\">"
        );
        for (n, c) in &node.children {
            self.walk(n, c, depth + 1);
        }
        let _ = writeln!(self.cnodes, "{pad}</cnode>");
    }
}

/// One process of the system tree.
struct Loc {
    host: String,
    name: String,
    rank: u32,
}

/// The Cube4 file of one run and event.
pub fn cubex(
    results: &Results,
    event: Option<&str>,
    all_variables: bool,
) -> Result<Vec<u8>, ExportError> {
    if let Some(refusal) = results.per_rank_contexts_missing("a Cube4 export (call paths by rank)")
    {
        return Err(refusal.into());
    }
    let e = crate::views::event_index(results, event)?;
    let event_name = results
        .header
        .events
        .get(e)
        .ok_or(ExportError::NoEvents)?
        .name
        .clone();
    let Locations {
        locs,
        loc_of,
        program,
    } = locations(results)?;
    let n = locs.len();
    let mut root = CNode {
        samples: vec![0.0; n],
        total: vec![0.0; n],
        explicit: vec![0.0; n],
        ..Default::default()
    };
    add_code_tree(&mut root, results, e, &loc_of);
    add_data_tree(&mut root, results, e, &event_name, all_variables, &loc_of)?;

    let mut prog = Program {
        regions: Vec::new(),
        region_ids: BTreeMap::new(),
        cnodes: String::new(),
        rows: Vec::new(),
    };
    prog.walk(&program, &root, 0);
    let class_of = regions::classes(results);
    let spp = crate::across::scaling::seconds_per_sample(results, &event_name);

    let metrics = metrics(&event_name, spp.is_some());
    let x = anchor_xml(results, &event_name, &metrics, &prog, &class_of, &locs);
    let mut files: Vec<(String, Vec<u8>)> = vec![("anchor.xml".into(), x.into_bytes())];
    metric_files(&mut files, &metrics, &prog, spp);
    tar(&files).map_err(ExportError::Archive)
}

/// The system tree's locations, the location of each process index, and
/// the program's name.
struct Locations {
    locs: Vec<Loc>,
    loc_of: BTreeMap<u32, usize>,
    program: String,
}

/// The system tree's locations: the application's processes, by host,
/// then rank or pid; the location of each process index; and the
/// program's name (of the first location's command).
fn locations(results: &Results) -> Result<Locations, ExportError> {
    let procs = &results.header.processes;
    let any_app = procs.iter().any(|p| !p.launcher);
    // Locations: the application's processes, by host, then rank or pid.
    let mut chosen: Vec<usize> = (0..procs.len())
        .filter(|&i| !any_app || !procs[i].launcher)
        .collect();
    chosen.sort_by(|&a, &b| {
        let (pa, pb) = (&procs[a], &procs[b]);
        (&pa.host, pa.rank.is_none(), pa.rank, pa.pid).cmp(&(
            &pb.host,
            pb.rank.is_none(),
            pb.rank,
            pb.pid,
        ))
    });
    let mut loc_of: BTreeMap<u32, usize> = BTreeMap::new();
    let locs: Vec<Loc> = chosen
        .iter()
        .enumerate()
        .map(|(l, &i)| {
            loc_of.insert(i as u32, l);
            let p = &procs[i];
            Loc {
                host: p.host.to_string(),
                name: match p.rank {
                    Some(r) => format!("MPI Rank {r}"),
                    None => format!("Process {}", p.pid),
                },
                rank: p.rank.unwrap_or(l as u32),
            }
        })
        .collect();
    if locs.is_empty() {
        return Err(ExportError::NoProcesses);
    }
    let program = procs
        .get(chosen.first().copied().unwrap_or(0))
        .and_then(|p| p.command.first())
        .map(|c| c.rsplit('/').next().unwrap_or(c).to_string())
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "program".into());
    Ok(Locations {
        locs,
        loc_of,
        program,
    })
}

/// The code tree under `root`: each stack's samples of event `e` on its
/// calling context, per location.
fn add_code_tree(root: &mut CNode, results: &Results, e: usize, loc_of: &BTreeMap<u32, usize>) {
    let n = root.samples.len();
    // The code tree.
    for s in results.stacks.iter() {
        let w = s.samples.get(e).copied().unwrap_or(0.0);
        let Some(&l) = loc_of.get(&s.process) else {
            continue;
        };
        if w <= 0.0 || s.frames.is_empty() {
            continue;
        }
        let mut node = &mut *root;
        // Frames are innermost first; a frame's line is its call site, so
        // the region's file is the frame's.
        for f in results.frames_of(s).rev() {
            let name = regions::demangle(&f.function);
            node = node.child(&name, n, Kind::Code);
            node.file.clone_from(&f.file);
        }
        node.samples[l] += w;
    }
}

/// The data tree `[variables]` under `root`, from the by-variable view's
/// variables: each variable's blame per location on its node, then each
/// node's own value (its blame minus its fields').
fn add_data_tree(
    root: &mut CNode,
    results: &Results,
    e: usize,
    event_name: &str,
    all_variables: bool,
    loc_of: &BTreeMap<u32, usize>,
) -> Result<(), ExportError> {
    let n = root.samples.len();
    // The data tree, from the by-variable view's variables.
    let view = views::by_variable(
        results,
        &Filters {
            event: Some(event_name.to_string()),
            all_variables,
            ..Default::default()
        },
    )?;
    let shown: std::collections::HashSet<(&str, &str, &str, u32)> = view
        .variables
        .iter()
        .map(|r| {
            (
                r.function.as_str(),
                r.name.as_str(),
                r.file.as_str(),
                r.line,
            )
        })
        .collect();
    let vars = root.child("[variables]", n, Kind::Data);
    for v in results.variables.iter().filter(|v| {
        v.key.event as usize == e
            && shown.contains(&(
                v.key.function.as_str(),
                v.key.name.as_str(),
                v.key.file.as_str(),
                v.key.line,
            ))
    }) {
        let mut parts: Vec<String> = v.key.name.split('.').map(str::to_string).collect();
        if !v.key.function.is_empty() {
            parts[0] = format!("{}::{}", v.key.function, parts[0]);
        }
        let mut node = &mut *vars;
        for p in &parts {
            node = node.child(p, n, Kind::Data);
        }
        node.file.clone_from(&v.key.file);
        node.line = v.key.line;
        for pv in &v.values {
            if let Some(&l) = loc_of.get(&pv.process) {
                node.total[l] += pv.inclusive;
                node.explicit[l] += pv.explicit;
            }
        }
    }
    // Own values: blame minus the fields' blame as recorded (floored at
    // zero), top down, so that Cube's inclusive value is the blame.
    fn own(node: &mut CNode) {
        for l in 0..node.total.len() {
            let (t, x) = node
                .children
                .values()
                .fold((0.0, 0.0), |a, c| (a.0 + c.total[l], a.1 + c.explicit[l]));
            node.total[l] = (node.total[l] - t).max(0.0);
            node.explicit[l] = (node.explicit[l] - x).max(0.0);
        }
        node.children.values_mut().for_each(own);
    }
    vars.children.values_mut().for_each(own);
    Ok(())
}

/// A metric: unique name, display name, unit, description.
type Metric<'a> = (&'a str, &'a str, &'a str, String);

/// The metrics, in id order: samples, the two blames, and time when the
/// event is sampled in time.
fn metrics(event_name: &str, timed: bool) -> Vec<Metric<'static>> {
    let mut m = vec![
        (
            "samples",
            "Samples",
            "occ",
            format!("Samples of {event_name} on the call path (code tree)"),
        ),
        (
            "blame_total",
            "Total blame",
            "occ",
            format!(
                "Samples of {event_name} whose data flow or control reaches the variable (data tree)"
            ),
        ),
        (
            "blame_explicit",
            "Explicit blame",
            "occ",
            format!("Samples of {event_name} whose data flow reaches the variable (data tree)"),
        ),
    ];
    if timed {
        m.push((
            "time",
            "Time",
            "sec",
            format!("Samples of {event_name} times the sampling period"),
        ));
    }
    m
}

/// `anchor.xml`: the attributes, metrics, regions, call tree and system tree.
fn anchor_xml(
    results: &Results,
    event_name: &str,
    metrics: &[Metric],
    prog: &Program,
    class_of: &std::collections::HashMap<String, RegionClass>,
    locs: &[Loc],
) -> String {
    // anchor.xml
    let mut x = String::new();
    x.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.0\">\n");
    x.push_str("  <attr key=\"CUBE_CT_AGGR\" value=\"SUM\"/>\n");
    let _ = writeln!(
        x,
        "  <attr key=\"blame::producer\" value=\"{}\"/>\n  <attr key=\"blame::event\" value=\"{}\"/>",
        esc(&results.header.producer),
        esc(event_name)
    );
    x.push_str("  <doc>\n    <mirrors>\n    </mirrors>\n  </doc>\n  <metrics>\n");
    for (id, (uniq, disp, uom, descr)) in metrics.iter().enumerate() {
        let _ = writeln!(
            x,
            "    <metric id=\"{id}\" type=\"EXCLUSIVE\">\n      <disp_name>{}</disp_name>\n      <uniq_name>{}</uniq_name>\n      <dtype>DOUBLE</dtype>\n      <uom>{}</uom>\n      <url></url>\n      <descr>{}</descr>\n    </metric>",
            esc(disp),
            esc(uniq),
            esc(uom),
            esc(descr)
        );
    }
    x.push_str("  </metrics>\n  <program>\n");
    regions_xml(&mut x, prog, class_of);
    x.push_str(&prog.cnodes);
    x.push_str("  </program>\n  <system>\n");
    system_xml(&mut x, locs);
    x.push_str("</cube>\n");
    x
}

/// The program's regions, each with its paradigm and class.
fn regions_xml(
    x: &mut String,
    prog: &Program,
    class_of: &std::collections::HashMap<String, RegionClass>,
) {
    for (id, (name, file, line, kind)) in prog.regions.iter().enumerate() {
        let (paradigm, descr) = match kind {
            Kind::Data => ("user", "variable (blame data tree)".to_string()),
            Kind::Code => {
                let class = class_of.get(name).copied().unwrap_or(RegionClass::Usr);
                (class.paradigm(), format!("region class {class}"))
            }
        };
        let line = if *line == 0 { -1 } else { *line as i64 };
        let _ = writeln!(
            x,
            "    <region id=\"{id}\" mod=\"{}\" begin=\"{line}\" end=\"{line}\">\n      <name>{}</name>\n      <mangled_name>{}</mangled_name>\n      <paradigm>{paradigm}</paradigm>\n      <role>function</role>\n      <url></url>\n      <descr>{}</descr>\n    </region>",
            esc(file),
            esc(name),
            esc(name),
            esc(&descr)
        );
    }
}

/// The system tree: machine → host → a location group per process, each
/// with one location.
fn system_xml(x: &mut String, locs: &[Loc]) {
    x.push_str(
        "    <systemtreenode Id=\"0\">\n      <name>machine</name>\n      <class>machine</class>\n",
    );
    let mut node_id = 1;
    let mut i = 0;
    while i < locs.len() {
        let host = &locs[i].host;
        let _ = writeln!(
            x,
            "      <systemtreenode Id=\"{node_id}\">\n        <name>{}</name>\n        <class>node</class>",
            esc(if host.is_empty() { "localhost" } else { host })
        );
        node_id += 1;
        while i < locs.len() && &locs[i].host == host {
            let l = &locs[i];
            let _ = writeln!(
                x,
                "        <locationgroup Id=\"{i}\">\n          <name>{}</name>\n          <rank>{}</rank>\n          <type>process</type>\n          <location Id=\"{i}\">\n            <name>Master thread</name>\n            <rank>0</rank>\n            <type>thread</type>\n          </location>\n        </locationgroup>",
                esc(&l.name),
                l.rank
            );
            i += 1;
        }
        x.push_str("      </systemtreenode>\n");
    }
    x.push_str("    </systemtreenode>\n  </system>\n");
}

/// Each metric's `N.index` and `N.data`, appended to `files`.
fn metric_files(
    files: &mut Vec<(String, Vec<u8>)>,
    metrics: &[Metric],
    prog: &Program,
    spp: Option<f64>,
) {
    for (id, (uniq, ..)) in metrics.iter().enumerate() {
        let pick = |r: &[Vec<f64>; 3]| -> Vec<f64> {
            match *uniq {
                "samples" => r[0].clone(),
                "time" => r[0].iter().map(|v| v * spp.unwrap_or(0.0)).collect(),
                "blame_total" => r[1].clone(),
                _ => r[2].clone(),
            }
        };
        // Sparse: the positions with a value, the root always (a reader
        // needs at least one row).
        let rows: Vec<(usize, Vec<f64>)> = prog
            .rows
            .iter()
            .enumerate()
            .map(|(i, r)| (i, pick(r)))
            .filter(|(i, v)| *i == 0 || v.iter().any(|&x| x != 0.0))
            .collect();
        let mut index = b"CUBEX.INDEX".to_vec();
        index.extend(1i32.to_le_bytes());
        index.extend(0u16.to_le_bytes());
        index.push(1);
        index.extend((rows.len() as i32).to_le_bytes());
        let mut data = b"CUBEX.DATA".to_vec();
        for (i, v) in &rows {
            index.extend((*i as i32).to_le_bytes());
            for x in v {
                data.extend(x.to_le_bytes());
            }
        }
        files.push((format!("{id}.index"), index));
        files.push((format!("{id}.data"), data));
    }
}

/// A POSIX ustar archive of regular files (mode 0644, owner and time 0),
/// as Cube's readers take a `.cubex`.
fn tar(files: &[(String, Vec<u8>)]) -> std::io::Result<Vec<u8>> {
    let mut archive = tar::Builder::new(Vec::new());
    for (name, data) in files {
        let mut h = tar::Header::new_ustar();
        h.set_path(name)?;
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_uid(0);
        h.set_gid(0);
        h.set_mtime(0);
        h.set_entry_type(tar::EntryType::Regular);
        h.set_cksum();
        archive.append(&h, data.as_slice())?;
    }
    archive.into_inner()
}
