//! Static db: the per-function blame summaries written by `blame cc` /
//! `blame analyze` and read by post-processing.
//!
//! A summary holds what post-mortem resolution needs (dissertation ch. 3):
//! each variable's blamed source lines (explicit and implicit), the exit
//! variables, per call site the caller variables each call output reaches
//! (the transfer function), side-effect and parameter-alias pairs, and for
//! the cache-miss passes (ch. 5) the natural loops and the distinct reads of
//! each line. Functions are keyed by (linkage name, source file) and carry a
//! hash of their IR, so dbs from many translation units merge and an
//! unchanged function is never re-analysed.

use crate::container::{write_atomic, ContainerReader, Kind};
use crate::error::{FormatError, Result};
use crate::files::open_regular;
use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{BufReader, Read};
use std::path::Path;

pub const STATIC_DB: Kind = Kind {
    name: "blame static db",
    magic: *b"BLAMESDB",
    // 4: `Reuse` gained `Recent`, `Rows` and `Row` (a version-3 reader
    // cannot decode them, so a db that may hold them is version 4), and
    // `Variable` gained `heap_bytes`. 5: `SideEffect` gained the field
    // paths it writes and reads (`blamed_path`, `blamed_type`, `from_path`).
    // 6: `FunctionSummary` gained its write and read sets (`param_writes`,
    // `param_reads`), which callers in other translation units use, and
    // the `unit` it came from. 7: `Variable` gained `element_of` (locals
    // that only point into another variable) and `is_record`, and
    // `FunctionSummary` the `unit_globals` its unit defines. 8: `ReadCost`
    // gained the `sweep` of its loop and `swept_before` (an earlier pass
    // over the same addresses in the same iteration). 9: `FunctionSummary`
    // gained `fields_feeding_data`, `Variable::is_record` is given for
    // fields too, and `OutputBinding` gained the closure member `field`.
    // 10: `Variable` gained `is_result`. 11: `FunctionSummary` gained
    // `returns_into` (where a returned pointer points, for callers in
    // other units) and `unit_function_pointers` (what the unit stores in
    // function-pointer slots, for calls through them in other units).
    version: 11,
};

/// What a variable is, as the reports show it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Encode, Decode,
)]
pub enum VarKind {
    Local,
    Param,
    Return,
    Global,
    Field,
}

impl VarKind {
    pub fn as_str(self) -> &'static str {
        match self {
            VarKind::Local => "local",
            VarKind::Param => "param",
            VarKind::Return => "return",
            VarKind::Global => "global",
            VarKind::Field => "field",
        }
    }
}

