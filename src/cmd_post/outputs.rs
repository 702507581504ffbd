//! Where a command's output goes: refused when it is one of the command's
//! inputs; text written atomically to a file, else to stdout.

use crate::post_config::PostConfig;
use anyhow::{Context, Result};
use blame_formats::run_dir;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Refuses an output that is one of the command's inputs: a file of the
/// run (its results too, when `results_are_inputs`: export reads them), the
/// static db, the samples or perf.data files.
pub(crate) fn refuse_destroying_inputs(
    output: &Path,
    config: &PostConfig,
    results_are_inputs: bool,
) -> Result<()> {
    let mut inputs: Vec<PathBuf> = Vec::new();
    match &config.input {
        crate::post_config::Input::RunDir(dir) => {
            let results = run_dir::results_files(dir).unwrap_or_default();
            if let Ok(entries) = std::fs::read_dir(dir) {
                inputs.extend(
                    entries
                        .filter_map(|e| e.ok().map(|e| e.path()))
                        .filter(|p| results_are_inputs || !results.contains(p)),
                );
            }
        }
        crate::post_config::Input::Samples(s) => inputs.push(s.clone()),
        crate::post_config::Input::PerfData(files) => inputs.extend(files.iter().cloned()),
    }
    inputs.extend(config.static_db());
    blame_formats::files::refuse_overwriting_inputs(output, &inputs)?;
    Ok(())
}

/// `text` to the file `output` (atomically, said on stderr), else to stdout.
pub(crate) fn emit(text: &str, output: &Option<PathBuf>) -> Result<()> {
    match output {
        Some(p) => {
            blame_formats::files::write_atomic(p, text.as_bytes())
                .with_context(|| format!("cannot write {}", p.display()))?;
            eprintln!("blame: wrote {} ({} bytes)", p.display(), text.len());
            Ok(())
        }
        None => Ok(std::io::stdout().write_all(text.as_bytes())?),
    }
}
