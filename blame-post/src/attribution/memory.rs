//! Memory blame: the heap memory each variable allocated and held in one
//! process, from its allocation log (`--track-allocations`).
//!
//! Every allocation site is named as direct attribution names it
//! (`name_allocation`: the variable that receives the block, a field of a
//! parameter followed to the caller's field, a block made inside a
//! library call for a program variable — `std::vector`'s buffer, reached
//! through the vector's inlined methods — going to the variable whose
//! method the program called). A block counts for that variable and every
//! variable containing it (`grid.u` and `grid`), as time blame does.
//!
//! Per variable: allocation calls, bytes, bytes live at the process's peak,
//! its own peak, bytes and blocks live at exit (leaks) and the mean block
//! lifetime. Blocks sampled by bytes count with their weights (estimates);
//! the process's totals are the tracer's exact counters.

use crate::attribution::by_address::{name_allocation, Named};
use crate::attribution::keys::{derived_keys, heap_site_key, variable_key};
use crate::attribution::resolve::with_containers;
use crate::attribution::static_index::StaticIndex;
use crate::input::allocations::MemoryInput;
use blame_formats::alloc_log::{AllocKind, AllocLog};
use blame_formats::memory_profile::{
    MemoryProfile, MemoryTotals, SiteMemory, Timeline, VariableMemory, VariableMemoryRest, VERSION,
};
use blame_formats::results::{SymFrame, VariableKey};
use std::collections::HashMap;

/// Points of the live-bytes timeline.
pub const TIMELINE_POINTS: usize = 100;
/// Variables the timeline follows (by their own peak).
pub const TIMELINE_VARIABLES: usize = 8;

/// Who received a site's blocks: the keys credited (the receiver and its
/// containers), the receiver's own key, or none.
struct Owner {
    keys: Vec<usize>,
    leaf: Option<usize>,
}

#[derive(Default, Clone)]
struct Sums {
    allocs: f64,
    bytes: f64,
    at_peak: f64,
    peak: f64,
    live: f64,
    leaked_bytes: f64,
    leaked_blocks: f64,
    lifetime: f64,
}

/// The program frames of a stack: those with a summary; the whole stack
/// when none has one.
fn program_frames(index: &StaticIndex, frames: &[SymFrame]) -> Vec<SymFrame> {
    let own: Vec<SymFrame> = frames
        .iter()
        .filter(|f| index.lookup(&f.function, &f.file).is_some())
        .cloned()
        .collect();
    if own.is_empty() {
        frames.to_vec()
    } else {
        own
    }
}

/// Whether `function` is the standard library's code instantiated in the
/// program (`std::vector<int>::_M_fill_assign`, `std::make_unique<T>`):
/// its summaries' variables are the library's internals.
pub fn is_library_template(function: &str) -> bool {
    let demangled = blame_formats::names::demangle(function);
    // The qualified name, without a return type (`T std::f<..>(..)`).
    let name = demangled.split('(').next().unwrap_or(&demangled);
    let qualified = name.split_whitespace().last().unwrap_or(name);
    ["std::", "__gnu_cxx::", "__cxxabiv1::", "__gnu_debug::"]
        .iter()
        .any(|p| demangled.starts_with(p) || qualified.starts_with(p))
}

/// The variable that owns a site's blocks: as direct attribution names it,
/// except that a block received by a variable of the standard library's
/// instantiated code (`std::vector::_M_fill_assign`'s `__tmp`) belongs to
/// the program variable whose library call made it: the stack is taken from
/// the program's frame calling into the library, that call standing for
/// the allocation.
pub fn name_owner(index: &StaticIndex, function: &str, frames: &[SymFrame]) -> Option<Named> {
    let named = name_allocation(index, function, frames);
    let in_library = |n: &Option<Named>| {
        let v = match n {
            Some(Named::Var(v)) => *v,
            Some(Named::Derived(d)) => d.base,
            None => return false,
        };
        is_library_template(&index.functions[v.0 as usize].name)
    };
    if !in_library(&named) {
        return named;
    }
    let first_program = frames.iter().position(|f| {
        !is_library_template(&f.function) && index.lookup(&f.function, &f.file).is_some()
    })?;
    if first_program == 0 {
        return named;
    }
    let callee = &frames[first_program - 1].function;
    let retry = name_allocation(index, callee, &frames[first_program..])
        .filter(|n| !in_library(&Some(n.clone())))
        .or_else(|| name_allocation(index, function, &frames[first_program..]));
    match retry {
        Some(n) if !in_library(&Some(n.clone())) => Some(n),
        _ => named,
    }
}

