//! Static variable-blame analysis (dissertation ch. 3 and 5.1) over LLVM IR.
//!
//! [`llvm_loader`] converts bitcode or textual IR into the plain model of
//! [`ir`]; [`analysis`] computes one function's summary on that model (with
//! [`cfg`] for loops and control dependence, [`access`] for the access
//! pattern of each read, [`library_models`] for library calls); this
//! module runs it in parallel over a module, reusing cached summaries whose
//! IR hash is unchanged, and renders the `--dump json` view.

// `unsafe` only where the crate doc says (with SAFETY notes).
#![deny(unsafe_code)]
pub mod access;
pub mod analysis;
pub mod cfg;
pub mod ir;
pub mod library_models;
#[allow(unsafe_code)]
pub mod llvm_loader;
pub mod queue_drain;

use blame_formats::static_db::{FunctionSummary, ReadIndex, Reuse, StaticDb};
use rayon::prelude::*;
use std::time::{Duration, Instant};

/// Bumped whenever the analysis changes, so cached summaries are recomputed.
pub const ANALYSIS_VERSION: u64 = 7;

pub use llvm_loader::{load_file, LoadError};

/// One demangler for every stage (`blame_formats::names`).
pub use blame_formats::names::demangle;

/// The cache key of a function's summary: its IR, and where the pointers
/// returned by the functions it calls point, and the fields of the objects
/// they return, and where they write through their parameters (an
/// accessor's, a factory's or a kernel's body changes the caller's summary).
fn summary_hash(m: &ir::Module, defined: &analysis::DefinedFunctions, f: &ir::Function) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = twox_hash::XxHash64::with_seed(f.content_hash(m));
    // Where a function of the module writes and reads through its
    // parameters (`None` for names without a body here).
    type Access<'a> = Option<&'a [analysis::ParamWrite]>;
    let access = |name: &str, args: usize| -> Vec<(Access<'_>, Access<'_>)> {
        (0..args as u32)
            .map(|k| (defined.param_writes(name, k), defined.param_reads(name, k)))
            .collect()
    };
    for inst in &f.insts {
        if let ir::Op::Call { callee: Some(c) } = &inst.op {
            let into = defined.returns_into(c);
            let fields = defined.field_aliases(c);
            let sets = access(c, inst.args.len());
            if !into.is_empty()
                || !fields.is_empty()
                || sets.iter().any(|(w, r)| w.is_some() || r.is_some())
            {
                c.hash(&mut h);
                into.hash(&mut h);
                fields.hash(&mut h);
                sets.hash(&mut h);
            }
            // An OpenMP fork's model comes from its outlined region's sets.
            for a in &inst.args {
                if let ir::Value::Func(region) = a {
                    region.hash(&mut h);
                    access(region, inst.args.len()).hash(&mut h);
                }
            }
        }
    }
    h.finish()
}

/// Result of analyzing one module.
#[derive(Debug, Default)]
pub struct ModuleResult {
    pub summaries: Vec<FunctionSummary>,
    /// Functions whose cached summary was reused.
    pub reused: usize,
    /// Per analyzed function: (linkage name, time).
    pub timings: Vec<(String, Duration)>,
}

/// Analyzes every defined function of `m` in parallel; summaries in `cache`
/// with the same (name, file, IR hash) are reused instead.
pub fn analyze_module(m: &ir::Module, cache: Option<&StaticDb>) -> ModuleResult {
    let defined = analysis::DefinedFunctions::new(m);
    let results: Vec<(FunctionSummary, Option<Duration>)> = m
        .functions
        .par_iter()
        .filter(|f| !f.is_declaration && !f.blocks.is_empty())
        .map(|f| {
            let file = if f.file.is_empty() {
                m.source_file.clone()
            } else {
                f.file.clone()
            };
            let hash = summary_hash(m, &defined, f);
            if let Some(c) = cache.and_then(|c| c.cached(&f.name, &file, hash)) {
                return (c.clone(), None);
            }
            let t = Instant::now();
            let mut s = analysis::analyze_with(m, &defined, f);
            s.name = demangle(&f.name);
            s.file = file;
            s.ir_hash = hash;
            (s, Some(t.elapsed()))
        })
        .collect();
    let mut out = ModuleResult::default();
    for (s, t) in results {
        match t {
            Some(t) => out.timings.push((s.linkage_name.clone(), t)),
            None => out.reused += 1,
        }
        out.summaries.push(s);
    }
    out
}

