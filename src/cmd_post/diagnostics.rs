//! What posting says on stderr besides its progress: each warning once,
//! and what a salvaging post left out of a damaged recording.

/// Each warning once (every process of a run may warn the same).
pub(super) fn print_warnings(warnings: &[blame_post::Warning]) {
    let mut seen = std::collections::BTreeSet::new();
    for w in warnings {
        let text = w.to_string();
        if !seen.contains(&text) {
            eprintln!("blame: warning: {text}");
            seen.insert(text);
        }
    }
}

/// Says loudly what a salvaging post left out of a damaged recording.
pub(super) fn print_damage(damage: &[String], fresh: bool) {
    if damage.is_empty() {
        return;
    }
    let mut seen = std::collections::BTreeSet::new();
    for d in damage {
        if seen.insert(d) {
            eprintln!("blame: SKIPPED: {d}");
        }
    }
    eprintln!(
        "blame: the recording is damaged: {} {} left out (listed above); the results cover everything else{}",
        seen.len(),
        if seen.len() == 1 { "part was" } else { "parts were" },
        if fresh {
            ". `--strict` refuses damaged recordings instead"
        } else {
            ""
        }
    );
}