/// One node of a function's compact blame graph that is reported to users:
/// a local, parameter, return value, global, or a field path below one of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct Variable {
    /// Dotted path, e.g. `se`, `se.sX`, `solver->ksp` is written `solver.ksp`.
    pub name: String,
    pub kind: VarKind,
    /// Source type name from debug info, e.g. `int *`, `struct StructEx`.
    pub type_name: String,
    /// Declaration line (0 when unknown).
    pub line: u32,
    /// Index of the containing variable for fields (container resolution).
    pub parent: Option<u32>,
    /// For parameters: the argument position. For fields of parameters the
    /// root's position is found through `parent`.
    pub param_index: Option<u32>,
    /// True for exit variables (parameters reached through pointers, the
    /// return value, globals): blame on them flows to the caller.
    pub is_exit: bool,
    /// True when the variable (or field) is a pointer: blame reaches the memory it points to.
    pub is_pointer: bool,
    /// True for a scalar of a basic type (`int`, `double`, an enum, a typedef
    /// of one): it has no fields, and a callee's field path never continues
    /// below it. Iteration counts, timers and norms are scalars; arrays,
    /// pointers, structs and classes are data structures.
    #[serde(default)]
    pub is_scalar: bool,
    /// Lines in the backward slices of writes to the variable (explicit blame).
    pub explicit_lines: Vec<u32>,
    /// Lines that blame the variable through control flow only (implicit blame).
    pub implicit_lines: Vec<u32>,
    /// Lines that store directly into the variable's own memory (exclusive blame).
    pub write_lines: Vec<u32>,
    /// Other variables of this function that alias this one.
    pub aliases: Vec<u32>,
    /// Bytes of the heap block the variable receives from an allocation of
    /// a size known at compile time (`p = malloc(sizeof(double) * 1024)`),
    /// the largest of several; 0 when unknown (no allocation, or one whose
    /// size is known only at run time). The access weights' footprint when
    /// the run logged no allocations.
    #[serde(default)]
    pub heap_bytes: u64,
    /// For a local pointer that only ever holds addresses into another
    /// variable's memory (`bp = &blocks[n]`, a cursor `p = plist; p =
    /// p->next`, `const Node &a = nodes[i]`): that variable. Reports add
    /// the local's blame to it instead of listing the local as a data
    /// structure of its own.
    #[serde(default)]
    pub element_of: Option<u32>,
    /// A result record: a variable of any type that only records numbers
    /// computed from other variables (timing arrays, norm histories,
    /// statistics) and feeds nothing back into the computation. Reports
    /// list it with the derived scalars when its blame is inherited. For a
    /// global, this function's verdict only (its writes here record
    /// numbers, nothing read of it here flows into data); post takes a
    /// global for a record when every function naming it agrees.
    #[serde(default)]
    pub is_record: bool,
    /// A result: a local of any type computed from other variables that
    /// feeds nothing back (a residual check `b - A x`, the min, max and
    /// mean of the grid kept to print, an output written out), but whose
    /// writes are not only recorded numbers. Reports list it with the
    /// derived when most of its blame is inherited from a data structure
    /// of its function (the same samples blame both); one whose own
    /// computation is the cost stays a data structure.
    #[serde(default)]
    pub is_result: bool,
}

impl Variable {
    /// Variable `name` of `kind`, with no type, line, parent, lines or
    /// aliases yet, and every flag off: what the analysis fills in.
    pub fn new(name: impl Into<String>, kind: VarKind) -> Variable {
        Variable {
            name: name.into(),
            kind,
            type_name: String::new(),
            line: 0,
            parent: None,
            param_index: None,
            is_exit: false,
            is_pointer: false,
            is_scalar: false,
            explicit_lines: vec![],
            implicit_lines: vec![],
            write_lines: vec![],
            aliases: vec![],
            heap_bytes: 0,
            element_of: None,
            is_record: false,
            is_result: false,
        }
    }

    /// True for a parameter through which blame flows to the caller.
    pub fn is_exit_param(&self) -> bool {
        self.kind == VarKind::Param && self.is_exit
    }

    /// All blamed lines, explicit and implicit, sorted and unique.
    pub fn lines(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .explicit_lines
            .iter()
            .chain(&self.implicit_lines)
            .copied()
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// A value a call hands back to its caller.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Encode, Decode,
)]
pub enum CallOutput {
    /// The return value.
    Return,
    /// The memory reached through argument N (0-based).
    Arg(u32),
}

/// Caller variables blamed when one output of a call is blamed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct OutputBinding {
    pub output: CallOutput,
    /// Caller variables (indices into `FunctionSummary::variables`) that the
    /// output writes or flows into, already closed over the caller's compact
    /// graph; containers are added by post-processing.
    pub blamed: Vec<u32>,
    /// The subset of `blamed` the output reaches over data edges only
    /// (explicit blame, 3.1): what the output is computed into, not what
    /// runs under a branch that tests it.
    #[serde(default)]
    pub explicit: Vec<u32>,
    /// For an argument: the caller variables whose memory it points into
    /// (its targets and their alias classes, a subset of `blamed`), what a
    /// read through the parameter reads (5.1). Empty when not known. For an
    /// argument passed by value (`blamed` empty): the variables its value
    /// is read from, which a callee's side effect from it blames through.
    pub pointees: Vec<u32>,
    /// Empty for the whole argument. Else the member of the argument this
    /// binding is for, a capture of a lambda's closure (a compiler
    /// temporary with no variable of its own): the callee's outputs below
    /// `.field` reach `blamed`, the captured variables (the variable itself
    /// for a capture by reference, the handle copied for one by value),
    /// with the rest of their path. `*`: the argument is a copy made for
    /// the call (a handle passed by value): every output through it reaches
    /// `blamed`, the variables copied, as a whole.
    #[serde(default)]
    pub field: String,
}

