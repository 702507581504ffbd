//! Shared by the integration tests of the static pass: compiling C or C++
//! to bitcode with clang-19 as `blame cc` does (`-O0 -emit-llvm`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// Compiles the source file `src` to bitcode `bc` (C++ for `.cc`/`.cpp`)
/// with `-O0 -emit-llvm -c` and `extra` flags, failing the test with
/// clang's messages when it fails.
pub fn compile_file(src: &Path, bc: &Path, extra: &[&str]) {
    let cxx = src.extension().is_some_and(|e| e == "cc" || e == "cpp");
    let out = Command::new(if cxx { "clang++-19" } else { "clang-19" })
        .args(["-O0", "-emit-llvm", "-c"])
        .args(extra)
        .arg(src)
        .arg("-o")
        .arg(bc)
        .output()
        .expect("clang-19 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Writes `text` to `dir/name` and compiles it with `-g` and `extra`.
pub fn bitcode(dir: &Path, name: &str, text: &str, extra: &[&str]) -> PathBuf {
    let src = dir.join(name);
    std::fs::write(&src, text).unwrap();
    let bc = dir.join(format!("{name}.bc"));
    let mut flags = vec!["-g"];
    flags.extend_from_slice(extra);
    compile_file(&src, &bc, &flags);
    bc
}

/// The summary in `db` of the function whose (demangled) name starts with
/// `name`.
pub fn summary<'a>(
    db: &'a blame_formats::static_db::StaticDb,
    name: &str,
) -> &'a blame_formats::static_db::FunctionSummary {
    db.functions
        .values()
        .find(|f| f.name.starts_with(name))
        .unwrap_or_else(|| panic!("no function {name}"))
}

/// Variable `name` of summary `f`.
pub fn var<'a>(
    f: &'a blame_formats::static_db::FunctionSummary,
    name: &str,
) -> &'a blame_formats::static_db::Variable {
    f.variables
        .iter()
        .find(|v| v.name == name)
        .unwrap_or_else(|| panic!("no variable {name} in {}: {:#?}", f.name, f.variables))
}
