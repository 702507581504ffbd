//! The options of `post`, `report` and `export`, resolved once (as
//! ripgrep's `HiArgs`): `cmd_post.rs` parses, [`PostConfig::resolve`] checks
//! and completes every option (defaults, the run's manifest, the static db
//! named), and everything after works on the typed config.

use anyhow::{bail, Context, Result};
use blame_formats::results::{FileId, InputsId, Provenance};
use blame_formats::run_dir;
use blame_formats::static_db::CacheGeometry;
use blame_post::aggregation::aggregate::DEFAULT_LOOP_THRESHOLD;
use blame_post::input::skid_model::SkidModel;
use blame_post::{MemoryOptions, OnDamage, Run};
use std::path::{Path, PathBuf};

/// Where samples come from, shared by `post` and `report`.
#[derive(clap::Args, Clone)]
pub struct InputArgs {
    /// Run directory written by `blame record` [default: blame.run].
    pub(crate) run_dir: Option<PathBuf>,
    /// JSON-lines symbolic samples instead of a recording.
    #[arg(long, conflicts_with = "run_dir")]
    pub(crate) samples: Option<PathBuf>,
    /// A capture of Linux `perf record` instead of a recording (repeatable).
    ///
    /// Call graphs from `--call-graph fp` (kernel callchains) or `--call-graph dwarf`
    /// (unwound here from the copied stacks, with the binaries' unwind tables), data
    /// addresses (`perf record -d`, `perf mem`), mappings with build-ids, fork/exec/comm.
    /// Samples are grouped by process (one per exec'd image); kernel frames are dropped.
    /// Events keep perf's names; mark one with --memory-event NAME for the approximate
    /// data-centric passes (names with "miss", mem-loads/mem-stores are marked already).
    ///
    /// MPI ranks: perf.data has no MPI environment, so one file alone has no ranks; give
    /// one file per rank, in rank order (`--perf-data r0.data --perf-data r1.data`, e.g.
    /// from `mpirun -np 2 sh -c 'perf record -o r$OMPI_COMM_WORLD_RANK.data ./app'`) and
    /// file I's processes are rank I (launchers such as mpirun or sh get no rank).
    #[arg(long = "perf-data", value_name = "PERF.DATA", conflicts_with_all = ["run_dir", "samples"])]
    pub(crate) perf_data: Vec<PathBuf>,
    /// Static db from `blame cc` / `blame analyze` [default: $BLAME_DB, else .blame/static.db].
    #[arg(long = "static")]
    pub(crate) static_db: Option<PathBuf>,
    /// Directory to look for the recorded binaries and libraries in first (repeatable).
    #[arg(long = "binary-path")]
    pub(crate) binary_paths: Vec<PathBuf>,
    /// Treat this event as a memory event (cache/TLB misses): approximate data-centric attribution (repeatable).
    #[arg(long = "memory-event", value_name = "EVENT")]
    pub(crate) memory_events: Vec<String>,
    /// Skid model of memory events: `lines:MEAN:SPREAD` (lines:1:1 is the dissertation's Itanium model) or `insns:MEAN:SPREAD` (instructions, mapped to lines by disassembling the binary) [default: no skid].
    #[arg(long)]
    pub(crate) skid: Option<String>,
    /// Loop compensation threshold (5.2.2).
    #[arg(long, default_value_t = DEFAULT_LOOP_THRESHOLD)]
    pub(crate) loop_threshold: f64,
    /// L1 data cache and line size the access-pattern weights of memory events assume, `L1D:LINE` in bytes (K/M suffixes), e.g. `48K:64` [default: the recording machine's, from the run's manifest; else 32K:64].
    #[arg(long = "cache-geometry", value_name = "L1D:LINE")]
    pub(crate) cache_geometry: Option<String>,
    /// Refuse a damaged recording (an empty or unreadable stream, a damaged chunk, a stream
    /// cut short) instead of using what is intact and saying what was skipped.
    #[arg(long)]
    pub(crate) strict: bool,
    /// Carry on without a manifest of the run that cannot be read (malformed JSON, not a
    /// regular file, too large) instead of refusing the run; for `post`, also replace the
    /// results file with results that reach fewer variables (a missing static db), which
    /// post refuses otherwise.
    #[arg(short, long)]
    pub(crate) force: bool,
}

impl InputArgs {
    /// The run directory `blame.run` when no input is named, as perf reads
    /// `perf.data`; refused, saying so, when there is none.
    pub(crate) fn or_default_run(mut self) -> Result<Self> {
        if self.run_dir.is_none() && self.samples.is_none() && self.perf_data.is_empty() {
            let dir = PathBuf::from(run_dir::DEFAULT_RUN_DIR);
            if !dir.is_dir() {
                bail!(
                    "no run named and no {} here: name a run directory (or --samples FILE, --perf-data FILE), or record one with `blame record -- CMD`",
                    dir.display()
                );
            }
            self.run_dir = Some(dir);
        }
        Ok(self)
    }

