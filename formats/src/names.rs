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

#[cfg(test)]
mod tests {
    #[test]
    fn cxx_names_demangle_and_c_names_stay() {
        assert_eq!(super::demangle("_Z3fooi"), "foo(int)");
        assert_eq!(super::demangle("main"), "main");
        assert_eq!(super::demangle("_Znot-valid"), "_Znot-valid");
    }
}
