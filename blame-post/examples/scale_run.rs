//! Writes a synthetic run directory of many ranks for `bench/scale.sh`:
//! one `rank-N.bstream` per rank (as `blame record --per-process-files`
//! leaves them) or, with `--ranks-per-node K`, one node file per K ranks
//! (`node-nodeNNNN.bnode`, as one recorder per node leaves them), and a
//! `manifest.json`, whose frames are real code addresses of a real binary
//! compiled with debug info (`bench/scale/treecode.c`).
//!
//! Stacks follow the binary's real call graph: its `call` instructions are
//! found by disassembly (iced-x86), each frame above the leaf is the return
//! address of a call site, and the leaf an instruction of the innermost
//! function. A walk from `main` takes recursive call sites (the tree walk)
//! until a depth drawn from 20..=60, so stacks are 20-60 frames deep where
//! the call graph allows it. A pool of distinct stacks is drawn once; each
//! rank uses `--contexts` of them (two thirds shared by all ranks, one third
//! from a window that moves with the rank) with Zipf-like weights in a
//! rank-specific order, and a rank-specific sample count between
//! `--min-samples` and `--max-samples` (some ranks hot, most near the mean),
//! so ranks differ as ranks of an imbalanced run do.
//!
//! Run: `cargo run --release -p blame-post --example scale_run -- OUT_DIR
//! --binary treecode --ranks 1024 [--min-samples 20000] [--max-samples 100000]
//! [--contexts 3000] [--seed 1] [--ranks-per-node 64]`

use blame_formats::manifest::{EventEntry, Manifest, NodeFileEntry, ProcessEntry};
use blame_formats::node_file::{NodeHeader, NodeWriter, SharedNode};
use blame_formats::stream::{EventDesc, Mapping, Sampling, StreamHeader, StreamWriter};
use iced_x86::{Decoder, DecoderOptions, Mnemonic, OpKind};
use object::{Object, ObjectSection, ObjectSegment, ObjectSymbol, SymbolKind};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::PathBuf;

/// Where the binary's executable segment is placed in the synthetic processes.
const LOAD_BASE: u64 = 0x5555_5555_4000;

struct Function {
    name: String,
    /// Addresses (link-time) of every instruction: candidate leaf addresses.
    instructions: Vec<u64>,
    /// Call sites: (callee function index, return address).
    calls: Vec<(usize, u64)>,
}

struct Binary {
    functions: Vec<Function>,
    main: usize,
    mapping: (u64, u64, u64),
    build_id: Vec<u8>,
}

