//! Evaluation of approximate data-centric attribution against direct
//! attribution (dissertation 5.3.4, Table 5.6), on a real program's memory
//! trace (valgrind lackey) instead of a PMU:
//!
//! 1. every data access of the trace goes through a simulated L1 data cache
//!    (32 KiB, 8 ways, 64-byte lines, LRU); every `--period`-th read miss
//!    in the program's own code is a sample, with its instruction and data
//!    address (skid-free, precise: the PEBS/IBS case);
//! 2. direct attribution names the variable holding the data address (heap
//!    blocks from the allocation tracer's log, globals from the symbol table);
//! 3. the approximate methods see only the reported instruction: its own
//!    (no skid), or the one `k` instructions later with `k` drawn from the
//!    stated skid distribution (`--skid MEAN:SPREAD`, triangular);
//! 4. Pearson correlation over variables of each method against direct.
//!
//! Usage: datacentric_eval --binary B --static DB --trace LACKEY.txt
//!        --allocs alloc-PID.balloc [--period 7] [--skid 3:2] [--seed 1]

use blame_formats::alloc_log::AllocLog;
use blame_formats::static_db::StaticDb;
use blame_formats::stream::Mapping;
use blame_post::datacentric::{attribute_miss, LineSkid, SkidWindow};
use blame_post::direct::{global_variable, name_allocation, HeapBlocks, Named};
use blame_post::skid_insns::instruction_window;
use blame_post::symbolize::Symbolizer;
use blame_post::StaticIndex;
use object::{Object, ObjectSegment};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io::BufRead;

struct Cache {
    sets: Vec<VecDeque<u64>>,
    ways: usize,
}

impl Cache {
    fn new(bytes: usize, ways: usize, line: usize) -> Cache {
        Cache {
            sets: vec![VecDeque::with_capacity(ways); bytes / line / ways],
            ways,
        }
    }

    /// Touches the line of `addr`; true on a miss.
    fn access(&mut self, line_addr: u64) -> bool {
        let n = self.sets.len() as u64;
        let set = &mut self.sets[(line_addr % n) as usize];
        if let Some(pos) = set.iter().position(|&t| t == line_addr) {
            set.remove(pos);
            set.push_front(line_addr);
            false
        } else {
            if set.len() == self.ways {
                set.pop_back();
            }
            set.push_front(line_addr);
            true
        }
    }
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx).powi(2);
        syy += (b - my).powi(2);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// A sampled miss: the instruction that missed, the data address, and the
/// instruction the skidded sample reports.
struct Sample {
    ip: u64,
    data: u64,
    skid_ip: u64,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let need = |n: &str| {
        arg(&args, n).unwrap_or_else(|| panic!("missing {n}; see the doc comment for usage"))
    };
    let binary = need("--binary");
    let period: u64 = arg(&args, "--period")
        .map(|p| p.parse().unwrap())
        .unwrap_or(7);
    let skid: Vec<u32> = arg(&args, "--skid")
        .unwrap_or("3:2".into())
        .split(':')
        .map(|x| x.parse().unwrap())
        .collect();
    let skid = LineSkid {
        mean: skid[0],
        spread: skid[1],
    };
    let mut rng: u64 = arg(&args, "--seed")
        .map(|s| s.parse().unwrap())
        .unwrap_or(1)
        * 0x9E37_79B9_7F4A_7C15
        | 1;

    // The program as mapped without ASLR (built with -no-pie).
    let data = std::fs::read(&binary).unwrap();
    let file = object::File::parse(&*data).unwrap();
    let maps: Vec<Mapping> = file
        .segments()
        .map(|s| {
            let (offset, size) = s.file_range();
            Mapping {
                pid: 0,
                start: s.address(),
                end: s.address() + size.max(1),
                file_offset: offset,
                path: binary.clone(),
                build_id: vec![],
            }
        })
        .collect();
    let text: Vec<(u64, u64)> = file
        .sections()
        .filter(|s| object::ObjectSection::kind(s) == object::SectionKind::Text)
        .map(|s| {
            (
                object::ObjectSection::address(&s),
                object::ObjectSection::address(&s) + object::ObjectSection::size(&s),
            )
        })
        .collect();
    let in_program = |ip: u64| text.iter().any(|(a, b)| ip >= *a && ip < *b);
    let (db, _) = StaticDb::read(need("--static")).unwrap();
    let index = StaticIndex::new(db);
    let heap = HeapBlocks::from_log(&AllocLog::read(need("--allocs")).unwrap());