/// The row of blocks no variable received: named by the program's line
/// that called into the library making them (`[heap via MPI_Init at
/// main:110]`), else by the library (`[heap in libopen-pal.so.40]`) or
/// function the stack starts in.
fn rest_key(index: &StaticIndex, function: &str, frames: &[SymFrame]) -> VariableKey {
    let mut k = heap_site_key(function, &program_frames(index, frames), 0);
    let first_program = frames
        .iter()
        .position(|f| index.lookup(&f.function, &f.file).is_some());
    match first_program {
        Some(i) => {
            let at = &frames[i];
            let via = match i.checked_sub(1).map(|c| &frames[c]) {
                Some(callee) => {
                    let name = blame_formats::names::demangle(&callee.function);
                    name.split('(').next().unwrap_or(&name).to_string()
                }
                None => function.to_string(),
            };
            k.name = format!("[heap via {via} at {}:{}]", at.function, at.line);
        }
        None => {
            // The outermost frame that names a function, else the library.
            let named = frames.iter().rev().find(|f| !f.function.starts_with('['));
            let place = match named {
                Some(f) if !f.function.starts_with('_') || f.function.starts_with("_Z") => {
                    let name = blame_formats::names::demangle(&f.function);
                    name.split('(').next().unwrap_or(&name).to_string()
                }
                _ => match frames.first().and_then(|f| f.function.split_once("+0x")) {
                    Some((lib, _)) => lib.trim_start_matches('[').to_string(),
                    None => "an unknown library".to_string(),
                },
            };
            k.name = format!("[heap in {place}]");
            k.function = String::new();
            k.file = String::new();
            k.line = 0;
        }
    }
    k
}

/// The memory profile of one process.
pub fn profile(
    index: &StaticIndex,
    input: &MemoryInput,
    pid: u32,
    rank: Option<u32>,
) -> MemoryProfile {
    let log = &input.log;
    let heap = &input.allocations.blocks;
    let (keys, owners) = site_owners(index, input);
    // Sites whose name is a heap key (no variable) are the unattributed rest.
    let unattributed_key: Vec<bool> = keys.iter().map(|k| k.kind == "heap").collect();
    let site_of: HashMap<(AllocKind, u32), usize> = heap
        .site_keys
        .iter()
        .enumerate()
        .map(|(i, &k)| (k, i))
        .collect();

    let totals_logged = log.totals;
    let start_ns = log.start_ns;
    let end_ns = totals_logged
        .map(|t| t.end_ns)
        .or_else(|| log.events.last().map(|e| e.time_ns))
        .unwrap_or(start_ns)
        .max(start_ns);
    let peak_seq = totals_logged.map(|t| t.peak_seq);

    let mut sweep = Sweep::new(input, &owners, keys.len(), start_ns, end_ns);
    sweep.sweep(log, &site_of);
    // The process's peak: the tracer's (every block counted), else the
    // logged blocks'.
    let peak_seq = peak_seq.unwrap_or(sweep.logged_peak.1);
    sweep.settle(peak_seq, end_ns);
    let (unattributed, variables, row_of_key) = rows(
        &keys,
        &unattributed_key,
        &owners,
        &sweep.sums,
        &sweep.site_sums,
    );
    let timeline = sweep.timeline(keys.len(), &row_of_key);
    let totals = sweep.totals(log, start_ns, end_ns);
    MemoryProfile {
        version: VERSION,
        pid,
        rank,
        totals,
        unattributed,
        variables,
        timeline,
    }
}

