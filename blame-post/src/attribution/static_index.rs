//! Finds the static summary of a symbolized frame: by linkage name, then by
//! demangled name, with the source file breaking ties between same-named
//! functions (C `static` functions in different files).

use blame_formats::static_db::{FunctionSummary, StaticDb};
use std::collections::HashMap;

/// A variable of one function summary: (function index, variable index).
pub type VarRef = (u32, u32);

pub struct StaticIndex {
    pub functions: Vec<FunctionSummary>,
    by_name: HashMap<String, Vec<usize>>,
    /// Callees named at call sites that have no summary of their own, a
    /// C++ method of the program (a pure virtual method a virtual call is
    /// named by): the summary of an override, the first of its signature
    /// without the class (`apply(pcg::Vector const&, pcg::Vector&) const`).
    overrides: HashMap<String, usize>,
    /// Type names only scalar variables have (`double`, `PetscReal`,
    /// `Real_t`, `MPI_Comm`): what a field path carried over from a callee
    /// with only its type name is.
    scalar_types: std::collections::HashSet<String>,
    /// Per name of a global (or a field path below one, `blocks.array`),
    /// its definitions: the units whose debug info declares it (a line
    /// and a type), one per unit (`static` globals of several files).
    global_defs: HashMap<String, Vec<GlobalDef>>,
    /// Per (struct, field): the field's type, both as `plain_struct`
    /// spells them, from every summary's field variables.
    field_types: HashMap<(String, String), String>,
    /// Globals (name, defining unit) that are result records: every
    /// function naming one judged it a record there (its writes record
    /// numbers, nothing read from it flows into data) and one writes it.
    global_records: std::collections::HashSet<(String, String)>,
    /// Fields (name, type) that are result records: a function that is no
    /// constructor or destructor judged one a record (`Variable::is_record`
    /// of a field), and no function reads one into other data
    /// (`FunctionSummary::fields_feeding_data`).
    record_fields: std::collections::HashSet<(String, String)>,
    /// Per field name, the types fields of that name have.
    field_name_types: HashMap<String, Vec<String>>,
    /// Per function and field path of one of its variables, the variable
    /// of the same function that path holds, as a call made it
    /// (`solver.reg_` holds `reg` since `FlowSolver solver(reg, ..)` stores
    /// `&reg` there: the callee's parameter alias): one data structure.
    member_aliases: HashMap<u32, HashMap<String, u32>>,
}

/// True for an element object: a local that walks another variable's
/// memory (`element_of`) and is no pointer (an iterator, a row view, a
/// handle copied from a member, an element copy). Its own fields (`it.col_`,
/// `u.ptr_`) are no paths of the owner: it adds to the owner whole. An
/// element pointer's fields are the element's (`bp->array` is
/// `blocks.array`).
pub fn is_element_object(v: &blame_formats::static_db::Variable) -> bool {
    v.element_of.is_some() && !v.is_pointer
}

/// The variable `vi` of `f` is a field of (itself when it is none).
pub fn root_of(f: &FunctionSummary, mut vi: u32) -> u32 {
    for _ in 0..f.variables.len() {
        match f.variables[vi as usize].parent {
            Some(p) => vi = p,
            None => break,
        }
    }
    vi
}

