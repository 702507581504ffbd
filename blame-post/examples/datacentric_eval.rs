//! Evaluation of approximate data-centric attribution against direct
//! attribution (dissertation 5.3.4, Table 5.6), on a real program's memory
//! trace (valgrind lackey) instead of a PMU:
//!
//! 1. every data access of the trace goes through a simulated L1 data cache
//!    (32 KiB, 8 ways, 64-byte lines, LRU); every `--period`-th read miss
//!    in the program's own code is a sample, with its instruction and data
//!    address (skid-free, precise: the PEBS/IBS case);
//! 2. direct attribution names the variable holding the data address (heap
//!    blocks by the variable that receives the allocation, from the
//!    allocation tracer's log, the block alive at the miss: the miss is
//!    placed among the log's events by the program's allocation calls
//!    before it; globals from the symbol table);
//! 3. the approximate methods see only the reported instruction: its own
//!    (no skid), or the one `k` instructions later in execution with `k`
//!    drawn from the stated skid distribution (`--skid MEAN:SPREAD`,
//!    triangular), which the skid pass is told. The reported instruction's
//!    inline stack and its calling context (rebuilt from the trace's calls
//!    and returns) go through `resolve_memory`, as in `blame post`; a
//!    line-0 instruction takes the next instruction's line. A field is
//!    compared as the variable that contains it;
//! 4. Pearson correlation of each method against direct, over every variable
//!    that direct attribution or a method of the same experiment (no skid:
//!    raw, loop, loop+access; skid: raw, skid+loop, skid+loop+access) names, zeros where one names
//!    none: a share given to a variable that never misses (an index or
//!    loop-invariant scalar) counts against the method. Beside it, the
//!    overlap: the fraction of the misses put on direct's variables in
//!    direct's proportions.
//!
//! Usage: datacentric_eval --binary B --static DB --trace LACKEY.txt
//!        --allocs alloc-PID.balloc [--period 7] [--skid 3:2] [--seed 1]
//!        [--json] [--explain] [--no-heap-sizes]
//!
//! The approximate methods know the heap blocks' sizes from the allocation
//! log (as `blame post` of a run recorded with `--track-allocations`);
//! `--no-heap-sizes` withholds them.
//!
//! `--explain` prints, on stderr, the direct names of the samples per source
//! line of the missing instruction and each function's loops and read table.

use blame_formats::alloc_log::AllocLog;
use blame_formats::static_db::StaticDb;
use blame_formats::stream::Mapping;
use blame_post::attribution::by_address::{global_variable, name_allocation, Named};
use blame_post::attribution::footprints::HeapFootprints;
use blame_post::attribution::resolve::{
    resolve_memory, VarRef, METHOD_LOOP, METHOD_LOOP_ACCESS, METHOD_RAW, METHOD_SKID_LOOP,
    METHOD_SKID_LOOP_ACCESS,
};
use blame_post::input::allocations::Allocations;
use blame_post::input::heap_blocks::HeapBlocks;
use blame_post::input::skid_insns::{instruction_window, resolve_leaf_line};
use blame_post::input::skid_model::{LineSkid, SkidModel, SkidWindow};
use blame_post::input::symbolize::Symbolizer;
use blame_post::StaticIndex;
use object::{Object, ObjectSegment};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
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

/// The name a variable is compared under: globals by name, `main`'s
/// variables by name, others as `function:name`; fields as their root
/// container.
fn key(index: &StaticIndex, (fi, vi): VarRef) -> String {
    let f = &index.functions[fi as usize];
    // A field is memory of the variable that contains it, which is what
    // direct attribution by address names (`atoms.vx` is part of `atoms`).
    let mut vi = vi;
    for _ in 0..f.variables.len() {
        match f.variables[vi as usize].parent {
            Some(p) => vi = p,
            None => break,
        }
    }
    let v = &f.variables[vi as usize];
    if v.kind == blame_formats::static_db::VarKind::Global || f.name == "main" {
        v.name.clone()
    } else {
        format!("{}:{}", f.name, v.name)
    }
}

/// A sampled miss: the instruction that missed, the data address, and the
/// instruction the skidded sample reports.
struct Sample {
    ip: u64,
    data: u64,
    skid_ip: u64,
    /// Return addresses of the program's own frames, outermost first, when
    /// the miss happened and when the skidded sample is reported.
    stack: Vec<u64>,
    skid_stack: Vec<u64>,
    /// Allocation calls the program had made before the miss.
    allocs_before: usize,
}

