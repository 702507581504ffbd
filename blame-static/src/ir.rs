//! The crate's own plain IR model: what the loader extracts from LLVM and
//! everything the analysis reads. Built by `llvm_loader` or by hand in tests.

use crate::HashMap;
use std::hash::{Hash, Hasher};

pub type InstId = u32;
pub type BlockId = u32;
pub type TypeId = u32;

/// The integer arithmetic an address computation can be followed through
/// (stride analysis); everything else is `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinCode {
    Add,
    Sub,
    Mul,
    Shl,
    Other,
}

/// An operand.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Value {
    /// An instruction of the same function (or a materialized constant expression).
    Inst(InstId),
    /// A parameter of the function.
    Arg(u32),
    /// A global variable (index into `Module::globals`).
    Global(u32),
    /// A function used as a value (function pointer).
    Func(String),
    /// An integer constant.
    ConstInt(i64),
    /// Any other constant, undef, metadata, ...
    Other,
}

/// One GEP index after the first (array-style) one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum GepStep {
    /// Pointer arithmetic or an array/vector element: operand `arg` of the
    /// GEP, stepping `elem_size` bytes per unit.
    Index { arg: u32, elem_size: u64 },
    /// A struct member: LLVM element index and its byte offset.
    Field { index: u32, offset: u64 },
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Op {
    /// A stack object of `size` bytes (0 when not known).
    Alloca {
        size: u64,
    },
    /// args: [address]
    Load,
    /// args: [value, address]
    Store,
    /// args: [base, idx...]; `steps` describe args 2..; the first index
    /// (arg 1) steps `elem_size` bytes per unit.
    Gep {
        steps: Vec<GepStep>,
        elem_size: u64,
    },
    Cast,
    Phi,
    Select,
    Binary {
        code: BinCode,
    },
    Compare,
    /// args: the call arguments. `callee` is the linkage name for direct calls.
    Call {
        callee: Option<String>,
    },
    /// args: [cond] when conditional.
    Branch,
    /// args: [cond]
    Switch,
    /// args: [value] when non-void.
    Ret,
    Unreachable,
    /// `llvm.dbg.declare(addr, var)`: args [addr].
    DbgDeclare {
        var: u32,
    },
    /// `llvm.dbg.value(value, var)`: args [value].
    DbgValue {
        var: u32,
    },
    /// Any other instruction (extractvalue, atomicrmw, ...): value depends on all args.
    Other(String),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Inst {
    pub op: Op,
    pub args: Vec<Value>,
    /// Block of the instruction; `u32::MAX` for materialized constant expressions.
    pub block: BlockId,
    pub line: u32,
    pub col: u32,
    /// True when the instruction produces a pointer.
    pub is_pointer: bool,
    /// True when the instruction produces no value.
    pub is_void: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Block {
    pub insts: Vec<InstId>,
    pub succs: Vec<BlockId>,
}

/// A DILocalVariable.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LocalVar {
    pub name: String,
    pub line: u32,
    pub ty: Option<TypeId>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Param {
    pub is_pointer: bool,
    /// The hidden result pointer (`sret`) of a function returning a class
    /// by value: the caller's object, which a named return value (`T A;
    /// ...; return A;`) lives in.
    pub sret: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Function {
    /// Linkage name.
    pub name: String,
    /// Source file of the definition (from the DISubprogram), may be empty.
    pub file: String,
    pub line: u32,
    pub params: Vec<Param>,
    pub returns_value: bool,
    pub blocks: Vec<Block>,
    pub insts: Vec<Inst>,
    pub vars: Vec<LocalVar>,
    /// True for declarations (no body).
    pub is_declaration: bool,
}

impl Function {
    /// A hash of everything the analysis reads (independent of metadata numbering).
    pub fn content_hash(&self, module: &Module) -> u64 {
        let mut h = twox_hash::XxHash64::with_seed(crate::ANALYSIS_VERSION);
        self.hash(&mut h);
        // Types and globals the function can see.
        for v in &self.vars {
            if let Some(t) = v.ty {
                module.type_name(t).hash(&mut h);
                module.hash_type_shape(t, &mut h, 3);
            }
        }
        for i in &self.insts {
            for a in &i.args {
                if let Value::Global(g) = a {
                    module.globals[*g as usize].hash(&mut h);
                }
            }
        }
        h.finish()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Global {
    /// Symbol name.
    pub name: String,
    /// The name reports use: the DIGlobalVariable's name (qualified by its
    /// namespace or class, from the demangled linkage name, in C++), else
    /// the demangled symbol name (`_ZSt4cout` is `std::cout`).
    pub source_name: Option<String>,
    /// Made by the compiler, not declared by the program: string literals
    /// (`.str`, with an unnamed DIGlobalVariable), constant pools and other
    /// private globals. Tracked like memory, never reported as a variable.
    pub artificial: bool,
    /// For a function-static local (`static double buf[N]` in a function):
    /// the function's linkage name. Such a variable is its function's.
    pub function: Option<String>,
    pub line: u32,
    pub ty: Option<TypeId>,
    /// Bytes of storage (0 for declarations and unknown sizes).
    pub size: u64,
    /// The type as the IR spells it (`[192 x [192 x double]]`,
    /// `%struct.cell`): what names the type of an `extern` declaration,
    /// which has no debug type in the units that only use it.
    pub ir_type: String,
}

/// A C spelling of an IR type as debug types are spelled (`[4 x [8 x
/// double]]` is `double [4][8]`,
/// `%struct.cell` is `struct cell`, `%class.ns::Domain` is `ns::Domain`);
/// empty when it has none (opaque `ptr`, vectors, literal structs).
pub fn c_type_of_ir(ir: &str) -> String {
    let mut t = ir.trim();
    let mut shape = String::new();
    while let Some(inner) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let Some((count, elem)) = inner.split_once(" x ") else {
            return String::new();
        };
        match count.trim().parse::<u64>() {
            Ok(n) if n > 0 => shape.push_str(&format!("[{n}]")),
            _ => shape.push_str("[]"),
        }
        t = elem.trim();
    }
    let base = if let Some(name) = t.strip_prefix('%') {
        let name = name.trim_matches('"');
        // A type renamed on a clash (`%struct.cell.12`) keeps its name.
        let name = name
            .rsplit_once('.')
            .filter(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .map_or(name, |(head, _)| head);
        if let Some(n) = name.strip_prefix("struct.") {
            format!("struct {n}")
        } else if let Some(n) = name.strip_prefix("union.") {
            format!("union {n}")
        } else if let Some(n) = name.strip_prefix("class.") {
            n.to_string()
        } else {
            return String::new();
        }
    } else {
        match t {
            "double" => "double".into(),
            "float" => "float".into(),
            "i8" => "char".into(),
            "i16" => "short".into(),
            "i32" => "int".into(),
            "i64" => "long".into(),
            _ => return String::new(),
        }
    };
    if !shape.is_empty() {
        format!("{base} {shape}")
    } else {
        base
    }
}

#[cfg(test)]
mod c_type_tests {
    use super::c_type_of_ir;

    #[test]
    fn ir_types_are_spelled_as_c_declares_them() {
        assert_eq!(c_type_of_ir("[192 x [192 x double]]"), "double [192][192]");
        assert_eq!(
            c_type_of_ir("[36864 x %struct.cell]"),
            "struct cell [36864]"
        );
        assert_eq!(c_type_of_ir("%struct.cell.3"), "struct cell");
        assert_eq!(c_type_of_ir("%class.ns::Domain"), "ns::Domain");
        assert_eq!(c_type_of_ir("i32"), "int");
        assert_eq!(c_type_of_ir("ptr"), "");
        assert_eq!(c_type_of_ir("{ i32, double }"), "");
        assert_eq!(c_type_of_ir("<4 x float>"), "");
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Member {
    pub name: String,
    pub offset: u64,
    pub ty: Option<TypeId>,
    /// A base-class subobject (C++ inheritance): its members are the
    /// object's own, so field paths do not name it.
    pub is_base: bool,
}

/// Debug-info types.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DiType {
    Basic {
        name: String,
    },
    Pointer {
        base: Option<TypeId>,
    },
    Reference {
        base: Option<TypeId>,
    },
    Typedef {
        name: String,
        base: Option<TypeId>,
    },
    Qualified {
        qualifier: String,
        base: Option<TypeId>,
    },
    Struct {
        keyword: String,
        name: String,
        members: Vec<Member>,
        /// Only declared here (a forward declaration, or a class whose debug
        /// info clang homes in another unit): no members known.
        declaration: bool,
        /// The C++ ODR identifier (`_ZTS3Dom`), empty in C.
        identifier: String,
    },
    Array {
        base: Option<TypeId>,
        /// Elements per dimension, outermost first (`double [3][3]`); 0
        /// where the count is not a constant (`extern double u[]`, a VLA).
        dims: Vec<u64>,
    },
    Other {
        name: String,
    },
}

#[derive(Debug, Clone, Default)]
pub struct Module {
    pub source_file: String,
    pub functions: Vec<Function>,
    pub globals: Vec<Global>,
    pub types: Vec<DiType>,
    pub is_cxx: bool,
    /// Methods the module's calls through vtable slots are named by
    /// (`llvm_loader::virtual_calls`): their sets are their overrides'.
    pub virtual_callees: std::collections::BTreeSet<String>,
    /// What the module stores in function-pointer slots: (slot, function,
    /// slot or `?`), `crate::function_pointers`. Calls through a slot are
    /// calls of a declared function named by the slot.
    pub function_pointers: Vec<(String, String)>,
}

impl Module {
    pub fn ty(&self, t: TypeId) -> &DiType {
        &self.types[t as usize]
    }

    /// Strips typedefs and qualifiers.
    pub fn resolve(&self, mut t: Option<TypeId>) -> Option<TypeId> {
        for _ in 0..64 {
            match t.map(|t| self.ty(t)) {
                Some(DiType::Typedef { base, .. }) | Some(DiType::Qualified { base, .. }) => {
                    t = *base
                }
                _ => return t,
            }
        }
        t
    }

    /// True for pointers, references and arrays (blame reaches memory elsewhere).
    pub fn is_pointer(&self, t: Option<TypeId>) -> bool {
        matches!(
            self.resolve(t).map(|t| self.ty(t)),
            Some(DiType::Pointer { .. }) | Some(DiType::Reference { .. })
        )
    }

    /// True for an opaque handle: a pointer to a struct the unit only
    /// declares (`MPI_Comm`, `MPI_Request`, `FILE *`). It holds no data of
    /// the program's, so reports count it with the scalars.
    pub fn is_handle(&self, t: Option<TypeId>) -> bool {
        match self.resolve(t).map(|t| self.ty(t)) {
            Some(DiType::Pointer { base }) => matches!(
                self.resolve(*base).map(|b| self.ty(b)),
                Some(DiType::Struct { members, .. }) if members.is_empty()
            ),
            _ => false,
        }
    }

    /// True for MPI's handles and statuses, and arrays of them
    /// (`MPI_Comm`, `MPI_Request [4]`, `MPI_Status`): bookkeeping of the
    /// communication, never a data structure of the program, whichever
    /// way the MPI library defines them (a pointer to an incomplete struct,
    /// an `int`, a struct).
    pub fn is_mpi_handle(&self, t: Option<TypeId>) -> bool {
        let name = self.type_name_opt(t);
        let base = name
            .trim_start_matches("const ")
            .trim_end_matches(|c: char| c == '[' || c == ']' || c == ' ' || c.is_ascii_digit());
        base.starts_with("MPI_") && !base.contains('*')
    }

    /// True when `t` is const-qualified (through typedefs).
    /// True for a pointer or reference (under any qualifiers and typedefs)
    /// whose pointee is const: `const double *const`, `const Vec &`.
    pub fn points_to_const(&self, mut t: Option<TypeId>) -> bool {
        for _ in 0..64 {
            match t.map(|t| self.ty(t)) {
                Some(DiType::Qualified { base, .. }) | Some(DiType::Typedef { base, .. }) => {
                    t = *base
                }
                Some(DiType::Pointer { base }) | Some(DiType::Reference { base }) => {
                    return self.is_const(*base);
                }
                _ => return false,
            }
        }
        false
    }

    pub fn is_const(&self, mut t: Option<TypeId>) -> bool {
        for _ in 0..64 {
            match t.map(|t| self.ty(t)) {
                Some(DiType::Qualified { qualifier, base }) => {
                    if qualifier == "const" {
                        return true;
                    }
                    t = *base;
                }
                Some(DiType::Typedef { base, .. }) => t = *base,
                _ => return false,
            }
        }
        false
    }

    /// True for a scalar of a basic type (after typedefs and qualifiers):
    /// `int`, `double`, an enum. Pointers, arrays, structs and unknown
    /// types are not scalars.
    pub fn is_scalar(&self, t: Option<TypeId>) -> bool {
        matches!(
            self.resolve(t).map(|t| self.ty(t)),
            Some(DiType::Basic { .. })
        )
    }

    /// True for a struct whose every member is a number (a grid's sizes
    /// and spacing, a run's options): no data of the program's, only
    /// numbers kept together.
    pub fn is_struct_of_scalars(&self, t: Option<TypeId>) -> bool {
        match self.resolve(t).map(|t| self.ty(t)) {
            Some(DiType::Struct { members, .. }) => {
                !members.is_empty()
                    && members
                        .iter()
                        .all(|m| !m.is_base && (self.is_scalar(m.ty) || self.is_mpi_handle(m.ty)))
            }
            _ => false,
        }
    }

    /// The type a pointer, reference or array points to / holds.
    pub fn pointee(&self, t: Option<TypeId>) -> Option<TypeId> {
        match self.resolve(t).map(|t| self.ty(t)) {
            Some(DiType::Pointer { base })
            | Some(DiType::Reference { base })
            | Some(DiType::Array { base, .. }) => *base,
            _ => None,
        }
    }

    /// The member at byte `offset` of a struct type.
    pub fn member_at(&self, t: Option<TypeId>, offset: u64, index: u32) -> Option<&Member> {
        match self.resolve(t).map(|t| self.ty(t)) {
            Some(DiType::Struct { members, .. }) => members
                .iter()
                .find(|m| m.offset == offset && !m.name.is_empty())
                .or_else(|| members.iter().find(|m| m.offset == offset))
                .or_else(|| {
                    // A member of a base class (`stats_` of `Solver`, reached
                    // by a GEP on the base's layout from a `PcgSolver *`):
                    // the base whose subobject holds the offset.
                    let base = members
                        .iter()
                        .filter(|m| m.is_base && m.offset <= offset)
                        .max_by_key(|m| m.offset)?;
                    self.member_at(base.ty, offset - base.offset, index)
                })
                .or_else(|| members.get(index as usize)),
            _ => None,
        }
    }

    /// The member named `name` of struct `t`, or of one of its base-class
    /// subobjects (`stats_` of `Solver` named from a `PcgSolver`).
    pub fn member_named(&self, t: Option<TypeId>, name: &str) -> Option<&Member> {
        self.member_named_depth(t, name, 0)
    }

    fn member_named_depth(&self, t: Option<TypeId>, name: &str, depth: u32) -> Option<&Member> {
        let Some(DiType::Struct { members, .. }) = self.resolve(t).map(|t| self.ty(t)) else {
            return None;
        };
        members.iter().find(|m| m.name == name).or_else(|| {
            (depth < 16)
                .then(|| {
                    members
                        .iter()
                        .filter(|m| m.is_base)
                        .find_map(|b| self.member_named_depth(b.ty, name, depth + 1))
                })
                .flatten()
        })
    }

    /// True when `t` (after typedefs) is a struct, class or union.
    pub fn is_struct(&self, t: Option<TypeId>) -> bool {
        matches!(
            self.resolve(t).map(|t| self.ty(t)),
            Some(DiType::Struct { .. })
        )
    }

    /// Source spelling of a type, e.g. `int *`, `StructEx`, `struct node *`.
    pub fn type_name(&self, t: TypeId) -> String {
        self.type_name_depth(Some(t), 0)
    }

    pub fn type_name_opt(&self, t: Option<TypeId>) -> String {
        self.type_name_depth(t, 0)
    }

    fn type_name_depth(&self, t: Option<TypeId>, depth: u32) -> String {
        let Some(t) = t else {
            return "void".into();
        };
        if depth > 16 {
            return "...".into();
        }
        let d = depth + 1;
        match self.ty(t) {
            DiType::Basic { name } | DiType::Typedef { name, .. } | DiType::Other { name } => {
                name.clone()
            }
            DiType::Pointer { base } => after_declarator(self.type_name_depth(*base, d), "*"),
            DiType::Reference { base } => after_declarator(self.type_name_depth(*base, d), "&"),
            DiType::Qualified { qualifier, base } => {
                let b = self.type_name_depth(*base, d);
                let q = match qualifier.as_str() {
                    "restrict" if self.is_cxx => "__restrict",
                    q => q,
                };
                // What is qualified, through further qualifiers (not typedefs).
                let mut direct = base.map(|b| self.ty(b));
                for _ in 0..8 {
                    match direct {
                        Some(DiType::Qualified { base, .. }) => direct = base.map(|b| self.ty(b)),
                        _ => break,
                    }
                }
                if q.is_empty() {
                    b
                } else if matches!(
                    direct,
                    Some(DiType::Pointer { .. } | DiType::Reference { .. })
                ) {
                    // A qualified pointer: the qualifier follows the `*`
                    // (`int *const`, `const T *const`).
                    let after_star = b.rsplit(['*', '&']).next().unwrap_or("");
                    if after_star.split_whitespace().any(|w| w == q) {
                        b
                    } else if b.ends_with(['*', '&']) {
                        format!("{b}{q}")
                    } else {
                        format!("{b} {q}")
                    }
                } else if b.split_whitespace().any(|w| w == q) && !b.contains(['*', '&']) {
                    // `const` of a type already spelled const (a qualifier
                    // repeated in the debug info): once.
                    b
                } else {
                    format!("{q} {b}")
                }
            }
            DiType::Struct { keyword, name, .. } => {
                if name.is_empty() {
                    format!("{keyword} <anonymous>")
                } else if self.is_cxx {
                    name.clone()
                } else {
                    format!("{keyword} {name}")
                }
            }
            DiType::Array { base, dims } => {
                let shape: String = if dims.is_empty() {
                    "[]".into()
                } else {
                    dims.iter()
                        .map(|&n| {
                            if n == 0 {
                                "[]".into()
                            } else {
                                format!("[{n}]")
                            }
                        })
                        .collect()
                };
                format!("{} {shape}", self.type_name_depth(*base, d))
            }
        }
    }

    /// The key under which a struct's declaration and its definition meet:
    /// the C++ identifier, else keyword and name; `None` when anonymous.
    fn struct_key(&self, t: TypeId) -> Option<String> {
        match self.ty(t) {
            DiType::Struct { identifier, .. } if !identifier.is_empty() => Some(identifier.clone()),
            DiType::Struct { keyword, name, .. } if !name.is_empty() => {
                Some(format!("{keyword} {name}"))
            }
            _ => None,
        }
    }

    /// Gives every struct only declared in this module (a forward
    /// declaration, or a class whose debug info clang homed in another
    /// unit) the members of its definition, found in this module or else in
    /// `others` (types copied over), so that a member is named the same
    /// wherever its type is known. A name defined differently in several
    /// places (two C units' own `struct node`) is left alone.
    /// The names of the functions the module declares without a body
    /// (`declared`) or defines (`!declared`).
    pub fn function_names(&self, declared: bool) -> std::collections::BTreeSet<&str> {
        self.functions
            .iter()
            .filter(|f| f.is_declaration == declared)
            .map(|f| f.name.as_str())
            .collect()
    }

    pub fn complete_declarations(&mut self, others: &[&Module]) {
        // key → definitions: (None: this module | Some(k): others[k], type).
        let mut defs: HashMap<String, Vec<(Option<usize>, TypeId)>> = Default::default();
        let mut add_defs = |m: &Module, source: Option<usize>| {
            for t in 0..m.types.len() as TypeId {
                if let DiType::Struct {
                    declaration: false, ..
                } = m.ty(t)
                {
                    if let Some(k) = m.struct_key(t) {
                        defs.entry(k).or_default().push((source, t));
                    }
                }
            }
        };
        add_defs(self, None);
        for (k, m) in others.iter().enumerate() {
            add_defs(m, Some(k));
        }
        let mut copied: Vec<HashMap<TypeId, TypeId>> = vec![Default::default(); others.len()];
        // Copied types may hold declarations of their own: walk to the end.
        let mut t = 0;
        while (t as usize) < self.types.len() {
            let declared = matches!(
                self.ty(t),
                DiType::Struct {
                    declaration: true,
                    ..
                }
            );
            let found = declared
                .then(|| self.struct_key(t))
                .flatten()
                .and_then(|k| defs.get(&k));
            if let Some(candidates) = found {
                let member_names = |(source, d): &(Option<usize>, TypeId)| {
                    let m: &Module = source.map_or(&*self, |k| others[k]);
                    match m.ty(*d) {
                        DiType::Struct { members, .. } => members
                            .iter()
                            .map(|x| (x.name.clone(), x.offset))
                            .collect::<Vec<_>>(),
                        _ => vec![],
                    }
                };
                let first = member_names(&candidates[0]);
                let unambiguous = candidates.iter().all(|c| member_names(c) == first);
                let (source, d) = candidates[0];
                if unambiguous {
                    let ty = match source {
                        None => self.ty(d).clone(),
                        Some(k) => {
                            copied[k].insert(d, t);
                            let mut ty = others[k].ty(d).clone();
                            if let DiType::Struct { members, .. } = &mut ty {
                                for m in members {
                                    m.ty = m.ty.map(|mt| {
                                        self.copy_type(&others[k].types, mt, &mut copied[k])
                                    });
                                }
                            }
                            ty
                        }
                    };
                    self.types[t as usize] = ty;
                }
            }
            t += 1;
        }
    }

    /// Copies type `t` of another module's `types` (and what it refers to)
    /// into this module; `memo` maps types already copied.
    fn copy_type(
        &mut self,
        types: &[DiType],
        t: TypeId,
        memo: &mut HashMap<TypeId, TypeId>,
    ) -> TypeId {
        if let Some(&c) = memo.get(&t) {
            return c;
        }
        let id = self.types.len() as TypeId;
        self.types.push(DiType::Other {
            name: String::new(),
        });
        memo.insert(t, id);
        let mut ty = types[t as usize].clone();
        match &mut ty {
            DiType::Pointer { base }
            | DiType::Reference { base }
            | DiType::Typedef { base, .. }
            | DiType::Qualified { base, .. }
            | DiType::Array { base, .. } => {
                *base = base.map(|b| self.copy_type(types, b, memo));
            }
            DiType::Struct { members, .. } => {
                for m in members {
                    m.ty = m.ty.map(|mt| self.copy_type(types, mt, memo));
                }
            }
            DiType::Basic { .. } | DiType::Other { .. } => {}
        }
        self.types[id as usize] = ty;
        id
    }

    fn hash_type_shape(&self, t: TypeId, h: &mut impl Hasher, depth: u32) {
        if depth == 0 {
            return;
        }
        if let Some(rt) = self.resolve(Some(t)) {
            if let DiType::Struct { members, .. } = self.ty(rt) {
                for m in members {
                    m.name.hash(h);
                    m.offset.hash(h);
                    if let Some(mt) = m.ty {
                        self.hash_type_shape(mt, h, depth - 1);
                    }
                }
            }
            if let Some(p) = self.pointee(Some(rt)) {
                self.hash_type_shape(p, h, depth - 1);
            }
        }
    }
}

/// `base` followed by a pointer or reference declarator: `int *`,
/// `int **`, `int *const *`, `Dom &`.
fn after_declarator(base: String, declarator: &str) -> String {
    if base.ends_with(['*', '&']) {
        format!("{base}{declarator}")
    } else {
        format!("{base} {declarator}")
    }
}

/// `v` with the casts that produce it looked through (at most 16).
pub(crate) fn strip_casts<'a>(f: &'a Function, mut v: &'a Value) -> Value {
    for _ in 0..16 {
        match v {
            Value::Inst(i) if matches!(f.insts[*i as usize].op, Op::Cast) => {
                v = &f.insts[*i as usize].args[0]
            }
            _ => break,
        }
    }
    v.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module whose types are `types`, type ids in order.
    fn module(types: Vec<DiType>) -> Module {
        Module {
            types,
            ..Default::default()
        }
    }

    fn basic(name: &str) -> DiType {
        DiType::Basic { name: name.into() }
    }

    fn qual(q: &str, base: TypeId) -> DiType {
        DiType::Qualified {
            qualifier: q.into(),
            base: Some(base),
        }
    }

    fn ptr(base: TypeId) -> DiType {
        DiType::Pointer { base: Some(base) }
    }

    fn typedef(name: &str, base: TypeId) -> DiType {
        DiType::Typedef {
            name: name.into(),
            base: Some(base),
        }
    }

    /// Qualifiers are printed once, a pointer's after its `*`: the debug
    /// info of `const Index_t *const p` once printed `const const Index_t *`.
    #[test]
    fn qualifiers_are_never_doubled_and_follow_the_star_they_qualify() {
        let m = module(vec![
            basic("int"),                        // 0
            typedef("Index_t", 0),               // 1 typedef int Index_t
            qual("const", 1),                    // 2 const Index_t
            ptr(2),                              // 3 const Index_t *
            qual("const", 3),                    // 4 const Index_t *const
            ptr(1),                              // 5 Index_t *
            qual("const", 5),                    // 6 Index_t *const
            qual("const", 0),                    // 7 const int
            typedef("CInt", 7),                  // 8 typedef const int CInt
            ptr(8),                              // 9 CInt *
            qual("const", 8), // 10 const CInt (a typedef of const, qualified again)
            qual("const", 7), // 11 const (const int): a repeated qualifier
            qual("const", 6), // 12 const (Index_t *const): repeated on a pointer
            qual("volatile", 6), // 13 volatile (Index_t *const)
            ptr(4),           // 14 const Index_t *const *
            qual("restrict", 5), // 15 Index_t *restrict
            DiType::Reference { base: Some(3) }, // 16 const Index_t *&
            ptr(3),           // 17 const Index_t **
        ]);
        let name = |t: TypeId| m.type_name(t);
        assert_eq!(name(3), "const Index_t *");
        assert_eq!(name(4), "const Index_t *const");
        assert_eq!(name(6), "Index_t *const");
        assert_eq!(name(9), "CInt *");
        assert_eq!(name(10), "const CInt");
        assert_eq!(name(11), "const int");
        assert_eq!(name(12), "Index_t *const");
        assert_eq!(name(13), "Index_t *const volatile");
        assert_eq!(name(14), "const Index_t *const *");
        assert_eq!(name(15), "Index_t *restrict");
        assert_eq!(name(16), "const Index_t *&");
        assert_eq!(name(17), "const Index_t **");
        for t in 0..m.types.len() as TypeId {
            let n = name(t);
            assert!(!n.contains("const const"), "{n}");
            assert!(!n.starts_with(' ') && !n.ends_with(' '), "{n:?}");
        }
    }

    fn class(name: &str, members: Vec<Member>, declaration: bool) -> DiType {
        DiType::Struct {
            keyword: "class".into(),
            name: name.into(),
            members,
            declaration,
            identifier: format!("_ZTS{}{name}", name.len()),
        }
    }

    fn member(name: &str, offset: u64, ty: TypeId) -> Member {
        Member {
            name: name.into(),
            offset,
            ty: Some(ty),
            is_base: false,
        }
    }

    /// A class only declared where it is used (constructor homing) gets the
    /// members of its definition, from the same module or another one.
    #[test]
    fn a_declared_class_takes_the_members_of_its_definition() {
        // Same module: declaration 1, definition 3.
        let mut m = module(vec![
            basic("double"),
            class("Dom", vec![], true),
            ptr(0),
            class("Dom", vec![member("x", 0, 2), member("e", 8, 2)], false),
        ]);
        m.complete_declarations(&[]);
        assert_eq!(m.member_at(Some(1), 8, 1).unwrap().name, "e");

        // Another module: the definition and its member types are copied over.
        let def = module(vec![
            basic("double"),
            ptr(0),
            class("Dom", vec![member("x", 0, 1), member("e", 8, 1)], false),
        ]);
        let mut user = module(vec![class("Dom", vec![], true), ptr(0)]);
        user.complete_declarations(&[&def]);
        let x = user.member_at(Some(0), 0, 0).unwrap();
        assert_eq!(x.name, "x");
        assert_eq!(user.type_name_opt(x.ty), "double *");
        // Pointers to the declaration now reach the members too.
        assert_eq!(
            user.member_at(user.pointee(Some(1)), 8, 1).unwrap().name,
            "e"
        );
    }

    /// Two different definitions of one name (two C units' own `struct
    /// node`): the declaration is left alone rather than guessed.
    #[test]
    fn an_ambiguous_definition_is_not_guessed() {
        let mut a = module(vec![
            basic("int"),
            class("node", vec![member("k", 0, 0)], false),
        ]);
        let b = module(vec![
            basic("int"),
            class("node", vec![member("v", 0, 0)], false),
        ]);
        let mut user = module(vec![class("node", vec![], true)]);
        user.complete_declarations(&[&a, &b]);
        assert!(user.member_at(Some(0), 0, 0).is_none());
        // One definition only: taken.
        a.complete_declarations(&[]);
        user.complete_declarations(&[&a]);
        assert_eq!(user.member_at(Some(0), 0, 0).unwrap().name, "k");
    }
}
