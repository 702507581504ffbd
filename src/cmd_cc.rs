//! `blame cc -- <compiler command...>`: a compiler launcher. Runs the real
//! compile unchanged (its exit status is ours), then emits bitcode for each
//! translation unit with clang-19 (same -I/-D/-U/-std/-include flags plus
//! `-g -fstandalone-debug -O0 -emit-llvm -c`), analyzes it and merges the
//! summaries into the static db (`$BLAME_DB`, default `.blame/static.db`)
//! under a file lock. Failures of the extra step are warnings that name the
//! user's source file: they never fail the build. A unit that defines no
//! function (data only) is analyzed silently into nothing.

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Temporary directories are `$TMPDIR/blame-cc-PID-RANDOM`.
const TMP_PREFIX: &str = "blame-cc-";
/// A dead process's temporary directory is removed once this old.
const STALE_AFTER: Duration = Duration::from_secs(600);

#[derive(clap::Args)]
pub struct CcArgs {
    /// The compiler command, e.g. `mpicc -O2 -c x.c -o x.o`.
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    pub command: Vec<String>,
}

/// How the analysis bitcode is compiled: unoptimized, with debug info whose
/// class types are complete in every unit (`-fstandalone-debug`: clang's
/// constructor homing and `-fno-standalone-debug` default would leave a
/// class declared only, its members unknown, in units without its
/// constructor or key function), warnings off (the real compile shows them).
const ANALYSIS_FLAGS: &[&str] = &["-g", "-fstandalone-debug", "-O0", "-emit-llvm", "-c", "-w"];

const SOURCE_EXTS: &[&str] = &["c", "cc", "cpp", "cxx", "c++", "C", "cp"];

fn is_source(a: &str) -> bool {
    !a.starts_with('-')
        && Path::new(a)
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| SOURCE_EXTS.contains(&e))
}

fn is_cxx(compiler: &str, src: &str) -> bool {
    let c = Path::new(compiler)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    c.contains("++") || c.contains("cxx") || c.contains("CC") || !src.ends_with(".c")
}

/// Flags that change what the preprocessor and front end see.
fn frontend_flags(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let with_value = [
        "-I",
        "-D",
        "-U",
        "-include",
        "-isystem",
        "-iquote",
        "-idirafter",
        "-imacros",
    ];
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if with_value.contains(&a.as_str()) {
            if let Some(v) = args.get(i + 1) {
                out.push(a.clone());
                out.push(v.clone());
            }
            i += 2;
            continue;
        }
        if with_value
            .iter()
            .any(|p| a.starts_with(p) && a.len() > p.len())
            || a.starts_with("-std=")
            || a == "-fopenmp"
            || a.starts_with("-fopenmp=")
            || a == "-pthread"
            || a == "-ansi"
            || a.starts_with("-fno-exceptions")
            || a.starts_with("-fno-rtti")
        {
            out.push(a.clone());
        }
        i += 1;
    }
    out
}

/// Include and define flags an MPI compiler wrapper adds.
fn wrapper_flags(compiler: &str) -> Vec<String> {
    let name = Path::new(compiler)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    if !name.starts_with("mpi") {
        return vec![];
    }
    for probe in [["--showme:compile"], ["-show"]] {
        if let Ok(out) = Command::new(compiler).args(probe).output() {
            if out.status.success() {
                let s = String::from_utf8_lossy(&out.stdout);
                let words: Vec<String> = s.split_whitespace().map(str::to_string).collect();
                return frontend_flags(&words);
            }
        }
    }
    vec![]
}