/// Allocation functions whose calls the program makes through its PLT,
/// by the address of the PLT entry: the entry's `jmp *GOT` names the GOT
/// slot, the slot's dynamic relocation names the function.
fn allocation_plt_entries(
    file: &object::File,
    data: &[u8],
    segments: &[(u64, u64, u64)],
) -> HashSet<u64> {
    use object::{ObjectSection, ObjectSymbol, ObjectSymbolTable};
    let mut slots: HashMap<u64, String> = HashMap::new();
    if let (Some(relocs), Some(dynsyms)) = (file.dynamic_relocations(), file.dynamic_symbol_table())
    {
        for (offset, r) in relocs {
            if let object::RelocationTarget::Symbol(i) = r.target() {
                if let Some(name) = dynsyms.symbol_by_index(i).ok().and_then(|s| s.name().ok()) {
                    slots.insert(offset, name.to_string());
                }
            }
        }
    }
    let mut out = HashSet::new();
    for sec in file.sections() {
        if !sec.name().is_ok_and(|n| n.starts_with(".plt")) {
            continue;
        }
        let (start, end) = (sec.address(), sec.address() + sec.size());
        let mut at = start;
        while at < end {
            let Some((s, off, _)) = segments
                .iter()
                .find(|(a, _, size)| at >= *a && at < a + size)
                .copied()
            else {
                break;
            };
            let from = (off + at - s) as usize;
            let Some(bytes) = data.get(from..(from + 16).min(data.len())) else {
                break;
            };
            let mut d = iced_x86::Decoder::with_ip(64, bytes, at, iced_x86::DecoderOptions::NONE);
            let ins = d.decode();
            if ins.mnemonic() == iced_x86::Mnemonic::Jmp && ins.is_ip_rel_memory_operand() {
                let name = slots.get(&ins.ip_rel_memory_address()).map(String::as_str);
                if name.is_some_and(|n| ALLOCATION_CALLS.contains(&n)) {
                    out.insert(at);
                }
            }
            at += 16;
        }
    }
    out
}

/// The calls the allocation tracer logs with their stacks (a free is logged
/// without one, so it cannot be told the program's or a library's).
const ALLOCATION_CALLS: &[&str] = &[
    "malloc",
    "calloc",
    "realloc",
    "posix_memalign",
    "aligned_alloc",
    "memalign",
];

