//! The crate's own plain IR model: what the loader extracts from LLVM and
//! everything the analysis reads. Built by `llvm_loader` or by hand in tests.

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
    /// Source name from DIGlobalVariable.
    pub source_name: Option<String>,
    pub line: u32,
    pub ty: Option<TypeId>,
    /// Bytes of storage (0 for declarations and unknown sizes).
    pub size: u64,
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
    },
    Array {
        base: Option<TypeId>,
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

    /// True when `t` is const-qualified (through typedefs).
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

    /// The type a pointer, reference or array points to / holds.
    pub fn pointee(&self, t: Option<TypeId>) -> Option<TypeId> {
        match self.resolve(t).map(|t| self.ty(t)) {
            Some(DiType::Pointer { base })
            | Some(DiType::Reference { base })
            | Some(DiType::Array { base }) => *base,
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
                .or_else(|| members.get(index as usize)),
            _ => None,
        }
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
            DiType::Pointer { base } => {
                let b = self.type_name_depth(*base, d);
                if b.ends_with('*') {
                    format!("{b}*")
                } else {
                    format!("{b} *")
                }
            }
            DiType::Reference { base } => format!("{} &", self.type_name_depth(*base, d)),
            DiType::Qualified { qualifier, base } => {
                format!("{qualifier} {}", self.type_name_depth(*base, d))
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
            DiType::Array { base } => format!("{} []", self.type_name_depth(*base, d)),
        }
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
