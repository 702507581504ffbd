//! Calls through a vtable slot, named by the method a class declares at
//! that slot (`M_->apply(r_, z_)` calls `Preconditioner::apply`): the
//! loader notes the methods of the classes it converts and the indirect
//! calls whose callee is loaded from a slot of their object's vtable, and
//! once the module is converted names each call whose slot and arity fit
//! methods of one signature (`crate::virtual_methods`). Other indirect
//! calls (function pointers, ambiguous slots) stay unnamed.

use super::Conv;
use crate::ir::*;
use crate::{HashMap, HashSet};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::{LLVMABISizeOfType, LLVMPointerSize, LLVMTargetDataRef};
use std::collections::BTreeSet;
use std::ffi::CStr;

/// What the loader keeps to name virtual calls.
#[derive(Default)]
pub(super) struct VirtualCalls {
    /// The DISubprograms declared in converted classes.
    methods: Vec<LLVMMetadataRef>,
    seen: HashSet<usize>,
    /// Indirect calls through a vtable slot: (function index, instruction,
    /// slot, which arguments are pointers).
    calls: Vec<(u32, InstId, u32, Vec<bool>)>,
}

impl VirtualCalls {
    /// Keeps a method of a class being converted.
    pub(super) fn note(&mut self, method: LLVMMetadataRef) {
        if self.seen.insert(method as usize) {
            self.methods.push(method);
        }
    }

    /// Keeps indirect call `call` (instruction `id` of function `f`) if it
    /// calls through a slot of its object's vtable.
    pub(super) fn call(&mut self, call: LLVMValueRef, f: u32, id: InstId, td: LLVMTargetDataRef) {
        // SAFETY: `call` is a live call or invoke instruction of the module
        // being converted; only its operands and theirs are read.
        unsafe {
            if let Some(slot) = vtable_slot(call, td) {
                let pointers = (0..LLVMGetNumArgOperands(call))
                    .map(|k| {
                        LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(call, k)))
                            == llvm_sys::LLVMTypeKind::LLVMPointerTypeKind
                    })
                    .collect();
                self.calls.push((f, id, slot, pointers));
            }
        }
    }
}

/// The vtable slot `call` calls through: its callee is loaded from
/// `vtable + 8 k`, the vtable loaded from the object passed as `this`
/// (the first argument, or the second after a hidden result pointer).
unsafe fn vtable_slot(call: LLVMValueRef, td: LLVMTargetDataRef) -> Option<u32> {
    // SAFETY (caller): `call` is a live call instruction; every value read
    // here is one of its operands or an operand of those.
    unsafe {
        let callee = LLVMGetCalledValue(call);
        if callee.is_null() || LLVMIsALoadInst(callee).is_null() {
            return None;
        }
        let slot_addr = LLVMGetOperand(callee, 0);
        let (vtable, offset) = if !LLVMIsAGetElementPtrInst(slot_addr).is_null() {
            if LLVMGetNumOperands(slot_addr) != 2 {
                return None;
            }
            let index = LLVMGetOperand(slot_addr, 1);
            if LLVMIsAConstantInt(index).is_null() {
                return None;
            }
            let k = LLVMConstIntGetSExtValue(index);
            let size = LLVMABISizeOfType(td, LLVMGetGEPSourceElementType(slot_addr)) as i64;
            (LLVMGetOperand(slot_addr, 0), k.checked_mul(size)?)
        } else {
            (slot_addr, 0)
        };
        if LLVMIsALoadInst(vtable).is_null() {
            return None;
        }
        let object = LLVMGetOperand(vtable, 0);
        let nargs = LLVMGetNumArgOperands(call);
        if !(0..nargs.min(2)).any(|k| LLVMGetOperand(call, k) == object) {
            return None;
        }
        let word = LLVMPointerSize(td) as i64;
        if offset < 0 || word == 0 || offset % word != 0 {
            return None;
        }
        u32::try_from(offset / word).ok()
    }
}

/// A virtual method a class declares: its vtable slot, linkage name and
/// the identifier of its class (`_ZTSN3pcg14PreconditionerE`).
struct VirtualMethod {
    slot: u32,
    name: String,
    class: String,
}

/// `virtualIndex` and `linkageName` of a printed DISubprogram.
fn slot_and_name(printed: &str) -> Option<(u32, String)> {
    let after = |key: &str| printed.find(key).map(|i| &printed[i + key.len()..]);
    let index = after("virtualIndex: ")?;
    let end = index
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(index.len());
    let slot = index[..end].parse().ok()?;
    let name = after("linkageName: \"")?;
    let name = &name[..name.find('"')?];
    Some((slot, name.to_string()))
}

