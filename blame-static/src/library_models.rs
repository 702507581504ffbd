//! Transfer functions of functions without IR (3.3.1.1): libm, libc, MPI,
//! OpenMP, and the prototype heuristic for everything else.

use blame_formats::static_db::CallOutput;

/// What a library call does, as far as blame goes.
#[derive(Debug, Clone, PartialEq)]
pub struct LibModel {
    /// Outputs a sample inside the callee blames.
    pub outputs: Vec<CallOutput>,
    /// True when the outputs are written by the call (the caller's lines get them).
    pub writes: bool,
}

const LIBM: &[&str] = &[
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "pow",
    "sqrt",
    "cbrt",
    "hypot",
    "fabs",
    "floor",
    "ceil",
    "round",
    "trunc",
    "fmod",
    "remainder",
    "fmin",
    "fmax",
    "fma",
    "erf",
    "erfc",
    "tgamma",
    "lgamma",
    "ldexp",
    "rint",
    "nearbyint",
    "lround",
    "copysign",
    "abs",
    "labs",
];

fn is_libm(name: &str) -> bool {
    LIBM.contains(&name)
        || name
            .strip_suffix('f')
            .or_else(|| name.strip_suffix('l'))
            .is_some_and(|n| LIBM.contains(&n))
}

fn args(v: &[u32]) -> Vec<CallOutput> {
    v.iter().map(|&k| CallOutput::Arg(k)).collect()
}

/// The model of a known library function, by linkage name.
pub fn known(name: &str) -> Option<LibModel> {
    let n = name.strip_prefix("__builtin_").unwrap_or(name);
    let n = n.strip_suffix("_chk").unwrap_or(n);
    let n = n.strip_prefix("__").unwrap_or(n);
    let w = |v: &[u32]| {
        Some(LibModel {
            outputs: args(v),
            writes: true,
        })
    };
    let none = || {
        Some(LibModel {
            outputs: vec![],
            writes: false,
        })
    };
    if is_libm(n) {
        return Some(LibModel {
            outputs: vec![CallOutput::Return],
            writes: false,
        });
    }
    // MPI (and the profiling interface names).
    if let Some(m) = n.strip_prefix("PMPI_").or_else(|| n.strip_prefix("MPI_")) {
        return match m {
            "Send" | "Isend" | "Ssend" | "Rsend" | "Bsend" | "Issend" | "Barrier" | "Init"
            | "Init_thread" | "Finalize" | "Abort" => none(),
            "Recv" | "Irecv" | "Bcast" | "Ibcast" => w(&[0]),
            "Reduce" | "Allreduce" | "Ireduce" | "Iallreduce" | "Scan" | "Exscan" => w(&[1]),
            "Gather" | "Scatter" | "Allgather" | "Alltoall" | "Igather" | "Iscatter"
            | "Iallgather" | "Ialltoall" => w(&[3]),
            "Gatherv" | "Allgatherv" => w(&[3]),
            "Scatterv" | "Alltoallv" => w(&[4]),
            "Sendrecv" => w(&[5]),
            "Sendrecv_replace" => w(&[0]),
            "Wait" | "Test" => w(&[0]),
            "Waitall" | "Testall" | "Waitany" | "Waitsome" => w(&[1]),
            "Comm_rank" | "Comm_size" => w(&[1]),
            "Wtime" => Some(LibModel {
                outputs: vec![CallOutput::Return],
                writes: false,
            }),
            _ => None,
        };
    }
    match n {
        "memcpy" | "memmove" | "memset" | "strcpy" | "strncpy" | "strcat" | "strncat"
        | "sprintf" | "snprintf" | "vsprintf" | "vsnprintf" | "bzero" | "qsort" | "fgets"
        | "gets" | "memcpy_chk" => w(&[0]),
        "fread" | "read" | "pread" | "recv" => w(&[if n == "fread" { 0 } else { 1 }]),
        "sscanf" | "fscanf" | "scanf" => Some(LibModel {
            outputs: vec![],
            writes: false,
        }),
        "printf" | "fprintf" | "vprintf" | "vfprintf" | "puts" | "putchar" | "fputs" | "fputc"
        | "putc" | "fwrite" | "fflush" | "write" | "perror" | "free" | "fclose" | "exit"
        | "abort" | "assert_fail" => none(),
        "malloc"
        | "calloc"
        | "realloc"
        | "aligned_alloc"
        | "strdup"
        | "strndup"
        | "valloc"
        | "_Znwm"
        | "_Znam"
        | "_ZnwmSt11align_val_t"
        | "fopen" => Some(LibModel {
            outputs: vec![CallOutput::Return],
            writes: false,
        }),
        "posix_memalign" => w(&[0]),
        "strlen"
        | "strcmp"
        | "strncmp"
        | "memcmp"
        | "atoi"
        | "atof"
        | "atol"
        | "strtol"
        | "strtod"
        | "rand"
        | "time"
        | "clock"
        | "omp_get_wtime"
        | "omp_get_thread_num"
        | "omp_get_num_threads" => Some(LibModel {
            outputs: vec![CallOutput::Return],
            writes: false,
        }),
        _ => None,
    }
}

