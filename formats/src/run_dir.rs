//! The layout of a run directory, in one place: which files hold samples
//! (node files and stream files), where results and their shards go and how
//! they are named, where the manifests are, and which static db a run is
//! resolved against when none is named. Every stage that looks into a run
//! directory (the recorder, `blame post`, `merge`, `report`, `dump`, the
//! daemon) asks here instead of spelling names and globs itself.

use crate::node_file::is_node_file;
use std::io;
use std::path::{Path, PathBuf};

/// The results `blame post` writes into a run directory.
pub const RESULTS_FILE: &str = "results.bres";
/// The run directory `blame record` writes and `post`, `report`, `export`,
/// `check` and `dump` read when none is named (as perf's `perf.data`).
pub const DEFAULT_RUN_DIR: &str = "blame.run";
/// The manifest of a recorder that is not itself an MPI rank.
pub const MANIFEST_FILE: &str = "manifest.json";
/// Extension of a per-process sample stream (`--per-process-files`).
pub const STREAM_EXTENSION: &str = "bstream";
/// The kernel's symbol table, saved when kernel frames are recorded.
pub const KALLSYMS_FILE: &str = "kallsyms";
/// The kernel's vDSO (its `clock_gettime`, `gettimeofday`, ...) as the
/// recorder's process had it mapped: no file on disk holds it, and timers
/// in loops put samples in it.
pub const VDSO_FILE: &str = "vdso.so";

/// The allocation log of process `pid` (`--track-allocations`; the tracer
/// in `alloc-tracer/` writes `$BLAME_ALLOC_DIR/alloc-PID.balloc`).
pub fn alloc_log_path(dir: &Path, pid: u32) -> PathBuf {
    dir.join(format!("alloc-{pid}.balloc"))
}

/// The files a recording leaves in a run directory: sample files,
/// allocation logs, the kernel's symbols, manifests.
pub fn recording_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    files_where(dir, |p, name| {
        is_sample_file(p)
            || name.ends_with(".balloc")
            || name == KALLSYMS_FILE
            || name == VDSO_FILE
            || (name.starts_with("manifest") && name.ends_with(".json"))
    })
}

/// The results computed from a recording: the whole results, every
/// shard's, and the processes' memory profiles.
pub fn results_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let shard_prefix = format!("{RESULTS_FILE}.shard-");
    files_where(dir, |_, name| {
        name == RESULTS_FILE || name.starts_with(&shard_prefix) || is_memory_profile(name)
    })
}

/// The memory profile of process `pid` (written by `blame post` from its
/// allocation log): `memory-PID.json` (`memory_profile.rs`).
pub fn memory_profile_path(dir: &Path, pid: u32) -> PathBuf {
    crate::memory_profile::path(dir, pid)
}

/// Whether `path` is named as a memory profile (`memory-PID.json`).
pub fn is_memory_profile_path(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| is_memory_profile(&n.to_string_lossy()))
}

fn is_memory_profile(name: &str) -> bool {
    name.strip_prefix("memory-")
        .and_then(|n| n.strip_suffix(".json"))
        .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

/// The files of `dir` for which `keep(path, name)` holds, sorted.
fn files_where(dir: &Path, keep: impl Fn(&Path, &str) -> bool) -> io::Result<Vec<PathBuf>> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            keep(p, &name)
        })
        .collect();
    found.sort();
    Ok(found)
}

/// True for a file that holds samples: a node file or a stream file.
pub fn is_sample_file(path: &Path) -> bool {
    path.extension().is_some_and(|x| x == STREAM_EXTENSION) || is_node_file(path)
}

/// The sample files of a run directory (node files and stream files), in
/// the order post reads them (sorted by name).
pub fn sample_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    files_where(dir, |p, _| is_sample_file(p))
}

/// The name of the manifest a recorder writes: `manifest.json`, or
/// `manifest-rank-N.json` when the recorder itself runs as MPI rank N (so
/// per-rank recorders share a directory).
pub fn manifest_name(own_rank: Option<u32>) -> String {
    match own_rank {
        Some(r) => format!("manifest-rank-{r}.json"),
        None => MANIFEST_FILE.to_string(),
    }
}

/// Every manifest of a run directory (`manifest.json` and the per-rank
/// ones), sorted by name.
pub fn manifest_files(dir: &Path) -> Vec<PathBuf> {
    files_where(dir, |_, name| {
        name.starts_with("manifest") && name.ends_with(".json")
    })
    .unwrap_or_default()
}

/// A shard's results beside the whole results `whole`, as `blame post
/// --shard I/N` writes them: `NAME.shard-I-of-N`.
pub fn shard_path(whole: &Path, index: u32, count: u32) -> PathBuf {
    let name = whole
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| RESULTS_FILE.into());
    whole.with_file_name(format!("{name}.shard-{index}-of-{count}"))
}

/// One shard's results found beside the whole results.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ShardFile {
    pub index: u32,
    pub count: u32,
    pub path: PathBuf,
}

/// The shard results beside `whole` (any shard count), sorted by index.
pub fn shard_files(whole: &Path) -> io::Result<Vec<ShardFile>> {
    let dir = whole
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let prefix = format!(
        "{}.shard-",
        whole
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    );
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some((i, n)) = name
            .strip_prefix(&prefix)
            .and_then(|rest| rest.split_once("-of-"))
        else {
            continue;
        };
        if let (Ok(index), Ok(count)) = (i.parse(), n.parse()) {
            out.push(ShardFile { index, count, path });
        }
    }
    out.sort();
    Ok(out)
}