/// A field path and pointer dereferences below what a pointer parameter
/// points to, where a function may write or read (and everything reachable
/// from there). `([], 0)` is the whole argument.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Encode, Decode,
)]
pub struct ParamAccess {
    pub path: Vec<String>,
    pub deref: u32,
}

/// A member as `FunctionSummary::fields_feeding_data` names it: its name
/// and declared type, apart (`diag_\tvector<double, ...>`); a bare name
/// (no type known) stands for the member of that name of every type.
pub fn field_with_type(name: &str, type_name: &str) -> String {
    format!("{name}\t{type_name}")
}

/// The name and, when given, the type of a `fields_feeding_data` entry.
pub fn field_and_type(entry: &str) -> (&str, Option<&str>) {
    match entry.split_once('\t') {
        Some((name, ty)) => (name, Some(ty)),
        None => (entry, None),
    }
}

/// One call instruction of a function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct CallSite {
    pub line: u32,
    pub column: u32,
    /// Linkage name of the callee, `None` for calls through a pointer.
    pub callee: Option<String>,
    pub arg_count: u32,
    pub outputs: Vec<OutputBinding>,
    /// For callees without IR: the outputs a sample inside the callee blames,
    /// from the library models (libm: return; MPI_Recv: the buffer; ...) or the
    /// prototype heuristic. `None` when the callee is expected to have a summary.
    pub model: Option<Vec<CallOutput>>,
}

/// A parameter that, inside the function, takes blame from another (3.3.1.3):
/// the function writes `blamed_path` below what `blamed_param` points to
/// from what it reads `from_path` below `from_param` (paths as `.x.array`;
/// empty: the whole argument, or for `from_path` the parameter's value).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct SideEffect {
    pub blamed_param: u32,
    pub from_param: u32,
    /// The field path written below the blamed parameter's pointee.
    #[serde(default)]
    pub blamed_path: String,
    /// The type of what `blamed_path` names, as the function declares it.
    #[serde(default)]
    pub blamed_type: String,
    /// The field path read below the other parameter's pointee.
    #[serde(default)]
    pub from_path: String,
    /// True when the relation holds only through control flow (the write
    /// runs under a test of `from_param`), not through data.
    #[serde(default)]
    pub implicit: bool,
}

/// A natural loop: the source lines of its blocks, and its enclosing loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct LoopInfo {
    pub header_line: u32,
    pub lines: Vec<u32>,
    pub parent: Option<u32>,
}

/// How a read's address was indexed, to tell distinct reads apart (5.2.1).
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Encode, Decode,
)]
pub enum ReadIndex {
    /// A scalar read, or a field at a fixed offset.
    None,
    /// Indexed by the value of this variable.
    Var(u32),
    /// Indexed by a constant.
    Const(i64),
    /// Indexed by some other expression; equal ids mean the same SSA value.
    Expr(u32),
}

/// One distinct memory read on a line.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Encode, Decode,
)]
pub struct MemRead {
    pub variable: u32,
    pub index: ReadIndex,
}

