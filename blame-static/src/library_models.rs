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
    /// Outputs the call only reads (a buffer sent, a communicator): a
    /// sample inside blames them, but the call neither writes nor
    /// may-defines them.
    pub read_only: Vec<u32>,
}

impl LibModel {
    pub fn new(outputs: Vec<CallOutput>, writes: bool) -> LibModel {
        LibModel {
            outputs,
            writes,
            read_only: vec![],
        }
    }

    /// True when the call may write what argument `k` points to.
    pub fn may_write(&self, k: u32) -> bool {
        self.outputs.contains(&CallOutput::Arg(k)) && !self.read_only.contains(&k)
    }

    /// True when the call writes what argument `k` points to (its caller's
    /// line stores there).
    pub fn writes_arg(&self, k: u32) -> bool {
        self.writes && self.may_write(k)
    }
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

/// A call that only computes a number from the numbers it is given: a math
/// function (`sqrt`, `fabs`) or an arithmetic intrinsic (`llvm.fmuladd`,
/// `llvm.sqrt`, `llvm.fabs`, `llvm.smax`): arithmetic over its arguments.
pub fn is_arithmetic(name: &str) -> bool {
    is_libm(name)
        || name.starts_with("llvm.")
            && !name.starts_with("llvm.mem")
            && !name.starts_with("llvm.lifetime")
            && !name.starts_with("llvm.dbg")
            && !name.starts_with("llvm.stack")
}

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

/// The MPI routine a linkage name calls, as its C binding's name without
/// the `MPI_` prefix (`Send`, `Waitall`): `MPI_Send`, `PMPI_Send`, and the
/// Fortran entry points `mpi_send_`, `mpi_send__`, `MPI_SEND`, `pmpi_send_`.
pub fn mpi_routine(name: &str) -> Option<String> {
    if let Some(m) = name
        .strip_prefix("PMPI_")
        .or_else(|| name.strip_prefix("MPI_"))
    {
        let fortran = m.len() > 1 && m.chars().all(|c| !c.is_ascii_lowercase());
        return match m.chars().next() {
            Some(c) if c.is_ascii_uppercase() && fortran => Some(capitalized(m)),
            Some(c) if c.is_ascii_uppercase() => Some(m.to_string()),
            _ => None,
        };
    }
    let f = name
        .strip_prefix("pmpi_")
        .or_else(|| name.strip_prefix("mpi_"))?;
    let f = f.strip_suffix("__").or_else(|| f.strip_suffix('_'))?;
    let plain = f
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    (!f.is_empty() && plain).then(|| capitalized(f))
}

/// `SEND` or `send` as the C binding spells it: `Send`, `Comm_rank`.
fn capitalized(f: &str) -> String {
    let lower = f.to_ascii_lowercase();
    let mut c = lower.chars();
    match c.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + c.as_str(),
        None => String::new(),
    }
}