/// A type name without qualifiers and tag keywords, for comparing the
/// caller's and the callee's view of one object.
pub fn plain_type(t: &str) -> String {
    // Qualifiers of a pointer follow its `*` (`Dom *const`): split them off.
    t.replace('*', " * ")
        .replace('&', " & ")
        .split_whitespace()
        .filter(|w| {
            !matches!(
                *w,
                "const"
                    | "volatile"
                    | "restrict"
                    | "__restrict"
                    | "_Atomic"
                    | "struct"
                    | "class"
                    | "union"
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" *", "*")
        .replace(" &", "&")
}

/// The complete-object name of a base-object constructor or destructor
/// (`_ZN2lg10FlowSolverC2E..` → `_ZN2lg10FlowSolverC1E..`), the alias
/// clang emits for it and other units call.
fn complete_object_name(linkage: &str) -> Option<String> {
    if !linkage.starts_with("_ZN") {
        return None;
    }
    ["C2E", "D2E"].iter().find_map(|m| {
        let at = linkage.find(m)?;
        // After the class's name: a digit-counted identifier ends there.
        let before = linkage[..at].chars().last()?;
        (before.is_ascii_alphanumeric() || before == '_').then(|| {
            let mut out = linkage.to_string();
            out.replace_range(at + 1..at + 2, "1");
            out
        })
    })
}

/// True for a C++ constructor or destructor, by its demangled name
/// (`pcg::Stats::Stats()`, `pcg::Stats::~Stats()`).
fn is_special_member(name: &str) -> bool {
    let head = name.split('(').next().unwrap_or(name);
    let mut parts = head.rsplit("::");
    match (parts.next(), parts.next()) {
        (Some(last), Some(class)) => {
            let class = class.split('<').next().unwrap_or(class);
            last.starts_with('~') || last == class
        }
        _ => false,
    }
}

/// For each callee named at a call site without a summary of its own that
/// is a C++ method of the program (not the standard library's), the first
/// function of its signature without the class: an override answers for
/// the pure virtual method a virtual call is named by. Found once, so
/// looking a callee up stays one map lookup.
fn overrides_of_unknown_callees(
    functions: &[FunctionSummary],
    by_name: &HashMap<String, Vec<usize>>,
) -> HashMap<String, usize> {
    let unknown: std::collections::BTreeSet<&str> = functions
        .iter()
        .flat_map(|f| &f.call_sites)
        .filter_map(|c| c.callee.as_deref())
        .filter(|n| {
            n.starts_with("_ZN")
                && !n.starts_with("_ZNSt")
                && !n.starts_with("_ZNKSt")
                && !by_name.contains_key(*n)
        })
        .collect();
    if unknown.is_empty() {
        return HashMap::new();
    }
    let mut by_signature: HashMap<String, usize> = HashMap::new();
    for (i, f) in functions.iter().enumerate() {
        if f.linkage_name.starts_with("_ZN") {
            if let Some(sig) = blame_formats::names::method_signature(&f.name) {
                by_signature.entry(sig).or_insert(i);
            }
        }
    }
    unknown
        .into_iter()
        .filter_map(|n| {
            let sig =
                blame_formats::names::method_signature(&crate::input::symbolize::demangle(n))?;
            Some((n.to_string(), *by_signature.get(&sig)?))
        })
        .collect()
}

/// The members of the object a function returns that hold one of its
/// pointer parameters (`nm->user_data = user_data; return nm;`): each
/// member's path below the returned object (`.user_data`) and the
/// parameter's index.
fn returned_members(f: &FunctionSummary) -> Vec<(String, u32)> {
    use blame_formats::static_db::VarKind;
    let returned = |r: &blame_formats::static_db::Variable| {
        r.kind == VarKind::Return
            || r.aliases
                .iter()
                .any(|&a| f.variables[a as usize].kind == VarKind::Return)
    };
    let mut out = Vec::new();
    for (vi, v) in f.variables.iter().enumerate() {
        if v.parent.is_none() {
            continue;
        }
        let root = &f.variables[root_of(f, vi as u32) as usize];
        if !returned(root) {
            continue;
        }
        let path = v.name.strip_prefix(root.name.as_str()).unwrap_or("");
        for &a in &v.aliases {
            let p = &f.variables[a as usize];
            if p.parent.is_none() && p.kind == VarKind::Param && p.is_pointer {
                if let Some(k) = p.param_index {
                    out.push((path.to_string(), k));
                }
            }
        }
    }
    out
}

/// The struct a type names or points to, without qualifiers, tag
/// keywords, pointers and references: `const struct particle *` and
/// `particle *` are `particle`.
pub fn plain_struct(t: &str) -> String {
    plain_type(t).replace(['*', '&'], "").trim().to_string()
}

/// True when a field of type `t` links to more of struct `ty`: a pointer
/// to it (`Node *next`), or an array of them (`Node *child[8]`, named
/// `Node * [8]`).
fn links_to(t: &str, ty: &str) -> bool {
    let element = blame_formats::names::array_elements(t).map_or(t.trim_end(), |(e, _)| e);
    element.strip_suffix('*').map(str::trim_end) == Some(ty)
}

/// True for C's and C++'s number and character types (`unsigned long`).
pub(crate) fn is_basic_type(t: &str) -> bool {
    t.split_whitespace().all(|w| {
        matches!(
            w,
            "void"
                | "bool"
                | "_Bool"
                | "char"
                | "short"
                | "int"
                | "long"
                | "float"
                | "double"
                | "signed"
                | "unsigned"
                | "size_t"
                | "int64_t"
                | "int32_t"
                | "uint64_t"
                | "uint32_t"
        )
    })
}

/// True for a pointer type (`struct particle *`).
fn is_pointer_type(t: &str) -> bool {
    t.trim_end().ends_with('*')
}

/// Where a global is defined and how: what every summary naming it
/// reports, so a global used through `extern` in other files is one row.
#[derive(Debug, Clone, PartialEq)]
pub struct GlobalDef {
    pub unit: String,
    pub line: u32,
    pub type_name: String,
    pub scalar: bool,
}

/// The unit a summary came from (its source file when not recorded).
pub fn unit_of(f: &FunctionSummary) -> &str {
    if f.unit.is_empty() {
        &f.file
    } else {
        &f.unit
    }
}

/// True when variable `vi` of `f` is a global or a field path below one.
pub fn is_global_rooted(f: &FunctionSummary, vi: u32) -> bool {
    f.variables[root_of(f, vi) as usize].kind == blame_formats::static_db::VarKind::Global
}

/// `A::f(int) const` → `A::f`: symbolizers and summaries disagree on
/// whether parameter lists are part of a demangled name.
fn strip_params(name: &str) -> &str {
    match name.find('(') {
        Some(i) if i > 0 => &name[..i],
        _ => name,
    }
}

/// True when two paths plausibly name the same source file (one may be
/// relative to a build directory, the other absolute).
/// `a` and `b` name files of the same name, wherever they are (a source
/// built in another directory, or moved, is still that file; an inlined
/// header's line is not).
pub fn same_file_name(a: &str, b: &str) -> bool {
    let base = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    a.is_empty() || b.is_empty() || base(a) == base(b)
}

pub fn same_file(a: &str, b: &str) -> bool {
    if a.is_empty() || b.is_empty() {
        return true;
    }
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let short = short.trim_start_matches("./");
    long == short || long.ends_with(&format!("/{short}")) || {
        let base = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
        base(long) == base(short) && !short.contains('/')
    }
}

impl StaticIndex {
    pub fn new(db: StaticDb) -> Self {
        let functions: Vec<FunctionSummary> = db.functions.into_values().collect();
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, f) in functions.iter().enumerate() {
            let mut names = vec![
                f.linkage_name.clone(),
                f.name.clone(),
                strip_params(&f.name).to_string(),
            ];
            // A base-object constructor or destructor (`C2`, `D2`) is also
            // the complete object's (`C1`, `D1`), which clang emits as an
            // alias of it: calls from other units name that one.
            names.extend(complete_object_name(&f.linkage_name));
            names.sort();
            names.dedup();
            for n in names {
                by_name.entry(n).or_default().push(i);
            }
        }
        let mut scalar: HashMap<&str, bool> = HashMap::new();
        for v in functions.iter().flat_map(|f| &f.variables) {
            if !v.type_name.is_empty() {
                *scalar.entry(v.type_name.as_str()).or_insert(true) &= v.is_scalar;
            }
        }
        let scalar_types = scalar
            .into_iter()
            .filter(|&(_, s)| s)
            .map(|(t, _)| t.to_string())
            .collect();
        let mut field_types: HashMap<(String, String), String> = HashMap::new();
        for f in &functions {
            for v in &f.variables {
                let Some(p) = v.parent else { continue };
                let u = &f.variables[p as usize];
                let Some(field) = v.name.strip_prefix(&format!("{}.", u.name)) else {
                    continue;
                };
                if u.type_name.is_empty() || v.type_name.is_empty() || field.contains('.') {
                    continue;
                }
                let key = (plain_struct(&u.type_name), field.to_string());
                let t = if is_pointer_type(&v.type_name) {
                    format!("{} *", plain_struct(&v.type_name))
                } else {
                    plain_struct(&v.type_name)
                };
                field_types.entry(key).or_insert(t);
            }
        }
        // A unit's own list of the globals it defines first, then the
        // typed globals (and field paths below them) its summaries name;
        // one definition per unit.
        let mut global_defs: HashMap<String, Vec<GlobalDef>> = HashMap::new();
        let mut add = |name: &str, def: GlobalDef| {
            let defs = global_defs.entry(name.to_string()).or_default();
            if !defs.iter().any(|d| d.unit == def.unit) {
                defs.push(def);
            }
        };
        for f in &functions {
            for g in &f.unit_globals {
                add(
                    &g.name,
                    GlobalDef {
                        unit: unit_of(f).to_string(),
                        line: g.line,
                        type_name: g.type_name.clone(),
                        scalar: g.is_scalar,
                    },
                );
            }
        }
        for f in &functions {
            for (vi, v) in f.variables.iter().enumerate() {
                if v.line == 0 || v.type_name.is_empty() || !is_global_rooted(f, vi as u32) {
                    continue;
                }
                add(
                    &v.name,
                    GlobalDef {
                        unit: unit_of(f).to_string(),
                        line: v.line,
                        type_name: v.type_name.clone(),
                        scalar: v.is_scalar,
                    },
                );
            }
        }
        let overrides = overrides_of_unknown_callees(&functions, &by_name);
        let mut index = StaticIndex {
            functions,
            by_name,
            overrides,
            scalar_types,
            global_defs,
            field_types,
            global_records: Default::default(),
            record_fields: Default::default(),
            field_name_types: Default::default(),
            member_aliases: Default::default(),
        };
        index.global_records = index.judge_global_records();
        index.judge_record_fields();
        index.member_aliases = index.find_member_aliases();
        index
    }

    /// The declared type of member `field` of a struct of type
    /// `parent_type`, as the summaries name it.
    pub fn field_type(&self, parent_type: &str, field: &str) -> Option<&str> {
        self.field_types
            .get(&(plain_struct(parent_type), field.to_string()))
            .map(String::as_str)
    }

    /// A field path below a variable of type `root_type` with the links of
    /// a linked structure folded away: a field pointing to the same struct
    /// as its container (`next`, `left`, `child`) leads to more of the same
    /// data structure, so `plist.next.next.x` is `plist.x`. Folding stops at
    /// the first field whose type no summary knows.
    pub fn fold_links(&self, name: &str, root: &str, root_type: &str) -> String {
        let Some(rest) = name.strip_prefix(root) else {
            return name.to_string();
        };
        let mut out = root.to_string();
        let mut ty = plain_struct(root_type);
        // Only a struct links to more of itself; pointers to numbers
        // (`int *`, `double *`) are no links.
        let mut known = !ty.is_empty() && !is_basic_type(&ty);
        for field in rest.split('.').filter(|p| !p.is_empty()) {
            if known {
                match self.field_types.get(&(ty.clone(), field.to_string())) {
                    Some(t) if links_to(t, &ty) => continue,
                    Some(t) => ty = plain_struct(t),
                    None => known = false,
                }
            }
            out.push('.');
            out.push_str(field);
        }
        out
    }

    /// Result records among the globals: the verdicts of every function
    /// naming one (`Variable::is_record` of its root there), all of them
    /// records, and at least one function writing it.
    fn judge_global_records(&self) -> std::collections::HashSet<(String, String)> {
        // (name, defining unit) -> (every verdict a record, written).
        let mut verdicts: HashMap<(String, String), (bool, bool)> = HashMap::new();
        for f in &self.functions {
            for v in &f.variables {
                if v.kind != blame_formats::static_db::VarKind::Global || v.parent.is_some() {
                    continue;
                }
                let e = verdicts
                    .entry(self.global_identity(&v.name, f))
                    .or_insert((true, false));
                e.0 &= v.is_record;
                e.1 |= !v.write_lines.is_empty() || !v.explicit_lines.is_empty();
            }
        }
        verdicts
            .into_iter()
            .filter(|(_, (record, written))| *record && *written)
            .map(|(k, _)| k)
            .collect()
    }

    /// Global `name` as named from a function of `f`'s unit: its name and
    /// the unit that defines it (empty when unknown).
    fn global_identity(&self, name: &str, f: &FunctionSummary) -> (String, String) {
        let unit = self
            .global_def(name, unit_of(f))
            .map(|d| d.unit.clone())
            .unwrap_or_default();
        (name.to_string(), unit)
    }

    /// True when global `name`, named from a function of `f`'s unit, is a
    /// result record of the whole program (`judge_global_records`).
    /// Result records among the fields of objects: the verdicts of the
    /// functions writing each field (by its name and type), against the
    /// fields any function reads into other data (by name). The special
    /// members (constructors, destructors) give no verdict: sizing or
    /// freeing a member says nothing about what it holds.
    fn judge_record_fields(&mut self) {
        use std::collections::HashSet;
        let mut record: HashSet<(String, String)> = HashSet::new();
        // Members read into other data: by name and type, or by name
        // alone where the type was not known.
        let mut feeding: HashSet<(&str, Option<&str>)> = HashSet::new();
        let mut types: HashMap<String, Vec<String>> = HashMap::new();
        for f in &self.functions {
            feeding.extend(
                f.fields_feeding_data
                    .iter()
                    .map(|e| blame_formats::static_db::field_and_type(e)),
            );
            let special = is_special_member(&f.name);
            for v in &f.variables {
                if v.kind != blame_formats::static_db::VarKind::Field {
                    continue;
                }
                let name = v.name.rsplit('.').next().unwrap_or(&v.name).to_string();
                let ts = types.entry(name.clone()).or_default();
                if !ts.contains(&v.type_name) {
                    ts.push(v.type_name.clone());
                }
                if v.is_record && !special {
                    record.insert((name, v.type_name.clone()));
                }
            }
        }
        self.record_fields = record
            .into_iter()
            .filter(|(name, ty)| {
                !feeding.contains(&(name.as_str(), None))
                    && !feeding.contains(&(name.as_str(), Some(ty.as_str())))
            })
            .collect();
        self.field_name_types = types;
    }

    /// The field paths of a function's variables that hold another of its
    /// variables, by the parameter aliases of the calls it makes (a
    /// constructor storing `&reg` in `this->reg_`): `member_aliases`.
    fn find_member_aliases(&self) -> HashMap<u32, HashMap<String, u32>> {
        let mut out: HashMap<u32, HashMap<String, u32>> = HashMap::new();
        // Each callee's returned members, found once.
        let mut members_of: HashMap<usize, Vec<(String, u32)>> = HashMap::new();
        for (fi, f) in self.functions.iter().enumerate() {
            for c in &f.call_sites {
                let Some(ci) = c.callee.as_deref().and_then(|n| self.callee(n)) else {
                    continue;
                };
                let callee = &self.functions[ci];
                let passed = |k: u32| -> Vec<u32> {
                    c.outputs
                        .iter()
                        .filter(|b| b.output == blame_formats::static_db::CallOutput::Arg(k))
                        .flat_map(|b| {
                            if b.pointees.is_empty() {
                                &b.blamed
                            } else {
                                &b.pointees
                            }
                        })
                        .copied()
                        .collect()
                };
                for (i, &(a, b)) in callee.param_aliases.iter().enumerate() {
                    let Some((pa, pb)) = callee.param_alias_paths.get(i) else {
                        continue;
                    };
                    for (x, px, y, py) in [(a, pa, b, pb), (b, pb, a, pa)] {
                        if px.is_empty() || !py.is_empty() {
                            continue;
                        }
                        let (xs, ys) = (passed(x), passed(y));
                        if let ([xv], [yv]) = (xs.as_slice(), ys.as_slice()) {
                            if xv != yv {
                                let name = format!("{}{px}", f.variables[*xv as usize].name);
                                out.entry(fi as u32).or_default().insert(name, *yv);
                            }
                        }
                    }
                }
                // A factory's object holding a parameter (`nm->user_data =
                // user_data; return nm;`): the returned object's path holds
                // the variable passed there (`nls.user_data` is `prob`).
                let held = |o: blame_formats::static_db::CallOutput| -> Vec<u32> {
                    c.outputs
                        .iter()
                        .filter(|b| b.output == o)
                        .flat_map(|b| b.pointees.iter().copied())
                        .collect()
                };
                let returned = members_of
                    .entry(ci)
                    .or_insert_with(|| returned_members(callee));
                for (path, k) in returned.iter() {
                    let (path, k) = (path.as_str(), *k);
                    let (xs, ys) = (
                        held(blame_formats::static_db::CallOutput::Return),
                        held(blame_formats::static_db::CallOutput::Arg(k)),
                    );
                    if let ([xv], [yv]) = (xs.as_slice(), ys.as_slice()) {
                        if xv != yv {
                            let name = format!("{}{path}", f.variables[*xv as usize].name);
                            out.entry(fi as u32).or_default().insert(name, *yv);
                        }
                    }
                }
            }
        }
        out
    }

    /// The variable of function `fi` that field path `name` (`solver.reg_`,
    /// or a path below it) holds, with the rest of the path below it.
    pub fn member_alias<'a>(&self, fi: u32, name: &'a str) -> Option<(u32, &'a str)> {
        let paths = self.member_aliases.get(&fi)?;
        let mut end = name.len();
        loop {
            if let Some(&v) = paths.get(&name[..end]) {
                return Some((v, &name[end..]));
            }
            end = name[..end].rfind('.')?;
        }
    }

    /// True when some field path of function `fi`'s variables holds
    /// another of its variables (`member_alias` may answer).
    pub fn has_member_aliases(&self, fi: u32) -> bool {
        self.member_aliases.contains_key(&fi)
    }

    /// True when field `name` (of type `type_name`, when known; else of the
    /// only type fields of that name have) is a result record
    /// (`judge_record_fields`): a solver's statistics, a residual history.
    pub fn is_record_field(&self, name: &str, type_name: Option<&str>) -> bool {
        if self.record_fields.is_empty() {
            return false;
        }
        let t = match type_name {
            Some(t) if !t.is_empty() => t,
            _ => match self.field_name_types.get(name).map(Vec::as_slice) {
                Some([t]) => t.as_str(),
                _ => return false,
            },
        };
        self.record_fields
            .contains(&(name.to_string(), t.to_string()))
    }

    pub fn is_global_record(&self, name: &str, f: &FunctionSummary) -> bool {
        !self.global_records.is_empty()
            && self.global_records.contains(&self.global_identity(name, f))
    }

    /// The definition of global `name` (or a field path below one) as
    /// seen from a function of `unit`: the unit's own (a `static` global,
    /// or the file that defines it), else the only one there is. `None`
    /// when no unit declares it with debug info, or several do and the
    /// unit is none of them.
    pub fn global_def(&self, name: &str, unit: &str) -> Option<&GlobalDef> {
        let defs = self.global_defs.get(name)?;
        defs.iter()
            .find(|d| d.unit == unit)
            .or_else(|| (defs.len() == 1).then(|| &defs[0]))
    }

    /// True when every variable of type `type_name` is a scalar (basic
    /// types, their typedefs, opaque handles); false for unknown names.
    pub fn is_scalar_type(&self, type_name: &str) -> bool {
        self.scalar_types.contains(type_name)
    }

    pub fn empty() -> Self {
        Self::new(StaticDb::default())
    }

    /// The summary for a frame's function name and file, if the static db has one.
    pub fn lookup(&self, function: &str, file: &str) -> Option<usize> {
        let candidates = self
            .by_name
            .get(function)
            .or_else(|| self.by_name.get(strip_params(function)))?;
        if candidates.len() == 1 {
            return Some(candidates[0]);
        }
        candidates
            .iter()
            .copied()
            .find(|&i| same_file(&self.functions[i].file, file))
            .or_else(|| candidates.first().copied())
    }

    /// The summary of a callee named at a call site (linkage name).
    /// A C++ method of the program with no summary of its own (a pure
    /// virtual method a virtual call is named by) answers with an
    /// override's summary, the first of its signature.
    pub fn callee(&self, linkage_name: &str) -> Option<usize> {
        match self.by_name.get(linkage_name) {
            Some(c) => c.first().copied(),
            None => self.overrides.get(linkage_name).copied(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.functions.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A virtual call is named by the method its object's class declares
    /// (`Op::apply`, pure virtual: no summary); an override answers for it,
    /// a library method of the same signature does not.
    #[test]
    fn an_override_answers_for_the_virtual_method_it_overrides() {
        use blame_formats::static_db::CallSite;
        let mut jacobi = crate::tests_fig3_14::func("_ZNK6Jacobi5applyERK3VecRS0_", vec![], vec![]);
        jacobi.name = "Jacobi::apply(Vec const&, Vec&) const".into();
        // A caller naming the three at its call sites.
        let call = |callee: &str| CallSite {
            line: 1,
            column: 1,
            callee: Some(callee.into()),
            arg_count: 3,
            outputs: vec![],
            model: None,
        };
        let run = crate::tests_fig3_14::func(
            "run",
            vec![],
            vec![
                call("_ZNK2Op5applyERK3VecRS0_"),
                call("_ZN2Op5applyERK3VecRS0_"),
                call("_ZNKSt6vectorIdSaIdEE4sizeEv"),
            ],
        );
        let mut db = StaticDb::default();
        db.insert(jacobi);
        db.insert(run);
        let index = StaticIndex::new(db);
        let jacobi = index.lookup("_ZNK6Jacobi5applyERK3VecRS0_", "fig3_14.c");
        assert!(jacobi.is_some());
        assert_eq!(index.callee("_ZNK2Op5applyERK3VecRS0_"), jacobi);
        assert_eq!(index.callee("_ZNK6Jacobi5applyERK3VecRS0_"), jacobi);
        // Another method, and the same one of a std class: no summary.
        assert_eq!(index.callee("_ZN2Op5applyERK3VecRS0_"), None);
        assert_eq!(index.callee("_ZNKSt6vectorIdSaIdEE4sizeEv"), None);
    }

    /// `void *nls = NewtonCreate(u, .., prob)` whose body stores its
    /// `user_data` parameter in the object it returns: `nls.user_data` is
    /// main's `prob`.
    #[test]
    fn a_factorys_member_holding_a_parameter_is_the_variable_passed() {
        use crate::tests_fig3_14::{func, var};
        use blame_formats::static_db::{CallOutput, CallSite, OutputBinding, VarKind};
        let mut user_data = var("user_data", VarKind::Param, None, Some(3), true, &[]);
        user_data.is_pointer = true;
        user_data.aliases = vec![3];
        let mut nm = var("nm", VarKind::Local, None, None, false, &[]);
        nm.aliases = vec![2];
        let ret = var("return", VarKind::Return, None, None, true, &[]);
        let mut held = var("nm.user_data", VarKind::Field, Some(1), None, false, &[]);
        held.aliases = vec![0];
        let create = func("NewtonCreate", vec![user_data, nm, ret, held], vec![]);
        let binding = |output, pointees: Vec<u32>| OutputBinding {
            output,
            blamed: pointees.clone(),
            explicit: pointees.clone(),
            pointees,
            field: String::new(),
        };
        let main = func(
            "main",
            vec![
                var("nls", VarKind::Local, None, None, false, &[]),
                var("prob", VarKind::Local, None, None, false, &[]),
            ],
            vec![CallSite {
                line: 10,
                column: 1,
                callee: Some("NewtonCreate".into()),
                arg_count: 4,
                outputs: vec![
                    binding(CallOutput::Return, vec![0]),
                    binding(CallOutput::Arg(3), vec![1]),
                ],
                model: None,
            }],
        );
        let mut db = StaticDb::default();
        db.insert(create);
        db.insert(main);
        let index = StaticIndex::new(db);
        let fi = index.lookup("main", "fig3_14.c").unwrap() as u32;
        assert_eq!(
            index.member_alias(fi, "nls.user_data.kcell"),
            Some((1, ".kcell"))
        );
    }

    #[test]
    fn base_object_constructors_answer_for_the_complete_object() {
        assert_eq!(
            complete_object_name("_ZN2lg10FlowSolverC2ERNS_13FieldRegistryE").as_deref(),
            Some("_ZN2lg10FlowSolverC1ERNS_13FieldRegistryE")
        );
        assert_eq!(
            complete_object_name("_ZN3pcg5StatsD2Ev").as_deref(),
            Some("_ZN3pcg5StatsD1Ev")
        );
        assert_eq!(complete_object_name("_ZN3pcg9PcgSolver5solveEv"), None);
        assert_eq!(complete_object_name("main"), None);
    }

    #[test]
    fn file_matching_accepts_relative_and_absolute_forms() {
        assert!(same_file("/home/u/proj/src/ex.c", "src/ex.c"));
        assert!(same_file("/home/u/proj/src/ex.c", "ex.c"));
        assert!(same_file("./ex.c", "/tmp/ex.c"));
        assert!(!same_file("/a/src/ex.c", "other/ex.c"));
        assert!(!same_file("/a/ex.c", "/a/fx.c"));
    }

    #[test]
    fn parameter_lists_are_ignored_for_lookup() {
        assert_eq!(strip_params("Solver::step(double) const"), "Solver::step");
        assert_eq!(strip_params("main"), "main");
    }

    #[test]
    fn pointers_and_arrays_of_pointers_to_the_same_struct_are_links() {
        assert!(links_to("Node *", "Node"));
        assert!(links_to("Node * [8]", "Node"));
        assert!(links_to("struct cell *[2][2]", "struct cell"));
        assert!(!links_to("Node", "Node"));
        assert!(!links_to("double [3]", "Node"));
        assert!(!links_to("Body *", "Node"));
    }
}
