//! Stream writer throughput and size on a realistic mix (issue 2's target:
//! at least 1,000,000 samples/s into a file on one core, fewer than 16 bytes
//! per sample on disk), plus the reader's throughput on the same file.
//!
//! `cargo bench -p blame-formats --bench stream_writer`
//! (`-- --samples N --stacks N --depth N --threads N --runs N` to vary the mix)

use blame_formats::stream::{
    read_stream, EventDesc, Mapping, Sampling, StreamHeader, StreamReader, StreamWriter,
};
use std::time::{Duration, Instant};

struct Mix {
    samples: usize,
    stacks: usize,
    depth: usize,
    threads: u32,
    runs: usize,
}

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `n` distinct stacks of `depth` x86-64 addresses, innermost first: the
/// outer frames (main, drivers) are shared, the inner ones are spread over
/// the program text and libc/libm, as unwinding a real HPC code gives.
fn make_stacks(n: usize, depth: usize, rng: &mut Rng) -> Vec<Vec<u64>> {
    let exe = 0x5555_5555_4000u64;
    let libs = [0x7f3a_2c00_0000u64, 0x7f3a_2d40_0000, 0x7f3a_2e00_0000];
    let mut out: Vec<Vec<u64>> = Vec::with_capacity(n);
    let mut seen = std::collections::HashSet::new();
    while out.len() < n {
        let mut frames = Vec::with_capacity(depth);
        for level in 0..depth {
            let outer = depth - 1 - level; // 0 = main
                                           // Few call sites near main, many near the leaves.
            let sites = 1 + (outer as u64).pow(2).min(60);
            let site = rng.below(sites);
            let addr = if level == 0 && rng.below(4) == 0 {
                libs[rng.below(3) as usize] + rng.below(0x1_0000) // sampled in a library
            } else {
                exe + 0x1000 + (outer as u64) * 0x2_3000 + site * 0x61 + 0x1b
            };
            frames.push(addr);
        }
        if seen.insert(frames.clone()) {
            out.push(frames);
        }
    }
    out
}

fn header(threads: u32) -> StreamHeader {
    StreamHeader {
        host: "node17".into(),
        command: vec!["./solver".into(), "in.txt".into()],
        pid: 31337,
        ppid: 31300,
        rank: Some(0),
        world_size: Some(4),
        events: vec![EventDesc {
            name: "cpu-clock".into(),
            sampling: Sampling::Frequency(4000),
            unit: "ns".into(),
            memory: false,
        }],
        call_graph: "dwarf".into(),
        start_time_ns: 1_700_000_000_000_000_000,
        extra: vec![("threads".into(), threads.to_string())],
    }
}

/// The sample sequence: (tid, time, stack index), with a skewed stack choice
/// (a few hot loops take most samples) and increasing timestamps.
fn make_samples(mix: &Mix, rng: &mut Rng) -> Vec<(u32, u64, usize)> {
    let mut time = 12_345_678_900_000u64; // CLOCK_MONOTONIC-like
    (0..mix.samples)
        .map(|_| {
            // 4 kHz per thread: threads interleave, 250 us +- jitter apart.
            time += 250_000 / mix.threads as u64 + rng.below(2_000);
            let tid = 31337 + rng.below(mix.threads as u64) as u32;
            let r = rng.below(1 << 20) as f64 / (1 << 20) as f64;
            let stack = ((r * r * r) * mix.stacks as f64) as usize; // skewed
            (tid, time, stack.min(mix.stacks - 1))
        })
        .collect()
}

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let mix = Mix {
        samples: arg("--samples", 200_000),
        stacks: arg("--stacks", 1_000),
        depth: arg("--depth", 20),
        threads: arg("--threads", 4) as u32,
        runs: arg("--runs", 7),
    };
    let mut rng = Rng(0x5eed);
    let stacks = make_stacks(mix.stacks, mix.depth, &mut rng);
    let samples = make_samples(&mix, &mut rng);
    let dir = tempfile::tempdir().expect("tempdir");
    let header = header(mix.threads);

    let mut write_times = Vec::new();
    let mut read_times = Vec::new();
    let mut parse_times = Vec::new();
    let mut size = 0u64;
    let mut nodes = 0;
    for run in 0..mix.runs {
        let path = dir.path().join(format!("run{run}.bstream"));
        let start = Instant::now();
        let mut w = StreamWriter::create(&path, &header).expect("create");
        w.write_mapping(Mapping {
            pid: 31337,
            start: 0x5555_5555_4000,
            end: 0x5555_5580_0000,
            file_offset: 0,
            path: "/home/user/solver".into(),
            build_id: vec![0xab; 20],
        })
        .expect("mapping");
        for &(tid, time, stack) in &samples {
            w.write_sample_with_stack(tid, time, 0, 250_000, &stacks[stack], None)
                .expect("sample");
        }
        w.finish().expect("finish");
        write_times.push(start.elapsed());
        size = std::fs::metadata(&path).expect("stat").len();

        // Reader: the full read (stack table resolved, records collected)...
        let start = Instant::now();
        let s = read_stream(&path).expect("read");
        read_times.push(start.elapsed());
        assert_eq!(s.samples.len(), mix.samples);
        nodes = s.stacks.len() - 1;
        // ...and the record-by-record iterator alone.
        let start = Instant::now();
        let (mut r, _) = StreamReader::open(&path).expect("open");
        let mut n = 0u64;
        while let Some(_rec) = r.next_record().expect("record") {
            n += 1;
        }
        parse_times.push(start.elapsed());
        assert!(n >= mix.samples as u64);
        std::fs::remove_file(&path).ok();
    }
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let per_s = |d: Duration| mix.samples as f64 / d.as_secs_f64();
    let (w_med, w_best) = (median(&mut write_times), write_times[0]);
    let (r_med, p_med) = (median(&mut read_times), median(&mut parse_times));
    println!(
        "mix: {} samples, {} distinct stacks of depth {} ({} table nodes), {} threads, {} runs",
        mix.samples, mix.stacks, mix.depth, nodes, mix.threads, mix.runs
    );
    println!(
        "write: {:.0} samples/s median ({:.0} best), {:.1} ms median",
        per_s(w_med),
        per_s(w_best),
        w_med.as_secs_f64() * 1e3
    );
    println!(
        "size:  {} bytes on disk, {:.2} bytes/sample",
        size,
        size as f64 / mix.samples as f64
    );
    println!(
        "read:  {:.0} samples/s median (read_stream, stacks resolved); {:.0} records/s iterator",
        per_s(r_med),
        per_s(p_med)
    );
    let ok = per_s(w_med) >= 1e6 && (size as f64 / mix.samples as f64) < 16.0;
    println!(
        "target (>= 1,000,000 samples/s, < 16 bytes/sample): {}",
        if ok { "met" } else { "NOT met" }
    );
}