/// The prototype model of an MPI routine (chapter 4: an MPI call's time is
/// blamed on its parameters). Buffers sent are blamed but only read;
/// buffers received, requests, statuses' owners and new communicators are
/// written; a barrier or a communicator call is blamed on the communicator
/// it takes. Arguments are 0-based positions of the MPI-3 C bindings (the
/// Fortran bindings take the same arguments in the same order). `MPI_Wait`
/// and its kin blame the requests they complete, and the analysis adds the
/// buffers of the nonblocking calls that posted those requests.
/// Init, Finalize and Abort blame nothing: they have no data.
fn mpi_model(m: &str) -> Option<LibModel> {
    // (blamed arguments, of which only read)
    let (blamed, read): (&[u32], &[u32]) = match m {
        "Init" | "Init_thread" | "Finalize" | "Abort" | "Initialized" | "Finalized"
        | "Query_thread" | "Get_processor_name" | "Pcontrol" => (&[], &[]),
        // Point to point.
        "Send" | "Ssend" | "Rsend" | "Bsend" => (&[0], &[0]),
        "Isend" | "Issend" | "Irsend" | "Ibsend" | "Send_init" | "Ssend_init" | "Rsend_init"
        | "Bsend_init" => (&[0, 6], &[0]),
        "Recv" => (&[0], &[]),
        "Irecv" | "Recv_init" => (&[0, 6], &[]),
        "Mrecv" => (&[0], &[]),
        "Sendrecv" => (&[0, 5], &[0]),
        "Sendrecv_replace" => (&[0], &[]),
        "Probe" => (&[3], &[]),
        "Iprobe" => (&[3, 4], &[]),
        "Get_count" | "Get_elements" => (&[2], &[0]),
        // Completion: the requests (and, added by the analysis, the
        // buffers of the calls that posted them).
        "Wait" | "Test" | "Start" | "Request_free" | "Cancel" => (&[0], &[]),
        "Waitall" | "Testall" | "Waitany" | "Testany" | "Waitsome" | "Testsome" | "Startall" => {
            (&[1], &[])
        }
        // Collectives: their buffers.
        "Bcast" => (&[0], &[]),
        "Ibcast" => (&[0, 5], &[]),
        "Reduce" | "Allreduce" | "Scan" | "Exscan" | "Reduce_scatter" | "Reduce_scatter_block" => {
            (&[0, 1], &[0])
        }
        "Iallreduce" | "Iscan" | "Iexscan" => (&[0, 1, 6], &[0]),
        "Ireduce" => (&[0, 1, 7], &[0]),
        "Gather" | "Scatter" => (&[0, 3], &[0]),
        "Allgather" | "Alltoall" => (&[0, 3], &[0]),
        "Igather" | "Iscatter" => (&[0, 3, 8], &[0]),
        "Iallgather" | "Ialltoall" => (&[0, 3, 7], &[0]),
        "Gatherv" => (&[0, 3], &[0]),
        "Allgatherv" => (&[0, 3], &[0]),
        "Scatterv" => (&[0, 4], &[0]),
        "Alltoallv" => (&[0, 4], &[0]),
        // Barriers and communicators: the communicator.
        "Barrier" => (&[0], &[0]),
        "Ibarrier" => (&[0, 1], &[0]),
        "Comm_rank" | "Comm_size" | "Comm_dup" => (&[0, 1], &[0]),
        "Comm_split" => (&[0, 3], &[0]),
        "Comm_create" => (&[0, 2], &[0]),
        "Comm_free" => (&[0], &[]),
        "Cart_create" => (&[0, 5], &[0, 2, 3]),
        "Cart_coords" => (&[0, 3], &[0]),
        "Cart_rank" => (&[0, 2], &[0, 1]),
        "Cart_shift" => (&[0, 3, 4], &[0]),
        "Cart_sub" => (&[0, 2], &[0, 1]),
        "Dims_create" => (&[2], &[]),
        "Wtime" | "Wtick" => {
            return Some(LibModel::new(vec![CallOutput::Return], false));
        }
        _ => return None,
    };
    Some(LibModel {
        outputs: args(blamed),
        writes: true,
        read_only: read.to_vec(),
    })
}

/// The per-output transfer functions of an MPI routine called by linkage
/// name (`AccessSets::flows`): per argument `k`, the arguments what the
/// routine writes through `k` is computed from. A buffer received by a
/// collective is computed from the buffer sent (`MPI_Allreduce(local,
/// global, ..)`: `global` from `local`); a point-to-point receive from
/// another rank's data, none of this call's; a request, a status, a new
/// communicator's handle from no data. Communicators, datatypes and
/// reduction operations are handles: nothing written is computed from
/// what they point to (a struct keeping its `MPI_Comm` is no input of
/// every buffer sent over it). `None` for other names.
pub fn mpi_flows(name: &str) -> Option<Vec<Vec<u32>>> {
    let m = mpi_routine_called(name)?;
    let model = mpi_model(&m)?;
    let request = mpi_request_buffers(&m).map(|(_, r)| r);
    // (Every routine that receives a buffer only reads its send buffer.)
    let sends = &model.read_only;
    let written: Vec<u32> = model
        .outputs
        .iter()
        .filter_map(|o| match o {
            CallOutput::Arg(k) if model.may_write(*k) => Some(*k),
            _ => None,
        })
        .collect();
    let n = written.iter().max().map_or(0, |&k| k as usize + 1);
    let mut flows = vec![Vec::new(); n];
    for k in written {
        let data = Some(k) != request && is_mpi_buffer_received(&m, k);
        if data {
            flows[k as usize] = sends.to_vec();
        }
    }
    Some(flows)
}

