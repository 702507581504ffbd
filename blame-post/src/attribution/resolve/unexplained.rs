//! Why a sample reaches no named variable: the coverage report's reasons,
//! as results and reports word them.

/// Why a sample reached no named variable: the coverage report's reasons.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Unexplained {
    /// No frame of the stack has a static summary (code built without
    /// `blame cc`); `function` is the innermost frame.
    NoSummary { function: String },
    /// A frame without symbols (no symbol table or debug info for the object).
    NoSymbols { function: String },
    /// The sampled line of a summarised function is in no variable's blame
    /// (line 0, a line the IR does not have, a statement that computes nothing).
    LineBlamesNothing { function: String, line: u32 },
    /// The caller has no call to the callee at the frame's line.
    CallSiteNotFound {
        function: String,
        line: u32,
        callee: String,
    },
    /// The call's outputs reach no variable of the caller.
    NothingBound { function: String, callee: String },
    /// A thread of a library or runtime (its stack starts in the thread
    /// library and holds none of the program's code): a worker waiting or
    /// spinning between the program's calls; `function` is the innermost frame.
    RuntimeThread { function: String },
    /// The MPI runtime starting or shutting down (`MPI_Init`, `MPI_Finalize`
    /// and their kin): time the program spends on no data of its own.
    RuntimeLifecycle { function: String, callee: String },
}

/// Whether `callee` starts or shuts down the MPI runtime: `MPI_Init`,
/// `MPI_Init_thread`, `MPI_Finalize` as C, profiling (`PMPI_`) or Fortran
/// entry points, or Open MPI's and MPICH's internal routines they tail-call.
pub fn is_runtime_lifecycle(callee: &str) -> bool {
    let name = callee.to_ascii_lowercase();
    let name = name.trim_end_matches('_');
    let name = name.strip_prefix('p').unwrap_or(name);
    matches!(
        name,
        "mpi_init"
            | "mpi_init_thread"
            | "mpi_finalize"
            | "ompi_mpi_init"
            | "ompi_mpi_finalize"
            | "mpir_init_thread"
            | "mpid_finalize"
    )
}

impl std::fmt::Display for Unexplained {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let d = crate::input::symbolize::demangle;
        match self {
            Unexplained::NoSummary { function } => write!(
                f,
                "no static summary for {} or its callers (not built with blame cc)",
                d(function)
            ),
            Unexplained::NoSymbols { function } => {
                // `[libomp.so.5+0x7d6d2]`: one reason per object, not per address.
                let object = function
                    .trim_start_matches('[')
                    .split('+')
                    .next()
                    .unwrap_or(function)
                    .trim_end_matches(']');
                write!(f, "code without symbols or debug info in {object}")
            }
            Unexplained::LineBlamesNothing { function, line } => {
                write!(f, "line {line} of {} blames no variable", d(function))
            }
            Unexplained::CallSiteNotFound {
                function,
                line,
                callee,
            } => write!(
                f,
                "no call to {} found at line {line} of {}",
                d(callee),
                d(function)
            ),
            Unexplained::NothingBound { function, callee } => write!(
                f,
                "the call to {} in {} reaches no variable",
                d(callee),
                d(function)
            ),
            Unexplained::RuntimeThread { function } => write!(
                f,
                "a library's or runtime's own thread, outside the program's code (idle or spinning worker, in {})",
                d(function)
            ),
            Unexplained::RuntimeLifecycle { function, callee } => write!(
                f,
                "MPI start-up or shut-down (the call to {} in {}): the runtime's own work, on no data of the program",
                d(callee),
                d(function)
            ),
        }
    }
}

#[cfg(test)]
mod lifecycle_tests {
    use super::is_runtime_lifecycle;

    #[test]
    fn mpi_start_up_and_shut_down_in_every_binding() {
        for name in [
            "MPI_Init",
            "PMPI_Init",
            "MPI_Init_thread",
            "MPI_Finalize",
            "ompi_mpi_finalize",
            "ompi_mpi_init",
            "mpi_init_",
            "pmpi_finalize__",
            "MPI_FINALIZE",
        ] {
            assert!(is_runtime_lifecycle(name), "{name}");
        }
        for name in ["MPI_Send", "MPI_Initialized", "init", "finalize_grid"] {
            assert!(!is_runtime_lifecycle(name), "{name}");
        }
    }
}
