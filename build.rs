//! Release binaries: the linker compresses their debug sections (zlib, which
//! std's backtraces and gdb read), so the line tables that keep file:line in
//! panics' backtraces cost a third of their size (`blame` 31 MB -> under
//! 25 MB; issue 33). Debug builds link as before.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("PROFILE").as_deref() == Ok("release") {
        println!("cargo:rustc-link-arg-bins=-Wl,--compress-debug-sections=zlib");
    }
}
