//! The only module that talks to LLVM: parses bitcode or textual IR with
//! llvm-sys and converts the module into the plain model of [`crate::ir`].
//! Every `unsafe` block of the crate is here.

#![deny(unsafe_op_in_unsafe_fn)]

use crate::ir::*;
use crate::HashMap;
use llvm_sys::core::*;
use llvm_sys::debuginfo::*;
use llvm_sys::ir_reader::LLVMParseIRInContext;
use llvm_sys::prelude::*;
use llvm_sys::target::{
    LLVMABISizeOfType, LLVMGetModuleDataLayout, LLVMOffsetOfElement, LLVMTargetDataRef,
};
use llvm_sys::{LLVMOpcode, LLVMTypeKind};
use std::ffi::{CStr, CString};
use std::path::Path;
use std::ptr;

/// Why an input could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: not LLVM bitcode or textual IR")]
    NotBitcode { path: String },
    #[error(
        "{path}: bitcode from a newer LLVM than {ours} (this blame reads LLVM <= 19): {message}"
    )]
    NewerLlvm {
        path: String,
        ours: &'static str,
        message: String,
    },
    #[error("{path}: invalid IR: {message}")]
    Invalid { path: String, message: String },
    #[error("{path}: the module defines no functions")]
    Empty { path: String },
}

pub const LLVM_VERSION: &str = "19";

/// Loads `.bc` or `.ll` into the plain model.
pub fn load_file(path: &Path) -> Result<Module, LoadError> {
    let p = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| LoadError::Io {
        path: p.clone(),
        source: e,
    })?;
    load_bytes(&bytes, &p)
}

fn looks_like_ir(bytes: &[u8]) -> bool {
    if bytes.starts_with(b"BC\xC0\xDE") || bytes.starts_with(&[0xDE, 0xC0, 0x17, 0x0B]) {
        return true;
    }
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
    head.contains("define ")
        || head.contains("declare ")
        || head.contains("target triple")
        || head.contains("source_filename")
        || head.contains("; ModuleID")
}

/// Bitcode size above which the memory of the disposed module is returned
/// to the system at once (a module takes about 30 times its bitcode).
const RETURN_MEMORY_ABOVE: usize = 1 << 20;

/// Loads from memory; `name` is used in errors.
pub fn load_bytes(bytes: &[u8], name: &str) -> Result<Module, LoadError> {
    if !looks_like_ir(bytes) {
        return Err(LoadError::NotBitcode { path: name.into() });
    }
    let is_bitcode =
        bytes.starts_with(b"BC\xC0\xDE") || bytes.starts_with(&[0xDE, 0xC0, 0x17, 0x0B]);
    let cname = CString::new(name.replace('\0', "")).unwrap_or_default();
    // SAFETY: all LLVM objects created here are owned by `ctx` (the buffer is
    // consumed by LLVMParseIRInContext), converted to plain Rust values by
    // `Conv`, and disposed before returning; nothing escapes.
    unsafe {
        let ctx = LLVMContextCreate();
        let buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(
            bytes.as_ptr() as *const _,
            bytes.len(),
            cname.as_ptr(),
        );
        let mut module: LLVMModuleRef = ptr::null_mut();
        let mut msg: *mut std::os::raw::c_char = ptr::null_mut();
        let failed = LLVMParseIRInContext(ctx, buf, &mut module, &mut msg) != 0;
        if failed {
            let message = if msg.is_null() {
                String::from("parse error")
            } else {
                let s = CStr::from_ptr(msg).to_string_lossy().into_owned();
                LLVMDisposeMessage(msg);
                s
            };
            LLVMContextDispose(ctx);
            return Err(classify_parse_error(name, is_bitcode, message));
        }
        // Debug records (#dbg_declare) are invisible to the C API of LLVM 19:
        // convert them back into llvm.dbg.* intrinsic calls.
        if LLVMIsNewDbgInfoFormat(module) != 0 {
            LLVMSetIsNewDbgInfoFormat(module, 0);
        }
        let mut conv = Conv {
            ctx,
            td: LLVMGetModuleDataLayout(module),
            types: HashMap::default(),
            out: Module::default(),
            globals: HashMap::default(),
            pending_vars: Vec::new(),
            var_ids: HashMap::default(),
        };
        let result = conv.module(module);
        LLVMDisposeModule(module);
        LLVMContextDispose(ctx);
        // The module of a large unit leaves hundreds of MB free in the
        // loading thread's malloc arena, which the analysis (on rayon's
        // threads, with arenas of their own) does not reuse: give it back.
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        if bytes.len() > RETURN_MEMORY_ABOVE {
            libc::malloc_trim(0);
        }
        match result {
            Some(m) => Ok(m),
            None => Err(LoadError::Empty { path: name.into() }),
        }
    }
}

