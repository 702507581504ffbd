//! Which job a process belongs to, and whose it is, read from /proc: a
//! Slurm job step (from the cgroup Slurm made for it, else from the
//! `SLURM_JOB_ID`/`SLURM_STEP_ID` its launcher set), else its cgroup (a
//! batch system's or systemd's scope), else its login session.

use crate::config::{matches_any, Config};
use serde::{Deserialize, Serialize};
use std::fmt;

/// What groups processes into one run.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum JobKind {
    Slurm { job: String, step: Option<String> },
    Cgroup(String),
    Session(u32),
}

/// A job of one user: processes of different users never share a run.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct JobKey {
    pub kind: JobKind,
    pub uid: u32,
}

/// What /proc says about a process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessIdentity {
    pub uid: u32,
    pub gid: u32,
    /// The cgroup that tells jobs apart (v2, else systemd's v1 hierarchy), `/` when none.
    pub cgroup: String,
    pub slurm: Option<(String, Option<String>)>,
    pub session: u32,
    /// The parent process.
    pub ppid: u32,
    pub comm: String,
    /// The executable's file name.
    pub exe_name: String,
}

impl fmt::Display for JobKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JobKind::Slurm {
                job,
                step: Some(step),
            } => write!(f, "slurm-{job}.{step}"),
            JobKind::Slurm { job, step: None } => write!(f, "slurm-{job}"),
            JobKind::Cgroup(path) => write!(f, "cg-{}", sanitize(path)),
            JobKind::Session(sid) => write!(f, "session-{sid}"),
        }
    }
}

/// A path as one file name: `/`-separated components joined by `_`,
/// nothing but `[A-Za-z0-9._-]`, at most 96 bytes (the rest hashed).
fn sanitize(path: &str) -> String {
    let mut s: String = path
        .trim_matches('/')
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        s.insert(0, '_');
    }
    if s.len() > 96 {
        let hash = path.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        });
        s = format!("{}-{hash:016x}", &s[s.len() - 79..]);
    }
    s
}

impl JobKey {
    /// The run directory's name: `USER.slurm-123.0`, `USER.cg-PATH`, `USER.session-N`.
    pub fn dir_name(&self) -> String {
        format!("{}.{}", sanitize(&user_name(self.uid)), self.kind)
    }
}

/// The user's name, else the uid as a number.
pub fn user_name(uid: u32) -> String {
    nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid))
        .ok()
        .flatten()
        .map(|u| u.name)
        .unwrap_or_else(|| uid.to_string())
}

/// The Slurm job and step in a cgroup path (`.../job_123/step_0/...`,
/// cgroup v1 `slurm/uid_N/job_N/step_N` or v2 `slurmstepd.scope/job_N/step_N`).
pub fn slurm_of_cgroup(path: &str) -> Option<(String, Option<String>)> {
    let mut job = None;
    let mut step = None;
    for part in path.split('/') {
        if let Some(j) = part.strip_prefix("job_") {
            if !j.is_empty() && j.bytes().all(|b| b.is_ascii_digit()) {
                job = Some(j.to_string());
            }
        } else if let Some(s) = part.strip_prefix("step_") {
            if job.is_some() && !s.is_empty() {
                step = Some(s.to_string());
            }
        }
    }
    job.map(|j| (j, step))
}

/// The cgroup of a `/proc/PID/cgroup` text that tells jobs apart: the v2
/// path, else the systemd v1 hierarchy's, else `/`. Other v1 controllers
/// (a container's `memory:/...`) say nothing about jobs.
pub fn job_cgroup(text: &str) -> String {
    let mut v2 = None;
    let mut systemd = None;
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(ctrl), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        if ctrl.is_empty() {
            v2 = Some(path.to_string());
        } else if ctrl == "name=systemd" {
            systemd = Some(path.to_string());
        }
    }
    [v2, systemd]
        .into_iter()
        .flatten()
        .find(|p| p != "/")
        .unwrap_or_else(|| "/".into())
}

/// Reads a process's identity; `None` once it is gone.
pub fn identify(pid: u32) -> Option<ProcessIdentity> {
    let process = procfs::process::Process::new(i32::try_from(pid).ok()?).ok()?;
    let status = process.status().ok()?;
    let (uid, gid) = (status.ruid, status.rgid);
    let cgroup = std::fs::read_to_string(format!("/proc/{pid}/cgroup"))
        .map(|t| job_cgroup(&t))
        .unwrap_or_else(|_| "/".into());
    let slurm = slurm_of_cgroup(&cgroup).or_else(|| slurm_of_environ(pid));
    let stat = process.stat().ok()?;
    let ppid = u32::try_from(stat.ppid).ok()?;
    let session = u32::try_from(stat.session).ok()?;
    let comm = status.name;
    let exe_name = std::fs::read_link(format!("/proc/{pid}/exe"))
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    Some(ProcessIdentity {
        uid,
        gid,
        cgroup,
        slurm,
        session,
        ppid,
        comm,
        exe_name,
    })
}

