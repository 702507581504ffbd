//! `blame daemon run|status|flush|stop|job-begin|job-end`: arguments of the
//! always-on recorder (crate `blame-daemon`) and of its control client.

use crate::failure::Failure;
use anyhow::Result;
use blame_daemon::config::{Config, DEFAULT_SOCKET};
use blame_daemon::control::{request, Reply, Request, Status};
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args)]
pub struct DaemonArgs {
    #[command(subcommand)]
    command: DaemonCommand,
}

#[derive(Subcommand)]
enum DaemonCommand {
    /// Run the daemon in the foreground (as root): sample every process on this node into per-job run directories.
    #[command(
        after_help = "Examples:\n  blame daemon run --config /etc/blame/daemon.toml  # the settings of README's table\n  blame daemon run --dir /scratch/blame -F 99        # another directory, 99 Hz per CPU"
    )]
    Run(RunArgs),
    /// Show the daemon's jobs, sample counts, lost samples, disk use and its own CPU use.
    #[command(
        after_help = "Examples:\n  blame daemon status                               # the default socket\n  blame daemon status --json --socket /tmp/d.sock   # as JSON, another daemon"
    )]
    Status(ClientArgs),
    /// Write every buffered sample and each job's manifest now.
    #[command(
        after_help = "Examples:\n  blame daemon flush                            # before reading a running job's run\n  blame daemon flush --socket /tmp/d.sock       # another daemon"
    )]
    Flush(ClientArgs),
    /// Stop the daemon: every job's run is closed and says so.
    #[command(
        after_help = "Examples:\n  blame daemon stop                             # the default socket\n  blame daemon stop --socket /tmp/d.sock        # another daemon"
    )]
    Stop(ClientArgs),
    /// Mark a Slurm job's start (for a Prolog where jobs have no cgroups).
    #[command(
        after_help = "Examples:\n  blame daemon job-begin $SLURM_JOB_ID          # in a Slurm Prolog\n  blame daemon job-begin 4242 --socket /tmp/d.sock"
    )]
    JobBegin(MarkArgs),
    /// Mark a Slurm job's end (for an Epilog): its steps' runs end now.
    #[command(
        after_help = "Examples:\n  blame daemon job-end $SLURM_JOB_ID            # in a Slurm Epilog\n  blame daemon job-end 4242 --socket /tmp/d.sock"
    )]
    JobEnd(MarkArgs),
}

#[derive(Args)]
struct RunArgs {
    /// Settings file (TOML; see README for the keys) [default: built-in defaults].
    #[arg(long)]
    config: Option<PathBuf>,
    /// Where the per-job run directories go [default: /var/lib/blame/runs].
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Samples per second per CPU, as `blame record -F` [default: 49].
    #[arg(short = 'F', long = "freq", alias = "rate", value_name = "HZ")]
    rate: Option<u64>,
    /// Control socket [default: /run/blame/daemon.sock].
    #[arg(long)]
    socket: Option<PathBuf>,
}

#[derive(Args)]
struct ClientArgs {
    /// The daemon's control socket.
    #[arg(long, default_value = DEFAULT_SOCKET)]
    socket: PathBuf,
    /// Print the reply as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct MarkArgs {
    /// The Slurm job id ($SLURM_JOB_ID in a prolog/epilog).
    job: String,
    #[arg(long, default_value = DEFAULT_SOCKET)]
    socket: PathBuf,
}

pub fn run(args: DaemonArgs) -> Result<(), Failure> {
    let done = match args.command {
        DaemonCommand::Run(a) => return run_daemon(a),
        DaemonCommand::Status(c) => client(&c, Request::Status),
        DaemonCommand::Flush(c) => client(&c, Request::Flush),
        DaemonCommand::Stop(c) => client(&c, Request::Stop),
        DaemonCommand::JobBegin(m) => mark(m, true),
        DaemonCommand::JobEnd(m) => mark(m, false),
    };
    Ok(done?)
}

fn run_daemon(a: RunArgs) -> Result<(), Failure> {
    let mut cfg = match &a.config {
        Some(path) => Config::load(path)?,
        None => Config::default(),
    };
    if let Some(d) = a.dir {
        cfg.dir = std::path::absolute(d)?;
    }
    if let Some(r) = a.rate {
        cfg.rate_hz = r;
    }
    if let Some(s) = a.socket {
        cfg.socket = std::path::absolute(s)?;
    }
    let exe = std::env::current_exe()?;
    let say = |m: &str| eprintln!("blame daemon: {m}");
    blame_daemon::run(cfg, exe, &say)?;
    Ok(())
}

fn send(socket: &std::path::Path, req: Request) -> Result<Reply> {
    Ok(request(socket, &req, Duration::from_secs(30))?)
}

fn client(c: &ClientArgs, req: Request) -> Result<()> {
    match send(&c.socket, req)? {
        Reply::Status(s) if !c.json => print!("{}", status_text(&s)),
        Reply::Error { message } => anyhow::bail!("the daemon says: {message}"),
        r if c.json => println!("{}", serde_json::to_string_pretty(&r)?),
        Reply::Done { message } => println!("blame daemon: {message}"),
        Reply::Status(_) => unreachable!("handled above"),
    }
    Ok(())
}

fn mark(m: MarkArgs, begin: bool) -> Result<()> {
    let req = if begin {
        Request::JobBegin { job: m.job }
    } else {
        Request::JobEnd { job: m.job }
    };
    match send(&m.socket, req)? {
        Reply::Error { message } => anyhow::bail!("the daemon says: {message}"),
        Reply::Done { message } => println!("blame daemon: {message}"),
        Reply::Status(_) => {}
    }
    Ok(())
}

/// Bytes with a decimal unit: `4.8 kB`, `1.2 GB`.
fn mb(bytes: u64) -> String {
    bytesize::ByteSize(bytes).display().si().to_string()
}

fn status_text(s: &Status) -> String {
    let mut out = format!(
        "blame daemon (pid {}), up {:.0} s: {} at {} Hz on {} CPUs\n\
         samples {} (+{} of excluded processes), lost {}\n\
         daemon CPU {:.2} s ({:.2}% of one CPU), memory {} MB\n\
         disk {} of {} in {}\n",
        s.pid,
        s.uptime_s,
        s.event,
        s.rate_hz,
        s.cpus,
        s.samples,
        s.excluded_samples,
        s.lost,
        s.daemon_cpu_seconds,
        s.daemon_cpu_percent,
        s.rss_kib / 1024,
        mb(s.disk_bytes),
        mb(s.total_cap_bytes),
        s.dir.display()
    );
    out.push_str(&format!(
        "{:<40} {:<10} {:<18} {:>5} {:>9} {:>8} {:>8} {:>10}\n",
        "job", "user", "state", "procs", "samples", "dropped", "missed", "disk"
    ));
    for j in &s.jobs {
        out.push_str(&format!(
            "{:<40} {:<10} {:<18} {:>5} {:>9} {:>8} {:>8} {:>10}\n",
            j.name,
            j.user,
            j.state,
            j.processes,
            j.samples,
            j.dropped,
            j.missed_while_down,
            mb(j.bytes)
        ));
    }
    for e in &s.errors {
        out.push_str(&format!("note: {e}\n"));
    }
    out
}
