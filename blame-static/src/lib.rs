//! Static variable-blame analysis (dissertation ch. 3 and 5.1) over LLVM IR.
//!
//! [`llvm_loader`] converts bitcode or textual IR into the plain model of
//! [`ir`]; [`analysis`] computes one function's summary on that model (with
//! [`cfg`] for loops and control dependence, [`access`] for the access
//! pattern of each read, [`library_models`] for library calls); this
//! module runs it in parallel over a module, reusing cached summaries whose
//! IR hash is unchanged, and updates the static db (`across_units` keeps
//! its write and read sets a fixed point across units; `dump` renders the
//! `--dump json` view).

// `unsafe` only where the crate doc says (with SAFETY notes).
#![deny(unsafe_code)]
pub mod access;
mod across_units;
pub mod analysis;
pub mod cfg;
mod dump;
pub mod function_pointers;
pub mod ir;
pub mod library_models;
#[allow(unsafe_code)]
pub mod llvm_loader;
pub mod queue_drain;
pub mod virtual_methods;

use across_units::{analyze_modules_into, complete_declarations, reanalyze_callers};
use blame_formats::static_db::{FunctionSummary, StaticDb};
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// The analysis's hash maps and sets: FxHash, whose keys are the
/// analysis's own small ids and values (SipHash cost a few percent of the
/// analysis of large functions); nothing depends on their order.
pub type HashMap<K, V> = std::collections::HashMap<K, V, rustc_hash::FxBuildHasher>;
pub type HashSet<K> = std::collections::HashSet<K, rustc_hash::FxBuildHasher>;

/// Bumped whenever the analysis changes, so cached summaries are recomputed.
pub const ANALYSIS_VERSION: u64 = 16;