/// The keys every site's blocks count for (interned, each once) and the
/// owner of each site of `heap.sites`.
fn site_owners(index: &StaticIndex, input: &MemoryInput) -> (Vec<VariableKey>, Vec<Owner>) {
    let mut keys: Vec<VariableKey> = Vec::new();
    let mut key_ids: HashMap<VariableKey, usize> = HashMap::new();
    let mut intern = |k: VariableKey, keys: &mut Vec<VariableKey>| -> usize {
        *key_ids.entry(k.clone()).or_insert_with(|| {
            keys.push(k);
            keys.len() - 1
        })
    };
    // Owners per site of `heap.sites`.
    let owners: Vec<Owner> = input
        .allocations
        .sites
        .iter()
        .map(
            |(function, frames)| match name_owner(index, function, frames) {
                Some(Named::Var(v)) => {
                    let ks: Vec<usize> = with_containers(index, v)
                        .into_iter()
                        .map(|c| intern(variable_key(index, c, 0), &mut keys))
                        .collect();
                    Owner {
                        leaf: ks.first().copied(),
                        keys: ks,
                    }
                }
                Some(Named::Derived(d)) => {
                    let mut ks: Vec<usize> = with_containers(index, d.base)
                        .into_iter()
                        .map(|c| intern(variable_key(index, c, 0), &mut keys))
                        .collect();
                    let paths: Vec<usize> = derived_keys(index, &d, 0)
                        .into_iter()
                        .map(|k| intern(k, &mut keys))
                        .collect();
                    let leaf = paths.last().or(ks.first()).copied();
                    ks.extend(paths);
                    ks.sort_unstable();
                    ks.dedup();
                    Owner { keys: ks, leaf }
                }
                None => {
                    let k = rest_key(index, function, frames);
                    let id = intern(k, &mut keys);
                    Owner {
                        keys: vec![id],
                        leaf: Some(id),
                    }
                }
            },
        )
        .collect();
    (keys, owners)
}

/// A block as logged.
struct Block {
    site: usize,
    size: f64,
    weight: f64,
    alloc_seq: u64,
    alloc_ns: u64,
    /// (seq, ns) of its free, if it was freed.
    free: Option<(u64, u64)>,
}

/// The sweep of a process's allocation log in log order: its blocks,
/// live bytes per key, own peaks, the timeline, then what each block
/// counts at the peak, as a leak and for lifetimes.
struct Sweep<'a> {
    owners: &'a [Owner],
    start_ns: u64,
    times: Vec<u64>,
    blocks: Vec<Block>,
    live: HashMap<u64, usize>,
    sums: Vec<Sums>,
    site_sums: Vec<SiteMemory>,
    snapshots: Vec<Vec<f64>>,
    total_line: Vec<f64>,
    total_live: f64,
    logged_peak: (f64, u64),
    logged_blocks: u64,
    sampled_blocks: u64,
}

impl<'a> Sweep<'a> {
    /// Nothing swept yet: `nkeys` keys, each site's sums at zero, the
    /// timeline's times between `start_ns` and `end_ns`.
    fn new(
        input: &MemoryInput,
        owners: &'a [Owner],
        nkeys: usize,
        start_ns: u64,
        end_ns: u64,
    ) -> Self {
        let sums = vec![Sums::default(); nkeys];
        let site_sums: Vec<SiteMemory> = input
            .allocations
            .sites
            .iter()
            .map(|(function, frames)| SiteMemory {
                function: function.clone(),
                frames: frames.clone(),
                allocs: 0.0,
                bytes: 0.0,
                at_peak: 0.0,
                leaked_bytes: 0.0,
            })
            .collect();
        // The sweep in log order: live bytes per key, own peaks, the timeline.
        let span = (end_ns - start_ns).max(1);
        let times: Vec<u64> = (1..=TIMELINE_POINTS as u64)
            .map(|i| span * i / TIMELINE_POINTS as u64)
            .collect();
        Sweep {
            owners,
            start_ns,
            times,
            blocks: Vec::new(),
            live: HashMap::new(),
            sums,
            site_sums,
            snapshots: Vec::with_capacity(TIMELINE_POINTS),
            total_line: Vec::with_capacity(TIMELINE_POINTS),
            total_live: 0.0,
            logged_peak: (0.0f64, 0u64),
            logged_blocks: 0,
            sampled_blocks: 0,
        }
    }

    /// Takes the timeline's snapshots due before time `t`.
    fn snapshot_until(&mut self, t: u64) {
        while self.snapshots.len() < TIMELINE_POINTS
            && self.start_ns + self.times[self.snapshots.len()] < t
        {
            self.snapshots
                .push(self.sums.iter().map(|s| s.live).collect());
            self.total_line.push(self.total_live);
        }
    }

