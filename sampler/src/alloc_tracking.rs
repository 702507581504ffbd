//! `blame record --track-allocations`: the LD_PRELOAD allocation tracer
//! (alloc-tracer/blame_alloc.c, built into this crate) is written into the
//! run directory and preloaded into the command and all its descendants,
//! each of which logs its heap blocks with their allocation stacks to
//! `alloc-PID.balloc` beside its sample stream. Post-processing names heap
//! blocks by these logs (direct data-centric attribution).

use std::io::Write;
use std::path::{Path, PathBuf};

const TRACER: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libblame_alloc.so"));

/// Installs the tracer in `dir` and returns the environment that enables it.
pub fn install(dir: &Path) -> std::io::Result<Vec<(String, String)>> {
    let dir = std::fs::canonicalize(dir)?;
    let so: PathBuf = dir.join(".blame_alloc.so");
    let mut f = blame_formats::files::AtomicFile::with_mode(&so, 0o755)?;
    f.write_all(TRACER)?;
    f.commit()?;
    let mut preload = so.to_string_lossy().into_owned();
    if let Ok(existing) = std::env::var("LD_PRELOAD") {
        if !existing.is_empty() {
            preload = format!("{preload}:{existing}");
        }
    }
    Ok(vec![
        ("LD_PRELOAD".into(), preload),
        ("BLAME_ALLOC_DIR".into(), dir.to_string_lossy().into_owned()),
    ])
}
