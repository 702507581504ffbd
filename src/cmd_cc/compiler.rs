//! What compiler a `blame cc` command runs: clang 19 itself (one front end
//! can feed both the analysis and the object), another compiler (the
//! analysis bitcode needs a front end of its own), behind an MPI wrapper or
//! not, and whether it takes the frame-pointer flags.

use super::command_line::front_end_flags;
use std::path::{Path, PathBuf};
use std::process::Command;

fn base_name(path: &str) -> &str {
    Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
}

/// An MPI compiler wrapper (`mpicc`, `mpicxx`, `mpiCC`, `mpic++`, …).
fn is_mpi_wrapper(compiler: &str) -> bool {
    base_name(compiler).starts_with("mpi")
}

/// Does the compiler understand gcc's flags (gcc, g++, clang, cc, c++,
/// Intel's LLVM compilers, and MPI wrappers around them)?
pub fn speaks_gcc_flags(compiler: &str) -> bool {
    let name = base_name(compiler);
    let name = name.strip_prefix("mpi").unwrap_or(name);
    // Strip a version suffix: clang-19, gcc-12, g++-12.
    let name = name
        .rsplit_once('-')
        .filter(|(_, v)| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .map(|(n, _)| n)
        .unwrap_or(name);
    matches!(
        name,
        "cc" | "c++" | "CC" | "cxx" | "gcc" | "g++" | "clang" | "clang++" | "icx" | "icpx"
    )
}

/// A C++ compile (the analysis front end is `clang++-19`).
pub fn is_cxx(compiler: &str, src: &str) -> bool {
    let c = base_name(compiler);
    c.contains("++") || c.contains("cxx") || c.contains("CC") || !src.ends_with(".c")
}

/// `program` as found on `PATH`, with symlinks resolved.
fn resolve(program: &str) -> Option<PathBuf> {
    let found = if program.contains('/') {
        PathBuf::from(program)
    } else {
        std::env::var_os("PATH")?
            .to_str()?
            .split(':')
            .map(|d| Path::new(d).join(program))
            .find(|p| p.is_file())?
    };
    std::fs::canonicalize(found).ok()
}

/// The compiler an MPI wrapper runs: the environment override
/// (`OMPI_CC`, `MPICH_CC`, …), else what the wrapper says it runs.
fn wrapped_compiler(wrapper: &str) -> Option<String> {
    let cxx = {
        let n = base_name(wrapper);
        n.contains("++") || n.contains("cxx") || n.contains("CC")
    };
    let vars: &[&str] = if cxx {
        &["OMPI_CXX", "MPICH_CXX", "MPICXX_CXX"]
    } else {
        &["OMPI_CC", "MPICH_CC", "MPICC_CC"]
    };
    for v in vars {
        if let Ok(c) = std::env::var(v) {
            if !c.is_empty() {
                return Some(c);
            }
        }
    }
    for probe in ["--showme:command", "-show"] {
        if let Ok(out) = Command::new(wrapper).arg(probe).output() {
            if out.status.success() {
                let s = String::from_utf8_lossy(&out.stdout);
                return s.split_whitespace().next().map(str::to_string);
            }
        }
    }
    None
}

/// Is `compiler` (or the compiler behind it, for an MPI wrapper) clang 19,
/// whose front end writes the bitcode this blame reads?
pub fn is_clang_19(compiler: &str) -> bool {
    let real = if is_mpi_wrapper(compiler) {
        match wrapped_compiler(compiler) {
            Some(c) => c,
            None => return false,
        }
    } else {
        compiler.to_string()
    };
    let name = base_name(&real);
    if name == "clang-19" || name == "clang++-19" {
        return true;
    }
    if !speaks_gcc_flags(&real) {
        return false;
    }
    resolve(&real).is_some_and(|p| {
        let p = p.display().to_string();
        p.contains("/llvm-19/") && base_name(&p).starts_with("clang")
    })
}

/// Include and define flags an MPI compiler wrapper adds (for a separate
/// analysis front end).
pub fn wrapper_flags(compiler: &str) -> Vec<String> {
    if !is_mpi_wrapper(compiler) {
        return vec![];
    }
    for probe in [["--showme:compile"], ["-show"]] {
        if let Ok(out) = Command::new(compiler).args(probe).output() {
            if out.status.success() {
                let s = String::from_utf8_lossy(&out.stdout);
                let words: Vec<String> = s.split_whitespace().map(str::to_string).collect();
                return front_end_flags(&words);
            }
        }
    }
    vec![]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gcc_like_compilers_are_recognised_by_name() {
        for c in [
            "gcc",
            "/usr/bin/g++-12",
            "clang-19",
            "clang++",
            "cc",
            "mpicc",
            "mpicxx",
            "mpiCC",
            "icx",
        ] {
            assert!(speaks_gcc_flags(c), "{c}");
        }
        for c in ["nvcc", "ifort", "xlc", "mpif90", "ccache"] {
            assert!(!speaks_gcc_flags(c), "{c}");
        }
    }

    #[test]
    fn clang_19_is_found_by_name_and_through_symlinks() {
        assert!(is_clang_19("clang-19"));
        assert!(is_clang_19("clang++-19"));
        assert!(!is_clang_19("nvcc"));
        // Debian's clang-19 is a link into /usr/lib/llvm-19/bin.
        if let Some(p) = resolve("clang-19") {
            assert!(is_clang_19(&p.display().to_string()), "{}", p.display());
        }
    }
}
