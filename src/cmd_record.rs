//! `blame record [-e EV] [-F HZ|-c N] [--call-graph hybrid|dwarf|fp] [-o DIR] -- CMD`
//! and `blame record --pid PID [--duration S]`.

use crate::failure::Failure;
use anyhow::Result;
use blame_sampler::{record, CallGraph, RecordOptions, SamplerKind, Target};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("target").required(true).args(["pid", "command"])))]
pub struct RecordArgs {
    /// Events to sample, comma-separated (cycles, cpu-clock, cache-misses,
    /// L1-dcache-load-misses, rNNNN...). Default: cycles, or cpu-clock
    /// where the machine has no PMU.
    #[arg(short = 'e', long = "event")]
    pub events: Option<String>,
    /// Samples per second (per thread).
    #[arg(short = 'F', long = "freq", conflicts_with = "period")]
    pub frequency: Option<u64>,
    /// Sample every N events (nanoseconds for cpu-clock/task-clock).
    #[arg(short = 'c', long = "count")]
    pub period: Option<u64>,
    /// How stacks are walked: hybrid (the kernel's frame-pointer callchain
    /// plus a 2 KiB stack copy unwound from DWARF for frames without frame
    /// pointers; programs built by `blame cc` keep them), dwarf (copy 8 KiB of
    /// user stack, unwind while recording, as `perf --call-graph dwarf`) or fp.
    #[arg(long = "call-graph", default_value = "hybrid")]
    pub call_graph: CallGraph,
    /// Run directory to write (one sample stream per process, and a manifest).
    #[arg(short = 'o', long = "output", default_value = blame_formats::run_dir::DEFAULT_RUN_DIR)]
    pub output: PathBuf,
    /// Keep kernel frames on top of user stacks.
    #[arg(long)]
    pub kernel: bool,
    /// perf (perf_event), ptrace, or auto (perf_event, ptrace when refused).
    #[arg(long, default_value = "auto", value_parser = ["auto", "perf", "ptrace"])]
    pub sampler: String,
    /// Bytes of user stack copied per sample for DWARF unwinding (default
    /// 2048 with hybrid, 8192 with dwarf).
    #[arg(long)]
    pub stack_size: Option<u32>,
    /// Attach to a running process (and its threads) instead of launching a command.
    #[arg(short = 'p', long, conflicts_with = "command")]
    pub pid: Option<u32>,
    /// With --pid: stop after this many seconds.
    #[arg(long, requires = "pid", conflicts_with = "command")]
    pub duration: Option<f64>,
    /// Replace an earlier recording in the output directory.
    #[arg(short = 'f', long)]
    pub force: bool,
    /// Record each sample's data address (as `perf record -d`): the faulting
    /// address of page-faults, the accessed address of precise memory events.
    #[arg(short = 'd', long = "data")]
    pub data_addresses: bool,
    /// Log heap allocations with their call stacks (LD_PRELOAD tracer) for
    /// direct data-centric attribution of samples that carry data addresses.
    #[arg(long)]
    pub track_allocations: bool,
    /// Write one sample stream file per process image (`rank-N.bstream`,
    /// `pid-N.bstream`), the layout of blame before node files; by default
    /// a recorder writes one node file holding every process it follows.
    #[arg(long)]
    pub per_process_files: bool,
    /// The command to record, after `--` (or --pid).
    #[arg(last = true)]
    pub command: Vec<String>,
}

fn usage(text: &str) -> Failure {
    Failure::usage(text)
}

