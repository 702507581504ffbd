//! `blame dump`: a run's samples as JSON lines with symbolic frames.

use super::diagnostics::{print_damage, print_warnings};
use super::DumpArgs;
use anyhow::{bail, Context, Result};
use blame_formats::jsonl::write_sample;
use blame_post::input::dump::{each_sample, DumpError, DumpOptions};
use std::io::Write;

pub fn run_dump(args: DumpArgs) -> Result<()> {
    // A file appears only once complete (see blame_formats::files); the
    // input is checked first, so a missing run leaves no output behind.
    if !args.input.exists() {
        bail!("{}: no such file or directory", args.input.display());
    }
    let mut file = match &args.output {
        Some(p) => Some(
            blame_formats::files::AtomicFile::create(p)
                .with_context(|| format!("cannot create {}", p.display()))?,
        ),
        None => None,
    };
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let mut out: &mut dyn Write = match &mut file {
        Some(f) => f,
        None => &mut stdout,
    };
    let options = DumpOptions {
        binary_paths: args.binary_paths.clone(),
        strict: args.strict,
    };
    let dumped =
        each_sample(&args.input, &options, |s| write_sample(&mut out, s)).map_err(|e| match e {
            // The write's own error, so that main tells a closed pipe
            // (`blame dump run | head`) from a failure.
            DumpError::Write(io) => anyhow::Error::from(io),
            other => other.into(),
        })?;
    print_warnings(&dumped.warnings);
    print_damage(&dumped.damage, true);
    out.flush()?;
    if let (Some(f), Some(p)) = (file, &args.output) {
        f.commit()
            .with_context(|| format!("cannot write {}", p.display()))?;
    }
    Ok(())
}