    /// Ends live block `i` at event (`seq`, `ns`): its bytes are no longer live.
    fn end_block(&mut self, i: usize, seq: u64, ns: u64) {
        self.blocks[i].free = Some((seq, ns));
        let b = &self.blocks[i];
        let bytes = b.size * b.weight;
        self.total_live -= bytes;
        for &k in &self.owners[b.site].keys {
            self.sums[k].live -= bytes;
        }
    }

    /// Sweeps the log's events in order (`site_of`: the site of each
    /// (kind, log site)): blocks made and freed, live bytes, own peaks,
    /// the process's logged peak and the timeline.
    fn sweep(&mut self, log: &AllocLog, site_of: &HashMap<(AllocKind, u32), usize>) {
        for e in &log.events {
            self.snapshot_until(e.time_ns);
            if e.kind == AllocKind::Free || (e.kind == AllocKind::Realloc && e.old_address != 0) {
                let addr = if e.kind == AllocKind::Free {
                    e.address
                } else {
                    e.old_address
                };
                if let Some(i) = self.live.remove(&addr) {
                    self.end_block(i, e.seq, e.time_ns);
                }
                if e.kind == AllocKind::Free {
                    continue;
                }
            }
            let Some(&site) = site_of.get(&(e.kind, e.site)) else {
                continue;
            };
            // An address reused without a logged free (a torn log): the old block ends.
            if let Some(i) = self.live.remove(&e.address) {
                self.end_block(i, e.seq, e.time_ns);
            }
            let weight = log.weight(e);
            self.logged_blocks += 1;
            self.sampled_blocks += e.sampled as u64;
            let b = Block {
                site,
                size: e.size as f64,
                weight,
                alloc_seq: e.seq,
                alloc_ns: e.time_ns,
                free: None,
            };
            let bytes = b.size * weight;
            self.total_live += bytes;
            if self.total_live > self.logged_peak.0 {
                self.logged_peak = (self.total_live, e.seq);
            }
            for &k in &self.owners[site].keys {
                let s = &mut self.sums[k];
                s.allocs += weight;
                s.bytes += bytes;
                s.live += bytes;
                s.peak = s.peak.max(s.live);
            }
            let sm = &mut self.site_sums[site];
            sm.allocs += weight;
            sm.bytes += bytes;
            self.live.insert(e.address, self.blocks.len());
            self.blocks.push(b);
        }
        self.snapshot_until(u64::MAX);
    }

    /// What each block counts once the log is swept: its lifetime (to
    /// `end_ns` when never freed), its bytes at the process's peak (event
    /// `peak_seq`), and as a leak.
    fn settle(&mut self, peak_seq: u64, end_ns: u64) {
        for b in &self.blocks {
            let bytes = b.size * b.weight;
            let end = b.free.map_or(end_ns, |(_, ns)| ns);
            let at_peak = b.alloc_seq <= peak_seq && b.free.is_none_or(|(seq, _)| seq > peak_seq);
            for &k in &self.owners[b.site].keys {
                let s = &mut self.sums[k];
                s.lifetime += b.weight * end.saturating_sub(b.alloc_ns) as f64;
                if at_peak {
                    s.at_peak += bytes;
                }
                if b.free.is_none() {
                    s.leaked_bytes += bytes;
                    s.leaked_blocks += b.weight;
                }
            }
            let sm = &mut self.site_sums[b.site];
            if at_peak {
                sm.at_peak += bytes;
            }
            if b.free.is_none() {
                sm.leaked_bytes += bytes;
            }
        }
    }

    /// The timeline: the process's live bytes, and those of the variables
    /// that held the most at once (of `nkeys` keys, those with a row).
    fn timeline(&mut self, nkeys: usize, row_of_key: &[Option<u32>]) -> Timeline {
        let sums = &self.sums;
        let snapshots = &self.snapshots;
        // The timeline follows the variables that held the most at once.
        let mut top: Vec<usize> = (0..nkeys).filter(|&k| row_of_key[k].is_some()).collect();
        top.sort_by(|&a, &b| sums[b].peak.total_cmp(&sums[a].peak).then(a.cmp(&b)));
        top.truncate(TIMELINE_VARIABLES);
        Timeline {
            times_ns: std::mem::take(&mut self.times),
            total: std::mem::take(&mut self.total_line),
            series: top
                .iter()
                .map(|&k| {
                    let row = row_of_key[k].expect("a row");
                    (row, snapshots.iter().map(|s| s[k].max(0.0)).collect())
                })
                .collect(),
        }
    }