struct Conv {
    ctx: LLVMContextRef,
    td: LLVMTargetDataRef,
    types: HashMap<usize, TypeId>,
    out: Module,
    globals: HashMap<usize, u32>,
    /// DILocalVariables of the function being converted.
    pending_vars: Vec<LocalVar>,
    var_ids: HashMap<usize, u32>,
}

fn cstr(p: *const std::os::raw::c_char, len: usize) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: LLVM returned a pointer to `len` bytes it owns, valid while the module lives.
    let s = unsafe { std::slice::from_raw_parts(p as *const u8, len) };
    String::from_utf8_lossy(s).into_owned()
}

fn value_name(v: LLVMValueRef) -> String {
    let mut len = 0usize;
    // SAFETY: `v` is a live value; LLVMGetValueName2 returns a borrowed string of `len` bytes.
    let p = unsafe { LLVMGetValueName2(v, &mut len) };
    cstr(p, len)
}

const DW_TAG_ARRAY: u16 = 0x01;
const DW_TAG_CLASS: u16 = 0x02;
const DW_TAG_ENUM: u16 = 0x04;
const DW_TAG_MEMBER: u16 = 0x0d;
const DW_TAG_POINTER: u16 = 0x0f;
const DW_TAG_REFERENCE: u16 = 0x10;
const DW_TAG_STRUCT: u16 = 0x13;
const DW_TAG_TYPEDEF: u16 = 0x16;
const DW_TAG_UNION: u16 = 0x17;
const DW_TAG_PTR_TO_MEMBER: u16 = 0x1f;
const DW_TAG_CONST: u16 = 0x26;
const DW_TAG_VOLATILE: u16 = 0x35;
const DW_TAG_RESTRICT: u16 = 0x37;
const DW_TAG_RVALUE_REF: u16 = 0x42;
const DW_TAG_ATOMIC: u16 = 0x47;

impl Conv {
    /// Bytes one value of `ty` occupies in memory (stride in an array), 0
    /// for unsized types.
    unsafe fn size_of(&self, ty: LLVMTypeRef) -> u64 {
        // SAFETY (caller): `ty` is null or a type of the live module.
        unsafe {
            if ty.is_null() || LLVMTypeIsSized(ty) == 0 {
                return 0;
            }
            LLVMABISizeOfType(self.td, ty)
        }
    }

    /// Operands of a metadata node (null entries for null operands).
    unsafe fn md_ops(&self, md: LLVMMetadataRef) -> Vec<LLVMMetadataRef> {
        unsafe {
            if md.is_null() {
                return vec![];
            }
            // SAFETY (caller): `md` is a live MDNode of `self.ctx`; MDStrings and
            // value wrappers are excluded below because they have no operand list.
            let kind = LLVMGetMetadataKind(md);
            if matches!(
                kind,
                LLVMMetadataKind::LLVMMDStringMetadataKind
                    | LLVMMetadataKind::LLVMConstantAsMetadataMetadataKind
                    | LLVMMetadataKind::LLVMLocalAsMetadataMetadataKind
                    | LLVMMetadataKind::LLVMDistinctMDOperandPlaceholderMetadataKind
                    | LLVMMetadataKind::LLVMDIArgListMetadataKind
            ) {
                return vec![];
            }
            let v = LLVMMetadataAsValue(self.ctx, md);
            let n = LLVMGetMDNodeNumOperands(v) as usize;
            let mut vals: Vec<LLVMValueRef> = vec![ptr::null_mut(); n];
            LLVMGetMDNodeOperands(v, vals.as_mut_ptr());
            vals.into_iter()
                .map(|x| {
                    if x.is_null() {
                        ptr::null_mut()
                    } else {
                        LLVMValueAsMetadata(x)
                    }
                })
                .collect()
        }
    }

    unsafe fn md_string(&self, md: LLVMMetadataRef) -> String {
        // SAFETY (caller): `md` is null or live metadata of `self.ctx`.
        unsafe {
            if md.is_null()
                || !matches!(
                    LLVMGetMetadataKind(md),
                    LLVMMetadataKind::LLVMMDStringMetadataKind
                )
            {
                return String::new();
            }
            let v = LLVMMetadataAsValue(self.ctx, md);
            let mut len = 0u32;
            let p = LLVMGetMDString(v, &mut len);
            cstr(p, len as usize)
        }
    }