/// How a read's address moves across iterations of the innermost loop
/// around it: the reference classes of a locality model (self-temporal,
/// self-spatial, no reuse), used to weigh which of a line's reads misses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub enum Reuse {
    /// A fixed address with no pointer loaded on the way (a local or global
    /// scalar, a field of a local struct): a register or a hot line.
    Fixed,
    /// The same address on every iteration of the innermost loop.
    Invariant,
    /// The address advances by this many bytes per iteration.
    Stride(i64),
    /// Data-dependent (an index or pointer loaded from memory that changes
    /// in the loop, a call's result) or not affine in the loop's counters.
    Irregular,
    /// Not in a loop, and not a fixed address.
    NoLoop,
    /// Data another access of the loop touched in the same iteration before
    /// it, or one or two iterations earlier of its loop or of the loop around
    /// it (`q[j - 1]` after `q[j] = ...`, `u[i - 1][j]` after `u[i + 1][j]`):
    /// still in the cache.
    Recent,
    /// A stride of a size known only at run time, as down a column of an n x
    /// n matrix (`c[i * n + j]` in an `i < n` loop): `stride`·n bytes per
    /// iteration, `trip`·n iterations. A line per access, and a sweep of
    /// `trip`·n lines, which the object's size bounds (`trip`·`stride`·n² ≤
    /// its bytes).
    Rows { trip: u32, stride: u32 },
    /// A constant stride along a row of a matrix whose size is known only at
    /// run time (`b[k * n + j]` over `j < n` inside a `k < n` loop):
    /// `stride` bytes per iteration, `trip`·n iterations; the object holds
    /// at least `pitch`·n² bytes.
    Row { stride: i32, trip: u32, pitch: u32 },
}

/// A read's addresses across iterations of the loop enclosing its
/// innermost loop: the same sweep again (`x[k]` in `y[i] += A[i][k] * x[k]`
/// for every `i`) or new data (`A[i][k]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, Encode, Decode)]
pub enum OuterReuse {
    /// No enclosing loop, or not known.
    #[default]
    Unknown,
    /// The same addresses in every iteration of the enclosing loop.
    Same,
    /// Different addresses in each iteration of the enclosing loop.
    Moves,
}

/// The data cache the access-pattern weights assume: its line size and the
/// size of the L1 data cache. The default (64-byte lines, 32 KiB) is that
/// of most x86-64 and AArch64 cores; a recording stores its machine's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct CacheGeometry {
    pub line_bytes: u64,
    pub l1d_bytes: u64,
}

impl Default for CacheGeometry {
    fn default() -> Self {
        CacheGeometry {
            line_bytes: 64,
            l1d_bytes: 32 * 1024,
        }
    }
}

impl CacheGeometry {
    /// Parses `L1D:LINE`, sizes in bytes with an optional K or M suffix
    /// (`48K:64`), as Linux prints them in sysfs.
    pub fn parse(text: &str) -> std::result::Result<CacheGeometry, BadCacheGeometry> {
        let usage = || BadCacheGeometry::Form {
            text: text.to_string(),
        };
        let (l1d, line) = text.split_once(':').ok_or_else(usage)?;
        let (l1d_bytes, line_bytes) = (
            parse_size(l1d).ok_or_else(usage)?,
            parse_size(line).ok_or_else(usage)?,
        );
        if line_bytes == 0 || l1d_bytes < line_bytes {
            return Err(BadCacheGeometry::LineDoesNotFit {
                text: text.to_string(),
                line_bytes,
                l1d_bytes,
            });
        }
        Ok(CacheGeometry {
            line_bytes,
            l1d_bytes,
        })
    }
}

/// Why a `--cache-geometry` is no cache geometry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadCacheGeometry {
    #[error("{text}: expected L1D:LINE, e.g. 32K:64 (L1 data cache and line size in bytes, K/M suffixes allowed)")]
    Form { text: String },
    #[error("{text}: the line ({line_bytes} bytes) must be non-zero and fit in the cache ({l1d_bytes} bytes)")]
    LineDoesNotFit {
        text: String,
        line_bytes: u64,
        l1d_bytes: u64,
    },
}

/// `48K`, `2048K`, `1M`, `64`: bytes.
pub fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let (digits, unit) = match t.char_indices().last()? {
        (i, 'K' | 'k') => (&t[..i], 1024),
        (i, 'M' | 'm') => (&t[..i], 1024 * 1024),
        _ => (t, 1),
    };
    digits.parse::<u64>().ok()?.checked_mul(unit)
}

