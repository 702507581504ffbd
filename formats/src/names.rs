//! Names as every stage shows them: one demangler, so the static db's keys
//! (written by the analysis) and the names post-processing and the reports
//! look up are the same; and one reading of array type names (`double
//! [2]`).

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

/// The elements a local array of numbers may have and still count as
/// scalars (a cell's populations `double fin[9]`, a 3 x 3 tensor, a
/// reduction's operands `double local[2]`).
pub const SMALL_ARRAY: u64 = 32;

/// The element type and element count of an array type name as the
/// static db writes it (`double [2]`, `int [3][3]`: `("int", 9)`); `None`
/// for a type that is no array or a dimension that is no number.
pub fn array_elements(type_name: &str) -> Option<(&str, u64)> {
    let mut rest = type_name.trim_end();
    let mut elements: u64 = 1;
    let mut dims = 0;
    while let Some((r, i)) = rest
        .strip_suffix(']')
        .and_then(|r| r.rfind('[').map(|i| (r, i)))
    {
        elements = elements.saturating_mul(r[i + 1..].trim().parse::<u64>().ok()?);
        dims += 1;
        rest = r[..i].trim_end();
    }
    (dims > 0).then(|| (rest.strip_prefix("const ").unwrap_or(rest), elements))
}

#[cfg(test)]
mod tests {
    use super::array_elements;

    #[test]
    fn cxx_names_demangle_and_c_names_stay() {
        assert_eq!(super::demangle("_Z3fooi"), "foo(int)");
        assert_eq!(super::demangle("main"), "main");
        assert_eq!(super::demangle("_Znot-valid"), "_Znot-valid");
    }

    #[test]
    fn array_type_names_give_their_element_type_and_count() {
        assert_eq!(array_elements("double [2]"), Some(("double", 2)));
        assert_eq!(array_elements("const int [3][3]"), Some(("int", 9)));
        assert_eq!(array_elements("Node * [8]"), Some(("Node *", 8)));
        assert_eq!(array_elements("double [] *"), None);
        assert_eq!(array_elements("double"), None);
        assert_eq!(array_elements("double [n]"), None);
    }
}