/// Argument `k` of MPI routine `m` is a buffer of data it receives (a
/// collective's or a point-to-point call's), not a handle or a count.
fn is_mpi_buffer_received(m: &str, k: u32) -> bool {
    match m {
        "Recv" | "Irecv" | "Recv_init" | "Mrecv" | "Bcast" | "Ibcast" | "Sendrecv_replace" => {
            k == 0
        }
        "Sendrecv" => k == 5,
        "Reduce"
        | "Allreduce"
        | "Scan"
        | "Exscan"
        | "Reduce_scatter"
        | "Reduce_scatter_block"
        | "Iallreduce"
        | "Iscan"
        | "Iexscan"
        | "Ireduce" => k == 1,
        "Gather" | "Scatter" | "Allgather" | "Alltoall" | "Igather" | "Iscatter" | "Iallgather"
        | "Ialltoall" | "Gatherv" | "Allgatherv" => k == 3,
        "Scatterv" | "Alltoallv" => k == 4,
        _ => false,
    }
}

/// For a nonblocking MPI routine (`Isend`, `Irecv`, `Iallreduce`): the
/// arguments that are its buffers and the argument that is its request.
pub fn mpi_request_buffers(m: &str) -> Option<(Vec<u32>, u32)> {
    // The prototype table says it: a nonblocking routine's request is its
    // last argument blamed, its buffers the ones before.
    let nonblocking = (m.starts_with('I') && !m.ends_with("probe")) || m.ends_with("_init");
    if !nonblocking {
        return None;
    }
    let mut blamed: Vec<u32> = mpi_model(m)?
        .outputs
        .iter()
        .filter_map(|o| match o {
            CallOutput::Arg(k) => Some(*k),
            CallOutput::Return => None,
        })
        .collect();
    let req = blamed.pop()?;
    (!blamed.is_empty()).then_some((blamed, req))
}

/// True for a nonblocking MPI routine that only sends (`Isend` and its
/// modes, persistent sends): its buffer is read, and the data usually
/// leaves at once, so a wait that also completes receives waits for them.
pub fn mpi_only_sends(m: &str) -> bool {
    matches!(
        m,
        "Isend"
            | "Ibsend"
            | "Issend"
            | "Irsend"
            | "Send_init"
            | "Bsend_init"
            | "Ssend_init"
            | "Rsend_init"
    )
}

/// For an MPI routine that completes requests (`Wait`, `Waitall`,
/// `Test`...): the argument that holds them.
pub fn mpi_completion_requests(m: &str) -> Option<u32> {
    // The table blames exactly the requests of these.
    if !(m.starts_with("Wait") || m.starts_with("Test")) {
        return None;
    }
    mpi_model(m)?.outputs.iter().find_map(|o| match o {
        CallOutput::Arg(k) => Some(*k),
        CallOutput::Return => None,
    })
}

/// True for the allocators that return fresh memory (`malloc`, `new[]`).
pub fn is_allocator(name: &str) -> bool {
    matches!(
        name,
        "malloc"
            | "calloc"
            | "realloc"
            | "aligned_alloc"
            | "valloc"
            | "_Znwm"
            | "_Znam"
            | "_ZnwmSt11align_val_t"
            | "_ZnamSt11align_val_t"
    )
}

/// The model of a known library function, by linkage name.
/// The MPI routine a call of linkage name `name` reaches: its own name,
/// or the name a builtin or reserved prefix hides.
fn mpi_routine_called(name: &str) -> Option<String> {
    mpi_routine(name).or_else(|| mpi_routine(bare_name(name)))
}

/// `name` without a builtin or reserved prefix or a checking suffix
/// (`__builtin_memcpy_chk` is `memcpy`).
fn bare_name(name: &str) -> &str {
    let n = name.strip_prefix("__builtin_").unwrap_or(name);
    let n = n.strip_suffix("_chk").unwrap_or(n);
    n.strip_prefix("__").unwrap_or(n)
}

