//! Which debug-info classes are views and handles: small classes of numbers
//! and pointers (an iterator, a row view), and handles to shared storage
//! (a `View<T>` of a `shared_ptr`), whose copies are the same data.

use crate::ir::*;

/// A small class of numbers and pointers only (an iterator, a row view, a
/// pair of an index and a value): no memory of its own to speak of. Or a
/// handle to shared storage (a `View<T>` of a `std::shared_ptr<T>`, a raw
/// pointer into it, extents and a label): a copy of it is the same data.
pub(super) fn is_view_type(m: &Module, t: Option<crate::ir::TypeId>) -> bool {
    let Some(t) = m.resolve(t) else { return false };
    let DiType::Struct {
        members,
        declaration: false,
        ..
    } = m.ty(t)
    else {
        return false;
    };
    let kind = |mb: &crate::ir::Member| m.resolve(mb.ty).map(|x| m.ty(x));
    let small = members.len() <= 4
        && members.iter().all(|mb| {
            matches!(
                kind(mb),
                Some(DiType::Basic { .. }) | Some(DiType::Pointer { .. })
            )
        });
    let shared = |mb: &crate::ir::Member| {
        let name = m.type_name_opt(mb.ty);
        let name = name
            .trim_start_matches("const ")
            .trim_start_matches("std::");
        name.starts_with("shared_ptr<")
    };
    let handle = members.len() <= 6
        && members.iter().any(shared)
        && members
            .iter()
            .any(|mb| matches!(kind(mb), Some(DiType::Pointer { .. })));
    !members.is_empty() && (small || handle)
}

/// A view type (`is_view_type`) that points somewhere (a pointer member):
/// writes through a copy of it reach the memory the original does, unlike a
/// copy of a small record of numbers.
pub(super) fn is_handle_type(m: &Module, t: Option<crate::ir::TypeId>) -> bool {
    is_view_type(m, t)
        && matches!(m.resolve(t).map(|t| m.ty(t)), Some(DiType::Struct { members, .. })
        if members.iter().any(|mb| matches!(
            m.resolve(mb.ty).map(|x| m.ty(x)),
            Some(DiType::Pointer { .. })
        )))
}
