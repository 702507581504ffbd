//! Builds the bitcode-capture pass plugin (blame_capture.cpp)
//! that `blame cc` loads into clang 19, against the headers of the LLVM
//! this crate links (`$LLVM_SYS_191_PREFIX/bin/llvm-config`, else
//! `llvm-config-19`), with `$CXX` (default `clang++-19`).

use std::path::PathBuf;
use std::process::Command;

fn main() {
    let src = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("blame_capture.cpp");
    println!("cargo:rerun-if-changed={}", src.display());
    println!("cargo:rerun-if-env-changed=CXX");
    println!("cargo:rerun-if-env-changed=LLVM_SYS_191_PREFIX");
    let llvm_config = std::env::var("LLVM_SYS_191_PREFIX")
        .map(|p| PathBuf::from(p).join("bin/llvm-config"))
        .unwrap_or_else(|_| PathBuf::from("llvm-config-19"));
    let cxxflags = Command::new(&llvm_config)
        .arg("--cxxflags")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", llvm_config.display()));
    assert!(
        cxxflags.status.success(),
        "{} --cxxflags failed",
        llvm_config.display()
    );
    let cxxflags = String::from_utf8(cxxflags.stdout).expect("flags are text");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("libblame_capture.so");
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "clang++-19".into());
    let status = Command::new(&cxx)
        .args(cxxflags.split_whitespace())
        .args(["-shared", "-fPIC", "-O2", "-Wall"])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C++ compiler {cxx}: {e}"));
    assert!(status.success(), "building {} failed", src.display());
}
