//! Builds the LD_PRELOAD allocation tracer (alloc-tracer/blame_alloc.c)
//! that `blame record --track-allocations` installs into the run directory.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    let src = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap())
        .join("../alloc-tracer/blame_alloc.c");
    println!("cargo:rerun-if-changed={}", src.display());
    println!("cargo:rerun-if-env-changed=CC");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("libblame_alloc.so");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc)
        .args(["-shared", "-fPIC", "-O2", "-Wall", "-static-libgcc"])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .args(["-ldl", "-lm"])
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C compiler {cc}: {e}"));
    assert!(status.success(), "building {} failed", src.display());
}
