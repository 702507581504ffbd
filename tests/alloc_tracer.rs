//! The LD_PRELOAD allocation tracer on a real program: its log parses,
//! blocks pair with their frees, and allocation sites symbolize to the
//! lines that called malloc.

mod e2e_support;
use blame_formats::alloc_log::{AllocKind, AllocLog};
use blame_post::input::heap_blocks::HeapBlocks;
use blame_post::input::symbolize::Symbolizer;
use e2e_support::*;
use std::path::Path;
use std::process::Command;

fn build_tracer(dir: &Path) -> std::path::PathBuf {
    let so = dir.join("libblame_alloc.so");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("alloc-tracer/blame_alloc.c");
    run_ok(
        Command::new("clang-19")
            .args([
                "-shared",
                "-fPIC",
                "-O2",
                "-Wall",
                "-Werror",
                "-static-libgcc",
            ])
            .arg(&src)
            .arg("-o")
            .arg(&so)
            .args(["-ldl", "-lm"]),
    );
    so
}

#[test]
fn heap_blocks_of_a_real_run_are_named_by_their_allocation_lines() {
    let dir = tempfile::tempdir().unwrap();
    let so = build_tracer(dir.path());
    let exe = compile(&program("post_transfer.c"), dir.path(), false);
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    let out = run_ok(
        Command::new(&exe)
            .arg("50")
            .env("LD_PRELOAD", &so)
            .env("BLAME_ALLOC_DIR", &logs),
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(' '),
        "the program ran"
    );
    let files: Vec<_> = std::fs::read_dir(&logs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "one log per process: {files:?}");
    let log = AllocLog::read(&files[0]).unwrap();
    assert_eq!(log.torn_at, None);
    assert!(
        log.maps.iter().any(|l| l.ends_with("post_transfer")),
        "maps of the program are logged"
    );
    let big: Vec<_> = log.events.iter().filter(|e| e.size == 8 << 15).collect();
    assert_eq!(big.len(), 2, "temperature and pressure: {big:?}");
    assert!(big.iter().all(|e| e.kind == AllocKind::Malloc));
    let freed: Vec<_> = log
        .events
        .iter()
        .filter(|e| e.kind == AllocKind::Free && big.iter().any(|b| b.address == e.address))
        .collect();
    assert_eq!(freed.len(), 2, "both blocks are freed at the end");

    let heap = HeapBlocks::from_log(&log);
    let temp = big[0];
    let inside = temp.address + 100 * 8;
    let during = temp.time_ns + 1;
    let block = heap
        .find(inside, during)
        .expect("the block holds the address while alive");
    assert_eq!(
        (block.start, block.end),
        (temp.address, temp.address + (8 << 15))
    );
    assert_eq!(
        heap.find(temp.address + (8 << 15) + (1 << 20), during)
            .map(|b| b.start),
        None
    );

    let mut symbolizer = Symbolizer::new(vec![]);
    let (function, frames) = &heap.sites[block.site as usize];
    assert_eq!(function, "malloc");
    let symbolized: Vec<_> = frames
        .iter()
        .flat_map(|&a| symbolizer.frames_for(&heap.maps, a, true))
        .collect();
    let first = &symbolized[0];
    assert_eq!(
        (first.function.as_str(), first.line),
        ("main", 44),
        "the site is `sim.fields.temperature = malloc(...)`: {symbolized:?}"
    );
}
