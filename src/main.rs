//! The `blame` command. It only parses arguments and calls the library
//! crates; each subcommand lives in its own `cmd_*.rs` module.
//!
//! Exit codes: 0 success, 1 failure, 2 usage error (as perf); `blame record`
//! exits with its command's status (128+N for signal N, 127 when the command
//! is not found, 126 when it cannot be executed), `blame cc` with the
//! compiler's.

#![forbid(unsafe_code)]
use clap::{Parser, Subcommand};
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
    Record(cmd_record::RecordArgs),
    /// Check a blame file (sample stream, static db or results) and print what it holds.
    Check(cmd_check::CheckArgs),
    /// Resolve recorded (or JSON-lines) samples to variable blame; shards with --shard I/N.
    Post(cmd_post::PostArgs),
    /// Reduce the partial results of `blame post --shard` runs.
    Merge(cmd_post::MergeArgs),
    /// Show blame: --by-variable (default), --by-function, --blame-points, --variable PATH.
    Report(cmd_post::ReportArgs),
    /// Print a recording as JSON-lines samples with symbolic frames.
    Dump(cmd_post::DumpArgs),
    /// Write an HTML report or a speedscope/firefox/pprof/folded/svg/hatchet/thicket/cubex/csv export (several runs: a Thicket ensemble or a directory of Cube files).
    Export(cmd_export::ExportArgs),
    /// Compare two runs by variable: blame in each, the change in samples and share, largest first.
    Diff(cmd_across::DiffArgs),
    /// Per-variable scaling models over runs that differ in ranks or --param values, fitted by Extra-P.
    Scaling(cmd_across::ScalingArgs),
    /// Static pass: analyze LLVM bitcode/IR into a static db (--dump json to inspect).
    Analyze(analyze_args::AnalyzeArgs),
    /// Compiler launcher: compile unchanged, then add the unit's blame summaries to the static db.
    Cc(cmd_cc::CcArgs),
    /// Always-on, low-rate profiling of every job on this node (run as root), and its control commands.
    Daemon(cmd_daemon::DaemonArgs),
}

mod analyze_args;
mod analyzer;
mod cmd_across;
mod cmd_cc;
mod cmd_check;
mod cmd_daemon;
mod cmd_export;
mod cmd_post;
mod cmd_record;
mod error_text;
mod post_config;
mod progress;

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
    let result = match cli.command {
        Command::Record(args) => match cmd_record::run(args) {
            Ok(status) => return status,
            Err(e) => Err(e),
        },
        Command::Check(args) => cmd_check::run(args),
        Command::Post(args) => cmd_post::run_post(args),
        Command::Merge(args) => cmd_post::run_merge(args),
        Command::Report(args) => cmd_post::run_report(args),
        Command::Dump(args) => cmd_post::run_dump(args),
        Command::Export(args) => cmd_export::run(args),
        Command::Diff(args) => cmd_across::run_diff(args),
        Command::Scaling(args) => cmd_across::run_scaling(args),
        Command::Analyze(_) => return analyzer::run_analyze(),
        Command::Cc(args) => return cmd_cc::run(args),
        Command::Daemon(args) => cmd_daemon::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // `blame dump run | head`: a closed pipe is not an error.
        Err(e)
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("blame: error: {}", error_text(&e));
            // Usage errors exit with 2, as perf's.
            let usage = matches!(
                e.downcast_ref::<blame_sampler::RecordError>(),
                Some(blame_sampler::RecordError::Usage(_))
            ) || matches!(
                e.downcast_ref::<blame_daemon::DaemonError>(),
                Some(blame_daemon::DaemonError::Usage(_))
            );
            ExitCode::from(if usage { 2 } else { 1 })
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
