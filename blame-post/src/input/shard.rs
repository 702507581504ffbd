//! Which slice of a run one `blame post` invocation processes.
//!
//! With at least as many processes as shards, shard I takes the I-th of N
//! contiguous blocks of the processes in the order they are stored (node
//! file, then section), so it opens only the files its processes are in;
//! with fewer, every shard takes every N-th sample of each
//! process. Either way each sample is in exactly one shard, and the merge (a
//! sum) gives the same result for any N.

use crate::error::{PostError, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardSpec {
    pub index: u32,
    pub count: u32,
}

impl ShardSpec {
    pub const WHOLE: ShardSpec = ShardSpec { index: 0, count: 1 };

    pub fn new(index: u32, count: u32) -> Result<Self> {
        if count == 0 || index >= count {
            return Err(PostError::ShardOutOfRange { index, count });
        }
        Ok(ShardSpec { index, count })
    }

    /// Parses `I/N`.
    pub fn parse(text: &str) -> Result<Self> {
        let bad = || PostError::ShardSyntax {
            text: text.to_string(),
        };
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        Self::new(
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        )
    }

    /// The shard given by a launcher's environment, if any: a Slurm job
    /// step (`srun`: `SLURM_STEP_ID` with `SLURM_PROCID` and the step's task
    /// count), `mpirun` (`OMPI_COMM_WORLD_RANK/SIZE`) or a PMI launcher
    /// (`PMI_RANK/SIZE`), each with more than one task. A batch script's
    /// shell has `SLURM_PROCID=0` and the job's task count but no step: it
    /// is not sharded unless `anywhere` (`--shard auto`) says so.
    pub fn from_env(get: impl Fn(&str) -> Option<String>, anywhere: bool) -> Option<Result<Self>> {
        let in_step = get("SLURM_STEP_ID").is_some_and(|s| s.trim().parse::<u32>().is_ok());
        // A step's own task count; the job's outside a step.
        let slurm_size = if in_step && get("SLURM_STEP_NUM_TASKS").is_some() {
            "SLURM_STEP_NUM_TASKS"
        } else {
            "SLURM_NTASKS"
        };
        for (rank, size, applies) in [
            ("SLURM_PROCID", slurm_size, in_step || anywhere),
            ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", true),
            ("PMI_RANK", "PMI_SIZE", true),
        ] {
            if !applies {
                continue;
            }
            if let (Some(r), Some(s)) = (get(rank), get(size)) {
                let parsed = match (r.trim().parse::<u32>(), s.trim().parse::<u32>()) {
                    (Ok(_), Ok(1)) => return None,
                    (Ok(r), Ok(s)) => Self::new(r, s),
                    _ => Err(PostError::ShardEnvironment {
                        rank_var: rank,
                        rank: r,
                        size_var: size,
                        size: s,
                    }),
                };
                return Some(parsed);
            }
        }
        None
    }

    /// Shard I of N owns the I-th of N contiguous blocks of `total` items
    /// (processes in the order they are stored, so a shard reads few files).
    pub fn owns_block(&self, position: usize, total: usize) -> bool {
        (position as u128 * self.count as u128 / total.max(1) as u128) as u32 == self.index
    }

    pub fn owns_unit(&self, unit: usize) -> bool {
        unit % self.count as usize == self.index as usize
    }

    pub fn is_whole(&self) -> bool {
        self.count == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rejects() {
        assert_eq!(
            ShardSpec::parse("1/3").unwrap(),
            ShardSpec { index: 1, count: 3 }
        );
        assert!(ShardSpec::parse("3/3").is_err());
        assert!(ShardSpec::parse("x").is_err());
        assert!(ShardSpec::parse("0/0").is_err());
    }

    #[test]
    fn environment_of_launchers() {
        let env = |k: &str| match k {
            "OMPI_COMM_WORLD_RANK" => Some("1".to_string()),
            "OMPI_COMM_WORLD_SIZE" => Some("2".to_string()),
            _ => None,
        };
        assert_eq!(
            ShardSpec::from_env(env, false).unwrap().unwrap(),
            ShardSpec { index: 1, count: 2 }
        );
        assert!(ShardSpec::from_env(|_| None, false).is_none());
    }

    /// A Slurm batch script's shell (no job step) is not sharded; an srun
    /// step with several tasks is, and `--shard auto` shards the shell too.
    #[test]
    fn slurm_shards_only_job_steps_with_several_tasks() {
        let batch = |k: &str| match k {
            "SLURM_PROCID" => Some("0".to_string()),
            "SLURM_NTASKS" => Some("4".to_string()),
            "SLURM_JOB_ID" => Some("17".to_string()),
            _ => None,
        };
        assert!(ShardSpec::from_env(batch, false).is_none());
        assert_eq!(
            ShardSpec::from_env(batch, true).unwrap().unwrap(),
            ShardSpec { index: 0, count: 4 }
        );
        let step = |k: &str| match k {
            "SLURM_PROCID" => Some("2".to_string()),
            "SLURM_NTASKS" => Some("8".to_string()),
            "SLURM_STEP_NUM_TASKS" => Some("4".to_string()),
            "SLURM_STEP_ID" => Some("0".to_string()),
            _ => None,
        };
        assert_eq!(
            ShardSpec::from_env(step, false).unwrap().unwrap(),
            ShardSpec { index: 2, count: 4 }
        );
        let single = |k: &str| match k {
            "SLURM_PROCID" => Some("0".to_string()),
            "SLURM_STEP_NUM_TASKS" => Some("1".to_string()),
            "SLURM_STEP_ID" => Some("3".to_string()),
            _ => None,
        };
        assert!(ShardSpec::from_env(single, false).is_none());
    }

    #[test]
    fn every_position_in_exactly_one_block_and_blocks_even() {
        for total in [1usize, 2, 5, 64, 1000] {
            for n in [1u32, 2, 3, 7] {
                let sizes: Vec<usize> = (0..n)
                    .map(|i| {
                        let s = ShardSpec::new(i, n).unwrap();
                        (0..total).filter(|&p| s.owns_block(p, total)).count()
                    })
                    .collect();
                assert_eq!(sizes.iter().sum::<usize>(), total, "{total}/{n}");
                let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
                assert!(hi - lo <= 1, "{total}/{n}: {sizes:?}");
            }
        }
    }

    #[test]
    fn every_unit_in_exactly_one_shard() {
        for n in [1u32, 2, 3, 7] {
            for unit in 0..50 {
                let owners = (0..n)
                    .filter(|&i| ShardSpec::new(i, n).unwrap().owns_unit(unit))
                    .count();
                assert_eq!(owners, 1);
            }
        }
    }
}