pub fn run(args: CcArgs) -> ExitCode {
    let cmd = &args.command;
    let status = match Command::new(&cmd[0]).args(&cmd[1..]).status() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("blame cc: cannot run {}: {e}", cmd[0]);
            return ExitCode::from(127);
        }
    };
    if !status.success() {
        use std::os::unix::process::ExitStatusExt;
        let code = status
            .code()
            .or_else(|| status.signal().map(|s| 128 + s))
            .unwrap_or(1);
        return ExitCode::from(code.clamp(1, 255) as u8);
    }
    if cmd.iter().any(|a| a == "-E" || a == "-M" || a == "-MM") {
        return ExitCode::SUCCESS;
    }
    let sources: Vec<&String> = cmd[1..].iter().filter(|a| is_source(a)).collect();
    if sources.is_empty() {
        return ExitCode::SUCCESS;
    }
    let db = std::env::var_os("BLAME_DB")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(".blame/static.db"));
    let mut flags = wrapper_flags(&cmd[0]);
    flags.extend(frontend_flags(&cmd[1..]));
    // What a `blame cc` killed with SIGKILL left behind.
    blame_formats::files::remove_stale_temp_dirs(TMP_PREFIX, STALE_AFTER);
    // Ctrl-C or `kill` during the extra step: clean up, then die of the signal.
    let stop = Arc::new(AtomicUsize::new(0));
    for sig in [SIGINT, SIGTERM, SIGHUP] {
        let _ = signal_hook::flag::register_usize(sig, stop.clone(), sig as usize);
    }
    // A private directory (0700, random name): nobody else can read or swap the bitcode.
    let tmp_dir = match blame_formats::files::private_temp_dir(TMP_PREFIX) {
        Ok(d) => d,
        Err(e) => {
            // Name the user's sources, not the temporary directory.
            for src in &sources {
                eprintln!("blame cc: warning: no blame summary for {src}: cannot create a temporary directory for its bitcode: {e}");
            }
            return ExitCode::SUCCESS;
        }
    };
    let tmp = tmp_dir.path().to_path_buf();
    let stopped = |tmp_dir: tempfile::TempDir| -> Option<ExitCode> {
        let sig = stop.load(Ordering::SeqCst);
        if sig == 0 {
            return None;
        }
        drop(tmp_dir);
        let _ = signal_hook::low_level::emulate_default_handler(sig as i32);
        Some(ExitCode::from(128 + sig as u8))
    };
    // (bitcode, the source it came from): messages name the source.
    let mut bitcode = Vec::new();
    for (n, src) in sources.iter().enumerate() {
        let bc = tmp.join(format!("tu{n}.bc"));
        let clang = if is_cxx(&cmd[0], src) {
            "clang++-19"
        } else {
            "clang-19"
        };
        let out = Command::new(clang)
            .args(&flags)
            .args(ANALYSIS_FLAGS)
            .arg(src.as_str())
            .arg("-o")
            .arg(&bc)
            .output();
        if stop.load(Ordering::SeqCst) != 0 {
            break;
        }
        match out {
            Ok(o) if o.status.success() => bitcode.push((bc, src.to_string())),
            Ok(o) => eprintln!(
                "blame cc: warning: {clang} could not emit bitcode for {src}; no blame summary:\n{}",
                String::from_utf8_lossy(&o.stderr).replace(&tmp.display().to_string(), "<tmp>")
            ),
            Err(e) => eprintln!("blame cc: warning: cannot run {clang} for {src}: {e}"),
        }
    }
    // One unit at a time, so a failure names its source and spares the others.
    for (bc, src) in &bitcode {
        if stop.load(Ordering::SeqCst) != 0 {
            break;
        }
        match blame_static::analyze_named_into_db(&[(bc.clone(), src.clone())], &db) {
            // A unit of data only (no function defined) has nothing to summarize.
            Ok(_) => {}
            Err(e) => {
                let msg = e.to_string().replace(&bc.display().to_string(), src);
                let msg = msg.strip_prefix(&format!("{src}: ")).unwrap_or(&msg);
                eprintln!("blame cc: warning: no blame summary for {src}: {msg}");
            }
        }
    }
    stopped(tmp_dir).unwrap_or(ExitCode::SUCCESS)
}
