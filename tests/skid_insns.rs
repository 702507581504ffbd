//! Instruction skid on a real optimized binary: windows go back through the
//! disassembly, through inlined code and its caller, never across a call.

mod e2e_support;
use blame_formats::stream::Mapping;
use blame_post::input::skid_insns::instruction_window;
use blame_post::input::skid_model::LineSkid;
use blame_post::input::symbolize::Symbolizer;
use e2e_support::*;
use object::{Object, ObjectSegment, ObjectSymbol};

/// The binary mapped at its own virtual addresses, as a loader without ASLR would.
fn mappings_of(exe: &std::path::Path) -> Vec<Mapping> {
    let data = std::fs::read(exe).unwrap();
    let file = object::File::parse(&*data).unwrap();
    file.segments()
        .map(|s| {
            let (offset, size) = s.file_range();
            Mapping {
                pid: 1,
                start: s.address(),
                end: s.address() + size.max(1),
                file_offset: offset,
                path: exe.display().to_string(),
                build_id: vec![],
            }
        })
        .collect()
}

fn address_of_main(exe: &std::path::Path) -> u64 {
    let data = std::fs::read(exe).unwrap();
    let file = object::File::parse(&*data).unwrap();
    file.symbols()
        .find(|s| s.name() == Ok("main"))
        .unwrap()
        .address()
}

#[test]
fn windows_follow_the_disassembly_and_stop_at_calls() {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile(&program("post_effects.c"), dir.path(), false);
    let maps = mappings_of(&exe);
    // fill() is inlined into main at -O2: its instructions are main's.
    let main = address_of_main(&exe);
    let mut sym = Symbolizer::new(vec![]);
    let insns = sym
        .function_instructions(&maps, main)
        .expect("main disassembles");
    assert!(insns.len() > 8, "{insns:?}");
    let calls: Vec<usize> = insns
        .iter()
        .enumerate()
        .filter(|(_, i)| i.1)
        .map(|(k, _)| k)
        .collect();
    assert!(
        !calls.is_empty(),
        "main calls sin and cos (and the kernels)"
    );
    let lines = |addr: u64, sym: &mut Symbolizer| sym.frames_for(&maps, addr, false)[0].line;

    // Right after a call, one instruction back is the call: the window stops.
    let after_call = calls[0] + 1;
    let w = instruction_window(
        &mut sym,
        &maps,
        insns[after_call].0,
        LineSkid { mean: 1, spread: 0 },
    )
    .unwrap_or_default();
    assert!(w.truncated && w.is_empty(), "never across a call: {w:?}");

    // Zero skid is the sampled instruction's own line.
    let k = insns.len() - 2;
    let w =
        instruction_window(&mut sym, &maps, insns[k].0, LineSkid { mean: 0, spread: 0 }).unwrap();
    assert!(!w.truncated && w.inlined.is_empty());
    assert_eq!(
        w.lines.keys().copied().collect::<Vec<_>>(),
        vec![lines(insns[k].0, &mut sym)]
    );

    // Inside the inlined fill(), the window's own lines are fill()'s;
    // instructions of main's own code or of other inlined calls before them
    // come with their inline frames (fill()'s instance never among them).
    let in_fill =
        |addr: u64, sym: &mut Symbolizer| sym.frames_for(&maps, addr, false)[0].function == "fill";
    let k = (2..insns.len())
        .find(|&k| in_fill(insns[k].0, &mut sym) && !insns[k - 2..=k].iter().any(|i| i.1))
        .expect("call-free code of fill()");
    let w =
        instruction_window(&mut sym, &maps, insns[k].0, LineSkid { mean: 1, spread: 1 }).unwrap();
    let total: f64 = w.lines.values().chain(w.inlined.values()).sum();
    assert!(total > 0.0 && total <= 1.0 + 1e-9, "weights: {w:?}");
    let fill_frames = sym.frames_for(&maps, insns[k].0, false);
    for chain in w.inlined.keys() {
        assert_eq!(
            chain.last().map(|f| &f.function),
            fill_frames.last().map(|f| &f.function)
        );
        assert!(
            chain[0].function != "fill" || chain[1..] != fill_frames[1..],
            "fill()'s own instance is in `lines`: {chain:?}"
        );
    }
    let mut fill_lines = std::collections::BTreeSet::new();
    for i in &insns {
        if in_fill(i.0, &mut sym) {
            fill_lines.insert(lines(i.0, &mut sym));
        }
    }
    assert!(
        fill_lines.contains(&15),
        "fill()'s loop body is line 15: {fill_lines:?}"
    );
    assert!(
        w.lines.keys().all(|l| fill_lines.contains(l)),
        "lines of fill(): {w:?} not within {fill_lines:?}"
    );
}

/// A time sample on an instruction the line table gives line 0 (triad at
/// -O1: the load of `c[i]` heading the rotated loop) is blamed as a sample
/// of the line the instruction belongs to, not dropped. The run is written
/// by hand so the sampled address is known to be such an instruction.
#[test]
fn line_zero_samples_take_the_next_instructions_line() {
    use blame_formats::stream::{EventDesc, Sampling, StreamHeader, StreamWriter};
    let dir = tempfile::tempdir().unwrap();
    let src =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/datacentric/kernels/triad.c");
    let exe = dir.path().join("triad");
    run_ok(
        std::process::Command::new("clang-19")
            .args(["-g", "-O1", "-fno-pie", "-no-pie", "-o"])
            .arg(&exe)
            .arg(&src),
    );
    let bc = dir.path().join("triad.bc");
    run_ok(
        std::process::Command::new("clang-19")
            .args(["-g", "-O0", "-emit-llvm", "-c", "-o"])
            .arg(&bc)
            .arg(&src),
    );
    let db = dir.path().join("static.db");
    run_ok(blame().arg("analyze").arg(&bc).arg("-o").arg(&db));

    let maps = mappings_of(&exe);
    let main = address_of_main(&exe);
    let mut sym = Symbolizer::new(vec![]);
    let insns = sym.function_instructions(&maps, main).unwrap();
    let body = line_of(&src, "a[i] = b[i] + scalar * c[i];");
    let zero: Vec<u64> = insns
        .iter()
        .map(|i| i.0)
        .filter(|&a| {
            sym.frames_for(&maps, a, false)[0].line == 0
                && blame_post::input::skid_insns::sample_line(&mut sym, &maps, a) == Some(body)
        })
        .collect();
    assert!(!zero.is_empty(), "no line-0 instruction in triad's loop");

    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    let header = StreamHeader {
        host: "here".into(),
        command: vec![exe.display().to_string()],
        pid: 1,
        ppid: 0,
        rank: None,
        world_size: None,
        events: vec![EventDesc {
            name: "cpu-clock".into(),
            sampling: Sampling::Frequency(1000),
            unit: "ns".into(),
            memory: false,
        }],
        call_graph: "fp".into(),
        start_time_ns: 0,
        extra: vec![],
    };
    let mut w = StreamWriter::create(run.join("pid-1.bstream"), &header).unwrap();
    for m in maps.clone() {
        w.write_mapping(m).unwrap();
    }
    for (k, &a) in zero.iter().cycle().take(10).enumerate() {
        w.write_sample_with_stack(1, k as u64, 0, 1_000_000, &[a], None)
            .unwrap();
    }
    w.finish().unwrap();
    run_ok(blame().arg("post").arg(&run).arg("--static").arg(&db));
    let report = report_json(&[run.to_str().unwrap(), "--by-variable"]);
    assert_eq!(
        percent_of(&report, "main", "a"),
        100.0,
        "every sample blames a[i] = ...'s variable\n{report:#}"
    );
}
