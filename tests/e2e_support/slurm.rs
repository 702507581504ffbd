//! A real single-node Slurm for the tests (`scripts/slurm-up.sh`): one
//! test binary at a time may hold it (cargo runs test binaries one after
//! another; inside a binary, one test uses it).

use super::run_ok;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The cluster of this test; stopped when dropped.
pub struct Cluster {
    pub conf: String,
}

impl Cluster {
    pub fn up() -> Option<Cluster> {
        let root = std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("Uid:"))
                    .map(|v| v.split_whitespace().nth(1) == Some("0"))
            })
            .unwrap_or(false);
        if !root {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI runs as root and must bring up Slurm"
            );
            eprintln!("skipping: starting Slurm's daemons needs root");
            return None;
        }
        let out = run_ok(Command::new("bash").arg(script("slurm-up.sh")));
        let text = String::from_utf8_lossy(&out.stdout);
        let conf = text
            .lines()
            .find_map(|l| l.strip_prefix("export SLURM_CONF="))
            .expect("slurm-up.sh prints SLURM_CONF")
            .to_string();
        Some(Cluster { conf })
    }

    /// A Slurm (or any) command with the cluster's configuration and the
    /// environment MPI needs as root.
    pub fn cmd(&self, program: &str, dir: &Path) -> Command {
        let mut c = Command::new(program);
        c.current_dir(dir)
            .env("SLURM_CONF", &self.conf)
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .env("OMPI_MCA_rmaps_base_oversubscribe", "1");
        c
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new("bash").arg(script("slurm-down.sh")).output();
    }
}

pub fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts")
        .join(name)
}
