//! The daemon's main loop: system-wide perf events on every CPU, drained
//! into the [`Router`] every 200 ms; a tick each second (job ends, posts),
//! a flush every `flush_interval_s`; control requests answered between.
//! SIGTERM and SIGINT stop it cleanly (every job's manifest says so);
//! SIGHUP flushes.

use crate::config::Config;
use crate::control::{self, Reply, Request, Server};
use crate::restart;
use crate::router::Router;
use crate::{job_dir, DaemonError, DaemonUsage, SamplerSetup};
use blame_sampler::events::parse_events;
use blame_sampler::perf::{PerfConfig, PerfSession, Scope};
use blame_sampler::procfs;
use blame_sampler::CallGraph;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What `run` reports when it returns.
pub struct Summary {
    pub samples: u64,
    pub jobs: usize,
}

pub fn run(cfg: Config, blame_exe: PathBuf, say: &dyn Fn(&str)) -> Result<Summary, DaemonError> {
    cfg.check().map_err(DaemonUsage::from)?;
    if !nix::unistd::geteuid().is_root() {
        return Err(DaemonUsage::NotRoot.into());
    }
    let _lock = take_directory(&cfg)?;
    let server = Server::bind(&cfg.socket, cfg.socket_group.as_deref())?;
    let signals = Signals::register()?;
    let (mut session, mut router) = open_sampling(&cfg, blame_exe)?;
    match restart::load(&cfg.dir) {
        Ok(Some(saved)) => router.resume(saved),
        Ok(None) => {}
        Err(e) => say(&e.to_string()),
    }
    session
        .enable()
        .map_err(|e| DaemonError::Sampler(e.into()))?;
    say(&format!(
        "sampling {} at {} Hz on {} CPUs into {}; control socket {}",
        cfg.event,
        cfg.rate_hz,
        procfs::online_cpus(),
        cfg.dir.display(),
        cfg.socket.display()
    ));
    serve(&cfg, &mut session, &mut router, &server, &signals);
    Ok(finish(session, router, say))
}