/// The access pattern of one read (parallel to [`LineReads::reads`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Encode, Decode)]
pub struct ReadCost {
    pub reuse: Reuse,
    /// How the read's address moves across iterations of the loop around
    /// its innermost loop (the inner loop's own counter taken as restarting).
    #[serde(default)]
    pub outer: OuterReuse,
    /// Bytes of the whole object read when it is a global or stack array
    /// named directly (not through a pointer); 0 when not known.
    pub footprint: u64,
    /// Bytes one sweep of the innermost loop spans, for a read at a
    /// constant stride, when the analysis knows it: a constant trip count
    /// times the stride, or the pitch of the matrix row the read runs along
    /// (`c[i][j]` of a `double (*c)[96]`: 768); 0 when not known.
    #[serde(default)]
    pub sweep: u64,
    /// Loops that ran before the read's loop nest in the same iteration of
    /// an enclosing loop touched the same addresses over the same range (an
    /// output rescaled, zeroed or normalised in place before the nest
    /// accumulates into it): when the sweep fits in the cache, the earlier
    /// pass took its misses.
    #[serde(default)]
    pub swept_before: bool,
}

impl ReadCost {
    /// Expected misses per execution of the read in `cache`: 0 for fixed
    /// and loop-invariant addresses, stride/line for a stride shorter than a
    /// line, 1 for irregular and long strides; an object that fits in the
    /// L1 misses in proportion to the share of it that it takes.
    pub fn expected_misses(&self, cache: &CacheGeometry) -> f64 {
        let (line_bytes, cache_bytes) = (cache.line_bytes.max(1), cache.l1d_bytes.max(1));
        let per_access = match self.reuse {
            Reuse::Fixed | Reuse::Invariant | Reuse::Recent => 0.0,
            Reuse::Stride(s) => (s.unsigned_abs().min(line_bytes) as f64) / line_bytes as f64,
            Reuse::Row { stride, .. } => {
                (stride.unsigned_abs().min(line_bytes as u32) as f64) / line_bytes as f64
            }
            Reuse::Irregular | Reuse::NoLoop | Reuse::Rows { .. } => 1.0,
        };
        if self.footprint > 0 && self.footprint < cache_bytes {
            per_access * self.footprint as f64 / cache_bytes as f64
        } else {
            per_access
        }
    }
}

/// The distinct reads of one source line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct LineReads {
    pub line: u32,
    pub reads: Vec<MemRead>,
    /// The access pattern of each read (same order as `reads`; empty when
    /// unknown, e.g. summaries built by hand).
    pub costs: Vec<ReadCost>,
}