/// The `--dump json` view: per function, each variable with its kind, type,
/// declaration line and blamed lines.
pub fn dump_json(db: &StaticDb) -> serde_json::Value {
    use serde_json::json;
    let functions: Vec<serde_json::Value> = db
        .functions
        .values()
        .map(|f| {
            let vars: Vec<serde_json::Value> = f
                .variables
                .iter()
                .map(|v| {
                    json!({
                        "name": v.name,
                        "kind": v.kind.as_str(),
                        "type": v.type_name,
                        "line": v.line,
                        "explicit_lines": v.explicit_lines,
                        "implicit_lines": v.implicit_lines,
                        "lines": v.lines(),
                        "write_lines": v.write_lines,
                        "exit": v.is_exit,
                        "parent": v.parent.map(|p| f.variables[p as usize].name.clone()),
                        "aliases": v.aliases.iter().map(|&a| f.variables[a as usize].name.clone()).collect::<Vec<_>>(),
                        "heap_bytes": v.heap_bytes,
                    })
                })
                .collect();
            let calls: Vec<serde_json::Value> = f
                .call_sites
                .iter()
                .map(|c| {
                    json!({
                        "line": c.line,
                        "callee": c.callee,
                        "outputs": c.outputs.iter().map(|o| json!({
                            "output": match o.output {
                                blame_formats::static_db::CallOutput::Return => "return".to_string(),
                                blame_formats::static_db::CallOutput::Arg(k) => format!("arg{k}"),
                            },
                            "blamed": o.blamed.iter().map(|&b| f.variables[b as usize].name.clone()).collect::<Vec<_>>(),
                            "explicit": o.explicit.iter().map(|&b| f.variables[b as usize].name.clone()).collect::<Vec<_>>(),
                            "pointees": o.pointees.iter().map(|&b| f.variables[b as usize].name.clone()).collect::<Vec<_>>(),
                        })).collect::<Vec<_>>(),
                        "model": c.model.as_ref().map(|m| m.iter().map(|o| format!("{o:?}")).collect::<Vec<_>>()),
                    })
                })
                .collect();
            json!({
                "name": f.name,
                "linkage_name": f.linkage_name,
                "file": f.file,
                "line": f.line,
                "has_line_info": f.has_line_info,
                "variables": vars,
                "call_sites": calls,
                "side_effects": f.side_effects.iter().map(|s| json!({"blamed_param": s.blamed_param, "blamed_path": s.blamed_path, "from_param": s.from_param, "from_path": s.from_path, "implicit": s.implicit})).collect::<Vec<_>>(),
                "param_aliases": f.param_aliases,
                "param_alias_paths": f.param_alias_paths,
                "loops": f.loops.iter().map(|l| json!({"header_line": l.header_line, "lines": l.lines, "parent": l.parent})).collect::<Vec<_>>(),
                "reads": f.reads.iter().map(|lr| json!({
                    "line": lr.line,
                    "reads": lr.reads.iter().enumerate().map(|(k, r)| {
                        let name = |v: u32| f.variables.get(v as usize).map(|v| v.name.clone()).unwrap_or_default();
                        let index = match &r.index {
                            ReadIndex::None => json!(null),
                            ReadIndex::Var(v) => json!({"variable": name(*v)}),
                            ReadIndex::Const(c) => json!({"constant": c}),
                            ReadIndex::Expr(e) => json!({"expression": e}),
                        };
                        let access = lr.costs.get(k).map(|c| {
                            let reuse = match c.reuse {
                                Reuse::Fixed => json!("fixed"),
                                Reuse::Invariant => json!("invariant"),
                                Reuse::Stride(s) => json!({"stride": s}),
                                Reuse::Irregular => json!("irregular"),
                                Reuse::NoLoop => json!("no loop"),
                                Reuse::Recent => json!("recent"),
                                Reuse::Rows { trip, stride } => {
                                    json!({"rows": {"trip": trip, "stride": stride}})
                                }
                                Reuse::Row {
                                    stride,
                                    trip,
                                    pitch,
                                } => {
                                    json!({"row": {"stride": stride, "trip": trip, "pitch": pitch}})
                                }
                            };
                            json!({"reuse": reuse, "footprint": c.footprint})
                        });
                        json!({"variable": name(r.variable), "index": index, "access": access})
                    }).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({ "functions": functions })
}

/// Errors of the analyze step as a whole.
#[derive(Debug, thiserror::Error)]
pub enum StaticError {
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error(transparent)]
    Format(#[from] blame_formats::error::FormatError),
    #[error("{path}: written by an older blame (static db version {found}, this build writes version {supported}); its summaries cannot be reused: delete it and run blame cc / blame analyze again on every translation unit")]
    OlderDb {
        path: String,
        found: u32,
        supported: u32,
    },
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

/// What one `analyze_into_db` call did.
#[derive(Debug, Default)]
pub struct DbUpdate {
    pub analyzed: usize,
    pub reused: usize,
    pub functions_without_lines: usize,
    /// Wall time of the whole call.
    pub elapsed: Duration,
    /// Wall time of the stages: loading the IR; analyzing it (in parallel);
    /// locking, reading, merging into and writing the db.
    pub load_time: Duration,
    pub analysis_time: Duration,
    pub db_time: Duration,
    /// Threads the analysis ran on.
    pub threads: usize,
    pub slowest: Option<(String, Duration)>,
    /// Every analyzed function (linkage name, time), slowest first.
    pub timings: Vec<(String, Duration)>,
    /// The summaries of this run's inputs only.
    pub db: StaticDb,
    /// Inputs (by the names given for messages) that define no function:
    /// translation units of data only, nothing to analyze.
    pub without_functions: Vec<String>,
}

pub fn header() -> blame_formats::static_db::StaticDbHeader {
    blame_formats::static_db::StaticDbHeader {
        producer: format!("blame {}", env!("CARGO_PKG_VERSION")),
        llvm_version: llvm_loader::LLVM_VERSION.into(),
    }
}

/// Loads and analyzes `inputs`, merging the summaries into the static db at
/// `db_path` (created if missing). The db is locked (`DB.lock`) for the
/// whole read–merge–write so concurrent `blame cc` processes never lose work.
/// An input that defines no function is no error: it is listed in
/// [`DbUpdate::without_functions`].
pub fn analyze_into_db(
    inputs: &[std::path::PathBuf],
    db_path: &std::path::Path,
) -> Result<DbUpdate, StaticError> {
    let named: Vec<(std::path::PathBuf, String)> = inputs
        .iter()
        .map(|p| (p.clone(), p.display().to_string()))
        .collect();
    analyze_named_into_db(&named, db_path)
}

/// [`analyze_into_db`] with the name each input goes by in messages, e.g.
/// the source file a temporary bitcode file was compiled from.
pub fn analyze_named_into_db(
    inputs: &[(std::path::PathBuf, String)],
    db_path: &std::path::Path,
) -> Result<DbUpdate, StaticError> {
    let start = Instant::now();
    // Load first: a bad input fails before the db is touched.
    let mut modules: Vec<ir::Module> = Vec::new();
    let mut without_functions = Vec::new();
    for (path, name) in inputs {
        let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
            path: name.clone(),
            source,
        })?;
        match llvm_loader::load_bytes(&bytes, name) {
            Ok(m) => modules.push(m),
            Err(LoadError::Empty { .. }) => without_functions.push(name.clone()),
            Err(e) => return Err(e.into()),
        }
    }
    // A class only declared in one unit (clang homes its debug info where
    // its constructor or key function is) gets its members from another.
    if modules.len() > 1 {
        for i in 0..modules.len() {
            let (before, rest) = modules.split_at_mut(i);
            let (m, after) = rest.split_first_mut().expect("i < len");
            let others: Vec<&ir::Module> = before.iter().chain(after.iter()).collect();
            m.complete_declarations(&others);
        }
    }
    let load_time = start.elapsed();
    if modules.is_empty() {
        // Nothing to add: the db is left as it is (not even created).
        return Ok(DbUpdate {
            load_time,
            without_functions,
            elapsed: start.elapsed(),
            threads: rayon::current_num_threads(),
            ..Default::default()
        });
    }
    let io = |p: &std::path::Path| {
        let path = p.display().to_string();
        move |source| StaticError::Io { path, source }
    };
    if let Some(dir) = db_path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
    }
    // Writers of one db take turns (parallel `make -j` compiles).
    let lock_path = db_path.with_extension("lock");
    let lock = blame_formats::lock::WriterLock::wait(&lock_path).map_err(io(&lock_path))?;
    let mut db = if db_path.exists() {
        match StaticDb::read(db_path) {
            Ok((db, _)) => db,
            Err(blame_formats::error::FormatError::UnsupportedVersion {
                found, supported, ..
            }) if found < supported => {
                return Err(StaticError::OlderDb {
                    path: db_path.display().to_string(),
                    found,
                    supported,
                })
            }
            Err(e) => return Err(e.into()),
        }
    } else {
        StaticDb::default()
    };
    let mut up = DbUpdate {
        load_time,
        without_functions,
        threads: rayon::current_num_threads(),
        ..Default::default()
    };
    for m in &modules {
        let t = Instant::now();
        let r = analyze_module(m, Some(&db));
        up.analysis_time += t.elapsed();
        up.reused += r.reused;
        up.analyzed += r.timings.len();
        up.timings.extend(r.timings);
        for s in r.summaries {
            if !s.has_line_info {
                up.functions_without_lines += 1;
            }
            up.db.insert(s.clone());
            db.insert(s);
        }
    }
    db.write(db_path, &header())?;
    drop(lock);
    up.timings
        .sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    up.slowest = up.timings.first().cloned();
    up.elapsed = start.elapsed();
    up.db_time = up.elapsed - up.load_time - up.analysis_time;
    Ok(up)
}