pub fn known(name: &str) -> Option<LibModel> {
    let n = bare_name(name);
    let w = |v: &[u32]| Some(LibModel::new(args(v), true));
    let none = || Some(LibModel::new(vec![], false));
    let ret = || Some(LibModel::new(vec![CallOutput::Return], false));
    if is_libm(n) {
        return ret();
    }
    // MPI (and the profiling interface names, and the Fortran-style
    // `mpi_send_` entry points, which take the same arguments by reference).
    if let Some(m) = mpi_routine_called(name) {
        return mpi_model(&m);
    }
    match n {
        "memcpy" | "memmove" | "memset" | "strcpy" | "strncpy" | "strcat" | "strncat"
        | "sprintf" | "snprintf" | "vsprintf" | "vsnprintf" | "bzero" | "qsort" | "fgets"
        | "gets" | "memcpy_chk" => w(&[0]),
        "fread" | "read" | "pread" | "recv" => w(&[if n == "fread" { 0 } else { 1 }]),
        "sscanf" | "fscanf" | "scanf" => none(),
        "printf" | "fprintf" | "vprintf" | "vfprintf" | "puts" | "putchar" | "fputs" | "fputc"
        | "putc" | "fwrite" | "fflush" | "write" | "perror" | "fclose" | "exit" | "abort"
        | "assert_fail" => none(),
        // Releasing memory is spent on the variable it held (LULESH's
        // `Release(&sigxx)` of its per-step temporaries, the nodes of a
        // hash map a container's `clear` gives back to `operator delete`),
        // as a send is on the buffer sent: blamed, not written.
        "free"
        | "cfree"
        | "_ZdlPv"
        | "_ZdlPvm"
        | "_ZdaPv"
        | "_ZdaPvm"
        | "_ZdlPvSt11align_val_t"
        | "_ZdlPvmSt11align_val_t"
        | "_ZdaPvSt11align_val_t"
        | "_ZdaPvmSt11align_val_t" => Some(LibModel {
            outputs: args(&[0]),
            writes: true,
            read_only: vec![0],
        }),
        n if is_allocator(n) => ret(),
        "strdup" | "strndup" | "fopen" => ret(),
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
        | "omp_get_num_threads" => ret(),
        _ => None,
    }
}

/// `__kmpc_fork_call(loc, argc, microtask, shared...)`: blame in the
/// outlined region reaches the shared variables passed after the microtask.
pub fn omp_fork(name: &str, arg_count: u32) -> Option<LibModel> {
    if name == "__kmpc_fork_call" || name == "__kmpc_fork_teams" || name == "GOMP_parallel" {
        let first = if name == "GOMP_parallel" { 1 } else { 3 };
        return Some(LibModel::new(
            args(&(first..arg_count).collect::<Vec<_>>()),
            false,
        ));
    }
    None
}

/// A mangled C++ function's demangled name, its parameter types, and
/// where its parameter list closes in the demangled name.
fn mangled_params(linkage: &str) -> Option<(String, Vec<String>, usize)> {
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
    Some((d, params, close))
}

/// For a C++ function known only by its mangled name (defined in another
/// unit), the declared type of the call's argument `k` of `nargs` when the
/// parameter is a class passed by value (`solve(lg::View<double>, ...)`:
/// the caller passes a temporary copy by address): `lg::View<double>`.
/// `None` for pointers, references, and parameters that do not line up
/// (the implicit `this` and a hidden return slot lead the arguments).
pub fn by_value_class_param(linkage: &str, nargs: usize, k: usize) -> Option<String> {
    let (_, params, _) = mangled_params(linkage)?;
    let extra = nargs.checked_sub(params.len())?;
    let p = params.get(k.checked_sub(extra)?)?.trim();
    let by_value = extra <= 2
        && !p.ends_with('*')
        && !p.ends_with('&')
        && !p.ends_with(']')
        && !p.contains('(');
    by_value.then(|| p.to_string())
}