/// Everything post-processing needs about one function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct FunctionSummary {
    pub linkage_name: String,
    /// Demangled name (equal to the linkage name for C).
    pub name: String,
    pub file: String,
    pub line: u32,
    /// Hash of the function's IR: equal hashes mean the summary can be reused.
    pub ir_hash: u64,
    /// False when the IR had no debug locations: lines are missing and
    /// reports for this function can be by function only.
    pub has_line_info: bool,
    pub variables: Vec<Variable>,
    pub call_sites: Vec<CallSite>,
    pub side_effects: Vec<SideEffect>,
    /// Pairs of parameters that alias after the call returns.
    pub param_aliases: Vec<(u32, u32)>,
    /// The field paths of each pair of `param_aliases`, in the same order
    /// (`(".mesh_", "")`: the first parameter's `.mesh_` points to what
    /// the second points to); missing or empty: the whole parameters.
    #[serde(default)]
    pub param_alias_paths: Vec<(String, String)>,
    pub loops: Vec<LoopInfo>,
    pub reads: Vec<LineReads>,
    /// Every line with an instruction, sorted (for skid negation and coverage).
    pub lines: Vec<u32>,
    /// Per parameter, where the function may write below what it points to
    /// (its write set, closed over its calls); `None` when not computed (no
    /// pointer parameter): a caller assumes anything its arguments reach.
    /// Callers in other translation units are analyzed with these.
    #[serde(default)]
    pub param_writes: Option<Vec<Vec<ParamAccess>>>,
    /// Per parameter, what the function may read below what it points to
    /// (its read set); `None` when not computed.
    #[serde(default)]
    pub param_reads: Option<Vec<Vec<ParamAccess>>>,
    /// The translation unit the summary came from (its source file; empty
    /// when not known): whose kept IR (`units`) to analyze again when a
    /// function it calls in another unit changes its sets.
    #[serde(default)]
    pub unit: String,
    /// The globals the unit defines with debug info (name, line, type),
    /// held by one function summary of each unit (the first by linkage
    /// name): what names a global used elsewhere only through `extern`.
    #[serde(default)]
    pub unit_globals: Vec<GlobalDecl>,
    /// The fields (of any object) whose values, read here, flow into other
    /// data (`hist` and `stats` of `s->stats.hist[0]` read into a vector),
    /// each by name and declared type (`field_with_type`): a veto on their
    /// being result records. Post takes a field for a record when a
    /// function judged it one (`Variable::is_record` of a field) and no
    /// function names it (of its type) here.
    #[serde(default)]
    pub fields_feeding_data: Vec<String>,
    /// Where the pointer the function returns points below its pointer
    /// parameters (an accessor `double *data(Vec v)` returning
    /// `v->content->data`): callers in other units bind what it returns
    /// to their argument's variable.
    #[serde(default)]
    pub returns_into: Vec<ReturnedPointer>,
    /// What the unit stores in function-pointer slots, held by one summary
    /// of each unit (the first by linkage name, as `unit_globals`): pairs
    /// of a slot (`*NVectorOps+16`: a struct's field; `*GmresSolve#2`: a
    /// parameter) and a function name, another slot it takes its values
    /// from, or `?` (a value not followed). A call through a slot calls
    /// what the slots of the whole program store there.
    #[serde(default)]
    pub unit_function_pointers: Vec<(String, String)>,
}

/// Where a returned pointer points: `path` below what parameter `arg`
/// points to, `deref` loads further.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Encode, Decode,
)]
pub struct ReturnedPointer {
    pub arg: u32,
    pub path: Vec<String>,
    pub deref: u32,
}

/// A global a unit defines, as its debug info declares it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct GlobalDecl {
    pub name: String,
    pub line: u32,
    pub type_name: String,
    pub is_scalar: bool,
}

impl FunctionSummary {
    pub fn key(&self) -> (String, String) {
        (self.linkage_name.clone(), self.file.clone())
    }

    /// Checks internal references so a corrupt summary is an error, not a panic later.
    pub fn validate(&self) -> Result<()> {
        let n = self.variables.len() as u32;
        let bad = |reason: String| FormatError::Invalid {
            context: format!("static summary of {}", self.linkage_name),
            reason,
        };
        for (i, v) in self.variables.iter().enumerate() {
            if let Some(p) = v.parent {
                if p >= n || p as usize == i {
                    return Err(bad(format!("variable {} has parent {p} of {n}", v.name)));
                }
            }
            if let Some(a) = v.aliases.iter().find(|&&a| a >= n) {
                return Err(bad(format!("variable {} aliases {a} of {n}", v.name)));
            }
        }
        for c in &self.call_sites {
            for o in &c.outputs {
                if let Some(b) = o
                    .blamed
                    .iter()
                    .chain(&o.pointees)
                    .chain(&o.explicit)
                    .find(|&&b| b >= n)
                {
                    return Err(bad(format!(
                        "call at line {} blames variable {b} of {n}",
                        c.line
                    )));
                }
            }
        }
        for l in &self.loops {
            if l.parent.is_some_and(|p| p as usize >= self.loops.len()) {
                return Err(bad("loop parent out of range".into()));
            }
        }
        for lr in &self.reads {
            if !lr.costs.is_empty() && lr.costs.len() != lr.reads.len() {
                return Err(bad(format!(
                    "line {} has {} reads and {} access patterns",
                    lr.line,
                    lr.reads.len(),
                    lr.costs.len()
                )));
            }
            if let Some(r) = lr.reads.iter().find(|r| r.variable >= n) {
                return Err(bad(format!(
                    "read of variable {} on line {}",
                    r.variable, lr.line
                )));
            }
        }
        // A cycle in parents would hang container resolution. Each variable
        // is walked once (linear, so a huge corrupt chain cannot stall the reader).
        const UNSEEN: u8 = 0;
        const ON_PATH: u8 = 1;
        const ACYCLIC: u8 = 2;
        let mut state = vec![UNSEEN; self.variables.len()];
        let mut path = Vec::new();
        for start in 0..self.variables.len() {
            let mut cur = Some(start as u32);
            while let Some(p) = cur {
                match state[p as usize] {
                    ACYCLIC => break,
                    ON_PATH => {
                        return Err(bad(format!(
                            "parent cycle at variable {}",
                            self.variables[p as usize].name
                        )))
                    }
                    _ => {
                        state[p as usize] = ON_PATH;
                        path.push(p);
                        cur = self.variables[p as usize].parent;
                    }
                }
            }
            for p in path.drain(..) {
                state[p as usize] = ACYCLIC;
            }
        }
        Ok(())
    }
}