/// `__kmpc_fork_call(loc, argc, microtask, shared...)`: blame in the
/// outlined region reaches the shared variables passed after the microtask.
pub fn omp_fork(name: &str, arg_count: u32) -> Option<LibModel> {
    if name == "__kmpc_fork_call" || name == "__kmpc_fork_teams" || name == "GOMP_parallel" {
        let first = if name == "GOMP_parallel" { 1 } else { 3 };
        return Some(LibModel {
            outputs: args(&(first..arg_count).collect::<Vec<_>>()),
            writes: false,
        });
    }
    None
}

/// For a C++ function known only by its mangled name (defined in another
/// unit, or a library's), which of the call's `nargs` arguments point or
/// refer to const (`ddot(int, double const*, double const*, double*,
/// double&)`): the callee cannot write through them. The implicit `this`
/// of a method counts as const when the method is (`numElem() const`).
/// `None` when the name is not a mangled C++ function or its parameters do
/// not line up with the call's arguments (a hidden return slot).
pub fn const_pointer_params(linkage: &str, nargs: usize) -> Option<Vec<bool>> {
    if !linkage.starts_with("_Z") {
        return None;
    }
    let d = blame_formats::names::demangle(linkage);
    // The parameter list: from the '(' matching the last ')' (a method's
    // trailing `const` follows it).
    let close = d.rfind(')')?;
    let mut depth = 0i32;
    let mut open = None;
    for (i, c) in d[..=close].char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    open = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let open = open?;
    let list = &d[open + 1..close];
    let mut params: Vec<String> = Vec::new();
    let (mut level, mut cur) = (0i32, String::new());
    for c in list.chars() {
        match c {
            '<' | '(' | '[' => level += 1,
            '>' | ')' | ']' => level -= 1,
            ',' if level == 0 => {
                params.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        params.push(cur);
    }
    if params.len() == 1 && params[0].trim() == "void" {
        params.clear();
    }
    let to_const = |p: &str| {
        let p = p.trim();
        match p.strip_suffix('*').or_else(|| p.strip_suffix('&')) {
            Some(rest) => rest.trim_end().ends_with("const"),
            None => false,
        }
    };
    let mut out: Vec<bool> = params.iter().map(|p| to_const(p)).collect();
    if nargs == out.len() + 1 {
        // A method: `this` first.
        let method_const = d[close + 1..].trim_start().starts_with("const");
        out.insert(0, method_const);
    }
    (out.len() == nargs).then_some(out)
}

/// The shared arguments of an OpenMP fork (`__kmpc_fork_call(loc, argc,
/// microtask, shared...)`) that its outlined region may write, when the
/// region's body is known: outlined parameter `k` (after the two thread
/// ids) is the fork's argument `k + 1`. `writes(name, k)` says where the
/// region writes through its parameter `k` (`None`: unknown). `None` when
/// the call is no fork of a known region.
pub fn omp_fork_written(
    name: &str,
    args: &[crate::ir::Value],
    writes: impl Fn(&str, u32) -> Option<bool>,
) -> Option<Vec<CallOutput>> {
    if name != "__kmpc_fork_call" && name != "__kmpc_fork_teams" {
        return None;
    }
    let crate::ir::Value::Func(region) = args.get(2)? else {
        return None;
    };
    let mut outputs = Vec::new();
    for k in 3..args.len() as u32 {
        // Unknown (`None`): it may write.
        if writes(region, k - 1).unwrap_or(true) {
            outputs.push(CallOutput::Arg(k));
        }
    }
    Some(outputs)
}

/// The prototype heuristic (3.3.1.1): pointer parameters share the blame;
/// without any, the return value takes it.
pub fn heuristic(pointer_args: &[u32], returns_value: bool) -> LibModel {
    if !pointer_args.is_empty() {
        LibModel {
            outputs: args(pointer_args),
            writes: false,
        }
    } else if returns_value {
        LibModel {
            outputs: vec![CallOutput::Return],
            writes: false,
        }
    } else {
        LibModel {
            outputs: vec![],
            writes: false,
        }
    }
}

/// Intrinsics that are calls to libc in the binary.
pub fn intrinsic_as_libc(name: &str) -> Option<&'static str> {
    if name.starts_with("llvm.memcpy") {
        Some("memcpy")
    } else if name.starts_with("llvm.memmove") {
        Some("memmove")
    } else if name.starts_with("llvm.memset") {
        Some("memset")
    } else {
        None
    }
}

#[cfg(test)]
mod const_param_tests {
    use super::*;

    #[test]
    fn mangled_signatures_say_which_pointers_are_to_const() {
        // ddot(int, double const*, double const*, double*, double&)
        assert_eq!(
            const_pointer_params("_Z4ddotiPKdS0_PdRd", 5),
            Some(vec![false, true, true, false, false])
        );
        // Domain::numElem() const: this is const.
        assert_eq!(
            const_pointer_params("_ZNK6Domain7numElemEv", 1),
            Some(vec![true])
        );
        // A hidden argument the signature does not have: unknown.
        assert_eq!(const_pointer_params("_Z4ddotiPKdS0_PdRd", 7), None);
        assert_eq!(const_pointer_params("daxpy_", 6), None);
        // Templates and pointers to pointers to const.
        assert_eq!(
            const_pointer_params("_Z1fRKSt6vectorIdSaIdEEPPKd", 2),
            Some(vec![true, false])
        );
    }
}