/// For a C++ function known only by its mangled name (defined in another
/// unit, or a library's), which of the call's `nargs` arguments point or
/// refer to const (`ddot(int, double const*, double const*, double*,
/// double&)`): the callee cannot write through them. The implicit `this`
/// of a method counts as const when the method is (`numElem() const`).
/// `None` when the name is not a mangled C++ function or its parameters do
/// not line up with the call's arguments (a hidden return slot).
pub fn const_pointer_params(linkage: &str, nargs: usize) -> Option<Vec<bool>> {
    let (d, params, close) = mangled_params(linkage)?;
    let to_const = |p: &str| {
        let p = p.trim();
        match p.strip_suffix('*').or_else(|| p.strip_suffix('&')) {
            Some(rest) => rest.trim_end().ends_with("const"),
            None => false,
        }
    };
    let mut out: Vec<bool> = params.iter().map(|p| to_const(p)).collect();
    let method_const = d[close + 1..].trim_start().starts_with("const");
    let is_member = cxx_name(linkage).and_then(|n| member(&n)).is_some();
    match nargs.checked_sub(out.len())? {
        0 => {}
        // A method: `this` first (or a function returning a class by
        // value through its hidden result pointer, which it writes).
        1 => out.insert(0, method_const && is_member),
        // A method returning a class by value: the result pointer, then
        // `this` (`SolveInfo GmresSolver::solve(const Op &, ...)`).
        2 if is_member => {
            out.insert(0, method_const);
            out.insert(0, false);
        }
        _ => return None,
    }
    Some(out)
}

/// For a C++ method of the program's own classes known by its mangled
/// name and called with `nargs` arguments, true when argument 0 is its
/// object (`this`): `Driver::run()`, not a constructor or destructor and
/// not a method of the standard library (`std::vector::push_back` stores
/// what it is given). Such a call computes its object's state itself.
pub fn is_own_method_call(linkage: &str, nargs: usize) -> bool {
    let Some(m) = program_member(linkage) else {
        return false;
    };
    let structor = m.method == m.class || m.method.starts_with('~');
    // `this` is there when the signature has one argument fewer.
    !structor && mangled_params(linkage).is_some_and(|(_, params, _)| params.len() + 1 == nargs)
}

/// True for the C++ operations through which a value type's data moves:
/// constructors (copy constructors included), assignment operators and
/// every other operator function (`operator+` returning through a hidden
/// result pointer). A call to one writes its object or result like the
/// compiler's own copies do, so the expression's blame reaches where the
/// value ends up; other calls pass blame through their transfer functions
/// only (3.3.3).
pub fn moves_values(linkage: &str) -> bool {
    let Some(name) = cxx_name(linkage) else {
        return false;
    };
    name.contains("operator") || member(&name).is_some_and(|m| m.method == m.class)
}

/// What a C++ special member does to its object, for any class (the
/// standard library's too): `Assigns` (`operator=`: copies or moves what it
/// is given into it, `u_prev = u`), `Constructs`, `Destroys`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecialMember {
    Assigns,
    Constructs,
    Destroys,
}

/// The special member `linkage` is, if any.
pub fn special_member(linkage: &str) -> Option<SpecialMember> {
    let name = cxx_name(linkage)?;
    let m = member(&name)?;
    if m.method == "operator=" {
        Some(SpecialMember::Assigns)
    } else if m.method == m.class {
        Some(SpecialMember::Constructs)
    } else if m.method.starts_with('~') {
        Some(SpecialMember::Destroys)
    } else {
        None
    }
}

/// True for the standard library's container operations that store what
/// they are given in their object (`v.push_back(x)`, `insert`,
/// `emplace_back`, `append`): a call to one writes the container from its
/// arguments, as the program's own methods do, so a method filling a
/// member through one (`values_.push_back(value)`) computes the member
/// from its parameter. (Sizing it, `assign(n, 0.0)` or `resize(n)`, is
/// not computing it, as a constructor's size is not.)
pub fn stores_values(linkage: &str) -> bool {
    const STORES: &[&str] = &[
        "push_back",
        "emplace_back",
        "push_front",
        "emplace_front",
        "insert",
        "emplace",
        "emplace_hint",
        "append",
        "push",
    ];
    let Some(name) = cxx_name(linkage) else {
        return false;
    };
    (name.starts_with("std::") || name.starts_with("__gnu_cxx::"))
        && member(&name).is_some_and(|m| STORES.contains(&m.method.as_str()))
}

