//! How many bytes of the user stack hybrid mode copies with each sample
//! when `--stack-size` is not given. The copy covers the innermost frames
//! built without frame pointers (libc, libm, BLAS); what the kernel copies
//! is most of hybrid's cost per sample in the target. A program's own
//! leaves need 1 KiB (on every serial program of the corpus the stacks
//! reach `main` as often as with 2 KiB). Open MPI's progress engine, under
//! every blocking call, and the OpenMP runtime, under every worker's
//! region (whose stack is completed with the master's at the fork), have
//! deep frames and need 2 KiB: an MPI launch (a launcher, a rank's
//! environment) or an executable that imports MPI or an OpenMP runtime gets
//! 2 KiB.

use std::path::{Path, PathBuf};

/// The copy for a program that is no MPI launch.
pub const PROGRAM_STACK_SIZE: u32 = 1024;

/// The copy for an MPI launch or a process of one, or an OpenMP program
/// (and for a process attached by pid, whatever it runs).
pub const RUNTIME_STACK_SIZE: u32 = crate::HYBRID_STACK_SIZE;

/// Symbols whose import makes an executable an MPI or OpenMP program.
const RUNTIME_IMPORTS: &[&str] = &[
    "MPI_", "PMPI_", "mpi_init", "MPI_INIT", "__kmpc_", "GOMP_", "omp_",
];

/// Launchers whose command line starts an MPI job.
const LAUNCHERS: &[&str] = &[
    "mpirun", "mpiexec", "orterun", "prterun", "srun", "aprun", "jsrun",
];

/// The default copy for recording `command` (hybrid mode).
pub fn hybrid_default(command: &[String]) -> u32 {
    let in_a_rank = in_an_mpi_rank();
    let Some(program) = command.first() else {
        return RUNTIME_STACK_SIZE;
    };
    let name = Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    let launcher = LAUNCHERS.iter().any(|l| name.starts_with(l));
    let runtime =
        resolve(program).is_some_and(|p| blame_capture::locate::imports_any(&p, RUNTIME_IMPORTS));
    if in_a_rank || launcher || runtime {
        RUNTIME_STACK_SIZE
    } else {
        PROGRAM_STACK_SIZE
    }
}

/// True when this process runs as an MPI rank (a launcher's rank variable
/// is set).
fn in_an_mpi_rank() -> bool {
    crate::procfs::rank_from_vars(|k| std::env::var(k).ok()?.parse().ok())
        .0
        .is_some()
}

/// `program` as `execvp` finds it: a path if it names one, else the first
/// executable file of that name in `PATH`.
fn resolve(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        return Some(PathBuf::from(program));
    }
    std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn a_launcher_gets_the_mpi_copy_and_a_program_the_small_one() {
        if in_an_mpi_rank() {
            return; // (run inside an MPI rank: everything gets the MPI copy)
        }
        assert_eq!(
            hybrid_default(&command(&["mpirun", "-np", "2", "./a"])),
            RUNTIME_STACK_SIZE
        );
        assert_eq!(
            hybrid_default(&command(&["/usr/bin/mpiexec", "./a"])),
            RUNTIME_STACK_SIZE
        );
        assert_eq!(
            hybrid_default(&command(&["srun", "-n", "4", "./a"])),
            RUNTIME_STACK_SIZE
        );
        assert_eq!(hybrid_default(&command(&["true"])), PROGRAM_STACK_SIZE);
        assert_eq!(
            hybrid_default(&command(&["/bin/sh", "-c", "exit 0"])),
            PROGRAM_STACK_SIZE
        );
        assert_eq!(hybrid_default(&[]), RUNTIME_STACK_SIZE);
    }

    /// `text` built by `compiler` (with `flags`) into `dir/name`, the
    /// executable's path.
    fn built(dir: &Path, name: &str, compiler: &str, flags: &[&str], text: &str) -> String {
        let src = dir.join(format!("{name}.c"));
        std::fs::write(&src, text).unwrap();
        let exe = dir.join(name);
        let ok = std::process::Command::new(compiler)
            .env("OMPI_CC", "clang-19")
            .args(flags)
            .arg(&src)
            .arg("-o")
            .arg(&exe)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "{compiler} builds {name}.c");
        exe.to_str().unwrap().to_string()
    }

    /// An executable that calls MPI, started without a launcher (a
    /// singleton), or an OpenMP program gets the runtime's copy; a program
    /// with neither the small one.
    #[test]
    fn an_executable_importing_mpi_or_openmp_gets_the_runtime_copy() {
        if in_an_mpi_rank() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let mpi = built(
            dir.path(),
            "t",
            "mpicc",
            &[],
            "#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n",
        );
        assert_eq!(hybrid_default(&[mpi]), RUNTIME_STACK_SIZE);
        let omp = built(
            dir.path(),
            "o",
            "clang-19",
            &["-fopenmp"],
            "int main(void) { double s = 0;\n#pragma omp parallel for reduction(+ : s)\nfor (int i = 0; i < 8; i++) s += i;\nreturn s > 100; }\n",
        );
        assert_eq!(hybrid_default(&[omp]), RUNTIME_STACK_SIZE);
        let plain = built(
            dir.path(),
            "p",
            "clang-19",
            &[],
            "int main(void) { return 0; }\n",
        );
        assert_eq!(hybrid_default(&[plain]), PROGRAM_STACK_SIZE);
    }
}
