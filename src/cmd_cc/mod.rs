//! `blame cc -- <compiler command...>`: a compiler launcher that builds the
//! object as the command would and queues the unit's unoptimized bitcode
//! for the variable-blame analysis, which runs off the compile's critical
//! path (see `blame_formats::analysis_queue`) and lands in the static db
//! (`$BLAME_DB`, default `.blame/static.db`).
//!
//! When the compiler is clang 19 (directly or behind an MPI wrapper) the
//! compile runs once, with blame's capture plugin loaded
//! (the `blame-bitcode-capture` crate): it builds the object a plain compile builds,
//! byte for byte, and writes the unit's unoptimized bitcode into the queue
//! as its optimization pipeline starts. Other compilers run unchanged and a
//! separate clang-19 front end makes the analysis bitcode.
//!
//! What `blame cc` adds to the compile, before the user's flags (a flag the
//! user gives wins): `-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer`
//! (cheap stacks for `blame record`; `BLAME_CC_FRAME_POINTERS=0` turns it
//! off), and with the capture plugin `-g` when no `-g` is given and
//! `-fstandalone-debug` for C++ (the analysis needs variables and complete
//! classes; neither changes the code).
//!
//! Failures of the extra step are warnings that name the user's source
//! file: they never fail the build. `BLAME_CC_SYNC=1` analyzes before
//! returning; `blame cc --wait` (and `blame post`, `blame check`) wait for
//! the queue.

mod command_line;
mod compiler;

use crate::analyzer;
use blame_formats::analysis_queue as queue;
use command_line::CompileCommand;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Temporary directories of older `blame cc` versions: `$TMPDIR/blame-cc-PID-RANDOM`.
const TMP_PREFIX: &str = "blame-cc-";
/// A dead process's temporary directory is removed once this old.
const STALE_AFTER: Duration = Duration::from_secs(600);

#[derive(clap::Args)]
pub struct CcArgs {
    /// Wait until every unit compiled through `blame cc` so far is analyzed
    /// into the static db, show the warnings of units that got no summary,
    /// and exit (`blame post` waits by itself).
    #[arg(long, conflicts_with = "command")]
    pub wait: bool,
    /// The compiler command, e.g. `mpicc -O2 -c x.c -o x.o`.
    #[arg(
        required_unless_present = "wait",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub command: Vec<String>,
}

/// How the analysis bitcode is compiled when the compiler is not clang 19:
/// unoptimized, with debug info whose class types are complete in every
/// unit (`-fstandalone-debug`: clang's constructor homing would leave a
/// class declared only, its members unknown, in units without its
/// constructor or key function), warnings off (the real compile shows them).
const ANALYSIS_FLAGS: &[&str] = &["-g", "-fstandalone-debug", "-O0", "-emit-llvm", "-c", "-w"];

/// The static db `blame cc` fills: `$BLAME_DB`, else `.blame/static.db`.
pub fn db_path() -> PathBuf {
    blame_formats::static_db::default_path()
}

/// Waits for the analysis queue of `db` (no queue: returns at once) and
/// prints, prefixed by `who`, what is waited for and the warnings of units
/// that got no summary.
pub fn wait_for_analysis(db: &Path, who: &str) {
    waited_for_analysis(db, who);
}

/// [`wait_for_analysis`]; false when the queue could not be drained (or read).
fn waited_for_analysis(db: &Path, who: &str) -> bool {
    let waited = queue::wait(
        db,
        |n| {
            eprintln!(
                "{who}: waiting for the analysis of {n} unit{} compiled through blame cc",
                if n == 1 { "" } else { "s" }
            )
        },
        |lock| {
            // The analyzer takes the lock over.
            drop(lock);
            analyzer::drain_now(db)
        },
    );
    match waited {
        Ok(warnings) => {
            for w in warnings {
                eprintln!("{w}");
            }
            true
        }
        Err(e) => {
            eprintln!(
                "{who}: warning: cannot read the analysis queue of {}: {e}",
                db.display()
            );
            false
        }
    }
}

fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    use std::os::unix::process::ExitStatusExt;
    if status.success() {
        return ExitCode::SUCCESS;
    }
    let code = status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1);
    ExitCode::from(code.clamp(1, 255) as u8)
}

/// Runs a command with our stdio; Err names what could not start.
fn run_inherited(argv: &[String]) -> Result<std::process::ExitStatus, ExitCode> {
    Command::new(&argv[0])
        .args(&argv[1..])
        .status()
        .map_err(|e| {
            eprintln!("blame cc: cannot run {}: {e}", argv[0]);
            ExitCode::from(127)
        })
}