    unsafe fn file_of(&self, scope: LLVMMetadataRef) -> String {
        // SAFETY (caller): `scope` is null or a live DIScope.
        unsafe {
            if scope.is_null() {
                return String::new();
            }
            let file = LLVMDIScopeGetFile(scope);
            if file.is_null() {
                return String::new();
            }
            let mut len = 0u32;
            let name = cstr(LLVMDIFileGetFilename(file, &mut len), len as usize);
            let mut dlen = 0u32;
            let dir = cstr(LLVMDIFileGetDirectory(file, &mut dlen), dlen as usize);
            if name.starts_with('/') || dir.is_empty() {
                name
            } else {
                format!("{}/{}", dir.trim_end_matches('/'), name)
            }
        }
    }

    /// Converts a DIType, sharing nodes (types can be recursive).
    unsafe fn di_type(&mut self, md: LLVMMetadataRef) -> Option<TypeId> {
        // SAFETY (caller): `md` is null or live metadata of `self.ctx`.
        unsafe {
            if md.is_null() {
                return None;
            }
            if let Some(&t) = self.types.get(&(md as usize)) {
                return Some(t);
            }
            let kind = LLVMGetMetadataKind(md);
            let id = self.out.types.len() as TypeId;
            self.out.types.push(DiType::Other {
                name: String::new(),
            });
            self.types.insert(md as usize, id);
            let name = {
                let mut len = 0usize;
                cstr(LLVMDITypeGetName(md, &mut len), len)
            };
            let ops = self.md_ops(md);
            let op = |i: usize| ops.get(i).copied().unwrap_or(ptr::null_mut());
            let ty = match kind {
                LLVMMetadataKind::LLVMDIBasicTypeMetadataKind => DiType::Basic { name },
                LLVMMetadataKind::LLVMDIDerivedTypeMetadataKind => {
                    let tag = LLVMGetDINodeTag(md);
                    let base = self.di_type(op(3));
                    match tag {
                        DW_TAG_POINTER | DW_TAG_PTR_TO_MEMBER => DiType::Pointer { base },
                        DW_TAG_REFERENCE | DW_TAG_RVALUE_REF => DiType::Reference { base },
                        DW_TAG_TYPEDEF => DiType::Typedef { name, base },
                        DW_TAG_CONST => DiType::Qualified {
                            qualifier: "const".into(),
                            base,
                        },
                        DW_TAG_VOLATILE => DiType::Qualified {
                            qualifier: "volatile".into(),
                            base,
                        },
                        DW_TAG_RESTRICT => DiType::Qualified {
                            qualifier: "restrict".into(),
                            base,
                        },
                        DW_TAG_ATOMIC => DiType::Qualified {
                            qualifier: "_Atomic".into(),
                            base,
                        },
                        _ => DiType::Other { name },
                    }
                }
                LLVMMetadataKind::LLVMDICompositeTypeMetadataKind => {
                    let tag = LLVMGetDINodeTag(md);
                    match tag {
                        DW_TAG_ARRAY => DiType::Array {
                            base: self.di_type(op(3)),
                        },
                        DW_TAG_STRUCT | DW_TAG_CLASS | DW_TAG_UNION => {
                            let keyword = match tag {
                                DW_TAG_STRUCT => "struct",
                                DW_TAG_CLASS => "class",
                                _ => "union",
                            }
                            .to_string();
                            let mut members = Vec::new();
                            for m in self.md_ops(op(4)) {
                                if m.is_null()
                                    || !matches!(
                                        LLVMGetMetadataKind(m),
                                        LLVMMetadataKind::LLVMDIDerivedTypeMetadataKind
                                    )
                                {
                                    continue;
                                }
                                let tag = LLVMGetDINodeTag(m);
                                // Members and base classes (inheritance, 0x1c) have offsets.
                                if tag != DW_TAG_MEMBER && tag != 0x1c {
                                    continue;
                                }
                                // Static members have no offset in the object.
                                if LLVMDITypeGetFlags(m) & (1 << 12) != 0 {
                                    continue;
                                }
                                let mut len = 0usize;
                                let mut mname = cstr(LLVMDITypeGetName(m, &mut len), len);
                                let mops = self.md_ops(m);
                                let mty =
                                    self.di_type(mops.get(3).copied().unwrap_or(ptr::null_mut()));
                                if tag == 0x1c {
                                    mname = mty.map(|t| self.out.type_name(t)).unwrap_or_default();
                                }
                                members.push(Member {
                                    name: mname,
                                    offset: LLVMDITypeGetOffsetInBits(m) / 8,
                                    ty: mty,
                                    is_base: tag == 0x1c,
                                });
                            }
                            // A forward declaration (DIFlagFwdDecl) has no members
                            // here; `Module::complete_declarations` gives it those of
                            // the definition found elsewhere in the module.
                            DiType::Struct {
                                keyword,
                                name,
                                members,
                                declaration: LLVMDITypeGetFlags(md) & LLVMDIFlagFwdDecl != 0,
                                identifier: self.md_string(op(7)),
                            }
                        }
                        DW_TAG_ENUM => DiType::Basic {
                            name: if name.is_empty() {
                                "enum".into()
                            } else {
                                format!("enum {name}")
                            },
                        },
                        _ => DiType::Other { name },
                    }
                }
                LLVMMetadataKind::LLVMDISubroutineTypeMetadataKind => DiType::Other {
                    name: "function".into(),
                },
                _ => DiType::Other { name },
            };
            self.out.types[id as usize] = ty;
            Some(id)
        }
    }