    // Pass over the trace: cache simulation, sampling, skid injection.
    let offsets = skid.offsets();
    let mut cache = Cache::new(32 << 10, 8, 64);
    let mut misses = 0u64;
    let mut samples: Vec<Sample> = Vec::new();
    let mut pending: Vec<(u64, usize)> = Vec::new(); // (instruction number to report, sample)
    let mut ninsn = 0u64;
    let mut ip = 0u64;
    let trace = std::io::BufReader::new(std::fs::File::open(need("--trace")).unwrap());
    for line in trace.lines() {
        let line = line.unwrap();
        let b = line.as_bytes();
        if b.len() < 4 {
            continue;
        }
        let (kind, rest) = if b[0] == b'I' {
            ('I', &line[3..])
        } else if b[0] == b' ' {
            (b[1] as char, &line[3..])
        } else {
            continue;
        };
        let Some((addr, size)) = rest.split_once(',') else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr.trim(), 16) else {
            continue;
        };
        let size: u64 = size.trim().parse().unwrap_or(1);
        if kind == 'I' {
            ninsn += 1;
            ip = addr;
            pending.retain(|&(at, s)| {
                if at == ninsn {
                    samples[s].skid_ip = ip;
                    false
                } else {
                    true
                }
            });
            continue;
        }
        let first = addr / 64;
        let last = (addr + size.max(1) - 1) / 64;
        for l in first..=last {
            let miss = cache.access(l);
            if miss && (kind == 'L' || kind == 'M') && in_program(ip) {
                misses += 1;
                if misses % period == 0 {
                    // k instructions later, k from the triangular distribution.
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    let mut u = (rng >> 11) as f64 / (1u64 << 53) as f64;
                    let mut k = 0;
                    for &(o, p) in &offsets {
                        if u < p {
                            k = o.max(0) as u64;
                            break;
                        }
                        u -= p;
                    }
                    samples.push(Sample {
                        ip,
                        data: addr,
                        skid_ip: ip,
                    });
                    if k > 0 {
                        pending.push((ninsn + k, samples.len() - 1));
                    }
                }
            }
        }
    }

    // Direct attribution by data address.
    let mut sym = Symbolizer::new(vec![]);
    let mut site_names: HashMap<u32, String> = HashMap::new();
    let var_name = |index: &StaticIndex, (fi, vi): (u32, u32)| {
        index.functions[fi as usize].variables[vi as usize]
            .name
            .clone()
    };
    let mut direct: BTreeMap<String, f64> = BTreeMap::new();
    let mut unattributed = 0.0;
    for s in &samples {
        let name = if let Some(b) = heap.find(s.data, u64::MAX) {
            site_names
                .entry(b.site)
                .or_insert_with(|| {
                    let (function, frames) = &heap.sites[b.site as usize];
                    let frames: Vec<_> = frames
                        .iter()
                        .flat_map(|&a| sym.frames_for(&maps, a, true))
                        .collect();
                    match name_allocation(&index, function, &frames) {
                        Some(Named::Var(v)) => var_name(&index, v),
                        Some(Named::Derived(d)) => {
                            format!("{}{}", var_name(&index, d.base), d.suffix)
                        }
                        None => format!(
                            "[heap {}]",
                            frames
                                .first()
                                .map(|f| format!("{}:{}", f.function, f.line))
                                .unwrap_or_default()
                        ),
                    }
                })
                .clone()
        } else if let Some(g) = sym.data_symbol(&maps, s.data) {
            global_variable(&index, &g)
                .map(|v| var_name(&index, v))
                .unwrap_or(g)
        } else {
            unattributed += 1.0;
            continue;
        };
        *direct.entry(name).or_default() += 1.0;
    }

    // Approximate attribution from the reported instruction only.
    let mut methods: BTreeMap<&str, BTreeMap<String, f64>> = BTreeMap::new();
    let mut add = |method: &'static str, f: usize, shares: &[(u32, f64)]| {
        for &(vi, x) in shares {
            *methods
                .entry(method)
                .or_default()
                .entry(index.functions[f].variables[vi as usize].name.clone())
                .or_default() += x;
        }
    };
    for s in &samples {
        for (reported, skidded) in [(s.ip, false), (s.skid_ip, true)] {
            let frames = sym.frames_for(&maps, reported, false);
            let Some(fr) = frames.first() else { continue };
            let Some(f) = index.lookup(&fr.function, &fr.file) else {
                continue;
            };
            let summary = &index.functions[f];
            if !skidded {
                let m = attribute_miss(summary, fr.line, 0.75, None);
                add("raw", f, &m.raw);
                add("loop", f, &m.loop_adjusted);
            } else {
                let window = instruction_window(&mut sym, &maps, reported, skid)
                    .filter(|(l, _)| !l.is_empty())
                    .map(|(lines, truncated)| {
                        let t: f64 = lines.values().sum();
                        SkidWindow {
                            lines: lines.into_iter().map(|(l, w)| (l, w / t)).collect(),
                            truncated,
                        }
                    })
                    .unwrap_or(SkidWindow {
                        lines: vec![(fr.line, 1.0)],
                        truncated: false,
                    });
                let m = attribute_miss(summary, fr.line, 0.75, Some(&window));
                add("skid raw", f, &m.raw);
                add("skid+loop", f, &m.skid_loop);
            }
        }
    }

    // Correlation over every variable any method names.
    let mut names: Vec<String> = direct.keys().cloned().collect();
    for m in methods.values() {
        names.extend(m.keys().cloned());
    }
    names.sort();
    names.dedup();
    let column = |m: &BTreeMap<String, f64>| {
        names
            .iter()
            .map(|n| m.get(n).copied().unwrap_or(0.0))
            .collect::<Vec<f64>>()
    };
    let d = column(&direct);
    let r = |m: &str| methods.get(m).and_then(|v| pearson(&d, &column(v)));
    let fmt = |x: Option<f64>| x.map(|x| format!("{x:.2}")).unwrap_or_else(|| "n/a".into());
    let report = serde_json::json!({
        "binary": binary,
        "accesses_missed": misses,
        "samples": samples.len(),
        "unattributed": unattributed,
        "skid": format!("insns {}:{}", skid.mean, skid.spread),
        "direct": direct,
        "methods": methods,
        "correlation": {
            "no_skid_raw": r("raw"), "no_skid_loop": r("loop"),
            "skid_raw": r("skid raw"), "skid_loop_skid": r("skid+loop"),
        },
    });
    if args.iter().any(|a| a == "--json") {
        println!("{report}");
    } else {
        let kernel = std::path::Path::new(&binary)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        println!(
            "{kernel:<12} {:>6} {:>6} {:>6} {:>6}   ({} samples, {} unattributed)",
            fmt(r("raw")),
            fmt(r("loop")),
            fmt(r("skid raw")),
            fmt(r("skid+loop")),
            samples.len(),
            unattributed
        );
    }
}
