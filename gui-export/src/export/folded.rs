//! Brendan Gregg's collapsed stacks (`a;b;c 42`) and an SVG flame graph of
//! them through inferno.

use crate::trees::WeightedStack;
use blame_formats::results::Results;

/// Folded weights must be whole numbers: fractional weights (memory events)
/// are scaled by 1000 (milli-samples).
fn scale(stacks: &[WeightedStack]) -> f64 {
    if stacks.iter().all(|s| s.weight.fract() == 0.0) {
        1.0
    } else {
        1000.0
    }
}

/// Frames are separated by `;` and the count follows the last space, so
/// only `;` and line breaks need replacing inside names.
fn clean(name: &str) -> String {
    name.replace([';', '\n'], ":")
}

/// One line per stack; with several processes, the first frame is the rank.
pub fn folded(results: &Results, stacks: &[WeightedStack]) -> String {
    let multi = stacks.iter().any(|s| s.process != stacks[0].process);
    let k = scale(stacks);
    // Stacks that differ only in lines fold into one line.
    let mut folded: std::collections::BTreeMap<String, f64> = std::collections::BTreeMap::new();
    for s in stacks {
        let mut names: Vec<String> = Vec::with_capacity(s.frames.len() + 1);
        if multi {
            names.push(clean(&crate::trees::process_label(results, s.process)));
        }
        names.extend(s.frames.iter().map(|f| clean(&f.name)));
        *folded.entry(names.join(";")).or_default() += s.weight;
    }
    let mut out = String::new();
    for (stack, w) in folded {
        let w = (w * k).round() as u64;
        if w > 0 {
            out.push_str(&format!("{stack} {w}\n"));
        }
    }
    out
}

pub fn svg(
    results: &Results,
    stacks: &[WeightedStack],
    title: &str,
) -> Result<Vec<u8>, super::ExportError> {
    let text = folded(results, stacks);
    let mut options = inferno::flamegraph::Options::default();
    options.title = title.to_string();
    options.count_name = if scale(stacks) == 1.0 {
        "samples".into()
    } else {
        "milli-samples".into()
    };
    let mut out = Vec::new();
    inferno::flamegraph::from_lines(&mut options, text.lines(), &mut out)
        .map_err(super::ExportError::FlameGraph)?;
    Ok(out)
}