    /// The linkage name (else the name) of the function whose body holds a
    /// DIGlobalVariable's `scope`, for function-static locals; `None` at
    /// file, namespace or class scope.
    unsafe fn enclosing_function(&self, mut scope: LLVMMetadataRef) -> Option<String> {
        // SAFETY (caller): `scope` is null or live metadata of `self.ctx`.
        unsafe {
            for _ in 0..64 {
                if scope.is_null() {
                    return None;
                }
                let ops = self.md_ops(scope);
                let op = |i: usize| ops.get(i).copied().unwrap_or(ptr::null_mut());
                match LLVMGetMetadataKind(scope) {
                    // DISubprogram: file, scope, name, linkage name, ...
                    LLVMMetadataKind::LLVMDISubprogramMetadataKind => {
                        let linkage = self.md_string(op(3));
                        return Some(if linkage.is_empty() {
                            self.md_string(op(2))
                        } else {
                            linkage
                        });
                    }
                    // DILexicalBlock(File): file, scope, ...
                    LLVMMetadataKind::LLVMDILexicalBlockMetadataKind
                    | LLVMMetadataKind::LLVMDILexicalBlockFileMetadataKind => scope = op(1),
                    _ => return None,
                }
            }
            None
        }
    }

    unsafe fn module(&mut self, m: LLVMModuleRef) -> Option<Module> {
        // SAFETY (caller): `m` is the live module parsed in `self.ctx`.
        unsafe {
            let mut len = 0usize;
            self.out.source_file = cstr(LLVMGetSourceFileName(m, &mut len), len);
            // Globals with their DIGlobalVariable.
            let mut g = LLVMGetFirstGlobal(m);
            while !g.is_null() {
                let idx = self.out.globals.len() as u32;
                self.globals.insert(g as usize, idx);
                let name = value_name(g);
                let mut global = Global {
                    source_name: None,
                    // Until debug info says otherwise: what the compiler made
                    // (`.str`, `__const.f.a`: private, unnamed, `llvm.` names).
                    artificial: LLVMGetLinkage(g) == llvm_sys::LLVMLinkage::LLVMPrivateLinkage
                        || name.is_empty()
                        || name.starts_with('.')
                        || name.starts_with("llvm."),
                    function: None,
                    line: 0,
                    ty: None,
                    size: if LLVMIsDeclaration(g) != 0 {
                        0
                    } else {
                        self.size_of(LLVMGlobalGetValueType(g))
                    },
                    name,
                    ir_type: {
                        let p = LLVMPrintTypeToString(LLVMGlobalGetValueType(g));
                        if p.is_null() {
                            String::new()
                        } else {
                            let s = CStr::from_ptr(p).to_string_lossy().into_owned();
                            LLVMDisposeMessage(p);
                            s
                        }
                    },
                };
                let mut n = 0usize;
                let entries = LLVMGlobalCopyAllMetadata(g, &mut n);
                let mut described = false;
                for i in 0..n as u32 {
                    let md = LLVMValueMetadataEntriesGetMetadata(entries, i);
                    if md.is_null()
                        || !matches!(
                            LLVMGetMetadataKind(md),
                            LLVMMetadataKind::LLVMDIGlobalVariableExpressionMetadataKind
                        )
                    {
                        continue;
                    }
                    let var = LLVMDIGlobalVariableExpressionGetVariable(md);
                    if var.is_null() {
                        continue;
                    }
                    described = true;
                    // DIGlobalVariable: scope, name, file, type, name, linkage name, ...
                    let ops = self.md_ops(var);
                    let op = |i: usize| ops.get(i).copied().unwrap_or(ptr::null_mut());
                    let di_name = self.md_string(op(1));
                    let linkage = self.md_string(op(5));
                    global.function = self.enclosing_function(op(0));
                    // A string literal's DIGlobalVariable has no name.
                    global.artificial = di_name.is_empty();
                    global.source_name =
                        Some(if global.function.is_none() && !linkage.is_empty() {
                            // `ns::g`, `S::count`: qualified as the program names it.
                            crate::demangle(&linkage)
                        } else {
                            di_name
                        });
                    global.line = LLVMDIVariableGetLine(var);
                    global.ty = self.di_type(op(3));
                }
                if !entries.is_null() {
                    LLVMDisposeValueMetadataEntries(entries);
                }
                if !described && !global.artificial {
                    // Declared here without debug info (`extern`, `std::cout`).
                    global.source_name = Some(crate::demangle(&global.name));
                }
                self.out.globals.push(global);
                g = LLVMGetNextGlobal(g);
            }
            let mut f = LLVMGetFirstFunction(m);
            let mut defined = 0;
            while !f.is_null() {
                let func = self.function(f);
                if !func.is_declaration {
                    defined += 1;
                }
                if func.name.starts_with("_Z") {
                    self.out.is_cxx = true;
                }
                self.out.functions.push(func);
                f = LLVMGetNextFunction(f);
            }
            if defined == 0 {
                return None;
            }
            self.out.complete_declarations(&[]);
            Some(std::mem::take(&mut self.out))
        }
    }