impl Conv {
    /// Names the module's calls through vtable slots by the methods
    /// declared there: among the classes' virtual methods at that slot
    /// whose signature takes the call's arguments, all of one signature
    /// (overrides of one method); the name is declared in the module and
    /// listed in `Module::virtual_callees`.
    pub(super) unsafe fn name_virtual_calls(&mut self, module: LLVMModuleRef) {
        if self.methods.calls.is_empty() {
            return;
        }
        // SAFETY (caller): `module` is the live module being converted.
        let virtuals = unsafe { self.virtual_methods() };
        let returns = unsafe { self.return_types(module) };
        let mut declared: BTreeSet<String> =
            self.out.functions.iter().map(|f| f.name.clone()).collect();
        let calls = std::mem::take(&mut self.methods.calls);
        let mut declared_of: HashMap<u32, HashMap<InstId, u32>> = HashMap::default();
        for (f, id, slot, pointers) in calls {
            let Some(func) = self.out.functions.get(f as usize) else {
                continue;
            };
            let inst = &func.insts[id as usize];
            let nargs = inst.args.len();
            // The classes the object may be: its static class and its bases.
            let classes: Option<BTreeSet<&str>> = (0..nargs.min(2))
                .find_map(|k| {
                    let declared = declared_of.entry(f).or_insert_with(|| declared_slots(func));
                    object_class(&self.out, func, &inst.args[k], &returns, declared, 0)
                })
                .map(|c| class_and_bases(&self.out, c));
            let fits: Vec<&String> = virtuals
                .iter()
                .filter(|m| m.slot == slot)
                .filter(|m| {
                    classes
                        .as_ref()
                        .is_none_or(|cs| cs.contains(m.class.as_str()))
                })
                .filter(|m| crate::library_models::const_pointer_params(&m.name, nargs).is_some())
                .map(|m| &m.name)
                .collect();
            let signatures: BTreeSet<Option<String>> = fits
                .iter()
                .map(|n| crate::virtual_methods::method_signature(n))
                .collect();
            let (Some(name), 1) = (fits.iter().min(), signatures.len()) else {
                continue;
            };
            if signatures.contains(&None) {
                continue;
            }
            let name = (*name).clone();
            self.out.functions[f as usize].insts[id as usize].op = Op::Call {
                callee: Some(name.clone()),
            };
            self.declare_callee(&mut declared, &name, &pointers);
            self.out.virtual_callees.insert(name);
        }
    }

    /// The virtual methods of the converted classes.
    unsafe fn virtual_methods(&mut self) -> Vec<VirtualMethod> {
        // SAFETY (caller): every kept method is a live DISubprogram of
        // `self.ctx`; the printed string is ours to free.
        unsafe {
            let methods = self.methods.methods.clone();
            methods
                .into_iter()
                .filter_map(|m| {
                    let p = LLVMPrintValueToString(LLVMMetadataAsValue(self.ctx, m));
                    if p.is_null() {
                        return None;
                    }
                    let s = CStr::from_ptr(p).to_string_lossy().into_owned();
                    LLVMDisposeMessage(p);
                    let (slot, name) = slot_and_name(&s)?;
                    // DISubprogram: file, scope (its class), ...;
                    // DICompositeType's identifier is operand 7.
                    let scope = self.md_ops(m).get(1).copied()?;
                    let class = self.md_string(self.md_ops(scope).get(7).copied()?);
                    Some(VirtualMethod { slot, name, class })
                })
                .collect()
        }
    }

    /// The declared return type of each function defined in `module` that
    /// a virtual call's object comes from (`unique_ptr::operator->`).
    unsafe fn return_types(&mut self, module: LLVMModuleRef) -> HashMap<String, TypeId> {
        let mut wanted: BTreeSet<String> = BTreeSet::new();
        for (f, id, _, _) in &self.methods.calls {
            let func = &self.out.functions[*f as usize];
            for a in func.insts[*id as usize].args.iter().take(2) {
                if let Value::Inst(i) = a {
                    if let Op::Call { callee: Some(c) } = &func.insts[*i as usize].op {
                        wanted.insert(c.clone());
                    }
                }
            }
        }
        let mut out = HashMap::default();
        // SAFETY (caller): `module` is live; subprograms and their types are
        // metadata of `self.ctx`.
        unsafe {
            for name in wanted {
                let Ok(c) = std::ffi::CString::new(name.as_str()) else {
                    continue;
                };
                let f = LLVMGetNamedFunction(module, c.as_ptr());
                if f.is_null() {
                    continue;
                }
                let sp = llvm_sys::debuginfo::LLVMGetSubprogram(f);
                // DISubprogram operand 4: its DISubroutineType, whose
                // operand 3 lists the return type first.
                let Some(&ty) = self.md_ops(sp).get(4) else {
                    continue;
                };
                let Some(&types) = self.md_ops(ty).get(3) else {
                    continue;
                };
                let Some(&ret) = self.md_ops(types).first() else {
                    continue;
                };
                if let Some(t) = self.di_type(ret) {
                    out.insert(name, t);
                }
            }
        }
        out
    }
}