/// The shards of `count` that have not written their results beside
/// `whole` yet, as runs of consecutive indices: `I/N` for one shard,
/// `I-J/N` for shards I to J (a merge of 10^5 shards started early names
/// a few runs, not 10^5 shards).
pub fn missing_shards(found: &[ShardFile], count: u32) -> Vec<String> {
    let mut written = vec![false; count as usize];
    for s in found.iter().filter(|s| s.count == count) {
        if let Some(w) = written.get_mut(s.index as usize) {
            *w = true;
        }
    }
    let mut runs = Vec::new();
    let mut i = 0;
    while i < written.len() {
        if written[i] {
            i += 1;
            continue;
        }
        let start = i;
        while i < written.len() && !written[i] {
            i += 1;
        }
        runs.push(match i - 1 - start {
            0 => format!("{start}/{count}"),
            _ => format!("{start}-{}/{count}", i - 1),
        });
    }
    runs
}

/// The static db named by the user: `--static` (`explicit`), else
/// `$BLAME_DB` when set and not empty.
pub fn requested_db(explicit: Option<&Path>) -> Option<PathBuf> {
    explicit.map(Path::to_path_buf).or_else(|| {
        std::env::var_os("BLAME_DB")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_files_are_node_and_stream_files_sorted() {
        let d = tempfile::tempdir().unwrap();
        for name in [
            "rank-1.bstream",
            "node-a.bnode",
            "rank-0.bstream",
            "manifest.json",
            "results.bres",
            "x.bstream.tmp",
        ] {
            std::fs::write(d.path().join(name), b"").unwrap();
        }
        let names: Vec<String> = sample_files(d.path())
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["node-a.bnode", "rank-0.bstream", "rank-1.bstream"]);
    }

    #[test]
    fn shards_are_named_and_found_beside_the_whole() {
        let d = tempfile::tempdir().unwrap();
        let whole = d.path().join(RESULTS_FILE);
        for (i, n) in [(1, 3), (0, 3), (0, 2)] {
            let p = shard_path(&whole, i, n);
            assert_eq!(
                p.file_name().unwrap().to_string_lossy(),
                format!("results.bres.shard-{i}-of-{n}")
            );
            std::fs::write(p, b"").unwrap();
        }
        std::fs::write(d.path().join("results.bres.shard-x-of-3"), b"").unwrap();
        let found = shard_files(&whole).unwrap();
        let got: Vec<(u32, u32)> = found.iter().map(|s| (s.index, s.count)).collect();
        assert_eq!(got, [(0, 2), (0, 3), (1, 3)]);
        assert_eq!(missing_shards(&found, 3), ["2/3"]);
        assert_eq!(missing_shards(&found, 2), ["1/2"]);
        assert_eq!(missing_shards(&found, 5), ["0-4/5"]);
        let some: Vec<ShardFile> = [1, 2, 5, 100_000 - 1]
            .into_iter()
            .map(|index| ShardFile {
                index,
                count: 100_000,
                path: whole.clone(),
            })
            .collect();
        assert_eq!(
            missing_shards(&some, 100_000),
            ["0/100000", "3-4/100000", "6-99998/100000"]
        );
    }

    #[test]
    fn a_recording_and_its_results_are_told_apart() {
        let d = tempfile::tempdir().unwrap();
        for name in [
            "pid-1.bstream",
            "node-h.bnode",
            "alloc-1.balloc",
            KALLSYMS_FILE,
            VDSO_FILE,
            "manifest.json",
            RESULTS_FILE,
            "results.bres.shard-0-of-2",
            "memory-1.json",
            "memory-x.json",
            "notes.txt",
        ] {
            std::fs::write(d.path().join(name), b"").unwrap();
        }
        let names = |v: Vec<PathBuf>| -> Vec<String> {
            v.iter()
                .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(
            names(recording_files(d.path()).unwrap()),
            [
                "alloc-1.balloc",
                "kallsyms",
                "manifest.json",
                "node-h.bnode",
                "pid-1.bstream",
                "vdso.so"
            ]
        );
        assert_eq!(
            names(results_files(d.path()).unwrap()),
            ["memory-1.json", "results.bres", "results.bres.shard-0-of-2"]
        );
        assert_eq!(
            alloc_log_path(Path::new("/r"), 7),
            Path::new("/r/alloc-7.balloc")
        );
    }

    #[test]
    fn manifests_of_every_recorder_are_listed() {
        let d = tempfile::tempdir().unwrap();
        for name in ["manifest-rank-1.json", "manifest.json", "other.json"] {
            std::fs::write(d.path().join(name), b"{}").unwrap();
        }
        let names: Vec<String> = manifest_files(d.path())
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["manifest-rank-1.json", "manifest.json"]);
        assert_eq!(manifest_name(Some(3)), "manifest-rank-3.json");
        assert_eq!(manifest_name(None), MANIFEST_FILE);
    }

    #[test]
    fn a_named_db_comes_before_the_default() {
        let named = Path::new("/x/named.db");
        assert_eq!(requested_db(Some(named)).as_deref(), Some(named));
        assert_eq!(
            crate::manifest::static_db_for(Some(named), None).as_deref(),
            Some(named)
        );
    }
}
