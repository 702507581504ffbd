//! The `blame` command. It only parses arguments and calls the library
//! crates; each subcommand lives in its own `cmd_*.rs` module.
//!
//! Exit codes: 0 success, 1 failure, 2 usage error (as perf); `blame record`
//! exits with its command's status (128+N for signal N, 127 when the command
//! is not found, 126 when it cannot be executed), `blame cc` with the
//! compiler's.

#![forbid(unsafe_code)]
use clap::{Parser, Subcommand};
use failure::Failure;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "blame",
    version,
    about = "Variable-blame sampling profiler: which variables your time and cache misses are spent on"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Sample a command (and all its processes and threads) or a running pid into a run directory.
    #[command(after_help = EXAMPLES_RECORD)]
    Record(cmd_record::RecordArgs),
    /// Check a blame file (sample stream, static db or results) and print what it holds.
    #[command(after_help = EXAMPLES_CHECK)]
    Check(cmd_check::CheckArgs),
    /// Resolve recorded (or JSON-lines) samples to variable blame; shards with --shard I/N.
    #[command(after_help = EXAMPLES_POST)]
    Post(cmd_post::PostArgs),
    /// Reduce the partial results of `blame post --shard` runs.
    #[command(after_help = EXAMPLES_MERGE)]
    Merge(cmd_post::MergeArgs),
    /// Show blame: --by-variable (default), --by-function, --blame-points, --variable PATH.
    #[command(after_help = EXAMPLES_REPORT)]
    Report(cmd_post::ReportArgs),
    /// Print a recording as JSON-lines samples with symbolic frames.
    #[command(after_help = EXAMPLES_DUMP)]
    Dump(cmd_post::DumpArgs),
    /// Write an HTML report or a speedscope/firefox/pprof/folded/svg/hatchet/thicket/cubex/csv export (several runs: a Thicket ensemble or a directory of Cube files).
    #[command(after_help = EXAMPLES_EXPORT)]
    Export(cmd_export::ExportArgs),
    /// Compare two runs by variable: blame in each, the change in samples and share, largest first.
    #[command(after_help = EXAMPLES_DIFF)]
    Diff(cmd_across::DiffArgs),
    /// Per-variable scaling models over runs that differ in ranks or --param values, fitted by Extra-P.
    #[command(after_help = EXAMPLES_SCALING)]
    Scaling(cmd_across::ScalingArgs),
    /// Static pass: analyze LLVM bitcode/IR into a static db (--dump json to inspect).
    #[command(after_help = EXAMPLES_ANALYZE)]
    Analyze(analyze_args::AnalyzeArgs),
    /// Compiler launcher: compile unchanged, then add the unit's blame summaries to the static db.
    #[command(after_help = EXAMPLES_CC)]
    Cc(cmd_cc::CcArgs),
    /// Always-on, low-rate profiling of every job on this node (run as root), and its control commands.
    #[command(after_help = EXAMPLES_DAEMON)]
    Daemon(cmd_daemon::DaemonArgs),
}

// Two or three real command lines at the end of each command's --help.
const EXAMPLES_RECORD: &str = "Examples:\n  blame record -- ./app in.txt                      # sample ./app and its threads into blame.run\n  blame record -F 999 -o run -- mpirun -np 4 ./app  # every rank at 999 Hz, into run/\n  blame record -p 1234 --duration 10 -o attached    # a running process, for 10 s";
const EXAMPLES_CHECK: &str = "Examples:\n  blame check                    # blame.run: each sample file and the results\n  blame check run/node-vm.bnode  # one node file and its sections\n  blame check .blame/static.db   # a static db";
const EXAMPLES_POST: &str = "Examples:\n  blame post                                      # blame.run, with the static db its program was built with\n  blame post run --static build/.blame/static.db  # with a db named\n  srun -n 4 blame post run                        # sharded over a job step's tasks; the last merges";
const EXAMPLES_MERGE: &str = "Examples:\n  blame merge run                                    # after `blame post run --shard I/N` for every I\n  blame merge run --sum-contexts -o run/summed.bres  # the root of a hierarchical merge";
const EXAMPLES_REPORT: &str = "Examples:\n  blame report                                        # variables of blame.run, by explicit blame\n  blame report run --by-function --top 10             # the code-centric view\n  blame report run --variable main::grid -o grid.txt  # one variable's calling contexts and lines";
const EXAMPLES_DUMP: &str = "Examples:\n  blame dump | head                              # the samples of blame.run as JSON lines\n  blame dump run/node-vm.bnode -o samples.jsonl  # one node file, into a file";
const EXAMPLES_EXPORT: &str = "Examples:\n  blame export --format html -o report.html                   # the interactive report of blame.run\n  blame export run --format svg --tree data -o variables.svg  # a flame graph of the data tree\n  blame export run --format csv --tree data -o variables.csv  # the variables table (--tree code: functions)";
const EXAMPLES_DIFF: &str = "Examples:\n  blame diff run-a run-b                                           # blame per variable in two runs, largest change first\n  blame diff old new --static-b new.db --format html -o diff.html  # two builds, as a page";
const EXAMPLES_SCALING: &str = "Examples:\n  blame scaling run-p1 run-p2 run-p4 run-p8 run-p16             # against the ranks of each run\n  blame scaling run1 run2 run4 run8 run16 --param n=1,2,4,8,16  # against an input parameter";
const EXAMPLES_ANALYZE: &str = "Examples:\n  blame analyze solver.ll -o static.db  # IR made by clang-19 -g -O0 -emit-llvm\n  blame analyze solver.bc --dump json   # print the summaries";
const EXAMPLES_CC: &str = "Examples:\n  blame cc -- mpicc -g -O2 -c solver.c -o solver.o  # compile, and queue the unit's analysis\n  blame cc -- mpicc -g solver.o -o solver -lm       # link (registers the db under the binary's build-id)\n  blame cc --wait                                   # wait for the analysis; fails when it cannot run";
const EXAMPLES_DAEMON: &str = "Examples:\n  blame daemon run --config /etc/blame/daemon.toml  # as root, in the foreground\n  blame daemon status                               # its jobs, samples and disk use\n  blame daemon job-end $SLURM_JOB_ID                # from a Slurm Epilog";