/// How a call of C++ member function `linkage` with `nargs` arguments
/// passes its object: `Some(0)` when `this` is the first argument,
/// `Some(1)` when a hidden result pointer comes first (a class returned by
/// value); `None` for what is no member function (a free function of a
/// namespace, a C function).
pub fn this_argument(linkage: &str, nargs: usize) -> Option<usize> {
    cxx_name(linkage).and_then(|n| member(&n))?;
    let (_, params, _) = mangled_params(linkage)?;
    match nargs.checked_sub(params.len())? {
        1 => Some(0),
        2 => Some(1),
        _ => None,
    }
}

/// True for a C++ member function of the program's own classes (not the
/// standard library's): `QCS::setCornerDiv(..)` computing the members of
/// its object. A call to one writes the object's members where its write
/// set says, as the body's own stores would, so a sequence of methods
/// filling scratch members in turn (`c0div`, then `c0q` from it, then the
/// forces from `c0q`) is one chain of data flow in the caller.
pub fn is_cxx_method_of_program(linkage: &str) -> bool {
    linkage.starts_with("_ZN") && program_member(linkage).is_some()
}

/// A C++ member function's class (the last component of its scope,
/// without template arguments) and name.
struct Member {
    class: String,
    method: String,
}

/// The demangled qualified name of a mangled C++ function, without its
/// parameter list (`ns::Grid<double>::apply`).
fn cxx_name(linkage: &str) -> Option<String> {
    if !linkage.starts_with("_Z") {
        return None;
    }
    // (A class of an anonymous namespace is `(anonymous namespace)::T`:
    // its parentheses open no parameter list.)
    let d = blame_formats::names::demangle(linkage).replace("(anonymous namespace)", "{anonymous}");
    let open = d.find('(')?;
    Some(d[..open].to_string())
}

/// `name` (a qualified name) as class and member, template arguments
/// left out (`ns::Grid<std::pair<int, int> >::apply` is `Grid`, `apply`).
fn member(name: &str) -> Option<Member> {
    let mut plain = String::new();
    let mut depth = 0i32;
    for c in name.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    let (scope, method) = plain.rsplit_once("::")?;
    let class = scope.rsplit("::").next().unwrap_or(scope);
    (!method.is_empty()).then(|| Member {
        class: class.to_string(),
        method: method.to_string(),
    })
}

/// A member function of the program's own code (not the standard
/// library's).
fn program_member(linkage: &str) -> Option<Member> {
    let name = cxx_name(linkage)?;
    if name.starts_with("std::") || name.starts_with("__gnu_cxx::") {
        return None;
    }
    member(&name)
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
    let region = omp_fork_region(name, args)?;
    let mut outputs = Vec::new();
    for k in 3..args.len() as u32 {
        // Unknown (`None`): it may write.
        if writes(region, k - 1).unwrap_or(true) {
            outputs.push(CallOutput::Arg(k));
        }
    }
    Some(outputs)
}

/// The outlined region an OpenMP fork (`__kmpc_fork_call(loc, argc,
/// microtask, shared...)`) runs; its parameter `k` (after the two thread
/// ids) is the fork's argument `k + 1`.
pub fn omp_fork_region<'a>(name: &str, args: &'a [crate::ir::Value]) -> Option<&'a str> {
    if name != "__kmpc_fork_call" && name != "__kmpc_fork_teams" {
        return None;
    }
    match args.get(2)? {
        crate::ir::Value::Func(region) => Some(region),
        _ => None,
    }
}

/// The prototype heuristic (3.3.1.1): pointer parameters share the blame;
/// without any, the return value takes it.
pub fn heuristic(pointer_args: &[u32], returns_value: bool) -> LibModel {
    if !pointer_args.is_empty() {
        LibModel::new(args(pointer_args), false)
    } else if returns_value {
        LibModel::new(vec![CallOutput::Return], false)
    } else {
        LibModel::new(vec![], false)
    }
}

