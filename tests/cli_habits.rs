//! perf's habits, without sampling: the default run `blame.run`, a file that
//! is missing said to be missing, `-F/--freq` wherever a rate is set (old
//! spellings kept, hidden), `-o` on every command that writes, and `blame cc
//! --wait` failing when the analyzer is not installed beside `blame`.

mod e2e_support;
use e2e_support::*;
use std::process::Command;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn help(args: &[&str]) -> String {
    let out = run_ok(blame().args(args).arg("--help"));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn commands_that_read_a_run_default_to_blame_run_and_say_when_it_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    for cmd in [
        &["post"][..],
        &["report"],
        &["export", "--format", "folded", "-o", "x.folded"],
    ] {
        let out = blame().args(cmd).current_dir(dir.path()).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{cmd:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("blame.run") && stderr(&out).contains("blame record"),
            "{cmd:?}: {}",
            stderr(&out)
        );
    }
    for cmd in ["check", "dump"] {
        let out = blame().arg(cmd).current_dir(dir.path()).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{cmd}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("blame.run: no such file or directory"),
            "{cmd}: {}",
            stderr(&out)
        );
    }
    // A file that is not there is missing, not damaged.
    let out = blame()
        .args(["check", "nothing-here.bnode"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("1 of 1 file is missing") && !stderr(&out).contains("damaged"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn rates_are_f_freq_and_every_writer_has_o() {
    let daemon = help(&["daemon", "run"]);
    assert!(daemon.contains("-F, --freq <HZ>"), "{daemon}");
    assert!(!daemon.contains("--rate"), "the old spelling is hidden");
    // ... and still accepted.
    run_ok(blame().args(["daemon", "run", "--rate", "49", "--help"]));
    assert!(help(&["record"]).contains("-F, --freq"));
    for cmd in [
        "record", "post", "merge", "report", "export", "dump", "diff", "scaling", "analyze",
    ] {
        let h = help(&[cmd]);
        assert!(h.contains("-o, --output"), "blame {cmd} has no -o:\n{h}");
    }
}

#[test]
fn cc_wait_fails_without_the_analyzer() {
    let dir = tempfile::tempdir().unwrap();
    let lone = dir.path().join("blame");
    std::fs::copy(env!("CARGO_BIN_EXE_blame"), &lone).unwrap();
    // Another test thread's fork may hold the copy open for writing a moment.
    let out = (0..50)
        .find_map(|_| {
            match Command::new(&lone)
                .args(["cc", "--wait"])
                .current_dir(dir.path())
                .output()
            {
                Err(e) if e.raw_os_error() == Some(26) => {
                    std::thread::sleep(std::time::Duration::from_millis(100));
                    None
                }
                other => Some(other.unwrap()),
            }
        })
        .expect("the copy of blame runs");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("blame-analyzer is missing"),
        "{}",
        stderr(&out)
    );
    // Beside it, with nothing queued, waiting succeeds.
    run_ok(blame().args(["cc", "--wait"]));
}

#[test]
fn record_takes_a_command_or_a_pid_and_not_both() {
    for (args, says) in [
        (&["record"][..], "--pid"),
        (&["record", "-p", "1", "--", "true"], "cannot be used with"),
        (
            &["record", "--duration", "1", "--", "true"],
            "cannot be used with",
        ),
    ] {
        let out = blame().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
}
