//! Instructions to the model: operands as values (arguments, other
//! instructions, globals, constants, constant expressions materialized as
//! instructions), each opcode's `Op` with its GEP steps, callee and debug
//! intrinsics' variables.

use super::{value_name, Conv};
use crate::ir::*;
use crate::HashMap;
use llvm_sys::core::*;
use llvm_sys::debuginfo::*;
use llvm_sys::prelude::*;
use llvm_sys::target::LLVMOffsetOfElement;
use llvm_sys::{LLVMOpcode, LLVMTypeKind};
use std::ptr;

pub(super) struct FnCx {
    pub(super) args: HashMap<usize, u32>,
    pub(super) insts: HashMap<usize, InstId>,
    /// Materialized constant expressions, numbered from `base`.
    pub(super) extra: Vec<Inst>,
    pub(super) consts: HashMap<usize, InstId>,
    pub(super) base: u32,
}

pub(super) fn strip_casts(mut v: LLVMValueRef) -> LLVMValueRef {
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

/// The name of the function (or alias) call `v` calls, casts aside;
/// `None` for an indirect call.
unsafe fn called_function(v: LLVMValueRef) -> Option<String> {
    // SAFETY (caller): `v` is a live call instruction; its called value is
    // one of its operands.
    unsafe {
        let callee = LLVMGetCalledValue(v);
        let stripped = strip_casts(callee);
        if !LLVMIsAFunction(stripped).is_null() || !LLVMIsAGlobalAlias(stripped).is_null() {
            Some(value_name(stripped))
        } else {
            None
        }
    }
}

/// Line and column of instruction `v` (0 without a debug location).
unsafe fn debug_loc(v: LLVMValueRef) -> (u32, u32) {
    // SAFETY (caller): `v` is a live instruction of a block; its debug
    // location, if any, is owned by the module.
    unsafe {
        let loc = LLVMInstructionGetDebugLoc(v);
        if loc.is_null() {
            (0, 0)
        } else {
            (LLVMDILocationGetLine(loc), LLVMDILocationGetColumn(loc))
        }
    }
}

impl Conv {
    pub(super) unsafe fn value(&mut self, v: LLVMValueRef, cx: &mut FnCx) -> Value {
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
                LLVMGetElementPtr => self.gep(v, nops),
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
                    let name = called_function(v);
                    let nargs = LLVMGetNumArgOperands(v);
                    if let Some(inst) = self.debug_intrinsic(v, name.as_deref(), nargs, block, cx) {
                        return inst;
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
                debug_loc(v)
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

    /// A GEP's steps: struct fields with their offsets, array and vector
    /// indices with their element sizes, through the types indexed.
    unsafe fn gep(&mut self, v: LLVMValueRef, nops: u32) -> Op {
        // SAFETY (caller): `v` is a live GEP instruction or constant
        // expression of `nops` operands.
        unsafe {
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
    }

    /// A debug intrinsic (`llvm.dbg.declare`, `.value`, `.assign`) as the
    /// model's `DbgDeclare`/`DbgValue` of its variable; `None` for any
    /// other call.
    unsafe fn debug_intrinsic(
        &mut self,
        v: LLVMValueRef,
        name: Option<&str>,
        nargs: u32,
        block: BlockId,
        cx: &mut FnCx,
    ) -> Option<Inst> {
        // SAFETY (caller): `v` is a live call instruction of `nargs`
        // arguments calling `name`.
        unsafe {
            match name {
                Some("llvm.dbg.declare") | Some("llvm.dbg.value") | Some("llvm.dbg.assign") => {}
                _ => return None,
            }
            let declare = name == Some("llvm.dbg.declare");
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
                return Some(Inst {
                    op: Op::Other("unnamed variable".into()),
                    args: vec![],
                    block,
                    line: 0,
                    col: 0,
                    is_pointer: false,
                    is_void: true,
                });
            }
            let mut val = self.md_value(a0, cx);
            let var = self.local_var(var_md);
            // Assignment tracking (clang at -O1 and up, what
            // `blame cc`'s capture sees): `dbg.assign(value,
            // var, expr, id, address, addr-expr)` names the
            // variable's storage as `dbg.declare` does.
            let mut declare = declare;
            if name == Some("llvm.dbg.assign") && nargs > 4 {
                let addr = self.md_value(LLVMGetOperand(v, 4), cx);
                if matches!(addr, Value::Inst(_) | Value::Arg(_)) {
                    val = addr;
                    declare = true;
                }
            }
            Some(Inst {
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
            })
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

    pub(super) unsafe fn inst(&mut self, i: LLVMValueRef, block: BlockId, cx: &mut FnCx) -> Inst {
        // SAFETY (caller): `i` is a live instruction of the function being converted.
        unsafe {
            let opcode = LLVMGetInstructionOpcode(i);
            self.generic(i, opcode, block, cx)
        }
    }
}
