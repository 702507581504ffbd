//! The reported variables of one function: locals, parameters, globals and
//! field paths below them, made on first use from resolved locations.

use super::locations::{Key, Root};
use crate::ir::*;
use crate::HashMap;
use blame_formats::static_db::*;
use std::collections::BTreeSet;

pub(super) struct Vars<'a> {
    pub(super) m: &'a Module,
    pub(super) f: &'a Function,
    pub(super) param_of: &'a HashMap<u32, u32>,
    pub(super) out: Vec<Variable>,
    pub(super) by_key: HashMap<Key, u32>,
    pub(super) declared: BTreeSet<u32>,
    /// Declared debug type of each variable.
    pub(super) decl_ty: Vec<Option<TypeId>>,
}

impl Vars<'_> {
    /// The variable at `root` and field `path` below it (`ty`: the
    /// location's type), made on first use with the fields above it;
    /// `None` for memory no variable names.
    pub(super) fn get(&mut self, root: Root, path: &[String], ty: Option<TypeId>) -> Option<u32> {
        if matches!(root, Root::Hidden(_)) {
            return None;
        }
        let key = (root, path.to_vec());
        if let Some(&i) = self.by_key.get(&key) {
            return Some(i);
        }
        let mut decl_field_ty = None;
        let var = if path.is_empty() {
            match root {
                Root::Var(v) => self.local_variable(v),
                Root::Global(g) => self.global_variable(g)?,
                Root::RawArg(k) => raw_argument(k),
                Root::Hidden(_) => return None,
            }
        } else {
            let (var, field_ty) = self.field_variable(root, path, ty)?;
            decl_field_ty = field_ty;
            var
        };
        let idx = self.out.len() as u32;
        let decl = match (root, path.is_empty()) {
            (Root::Var(v), true) => self.f.vars[v as usize].ty,
            (Root::Global(g), true) => self.m.globals[g as usize].ty,
            _ => decl_field_ty,
        };
        self.decl_ty.push(decl);
        self.out.push(var);
        self.by_key.insert(key, idx);
        Some(idx)
    }

    /// The variable of local or parameter `v` of the function.
    fn local_variable(&self, v: u32) -> Variable {
        let lv = &self.f.vars[v as usize];
        let param = self.param_of.get(&v).copied();
        let ir_param = param.and_then(|k| self.f.params.get(k as usize));
        let ir_ptr = ir_param.is_some_and(|p| p.is_pointer);
        // A named return value (`CsrMatrix A; ...; return A;`) lives in the
        // caller's object the hidden result pointer points to: what is
        // written to it leaves the function, as a pointer parameter's
        // pointee does.
        let in_result = ir_param.is_some_and(|p| p.sret);
        let ptr = self.m.is_pointer(lv.ty) || (lv.ty.is_none() && ir_ptr);
        let kind = if param.is_some() {
            VarKind::Param
        } else {
            VarKind::Local
        };
        Variable {
            type_name: self.m.type_name_opt(lv.ty),
            line: lv.line,
            param_index: param,
            // A handle to shared storage passed by value (a
            // `View<T>`, in memory the caller copied it to): what
            // is written through it is the caller's data.
            is_exit: param.is_some()
                && (ptr
                    || in_result
                    || (ir_ptr && super::view_types::is_handle_type(self.m, lv.ty))),
            is_pointer: ptr,
            is_scalar: (!ptr && self.m.is_scalar(lv.ty)) || self.m.is_mpi_handle(lv.ty),
            ..Variable::new(lv.name.clone(), kind)
        }
    }

    /// The variable of global `g` of the module, if it is one the program
    /// declares.
    fn global_variable(&self, g: u32) -> Option<Variable> {
        let gl = &self.m.globals[g as usize];
        // String literals and other compiler-made globals: tracked, never reported.
        if gl.artificial || is_runtime_global(gl) {
            return None;
        }
        // A function-static local is its function's variable.
        let kind = if gl.function.is_some() {
            VarKind::Local
        } else {
            VarKind::Global
        };
        let name = gl.source_name.clone().unwrap_or_else(|| gl.name.clone());
        Some(Variable {
            // An `extern` declaration has no debug type here: its
            // IR type names it, never `void`.
            type_name: match gl.ty {
                Some(_) => self.m.type_name_opt(gl.ty),
                None => crate::ir::c_type_of_ir(&gl.ir_type),
            },
            line: gl.line,
            is_exit: true,
            is_pointer: self.m.is_pointer(gl.ty),
            is_scalar: self.m.is_scalar(gl.ty) || self.m.is_mpi_handle(gl.ty),
            ..Variable::new(name, kind)
        })
    }

    /// The variable of field `path` below `root` (its parent made first),
    /// with the member's declared type.
    fn field_variable(
        &mut self,
        root: Root,
        path: &[String],
        ty: Option<TypeId>,
    ) -> Option<(Variable, Option<TypeId>)> {
        let parent = self.get(root, &path[..path.len() - 1], None)?;
        let p = &self.out[parent as usize];
        let last = &path[path.len() - 1];
        // The member's declared type, found through the parent's type
        // (the location's type is the pointee once dereferenced).
        let mut pt = self.decl_ty.get(parent as usize).copied().flatten();
        for _ in 0..8 {
            if self.m.is_struct(pt) {
                break;
            }
            match self.m.pointee(pt) {
                Some(t) => pt = Some(t),
                None => break,
            }
        }
        let member = self.m.member_named(pt, last).map(|mm| mm.ty);
        let ty = member.unwrap_or(ty);
        let var = Variable {
            // A member of a struct this unit only declares (`ode.stats`
            // of an opaque `OdeIntegrator *`, reached through an accessor
            // of another unit) has no type known here.
            type_name: ty.map(|t| self.m.type_name(t)).unwrap_or_default(),
            line: p.line,
            parent: Some(parent),
            is_exit: p.is_exit,
            is_pointer: self.m.is_pointer(ty),
            is_scalar: self.m.is_scalar(ty) || self.m.is_mpi_handle(ty),
            ..Variable::new(format!("{}.{}", p.name, last), VarKind::Field)
        };
        Some((var, ty))
    }
}