fn load_binary(path: &str) -> Binary {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let obj = object::File::parse(&*data).expect("an ELF file");
    let text = obj.section_by_name(".text").expect(".text");
    let (text_addr, text_bytes) = (text.address(), text.data().expect("text data"));
    let mut syms: Vec<(u64, u64, String)> = obj
        .symbols()
        .filter(|s| s.kind() == SymbolKind::Text && s.size() > 0)
        .filter(|s| s.address() >= text_addr && s.address() < text_addr + text_bytes.len() as u64)
        .map(|s| (s.address(), s.size(), s.name().unwrap_or("?").to_string()))
        .collect();
    syms.sort();
    syms.dedup_by_key(|s| s.0);
    let index_of = |a: u64| {
        syms.iter()
            .position(|&(start, size, _)| a >= start && a < start + size)
    };
    let mut functions: Vec<Function> = syms
        .iter()
        .map(|(start, size, name)| {
            let off = (start - text_addr) as usize;
            let bytes = &text_bytes[off..off + *size as usize];
            let mut d = Decoder::with_ip(64, bytes, *start, DecoderOptions::NONE);
            let mut f = Function {
                name: name.clone(),
                instructions: Vec::new(),
                calls: Vec::new(),
            };
            let mut calls = Vec::new();
            while d.can_decode() {
                let ins = d.decode();
                f.instructions.push(ins.ip());
                if ins.mnemonic() == Mnemonic::Call
                    && ins.op_count() > 0
                    && ins.op0_kind() == OpKind::NearBranch64
                {
                    calls.push((ins.near_branch_target(), ins.next_ip()));
                }
            }
            f.calls = calls
                .into_iter()
                .filter_map(|(target, ret)| index_of(target).map(|i| (i, ret)))
                .collect();
            f
        })
        .collect();
    // Runtime glue (_start, frame_dummy...) is not the application.
    for f in &mut functions {
        if f.name.starts_with('_') || f.name.contains("tm_clones") || f.name == "frame_dummy" {
            f.calls.clear();
        }
    }
    let main = functions
        .iter()
        .position(|f| f.name == "main")
        .expect("a main function");
    let seg = obj
        .segments()
        .find(|s| {
            let (a, n) = (s.address(), s.size());
            text_addr >= a && text_addr < a + n
        })
        .expect("the segment holding .text");
    let (file_off, _) = seg.file_range();
    let page = |x: u64| x & !0xfff;
    let mapping = (
        LOAD_BASE + page(seg.address()),
        LOAD_BASE + (seg.address() + seg.size()).div_ceil(0x1000) * 0x1000,
        page(file_off),
    );
    let build_id = obj.build_id().ok().flatten().unwrap_or_default().to_vec();
    Binary {
        functions,
        main,
        mapping,
        build_id,
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// One stack, leaf first, by a walk of the call graph from `main`.
fn draw_stack(bin: &Binary, rng: &mut Rng) -> Vec<u64> {
    let target = 20 + rng.below(41);
    let mut returns = Vec::new();
    let mut f = bin.main;
    loop {
        let func = &bin.functions[f];
        let recursive: Vec<&(usize, u64)> = func.calls.iter().filter(|c| c.0 == f).collect();
        let others: Vec<&(usize, u64)> = func.calls.iter().filter(|c| c.0 != f).collect();
        let depth = returns.len() + 1;
        let pick = if !recursive.is_empty() && depth < target {
            Some(recursive[rng.below(recursive.len())])
        } else if !others.is_empty() && (depth < target || rng.below(3) > 0) {
            Some(others[rng.below(others.len())])
        } else {
            None
        };
        match pick {
            Some(&(callee, ret)) if depth < 64 => {
                returns.push(ret);
                f = callee;
            }
            _ => break,
        }
    }
    let leaf = {
        let ins = &bin.functions[f].instructions;
        ins[rng.below(ins.len())]
    };
    std::iter::once(leaf)
        .chain(returns.into_iter().rev())
        .map(|a| a + LOAD_BASE)
        .collect()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let out = PathBuf::from(
        args.next()
            .expect("usage: scale_run OUT_DIR --binary PATH ..."),
    );
    let mut opt: HashMap<String, String> = HashMap::new();
    while let Some(k) = args.next() {
        let v = args.next().unwrap_or_else(|| panic!("{k} needs a value"));
        opt.insert(k.trim_start_matches('-').to_string(), v);
    }
    let num = |k: &str, d: u64| opt.get(k).map_or(d, |v| v.parse().expect("a number"));
    let binary = opt.get("binary").expect("--binary PATH").clone();
    let ranks = num("ranks", 16) as u32;
    let (min_s, max_s) = (num("min-samples", 20_000), num("max-samples", 100_000));
    let contexts = num("contexts", 3000) as usize;
    let seed = num("seed", 1);
    let per_node = num("ranks-per-node", 0) as u32;
    let binary = std::fs::canonicalize(&binary)
        .expect("binary")
        .to_string_lossy()
        .into_owned();
    let bin = load_binary(&binary);
    let mut rng = Rng(0x2545F4914F6CDD1D ^ seed.wrapping_mul(0x9E3779B97F4A7C15));
    // The pool: shared contexts first, then the ones ranks pick by window.
    let shared = contexts * 2 / 3;
    let pool_len = shared + contexts * 4;
    let mut seen = std::collections::HashSet::new();
    let mut pool: Vec<Vec<u64>> = Vec::with_capacity(pool_len);
    let mut tries = 0;
    while pool.len() < pool_len && tries < pool_len * 50 {
        tries += 1;
        let s = draw_stack(&bin, &mut rng);
        if seen.insert(s.clone()) {
            pool.push(s);
        }
    }
    let depths: Vec<usize> = pool.iter().map(Vec::len).collect();
    eprintln!(
        "binary {binary}: {} functions, {} call sites; pool of {} distinct stacks, depth {}..{} (mean {:.1})",
        bin.functions.len(),
        bin.functions.iter().map(|f| f.calls.len()).sum::<usize>(),
        pool.len(),
        depths.iter().min().unwrap(),
        depths.iter().max().unwrap(),
        depths.iter().sum::<usize>() as f64 / depths.len() as f64
    );
    std::fs::create_dir_all(&out).expect("create the run dir");
    let (start, end, file_offset) = bin.mapping;
    let event = EventDesc {
        name: "cpu-clock".into(),
        sampling: Sampling::Frequency(1000),
        unit: "ns".into(),
        memory: false,
    };
    let started = std::time::Instant::now();
    let node_name = |n: u32| format!("node-node{n:04}.bnode");
    let nodes: Vec<SharedNode> = match per_node {
        0 => Vec::new(),
        k => (0..ranks.div_ceil(k))
            .map(|n| {
                let header = NodeHeader {
                    host: format!("node{n:04}"),
                    recorder_pid: 1,
                    start_time_ns: 0,
                    extra: vec![],
                };
                NodeWriter::create(out.join(node_name(n)), &header).expect("create node file")
            })
            .collect(),
    };
    // (samples, bytes, section) per rank.
    let written: Vec<(u64, u64, Option<u32>)> = (0..ranks)
        .into_par_iter()
        .map(|rank| {
            let mut rng = Rng((rank as u64 + 1).wrapping_mul(0x9E3779B97F4A7C15) ^ seed);
            // Sample count: most ranks near the middle, one in 16 hot, a few light.
            let h = (rank as u64).wrapping_mul(2654435761) % 1000;
            let frac = match h {
                0..=62 => 1.0,
                63..=124 => 0.0,
                _ => 0.55 + 0.3 * (h as f64 / 1000.0),
            };
            let samples = min_s + ((max_s - min_s) as f64 * frac) as u64;
            // This rank's contexts: the shared ones and a window of the rest.
            let window = (rank as usize * 37) % (pool.len() - shared).max(1);
            let mut mine: Vec<usize> = (0..shared.min(pool.len()))
                .chain(
                    (0..contexts - shared).map(|i| shared + (window + i) % (pool.len() - shared)),
                )
                .collect();
            // Rank-specific order, Zipf-like weights (s = 0.9).
            for i in (1..mine.len()).rev() {
                mine.swap(i, rng.below(i + 1));
            }
            let mut cumulative = Vec::with_capacity(mine.len());
            let mut total = 0.0;
            for i in 0..mine.len() {
                total += 1.0 / ((i + 1) as f64).powf(0.9);
                cumulative.push(total);
            }
            let pid = 100_000 + rank;
            let header = StreamHeader {
                host: format!("node{:04}", rank / 64),
                command: vec!["./treecode".into()],
                pid,
                ppid: 1,
                rank: Some(rank),
                world_size: Some(ranks),
                events: vec![event.clone()],
                call_graph: "dwarf".into(),
                start_time_ns: 0,
                extra: vec![],
            };
            let path = out.join(format!("rank-{rank}.bstream"));
            let mut w = match per_node {
                0 => StreamWriter::create(&path, &header).expect("create stream"),
                k => NodeWriter::open_section(&nodes[(rank / k) as usize], &header)
                    .expect("open section"),
            };
            w.write_mapping(Mapping {
                pid,
                start,
                end,
                file_offset,
                path: binary.clone(),
                build_id: bin.build_id.clone(),
            })
            .expect("write");
            for i in 0..samples {
                let x = rng.unit() * total;
                let k = cumulative.partition_point(|&c| c < x).min(mine.len() - 1);
                w.write_sample_with_stack(
                    pid,
                    i * 1_000_000 + rng.next() % 50_000,
                    0,
                    1_000_000,
                    &pool[mine[k]],
                    None,
                )
                .expect("write");
            }
            let section = w.section();
            w.close().expect("close");
            // A node file's bytes are counted once it is finished.
            let bytes = match section {
                None => std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0),
                Some(_) => 0,
            };
            (samples, bytes, section)
        })
        .collect();
    let node_files: Vec<NodeFileEntry> = nodes
        .iter()
        .enumerate()
        .map(|(n, node)| {
            NodeWriter::finish(node).expect("finish node file");
            NodeFileEntry {
                file: node_name(n as u32),
                bytes: NodeWriter::bytes_written(node),
                sections: NodeWriter::sections(node),
            }
        })
        .collect();
    let samples: u64 = written.iter().map(|w| w.0).sum();
    let bytes: u64 =
        written.iter().map(|w| w.1).sum::<u64>() + node_files.iter().map(|f| f.bytes).sum::<u64>();
    let manifest = Manifest {
        command: vec!["mpirun".into(), "./treecode".into()],
        host: "node0000".into(),
        sampler: "synthetic (blame-post/examples/scale_run.rs)".into(),
        call_graph: "dwarf".into(),
        events: vec![EventEntry {
            name: event.name.clone(),
            mode: "frequency".into(),
            rate: 1000,
            unit: "ns".into(),
            memory: false,
        }],
        start_unix_ns: 0,
        end_unix_ns: 0,
        exit_status: Some(0),
        signal: None,
        interrupted: None,
        samples,
        lost: 0,
        processes: (0..ranks)
            .map(|rank| ProcessEntry {
                file: match per_node {
                    0 => format!("rank-{rank}.bstream"),
                    k => node_name(rank / k),
                },
                section: written[rank as usize].2,
                pid: 100_000 + rank,
                ppid: 1,
                rank: Some(rank),
                command: vec!["./treecode".into()],
                launcher: false,
                samples: written[rank as usize].0,
                lost: 0,
                exit_status: Some(0),
                signal: None,
                ended: true,
                duration_ns: written[rank as usize].0 * 1_000_000,
            })
            .collect(),
        node_files,
        notices: vec![],
        cache: None,
        ring_buffer_kib: None,
        static_db: None,
        static_dbs: Vec::new(),
    };
    manifest.write(&out, None).expect("manifest");
    println!(
        "{} ranks, {samples} samples, {bytes} bytes ({:.2} B/sample) in {:.1} s",
        ranks,
        bytes as f64 / samples as f64,
        started.elapsed().as_secs_f64()
    );
}
