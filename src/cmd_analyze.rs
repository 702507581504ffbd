//! `blame analyze FILE.bc|FILE.ll... -o DB [--dump json]`: the static pass
//! alone (run in `blame-analyzer`, the executable that loads LLVM).

use anyhow::{bail, Result};

use crate::analyze_args::AnalyzeArgs;

pub fn run(args: AnalyzeArgs) -> Result<()> {
    if let Some(f) = args.dump.as_deref() {
        if f != "json" {
            bail!("unknown dump format {f:?} (expected json)");
        }
    }
    let progress = crate::progress::Progress::spinner("analyze");
    let output = args
        .output
        .unwrap_or_else(blame_formats::static_db::default_path);
    let up = blame_static::analyze_into_db(&args.inputs, &output);
    progress.finish();
    let up = up?;
    for name in &up.without_functions {
        eprintln!("blame: note: {name} defines no functions; nothing to analyze in it");
    }
    if up.functions_without_lines > 0 {
        eprintln!(
            "blame: warning: {} function(s) have no debug line information (compile with -g): \
             their blame is reported by function only",
            up.functions_without_lines
        );
    }
    for unit in &up.unreadable_units {
        eprintln!(
            "blame: warning: not analyzed again (its kept IR is unreadable; build it again to \
             update its summaries): {unit}"
        );
    }
    if args.stats {
        print_stats(&up);
    }
    if args.dump.is_some() {
        println!(
            "{}",
            serde_json::to_string_pretty(&blame_static::dump_json(&up.db))?
        );
    }
    Ok(())
}

fn print_stats(up: &blame_static::DbUpdate) {
    let secs = |d: std::time::Duration| d.as_secs_f64();
    let total = secs(up.elapsed).max(1e-9);
    let functions = up.analyzed + up.reused;
    eprintln!(
        "analyzed {} functions ({} reused) in {:.3} s: {:.0} functions/s",
        up.analyzed,
        up.reused,
        total,
        functions as f64 / total
    );
    if up.reanalyzed_units > 0 {
        eprintln!(
            "units of earlier builds analyzed again from their kept IR (functions they call \
             here changed their write or read sets): {}",
            up.reanalyzed_units
        );
    }
    let summed: std::time::Duration = up.timings.iter().map(|(_, t)| *t).sum();
    eprintln!(
        "stages: load IR {:.3} s, analysis {:.3} s ({} threads), db {:.3} s; \
         per-function analysis time summed {:.3} s, mean {:.3} ms",
        secs(up.load_time),
        secs(up.analysis_time),
        up.threads,
        secs(up.db_time),
        secs(summed),
        secs(summed) * 1e3 / up.analyzed.max(1) as f64
    );
    for (i, (name, t)) in up.timings.iter().take(5).enumerate() {
        eprintln!(
            "{} {:10.3} ms  {}",
            if i == 0 { "slowest:" } else { "        " },
            secs(*t) * 1e3,
            blame_static::demangle(name)
        );
    }
}
