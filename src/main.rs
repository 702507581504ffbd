//! The `blame` command. It only parses arguments and calls the library
//! crates; each subcommand lives in its own `cmd_*.rs` module.
//!
//! Exit codes: 0 success, 1 failure, 2 usage error (as perf).

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "blame", version, about = "Variable-blame sampling profiler: which variables your time and cache misses are spent on")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a blame file (sample stream, static db or results) and print what it holds.
    Check(cmd_check::CheckArgs),
}

mod cmd_check;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(args) => cmd_check::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("blame: error: {e:#}");
            ExitCode::from(1)
        }
    }
}
