//! Calls through function pointers, named by the slot the pointer is
//! loaded from (`crate::function_pointers`): a struct's field
//! (`v->ops->linear_sum(..)`, `nm->resid(..)`: `*NVectorOps+24`) or a
//! parameter (`atimes(..)` in `GmresSolve`: `*GmresSolve#2`), and what the
//! module stores in such slots: function addresses in tables
//! (`static const NVectorOps par_ops = {par_clone, ..}`), stores
//! (`nm->resid = F`) and arguments (`GmresSolve(.., newton_jtimes, ..)`).
//!
//! A field is known by the struct-path TBAA tag of the load or store
//! (`-O1` and up: the base struct's name, or for an anonymous struct a
//! fingerprint of its layout, and the field's offset) or, without TBAA
//! (`-O0`), by a GEP over a named struct type.

use super::instructions::strip_casts;
use super::{value_name, Conv};
use crate::function_pointers::{param_slot, UNFOLLOWED};
use crate::ir::*;
use crate::HashMap;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::{LLVMABISizeOfType, LLVMOffsetOfElement, LLVMTargetDataRef};
use llvm_sys::LLVMTypeKind;
use std::collections::BTreeSet;
use std::hash::Hasher;

/// What the loader keeps to name calls through function pointers.
#[derive(Default)]
pub(super) struct FunctionPointers {
    /// (slot, function name, slot or `?`) of the whole module.
    facts: BTreeSet<(String, String)>,
    /// Calls through a slot: (function index, instruction, slot, which
    /// arguments are pointers).
    calls: Vec<(u32, InstId, String, Vec<bool>)>,
    tbaa_kind: Option<u32>,
    /// Per stack slot asked about, the parameter spilled to it: a slot is
    /// loaded once per use (`this.addr` before each of thousands of method
    /// calls), and its uses are walked once.
    spilled: HashMap<usize, Option<u32>>,
}

/// The name of a struct as clang's IR types spell it, without the kind
/// and the suffix telling apart types of one name (`struct.NVectorOps.12`).
fn struct_name(ir: &str) -> &str {
    let s = ir
        .strip_prefix("struct.")
        .or_else(|| ir.strip_prefix("class."))
        .or_else(|| ir.strip_prefix("union."))
        .unwrap_or(ir);
    match s.rsplit_once('.') {
        Some((head, tail)) if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) => head,
        _ => s,
    }
}

impl Conv {
    fn tbaa_kind(&mut self) -> u32 {
        if let Some(k) = self.pointers.tbaa_kind {
            return k;
        }
        // SAFETY: `self.ctx` is the live context; the name is 4 bytes.
        let k = unsafe { LLVMGetMDKindIDInContext(self.ctx, c"tbaa".as_ptr(), 4) };
        self.pointers.tbaa_kind = Some(k);
        k
    }

    /// The field slot load or store `inst` accesses: from its TBAA tag
    /// (struct name or layout, and offset), else from a GEP over a named
    /// struct type its address is.
    unsafe fn field_slot(&mut self, inst: LLVMValueRef, address: LLVMValueRef) -> Option<String> {
        let kind = self.tbaa_kind();
        // SAFETY (caller): `inst` is a live load or store and `address`
        // its address operand; metadata read is owned by the module.
        unsafe {
            let tag = LLVMGetMetadata(inst, kind);
            if !tag.is_null() {
                return self.tbaa_slot(tag);
            }
            gep_slot(address, self.td)
        }
    }

    /// `*Name+offset` of a struct-path TBAA tag `!{base, access, offset}`
    /// whose base is a struct (not the access type itself).
    unsafe fn tbaa_slot(&self, tag: LLVMValueRef) -> Option<String> {
        // SAFETY (caller): `tag` is a live MDNode of `self.ctx` as a value.
        unsafe {
            let ops = md_values(tag);
            let (&base, &access) = (ops.first()?, ops.get(1)?);
            if base == access || ops.len() < 3 || LLVMIsAConstantInt(ops[2]).is_null() {
                return None;
            }
            let offset = LLVMConstIntGetZExtValue(ops[2]);
            let base_ops = md_values(base);
            let name = md_string(*base_ops.first()?);
            let name = if name.is_empty() {
                // An anonymous struct (`typedef struct { .. } NewtonMem;`):
                // its layout, the same in every unit including the header.
                let mut h = twox_hash::XxHash64::with_seed(0);
                for pair in base_ops[1..].chunks(2) {
                    let member = md_values(pair[0]);
                    h.write(
                        md_string(member.first().copied().unwrap_or(std::ptr::null_mut()))
                            .as_bytes(),
                    );
                    if let Some(&o) = pair.get(1).filter(|o| !LLVMIsAConstantInt(**o).is_null()) {
                        h.write_u64(LLVMConstIntGetZExtValue(o));
                    }
                }
                format!("anon.{:08x}", h.finish() as u32)
            } else {
                name
            };
            Some(format!("*{name}+{offset}"))
        }
    }