/// The variable of pointer parameter `k` used without a declared variable
/// (optimized IR).
fn raw_argument(k: u32) -> Variable {
    Variable {
        param_index: Some(k),
        is_exit: true,
        is_pointer: true,
        ..Variable::new(format!("arg{k}"), VarKind::Param)
    }
}

/// A global of a runtime the program links (MPI's `ompi_mpi_comm_world`
/// behind `MPI_COMM_WORLD`, libc's `stdout` and `errno`, OpenMP's and the
/// C++ library's streams): declared here, defined in a library, and never
/// a program variable; nor are the tables the compiler makes for C++
/// classes (`{vtable(CG)}`).
fn is_runtime_global(gl: &crate::ir::Global) -> bool {
    const PREFIXES: &[&str] = &[
        "ompi_",
        "opal_",
        "orte_",
        "pmix_",
        "MPIR_",
        "MPID",
        "MPIU_",
        "mpich_",
        "mpi_fortran_",
        "PMPI_",
        "_IO_",
        "__kmp",
        "__gomp",
        "__libc_",
        "_ZSt",
        "_ZNSt",
    ];
    const NAMES: &[&str] = &[
        "stdout",
        "stderr",
        "stdin",
        "errno",
        "environ",
        "optarg",
        "optind",
        "opterr",
        "optopt",
        "__environ",
        "signgam",
    ];
    // The compiler's own tables of C++ classes: vtables, typeinfo and its
    // names, VTTs, guard variables of function statics, TLS wrappers.
    const COMPILER_TABLES: &[&str] = &["_ZTV", "_ZTI", "_ZTS", "_ZTT", "_ZGV", "_ZTH", "_ZTW"];
    if COMPILER_TABLES.iter().any(|p| gl.name.starts_with(p)) {
        return true;
    }
    let declared_only = gl.size == 0 && gl.ty.is_none();
    declared_only
        && (NAMES.contains(&gl.name.as_str()) || PREFIXES.iter().any(|p| gl.name.starts_with(p)))
}
