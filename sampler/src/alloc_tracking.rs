//! `blame record --track-allocations`: the LD_PRELOAD allocation tracer
//! (alloc-tracer/blame_alloc.c, built into this crate) is written into the
//! run directory and preloaded into the command and all its descendants,
//! each of which logs its heap blocks with their allocation stacks to
//! `alloc-PID.balloc` beside its sample stream. Post-processing names heap
//! blocks by these logs (direct data-centric attribution).

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

const TRACER: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libblame_alloc.so"));

/// Installs the tracer in `dir` and returns the environment that enables it.
pub fn install(dir: &Path) -> std::io::Result<Vec<(String, String)>> {
    let dir = std::fs::canonicalize(dir)?;
    let so: PathBuf = dir.join(".blame_alloc.so");
    let tmp = dir.join(format!(".blame_alloc.{}.tmp", std::process::id()));
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o755)
        .open(&tmp)?;
    f.write_all(TRACER)?;
    f.sync_all()?;
    std::fs::rename(&tmp, &so)?;
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
