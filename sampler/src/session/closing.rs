//! What a closed recording says: notices of write errors (each once), a
//! full disk, lost samples, stacks cut short and a stopping signal, and
//! its manifest, with the static dbs of its executables.

use super::{notice, Run, Target};
use crate::events::EventSpec;
use crate::recording::Recording;
use crate::stop::Control;
use crate::{procfs, CallGraph};
use blame_formats::manifest::{EventEntry, Manifest, RecordedDb};
use blame_formats::run_dir;
use blame_formats::stream::Sampling;
use std::path::PathBuf;

impl Run<'_> {
    /// The notices of a closed recording: write errors, a full disk, lost
    /// samples, stacks cut short, a stopping signal. Returns the samples lost.
    pub(super) fn closing_notices(
        &mut self,
        rec: &Recording,
        control: &Control,
        stack_size: u32,
    ) -> u64 {
        let disk_full = self.write_error_notices(rec);
        let lost = self.lost_notice(rec, disk_full);
        self.cut_stacks_notice(rec, stack_size);
        if let Some(sig) = control.interrupted {
            notice(
                &mut self.notices,
                format!("stopped by signal {sig}; every stream was closed"),
            );
        }
        lost
    }

    /// Each distinct write error, and a full disk said as such; true when
    /// the disk was full.
    fn write_error_notices(&mut self, rec: &Recording) -> bool {
        for e in summarize_errors(&rec.sink.errors) {
            notice(&mut self.notices, e);
        }
        // A full disk loses samples too: what to do is free space, not sample less.
        let disk_full =
            rec.sink.errors.iter().any(|e| {
                e.contains("No space left on device") || e.contains("Disk quota exceeded")
            });
        if disk_full {
            notice(
                &mut self.notices,
                format!(
                    "the disk holding {} is full (or over quota): free space, or record to another directory with -o",
                    self.opts.output.display()
                ),
            );
        }
        disk_full
    }

    /// The samples lost, said with what to do about them.
    fn lost_notice(&mut self, rec: &Recording, disk_full: bool) -> u64 {
        let lost: u64 =
            rec.sink.entries.iter().map(|e| e.lost).sum::<u64>() + rec.stats.unattributed_lost;
        if lost > 0 && !disk_full {
            notice(
                &mut self.notices,
                format!(
                    "{lost} samples lost to ring-buffer overruns; lower -F or use --call-graph fp"
                ),
            );
        } else if lost > 0 {
            notice(
                &mut self.notices,
                format!("{lost} samples lost while the disk was full"),
            );
        }
        lost
    }

    /// At least 5% of the samples (an unwinder stopping in ld.so's lazy binding
    /// trampoline now and then is not worth a notice): say why their stacks
    /// lack outer frames.
    fn cut_stacks_notice(&mut self, rec: &Recording, stack_size: u32) {
        let opts = self.opts;
        if rec.stats.cut_stacks > 0 && rec.stats.cut_stacks * 20 >= rec.stats.samples.max(1) {
            notice(
                &mut self.notices,
                format!(
                    "{} of {} samples ({:.0}%) have stacks cut short at the end of the {}-byte user-stack copy ({}): their outer frames, often main, are missing; {}",
                    rec.stats.cut_stacks,
                    rec.stats.samples,
                    100.0 * rec.stats.cut_stacks as f64 / rec.stats.samples.max(1) as f64,
                    stack_size,
                    if opts.call_graph == CallGraph::Hybrid {
                        "functions without frame pointers whose frames go past the copy, or that use rbp for data, so the frame-pointer callchain cannot continue there"
                    } else {
                        "frames with large local arrays or deep call chains, as in MPI solvers"
                    },
                    if opts.call_graph == CallGraph::Hybrid {
                        "record with a larger --stack-size (e.g. 8192), or --call-graph dwarf --stack-size 65528"
                    } else {
                        "record with --stack-size 65528 (and a lower -F if samples are lost)"
                    }
                ),
            );
        }
    }

    /// The recording's manifest: the command, how it was sampled, what was
    /// counted and lost, each process's file and section, the notices, and
    /// the static dbs of its executables.
    pub(super) fn manifest(
        self,
        rec: &mut Recording,
        control: &Control,
        sampler_name: &str,
        call_graph: &str,
        start_unix_ns: u64,
        lost: u64,
    ) -> Manifest {
        let opts = self.opts;
        let sampling = self.sampling;
        let static_dbs = static_dbs_of(&rec.source.executables);
        Manifest {
            command: match &opts.target {
                Target::Command(argv) => argv.clone(),
                Target::Pid { pid, .. } => {
                    procfs::cmdline(*pid).unwrap_or_else(|| vec![pid.to_string()])
                }
            },
            host: procfs::hostname(),
            sampler: sampler_name.into(),
            call_graph: call_graph.into(),
            events: self
                .events
                .iter()
                .map(|e: &EventSpec| {
                    let d = e.desc(sampling.clone());
                    let (mode, rate) = match sampling {
                        Sampling::Frequency(hz) => ("frequency", hz),
                        Sampling::Period(p) => ("period", p),
                    };
                    EventEntry {
                        name: d.name,
                        mode: mode.into(),
                        rate,
                        unit: d.unit,
                        memory: d.memory,
                    }
                })
                .collect(),
            start_unix_ns,
            end_unix_ns: procfs::unix_time_ns(),
            exit_status: control.root_status.and_then(|s| s.0),
            signal: control.root_status.and_then(|s| s.1),
            interrupted: control.interrupted.map(|s| format!("signal {s}")),
            samples: rec.stats.samples,
            lost,
            processes: std::mem::take(&mut rec.sink.entries),
            node_files: rec.sink.closed_node_file.take().into_iter().collect(),
            notices: self.notices,
            cache: procfs::l1_data_cache(),
            ring_buffer_kib: self.ring_kib,
            static_db: static_dbs.first().map(|d| d.db.clone()),
            static_dbs,
        }
    }
}