    unsafe fn function(&mut self, f: LLVMValueRef) -> Function {
        // SAFETY (caller): `f` is a live function of the module being converted.
        unsafe {
            let mut out = Function {
                name: value_name(f),
                ..Default::default()
            };
            let fty = LLVMGlobalGetValueType(f);
            out.returns_value =
                LLVMGetTypeKind(LLVMGetReturnType(fty)) != LLVMTypeKind::LLVMVoidTypeKind;
            let nparams = LLVMCountParams(f);
            let mut args = HashMap::default();
            for i in 0..nparams {
                let p = LLVMGetParam(f, i);
                args.insert(p as usize, i);
                out.params.push(Param {
                    is_pointer: LLVMGetTypeKind(LLVMTypeOf(p)) == LLVMTypeKind::LLVMPointerTypeKind,
                });
            }
            let sp = LLVMGetSubprogram(f);
            if !sp.is_null() {
                out.line = LLVMDISubprogramGetLine(sp);
                out.file = self.file_of(sp);
            }
            // `available_externally` bodies (glibc's inline `atol` at -O1 and
            // up, extern templates) are copies of functions defined elsewhere,
            // there for the inliner: for the analysis, calls to a library.
            if LLVMIsDeclaration(f) != 0
                || LLVMGetLinkage(f) == llvm_sys::LLVMLinkage::LLVMAvailableExternallyLinkage
            {
                out.is_declaration = true;
                return out;
            }
            // Number blocks and instructions first: operands may refer forward.
            let mut blocks = HashMap::default();
            let mut insts: HashMap<usize, InstId> = HashMap::default();
            let mut bb = LLVMGetFirstBasicBlock(f);
            let mut n = 0u32;
            while !bb.is_null() {
                blocks.insert(bb as usize, blocks.len() as BlockId);
                let mut i = LLVMGetFirstInstruction(bb);
                while !i.is_null() {
                    insts.insert(i as usize, n);
                    n += 1;
                    i = LLVMGetNextInstruction(i);
                }
                bb = LLVMGetNextBasicBlock(bb);
            }
            out.insts = Vec::with_capacity(n as usize);
            self.pending_vars.clear();
            self.var_ids.clear();
            let mut cx = FnCx {
                args,
                insts,
                extra: Vec::new(),
                consts: HashMap::default(),
                base: n,
            };
            let mut bb = LLVMGetFirstBasicBlock(f);
            let mut bi = 0u32;
            while !bb.is_null() {
                let mut block = Block::default();
                let mut i = LLVMGetFirstInstruction(bb);
                while !i.is_null() {
                    let id = out.insts.len() as InstId;
                    block.insts.push(id);
                    let inst = self.inst(i, bi, &mut cx);
                    out.insts.push(inst);
                    i = LLVMGetNextInstruction(i);
                }
                let term = LLVMGetBasicBlockTerminator(bb);
                if !term.is_null() {
                    for s in 0..LLVMGetNumSuccessors(term) {
                        let sb = LLVMGetSuccessor(term, s);
                        if let Some(&b) = blocks.get(&(sb as usize)) {
                            block.succs.push(b);
                        }
                    }
                }
                out.blocks.push(block);
                bi += 1;
                bb = LLVMGetNextBasicBlock(bb);
            }
            out.insts.extend(cx.extra);
            out.vars = std::mem::take(&mut self.pending_vars);
            out
        }
    }

