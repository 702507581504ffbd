//! Virtual calls by their method: what a call through a vtable slot calls
//! (`M_->apply(r_, z_)`), named by the method the class declares there,
//! and the functions that may answer it (every override, found by the
//! method's signature). The loader names such calls
//! (`llvm_loader::virtual_calls`); the write and read sets of the name are
//! the union of its overrides' (`analysis::write_sets`), across units too
//! (`across_units`), so a virtual call writes what a direct call to one of
//! them would.

/// A C++ method's name and parameter list without its class
/// (`apply(pcg::Vector const&, pcg::Vector&) const` for
/// `pcg::Ilu0Preconditioner::apply(..) const`): what an override shares
/// with the method it overrides. `None` for names that are no C++ member.
pub fn method_signature(linkage: &str) -> Option<String> {
    if !linkage.starts_with("_ZN") {
        return None;
    }
    blame_formats::names::method_signature(&crate::demangle(linkage))
}

/// The method's name as mangled names spell it (`5apply`), for
/// [`may_override`].
pub fn mangled_method(method: &str) -> String {
    format!("{}{method}", method.len())
}

/// True when mangled `name` may be an override of the method whose
/// mangled name part is `mangled` (a cheap test before demangling).
pub fn may_override(name: &str, mangled: &str) -> bool {
    name.starts_with("_ZN") && name.contains(mangled)
}

/// The method's own name of a signature (`apply` of `apply(..) const`).
pub fn method_name(signature: &str) -> &str {
    let open = blame_formats::names::parameter_list(signature).unwrap_or(signature.len());
    &signature[..open]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_share_the_signature_of_the_method_they_override() {
        let base = "_ZNK3pcg14Preconditioner5applyERKNS_6VectorERS1_";
        let ilu = "_ZNK3pcg18Ilu0Preconditioner5applyERKNS_6VectorERS1_";
        assert_eq!(
            method_signature(base).as_deref(),
            Some("apply(pcg::Vector const&, pcg::Vector&) const")
        );
        assert_eq!(method_signature(base), method_signature(ilu));
        // Another namespace depth and a template class: still the same.
        assert_eq!(
            method_signature("_ZN1a1b4GridIdE6smoothEv").as_deref(),
            Some("smooth()")
        );
        assert_eq!(method_signature("_Z4ddotiPKdS0_PdRd"), None);
        assert_eq!(method_signature("dot"), None);
        assert_eq!(
            method_signature("_ZN4FuncclEi").as_deref(),
            Some("operator()(int)")
        );
        assert_eq!(method_name("operator()(int)"), "operator()");
        assert_eq!(method_name("apply(pcg::Vector const&) const"), "apply");
        assert!(may_override(ilu, &mangled_method("apply")));
        assert!(!may_override(ilu, &mangled_method("name")));
    }
}