/// Header of a static db file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct StaticDbHeader {
    /// e.g. `blame 0.1.0`.
    pub producer: String,
    /// LLVM version the IR was read with.
    pub llvm_version: String,
}

/// A set of function summaries, keyed by (linkage name, file).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StaticDb {
    pub functions: BTreeMap<(String, String), FunctionSummary>,
}

impl StaticDb {
    pub fn insert(&mut self, f: FunctionSummary) {
        self.functions.insert(f.key(), f);
    }

    /// Adds every function of `other`, replacing summaries with the same key.
    pub fn merge(&mut self, other: StaticDb) {
        self.functions.extend(other.functions);
    }

    /// The one summary of linkage name `name`, when there is exactly one
    /// (a `static` function of several files has several: which one a
    /// call by that name reaches is not known).
    pub fn only(&self, name: &str) -> Option<&FunctionSummary> {
        let mut found = self
            .functions
            .range((name.to_string(), String::new())..)
            .take_while(|((n, _), _)| n == name);
        match (found.next(), found.next()) {
            (Some((_, s)), None) => Some(s),
            _ => None,
        }
    }

    /// The summary for `key` if its IR hash is still `ir_hash`.
    pub fn cached(&self, linkage_name: &str, file: &str, ir_hash: u64) -> Option<&FunctionSummary> {
        self.functions
            .get(&(linkage_name.to_string(), file.to_string()))
            .filter(|f| f.ir_hash == ir_hash)
    }

    pub fn len(&self) -> usize {
        self.functions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.functions.is_empty()
    }

    /// Writes atomically: to a temporary file beside `path`, then renamed.
    pub fn write(&self, path: impl AsRef<Path>, header: &StaticDbHeader) -> Result<()> {
        write_atomic(path.as_ref(), STATIC_DB, header, self.functions.values())
    }

    pub fn read(path: impl AsRef<Path>) -> Result<(StaticDb, StaticDbHeader)> {
        let path = path.as_ref();
        let file = open_regular(path).map_err(|e| FormatError::io(path, e))?;
        Self::read_from(BufReader::new(file), path)
    }

    /// Reads only the preamble and header: is `path` a static db this build
    /// can read (magic, version)? Cheap whatever the db's size.
    pub fn read_header(path: impl AsRef<Path>) -> Result<StaticDbHeader> {
        let path = path.as_ref();
        let file = open_regular(path).map_err(|e| FormatError::io(path, e))?;
        let (_, header) = ContainerReader::open(BufReader::new(file), path, STATIC_DB)?;
        Ok(header)
    }

    pub fn read_bytes(bytes: &[u8]) -> Result<(StaticDb, StaticDbHeader)> {
        Self::read_from(bytes, Path::new("<memory>"))
    }

    fn read_from<R: Read>(input: R, path: &Path) -> Result<(StaticDb, StaticDbHeader)> {
        let (mut r, header) = ContainerReader::open(input, path, STATIC_DB)?;
        let mut db = StaticDb::default();
        while let Some(chunk) = r.next_chunk()? {
            for f in chunk.decode::<FunctionSummary>(path)? {
                f.validate()?;
                db.insert(f);
            }
        }
        r.require_end()?;
        Ok((db, header))
    }
}