/// Flags `blame cc` adds before the user's own.
fn leading_flags(cmd: &CompileCommand) -> Vec<String> {
    let mut out = Vec::new();
    if compiler::speaks_gcc_flags(cmd.compiler())
        && std::env::var("BLAME_CC_FRAME_POINTERS").as_deref() != Ok("0")
    {
        out.push("-fno-omit-frame-pointer".to_string());
        out.push("-mno-omit-leaf-frame-pointer".to_string());
    }
    out
}

/// After a successful link, with `$BLAME_DB_STORE` set: registers `db` under
/// the linked binary's build-id, so `blame daemon` runs of it find their db.
fn register_in_store(cmd: &CompileCommand, db: &Path) {
    use blame_formats::db_store;
    if !cmd.links() || !(db.exists() || blame_formats::analysis_queue::dir_of(db).is_dir()) {
        return;
    }
    let binary = Path::new(cmd.output());
    let id = blame_capture::locate::build_id_of(binary);
    // The store named by $BLAME_DB_STORE (for `blame daemon`): a failure is
    // said. The user's own store (for `blame record`, in any directory):
    // registered quietly when it can be.
    if let Some(store) = std::env::var_os(db_store::STORE_VAR).filter(|v| !v.is_empty()) {
        let registered = id
            .clone()
            .ok_or_else(|| std::io::Error::other("no build-id (link with --build-id)"))
            .and_then(|id| db_store::register(Path::new(&store), &id, db, binary));
        if let Err(e) = registered {
            eprintln!(
                "blame cc: warning: {} not registered in {}: {e}",
                binary.display(),
                Path::new(&store).display()
            );
        }
    }
    if let (Some(id), Some(own)) = (id, db_store::user_store()) {
        let _ =
            db_store::make_user_store(&own).and_then(|_| db_store::register(&own, &id, db, binary));
    }
}