/// True for a copy or a fill of memory (`memcpy`, `memmove`, `memset` and
/// their intrinsics): it computes nothing of what it writes.
pub fn is_memory_copy_or_fill(name: &str) -> bool {
    matches!(
        intrinsic_as_libc(name).unwrap_or(name),
        "memcpy" | "memmove" | "memset"
    )
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
    fn value_moving_calls_are_constructors_and_operators() {
        assert!(moves_values("_ZN7double2aSERKS_")); // double2::operator=
        assert!(moves_values("_ZmiRK7double2S1_")); // operator-
        assert!(moves_values("_ZN7double2C2Edd")); // double2::double2(double, double)
        assert!(moves_values("_ZN4GridIdEC2Ev")); // Grid<double>::Grid()
        assert!(stores_values("_ZNSt6vectorIdSaIdEE9push_backERKd"));
        assert!(!stores_values("_ZNSt6vectorIdSaIdEEixEm")); // operator[]
        assert!(!stores_values("_ZN1B3addEid")); // the program's own
        assert!(!moves_values("_ZN6Driver3runEv"));
        assert!(!moves_values("dot"));
    }

    #[test]
    fn own_methods_are_told_from_constructors_and_the_standard_library() {
        // Driver::run()
        assert!(is_own_method_call("_ZN6Driver3runEv", 1));
        // Driver::Driver(int)
        assert!(!is_own_method_call("_ZN6DriverC2Ei", 2));
        let special = special_member;
        assert_eq!(
            special("_ZN12_GLOBAL__N_110StepRecordC2Ev"),
            Some(SpecialMember::Constructs)
        );
        assert_eq!(special("_ZN6DriverC2Ei"), Some(SpecialMember::Constructs));
        assert_eq!(special("_ZN6Driver3runEv"), None);
        // std::vector<double>: operator=(const vector&), ~vector(), vector()
        assert_eq!(
            special("_ZNSt6vectorIdSaIdEEaSERKS1_"),
            Some(SpecialMember::Assigns)
        );
        assert_eq!(
            special("_ZNSt6vectorIdSaIdEED2Ev"),
            Some(SpecialMember::Destroys)
        );
        assert_eq!(
            special("_ZNSt6vectorIdSaIdEEC2Ev"),
            Some(SpecialMember::Constructs)
        );
        // std::vector<double>::push_back(double const&)
        assert!(!is_own_method_call("_ZNSt6vectorIdSaIdEE9push_backERKd", 2));
        // a free function
        assert!(!is_own_method_call("_Z5solvePd", 1));
    }

    #[test]
    fn the_object_of_a_member_call_is_told_from_a_hidden_result() {
        // std::vector<Particle>::begin(): `this` first.
        assert_eq!(
            this_argument("_ZNSt6vectorI8ParticleSaIS0_EE5beginEv", 1),
            Some(0)
        );
        // std::vector<double>::push_back(double const&): `this`, then the value.
        assert_eq!(
            this_argument("_ZNSt6vectorIdSaIdEE9push_backERKd", 2),
            Some(0)
        );
        // pcg::CsrMatrix::row(int) const returning a class: the result first.
        assert_eq!(this_argument("_ZNK3pcg9CsrMatrix3rowEi", 3), Some(1));
        // A C function.
        assert_eq!(this_argument("solve", 1), None);
    }

    #[test]
    fn nonblocking_calls_have_their_buffers_and_request_from_the_table() {
        assert_eq!(mpi_request_buffers("Isend"), Some((vec![0], 6)));
        assert_eq!(mpi_request_buffers("Irecv"), Some((vec![0], 6)));
        assert_eq!(mpi_request_buffers("Iallreduce"), Some((vec![0, 1], 6)));
        assert_eq!(mpi_request_buffers("Igather"), Some((vec![0, 3], 8)));
        assert_eq!(mpi_request_buffers("Recv_init"), Some((vec![0], 6)));
        assert_eq!(mpi_request_buffers("Iprobe"), None);
        assert_eq!(mpi_request_buffers("Send"), None);
        assert_eq!(mpi_completion_requests("Wait"), Some(0));
        assert_eq!(mpi_completion_requests("Waitall"), Some(1));
        assert_eq!(mpi_completion_requests("Testsome"), Some(1));
        assert_eq!(mpi_completion_requests("Barrier"), None);
    }

    #[test]
    fn mpi_routines_by_every_binding_name() {
        assert_eq!(mpi_routine("MPI_Send").as_deref(), Some("Send"));
        assert_eq!(mpi_routine("PMPI_Comm_rank").as_deref(), Some("Comm_rank"));
        assert_eq!(mpi_routine("mpi_waitall_").as_deref(), Some("Waitall"));
        assert_eq!(mpi_routine("mpi_comm_rank__").as_deref(), Some("Comm_rank"));
        assert_eq!(mpi_routine("MPI_ALLREDUCE").as_deref(), Some("Allreduce"));
        assert_eq!(mpi_routine("mpi_send"), None);
        assert_eq!(mpi_routine("my_send_"), None);
    }

    #[test]
    fn mpi_calls_blame_their_parameters_and_write_only_what_they_receive() {
        let send = known("MPI_Send").unwrap();
        assert_eq!(send.outputs, vec![CallOutput::Arg(0)]);
        assert!(!send.may_write(0), "a send only reads its buffer");
        let isend = known("PMPI_Isend").unwrap();
        assert!(
            !isend.may_write(0) && isend.writes_arg(6),
            "the request is written"
        );
        let flows = |n: &str, k: usize| mpi_flows(n).unwrap().get(k).cloned().unwrap_or_default();
        assert_eq!(flows("MPI_Allreduce", 1), vec![0]);
        assert_eq!(flows("PMPI_Sendrecv", 5), vec![0]);
        assert!(flows("MPI_Irecv", 0).is_empty() && flows("MPI_Irecv", 6).is_empty());
        assert!(flows("MPI_Isend", 6).is_empty() && flows("mpi_comm_rank_", 1).is_empty());
        assert!(mpi_flows("memcpy").is_none());
        for release in ["free", "_ZdlPv", "_ZdlPvm", "_ZdaPv"] {
            let m = known(release).unwrap();
            assert!(
                m.outputs == vec![CallOutput::Arg(0)] && !m.may_write(0),
                "{release}"
            );
        }
        let recv = known("mpi_recv_").unwrap();
        assert!(recv.writes_arg(0));
        let allreduce = known("MPI_Allreduce").unwrap();
        assert!(!allreduce.may_write(0) && allreduce.writes_arg(1));
        let barrier = known("MPI_Barrier").unwrap();
        assert_eq!(barrier.outputs, vec![CallOutput::Arg(0)]);
        assert!(!barrier.may_write(0));
        let wait = known("MPI_Waitall").unwrap();
        assert_eq!(wait.outputs, vec![CallOutput::Arg(1)]);
        for none in ["MPI_Init", "MPI_Finalize"] {
            assert!(known(none).unwrap().outputs.is_empty());
        }
    }

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
        // SolveInfo iv::GmresSolver::solve(LinearOperator const&,
        // Preconditioner const&, vector<double> const&, vector<double>&):
        // the hidden result pointer, then this, then the four.
        assert_eq!(
            const_pointer_params(
                "_ZN2iv11GmresSolver5solveERKNS_14LinearOperatorERKNS_14PreconditionerERKSt6vectorIdSaIdEERS9_",
                6
            ),
            Some(vec![false, false, true, true, true, false])
        );
    }

    #[test]
    fn a_class_passed_by_value_is_named_from_the_mangled_callee() {
        // lg::CgSolver::solve(lg::View<double>, lg::View<double>, std::vector<double>&)
        let solve = "_ZN2lg8CgSolver5solveENS_4ViewIdEES2_RSt6vectorIdSaIdEE";
        // `this` leads the arguments.
        assert_eq!(
            by_value_class_param(solve, 4, 1).as_deref(),
            Some("lg::View<double>")
        );
        assert_eq!(
            by_value_class_param(solve, 4, 2).as_deref(),
            Some("lg::View<double>")
        );
        // A reference, `this`, and calls that do not line up: none.
        assert_eq!(by_value_class_param(solve, 4, 3), None);
        assert_eq!(by_value_class_param(solve, 4, 0), None);
        assert_eq!(by_value_class_param(solve, 2, 1), None);
        assert_eq!(by_value_class_param("daxpy_", 6, 1), None);
    }
}
