//! How `blame` runs `blame-analyzer` (the LLVM half, an executable beside
//! this one): `blame analyze`, and the drain of `blame cc`'s queue.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

/// `blame-analyzer` beside the running `blame`.
pub fn path() -> std::io::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let p = exe.with_file_name("blame-analyzer");
    if p.is_file() {
        Ok(p)
    } else {
        Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!(
                "{} is missing: blame runs its static analysis there; install both executables (`cargo install --path .` or `make build`)",
                p.display()
            ),
        ))
    }
}

/// A command running `blame-analyzer`. Its allocator (mimalloc) returns
/// freed memory to the system after 50 ms instead of its default second
/// (`MIMALLOC_PURGE_DELAY`, unless the user set it): loading a large unit
/// frees LLVM's module just before the analysis allocates its graph, and
/// with the default delay both stayed resident (a 20,000-statement
/// function peaked at 480-500 MB, 450-460 MB at 50 ms; returning memory at
/// once, 0 ms, saves 20 MB more but costs a third more time in page
/// faults on modules of many small functions; BENCHMARKS.md).
fn command() -> std::io::Result<Command> {
    let mut c = Command::new(path()?);
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        c.env("MIMALLOC_PURGE_DELAY", "50");
    }
    Ok(c)
}

/// `blame analyze ARGS`: runs `blame-analyzer analyze ARGS` (the arguments
/// as given, already checked by this CLI) and exits as it did.
pub fn run_analyze() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip_while(|a| a != "analyze").collect();
    let status = command().and_then(|mut c| c.args(&args).status());
    match status {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        Ok(s) => ExitCode::from(s.code().unwrap_or(1).clamp(1, 255) as u8),
        Err(e) => {
            eprintln!("blame: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Drains the queue of `db` now, in the foreground (a waiter holds the
/// drain lock, which the analyzer takes over when this process's lock goes).
pub fn drain_now(db: &Path) -> std::io::Result<()> {
    let status = command()?
        .args(["drain", "--now"])
        .arg(db)
        .stdin(Stdio::null())
        .status()?;
    if status.success() {
        Ok(())
    } else {
        Err(std::io::Error::other(format!(
            "blame-analyzer drain {} failed ({status})",
            db.display()
        )))
    }
}

/// Starts a background drainer for `db`: its own process group, no
/// terminal (it never holds a build's pipes).
pub fn start_drain(db: &Path) -> std::io::Result<()> {
    let mut c = command()?;
    c.arg("drain")
        .arg(db)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    std::os::unix::process::CommandExt::process_group(&mut c, 0);
    c.spawn().map(drop)
}
