//! Names as every stage shows them: one demangler, so the static db's keys
//! (written by the analysis) and the names post-processing and the reports
//! look up are the same.

/// Demangles a C++ (Itanium) linkage name; other names (C, Fortran) are
/// returned unchanged.
pub fn demangle(name: &str) -> String {
    if name.starts_with("_Z") {
        if let Ok(sym) = cpp_demangle::Symbol::new(name) {
            if let Ok(s) = sym.demangle() {
                return s;
            }
        }
    }
    name.to_string()
}

/// A demangled C++ method's name and parameter list without its class
/// (`apply(pcg::Vector const&, pcg::Vector&) const` for
/// `pcg::Ilu0Preconditioner::apply(..) const`): what an override shares
/// with the method it overrides. `None` for a name without a scope.
pub fn method_signature(demangled: &str) -> Option<String> {
    let open = parameter_list(demangled)?;
    let cut = last_scope_separator(&demangled[..open])?;
    Some(demangled[cut + 2..].to_string())
}

/// The byte offset of the `(` opening the parameter list of demangled
/// name `d` (past template arguments and an `operator()`).
pub fn parameter_list(d: &str) -> Option<usize> {
    let bytes = d.as_bytes();
    let mut depth = 0i32;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b'(' if depth == 0 => {
                if d[..i].ends_with("operator") && d[i..].starts_with("()") {
                    i += 2;
                    continue;
                }
                return Some(i);
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The last `::` of `qualified` outside template arguments.
fn last_scope_separator(qualified: &str) -> Option<usize> {
    let bytes = qualified.as_bytes();
    let mut depth = 0i32;
    let mut last = None;
    for i in 0..bytes.len() {
        match bytes[i] {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b':' if depth == 0
                && bytes.get(i + 1) == Some(&b':')
                && (i == 0 || bytes[i - 1] != b':') =>
            {
                last = Some(i);
            }
            _ => {}
        }
    }
    last
}

#[cfg(test)]
mod tests {
    #[test]
    fn cxx_names_demangle_and_c_names_stay() {
        assert_eq!(super::demangle("_Z3fooi"), "foo(int)");
        assert_eq!(super::demangle("main"), "main");
        assert_eq!(super::demangle("_Znot-valid"), "_Znot-valid");
    }
}
