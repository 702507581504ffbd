//! Which slice of a run one `blame post` invocation processes.
//!
//! With at least as many processes as shards, shard I takes processes
//! I, I+N, I+2N...; with fewer, every shard takes every N-th sample of each
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
            return Err(PostError::Input(format!("shard {index}/{count}: the index must be below the count, counting from 0 (e.g. --shard 0/4)")));
        }
        Ok(ShardSpec { index, count })
    }

    /// Parses `I/N`.
    pub fn parse(text: &str) -> Result<Self> {
        let bad = || PostError::Input(format!("--shard {text:?}: expected I/N, e.g. 0/4"));
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        Self::new(
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        )
    }

    /// The shard given by a launcher's environment (srun, mpirun, PMI), if any.
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Option<Result<Self>> {
        for (rank, size) in [
            ("SLURM_PROCID", "SLURM_NTASKS"),
            ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),
            ("PMI_RANK", "PMI_SIZE"),
        ] {
            if let (Some(r), Some(s)) = (get(rank), get(size)) {
                let parsed = match (r.trim().parse(), s.trim().parse()) {
                    (Ok(r), Ok(s)) => Self::new(r, s),
                    _ => Err(PostError::Input(format!(
                        "{rank}={r} {size}={s}: not numbers"
                    ))),
                };
                return Some(parsed);
            }
        }
        None
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
            ShardSpec::from_env(env).unwrap().unwrap(),
            ShardSpec { index: 1, count: 2 }
        );
        assert!(ShardSpec::from_env(|_| None).is_none());
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
