//! `blame analyze FILE.bc|FILE.ll... -o DB [--dump json]`: the static pass alone.

use anyhow::{bail, Result};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct AnalyzeArgs {
    /// LLVM bitcode or textual IR files (clang -g -O0 -emit-llvm).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Static db to create or update.
    #[arg(short, long, default_value = ".blame/static.db")]
    pub output: PathBuf,
    /// Print the summaries of the inputs (format: json).
    #[arg(long, value_name = "FORMAT")]
    pub dump: Option<String>,
    /// Print analysis statistics (functions/s, slowest function) to stderr.
    #[arg(long)]
    pub stats: bool,
}

pub fn run(args: AnalyzeArgs) -> Result<()> {
    if let Some(f) = args.dump.as_deref() {
        if f != "json" {
            bail!("unknown dump format {f:?} (expected json)");
        }
    }
    let up = blame_static::analyze_into_db(&args.inputs, &args.output)?;
    if up.functions_without_lines > 0 {
        eprintln!(
            "blame: warning: {} function(s) have no debug line information (compile with -g): \
             their blame is reported by function only",
            up.functions_without_lines
        );
    }
    if args.stats {
        let secs = up.elapsed.as_secs_f64().max(1e-9);
        eprintln!(
            "analyzed {} functions ({} reused) in {:.3} s: {:.0} functions/s",
            up.analyzed,
            up.reused,
            secs,
            (up.analyzed + up.reused) as f64 / secs
        );
        if let Some((name, t)) = &up.slowest {
            eprintln!(
                "slowest: {} ({:.3} ms)",
                blame_static::demangle(name),
                t.as_secs_f64() * 1e3
            );
        }
    }
    if args.dump.is_some() {
        println!(
            "{}",
            serde_json::to_string_pretty(&blame_static::dump_json(&up.db))?
        );
    }
    Ok(())
}