    /// The process's totals: the tracer's exact counters, else the logged
    /// blocks' (estimates).
    fn totals(&self, log: &AllocLog, start_ns: u64, end_ns: u64) -> MemoryTotals {
        let (blocks, logged_peak) = (&self.blocks, self.logged_peak);
        let (logged_blocks, sampled_blocks) = (self.logged_blocks, self.sampled_blocks);
        match log.totals {
            Some(t) => MemoryTotals {
                allocs: t.allocs,
                bytes: t.bytes,
                frees: t.frees,
                peak_bytes: t.peak_bytes,
                peak_blocks: t.peak_blocks,
                leaked_bytes: t.live_bytes,
                leaked_blocks: t.live_blocks,
                start_ns,
                end_ns,
                peak_ns: t.peak_ns,
                exact: true,
                logged_blocks,
                sampled_blocks,
            },
            None => {
                let leaked: Vec<&Block> = blocks.iter().filter(|b| b.free.is_none()).collect();
                MemoryTotals {
                    allocs: blocks.iter().map(|b| b.weight).sum::<f64>().round() as u64,
                    bytes: blocks
                        .iter()
                        .map(|b| b.weight * b.size)
                        .sum::<f64>()
                        .round() as u64,
                    frees: blocks.iter().filter(|b| b.free.is_some()).count() as u64,
                    peak_bytes: logged_peak.0.round() as u64,
                    peak_blocks: 0,
                    leaked_bytes: leaked
                        .iter()
                        .map(|b| b.weight * b.size)
                        .sum::<f64>()
                        .round() as u64,
                    leaked_blocks: leaked.iter().map(|b| b.weight).sum::<f64>().round() as u64,
                    start_ns,
                    end_ns,
                    peak_ns: log
                        .events
                        .iter()
                        .find(|e| e.seq == logged_peak.1)
                        .map_or(0, |e| e.time_ns),
                    exact: false,
                    logged_blocks,
                    sampled_blocks,
                }
            }
        }
    }
}

