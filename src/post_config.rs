//! The options of `post`, `report` and `export`, resolved once (as
//! ripgrep's `HiArgs`): `cmd_post.rs` parses, [`PostConfig::resolve`] checks
//! and completes every option (defaults, the run's manifest, the static db
//! named), and everything after works on the typed config.

use crate::cmd_post::InputArgs;
use anyhow::{bail, Context, Result};
use blame_formats::results::{FileId, InputsId, Provenance};
use blame_formats::run_dir;
use blame_formats::static_db::CacheGeometry;
use blame_post::aggregate::DEFAULT_LOOP_THRESHOLD;
use blame_post::datacentric::SkidModel;
use blame_post::{MemoryOptions, OnDamage, Run};
use std::path::{Path, PathBuf};

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
        run_dir::static_db_for(self.requested_db.as_deref(), self.run_dir())
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