    /// A run directory with every option at its default but the db and the
    /// binaries' directories.
    pub(crate) fn of_run_dir(
        dir: &Path,
        static_db: Option<&Path>,
        binary_paths: &[PathBuf],
    ) -> Self {
        InputArgs {
            run_dir: Some(dir.to_path_buf()),
            samples: None,
            perf_data: Vec::new(),
            static_db: static_db.map(Path::to_path_buf),
            binary_paths: binary_paths.to_vec(),
            memory_events: Vec::new(),
            skid: None,
            loop_threshold: DEFAULT_LOOP_THRESHOLD,
            cache_geometry: None,
            strict: false,
            force: false,
        }
    }
}

/// Where the samples come from.
#[derive(Clone, Debug)]
pub enum Input {
    /// A run directory of `blame record` or `blame daemon`.
    RunDir(PathBuf),
    /// JSON-lines samples with symbolic frames.
    Samples(PathBuf),
    /// Captures of `perf record`, one per rank.
    PerfData(Vec<PathBuf>),
}

/// Everything that decides what `blame post` computes, checked.
#[derive(Clone)]
pub struct PostConfig {
    pub input: Input,
    /// The static db named (`--static`, else `$BLAME_DB`), before defaults.
    pub requested_db: Option<PathBuf>,
    pub binary_paths: Vec<PathBuf>,
    /// Events marked as memory events, as given.
    pub memory_events: Vec<String>,
    pub memory: MemoryOptions,
    /// `--skid` as given (the provenance records the text).
    skid: Option<String>,
    /// True when an option that changes the results was given (a one-off
    /// report must not replace the stored results).
    pub options_given: bool,
    pub on_damage: OnDamage,
}

impl PostConfig {
    /// Checks every option once and fills in the defaults.
    pub fn resolve(args: &InputArgs) -> Result<PostConfig> {
        let input = match (&args.run_dir, &args.samples, args.perf_data.is_empty()) {
            (Some(dir), None, true) => Input::RunDir(dir.clone()),
            (None, Some(s), true) => Input::Samples(s.clone()),
            (None, None, false) => Input::PerfData(args.perf_data.clone()),
            _ => bail!("give a run directory, --samples FILE.jsonl or --perf-data PERF.DATA"),
        };
        if !(0.0..=1.0).contains(&args.loop_threshold) {
            bail!(
                "--loop-threshold {} must be between 0 and 1",
                args.loop_threshold
            );
        }
        if let Some(dir) = &args.run_dir {
            // A manifest that cannot be read (malformed, a FIFO, a link to
            // /dev/zero, too large) is an error naming it, not ignored.
            for path in run_dir::manifest_files(dir) {
                if let Err(e) = blame_formats::manifest::Manifest::read(&path) {
                    if !args.force {
                        bail!("{e}; --force carries on without it");
                    }
                    eprintln!("blame: warning: {e}; carrying on without it (--force)");
                }
            }
        }
        let cache = match &args.cache_geometry {
            Some(text) => {
                CacheGeometry::parse(text).map_err(|e| anyhow::anyhow!("--cache-geometry {e}"))?
            }
            None => args
                .run_dir
                .as_deref()
                .and_then(blame_formats::manifest::Manifest::cache_of_run)
                .unwrap_or_default(),
        };
        let skid = args
            .skid
            .as_deref()
            .map(SkidModel::parse)
            .transpose()
            .map_err(anyhow::Error::msg)?;
        Ok(PostConfig {
            input,
            requested_db: run_dir::requested_db(args.static_db.as_deref()),
            binary_paths: args.binary_paths.clone(),
            memory_events: args.memory_events.clone(),
            memory: MemoryOptions {
                cache,
                loop_threshold: args.loop_threshold,
                skid,
            },
            skid: args.skid.clone(),
            options_given: !args.memory_events.is_empty()
                || args.skid.is_some()
                || args.loop_threshold != DEFAULT_LOOP_THRESHOLD
                || args.cache_geometry.is_some()
                || !args.binary_paths.is_empty(),
            on_damage: if args.strict {
                OnDamage::Refuse
            } else {
                OnDamage::Salvage
            },
        })
    }

    /// A run directory with every option at its default but the db and
    /// the binaries' directories (`diff`, `scaling`).
    pub fn of_run_dir(
        dir: &Path,
        static_db: Option<&Path>,
        binary_paths: &[PathBuf],
    ) -> Result<PostConfig> {
        PostConfig::resolve(&InputArgs::of_run_dir(dir, static_db, binary_paths))
    }

    pub fn run_dir(&self) -> Option<&Path> {
        match &self.input {
            Input::RunDir(d) => Some(d),
            _ => None,
        }
    }

    /// The static db to resolve with: the one named, else the run's
    /// (manifest), else `.blame/static.db` when there is one.
    pub fn static_db(&self) -> Option<PathBuf> {
        blame_formats::manifest::static_db_for(self.requested_db.as_deref(), self.run_dir())
    }