/// `SLURM_JOB_ID` and `SLURM_STEP_ID` of a process's environment.
fn slurm_of_environ(pid: u32) -> Option<(String, Option<String>)> {
    let raw = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let var = |name: &str| -> Option<String> {
        raw.split(|&b| b == 0).find_map(|kv| {
            let v = kv.strip_prefix(name.as_bytes())?.strip_prefix(b"=")?;
            let v = std::str::from_utf8(v).ok()?;
            (!v.is_empty() && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
                .then(|| v.to_string())
        })
    };
    var("SLURM_JOB_ID").map(|job| (job, var("SLURM_STEP_ID")))
}

impl ProcessIdentity {
    /// The job this process's samples go to.
    pub fn job(&self) -> JobKey {
        let kind = match (&self.slurm, self.cgroup.as_str()) {
            (Some((job, step)), _) => JobKind::Slurm {
                job: job.clone(),
                step: step.clone(),
            },
            (None, "/") => JobKind::Session(self.session),
            (None, path) => JobKind::Cgroup(path.to_string()),
        };
        JobKey {
            kind,
            uid: self.uid,
        }
    }

    /// Whether the configuration lets this process be sampled.
    pub fn included(&self, cfg: &Config) -> bool {
        let user = user_name(self.uid);
        let user_listed = cfg.include_users.contains(&user);
        if !cfg.include_users.is_empty() && !user_listed {
            return false;
        }
        if !user_listed && self.uid < cfg.min_uid {
            return false;
        }
        if cfg.exclude_users.contains(&user) {
            return false;
        }
        let command = |patterns: &[String]| {
            matches_any(patterns, &self.comm) || matches_any(patterns, &self.exe_name)
        };
        if !cfg.include_commands.is_empty() && !command(&cfg.include_commands) {
            return false;
        }
        if command(&cfg.exclude_commands) {
            return false;
        }
        if !cfg.include_cgroups.is_empty() && !matches_any(&cfg.include_cgroups, &self.cgroup) {
            return false;
        }
        !matches_any(&cfg.exclude_cgroups, &self.cgroup)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slurm_steps_come_from_the_cgroups_slurm_makes() {
        assert_eq!(
            slurm_of_cgroup("/system.slice/slurmstepd.scope/job_4711/step_0/user/task_0"),
            Some(("4711".into(), Some("0".into())))
        );
        assert_eq!(
            slurm_of_cgroup("/slurm/uid_1000/job_12/step_batch/task_0"),
            Some(("12".into(), Some("batch".into())))
        );
        assert_eq!(
            slurm_of_cgroup("/user.slice/user-1000.slice/session-3.scope"),
            None
        );
    }

    #[test]
    fn the_job_cgroup_is_v2_else_systemds_never_a_containers_controller() {
        let container = "4:memory:/process_api/abc\n9:name=systemd:/\n0::/\n";
        assert_eq!(job_cgroup(container), "/");
        assert_eq!(job_cgroup("9:name=systemd:/\n0::/jobs/a\n"), "/jobs/a");
        assert_eq!(
            job_cgroup("9:name=systemd:/user.slice/session-2.scope\n0::/\n"),
            "/user.slice/session-2.scope"
        );
    }

    fn identity(uid: u32, cgroup: &str, slurm: Option<(&str, Option<&str>)>) -> ProcessIdentity {
        ProcessIdentity {
            uid,
            gid: uid,
            cgroup: cgroup.into(),
            slurm: slurm.map(|(j, s)| (j.into(), s.map(Into::into))),
            session: 77,
            ppid: 1,
            comm: "solver".into(),
            exe_name: "solver".into(),
        }
    }

    #[test]
    fn jobs_are_slurm_steps_then_cgroups_then_sessions_and_never_span_users() {
        let a = identity(1001, "/", Some(("9", Some("0"))));
        assert_eq!(a.job().dir_name().split_once('.').unwrap().1, "slurm-9.0");
        let b = identity(1001, "/jobs/b", None);
        assert_eq!(b.job().kind, JobKind::Cgroup("/jobs/b".into()));
        assert!(b.job().dir_name().ends_with(".cg-jobs_b"));
        let c = identity(1001, "/", None);
        assert_eq!(c.job().kind, JobKind::Session(77));
        assert_ne!(identity(1002, "/jobs/b", None).job(), b.job());
    }

    #[test]
    fn names_are_one_safe_path_component() {
        assert_eq!(sanitize("/a/../b c"), "a_.._b_c");
        assert_eq!(sanitize("/"), "_");
        assert_eq!(sanitize("/.hidden"), "_.hidden");
        let long = format!("/{}", "x/".repeat(80));
        let s = sanitize(&long);
        assert!(s.len() <= 96 && !s.contains('/'), "{s}");
    }

    #[test]
    fn the_lists_decide_who_is_sampled() {
        let mut cfg = Config::default();
        assert!(
            !identity(0, "/", None).included(&cfg),
            "root is below min_uid"
        );
        assert!(identity(1001, "/", None).included(&cfg));
        cfg.exclude_commands = vec!["sol*".into()];
        assert!(!identity(1001, "/", None).included(&cfg));
        cfg.exclude_commands.clear();
        cfg.include_cgroups = vec!["/jobs/*".into()];
        assert!(!identity(1001, "/", None).included(&cfg));
        assert!(identity(1001, "/jobs/a", None).included(&cfg));
    }
}