pub use dump::dump_json;
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
    type Flows<'a> = Option<&'a [u32]>;
    let access = |name: &str, args: usize| -> Vec<(Access<'_>, Access<'_>, Flows<'_>)> {
        (0..args as u32)
            .map(|k| {
                (
                    defined.param_writes(name, k),
                    defined.param_reads(name, k),
                    defined.param_flows(name, k),
                )
            })
            .collect()
    };
    for inst in &f.insts {
        if let ir::Op::Call { callee: Some(c) } = &inst.op {
            let into = defined.returns_into(c);
            let fields = defined.field_aliases(c);
            let sets = access(c, inst.args.len());
            // The globals it writes are written by the call here.
            defined.global_writes(c).hash(&mut h);
            // What it only records numbers through.
            defined.record_params(c).hash(&mut h);
            if !into.is_empty()
                || !fields.is_empty()
                || sets
                    .iter()
                    .any(|(w, r, f)| w.is_some() || r.is_some() || f.is_some())
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

/// The name a module's unit goes by in the static db (`FunctionSummary::unit`
/// and its kept IR): the absolute path of its source file when a function
/// of the file says it (the debug info's directory and file name), else
/// the name the module was compiled from.
pub fn unit_name(m: &ir::Module) -> String {
    let base = std::path::Path::new(&m.source_file).file_name();
    m.functions
        .iter()
        .filter(|f| !f.is_declaration && f.file.starts_with('/'))
        .map(|f| f.file.as_str())
        .find(|f| base.is_some() && std::path::Path::new(f).file_name() == base)
        .map(str::to_string)
        .unwrap_or_else(|| m.source_file.clone())
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

/// The sets of what `m` calls in other units (`cache`): functions, virtual
/// calls by their overrides, and calls through function pointers by what
/// the whole program stores in their slots (the other units' facts and
/// this module's).
fn external_sets(m: &ir::Module, cache: Option<&StaticDb>, unit: &str) -> analysis::AccessSets {
    let mut external = cache
        .map(|db| {
            let mut sets = analysis::AccessSets::external(m, db);
            analysis::add_override_sets_from_db(m, db, &mut sets);
            sets
        })
        .unwrap_or_default();
    // (Only a module calling through a slot needs them: no scan of the db
    // for the others.)
    if m.functions
        .iter()
        .any(|f| f.is_declaration && function_pointers::is_slot(&f.name))
    {
        let mut facts = cache
            .map(|db| function_pointers::SlotFacts::of_db(db, unit))
            .unwrap_or_default();
        facts.extend(
            m.function_pointers
                .iter()
                .map(|(a, b)| (a.as_str(), b.as_str())),
        );
        analysis::add_pointer_sets_from_db(m, cache, &facts, &mut external);
    }
    external
}

/// Analyzes every defined function of `m` in parallel; summaries in `cache`
/// with the same (name, file, IR hash) are reused instead.
///
/// Calls to functions of other units whose summaries `cache` holds use
/// their stored write and read sets (instead of "anything the arguments
/// reach"); each summary stores its own sets for callers analyzed later.
pub fn analyze_module(m: &ir::Module, cache: Option<&StaticDb>) -> ModuleResult {
    let unit = unit_name(m);
    let external = external_sets(m, cache, &unit);
    let mut defined = analysis::DefinedFunctions::with_external(m, &external);
    let analyze = |defined: &analysis::DefinedFunctions,
                   f: &ir::Function|
     -> (FunctionSummary, Option<Duration>) {
        let file = if f.file.is_empty() {
            m.source_file.clone()
        } else {
            f.file.clone()
        };
        let hash = summary_hash(m, defined, f);
        let (param_writes, param_reads) = defined.stored_sets(&f.name);
        let returns_into: Vec<blame_formats::static_db::ReturnedPointer> = defined
            .returns_into(&f.name)
            .iter()
            .map(|r| blame_formats::static_db::ReturnedPointer {
                arg: r.arg,
                path: r.path.clone(),
                deref: r.deref,
            })
            .collect();
        if let Some(c) = cache.and_then(|c| c.cached(&f.name, &file, hash)) {
            let mut c = c.clone();
            c.param_writes = param_writes;
            c.param_reads = param_reads;
            c.returns_into = returns_into;
            c.unit = unit.clone();
            return (c, None);
        }
        let t = Instant::now();
        let mut s = analysis::analyze_with(m, defined, f);
        s.name = demangle(&f.name);
        s.file = file;
        s.ir_hash = hash;
        s.param_writes = param_writes;
        s.param_reads = param_reads;
        s.returns_into = returns_into;
        s.unit = unit.clone();
        (s, Some(t.elapsed()))
    };
    let bodies = || {
        m.functions
            .par_iter()
            .filter(|f| !f.is_declaration && !f.blocks.is_empty())
    };
    // Per-output transfer functions of the module's own functions: those
    // writing through two or more of their parameters (`dot(n, x, y,
    // &result, &time)`, known from the write sets) are analyzed first, and
    // say which arguments flow into each output; the rest are analyzed
    // with that, so a call's outputs do not all take every input's blame.
    let several_outputs: BTreeSet<&str> = m
        .functions
        .iter()
        .filter(|f| !f.is_declaration && !f.blocks.is_empty())
        .filter(|f| {
            (0..f.params.len() as u32)
                .filter(|&k| {
                    defined
                        .param_writes(&f.name, k)
                        .is_some_and(|w| !w.is_empty())
                })
                .count()
                >= 2
        })
        .map(|f| f.name.as_str())
        .collect();
    let mut results: Vec<(FunctionSummary, Option<Duration>)> = bodies()
        .filter(|f| several_outputs.contains(f.name.as_str()))
        .map(|f| analyze(&defined, f))
        .collect();
    if !results.is_empty() {
        let flows: HashMap<String, Vec<Vec<u32>>> = results
            .iter()
            .map(|(s, _)| (s.linkage_name.clone(), analysis::summary_flows(s)))
            .collect();
        defined.set_flows(flows);
        let records: HashMap<String, Vec<(u32, bool)>> = results
            .iter()
            .map(|(s, _)| (s.linkage_name.clone(), analysis::summary_record_params(s)))
            .collect();
        defined.set_records(records);
    }
    let rest: Vec<(FunctionSummary, Option<Duration>)> = bodies()
        .filter(|f| !several_outputs.contains(f.name.as_str()))
        .map(|f| analyze(&defined, f))
        .collect();
    results.extend(rest);
    // The unit's defined globals and function-pointer facts, on its first
    // function by linkage name (set on cached summaries too: another
    // function's edit may have added one).
    if let Some(first) = (0..results.len())
        .min_by(|&a, &b| results[a].0.linkage_name.cmp(&results[b].0.linkage_name))
    {
        for (i, (s, _)) in results.iter_mut().enumerate() {
            // A cached summary may have been the first before an edit.
            (s.unit_globals, s.unit_function_pointers) = if i == first {
                (unit_globals(m), m.function_pointers.clone())
            } else {
                (Vec::new(), Vec::new())
            };
        }
    }
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

/// The globals module `m` defines with debug info (not function-static
/// locals, not what the compiler made).
fn unit_globals(m: &ir::Module) -> Vec<blame_formats::static_db::GlobalDecl> {
    m.globals
        .iter()
        .filter(|g| !g.artificial && g.function.is_none() && g.ty.is_some() && g.line > 0)
        .map(|g| blame_formats::static_db::GlobalDecl {
            name: g.source_name.clone().unwrap_or_else(|| g.name.clone()),
            line: g.line,
            type_name: m.type_name_opt(g.ty),
            is_scalar: m.is_scalar(g.ty) || m.is_mpi_handle(g.ty),
        })
        .collect()
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
    /// Units of earlier calls analyzed again from their kept IR, because
    /// the sets of functions they call in this call's units changed.
    pub reanalyzed_units: usize,
    /// Units to analyze again whose kept IR could not be read (each with
    /// why): their summaries stay as they were, with the sets of before.
    pub unreadable_units: Vec<String>,
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
    let mut kept: Vec<Vec<u8>> = Vec::new();
    let mut without_functions = Vec::new();
    for (path, name) in inputs {
        let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
            path: name.clone(),
            source,
        })?;
        match llvm_loader::load_bytes(&bytes, name) {
            Ok(m) => {
                modules.push(m);
                kept.push(bytes);
            }
            Err(LoadError::Empty { .. }) => without_functions.push(name.clone()),
            Err(e) => return Err(e.into()),
        }
    }
    complete_declarations(&mut modules);
    let load_time = start.elapsed();
    profile_memory("loaded");
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
    // Keep each unit's IR: a unit analyzed later may change the sets of
    // what it calls here.
    for (m, bytes) in modules.iter().zip(&kept) {
        let unit = unit_name(m);
        let path = blame_formats::units::path_of(db_path, &unit);
        blame_formats::units::store(db_path, &unit, bytes).map_err(io(&path))?;
    }
    let analyzed = analyze_modules_into(&modules, &mut db, &mut up, true);
    profile_memory("analyzed");
    reanalyze_callers(db_path, &mut db, &mut up, analyzed);
    // This call's summaries as the db now holds them (analyzed again when
    // a later unit of the call changed what they call).
    for (key, s) in up.db.functions.iter_mut() {
        if let Some(now) = db.functions.get(key) {
            s.clone_from(now);
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

#[cfg(test)]
mod across_units_tests {
    use super::*;
    use blame_formats::static_db::{FunctionSummary, ParamAccess, Variable};
    use std::path::{Path, PathBuf};

    const HEADER: &str = "struct S { double *a; long count; double t; };\n\
                          void kern(struct S *s, int n);\n";
    const MAIN: &str = "void kern(struct S *s, int n);\n\
                        long drive(struct S *s, int n) {\n\
                        \x20 for (int k = 0; k < 10; k++) {\n\
                        \x20   kern(s, n);\n\
                        \x20   s->count++;\n\
                        \x20 }\n\
                        \x20 return s->count;\n\
                        }\n";
    const KERN: &str = "void kern(struct S *s, int n) {\n\
                        \x20 for (int i = 0; i < n; i++) s->a[i] *= 2.0;\n\
                        }\n";
    /// The kernel rebuilt: it now counts too.
    const KERN_COUNTS: &str = "void kern(struct S *s, int n) {\n\
                               \x20 for (int i = 0; i < n; i++) s->a[i] *= 2.0;\n\
                               \x20 s->count += n;\n\
                               }\n";

    /// `src` after [`HEADER`] compiled to bitcode as `blame cc` does, as `dir/name.bc`.
    fn unit(dir: &Path, name: &str, src: &str) -> PathBuf {
        source_unit(dir, name, &format!("{HEADER}{src}"))
    }

    /// `text` compiled to bitcode as `blame cc` does, as `dir/name.bc`.
    fn source_unit(dir: &Path, name: &str, text: &str) -> PathBuf {
        let c = dir.join(format!("{name}.c"));
        let bc = dir.join(format!("{name}.bc"));
        std::fs::write(&c, text).unwrap();
        crate::test_clang::bitcode(&c, &bc, &["-O0"]);
        bc
    }

    fn function(db: &Path, name: &str) -> FunctionSummary {
        let (db, _) = StaticDb::read(db).unwrap();
        db.functions
            .values()
            .find(|s| s.linkage_name == name)
            .cloned()
            .unwrap()
    }

    /// Variable `name` of `f`, or a panic listing them.
    fn variable<'a>(f: &'a FunctionSummary, name: &str) -> &'a Variable {
        f.variables
            .iter()
            .find(|v| v.name == name)
            .unwrap_or_else(|| panic!("{name} in {:?}", f.variables))
    }

    /// The lines `drive`'s `s.count` is blamed for (explicit).
    fn count_lines(s: &FunctionSummary) -> Vec<u32> {
        s.variables
            .iter()
            .find(|v| v.name == "s.count")
            .map(|v| v.explicit_lines.clone())
            .unwrap_or_default()
    }

    #[test]
    fn a_call_to_another_unit_uses_its_write_set_whatever_the_order_and_after_a_rebuild() {
        let dir = tempfile::tempdir().unwrap();
        let main = unit(dir.path(), "main", MAIN);
        let kern = unit(dir.path(), "kern", KERN);

        // main alone: kern may write anything `s` reaches.
        let alone = dir.path().join("alone.db");
        analyze_into_db(std::slice::from_ref(&main), &alone).unwrap();
        let worst = function(&alone, "drive");

        // The kernel's unit first, then the driver's: the call uses kern's
        // write set (`.a`, one dereference down), stored in the db.
        let kern_first = dir.path().join("kern_first.db");
        analyze_into_db(std::slice::from_ref(&kern), &kern_first).unwrap();
        assert_eq!(
            function(&kern_first, "kern").param_writes,
            Some(vec![
                vec![ParamAccess {
                    path: vec!["a".into()],
                    deref: 1
                }],
                vec![]
            ])
        );
        let up = analyze_into_db(std::slice::from_ref(&main), &kern_first).unwrap();
        assert_eq!(up.reanalyzed_units, 0);
        let precise = function(&kern_first, "drive");
        assert_ne!(precise, worst, "kern's write set changes drive's summary");
        // The count is computed on its own line (7), not from the calls (6).
        assert!(
            count_lines(&worst).contains(&6),
            "{:?}",
            count_lines(&worst)
        );
        assert!(
            !count_lines(&precise).contains(&6),
            "{:?}",
            count_lines(&precise)
        );

        // The driver's unit first: analyzing the kernel's later analyzes
        // the driver's again, from its kept IR, to the same summary.
        let main_first = dir.path().join("main_first.db");
        analyze_into_db(std::slice::from_ref(&main), &main_first).unwrap();
        let up = analyze_into_db(std::slice::from_ref(&kern), &main_first).unwrap();
        assert_eq!(up.reanalyzed_units, 1);
        assert_eq!(function(&main_first, "drive"), precise);
        // Both in one call, driver first: the same.
        let together = dir.path().join("together.db");
        analyze_into_db(&[main.clone(), kern.clone()], &together).unwrap();
        assert_eq!(function(&together, "drive"), precise);

        // The kernel rebuilt to write the count too: its caller's summary
        // follows (as if analyzed after the new kernel), and is the worst
        // case's again for the count.
        let kern = unit(dir.path(), "kern", KERN_COUNTS);
        analyze_into_db(std::slice::from_ref(&kern), &main_first).unwrap();
        let rebuilt = dir.path().join("rebuilt.db");
        analyze_into_db(&[kern.clone(), main.clone()], &rebuilt).unwrap();
        let after = function(&main_first, "drive");
        assert_eq!(after, function(&rebuilt, "drive"));
        assert!(
            count_lines(&after).contains(&6),
            "{:?}",
            count_lines(&after)
        );
    }

    /// Mutual recursion across two units, each call one link further down
    /// a list: the sets deepen until cut to their prefix (as within a
    /// unit), and the rounds across units stop.
    #[test]
    fn recursion_across_units_reaches_a_fixed_point() {
        let dir = tempfile::tempdir().unwrap();
        let list = "struct L { struct L *next; double x, y; };\n";
        let write = |name: &str, src: &str| source_unit(dir.path(), name, &format!("{list}{src}"));
        let a = write(
            "a",
            "void b(struct L *l);\nvoid a(struct L *l) { l->x = 1; if (l->next) b(l->next); }\n",
        );
        let b = write(
            "b",
            "void a(struct L *l);\nvoid b(struct L *l) { l->y = 2; if (l->next) a(l->next); }\n",
        );
        let one = dir.path().join("one.db");
        analyze_into_db(std::slice::from_ref(&a), &one).unwrap();
        let up = analyze_into_db(std::slice::from_ref(&b), &one).unwrap();
        assert!(up.reanalyzed_units >= 1);
        let both = dir.path().join("both.db");
        analyze_into_db(&[b.clone(), a.clone()], &both).unwrap();
        for f in ["a", "b"] {
            let s = function(&one, f);
            assert_eq!(s, function(&both, f), "{f}");
            // Never the whole list: the fields each writes, down the links.
            let writes = s.param_writes.clone().unwrap_or_default();
            assert!(
                !writes
                    .iter()
                    .flatten()
                    .any(|w| w.path.is_empty() && w.deref == 0),
                "{f}: {writes:?}"
            );
        }
    }

    /// A call writing two outputs through a function of another unit
    /// (`dot(n, x, y, &r, &t)`): each output depends on what the callee
    /// computes it from, so the timer `t` (and the `times` it is added to)
    /// is not computed from `x`.
    #[test]
    fn each_output_of_a_call_takes_only_what_flows_into_it() {
        let dir = tempfile::tempdir().unwrap();
        let kern = source_unit(
            dir.path(),
            "kern",
            "void dot(int n, const double *x, const double *y, double *r, double *t) {\n\
             \x20 double s = 0;\n\
             \x20 for (int i = 0; i < n; i++) s += x[i] * y[i];\n\
             \x20 *r = s;\n\
             \x20 *t += 1.0;\n\
             }\n",
        );
        let main = source_unit(
            dir.path(),
            "main",
            "void dot(int n, const double *x, const double *y, double *r, double *t);\n\
             void init(double *x);\n\
             void drive(double *x, double *y, int n, double *times) {\n\
             \x20 double r = 0, t = 0;\n\
             \x20 init(x);\n\
             \x20 dot(n, x, y, &r, &t);\n\
             \x20 times[0] += t;\n\
             \x20 x[0] = r;\n\
             }\n",
        );
        // What `init` writes into x reaches, through the rest of drive.
        let reached = |db: &Path| -> Vec<String> {
            let drive = function(db, "drive");
            let init = drive
                .call_sites
                .iter()
                .find(|c| c.callee.as_deref() == Some("init"))
                .unwrap();
            init.outputs[0]
                .explicit
                .iter()
                .map(|&v| drive.variables[v as usize].name.clone())
                .collect()
        };
        // Without dot's summary, its outputs may take any input: x flows
        // into the timer t and the times it is added to.
        let alone = dir.path().join("alone.db");
        analyze_into_db(std::slice::from_ref(&main), &alone).unwrap();
        assert!(reached(&alone).contains(&"times".to_string()));
        // With it, x flows into r (and back into x), not into the timer.
        let db = dir.path().join("static.db");
        analyze_into_db(&[main.clone(), kern.clone()], &db).unwrap();
        let both = reached(&db);
        assert!(both.contains(&"x".to_string()), "{both:?}");
        assert!(!both.contains(&"times".to_string()), "{both:?}");
    }

    /// An element pointer belongs to the array it points into, a history
    /// of results is a record, and the array it is computed from is not.
    #[test]
    fn element_pointers_have_owners_and_result_histories_are_records() {
        let dir = tempfile::tempdir().unwrap();
        let unit = source_unit(
            dir.path(),
            "run",
            "typedef struct { double *v; } blk;\n\
             blk *blocks; int nb;\n\
             void show(double x);\n\
             double work(const double *a, int n) {\n\
             \x20 double s = 0; for (int i = 0; i < n; i++) s += a[i]; return s;\n\
             }\n\
             void run(void) {\n\
             \x20 double norms[10];\n\
             \x20 for (int it = 0; it < 10; it++) {\n\
             \x20   for (int n = 0; n < nb; n++) { blk *bp = &blocks[n]; bp->v[0] += 1.0; }\n\
             \x20   norms[it] = work(blocks[0].v, 5);\n\
             \x20 }\n\
             \x20 show(norms[9]);\n\
             }\n",
        );
        let db = dir.path().join("static.db");
        analyze_into_db(std::slice::from_ref(&unit), &db).unwrap();
        let run = function(&db, "run");
        let var = |name: &str| variable(&run, name);
        let owner = var("bp")
            .element_of
            .map(|o| run.variables[o as usize].name.clone());
        assert_eq!(owner.as_deref(), Some("blocks"));
        assert!(var("norms").is_record);
        assert!(!var("blocks").is_record);
    }

    /// Double buffers made by a factory of another unit and swapped
    /// through `tmp` (a lattice-Boltzmann time loop) are two owners, as
    /// buffers from `malloc` are; `tmp` is an element of one of them.
    #[test]
    fn buffers_from_a_factory_swapped_through_a_temporary_are_two_owners() {
        let dir = tempfile::tempdir().unwrap();
        let unit = source_unit(
            dir.path(),
            "lbm",
            "typedef struct { int n; double *f; } Lat;\n\
             Lat *lat_create(int n);\n\
             void step(const Lat *a, Lat *b);\n\
             double run(int steps) {\n\
             \x20 Lat *src = lat_create(100), *dst = lat_create(100);\n\
             \x20 for (int s = 0; s < steps; s++) {\n\
             \x20   step(src, dst);\n\
             \x20   Lat *tmp = src; src = dst; dst = tmp;\n\
             \x20 }\n\
             \x20 return src->f[0];\n\
             }\n",
        );
        let db = dir.path().join("static.db");
        analyze_into_db(std::slice::from_ref(&unit), &db).unwrap();
        let run = function(&db, "run");
        assert_eq!(variable(&run, "src").element_of, None);
        assert_eq!(variable(&run, "dst").element_of, None);
        assert!(variable(&run, "tmp").element_of.is_some());
    }

    /// MPI calls move data by their prototypes: a halo exchange's
    /// communicator and datatype (handles kept in a struct) are no input of
    /// the ghost cells received, nor the data sent an input of the
    /// requests; a reduction's result is computed from what it sends.
    #[test]
    fn mpi_handles_carry_no_data_and_a_reduction_computes_from_what_it_sends() {
        let dir = tempfile::tempdir().unwrap();
        let unit = source_unit(
            dir.path(),
            "halo",
            "typedef struct comm_s *Comm; typedef struct type_s *Type; typedef struct req_s *Req;\n\
             int MPI_Irecv(void *b, int n, Type t, int src, int tag, Comm c, Req *r);\n\
             int MPI_Isend(const void *b, int n, Type t, int dst, int tag, Comm c, Req *r);\n\
             int MPI_Waitall(int n, Req *r, void *st);\n\
             int MPI_Allreduce(const void *s, void *r, int n, Type t, void *op, Comm c);\n\
             typedef struct { Type col; Req req[2]; Comm comm; } Halo;\n\
             void exchange(Halo *h, double *u, int n) {\n\
             \x20 MPI_Irecv(u, 1, h->col, 0, 1, h->comm, &h->req[0]);\n\
             \x20 MPI_Isend(u + n, 1, h->col, 0, 1, h->comm, &h->req[1]);\n\
             \x20 MPI_Waitall(2, h->req, 0);\n\
             }\n\
             void total(Halo *h, const double *u, int n, double *out, Type t) {\n\
             \x20 double local = 0, global;\n\
             \x20 for (int i = 0; i < n; i++) local += u[i];\n\
             \x20 MPI_Allreduce(&local, &global, 1, t, 0, h->comm);\n\
             \x20 *out = global;\n\
             }\n",
        );
        let db = dir.path().join("static.db");
        analyze_into_db(std::slice::from_ref(&unit), &db).unwrap();
        let exchange = function(&db, "exchange");
        let across: Vec<_> = exchange
            .side_effects
            .iter()
            .filter(|e| !e.implicit && e.blamed_param != e.from_param)
            .collect();
        assert!(across.is_empty(), "{across:?}");
        // The sum of u flows into out through the reduction, h's handles not.
        let total = function(&db, "total");
        let from: Vec<(u32, String)> = total
            .side_effects
            .iter()
            .filter(|e| !e.implicit && e.blamed_param == 3)
            .map(|e| (e.from_param, e.from_path.clone()))
            .collect();
        assert!(from.iter().any(|(k, _)| *k == 1), "{from:?}");
        assert!(from.iter().all(|(k, _)| *k != 0), "{from:?}");
    }

    /// Output diagnostics: forces measured from the field, reduced by
    /// `MPI_Allreduce` into a history whose slot a statistics struct's
    /// counter picks, the history summed back into the statistics. The
    /// history and the statistics wait for each other's verdict; judged
    /// together, both are records, and so are the forces; the field is not.
    #[test]
    fn records_waiting_for_each_other_and_reductions_into_them_are_records() {
        let dir = tempfile::tempdir().unwrap();
        let kern = source_unit(
            dir.path(),
            "kern",
            "void measure(const double *u, int n, double *force) {\n\
             \x20 force[0] = 0; force[1] = 0;\n\
             \x20 for (int i = 0; i < n; i++) { force[0] += u[i]; force[1] -= u[i] * i; }\n\
             }\n\
             void step(double *u, int n) { for (int i = 1; i < n; i++) u[i] += 0.5 * u[i - 1]; }\n\
             void sweep(const double *a, double *b, int n) {\n\
             \x20 for (int i = 1; i + 1 < n; i++) b[i] = 0.5 * (a[i - 1] + a[i + 1]);\n\
             }\n",
        );
        let main = source_unit(
            dir.path(),
            "main",
            "typedef struct comm_s *Comm; typedef struct type_s *Type;\n\
             int MPI_Allreduce(const void *s, void *r, int n, Type t, void *op, Comm c);\n\
             typedef struct { double cd; int nout; } Stats;\n\
             void measure(const double *u, int n, double *force);\n\
             void step(double *u, int n);\n\
             void show(double x);\n\
             void run(double *u, int n, int steps, Comm c, Type t) {\n\
             \x20 double hist[64]; Stats st = {0, 0};\n\
             \x20 for (int s = 0; s < steps; s++) {\n\
             \x20   step(u, n);\n\
             \x20   double force[2];\n\
             \x20   measure(u, n, force);\n\
             \x20   int k = st.nout < 31 ? st.nout : 31;\n\
             \x20   MPI_Allreduce(force, &hist[2 * k], 2, t, 0, c);\n\
             \x20   st.cd += hist[2 * k];\n\
             \x20   st.nout = k + 1;\n\
             \x20 }\n\
             \x20 show(st.cd);\n\
             }\n\
             void sweep(const double *a, double *b, int n);\n\
             void pair(int steps) {\n\
             \x20 double u[100] = {0}, w[100] = {0};\n\
             \x20 for (int s = 0; s < steps; s++) { sweep(u, w, 100); sweep(w, u, 100); }\n\
             \x20 show(u[1]);\n\
             }\n",
        );
        let db = dir.path().join("static.db");
        analyze_into_db(&[kern, main], &db).unwrap();
        let run = function(&db, "run");
        for v in ["hist", "st"] {
            assert!(variable(&run, v).is_record, "{v}: {:?}", run.variables);
        }
        let force = variable(&run, "force");
        assert!(force.is_record || force.is_result, "{force:?}");
        // A Jacobi pair waits for each other too, and computes data.
        let pair = function(&db, "pair");
        for v in ["u", "w"] {
            assert!(!variable(&pair, v).is_record, "{v}: {:?}", pair.variables);
        }
    }

    /// A copy of the solution kept to measure the change of an iteration
    /// (`u_prev = u`, a vector's copy assignment), read only into the
    /// change that a step record keeps (itself kept in a vector of records,
    /// so the copy is judged in a later pass, where only what no call
    /// computes is), is a result: the assignment, the vector's constructor
    /// and its destructor compute nothing of the data.
    #[test]
    fn a_copy_assigned_to_measure_a_change_is_a_result() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("picard.cpp");
        std::fs::write(
            &src,
            "#include <vector>\n#include <cmath>\n\
             struct Rec { double change = 0; int it = 0; };\n\
             void solve(std::vector<double> &u) { for (auto &x : u) x = 0.5 * x + 1.0; }\n\
             double change_of(const std::vector<double> &a, const std::vector<double> &b) {\n\
             \x20 double s = 0; for (size_t i = 0; i < a.size(); i++) s += std::fabs(a[i] - b[i]);\n\
             \x20 return s;\n\
             }\n\
             void keep(const std::vector<Rec> &r);\n\
             void run(int n) {\n\
             \x20 std::vector<double> u(n, 0.0);\n\
             \x20 std::vector<double> u_prev;\n\
             \x20 std::vector<Rec> recs;\n\
             \x20 for (int it = 0; it < 50; it++) {\n\
             \x20   Rec rec;\n\
             \x20   u_prev = u;\n\
             \x20   solve(u);\n\
             \x20   const double c = change_of(u, u_prev);\n\
             \x20   rec.change = c;\n\
             \x20   rec.it = it;\n\
             \x20   recs.push_back(rec);\n\
             \x20   if (c < 1e-9) break;\n\
             \x20 }\n\
             \x20 keep(recs);\n\
             }\n",
        )
        .unwrap();
        let bc = dir.path().join("picard.bc");
        crate::test_clang::bitcode(&src, &bc, &["-O0", "-std=c++17"]);
        let db = dir.path().join("static.db");
        analyze_into_db(std::slice::from_ref(&bc), &db).unwrap();
        let (db, _) = StaticDb::read(&db).unwrap();
        let run = db
            .functions
            .values()
            .find(|s| s.linkage_name == "_Z3runi")
            .cloned()
            .unwrap();
        let u_prev = variable(&run, "u_prev");
        assert!(u_prev.is_result && !u_prev.is_record, "{u_prev:?}");
        // `u` feeds the solve of the next iteration: data.
        let u = variable(&run, "u");
        assert!(!u.is_result && !u.is_record, "{u:?}");
    }

    /// A container member read through its methods feeds what they
    /// return into (a hash map of matrix entries copied into the sorted
    /// vector a CSR matrix is built from: no record), but a number an
    /// accessor returns is its callers' to judge (`history.back()`).
    #[test]
    fn members_read_through_methods_feed_data_unless_handed_to_the_caller() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("builder.cpp");
        std::fs::write(
            &src,
            "#include <unordered_map>\n#include <vector>\n\
             struct Builder {\n\
             \x20 std::unordered_map<long long, double> entries;\n\
             \x20 std::vector<double> history;\n\
             \x20 void add(long long k, double v) { entries[k] += v; }\n\
             \x20 void note(double r) { history.push_back(r); }\n\
             \x20 double last() const { return history.empty() ? 0.0 : history.back(); }\n\
             \x20 std::vector<double> compress() const {\n\
             \x20   std::vector<std::pair<long long, double>> sorted(entries.begin(), entries.end());\n\
             \x20   std::vector<double> out;\n\
             \x20   for (const auto &e : sorted) out.push_back(e.second);\n\
             \x20   return out;\n\
             \x20 }\n\
             };\n\
             double use(Builder &b) { b.add(1, 2.0); b.note(0.5); return b.last() + b.compress()[0]; }\n",
        )
        .unwrap();
        let bc = dir.path().join("builder.bc");
        crate::test_clang::bitcode(&src, &bc, &["-O0", "-std=c++17"]);
        let db = dir.path().join("static.db");
        analyze_into_db(std::slice::from_ref(&bc), &db).unwrap();
        let feeding = |name: &str| -> Vec<String> {
            let (db, _) = StaticDb::read(&db).unwrap();
            db.functions
                .values()
                .find(|s| s.name.starts_with(name))
                .map(|s| {
                    s.fields_feeding_data
                        .iter()
                        .map(|e| e.split('\t').next().unwrap_or("").to_string())
                        .collect()
                })
                .unwrap_or_default()
        };
        assert!(feeding("Builder::compress").contains(&"entries".to_string()));
        assert!(!feeding("Builder::last").contains(&"history".to_string()));
    }

    /// A node pool: `pool_alloc` returns an element of the pool's arena,
    /// `new_node` and `tree_build` return what it gave them through a
    /// local pointer; the tree's root in the caller is an element of the
    /// pool, not a row of its own.
    #[test]
    fn a_pointer_returned_through_a_local_is_an_element_of_its_pool() {
        let dir = tempfile::tempdir().unwrap();
        let tree = source_unit(
            dir.path(),
            "tree",
            "typedef struct Node { struct Node *child[8]; double mass; } Node;\n\
             typedef struct { Node *nodes; int next_free; } Pool;\n\
             Node *pool_alloc(Pool *p) { return &p->nodes[p->next_free++]; }\n\
             static Node *new_node(Pool *p, double m) {\n\
             \x20 Node *n = pool_alloc(p);\n\
             \x20 for (int k = 0; k < 8; k++) n->child[k] = 0;\n\
             \x20 n->mass = m;\n\
             \x20 return n;\n\
             }\n\
             Node *tree_build(Pool *p, const double *m, int n) {\n\
             \x20 Node *root = new_node(p, m[0]);\n\
             \x20 for (int i = 1; i < n && i < 9; i++) root->child[i - 1] = new_node(p, m[i]);\n\
             \x20 return root;\n\
             }\n",
        );
        let main = source_unit(
            dir.path(),
            "main",
            "typedef struct Node { struct Node *child[8]; double mass; } Node;\n\
             typedef struct { Node *nodes; int next_free; } Pool;\n\
             Node *tree_build(Pool *p, const double *m, int n);\n\
             double walk(const Node *r);\n\
             double run(Pool *pool, const double *m, int n) {\n\
             \x20 Node *root = tree_build(pool, m, n);\n\
             \x20 return walk(root);\n\
             }\n",
        );
        let db = dir.path().join("static.db");
        analyze_into_db(&[tree, main], &db).unwrap();
        let run = function(&db, "run");
        let owner = variable(&run, "root")
            .element_of
            .map(|o| run.variables[o as usize].name.clone());
        assert_eq!(owner.as_deref(), Some("pool.nodes"), "{:?}", run.variables);
    }

    /// A linked-cell list kept in index arrays: the cursor `k` walks
    /// `next` (`k = next[k]`) and is its element, not a loop counter of its
    /// own; a plain loop index is no cursor. A scalar copied from an element
    /// pointer is an element too.
    #[test]
    fn an_index_cursor_of_a_linked_list_is_an_element_of_its_array() {
        let dir = tempfile::tempdir().unwrap();
        let unit = source_unit(
            dir.path(),
            "cells",
            "int *head, *next; double *x;\n\
             double walk(int ncell) {\n\
             \x20 double s = 0; int k, c;\n\
             \x20 for (c = 0; c < ncell; c++)\n\
             \x20   for (k = head[c]; k >= 0; k = next[k]) s += x[k];\n\
             \x20 return s;\n\
             }\n\
             double total(const double *a, int n) {\n\
             \x20 double s = 0;\n\
             \x20 for (const double *p = a; p < a + n; ++p) { double v = *p; s += v; }\n\
             \x20 return s;\n\
             }\n",
        );
        let db = dir.path().join("static.db");
        analyze_into_db(std::slice::from_ref(&unit), &db).unwrap();
        let f = function(&db, "walk");
        let owner = |name: &str| {
            let v = f.variables.iter().find(|v| v.name == name).unwrap();
            v.element_of.map(|o| f.variables[o as usize].name.clone())
        };
        assert_eq!(owner("k").as_deref(), Some("next"));
        assert_eq!(owner("c"), None);
        // An element copied through an element pointer is the container's.
        let f = function(&db, "total");
        let v = f.variables.iter().find(|v| v.name == "v").unwrap();
        let p = f.variables.iter().find(|v| v.name == "p").unwrap();
        assert_eq!(v.element_of, p.element_of, "{:?}", f.variables);
        assert!(v.element_of.is_some());
        assert_eq!(
            f.variables
                .iter()
                .find(|v| v.name == "s")
                .unwrap()
                .element_of,
            None
        );
    }

    /// A member that only keeps numbers computed elsewhere (a solver's
    /// statistics: counters, timer sums, a residual history) is a record
    /// where it is written; a vector updated from another vector
    /// (`y[i] += a * x[i]`, an `llvm.fmuladd` at -O0) is not, and a
    /// member read into other data says so (`fields_feeding_data`).
    #[test]
    fn a_member_keeping_statistics_is_a_record_and_a_vector_updated_from_data_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let unit = source_unit(
            dir.path(),
            "solver",
            "typedef struct { long iters; double hist[100]; int nh; } Stats;\n\
             typedef struct { double *x, *y; Stats stats; int n; } Solver;\n\
             double norm(const double *v, int n);\n\
             void step(Solver *s, double a) {\n\
             \x20 for (int i = 0; i < s->n; i++) s->y[i] += a * s->x[i];\n\
             \x20 s->stats.iters++;\n\
             \x20 s->stats.hist[s->stats.nh++ % 100] = norm(s->y, s->n);\n\
             }\n\
             void scale(Solver *s, double *out) {\n\
             \x20 for (int i = 0; i < s->n; i++) out[i] = s->y[i] * s->stats.hist[0];\n\
             }\n",
        );
        let db = dir.path().join("static.db");
        analyze_into_db(std::slice::from_ref(&unit), &db).unwrap();
        let var = |f: &FunctionSummary, name: &str| {
            f.variables
                .iter()
                .find(|v| v.name == name)
                .cloned()
                .unwrap_or_else(|| panic!("{name} in {:?}", f.variables))
        };
        let step = function(&db, "step");
        assert!(var(&step, "s.stats").is_record);
        assert!(!var(&step, "s.y").is_record);
        let names = |f: &FunctionSummary| -> Vec<String> {
            f.fields_feeding_data
                .iter()
                .map(|e| blame_formats::static_db::field_and_type(e).0.to_string())
                .collect()
        };
        assert!(!names(&step).contains(&"stats".to_string()));
        // `s->stats.hist[0]` and `s->y[i]` read into `out`.
        let scale = function(&db, "scale");
        for name in ["stats", "hist", "y"] {
            assert!(
                names(&scale).contains(&name.to_string()),
                "{name} in {:?}",
                scale.fields_feeding_data
            );
        }
    }

    /// A local computed from data that feeds nothing back (`r = b - A x`
    /// checked and printed) is a result; one that is read into other data
    /// is not, nor is a record of numbers.
    #[test]
    fn a_check_vector_that_feeds_nothing_is_a_result() {
        let dir = tempfile::tempdir().unwrap();
        let unit = source_unit(
            dir.path(),
            "check",
            "void matvec(const double *a, const double *x, double *y, int n) {\n\
             \x20 for (int i = 0; i < n; i++) y[i] = a[i] * x[i];\n\
             }\n\
             void solve(const double *a, const double *b, double *x, int n) {\n\
             \x20 for (int i = 0; i < n; i++) x[i] = b[i] / a[i];\n\
             }\n\
             double norm(const double *v, int n) {\n\
             \x20 double s = 0; for (int i = 0; i < n; i++) s += v[i] * v[i]; return s;\n\
             }\n\
             void show(double v);\n\
             void run(const double *a, const double *b, int n) {\n\
             \x20 double x[64], r[64], y[64], z[64], w[64], hist[8], hist2[8];\n\
             \x20 for (int it = 0; it < 8; it++) {\n\
             \x20   solve(a, b, x, n);\n\
             \x20   matvec(a, x, r, n);\n\
             \x20   for (int i = 0; i < n; i++) r[i] = b[i] - r[i];\n\
             \x20   double e = norm(r, n);\n\
             \x20   if (e > 1e-6) show(e);\n\
             \x20   hist[it] = x[0];\n\
             \x20   matvec(a, x, y, n);\n\
             \x20   for (int i = 0; i < n; i++) z[i] = 2.0 * y[i];\n\
             \x20   show(z[0]);\n\
             \x20   for (int i = 0; i < n; i++) w[i] = b[i] - y[i];\n\
             \x20   hist2[it] = norm(w, n);\n\
             \x20 }\n\
             \x20 show(hist[7]);\n\
             \x20 show(hist2[7]);\n\
             }\n",
        );
        let db = dir.path().join("static.db");
        analyze_into_db(std::slice::from_ref(&unit), &db).unwrap();
        let run = function(&db, "run");
        let var = |name: &str| variable(&run, name);
        assert!(var("r").is_result, "{:?}", var("r"));
        assert!(var("z").is_result, "{:?}", var("z"));
        // `y` feeds `z`; `x` feeds `r` and `y`.
        assert!(!var("y").is_result && !var("x").is_result);
        assert!(var("hist").is_record && !var("hist").is_result);
        // `w` feeds only the record of its norms.
        assert!(var("hist2").is_record, "{:?}", var("hist2"));
        assert!(var("w").is_result, "{:?}", var("w"));
    }

    /// A buffer set from numbers, transformed into the state, and at the
    /// end overwritten with the final field computed from the state (`w`:
    /// initial condition in, result out) is a result: only its writes of
    /// numbers feed data. A state advanced in place (`s`), a buffer whose
    /// last write is read again in the loop (`v`), and a factory's object
    /// (its address leaves the function) are not.
    #[test]
    fn a_buffer_reused_for_the_final_result_is_a_result() {
        let dir = tempfile::tempdir().unwrap();
        let unit = source_unit(
            dir.path(),
            "reuse",
            "void init(double *w, int n) {\n\
             \x20 for (int i = 0; i < n; i++) w[i] = i * 0.5;\n\
             }\n\
             void forward(const double *w, double *s, int n) {\n\
             \x20 for (int i = 0; i < n; i++) s[i] = 2.0 * w[i];\n\
             }\n\
             void inverse(const double *s, double *w, int n) {\n\
             \x20 for (int i = 0; i < n; i++) w[i] = 0.5 * s[i];\n\
             }\n\
             void step(double *s, int n) {\n\
             \x20 for (int i = 1; i < n; i++) s[i] += 0.1 * s[i - 1];\n\
             }\n\
             void show(double v);\n\
             void run(int n, int steps) {\n\
             \x20 double *w = __builtin_malloc(n * sizeof(double));\n\
             \x20 double *s = __builtin_malloc(n * sizeof(double));\n\
             \x20 double *v = __builtin_malloc(n * sizeof(double));\n\
             \x20 init(w, n);\n\
             \x20 forward(w, s, n);\n\
             \x20 init(v, n);\n\
             \x20 for (int k = 0; k < steps; k++) {\n\
             \x20   step(s, n);\n\
             \x20   forward(v, s, n);\n\
             \x20   inverse(s, v, n);\n\
             \x20 }\n\
             \x20 inverse(s, w, n);\n\
             \x20 double local[2] = {0, 0};\n\
             \x20 for (int i = 0; i < n; i++) { local[0] += w[i]; local[1] += w[i] * w[i]; }\n\
             \x20 show(local[0]);\n\
             \x20 show(local[1]);\n\
             \x20 __builtin_free(w);\n\
             \x20 __builtin_free(s);\n\
             \x20 __builtin_free(v);\n\
             }\n\
             double *make(int n) {\n\
             \x20 double *p = __builtin_malloc(n * sizeof(double));\n\
             \x20 init(p, n);\n\
             \x20 double *q = __builtin_malloc(n * sizeof(double));\n\
             \x20 inverse(p, q, n);\n\
             \x20 return q;\n\
             }\n",
        );
        let db = dir.path().join("static.db");
        analyze_into_db(std::slice::from_ref(&unit), &db).unwrap();
        let run = function(&db, "run");
        let var = |name: &str| variable(&run, name);
        assert!(var("w").is_result, "{:?}", var("w"));
        assert!(!var("w").is_record);
        // `s` is advanced in place and feeds `v` and `w`; `v`'s last write
        // feeds `s` in the next step.
        assert!(!var("s").is_result && !var("s").is_record, "{:?}", var("s"));
        assert!(!var("v").is_result && !var("v").is_record, "{:?}", var("v"));
        let make = function(&db, "make");
        assert!(
            !variable(&make, "q").is_result,
            "{:?}",
            variable(&make, "q")
        );
    }

    /// A call that writes a parameter's memory by its write set
    /// (`interact(.., acc)` under a tree walk's opening test) writes it
    /// under the branches that decide whether it runs: the test's lines are
    /// the parameter's implicit blame. A call handed it that writes nothing
    /// there (`look(acc)`) is no write.
    #[test]
    fn a_call_writing_a_parameter_under_a_branch_blames_the_branch_on_it() {
        let dir = tempfile::tempdir().unwrap();
        let unit = source_unit(
            dir.path(),
            "walk",
            "void interact(const double *c, double *acc) {\n\
             \x20 acc[0] += c[0];\n\
             }\n\
             double look(const double *acc) { return acc[0]; }\n\
             void walk(const double *c, const double *pos, double theta, double *acc,\n\
             \x20         double *seen) {\n\
             \x20 double dx = c[0] - pos[0];\n\
             \x20 double r2 = dx * dx;\n\
             \x20 if (r2 > theta)\n\
             \x20   interact(c, acc);\n\
             \x20 if (dx > 0.5)\n\
             \x20   seen[0] = look(acc);\n\
             }\n",
        );
        let db = dir.path().join("static.db");
        analyze_into_db(std::slice::from_ref(&unit), &db).unwrap();
        let walk = function(&db, "walk");
        let acc = variable(&walk, "acc");
        for line in [7, 8, 9] {
            assert!(acc.implicit_lines.contains(&line), "{line}: {acc:?}");
        }
        assert!(acc.explicit_lines.is_empty(), "{acc:?}");
        // `look` only reads `acc`: the second test is `seen`'s, not acc's.
        assert!(!acc.implicit_lines.contains(&11), "{acc:?}");
        assert!(variable(&walk, "seen").implicit_lines.contains(&11));
    }

    /// A pointer bound only to the element addresses a call returns into
    /// its owner (`root = tree_build(&pool, ..)`, `&pool->nodes[k]`) is an
    /// element pointer of the owner: its binding computes an address, not
    /// the owner's data, so what flows into the call's return (the
    /// positions the tree is built from) is not the pool's.
    #[test]
    fn a_returned_element_address_binds_no_data_of_its_owner() {
        let dir = tempfile::tempdir().unwrap();
        let unit = source_unit(
            dir.path(),
            "tree",
            "typedef struct { double com; int used; } Node;\n\
             typedef struct { Node *nodes; int next; } Pool;\n\
             Node *node_new(Pool *p) { return &p->nodes[p->next++]; }\n\
             Node *build(Pool *p, const double *x, int n) {\n\
             \x20 p->next = 0;\n\
             \x20 Node *r = node_new(p);\n\
             \x20 for (int i = 0; i < n; i++) r->com += x[i];\n\
             \x20 return r;\n\
             }\n\
             void use(const Node *r, double *out);\n\
             void run(Pool *pool, double *x, double *out, int n, int steps) {\n\
             \x20 for (int s = 0; s < steps; s++) {\n\
             \x20   for (int i = 0; i < n; i++) x[i] = out[i] * 0.5;\n\
             \x20   Node *root = build(pool, x, n);\n\
             \x20   use(root, out);\n\
             \x20 }\n\
             }\n",
        );
        let db = dir.path().join("static.db");
        analyze_into_db(std::slice::from_ref(&unit), &db).unwrap();
        let run = function(&db, "run");
        let root = variable(&run, "root");
        assert!(root.element_of.is_some(), "{root:?}");
        // The line computing `x` flows into the returned address only.
        assert!(!root.explicit_lines.contains(&13), "{root:?}");
    }

    /// An element reference's binding (`const Node *a = &m->nodes[i]`)
    /// computes an address, not the mesh: it is blamed on what is read
    /// through it (the returned length), and the pointer has no lines of
    /// its own for its owner to inherit. (A copy of another pointer, `x =
    /// y` of Figure 3.5, keeps its binding: the golden Table 3.4.)
    #[test]
    fn an_element_reference_binding_is_blamed_on_what_reads_through_it() {
        let dir = tempfile::tempdir().unwrap();
        let unit = source_unit(
            dir.path(),
            "edge",
            "typedef struct { double x[2]; } Node;\n\
             typedef struct { Node nodes[64]; } Mesh;\n\
             double edge(const Mesh *m, int i, int j) {\n\
             \x20 const Node *a = &m->nodes[i];\n\
             \x20 const Node *b = &m->nodes[j];\n\
             \x20 return b->x[0] - a->x[0];\n\
             }\n",
        );
        let db = dir.path().join("static.db");
        analyze_into_db(std::slice::from_ref(&unit), &db).unwrap();
        let edge = function(&db, "edge");
        let var = |name: &str| variable(&edge, name);
        assert!(var("a").element_of.is_some());
        assert!(var("a").explicit_lines.is_empty(), "{:?}", var("a"));
        assert!(var("a").write_lines.is_empty(), "{:?}", var("a"));
        assert_eq!(var("return").explicit_lines, [4, 5, 6]);
    }

    /// A global is judged by every function that names it: a history of
    /// one fixed element of the solution is a record wherever it appears;
    /// a global array read into other data is not, where it is read.
    #[test]
    fn globals_get_a_record_verdict_from_each_function() {
        let dir = tempfile::tempdir().unwrap();
        let unit = source_unit(
            dir.path(),
            "sweep",
            "static double hist[64];
             double grid[100], out[100]; int nsweeps;
             void show(double x);
             void sweep(double *work) {
               for (int i = 1; i < 99; i++) work[i] = 0.5 * (grid[i - 1] + grid[i + 1]);
               for (int i = 1; i < 99; i++) grid[i] = work[i];
               hist[nsweeps % 64] = work[50];
               nsweeps++;
             }
             void copy_out(void) { for (int i = 0; i < 100; i++) out[i] = grid[i]; }
             void report(void) { show(hist[0]); }
",
        );
        let db = dir.path().join("static.db");
        analyze_into_db(std::slice::from_ref(&unit), &db).unwrap();
        let verdict = |f: &str, name: &str| {
            let s = function(&db, f);
            let v = s.variables.iter().find(|v| v.name == name);
            v.unwrap_or_else(|| panic!("{name} in {:?}", s.variables))
                .is_record
        };
        assert!(verdict("sweep", "hist"));
        assert!(verdict("report", "hist"));
        assert!(!verdict("sweep", "grid"));
        assert!(!verdict("copy_out", "grid"));
        // `out[i] = grid[i]` copies data element by element: no record.
        assert!(!verdict("copy_out", "out"));
    }

    /// A lambda passed to a template (`for_each_cell(n, [&](int i) { ..
    /// })`): its closure is a temporary of no variable, so the call binds
    /// each capture to what it captures, by member (`out` to `out`), and a
    /// handle passed by value (`View v`) to the handle it was copied from.
    #[test]
    fn a_lambda_s_captures_and_a_handle_by_value_are_bound_at_the_call() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("kernels.cpp");
        let bc = dir.path().join("kernels.bc");
        std::fs::write(
            &src,
            "#include <memory>\n\
             struct View { std::shared_ptr<double> alloc_; double *ptr_; int n_; };\n\
             template <class F> void for_each_cell(int n, const F &f) {\n\
             \x20 for (int i = 0; i < n; i++) f(i);\n\
             }\n\
             void fill(View v, double x) { for (int i = 0; i < v.n_; i++) v.ptr_[i] = x; }\n\
             void scale(double *out, const double *in, int n, View w) {\n\
             \x20 double a = 2.0;\n\
             \x20 for_each_cell(n, [&](int i) { out[i] = a * in[i]; });\n\
             \x20 fill(w, a);\n\
             }\n",
        )
        .unwrap();
        crate::test_clang::bitcode(&src, &bc, &["-O0"]);
        let db = dir.path().join("static.db");
        analyze_into_db(std::slice::from_ref(&bc), &db).unwrap();
        let f = function(&db, "_Z5scalePdPKdi4View");
        let name = |t: u32| f.variables[t as usize].name.as_str();
        let site = |callee: &str| {
            f.call_sites
                .iter()
                .find(|c| c.callee.as_deref().is_some_and(|n| n.contains(callee)))
                .unwrap_or_else(|| panic!("{callee} in {:?}", f.call_sites))
        };
        let each = site("for_each_cell");
        let out = each
            .outputs
            .iter()
            .find(|b| b.field == "out")
            .unwrap_or_else(|| panic!("{:?}", each.outputs));
        assert_eq!(
            out.blamed.iter().map(|&t| name(t)).collect::<Vec<_>>(),
            ["out"]
        );
        let fill = site("fill");
        let copied = fill
            .outputs
            .iter()
            .find(|b| b.field == "*")
            .unwrap_or_else(|| panic!("{:?}", fill.outputs));
        assert!(copied.blamed.iter().any(|&t| name(t) == "w"), "{copied:?}");
        let callee = function(&db, "_Z4fill4Viewd");
        assert!(
            callee
                .variables
                .iter()
                .find(|v| v.name == "v")
                .unwrap()
                .is_exit
        );
    }

    /// A field of a base class reached from a derived class's method
    /// (`stats_` of a polymorphic `Solver`, from `Pcg::solve`) is named as
    /// that field, not as the derived class's member of the same index.
    #[test]
    fn a_base_class_field_is_named_from_the_derived_class() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("solver.cpp");
        let bc = dir.path().join("solver.bc");
        std::fs::write(
            &src,
            "struct Stats { double t_dot, t_solve; };\n\
             struct Solver { virtual ~Solver() {} virtual void solve(int n) = 0; Stats stats_; };\n\
             struct Pcg : Solver {\n\
             \x20 double *a_; double *r_;\n\
             \x20 void solve(int n) override {\n\
             \x20   for (int i = 0; i < n; i++) r_[i] = 2.0 * a_[i];\n\
             \x20   stats_.t_solve += 1.0;\n\
             \x20 }\n\
             };\n\
             Solver *make() { return new Pcg(); }\n",
        )
        .unwrap();
        crate::test_clang::bitcode(&src, &bc, &["-O0"]);
        let db = dir.path().join("static.db");
        analyze_into_db(std::slice::from_ref(&bc), &db).unwrap();
        let f = function(&db, "_ZN3Pcg5solveEi");
        let written: Vec<&str> = f
            .variables
            .iter()
            .filter(|v| !v.write_lines.is_empty())
            .map(|v| v.name.as_str())
            .collect();
        assert!(written.contains(&"this.stats_.t_solve"), "{written:?}");
        assert!(!written.contains(&"this.a_"), "{written:?}");
        // ... with the base class member's type.
        let stats = f
            .variables
            .iter()
            .find(|v| v.name == "this.stats_")
            .unwrap();
        assert_eq!(stats.type_name, "Stats", "{stats:?}");
    }

    /// A call to a function that writes a global (`unpack` copying the
    /// received face into `grid`) writes it in the caller from what it is
    /// given: the wait for the receive is for `grid` too.
    #[test]
    fn a_callee_writing_a_global_writes_it_in_the_caller() {
        let dir = tempfile::tempdir().unwrap();
        let unit = source_unit(
            dir.path(),
            "halo",
            "typedef int MPI_Request;\n\
             int MPI_Irecv(void *b, int n, int t, int src, int tag, int comm, MPI_Request *r);\n\
             int MPI_Waitall(int n, MPI_Request *r, void *st);\n\
             double *grid; double *recv_buff;\n\
             static void unpack(const double *buf, int n) {\n\
             \x20 double *row = &grid[0];\n\
             \x20 for (int i = 0; i < n; i++) row[i] = buf[i];\n\
             }\n\
             void exchange(int n) {\n\
             \x20 MPI_Request req[1];\n\
             \x20 MPI_Irecv(recv_buff, n, 0, 1, 0, 0, &req[0]);\n\
             \x20 MPI_Waitall(1, req, 0);\n\
             \x20 unpack(recv_buff, n);\n\
             }\n",
        );
        let db = dir.path().join("static.db");
        analyze_into_db(std::slice::from_ref(&unit), &db).unwrap();
        let ex = function(&db, "exchange");
        let name = |v: u32| ex.variables[v as usize].name.clone();
        let wait = ex
            .call_sites
            .iter()
            .find(|c| c.callee.as_deref() == Some("MPI_Waitall"))
            .expect("the wait");
        let blamed: Vec<String> = wait
            .outputs
            .iter()
            .flat_map(|o| o.blamed.iter().map(|&v| name(v)))
            .collect();
        assert!(blamed.contains(&"recv_buff".to_string()), "{blamed:?}");
        assert!(blamed.contains(&"grid".to_string()), "{blamed:?}");
    }

    /// A solver object computed by a call from itself (`solve(&s, comm)`
    /// writing `s->u[..]` through its member) is a data structure, not a
    /// record of numbers, though nothing else is passed in.
    #[test]
    fn an_object_a_call_computes_through_its_members_is_no_record() {
        let dir = tempfile::tempdir().unwrap();
        let unit = source_unit(
            dir.path(),
            "demo",
            "typedef struct { double *u; int n; double residual; } Solver;\n\
             void show(double x);\n\
             void *malloc(unsigned long n);\n\
             void solve(Solver *s, int comm) {\n\
             \x20 for (int i = 1; i < s->n; i++) s->u[i] = 0.5 * (s->u[i] + s->u[i - 1]) + comm;\n\
             \x20 s->residual = s->u[0];\n\
             }\n\
             void run(int n) {\n\
             \x20 Solver s;\n\
             \x20 s.u = malloc(n * sizeof(double)); s.n = n; s.residual = 0;\n\
             \x20 solve(&s, 3);\n\
             \x20 show(s.residual);\n\
             }\n",
        );
        let db = dir.path().join("static.db");
        analyze_into_db(std::slice::from_ref(&unit), &db).unwrap();
        let run = function(&db, "run");
        let s = run.variables.iter().find(|v| v.name == "s").unwrap();
        assert!(!s.is_record, "{s:?}");
    }

    /// A kept unit that cannot be loaded any more is named, and the db
    /// update goes on without analyzing it again.
    #[test]
    fn an_unreadable_kept_unit_is_named_not_fatal() {
        let dir = tempfile::tempdir().unwrap();
        let main = unit(dir.path(), "main", MAIN);
        let kern = unit(dir.path(), "kern", KERN);
        let db = dir.path().join("static.db");
        analyze_into_db(std::slice::from_ref(&main), &db).unwrap();
        let (units, _) = StaticDb::read(&db).unwrap();
        let drive = units.functions.values().find(|s| s.linkage_name == "drive");
        let name = drive.unwrap().unit.clone();
        std::fs::write(blame_formats::units::path_of(&db, &name), b"not IR").unwrap();
        let up = analyze_into_db(std::slice::from_ref(&kern), &db).unwrap();
        assert_eq!(up.reanalyzed_units, 0);
        assert_eq!(up.unreadable_units.len(), 1, "{:?}", up.unreadable_units);
        assert!(up.unreadable_units[0].starts_with(&name));
        assert!(function(&db, "kern").param_writes.is_some());
    }
}

/// What the unit tests of this crate compile their C sources with.
#[cfg(test)]
pub(crate) mod test_clang {
    use std::path::Path;

    /// Compiles the C file `c` to bitcode `bc` with clang-19, `-g` and `args`.
    pub(crate) fn bitcode(c: &Path, bc: &Path, args: &[&str]) {
        let out = std::process::Command::new("clang-19")
            .arg("-g")
            .args(args)
            .args(["-emit-llvm", "-c"])
            .arg(c)
            .arg("-o")
            .arg(bc)
            .output()
            .expect("clang-19 runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// With `BLAME_PROFILE` set, prints the analyzer's resident and peak
/// memory at stage `at` (the bench of function shapes reads where the
/// peak is reached: loading or analysis).
fn profile_memory(at: &str) {
    if std::env::var_os("BLAME_PROFILE").is_none() {
        return;
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |k: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(k))
            .map_or(String::from("?"), |v| v.trim().to_string())
    };
    eprintln!(
        "memory {at}: resident {}, peak {}",
        field("VmRSS:"),
        field("VmHWM:")
    );
}