/// The return address of a call instruction at `ip` (None: not a call), by
/// decoding the program's bytes (`segments`: address, file offset, size).
fn call_return(data: &[u8], segments: &[(u64, u64, u64)], ip: u64) -> Option<u64> {
    let &(start, offset, _) = segments
        .iter()
        .find(|(a, _, size)| ip >= *a && ip < a + size)?;
    let at = (offset + ip - start) as usize;
    let bytes = data.get(at..(at + 15).min(data.len()))?;
    let mut d = iced_x86::Decoder::with_ip(64, bytes, ip, iced_x86::DecoderOptions::NONE);
    let ins = d.decode();
    (ins.mnemonic() == iced_x86::Mnemonic::Call).then(|| ins.next_ip())
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
    let mut rng: u64 = (arg(&args, "--seed")
        .map(|s| s.parse::<u64>().unwrap())
        .unwrap_or(1)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15))
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
    let segments: Vec<(u64, u64, u64)> = file
        .segments()
        .map(|s| {
            let (offset, size) = s.file_range();
            (s.address(), offset, size)
        })
        .collect();
    let (db, _) = StaticDb::read(need("--static")).unwrap();
    let index = StaticIndex::new(db);
    let alloc_log = AllocLog::read(need("--allocs")).unwrap();
    let heap = HeapBlocks::from_log(&alloc_log);

    // Pass over the trace: cache simulation, sampling, skid injection.
    let offsets = skid.offsets();
    let mut cache = Cache::new(32 << 10, 8, 64);
    let mut misses = 0u64;
    let mut samples: Vec<Sample> = Vec::new();
    let mut pending: Vec<(u64, usize)> = Vec::new(); // (instruction number to report, sample)
    let mut ninsn = 0u64;
    let mut ip = 0u64;
    // The program's calling context, rebuilt from the executed instructions
    // (lackey records no stacks): a call pushes its return address, reaching
    // that address pops it. `blame post` gets the same frames from the
    // recorded stack, and needs them to lift reads through parameters to
    // the caller's variables.
    let mut stack: Vec<u64> = Vec::new();
    let mut is_call: HashMap<u64, Option<u64>> = HashMap::new();
    // The trace has no clock: a miss is placed among the allocation log's
    // events by the program's own allocation calls (PLT entries of malloc,
    // free, ...) executed before it, so an address freed and later reused
    // by another block is named by the block alive at the miss.
    let alloc_plt = allocation_plt_entries(&file, &data, &segments);
    let mut allocs_before = 0usize;
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
            if let Some(pos) = stack.iter().rposition(|&r| r == ip) {
                stack.truncate(pos);
            }
            pending.retain(|&(at, s)| {
                if at == ninsn {
                    samples[s].skid_ip = ip;
                    samples[s].skid_stack = stack.clone();
                    false
                } else {
                    true
                }
            });
            if alloc_plt.contains(&ip) {
                allocs_before += 1;
            }
            if in_program(ip) {
                if let Some(ret) = *is_call
                    .entry(ip)
                    .or_insert_with(|| call_return(&data, &segments, ip))
                {
                    stack.push(ret);
                }
            }
            continue;
        }
        let first = addr / 64;
        let last = (addr + size.max(1) - 1) / 64;
        for l in first..=last {
            let miss = cache.access(l);
            if miss && (kind == 'L' || kind == 'M') && in_program(ip) {
                misses += 1;
                if misses.is_multiple_of(period) {
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
                        stack: stack.clone(),
                        skid_stack: stack.clone(),
                        allocs_before,
                    });
                    if k > 0 {
                        pending.push((ninsn + k, samples.len() - 1));
                    }
                }
            }
        }
    }

    // Direct attribution by data address, at the time of the last allocation
    // call the program made before the miss (the log's events whose caller is
    // the program's code, in order). When the counts disagree, the latest
    // block holding the address, as before.
    let program_events: Vec<u64> = alloc_log
        .events
        .iter()
        .filter(|e| {
            alloc_log
                .frames(e)
                .first()
                .is_some_and(|&r| in_program(r.wrapping_sub(1)))
        })
        .map(|e| e.time_ns)
        .collect();
    let clocked = program_events.len() == allocs_before;
    if !clocked {
        eprintln!(
            "datacentric_eval: {} allocation calls in the trace, {} in the log: heap blocks by the latest",
            allocs_before,
            program_events.len()
        );
    }
    let time_of = |s: &Sample| -> u64 {
        if !clocked {
            u64::MAX
        } else if s.allocs_before == 0 {
            0
        } else {
            program_events[s.allocs_before - 1]
        }
    };
    let mut sym = Symbolizer::new(vec![]);
    // Every allocation site symbolized once: direct attribution names its
    // blocks, and the approximate methods know the bytes each variable
    // received (`blame post` of a run recorded with --track-allocations).
    let allocations = Allocations::new(heap.clone(), &mut sym, &maps);
    let footprints = if args.iter().any(|a| a == "--no-heap-sizes") {
        HeapFootprints::default()
    } else {
        allocations.footprints(&index)
    };
    let site_names: Vec<String> = allocations
        .sites
        .iter()
        .map(
            |(function, frames)| match name_allocation(&index, function, frames) {
                Some(Named::Var(v)) => key(&index, v),
                // A field is compared as its container.
                Some(Named::Derived(d)) => key(&index, d.base),
                None => format!(
                    "[heap {}]",
                    frames
                        .first()
                        .map(|f| format!("{}:{}", f.function, f.line))
                        .unwrap_or_default()
                ),
            },
        )
        .collect();
    let mut direct: BTreeMap<String, f64> = BTreeMap::new();
    let mut unattributed = 0.0;
    for s in &samples {
        let name = if let Some(b) = heap.find(s.data, time_of(s)) {
            site_names[b.site as usize].clone()
        } else if let Some(g) = sym.data_symbol(&maps, s.data) {
            global_variable(&index, &g)
                .map(|v| key(&index, v))
                .unwrap_or(g)
        } else {
            unattributed += 1.0;
            continue;
        };
        *direct.entry(name).or_default() += 1.0;
    }

    // Approximate attribution from the reported instruction only, through
    // the same resolution `blame post` applies to a memory sample: the
    // innermost frame with a summary (inlined frames included) distributes
    // the miss, reads through parameters are lifted to the caller's
    // variables. A reported instruction the line table gives line 0 takes
    // the next instruction's line.
    let mut methods: BTreeMap<&str, BTreeMap<String, f64>> = BTreeMap::new();
    let mut resolved: BTreeMap<&str, f64> = BTreeMap::new();
    // For --explain: per reported line of the skidded samples, the direct
    // names and the skid+loop+access shares.
    type ByName = BTreeMap<String, f64>;
    let mut skid_reports: BTreeMap<String, (ByName, ByName)> = BTreeMap::new();
    for s in &samples {
        for (reported, callers, skidded) in
            [(s.ip, &s.stack, false), (s.skid_ip, &s.skid_stack, true)]
        {
            let mut frames = sym.frames_for(&maps, reported, false);
            if frames.is_empty() {
                continue;
            }
            resolve_leaf_line(&mut sym, &maps, &mut frames, reported);
            for &ret in callers.iter().rev() {
                frames.extend(sym.frames_for(&maps, ret, true));
            }
            let (model, window) = if skidded {
                let window = instruction_window(&mut sym, &maps, reported, skid)
                    .filter(|w| !w.is_empty())
                    .map(|w| SkidWindow {
                        lines: w.lines.into_iter().collect(),
                        truncated: w.truncated,
                        inlined: w.inlined.into_iter().collect(),
                    });
                (Some(SkidModel::Instructions(skid)), window)
            } else {
                (None, None)
            };
            // The simulated L1 below: 32 KiB, 64-byte lines (the default geometry).
            let options = blame_post::MemoryOptions {
                loop_threshold: 0.75,
                skid: model,
                cache: Default::default(),
            };
            let r = resolve_memory(
                &index,
                &frames.iter().collect::<Vec<_>>(),
                &options,
                window.as_ref(),
                Some(&footprints),
            );
            let report = skidded.then(|| {
                let at = format!("{}:{}", frames[0].function, frames[0].line);
                let direct = heap
                    .find(s.data, time_of(s))
                    .map(|b| site_names[b.site as usize].clone())
                    .or_else(|| sym.data_symbol(&maps, s.data))
                    .unwrap_or_else(|| "?".into());
                let entry = skid_reports.entry(at).or_default();
                *entry.0.entry(direct).or_default() += 1.0;
                entry
            });
            if let Some(entry) = report {
                for (method, v, share) in &r.shares {
                    if *method == METHOD_SKID_LOOP_ACCESS {
                        *entry.1.entry(key(&index, *v)).or_default() += share;
                    }
                }
            }
            for (method, v, share) in r.shares {
                let name = match (skidded, method) {
                    (false, METHOD_RAW) => "raw",
                    (false, METHOD_LOOP) => "loop",
                    (true, METHOD_RAW) => "skid raw",
                    (true, METHOD_SKID_LOOP) => "skid+loop",
                    (false, METHOD_LOOP_ACCESS) => "loop+access",
                    (true, METHOD_SKID_LOOP_ACCESS) => "skid+loop+access",
                    _ => continue,
                };
                *methods
                    .entry(name)
                    .or_default()
                    .entry(key(&index, v))
                    .or_default() += share;
                *resolved.entry(name).or_default() += share;
            }
        }
    }

    if args.iter().any(|a| a == "--explain") {
        // Per true line: direct names of the samples; then each function's read table.
        let mut by_line: BTreeMap<(String, u32), BTreeMap<String, usize>> = BTreeMap::new();
        for s in &samples {
            let fr = sym.frames_for(&maps, s.ip, false);
            let Some(fr) = fr.first() else { continue };
            let name = heap
                .find(s.data, time_of(s))
                .map(|b| site_names[b.site as usize].clone())
                .or_else(|| sym.data_symbol(&maps, s.data))
                .unwrap_or_else(|| "?".into());
            *by_line
                .entry((fr.function.clone(), fr.line))
                .or_default()
                .entry(name)
                .or_default() += 1;
        }
        for ((func, line), names) in &by_line {
            eprintln!("{func}:{line}  {names:?}");
        }
        eprintln!("skidded samples by reported line: direct names, then skid+loop+access");
        let round = |m: &ByName| -> BTreeMap<String, String> {
            m.iter()
                .filter(|(_, x)| **x >= 0.5)
                .map(|(k, x)| (k.clone(), format!("{x:.0}")))
                .collect()
        };
        for (at, (direct, approx)) in &skid_reports {
            eprintln!("  {at}  {:?}  ->  {:?}", round(direct), round(approx));
        }
        for (site, (function, frames)) in allocations.sites.iter().enumerate() {
            let frames: Vec<String> = frames
                .iter()
                .map(|f| format!("{}:{}", f.function, f.line))
                .collect();
            eprintln!(
                "site {site} {function} {} -> {}",
                frames.join(" < "),
                site_names[site]
            );
        }
        for f in &index.functions {
            eprintln!(
                "{} loops {:?}",
                f.name,
                f.loops.iter().map(|l| &l.lines).collect::<Vec<_>>()
            );
            for lr in &f.reads {
                let rs: Vec<String> = lr
                    .reads
                    .iter()
                    .enumerate()
                    .map(|(k, r)| {
                        // The pattern, then what is known of a sweep: its
                        // span in bytes, `+` when an earlier pass swept it.
                        let sweep = lr.costs.get(k).map_or(String::new(), |c| {
                            let span = if c.sweep > 0 {
                                format!("/{}", c.sweep)
                            } else {
                                String::new()
                            };
                            format!("{span}{}", if c.swept_before { "+" } else { "" })
                        });
                        format!(
                            "{}{:?}{:?}{sweep}",
                            f.variables[r.variable as usize].name,
                            r.index,
                            lr.costs.get(k).map(|c| c.reuse)
                        )
                    })
                    .collect();
                eprintln!("  {} {}", lr.line, rs.join(" "));
            }
        }
    }

    // Each experiment (no skid: raw, loop; skid: raw, skid+loop) is compared
    // over every variable direct attribution or one of its methods names,
    // with zeros where one names none: the same set for both methods of an
    // experiment, and no-skid figures independent of the skid model.
    let experiment = |m: &str| -> [&str; 3] {
        if m == "raw" || m == "loop" || m == "loop+access" {
            ["raw", "loop", "loop+access"]
        } else {
            ["skid raw", "skid+loop", "skid+loop+access"]
        }
    };
    let columns = |m: &str| -> Option<(Vec<f64>, Vec<f64>)> {
        let v = methods.get(m)?;
        let mut names: Vec<&String> = direct.keys().collect();
        for e in experiment(m) {
            names.extend(methods.get(e).into_iter().flat_map(|x| x.keys()));
        }
        names.sort();
        names.dedup();
        let column = |m: &BTreeMap<String, f64>| -> Vec<f64> {
            names
                .iter()
                .map(|n| m.get(*n).copied().unwrap_or(0.0))
                .collect()
        };
        Some((column(&direct), column(v)))
    };
    let r = |m: &str| columns(m).and_then(|(d, v)| pearson(&d, &v));
    let fmt = |x: Option<f64>| x.map(|x| format!("{x:.2}")).unwrap_or_else(|| "n/a".into());
    // Beside Pearson: the fraction of the misses a method puts on the
    // variables direct attribution names, in direct's proportions (1 minus
    // the total variation distance). Pearson alone forgives a share spread
    // evenly over variables that never miss.
    let overlap = |m: &str| {
        let (d, v) = columns(m)?;
        let (dt, mt) = (d.iter().sum::<f64>(), v.iter().sum::<f64>());
        (dt > 0.0 && mt > 0.0).then(|| {
            d.iter()
                .zip(v)
                .map(|(a, b)| (a / dt).min(b / mt))
                .sum::<f64>()
        })
    };
    let report = serde_json::json!({
        "binary": binary,
        "accesses_missed": misses,
        "samples": samples.len(),
        "unattributed": unattributed,
        "resolved": resolved,
        "skid": format!("insns {}:{}", skid.mean, skid.spread),
        "direct": direct,
        "methods": methods,
        "correlation": {
            "no_skid_raw": r("raw"), "no_skid_loop": r("loop"),
            "no_skid_loop_access": r("loop+access"),
            "skid_raw": r("skid raw"), "skid_loop_skid": r("skid+loop"),
            "skid_loop_access": r("skid+loop+access"),
        },
        "overlap": {
            "no_skid_raw": overlap("raw"), "no_skid_loop": overlap("loop"),
            "no_skid_loop_access": overlap("loop+access"),
            "skid_raw": overlap("skid raw"), "skid_loop_skid": overlap("skid+loop"),
            "skid_loop_access": overlap("skid+loop+access"),
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
        let methods = [
            "raw",
            "loop",
            "loop+access",
            "skid raw",
            "skid+loop",
            "skid+loop+access",
        ];
        let cells = |f: &dyn Fn(&str) -> Option<f64>| {
            methods
                .iter()
                .map(|m| format!("{:>5}", fmt(f(m))))
                .collect::<Vec<_>>()
                .join(" ")
        };
        println!(
            "{kernel:<10} {}   {}   ({} samples, {} unattributed)",
            cells(&r),
            cells(&overlap),
            samples.len(),
            unattributed
        );
    }
}