/// Prepares the daemon's directory and its private part (0700), and takes
/// its lock: one daemon per directory.
fn take_directory(cfg: &Config) -> Result<blame_formats::lock::WriterLock, DaemonError> {
    job_dir::prepare_base(&cfg.dir)?;
    let private = restart::private_dir(&cfg.dir);
    std::fs::create_dir_all(&private).map_err(|e| DaemonError::io(&private, e))?;
    std::fs::set_permissions(
        &private,
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .map_err(|e| DaemonError::io(&private, e))?;
    let lock_path = private.join("lock");
    let lock = blame_formats::lock::WriterLock::try_take(&lock_path)
        .map_err(|e| DaemonError::io(&lock_path, e))?
        .ok_or_else(|| DaemonUsage::DirInUse {
            dir: cfg.dir.clone(),
        })?;
    Ok(lock)
}

/// The signals the loop answers: SIGINT and SIGTERM stop it, SIGHUP flushes.
struct Signals {
    stop: Arc<AtomicUsize>,
    hup: Arc<AtomicUsize>,
}

impl Signals {
    fn register() -> Result<Signals, DaemonError> {
        let stop = Arc::new(AtomicUsize::new(0));
        let hup = Arc::new(AtomicUsize::new(0));
        for sig in [libc::SIGINT, libc::SIGTERM] {
            signal_hook::flag::register_usize(sig, stop.clone(), sig as usize)
                .map_err(|e| DaemonError::Sampler(SamplerSetup::Signals(e)))?;
        }
        signal_hook::flag::register_usize(libc::SIGHUP, hup.clone(), 1)
            .map_err(|e| DaemonError::Sampler(SamplerSetup::Signals(e)))?;
        Ok(Signals { stop, hup })
    }
}

/// The system-wide perf session of the configured events and call graph,
/// and the router its records go to.
fn open_sampling(cfg: &Config, blame_exe: PathBuf) -> Result<(PerfSession, Router), DaemonError> {
    let events = parse_events(&cfg.event).map_err(DaemonUsage::from)?;
    let call_graph: CallGraph = cfg.call_graph.parse().map_err(DaemonUsage::from)?;
    let stack_size = match call_graph {
        CallGraph::Hybrid => blame_sampler::HYBRID_STACK_SIZE,
        CallGraph::Dwarf => blame_sampler::DWARF_STACK_SIZE,
        CallGraph::Fp => 0,
    };
    let sampling = blame_formats::stream::Sampling::Frequency(cfg.rate_hz);
    let perf_cfg = PerfConfig {
        events: &events,
        sampling: sampling.clone(),
        call_graph,
        kernel: false,
        stack_size,
        data_addresses: false,
    };
    let session = PerfSession::open(&perf_cfg, Scope::SystemWide, false)
        .map_err(|e| DaemonError::Sampler(e.into()))?;
    let page_kib = nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
        .ok()
        .flatten()
        .unwrap_or(4096) as u64
        / 1024;
    let ring_kib = session.ring_pages as u64 * page_kib;
    let descs = events.iter().map(|e| e.desc(sampling.clone())).collect();
    let router = Router::new(
        cfg.clone(),
        descs,
        call_graph.name(),
        stack_size,
        Some(ring_kib),
        blame_exe,
    );
    Ok((session, router))
}

/// The main loop: drain every 200 ms, tick each second, flush every
/// `flush_interval_s` (or on SIGHUP), answer control requests; until a
/// signal or a request stops it.
fn serve(
    cfg: &Config,
    session: &mut PerfSession,
    router: &mut Router,
    server: &Server,
    signals: &Signals,
) {
    let mut last_tick = Instant::now();
    let mut last_flush = Instant::now();
    let flush_every = Duration::from_secs(cfg.flush_interval_s);
    loop {
        session.wait(200);
        session.drain(router);
        if last_tick.elapsed() >= Duration::from_secs(1) {
            router.tick();
            last_tick = Instant::now();
        }
        if last_flush.elapsed() >= flush_every || signals.hup.swap(0, Ordering::SeqCst) != 0 {
            router.flush();
            last_flush = Instant::now();
        }
        let mut stopping = signals.stop.load(Ordering::SeqCst) != 0;
        for (mut stream, req) in server.poll() {
            let answer = answer(req, session, router, &mut last_flush, &mut stopping);
            let _ = control::reply(&mut stream, &answer);
        }
        if stopping {
            break;
        }
    }
}

/// The reply to one control request, carried out.
fn answer(
    req: Result<Request, control::BadRequest>,
    session: &mut PerfSession,
    router: &mut Router,
    last_flush: &mut Instant,
    stopping: &mut bool,
) -> Reply {
    match req {
        Err(bad) => Reply::Error {
            message: bad.to_string(),
        },
        Ok(Request::Status) => {
            let (cpu, rss) = own_usage();
            Reply::Status(router.status(cpu, rss, 0))
        }
        Ok(Request::Flush) => {
            session.drain(router);
            router.flush();
            *last_flush = Instant::now();
            Reply::Done {
                message: "flushed".into(),
            }
        }
        Ok(Request::Stop) => {
            *stopping = true;
            Reply::Done {
                message: "stopping".into(),
            }
        }
        Ok(Request::JobBegin { job }) => {
            router.mark_begin(&job);
            Reply::Done {
                message: format!("job {job} begins"),
            }
        }
        Ok(Request::JobEnd { job }) => {
            let n = router.mark_end(&job);
            Reply::Done {
                message: format!("job {job} ends ({n} step(s) recorded)"),
            }
        }
    }
}

/// Stops sampling, drains what is left and ends every job.
fn finish(mut session: PerfSession, mut router: Router, say: &dyn Fn(&str)) -> Summary {
    session.disable();
    while session.drain(&mut router) > 0 {}
    let jobs = router.status(0.0, 0, 0).jobs.len();
    router.stop();
    say(&format!(
        "stopped: {} samples in {} job run(s)",
        router.samples, jobs
    ));
    Summary {
        samples: router.samples,
        jobs,
    }
}

/// The daemon's own CPU seconds (user + system) and resident memory in KiB.
fn own_usage() -> (f64, u64) {
    let me = std::process::id();
    let cpu = restart::process_ticks(me)
        .map(|(_, t)| t as f64 / restart::ticks_per_second() as f64)
        .unwrap_or(0.0);
    let rss = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or(0);
    (cpu, rss)
}