    /// Every option that changes the results, with its effective value,
    /// sorted by name (what the provenance records).
    pub fn result_options(&self) -> Vec<(String, String)> {
        let mut events = self.memory_events.clone();
        events.sort();
        let paths: Vec<String> = self
            .binary_paths
            .iter()
            .map(|p| absolute(p).display().to_string())
            .collect();
        let cache = &self.memory.cache;
        vec![
            ("binary-path".into(), paths.join(":")),
            (
                "cache-geometry".into(),
                format!("{}:{}", cache.l1d_bytes, cache.line_bytes),
            ),
            (
                "loop-threshold".into(),
                self.memory.loop_threshold.to_string(),
            ),
            ("memory-event".into(), events.join(",")),
            ("skid".into(), self.skid.clone().unwrap_or_default()),
        ]
    }

    /// The files the samples come from, in the order post reads them.
    pub fn input_files(&self) -> Result<Vec<PathBuf>> {
        Ok(match &self.input {
            Input::RunDir(dir) => run_dir::sample_files(dir)
                .with_context(|| format!("cannot list {}", dir.display()))?,
            Input::Samples(s) => vec![s.clone()],
            Input::PerfData(files) => files.clone(),
        })
    }

    /// What results computed from these inputs, with `db`, would be.
    pub fn provenance(&self, db: Option<&Path>) -> Result<Provenance> {
        // Units `blame cc` still analyzes belong to the db: wait for them.
        if let Some(db) = db {
            crate::cmd_cc::wait_for_analysis(db, "blame");
        }
        let db_id = db
            .map(|d| {
                FileId::of(d)
                    .map(|id| FileId {
                        path: absolute(d).display().to_string(),
                        ..id
                    })
                    .with_context(|| format!("cannot read {}", d.display()))
            })
            .transpose()?;
        Ok(Provenance {
            static_db: db_id,
            // An input that cannot be read (a FIFO, no permission) is
            // identified as empty: post skips or refuses it and says why.
            inputs: InputsId::of(
                &self
                    .input_files()?
                    .iter()
                    .map(|p| {
                        FileId::of_input(p).unwrap_or(FileId {
                            path: String::new(),
                            bytes: 0,
                            hash: 0,
                        })
                    })
                    .collect::<Vec<_>>(),
            ),
            options: self.result_options(),
        })
    }

    /// Opens the samples, with the memory events marked and the skid model set.
    pub fn open_run(&self) -> Result<Run> {
        let mut run = match &self.input {
            Input::RunDir(dir) => Run::open_dir(dir, self.binary_paths.clone(), self.on_damage)?,
            Input::Samples(s) => Run::open_jsonl(s)?,
            Input::PerfData(files) => Run::open_perf_data(files, self.binary_paths.clone())?,
        };
        run.mark_memory_events(&self.memory_events)?;
        run.set_skid_model(self.memory.skid)?;
        Ok(run)
    }

    /// Where `blame post` writes unless told: `RUN_DIR/results.bres`,
    /// `SAMPLES.bres`, or `PERF.bres` for `PERF.data`.
    pub fn default_output(&self) -> PathBuf {
        match &self.input {
            Input::RunDir(dir) => dir.join(run_dir::RESULTS_FILE),
            Input::Samples(s) => s.with_extension("bres"),
            Input::PerfData(files) => files
                .first()
                .map(|p| p.with_extension("bres"))
                .unwrap_or_else(|| PathBuf::from(run_dir::RESULTS_FILE)),
        }
    }
}

/// `path` made absolute (not resolving links), for provenance records.
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(run: &str) -> InputArgs {
        InputArgs::of_run_dir(Path::new(run), None, &[])
    }

    #[test]
    fn options_are_checked_once_with_their_flag_named() {
        let mut a = args("/nonexistent/run");
        a.loop_threshold = 1.5;
        let e = PostConfig::resolve(&a).err().unwrap().to_string();
        assert!(e.contains("--loop-threshold 1.5"), "{e}");
        let mut a = args("/nonexistent/run");
        a.cache_geometry = Some("lots".into());
        let e = PostConfig::resolve(&a).err().unwrap().to_string();
        assert!(e.contains("--cache-geometry"), "{e}");
        let mut a = args("/nonexistent/run");
        a.skid = Some("sideways".into());
        assert!(PostConfig::resolve(&a).is_err());
    }

    #[test]
    fn defaults_are_not_options_given_and_are_recorded_by_value() {
        let c = PostConfig::resolve(&args("/nonexistent/run")).unwrap();
        assert!(!c.options_given);
        assert_eq!(c.on_damage, OnDamage::Salvage);
        let opts = c.result_options();
        let names: Vec<&str> = opts.iter().map(|(k, _)| k.as_str()).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted, "sorted by name");
        assert!(opts.contains(&("loop-threshold".into(), "0.75".into())));
        assert!(opts.contains(&("cache-geometry".into(), "32768:64".into())));
        assert_eq!(
            c.default_output(),
            Path::new("/nonexistent/run/results.bres")
        );
        let mut a = args("/nonexistent/run");
        a.memory_events = vec!["b".into(), "a".into()];
        let c = PostConfig::resolve(&a).unwrap();
        assert!(c.options_given);
        assert!(c
            .result_options()
            .contains(&("memory-event".into(), "a,b".into())));
    }
}