    unsafe fn value(&mut self, v: LLVMValueRef, cx: &mut FnCx) -> Value {
        // SAFETY (caller): `v` is a live operand of the function being converted.
        unsafe {
            if v.is_null() {
                return Value::Other;
            }
            if let Some(&i) = cx.insts.get(&(v as usize)) {
                return Value::Inst(i);
            }
            if let Some(&a) = cx.args.get(&(v as usize)) {
                return Value::Arg(a);
            }
            if let Some(&g) = self.globals.get(&(v as usize)) {
                return Value::Global(g);
            }
            if !LLVMIsAFunction(v).is_null() {
                return Value::Func(value_name(v));
            }
            if !LLVMIsAConstantInt(v).is_null() {
                if LLVMGetIntTypeWidth(LLVMTypeOf(v)) <= 64 {
                    return Value::ConstInt(LLVMConstIntGetSExtValue(v));
                }
                return Value::Other;
            }
            if !LLVMIsAGlobalAlias(v).is_null() {
                let target = LLVMAliasGetAliasee(v);
                return self.value(target, cx);
            }
            if !LLVMIsAConstantExpr(v).is_null() {
                if let Some(&i) = cx.consts.get(&(v as usize)) {
                    return Value::Inst(i);
                }
                let id = cx.base + cx.extra.len() as u32;
                cx.consts.insert(v as usize, id);
                cx.extra.push(Inst {
                    op: Op::Other(String::new()),
                    args: vec![],
                    block: u32::MAX,
                    line: 0,
                    col: 0,
                    is_pointer: false,
                    is_void: false,
                });
                let opcode = LLVMGetConstOpcode(v);
                let inst = self.generic(v, opcode, u32::MAX, cx);
                cx.extra[(id - cx.base) as usize] = inst;
                return Value::Inst(id);
            }
            Value::Other
        }
    }