use blame_cli::{analyze_args, error_text, progress};
mod analyzer;
mod cmd_across;
mod cmd_cc;
mod cmd_check;
mod cmd_daemon;
mod cmd_export;
mod cmd_post;
mod cmd_record;
mod failure;
mod post_config;

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(e) = become_run_owner(&cli.command) {
        eprintln!("blame: error: {e}");
        return ExitCode::from(1);
    }
    if matches!(
        cli.command,
        Command::Post(_) | Command::Merge(_) | Command::Report(_) | Command::Export(_)
    ) {
        remove_temporaries_on_signals();
    }
    let result: Result<(), Failure> = match cli.command {
        Command::Record(args) => match cmd_record::run(args) {
            Ok(status) => return status,
            Err(e) => Err(e),
        },
        Command::Check(args) => cmd_check::run(args).map_err(Failure::from),
        Command::Post(args) => cmd_post::run_post(args).map_err(Failure::from),
        Command::Merge(args) => cmd_post::run_merge(args).map_err(Failure::from),
        Command::Report(args) => cmd_post::run_report(args).map_err(Failure::from),
        Command::Dump(args) => cmd_post::run_dump(args).map_err(Failure::from),
        Command::Export(args) => cmd_export::run(args).map_err(Failure::from),
        Command::Diff(args) => cmd_across::run_diff(args).map_err(Failure::from),
        Command::Scaling(args) => cmd_across::run_scaling(args),
        Command::Analyze(_) => return analyzer::run_analyze(),
        Command::Cc(args) => return cmd_cc::run(args),
        Command::Daemon(args) => cmd_daemon::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // `blame dump run | head`: a closed pipe is not an error.
        Err(f)
            if f.error().chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            ExitCode::SUCCESS
        }
        Err(f) => {
            eprintln!("blame: error: {}", error_text(f.error()));
            ExitCode::from(f.exit_status())
        }
    }
}

pub(crate) use error_text::error_text;

/// On SIGINT or SIGTERM, the temporary files of the outputs being written
/// are removed, then the process dies of the signal (exit 130 or 143 in a
/// shell), as `blame cc` does; the outputs stay as they were.
fn remove_temporaries_on_signals() {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            blame_formats::files::remove_live_temporaries();
            let _ = signal_hook::low_level::emulate_default_handler(sig);
            std::process::exit(128 + sig);
        }
    });
}

/// Root on another user's run directory works with that user's rights
/// (`files::become_owner_of`): before anything is read, and before any
/// thread starts.
fn become_run_owner(command: &Command) -> std::io::Result<()> {
    let dirs: Vec<&std::path::Path> = match command {
        Command::Post(a) => a.run_dirs(),
        Command::Report(a) => a.run_dirs(),
        Command::Dump(a) => a.run_dirs(),
        Command::Merge(a) => a.run_dirs(),
        Command::Export(a) => a.run_dirs(),
        _ => Vec::new(),
    };
    blame_formats::files::become_owner_of(&dirs).map(drop)
}

#[cfg(test)]
mod tests {
    /// Every command's --help ends with two or three real command lines.
    #[test]
    fn every_help_ends_with_examples() {
        use clap::CommandFactory;
        let mut cli = super::Cli::command();
        cli.build();
        // Every command, nested ones (`daemon run`) too.
        let mut commands: Vec<(String, clap::Command)> = Vec::new();
        for sub in cli.get_subcommands().filter(|s| s.get_name() != "help") {
            commands.push((sub.get_name().to_string(), sub.clone()));
            for nested in sub.get_subcommands().filter(|s| s.get_name() != "help") {
                let name = format!("{} {}", sub.get_name(), nested.get_name());
                commands.push((name, nested.clone()));
            }
        }
        for (name, mut sub) in commands {
            let help = sub.render_help().to_string();
            let (_, examples) = help
                .rsplit_once("Examples:\n")
                .unwrap_or_else(|| panic!("blame {name} --help has no examples:\n{help}"));
            let lines: Vec<&str> = examples.lines().filter(|l| !l.trim().is_empty()).collect();
            assert!((2..=3).contains(&lines.len()), "blame {name}: {lines:?}");
            for l in lines {
                assert!(
                    l.trim_start().starts_with("blame ") || l.trim_start().starts_with("srun "),
                    "blame {name}: {l}"
                );
                assert!(l.contains(&format!("blame {name}")), "blame {name}: {l}");
            }
        }
    }

    #[test]
    fn a_cause_already_in_the_message_is_not_repeated() {
        let io = std::io::Error::from_raw_os_error(2);
        let e = anyhow::Error::new(io).context("/x: No such file or directory (os error 2)");
        assert_eq!(
            super::error_text(&e),
            "/x: No such file or directory (os error 2)"
        );
        let e = anyhow::Error::new(std::io::Error::from_raw_os_error(13)).context("cannot open /y");
        assert_eq!(
            super::error_text(&e),
            "cannot open /y: Permission denied (os error 13)"
        );
    }
}