/// The unattributed rest (the sums of keys `unattributed_key` marks), a
/// row per variable that allocated (with the sites it received itself),
/// and the row of each key (`None`: no row).
fn rows(
    keys: &[VariableKey],
    unattributed_key: &[bool],
    owners: &[Owner],
    sums: &[Sums],
    site_sums: &[SiteMemory],
) -> (VariableMemoryRest, Vec<VariableMemory>, Vec<Option<u32>>) {
    let mut unattributed = VariableMemoryRest::default();
    let mut variables: Vec<VariableMemory> = Vec::new();
    let mut row_of_key: Vec<Option<u32>> = vec![None; keys.len()];
    for (k, key) in keys.iter().enumerate() {
        let s = &sums[k];
        if unattributed_key[k] {
            unattributed.allocs += s.allocs;
            unattributed.bytes += s.bytes;
            unattributed.at_peak += s.at_peak;
            unattributed.leaked_bytes += s.leaked_bytes;
        }
        let sites: Vec<SiteMemory> = owners
            .iter()
            .enumerate()
            .filter(|(_, o)| o.leaf == Some(k))
            .map(|(i, _)| site_sums[i].clone())
            .filter(|s| s.allocs > 0.0)
            .collect();
        if s.allocs == 0.0 {
            continue;
        }
        row_of_key[k] = Some(variables.len() as u32);
        variables.push(VariableMemory {
            key: key.clone(),
            own: !sites.is_empty(),
            allocs: s.allocs,
            bytes: s.bytes,
            at_peak: s.at_peak,
            peak: s.peak,
            leaked_bytes: s.leaked_bytes,
            leaked_blocks: s.leaked_blocks,
            mean_lifetime_ns: s.lifetime / s.allocs,
            sites,
        });
    }
    (unattributed, variables, row_of_key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::allocations::Allocations;
    use crate::input::heap_blocks::HeapBlocks;
    use crate::tests_fig3_14::{func, var};
    use blame_formats::alloc_log::AllocLog;
    use blame_formats::alloc_log::{AllocEvent, AllocTotals, NO_SITE};
    use blame_formats::static_db::{CallOutput, CallSite, OutputBinding, StaticDb, VarKind};

    fn pointer(name: &str, line: u32) -> blame_formats::static_db::Variable {
        let mut v = var(name, VarKind::Local, None, None, false, &[]);
        v.is_pointer = true;
        v.line = line;
        v.write_lines = vec![line];
        v
    }

    fn malloc_at(line: u32, blamed: u32) -> CallSite {
        CallSite {
            line,
            column: 5,
            callee: Some("malloc".into()),
            arg_count: 1,
            outputs: vec![OutputBinding {
                output: CallOutput::Return,
                blamed: vec![blamed],
                pointees: vec![],
                field: String::new(),
                explicit: vec![],
            }],
            model: Some(vec![CallOutput::Return]),
        }
    }

    fn frame(line: u32) -> SymFrame {
        SymFrame {
            function: "main".into(),
            file: "k.c".into(),
            line,
            column: 0,
            inlined: false,
        }
    }

    fn event(kind: AllocKind, seq: u64, address: u64, size: u64, site: u32) -> AllocEvent {
        AllocEvent {
            kind,
            time_ns: 1000 + 10 * seq,
            seq,
            address,
            size,
            old_address: 0,
            site,
            sampled: false,
        }
    }

    /// `a = malloc(100)`, `b = malloc(50)`, `free(a)`, `a = malloc(200)`:
    /// the process peaks at 250 bytes with the second `a` and `b` live,
    /// both left allocated at exit.
    #[test]
    fn per_variable_bytes_peak_share_and_leaks() {
        let mut main = func(
            "main",
            vec![pointer("a", 3), pointer("b", 4)],
            vec![malloc_at(3, 0), malloc_at(4, 1)],
        );
        main.file = "k.c".into();
        let mut db = StaticDb::default();
        db.insert(main);
        let index = StaticIndex::new(db);
        let log = AllocLog {
            version: 2,
            start_ns: 1000,
            sites: vec![vec![0x10], vec![0x20]],
            events: vec![
                event(AllocKind::Malloc, 1, 0x1000, 100, 0),
                event(AllocKind::Malloc, 2, 0x2000, 50, 1),
                event(AllocKind::Free, 3, 0x1000, 0, NO_SITE),
                event(AllocKind::Malloc, 4, 0x3000, 200, 0),
            ],
            totals: Some(AllocTotals {
                allocs: 3,
                bytes: 350,
                frees: 1,
                live_bytes: 250,
                live_blocks: 2,
                peak_bytes: 250,
                peak_blocks: 2,
                peak_seq: 4,
                peak_ns: 1040,
                seq: 4,
                end_ns: 1100,
            }),
            ..Default::default()
        };
        let blocks = HeapBlocks::from_log(&log);
        let sites = blocks
            .site_keys
            .iter()
            .map(|&(_, s)| {
                (
                    "malloc".to_string(),
                    vec![frame(if s == 0 { 3 } else { 4 })],
                )
            })
            .collect();
        let input = MemoryInput {
            allocations: Allocations { blocks, sites },
            log,
        };
        let p = profile(&index, &input, 7, Some(0));
        let row = |name: &str| {
            p.variables
                .iter()
                .find(|v| v.key.name == name)
                .unwrap_or_else(|| panic!("{name} in {:?}", p.variables))
        };
        let a = row("a");
        assert_eq!(
            (a.allocs, a.bytes, a.at_peak, a.peak),
            (2.0, 300.0, 200.0, 200.0)
        );
        assert_eq!((a.leaked_bytes, a.leaked_blocks), (200.0, 1.0));
        // Lifetimes: 20 ns (freed) and 60 ns (to the end): 40 on average.
        assert_eq!(a.mean_lifetime_ns, 40.0);
        let b = row("b");
        assert_eq!(
            (b.allocs, b.bytes, b.at_peak, b.leaked_bytes),
            (1.0, 50.0, 50.0, 50.0)
        );
        assert!(a.own && a.sites.len() == 1);
        assert_eq!(p.totals.peak_bytes, 250);
        assert!(p.totals.exact);
        assert_eq!(p.timeline.series.len(), 2);
        assert_eq!(p.timeline.total.last().copied(), Some(250.0));
    }

    #[test]
    fn library_templates_are_told_from_program_code() {
        assert!(is_library_template(
            "_ZNSt6vectorIiSaIiEE14_M_fill_assignEmRKi"
        ));
        assert!(is_library_template("std::make_unique<LennardJones>()"));
        assert!(!is_library_template("System::rebuild()"));
        assert!(!is_library_template("main"));
    }
}