/// The exit status of `blame record`, as perf's: the recorded command's
/// (128+N when a signal N killed it), 127 when it was not found, 126 when it
/// could not be executed, 1 when recording failed, 2 for a usage error.
pub fn run(args: RecordArgs) -> Result<ExitCode, Failure> {
    let duration = match args.duration {
        Some(s) if !(s.is_finite() && s > 0.0 && s < 1e9) => {
            return Err(usage(&format!(
                "--duration {s}: give a positive number of seconds"
            )))
        }
        s => s.map(Duration::from_secs_f64),
    };
    // clap lets exactly one of --pid and a command through.
    let target = match args.pid {
        Some(pid) => Target::Pid { pid, duration },
        None => Target::Command(args.command.clone()),
    };
    if let Target::Command(command) = &target {
        // The recorder's own options as typed, for the suggested command.
        let argv: Vec<String> = std::env::args().collect();
        let start = argv.iter().position(|a| a == "record").map_or(0, |i| i + 1);
        let end = argv.iter().position(|a| a == "--").unwrap_or(argv.len());
        let own = argv.get(start..end).unwrap_or_default();
        if let Some(msg) = blame_sampler::slurm::srun_refusal(command, own) {
            return Err(usage(&msg));
        }
    }
    // Hybrid's copy by what runs: a program's own leaves, or MPI's
    // progress engine (`stack_copy`).
    let stack_size = args
        .stack_size
        .unwrap_or_else(|| match (args.call_graph, &target) {
            (CallGraph::Hybrid, Target::Command(command)) => {
                blame_sampler::stack_copy::hybrid_default(command)
            }
            (call_graph, _) => call_graph.default_stack_size().max(1024),
        });
    if !(256..=65528).contains(&stack_size) || !stack_size.is_multiple_of(8) {
        return Err(usage(
            "--stack-size must be a multiple of 8 between 256 and 65528",
        ));
    }
    let opts = RecordOptions {
        target,
        output: args.output.clone(),
        events: args.events.clone(),
        frequency: args.frequency,
        period: args.period,
        call_graph: args.call_graph,
        kernel: args.kernel,
        sampler: match args.sampler.as_str() {
            "perf" => SamplerKind::Perf,
            "ptrace" => SamplerKind::Ptrace,
            _ => SamplerKind::Auto,
        },
        stack_size,
        force: args.force,
        track_allocations: args.track_allocations,
        data_addresses: args.data_addresses,
        per_process_files: args.per_process_files,
    };
    // A recording that fails leaves no directory it made.
    let made = std::fs::symlink_metadata(&opts.output).is_err();
    let recorded = record(&opts);
    if recorded.is_err() && made {
        let _ = std::fs::remove_dir_all(&opts.output);
    }
    let summary = match recorded {
        Ok(s) => s,
        Err(e) => match e.shell_status() {
            Some(status) => {
                eprintln!("blame record: {e}");
                return Ok(ExitCode::from(status));
            }
            None => return Err(e.into()),
        },
    };
    let m = &summary.manifest;
    let app: Vec<_> = m.processes.iter().filter(|p| !p.launcher).collect();
    let files: std::collections::BTreeSet<&str> =
        m.processes.iter().map(|p| p.file.as_str()).collect();
    let stored = match (files.len(), files.first()) {
        (1, Some(f)) if m.processes.len() > 1 => format!(" in one file ({f})"),
        (1, Some(f)) => format!(" in {f}"),
        (n, _) => format!(" in {n} files"),
    };
    eprintln!(
        "[ blame record: {} samples ({} lost) of {} process image(s) ({} application, {} launcher){stored} with {} ({}), manifest {} ]",
        m.samples,
        m.lost,
        m.processes.len(),
        app.len(),
        m.processes.len() - app.len(),
        m.sampler,
        m.call_graph,
        summary.manifest_path.display()
    );
    let status = match (m.exit_status, m.signal) {
        (Some(0), _) | (None, None) => 0,
        (Some(code), _) => {
            eprintln!("blame record: the command exited with status {code}");
            code.clamp(0, 255) as u8
        }
        (None, Some(sig)) => {
            eprintln!("blame record: the command was killed by signal {sig}");
            (128 + sig).clamp(0, 255) as u8
        }
    };
    if summary.write_errors > 0 {
        eprintln!(
            "blame record: the recording is incomplete: {} writes failed (see above)",
            summary.write_errors
        );
        if status == 0 {
            return Ok(ExitCode::FAILURE);
        }
    }
    Ok(ExitCode::from(status))
}