    /// Converts an instruction or constant expression whose opcode is known.
    unsafe fn generic(
        &mut self,
        v: LLVMValueRef,
        opcode: LLVMOpcode,
        block: BlockId,
        cx: &mut FnCx,
    ) -> Inst {
        // SAFETY (caller): `v` is a live instruction or constant expression.
        unsafe {
            use LLVMOpcode::*;
            let nops = LLVMGetNumOperands(v) as u32;
            let ty = LLVMTypeOf(v);
            let tk = LLVMGetTypeKind(ty);
            // At most one per operand, allocated once (a vector grown by
            // pushes holds four: a load's one argument took 128 bytes).
            let mut args = Vec::with_capacity(nops as usize);
            let op = match opcode {
                LLVMAlloca => Op::Alloca {
                    size: self.size_of(LLVMGetAllocatedType(v)),
                },
                LLVMLoad => Op::Load,
                LLVMStore => Op::Store,
                LLVMGetElementPtr => {
                    let mut steps = Vec::with_capacity(nops.saturating_sub(2) as usize);
                    let mut cur = LLVMGetGEPSourceElementType(v);
                    let elem_size = self.size_of(cur);
                    for k in 2..nops {
                        let idx = LLVMGetOperand(v, k);
                        match LLVMGetTypeKind(cur) {
                            LLVMTypeKind::LLVMStructTypeKind => {
                                let fi = if LLVMIsAConstantInt(idx).is_null() {
                                    0
                                } else {
                                    LLVMConstIntGetZExtValue(idx) as u32
                                };
                                let offset = LLVMOffsetOfElement(self.td, cur, fi);
                                steps.push(GepStep::Field { index: fi, offset });
                                cur = LLVMStructGetTypeAtIndex(cur, fi);
                            }
                            LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMVectorTypeKind => {
                                cur = LLVMGetElementType(cur);
                                steps.push(GepStep::Index {
                                    arg: k,
                                    elem_size: self.size_of(cur),
                                });
                            }
                            _ => steps.push(GepStep::Index {
                                arg: k,
                                elem_size: 0,
                            }),
                        }
                        if cur.is_null() {
                            break;
                        }
                    }
                    Op::Gep { steps, elem_size }
                }
                LLVMTrunc | LLVMZExt | LLVMSExt | LLVMFPToUI | LLVMFPToSI | LLVMUIToFP
                | LLVMSIToFP | LLVMFPTrunc | LLVMFPExt | LLVMPtrToInt | LLVMIntToPtr
                | LLVMBitCast | LLVMAddrSpaceCast | LLVMFreeze => Op::Cast,
                LLVMPHI => {
                    for k in 0..LLVMCountIncoming(v) {
                        let iv = LLVMGetIncomingValue(v, k);
                        args.push(self.value(iv, cx));
                    }
                    Op::Phi
                }
                LLVMSelect => Op::Select,
                LLVMAdd => Op::Binary { code: BinCode::Add },
                LLVMSub => Op::Binary { code: BinCode::Sub },
                LLVMMul => Op::Binary { code: BinCode::Mul },
                LLVMShl => Op::Binary { code: BinCode::Shl },
                LLVMFAdd | LLVMFSub | LLVMFMul | LLVMUDiv | LLVMSDiv | LLVMFDiv | LLVMURem
                | LLVMSRem | LLVMFRem | LLVMLShr | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor
                | LLVMFNeg => Op::Binary {
                    code: BinCode::Other,
                },
                LLVMICmp | LLVMFCmp => Op::Compare,
                LLVMCall | LLVMInvoke | LLVMCallBr => {
                    let callee = LLVMGetCalledValue(v);
                    let stripped = strip_casts(callee);
                    let name = if !LLVMIsAFunction(stripped).is_null()
                        || !LLVMIsAGlobalAlias(stripped).is_null()
                    {
                        Some(value_name(stripped))
                    } else {
                        None
                    };
                    let nargs = LLVMGetNumArgOperands(v);
                    match name.as_deref() {
                        Some("llvm.dbg.declare")
                        | Some("llvm.dbg.value")
                        | Some("llvm.dbg.assign") => {
                            let declare = name.as_deref() == Some("llvm.dbg.declare");
                            let a0 = LLVMGetOperand(v, 0);
                            let a1 = LLVMGetOperand(v, 1);
                            let var_md = LLVMValueAsMetadata(a1);
                            let name_md = self.md_ops(var_md).get(1).copied();
                            if self
                                .md_string(name_md.unwrap_or(ptr::null_mut()))
                                .is_empty()
                            {
                                // An unnamed parameter (`void f(int)`): nothing the
                                // source can name, so no variable; its slot is
                                // tracked like any other memory without debug info.
                                return Inst {
                                    op: Op::Other("unnamed variable".into()),
                                    args: vec![],
                                    block,
                                    line: 0,
                                    col: 0,
                                    is_pointer: false,
                                    is_void: true,
                                };
                            }
                            let mut val = self.md_value(a0, cx);
                            let var = self.local_var(var_md);
                            // Assignment tracking (clang at -O1 and up, what
                            // `blame cc`'s capture sees): `dbg.assign(value,
                            // var, expr, id, address, addr-expr)` names the
                            // variable's storage as `dbg.declare` does.
                            let mut declare = declare;
                            if name.as_deref() == Some("llvm.dbg.assign") && nargs > 4 {
                                let addr = self.md_value(LLVMGetOperand(v, 4), cx);
                                if matches!(addr, Value::Inst(_) | Value::Arg(_)) {
                                    val = addr;
                                    declare = true;
                                }
                            }
                            return Inst {
                                op: if declare {
                                    Op::DbgDeclare { var }
                                } else {
                                    Op::DbgValue { var }
                                },
                                args: vec![val],
                                block,
                                line: 0,
                                col: 0,
                                is_pointer: false,
                                is_void: true,
                            };
                        }
                        _ => {}
                    }
                    for k in 0..nargs {
                        args.push(self.value(LLVMGetOperand(v, k), cx));
                    }
                    Op::Call { callee: name }
                }
                LLVMBr => {
                    if LLVMIsConditional(v) != 0 {
                        args.push(self.value(LLVMGetCondition(v), cx));
                    }
                    Op::Branch
                }
                LLVMSwitch => {
                    args.push(self.value(LLVMGetOperand(v, 0), cx));
                    Op::Switch
                }
                LLVMIndirectBr => {
                    args.push(self.value(LLVMGetOperand(v, 0), cx));
                    Op::Switch
                }
                LLVMRet => Op::Ret,
                LLVMUnreachable | LLVMResume => Op::Unreachable,
                other => Op::Other(format!("{other:?}")),
            };
            if args.is_empty() && !matches!(op, Op::Phi | Op::Call { .. } | Op::Branch | Op::Switch)
            {
                for k in 0..nops {
                    args.push(self.value(LLVMGetOperand(v, k), cx));
                }
            }
            let (line, col) = if block == u32::MAX {
                (0, 0)
            } else {
                let loc = LLVMInstructionGetDebugLoc(v);
                if loc.is_null() {
                    (0, 0)
                } else {
                    (LLVMDILocationGetLine(loc), LLVMDILocationGetColumn(loc))
                }
            };
            Inst {
                op,
                args,
                block,
                line,
                col,
                is_pointer: tk == LLVMTypeKind::LLVMPointerTypeKind,
                is_void: tk == LLVMTypeKind::LLVMVoidTypeKind,
            }
        }
    }