/// Write errors, each once with how often it happened (a full disk fails
/// every write of every stream the same way).
fn summarize_errors(errors: &[String]) -> Vec<String> {
    let mut distinct: Vec<(&String, usize)> = Vec::new();
    for e in errors {
        match distinct.iter_mut().find(|(d, _)| *d == e) {
            Some((_, n)) => *n += 1,
            None => distinct.push((e, 1)),
        }
    }
    const SHOWN: usize = 5;
    let mut out: Vec<String> = distinct
        .iter()
        .take(SHOWN)
        .map(|(e, n)| match n {
            1 => format!("write error: {e}"),
            n => format!("write error ({n} times): {e}"),
        })
        .collect();
    if distinct.len() > SHOWN {
        let rest: usize = distinct[SHOWN..].iter().map(|(_, n)| n).sum();
        out.push(format!(
            "{rest} more write errors of {} other kinds",
            distinct.len() - SHOWN
        ));
    }
    out
}

/// The static dbs of the run's executables (launchers left out): each
/// found by its build-id in the stores `blame cc` registers links in
/// ([`blame_formats::db_store::stores`]); when none is, the db of the
/// directory the recording ran in (`$BLAME_DB`, else `.blame/static.db`), if
/// there is one. `blame post` then finds it from any directory.
fn static_dbs_of(executables: &std::collections::BTreeSet<PathBuf>) -> Vec<RecordedDb> {
    use blame_formats::db_store;
    let stores = db_store::stores();
    let apps: Vec<&PathBuf> = executables
        .iter()
        .filter(|e| !blame_formats::stream::is_launcher(&[e.display().to_string()]))
        .collect();
    let mut out: Vec<RecordedDb> = Vec::new();
    for exe in &apps {
        let Some(id) = blame_capture::locate::build_id_of(exe) else {
            continue;
        };
        if let Some(db) = db_store::lookup_any(&stores, &id) {
            if !out.iter().any(|d| d.db == db) {
                out.push(RecordedDb {
                    db,
                    binary: exe.to_path_buf(),
                    build_id: id.iter().map(|b| format!("{b:02x}")).collect(),
                    found_by: "build-id".into(),
                });
            }
        }
    }
    if out.is_empty() {
        let here = run_dir::requested_db(None)
            .unwrap_or_else(|| PathBuf::from(blame_formats::static_db::DEFAULT_PATH));
        if here.is_file() || blame_formats::analysis_queue::dir_of(&here).is_dir() {
            if let Ok(db) = std::path::absolute(&here) {
                out.push(RecordedDb {
                    db,
                    binary: apps.first().map(|e| e.to_path_buf()).unwrap_or_default(),
                    build_id: String::new(),
                    found_by: "directory".into(),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_write_errors_are_said_once_with_their_count() {
        let mut errors = vec!["pid-1.bstream: No space left on device".to_string(); 498];
        errors.push("pid-2.bstream: No space left on device".into());
        let said = summarize_errors(&errors);
        assert_eq!(
            said,
            [
                "write error (498 times): pid-1.bstream: No space left on device",
                "write error: pid-2.bstream: No space left on device"
            ]
        );
        let many: Vec<String> = (0..9).map(|i| format!("e{i}")).collect();
        let said = summarize_errors(&many);
        assert_eq!(said.len(), 6);
        assert_eq!(said[5], "4 more write errors of 4 other kinds");
    }
}