    /// Keeps what instruction `i` of function `f` (number `fi`, its
    /// arguments `args`) says about function pointers: a function address
    /// stored in a field, handed to a call, or a call through a slot.
    pub(super) unsafe fn note_function_pointers(
        &mut self,
        i: LLVMValueRef,
        fname: &str,
        fi: u32,
        id: InstId,
        args: &HashMap<usize, u32>,
    ) {
        // SAFETY (caller): `i` is a live instruction of the function being
        // converted; only its operands and theirs are read.
        unsafe {
            if !LLVMIsAStoreInst(i).is_null() {
                let value = LLVMGetOperand(i, 0);
                if LLVMGetTypeKind(LLVMTypeOf(value)) != LLVMTypeKind::LLVMPointerTypeKind {
                    return;
                }
                let Some(slot) = self.field_slot(i, LLVMGetOperand(i, 1)) else {
                    return;
                };
                for source in self.sources(value, fname, args, 0) {
                    self.pointers.facts.insert((slot.clone(), source));
                }
            } else if !LLVMIsACallInst(i).is_null() || !LLVMIsAInvokeInst(i).is_null() {
                let callee = strip_casts(LLVMGetCalledValue(i));
                let n = LLVMGetNumArgOperands(i);
                if !LLVMIsAFunction(callee).is_null() {
                    let g = value_name(callee);
                    if g.starts_with("llvm.") {
                        return;
                    }
                    for k in 0..n {
                        let a = strip_casts(LLVMGetOperand(i, k));
                        // Only what is surely a function pointer: a
                        // function, a parameter, a slot's value.
                        if LLVMIsAFunction(a).is_null()
                            && LLVMIsAArgument(a).is_null()
                            && LLVMIsALoadInst(a).is_null()
                        {
                            continue;
                        }
                        if LLVMGetTypeKind(LLVMTypeOf(a)) != LLVMTypeKind::LLVMPointerTypeKind {
                            continue;
                        }
                        for source in self.sources(a, fname, args, 0) {
                            if source != UNFOLLOWED {
                                self.pointers.facts.insert((param_slot(&g, k), source));
                            }
                        }
                    }
                } else if LLVMIsAInlineAsm(callee).is_null() {
                    if let Some(slot) = self.callee_slot(callee, fname, args) {
                        let pointers = (0..n)
                            .map(|k| {
                                LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(i, k)))
                                    == LLVMTypeKind::LLVMPointerTypeKind
                            })
                            .collect();
                        self.pointers.calls.push((fi, id, slot, pointers));
                    }
                }
            }
        }
    }

    /// `spilled_param` of `alloca`, each slot's uses walked once.
    unsafe fn spilled(&mut self, alloca: LLVMValueRef, args: &HashMap<usize, u32>) -> Option<u32> {
        if let Some(&k) = self.pointers.spilled.get(&(alloca as usize)) {
            return k;
        }
        // SAFETY (caller): `alloca` is a live alloca of the function being
        // converted (the module outlives the loader's maps).
        let k = unsafe { spilled_param(alloca, args) };
        self.pointers.spilled.insert(alloca as usize, k);
        k
    }

    /// The slot a called pointer comes from: a parameter, a field, or (at
    /// `-O0`) the stack slot a parameter was spilled to.
    unsafe fn callee_slot(
        &mut self,
        callee: LLVMValueRef,
        fname: &str,
        args: &HashMap<usize, u32>,
    ) -> Option<String> {
        // SAFETY (caller): `callee` is a live operand of a call.
        unsafe {
            if let Some(&k) = args.get(&(callee as usize)) {
                return Some(param_slot(fname, k));
            }
            if LLVMIsALoadInst(callee).is_null() {
                return None;
            }
            let address = LLVMGetOperand(callee, 0);
            if !LLVMIsAAllocaInst(address).is_null() {
                return self.spilled(address, args).map(|k| param_slot(fname, k));
            }
            self.field_slot(callee, address)
        }
    }

    /// Where pointer `v` comes from, as slot facts: a function, a
    /// parameter's slot, a field's slot, or `?`.
    unsafe fn sources(
        &mut self,
        v: LLVMValueRef,
        fname: &str,
        args: &HashMap<usize, u32>,
        depth: u32,
    ) -> Vec<String> {
        // SAFETY (caller): `v` is a live value of the function being converted.
        unsafe {
            let v = strip_casts(v);
            if !LLVMIsAFunction(v).is_null() {
                return vec![value_name(v)];
            }
            if let Some(&k) = args.get(&(v as usize)) {
                return vec![param_slot(fname, k)];
            }
            if !LLVMIsAConstantPointerNull(v).is_null() || !LLVMIsAUndefValue(v).is_null() {
                return vec![];
            }
            if !LLVMIsALoadInst(v).is_null() {
                let address = LLVMGetOperand(v, 0);
                if !LLVMIsAAllocaInst(address).is_null() {
                    if let Some(k) = self.spilled(address, args) {
                        return vec![param_slot(fname, k)];
                    }
                }
                return vec![self
                    .field_slot(v, address)
                    .unwrap_or_else(|| UNFOLLOWED.to_string())];
            }
            if depth < 4 && (!LLVMIsAPHINode(v).is_null() || !LLVMIsASelectInst(v).is_null()) {
                let first = if LLVMIsASelectInst(v).is_null() { 0 } else { 1 };
                let mut out = Vec::new();
                for k in first..LLVMGetNumOperands(v) as u32 {
                    out.extend(self.sources(LLVMGetOperand(v, k), fname, args, depth + 1));
                }
                return out;
            }
            if !LLVMIsACallInst(v).is_null() || !LLVMIsAInvokeInst(v).is_null() {
                return vec![UNFOLLOWED.to_string()];
            }
            // Allocas, GEPs, globals: data, not functions.
            vec![]
        }
    }

    /// What the module's global initializers store in struct fields: each
    /// function address in a constant struct (`NVectorOps par_ops =
    /// {par_clone, ..}`), tables of them and structs nested in them.
    pub(super) unsafe fn note_initializer(&mut self, g: LLVMValueRef) {
        // SAFETY (caller): `g` is a live global of the module.
        unsafe {
            let init = LLVMGetInitializer(g);
            if !init.is_null() {
                self.constant_facts(init, 0);
            }
        }
    }

    unsafe fn constant_facts(&mut self, c: LLVMValueRef, depth: u32) {
        if depth > 8 {
            return;
        }
        // SAFETY (caller): `c` is a live constant of the module.
        unsafe {
            let ty = LLVMTypeOf(c);
            match LLVMGetTypeKind(ty) {
                LLVMTypeKind::LLVMStructTypeKind => {
                    let p = LLVMGetStructName(ty);
                    let name = if p.is_null() {
                        String::new()
                    } else {
                        struct_name(&std::ffi::CStr::from_ptr(p).to_string_lossy()).to_string()
                    };
                    for k in 0..LLVMCountStructElementTypes(ty) {
                        let e = LLVMGetAggregateElement(c, k);
                        if e.is_null() {
                            continue;
                        }
                        let e = strip_casts(e);
                        if !LLVMIsAFunction(e).is_null() {
                            if !name.is_empty() {
                                let offset = LLVMOffsetOfElement(self.td, ty, k);
                                self.pointers
                                    .facts
                                    .insert((format!("*{name}+{offset}"), value_name(e)));
                            }
                        } else {
                            self.constant_facts(e, depth + 1);
                        }
                    }
                }
                LLVMTypeKind::LLVMArrayTypeKind => {
                    let n = LLVMGetArrayLength2(ty).min(4096);
                    for k in 0..n as u32 {
                        let e = LLVMGetAggregateElement(c, k);
                        if !e.is_null() {
                            self.constant_facts(e, depth + 1);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// Names the module's calls through slots by their slot (a declared
    /// function of that name) and keeps the module's slot facts in
    /// `Module::function_pointers`.
    pub(super) fn name_pointer_calls(&mut self) {
        let mut declared: BTreeSet<String> =
            self.out.functions.iter().map(|f| f.name.clone()).collect();
        for (f, id, slot, pointers) in std::mem::take(&mut self.pointers.calls) {
            let Some(func) = self.out.functions.get_mut(f as usize) else {
                continue;
            };
            let Some(inst) = func.insts.get_mut(id as usize) else {
                continue;
            };
            if !matches!(inst.op, Op::Call { callee: None }) {
                continue;
            }
            inst.op = Op::Call {
                callee: Some(slot.clone()),
            };
            self.declare_callee(&mut declared, &slot, &pointers);
        }
        self.out.function_pointers = std::mem::take(&mut self.pointers.facts)
            .into_iter()
            .collect();
    }
}

/// The operands of metadata node `v` (as values: constants are
/// themselves, strings and nodes are metadata as values); none for
/// anything else.
unsafe fn md_values(v: LLVMValueRef) -> Vec<LLVMValueRef> {
    // SAFETY (caller): `v` is null or a live value.
    unsafe {
        if v.is_null() || LLVMIsAMDNode(v).is_null() {
            return vec![];
        }
        let n = LLVMGetMDNodeNumOperands(v) as usize;
        let mut out = vec![std::ptr::null_mut(); n];
        LLVMGetMDNodeOperands(v, out.as_mut_ptr());
        out
    }
}

/// The text of metadata string `v` (empty for anything else).
unsafe fn md_string(v: LLVMValueRef) -> String {
    // SAFETY (caller): `v` is null or a live value.
    unsafe {
        if v.is_null() || LLVMIsAMDString(v).is_null() {
            return String::new();
        }
        let mut len = 0u32;
        let p = LLVMGetMDString(v, &mut len);
        super::cstr(p, len as usize)
    }
}

/// The field slot of a GEP over a named struct with constant indices
/// (`-O0`): the innermost struct stepped into and the field's offset in it.
unsafe fn gep_slot(address: LLVMValueRef, td: LLVMTargetDataRef) -> Option<String> {
    // SAFETY (caller): `address` is a live value; only a GEP's operands
    // and types are read.
    unsafe {
        if LLVMIsAGetElementPtrInst(address).is_null() && LLVMIsAConstantExpr(address).is_null() {
            return None;
        }
        if !LLVMIsAConstantExpr(address).is_null()
            && LLVMGetConstOpcode(address) != llvm_sys::LLVMOpcode::LLVMGetElementPtr
        {
            return None;
        }
        let mut ty = LLVMGetGEPSourceElementType(address);
        let n = LLVMGetNumOperands(address);
        let mut slot: Option<(LLVMTypeRef, u64)> = None;
        for k in 2..n {
            let index = LLVMGetOperand(address, k as u32);
            if LLVMIsAConstantInt(index).is_null() {
                return None;
            }
            let x = LLVMConstIntGetZExtValue(index);
            match LLVMGetTypeKind(ty) {
                LLVMTypeKind::LLVMStructTypeKind => {
                    slot = Some((ty, LLVMOffsetOfElement(td, ty, x as u32)));
                    ty = LLVMStructGetTypeAtIndex(ty, x as u32);
                }
                LLVMTypeKind::LLVMArrayTypeKind => {
                    let e = LLVMGetElementType(ty);
                    if let Some((_, o)) = &mut slot {
                        *o += x * LLVMABISizeOfType(td, e);
                    }
                    ty = e;
                }
                _ => return None,
            }
        }
        let (st, offset) = slot?;
        let p = LLVMGetStructName(st);
        if p.is_null() {
            return None;
        }
        let name = struct_name(&std::ffi::CStr::from_ptr(p).to_string_lossy()).to_string();
        Some(format!("*{name}+{offset}"))
    }
}

/// The parameter a stack slot holds at `-O0` (`%atimes.addr`): its only
/// store stores argument `k`.
unsafe fn spilled_param(alloca: LLVMValueRef, args: &HashMap<usize, u32>) -> Option<u32> {
    // SAFETY (caller): `alloca` is a live alloca; its uses are live.
    unsafe {
        let mut found = None;
        let mut u = LLVMGetFirstUse(alloca);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            if !LLVMIsAStoreInst(user).is_null() {
                if LLVMGetOperand(user, 1) != alloca {
                    return None;
                }
                let k = *args.get(&(LLVMGetOperand(user, 0) as usize))?;
                if found.replace(k).is_some_and(|j| j != k) {
                    return None;
                }
            }
            u = LLVMGetNextUse(u);
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn struct_names_lose_their_kind_and_uniquing_suffix() {
        assert_eq!(struct_name("struct.NVectorOps"), "NVectorOps");
        assert_eq!(struct_name("struct.NVectorOps.12"), "NVectorOps");
        assert_eq!(struct_name("class.pcg::Solver"), "pcg::Solver");
        assert_eq!(struct_name("struct.v2.x"), "v2.x");
    }
}
