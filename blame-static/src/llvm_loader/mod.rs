//! The only module that talks to LLVM: parses bitcode or textual IR with
//! llvm-sys and converts the module into the plain model of [`crate::ir`].
//! Every `unsafe` block of the crate is here.

#![deny(unsafe_op_in_unsafe_fn)]

mod debug_info;
mod function_pointers;
mod instructions;
mod virtual_calls;

use instructions::FnCx;

use crate::ir::*;
use crate::HashMap;
use llvm_sys::core::*;
use llvm_sys::debuginfo::*;
use llvm_sys::ir_reader::LLVMParseIRInContext;
use llvm_sys::prelude::*;
use llvm_sys::target::{LLVMABISizeOfType, LLVMGetModuleDataLayout, LLVMTargetDataRef};
use llvm_sys::LLVMTypeKind;
use std::collections::BTreeSet;
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
            methods: Default::default(),
            pointers: Default::default(),
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
    /// Classes' methods and the calls through vtable slots, named once
    /// every function is converted.
    methods: virtual_calls::VirtualCalls,
    /// Calls through function pointers and what is stored in their slots.
    pointers: function_pointers::FunctionPointers,
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

impl Conv {
    /// Declares `name`, a callee a call is named by (a virtual method, a
    /// function-pointer slot), once: a function without a body whose
    /// parameters are pointers where `pointers` says.
    fn declare_callee(&mut self, declared: &mut BTreeSet<String>, name: &str, pointers: &[bool]) {
        if declared.insert(name.to_string()) {
            self.out.functions.push(Function {
                name: name.to_string(),
                params: pointers
                    .iter()
                    .map(|&is_pointer| Param {
                        is_pointer,
                        sret: false,
                    })
                    .collect(),
                is_declaration: true,
                ..Default::default()
            });
        }
    }

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
                self.note_initializer(g);
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
            self.name_virtual_calls(m);
            self.name_pointer_calls();
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
            let sret = LLVMGetEnumAttributeKindForName(c"sret".as_ptr(), 4);
            for i in 0..nparams {
                let p = LLVMGetParam(f, i);
                args.insert(p as usize, i);
                out.params.push(Param {
                    is_pointer: LLVMGetTypeKind(LLVMTypeOf(p)) == LLVMTypeKind::LLVMPointerTypeKind,
                    // Attribute index i + 1 is parameter i's.
                    sret: !LLVMGetEnumAttributeAtIndex(f, i + 1, sret).is_null(),
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
                    let fi = self.out.functions.len() as u32;
                    if matches!(inst.op, Op::Call { callee: None }) {
                        self.methods.call(i, fi, id, self.td);
                    }
                    if matches!(inst.op, Op::Call { .. } | Op::Store) {
                        self.note_function_pointers(i, &out.name, fi, id, &cx.args);
                    }
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
