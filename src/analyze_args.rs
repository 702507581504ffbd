//! The arguments of `blame analyze`: parsed by `blame` (its help, its
//! errors) and again by `blame-analyzer`, which runs it.

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct AnalyzeArgs {
    /// LLVM bitcode or textual IR files (clang -g -O0 -emit-llvm).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Static db to create or update [default: $BLAME_DB, else .blame/static.db].
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Print the summaries of the inputs (format: json).
    #[arg(long, value_name = "FORMAT")]
    pub dump: Option<String>,
    /// Print analysis statistics to stderr: functions/s, stage times, the
    /// summed and mean per-function analysis time, the 5 slowest functions.
    #[arg(long)]
    pub stats: bool,
}
