//! Where `blame cc` sits between the compiler and the static analysis: the
//! bitcode-capture pass plugin (blame_capture.cpp, built into this crate by
//! build.rs and embedded) that `blame cc` loads into clang 19 with
//! `-fpass-plugin=`: the compile writes the unit's unoptimized bitcode to
//! `$BLAME_CAPTURE_BITCODE` at the start of its optimization pipeline and
//! builds the very object it builds without the plugin. One front end
//! serves both the object and the analysis.

#![forbid(unsafe_code)]
use std::io::Write;
use std::path::{Path, PathBuf};

const PLUGIN: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libblame_capture.so"));

/// The environment variable naming the file the plugin writes.
pub const BITCODE_VAR: &str = "BLAME_CAPTURE_BITCODE";

/// The plugin installed in `dir` (a private directory: the queue's), named
/// by its content so a new blame never loads an old plugin; written once.
pub fn install(dir: &Path) -> std::io::Result<PathBuf> {
    let hash = twox_hash::XxHash64::oneshot(0, PLUGIN);
    let so = dir.join(format!("capture-{hash:016x}.so"));
    if std::fs::metadata(&so).is_ok_and(|m| m.len() == PLUGIN.len() as u64) {
        return Ok(so);
    }
    let mut f = blame_formats::files::AtomicFile::with_mode(&so, 0o755)?;
    f.write_all(PLUGIN)?;
    f.commit()?;
    Ok(so)
}