pub fn run(args: CcArgs) -> ExitCode {
    if args.wait {
        // Without the analyzer nothing compiled is ever analyzed: a failure.
        if let Err(e) = analyzer::path() {
            eprintln!("blame cc: error: {e}");
            return ExitCode::FAILURE;
        }
        return if waited_for_analysis(&db_path(), "blame cc") {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }
    let user = CompileCommand::new(args.command);
    let sources: Vec<String> = user.sources().into_iter().map(str::to_string).collect();
    if sources.is_empty() || user.preprocess_only() {
        // Links, preprocessing: nothing to analyze; a link registers the db
        // by the binary's build-id when $BLAME_DB_STORE says where.
        return match run_inherited(&user.args) {
            Ok(s) => {
                if s.success() {
                    register_in_store(&user, &db_path());
                }
                exit_code(s)
            }
            Err(code) => code,
        };
    }
    let cmd = user.with_leading_flags(&leading_flags(&user));
    let db = db_path();
    // A db that cannot take summaries is said now, not at `blame post`.
    let analyze = match queue::check_db(&db) {
        Ok(()) => true,
        Err(e) => {
            for src in &sources {
                eprintln!("blame cc: warning: no blame summary for {src}: {e}");
            }
            false
        }
    };
    // What a `blame cc` of an older version killed with SIGKILL left behind.
    blame_formats::files::remove_stale_temp_dirs(TMP_PREFIX, STALE_AFTER);
    // Ctrl-C or `kill` while we run: our children get it too; we clean up,
    // then die of the signal.
    let stop = Arc::new(AtomicUsize::new(0));
    for sig in [SIGINT, SIGTERM, SIGHUP] {
        let _ = signal_hook::flag::register_usize(sig, stop.clone(), sig as usize);
    }
    let stopped = || -> Option<ExitCode> {
        let sig = stop.load(Ordering::SeqCst);
        if sig == 0 {
            return None;
        }
        let _ = signal_hook::low_level::emulate_default_handler(sig as i32);
        Some(ExitCode::from(128 + sig as u8))
    };
    let mut queued = 0;
    if analyze && cmd.one_compile_captures() && compiler::is_clang_19(cmd.compiler()) {
        match captured_compile(&cmd, &db, &sources[0], &stopped) {
            Ok(n) => queued += n,
            Err(code) => return code,
        }
    } else {
        let status = match run_inherited(&cmd.args) {
            Ok(s) => s,
            Err(code) => return code,
        };
        if let Some(code) = stopped() {
            return code;
        }
        if !status.success() {
            return exit_code(status);
        }
        if analyze {
            for src in &sources {
                queued += analysis_front_end(&cmd, &db, src);
                if let Some(code) = stopped() {
                    return code;
                }
            }
        }
    }
    register_in_store(&cmd, &db);
    if queued > 0 {
        if std::env::var("BLAME_CC_SYNC").as_deref() == Ok("1") {
            wait_for_analysis(&db, "blame cc");
        } else {
            start_drainer(&db);
        }
    }
    stopped().unwrap_or(ExitCode::SUCCESS)
}

/// The compile with the capture plugin of clang 19 loaded: it builds the
/// object and writes the unit's unoptimized bitcode into the queue. Ok(units
/// queued), or Err(the exit code to return: the compile failed).
fn captured_compile(
    cmd: &CompileCommand,
    db: &Path,
    src: &str,
    stopped: &dyn Fn() -> Option<ExitCode>,
) -> Result<usize, ExitCode> {
    let plugin = queue::begin(db).and_then(|p| {
        let so = blame_bitcode_capture::install(&queue::dir_of(db))?;
        Ok((p, so))
    });
    let (pending, plugin) = match plugin {
        Ok(x) => x,
        Err(e) => {
            eprintln!(
                "blame cc: warning: no blame summary for {src}: cannot queue its analysis: {e}"
            );
            return match run_inherited(&cmd.args) {
                Ok(s) if s.success() => Ok(0),
                Ok(s) => Err(exit_code(s)),
                Err(code) => Err(code),
            };
        }
    };
    let bc = pending.bitcode();
    // The analysis needs variables and complete classes; neither flag
    // changes the code, and a `-g` variant the user gives wins.
    let mut extra = Vec::new();
    if !cmd.args.iter().any(|a| a.starts_with("-g")) {
        extra.push("-g".to_string());
    }
    if compiler::is_cxx(cmd.compiler(), src) {
        extra.push("-fstandalone-debug".to_string());
    }
    extra.push(format!("-fpass-plugin={}", plugin.display()));
    let full = cmd.with_leading_flags(&extra);
    let status = Command::new(&full.args[0])
        .args(&full.args[1..])
        .env(blame_bitcode_capture::BITCODE_VAR, &bc)
        .status();
    if let Some(code) = stopped() {
        pending.abandon();
        return Err(code);
    }
    let status = match status {
        Ok(s) => s,
        Err(e) => {
            pending.abandon();
            eprintln!("blame cc: cannot run {}: {e}", cmd.args[0]);
            return Err(ExitCode::from(127));
        }
    };
    if !status.success() {
        pending.abandon();
        return Err(exit_code(status));
    }
    if !bc.is_file() {
        // The pipeline never ran (or could not write): a front end of our own.
        pending.abandon();
        return Ok(analysis_front_end(cmd, db, src));
    }
    match pending.commit(src) {
        Ok(()) => Ok(1),
        Err(e) => {
            eprintln!(
                "blame cc: warning: no blame summary for {src}: cannot queue its analysis: {e}"
            );
            Ok(0)
        }
    }
}

/// A separate clang-19 front end for the analysis (the compiler is not
/// clang 19, or the command is one one front end cannot serve): 1 when the
/// unit is queued.
fn analysis_front_end(cmd: &CompileCommand, db: &Path, src: &str) -> usize {
    let pending = match queue::begin(db) {
        Ok(p) => p,
        Err(e) => {
            eprintln!(
                "blame cc: warning: no blame summary for {src}: cannot queue its analysis: {e}"
            );
            return 0;
        }
    };
    let bc = pending.bitcode();
    let mut flags = compiler::wrapper_flags(cmd.compiler());
    flags.extend(command_line::front_end_flags(&cmd.args[1..]));
    let clang = if compiler::is_cxx(cmd.compiler(), src) {
        "clang++-19"
    } else {
        "clang-19"
    };
    let out = Command::new(clang)
        .args(&flags)
        .args(ANALYSIS_FLAGS)
        .arg(src)
        .arg("-o")
        .arg(&bc)
        .output();
    let hide_queue =
        |text: &str| text.replace(&queue::dir_of(db).display().to_string(), "<blame cc queue>");
    match out {
        Ok(o) if o.status.success() => match pending.commit(src) {
            Ok(()) => return 1,
            Err(e) => eprintln!(
                "blame cc: warning: no blame summary for {src}: cannot queue its analysis: {e}"
            ),
        },
        Ok(o) => {
            pending.abandon();
            eprintln!(
                "blame cc: warning: {clang} could not emit bitcode for {src}; no blame summary:\n{}",
                hide_queue(&String::from_utf8_lossy(&o.stderr))
            )
        }
        Err(e) => {
            pending.abandon();
            eprintln!("blame cc: warning: cannot run {clang} for {src}: {e}")
        }
    }
    0
}

/// Starts a background drainer for `db` unless one runs (it paces
/// itself to the cores the build leaves free).
fn start_drainer(db: &Path) {
    match queue::try_lock(db) {
        Ok(Some(lock)) => drop(lock),
        // A drainer runs: it will see our unit before it leaves.
        Ok(None) => return,
        Err(e) => {
            eprintln!("blame cc: warning: cannot start the analysis: {e}; `blame cc --wait` or `blame post` will run it");
            return;
        }
    }
    if let Err(e) = analyzer::start_drain(db) {
        eprintln!("blame cc: warning: cannot start the analysis: {e}");
    }
}
