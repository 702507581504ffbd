//! How a `blame` command fails, and so its exit status: a usage error (the
//! command line asks for what cannot be done) exits with 2, as perf's; any
//! other error with 1. The libraries' usage errors are variants of their
//! own error types (`RecordError::Usage`, `DaemonError::Usage`,
//! `ScalingError::Usage`); they become a `Failure::Usage` where the command
//! receives them, by their type.

use blame_daemon::DaemonError;
use blame_report::across::scaling::ScalingError;
use blame_sampler::RecordError;

#[derive(Debug)]
pub enum Failure {
    /// The command line asks for what cannot be done.
    Usage(anyhow::Error),
    /// Anything else.
    Error(anyhow::Error),
}

impl Failure {
    /// A usage error the command's own checks found.
    pub fn usage(text: impl std::fmt::Display) -> Failure {
        Failure::Usage(anyhow::anyhow!("{text}"))
    }

    pub fn error(&self) -> &anyhow::Error {
        match self {
            Failure::Usage(e) | Failure::Error(e) => e,
        }
    }

    /// The exit status of the command that failed so.
    pub fn exit_status(&self) -> u8 {
        match self {
            Failure::Usage(_) => 2,
            Failure::Error(_) => 1,
        }
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Failure {
        Failure::Error(e)
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Failure {
        Failure::Error(e.into())
    }
}

impl From<RecordError> for Failure {
    fn from(e: RecordError) -> Failure {
        match e {
            RecordError::Usage(_) => Failure::Usage(e.into()),
            _ => Failure::Error(e.into()),
        }
    }
}

impl From<DaemonError> for Failure {
    fn from(e: DaemonError) -> Failure {
        match e {
            DaemonError::Usage(_) => Failure::Usage(e.into()),
            _ => Failure::Error(e.into()),
        }
    }
}

impl From<ScalingError> for Failure {
    fn from(e: ScalingError) -> Failure {
        match e {
            ScalingError::Usage(_) => Failure::Usage(e.into()),
            _ => Failure::Error(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_errors_exit_2_by_their_type() {
        let usage: Failure = RecordError::from(blame_sampler::UsageError::RateAndPeriod).into();
        assert_eq!(usage.exit_status(), 2);
        let other: Failure = RecordError::Busy(std::io::Error::other("busy")).into();
        assert_eq!(other.exit_status(), 1);
        let scaling: Failure =
            ScalingError::from(blame_report::across::scaling::ScalingUsage::TooFewRuns).into();
        assert_eq!(scaling.exit_status(), 2);
        assert_eq!(Failure::from(anyhow::anyhow!("x")).exit_status(), 1);
    }
}