/// Where a static db is when nobody names one.
pub const DEFAULT_PATH: &str = ".blame/static.db";

/// The static db `blame cc` and `blame analyze` write and `blame post`
/// reads unless told otherwise: `$BLAME_DB`, else [`DEFAULT_PATH`].
pub fn default_path() -> std::path::PathBuf {
    std::env::var_os("BLAME_DB")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(DEFAULT_PATH))
}

#[cfg(test)]
mod cache_geometry_tests {
    use super::*;

    #[test]
    fn sizes_and_geometries_parse_as_sysfs_prints_them() {
        assert_eq!(parse_size("48K"), Some(48 * 1024));
        assert_eq!(parse_size("2048K\n"), Some(2048 * 1024));
        assert_eq!(parse_size("1M"), Some(1 << 20));
        assert_eq!(parse_size("64"), Some(64));
        assert_eq!(parse_size("K"), None);
        assert_eq!(parse_size("12Q"), None);
        assert_eq!(
            CacheGeometry::parse("48K:64"),
            Ok(CacheGeometry {
                line_bytes: 64,
                l1d_bytes: 48 * 1024
            })
        );
        assert!(CacheGeometry::parse("48K").is_err());
        assert!(CacheGeometry::parse("1K:4K").is_err());
        assert!(CacheGeometry::parse("32K:0").is_err());
    }

    #[test]
    fn expected_misses_follow_the_geometry() {
        let cost = |reuse, footprint| ReadCost {
            reuse,
            footprint,
            outer: OuterReuse::Unknown,
            sweep: 0,
            swept_before: false,
        };
        let small = CacheGeometry::default();
        let wide = CacheGeometry {
            line_bytes: 128,
            l1d_bytes: 1 << 20,
        };
        let stream = cost(Reuse::Stride(8), 0);
        assert_eq!(stream.expected_misses(&small), 8.0 / 64.0);
        assert_eq!(stream.expected_misses(&wide), 8.0 / 128.0);
        assert_eq!(cost(Reuse::Stride(-256), 0).expected_misses(&small), 1.0);
        assert_eq!(cost(Reuse::Irregular, 0).expected_misses(&small), 1.0);
        assert_eq!(cost(Reuse::Invariant, 0).expected_misses(&small), 0.0);
        assert_eq!(cost(Reuse::Fixed, 8).expected_misses(&small), 0.0);
        // A 16 KiB table: half of a 32 KiB L1, a sixty-fourth of 1 MiB.
        let table = cost(Reuse::Irregular, 16 * 1024);
        assert_eq!(table.expected_misses(&small), 0.5);
        assert_eq!(table.expected_misses(&wide), 1.0 / 64.0);
        assert_eq!(
            cost(Reuse::Irregular, 64 * 1024).expected_misses(&small),
            1.0
        );
    }
}

#[cfg(test)]
mod version_tests {
    use super::*;

    /// `FunctionSummary` gained `returns_into` after version 10, which a
    /// version-10 reader cannot decode (bincode has no optional fields):
    /// this build writes version 11 and refuses a version-10 db with the version error
    /// (not a decode error halfway through), so `blame analyze` can say to
    /// remove it.
    #[test]
    fn dbs_with_returned_pointers_are_version_11_and_v10_is_refused() {
        assert_eq!(STATIC_DB.version, 11);
        let dir = std::env::temp_dir().join(format!("blame-sdb-version-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("static.db");
        let header = StaticDbHeader {
            producer: "test".into(),
            llvm_version: "19".into(),
        };
        StaticDb::default().write(&path, &header).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 11);
        assert!(StaticDb::read_bytes(&bytes).is_ok());
        bytes[8..12].copy_from_slice(&10u32.to_le_bytes());
        assert!(matches!(
            StaticDb::read_bytes(&bytes),
            Err(FormatError::UnsupportedVersion {
                found: 10,
                supported: 11,
                ..
            })
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
