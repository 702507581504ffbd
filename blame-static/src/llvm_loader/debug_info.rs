//! Debug information to the model: metadata operands and strings, the file
//! of a scope, debug types (`DiType`: basic, pointer, struct with members,
//! array, typedef and qualifiers), the function enclosing a scope, and the
//! local variables (`DILocalVariable`) of the function being converted.

use super::{cstr, Conv};
use crate::ir::*;
use llvm_sys::core::*;
use llvm_sys::debuginfo::*;
use llvm_sys::prelude::*;
use std::ptr;

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
    /// Operands of a metadata node (null entries for null operands).
    pub(super) unsafe fn md_ops(&self, md: LLVMMetadataRef) -> Vec<LLVMMetadataRef> {
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

    pub(super) unsafe fn md_string(&self, md: LLVMMetadataRef) -> String {
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

    pub(super) unsafe fn file_of(&self, scope: LLVMMetadataRef) -> String {
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
    pub(super) unsafe fn di_type(&mut self, md: LLVMMetadataRef) -> Option<TypeId> {
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
                    self.derived_type(md, name, op(3))
                }
                LLVMMetadataKind::LLVMDICompositeTypeMetadataKind => {
                    self.composite_type(md, name, &ops)
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

    /// A DIDerivedType named `name` whose base type is `base_md`: pointers,
    /// references, typedefs and qualifiers.
    unsafe fn derived_type(
        &mut self,
        md: LLVMMetadataRef,
        name: String,
        base_md: LLVMMetadataRef,
    ) -> DiType {
        // SAFETY (caller): `md` is a live DIDerivedType of `self.ctx`, and
        // `base_md` null or its base type.
        unsafe {
            let tag = LLVMGetDINodeTag(md);
            let base = self.di_type(base_md);
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
    }

    /// A DICompositeType named `name` of operands `ops`: arrays, structs,
    /// classes and unions with their members, enums.
    unsafe fn composite_type(
        &mut self,
        md: LLVMMetadataRef,
        name: String,
        ops: &[LLVMMetadataRef],
    ) -> DiType {
        // SAFETY (caller): `md` is a live DICompositeType of `self.ctx` and
        // `ops` its operands.
        unsafe {
            let op = |i: usize| ops.get(i).copied().unwrap_or(ptr::null_mut());
            let tag = LLVMGetDINodeTag(md);
            match tag {
                DW_TAG_ARRAY => DiType::Array {
                    base: self.di_type(op(3)),
                    dims: self.subrange_counts(op(4)),
                },
                DW_TAG_STRUCT | DW_TAG_CLASS | DW_TAG_UNION => {
                    let keyword = match tag {
                        DW_TAG_STRUCT => "struct",
                        DW_TAG_CLASS => "class",
                        _ => "union",
                    }
                    .to_string();
                    let members = self.members(op(4));
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
    }

    /// The members and base classes of a composite type's `elements` that
    /// have offsets in the object.
    /// The constant element counts of an array type's subranges
    /// (`!DISubrange(count: 9)`), outermost first; 0 for a count that is
    /// not a constant.
    unsafe fn subrange_counts(&self, elements: LLVMMetadataRef) -> Vec<u64> {
        // SAFETY (caller): `elements` is null or the live elements node of
        // a DICompositeType of `self.ctx`; a subrange is an MDNode, whose
        // constant operands come back as the constants they wrap.
        unsafe {
            let mut dims = Vec::new();
            for sr in self.md_ops(elements) {
                if sr.is_null()
                    || !matches!(
                        LLVMGetMetadataKind(sr),
                        LLVMMetadataKind::LLVMDISubrangeMetadataKind
                    )
                {
                    continue;
                }
                let v = LLVMMetadataAsValue(self.ctx, sr);
                let n = LLVMGetMDNodeNumOperands(v) as usize;
                let mut vals: Vec<LLVMValueRef> = vec![ptr::null_mut(); n];
                LLVMGetMDNodeOperands(v, vals.as_mut_ptr());
                let count = vals
                    .first()
                    .copied()
                    .filter(|c| !c.is_null() && !LLVMIsAConstantInt(*c).is_null())
                    .map(|c| LLVMConstIntGetSExtValue(c))
                    .filter(|&c| c > 0)
                    .map_or(0, |c| c as u64);
                dims.push(count);
            }
            dims
        }
    }

    unsafe fn members(&mut self, elements: LLVMMetadataRef) -> Vec<Member> {
        // SAFETY (caller): `elements` is null or the live elements node of
        // a DICompositeType of `self.ctx`.
        unsafe {
            let mut members = Vec::new();
            for m in self.md_ops(elements) {
                // Methods: kept for naming virtual calls by their slot.
                if !m.is_null()
                    && matches!(
                        LLVMGetMetadataKind(m),
                        LLVMMetadataKind::LLVMDISubprogramMetadataKind
                    )
                {
                    self.methods.note(m);
                    continue;
                }
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
                let mty = self.di_type(mops.get(3).copied().unwrap_or(ptr::null_mut()));
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
            members
        }
    }

    /// The linkage name (else the name) of the function whose body holds a
    /// DIGlobalVariable's `scope`, for function-static locals; `None` at
    /// file, namespace or class scope.
    pub(super) unsafe fn enclosing_function(&self, mut scope: LLVMMetadataRef) -> Option<String> {
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

    pub(super) unsafe fn local_var(&mut self, md: LLVMMetadataRef) -> u32 {
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
}