/// The class a pointer value points to, from the declared types of where
/// it was loaded from (a local, a parameter's slot, a member, a global) or
/// of the function returning it.
fn object_class(
    m: &Module,
    f: &Function,
    v: &Value,
    returns: &HashMap<String, TypeId>,
    declared: &HashMap<InstId, u32>,
    depth: u32,
) -> Option<TypeId> {
    if depth > 8 {
        return None;
    }
    let Value::Inst(i) = v else {
        return None;
    };
    let inst = &f.insts[*i as usize];
    match &inst.op {
        Op::Load => pointee(
            m,
            slot_type(m, f, &inst.args[0], returns, declared, depth + 1),
        ),
        Op::Call { callee: Some(c) } => pointee(m, returns.get(c).copied()),
        Op::Cast => object_class(m, f, &inst.args[0], returns, declared, depth + 1),
        _ => None,
    }
}

/// The declared type of the memory at address `v`.
fn slot_type(
    m: &Module,
    f: &Function,
    v: &Value,
    returns: &HashMap<String, TypeId>,
    declared: &HashMap<InstId, u32>,
    depth: u32,
) -> Option<TypeId> {
    match v {
        Value::Global(g) => m.globals.get(*g as usize)?.ty,
        Value::Inst(i) => {
            let inst = &f.insts[*i as usize];
            match &inst.op {
                Op::Alloca { .. } => f.vars.get(*declared.get(i)? as usize)?.ty,
                Op::Gep { steps, .. } => {
                    let mut t = object_class(m, f, &inst.args[0], returns, declared, depth + 1)?;
                    for step in steps {
                        let GepStep::Field { index, offset } = step else {
                            return None;
                        };
                        t = m.member_at(Some(t), *offset, *index)?.ty?;
                    }
                    Some(t)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The local variable each stack slot of `f` holds (`llvm.dbg.declare`),
/// once per function.
fn declared_slots(f: &Function) -> HashMap<InstId, u32> {
    let mut out = HashMap::default();
    for d in &f.insts {
        if let (Op::DbgDeclare { var }, Some(Value::Inst(slot))) = (&d.op, d.args.first()) {
            // The first declaration of a slot names it.
            out.entry(*slot).or_insert(*var);
        }
    }
    out
}

/// What a pointer or reference type points to.
fn pointee(m: &Module, t: Option<TypeId>) -> Option<TypeId> {
    match m.resolve(t).map(|t| m.ty(t)) {
        Some(DiType::Pointer { base }) | Some(DiType::Reference { base }) => m.resolve(*base),
        _ => None,
    }
}

/// The identifiers of class `c` and of its bases, transitively.
fn class_and_bases(m: &Module, c: TypeId) -> BTreeSet<&str> {
    let mut out = BTreeSet::new();
    let mut todo = vec![c];
    while let Some(t) = todo.pop() {
        if let Some(DiType::Struct {
            identifier,
            members,
            ..
        }) = m.resolve(Some(t)).map(|t| m.ty(t))
        {
            if out.insert(identifier.as_str()) {
                todo.extend(members.iter().filter(|b| b.is_base).filter_map(|b| b.ty));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_printed_method_gives_its_slot_and_linkage_name() {
        let printed = r#"<0x1> = !DISubprogram(name: "apply", linkageName: "_ZNK1P5applyERK1VRS0_", scope: <0x2>, file: <0x3>, line: 2, type: <0x4>, scopeLine: 2, containingType: <0x2>, virtualIndex: 2, flags: DIFlagPrototyped, spFlags: DISPFlagPureVirtual)"#;
        assert_eq!(
            slot_and_name(printed),
            Some((2, "_ZNK1P5applyERK1VRS0_".to_string()))
        );
        let plain =
            r#"<0x1> = !DISubprogram(name: "size", linkageName: "_ZNK1V4sizeEv", scope: <0x2>)"#;
        assert_eq!(slot_and_name(plain), None);
    }
}
