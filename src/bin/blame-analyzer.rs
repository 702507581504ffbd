//! `blame-analyzer`: the part of blame that loads LLVM, in an executable of
//! its own so that `blame` itself starts in a millisecond (it runs once per
//! compile as `blame cc`; loading libLLVM would cost ~20 ms of CPU each
//! time). `blame analyze` and the drain of `blame cc`'s analysis queue run
//! here; `blame` finds this executable beside itself.
//!
//!   blame-analyzer analyze FILE.bc... [-o DB] [--dump json] [--stats]
//!   blame-analyzer drain [--now] DB

#![forbid(unsafe_code)]
use blame_cli::{analyze_args, cmd_analyze, error_text};

use blame_formats::analysis_queue;
use blame_static::queue_drain::{self, Pace};
use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;

/// LLVM's bitcode reader and the analysis allocate many small, short-lived
/// objects (values, address polynomials, location lists): with mimalloc
/// for both (its `override` feature replaces malloc for libLLVM too), a
/// large unit's analysis takes a quarter to a third less CPU than with
/// glibc's malloc, and freed memory goes back to the system.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "blame-analyzer",
    version,
    about = "blame's LLVM half: the static analysis"
)]
enum Cli {
    /// Analyze LLVM bitcode/IR into a static db (what `blame analyze` runs).
    Analyze(analyze_args::AnalyzeArgs),
    /// Analyze the units `blame cc` queued for DB into it.
    Drain {
        /// Somebody waits: all cores, no pausing for the build.
        #[arg(long)]
        now: bool,
        db: PathBuf,
    },
}

fn main() -> ExitCode {
    match Cli::parse() {
        Cli::Analyze(args) => match cmd_analyze::run(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("blame: error: {}", error_text::error_text(&e));
                ExitCode::FAILURE
            }
        },
        Cli::Drain { now, db } => {
            let pace = if now { Pace::Now } else { Pace::Background };
            match analysis_queue::try_lock(&db) {
                // Another drainer runs: it sees every queued unit before it leaves.
                Ok(None) => ExitCode::SUCCESS,
                Ok(Some(lock)) => match queue_drain::drain(&db, lock, pace) {
                    Ok(_) => ExitCode::SUCCESS,
                    Err(e) => {
                        eprintln!(
                            "blame: error: draining the analysis queue of {}: {e}",
                            db.display()
                        );
                        ExitCode::FAILURE
                    }
                },
                Err(e) => {
                    eprintln!("blame: error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}