    unsafe fn md_value(&mut self, v: LLVMValueRef, cx: &mut FnCx) -> Value {
        // SAFETY (caller): `v` is a MetadataAsValue operand of a dbg intrinsic.
        unsafe {
            if v.is_null()
                || LLVMIsAMDNode(v).is_null()
                    && LLVMGetValueKind(v) != llvm_sys::LLVMValueKind::LLVMMetadataAsValueValueKind
            {
                return Value::Other;
            }
            let md = LLVMValueAsMetadata(v);
            if md.is_null() {
                return Value::Other;
            }
            match LLVMGetMetadataKind(md) {
                LLVMMetadataKind::LLVMLocalAsMetadataMetadataKind
                | LLVMMetadataKind::LLVMConstantAsMetadataMetadataKind => {
                    let mut inner: LLVMValueRef = ptr::null_mut();
                    LLVMGetMDNodeOperands(v, &mut inner);
                    self.value(inner, cx)
                }
                _ => Value::Other,
            }
        }
    }

    unsafe fn local_var(&mut self, md: LLVMMetadataRef) -> u32 {
        // SAFETY (caller): `md` is null or a live DILocalVariable.
        unsafe {
            let key = md as usize;
            if let Some(&v) = self.var_ids.get(&key) {
                return v;
            }
            let ops = self.md_ops(md);
            let name = self.md_string(ops.get(1).copied().unwrap_or(ptr::null_mut()));
            let line = if md.is_null()
                || !matches!(
                    LLVMGetMetadataKind(md),
                    LLVMMetadataKind::LLVMDILocalVariableMetadataKind
                ) {
                0
            } else {
                LLVMDIVariableGetLine(md)
            };
            let ty = self.di_type(ops.get(3).copied().unwrap_or(ptr::null_mut()));
            let id = self.pending_vars.len() as u32;
            self.pending_vars.push(LocalVar { name, line, ty });
            self.var_ids.insert(key, id);
            id
        }
    }

    unsafe fn inst(&mut self, i: LLVMValueRef, block: BlockId, cx: &mut FnCx) -> Inst {
        // SAFETY (caller): `i` is a live instruction of the function being converted.
        unsafe {
            let opcode = LLVMGetInstructionOpcode(i);
            self.generic(i, opcode, block, cx)
        }
    }
}

struct FnCx {
    args: HashMap<usize, u32>,
    insts: HashMap<usize, InstId>,
    /// Materialized constant expressions, numbered from `base`.
    extra: Vec<Inst>,
    consts: HashMap<usize, InstId>,
    base: u32,
}

fn strip_casts(mut v: LLVMValueRef) -> LLVMValueRef {
    // SAFETY: `v` is a live value; we only follow operands of constant casts.
    unsafe {
        for _ in 0..8 {
            if v.is_null() || LLVMIsAConstantExpr(v).is_null() {
                break;
            }
            match LLVMGetConstOpcode(v) {
                LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast => v = LLVMGetOperand(v, 0),
                _ => break,
            }
        }
        v
    }
}

/// Why LLVM 19 refused a file: bitcode written by a newer LLVM names its
/// producer in the reader's message, or uses records and attributes this
/// reader does not know.
pub fn classify_parse_error(name: &str, is_bitcode: bool, message: String) -> LoadError {
    let producer_major = message
        .split("Producer: 'LLVM")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|v| v.parse::<u32>().ok());
    let newer = is_bitcode
        && (producer_major.is_some_and(|v| v > 19)
            || message.contains("Unknown attribute kind")
            || message.contains("Incompatible epoch")
            || message.contains("newer"));
    if newer {
        LoadError::NewerLlvm {
            path: name.into(),
            ours: LLVM_VERSION,
            message,
        }
    } else if is_bitcode || message.contains("expected") || message.contains("error:") {
        LoadError::Invalid {
            path: name.into(),
            message,
        }
    } else {
        LoadError::NotBitcode { path: name.into() }
    }
}
