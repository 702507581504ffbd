//! Instruction skid (5.2.3 with the "second mapping" of the text): the
//! sampled instruction may be a few instructions after the one that missed;
//! disassembling the function back from the sampled address gives the
//! instructions it may really be, and their lines the skid window.

use crate::datacentric::LineSkid;
use crate::symbolize::Symbolizer;
use blame_formats::stream::Mapping;
use std::collections::BTreeMap;

/// Weighted lines of a skid window, and whether it was cut short.
pub type SkidLines = (BTreeMap<u32, f64>, bool);

/// Lines (with weights) a memory sample at `leaf` may come from under an
/// instruction skid model, and whether a call or the function start cut the
/// window short (then `lines` may be empty). `None` when the code cannot be
/// disassembled.
pub fn instruction_window(
    symbolizer: &mut Symbolizer,
    mappings: &[Mapping],
    leaf: u64,
    model: LineSkid,
) -> Option<SkidLines> {
    let offsets = model.offsets();
    let deepest = offsets.iter().map(|o| o.0).max().unwrap_or(0).max(0) as usize;
    let insns = symbolizer.instructions_before(mappings, leaf, deepest + 1)?;
    let leaf_function = symbolizer
        .frames_for(mappings, leaf, false)
        .first()?
        .function
        .clone();
    let n = insns.len();
    let mut lines = BTreeMap::new();
    let mut truncated = false;
    for (back, p) in offsets {
        if back < 0 {
            continue; // skid only moves forward
        }
        let back = back as usize;
        if back >= n {
            truncated = true; // before the function's first instruction
            continue;
        }
        let at = n - 1 - back;
        if insns[at..n - 1].iter().any(|i| i.1) {
            truncated = true; // never across a call
            continue;
        }
        match symbolizer.frames_for(mappings, insns[at].0, false).first() {
            Some(f) if f.function == leaf_function && f.line > 0 => {
                *lines.entry(f.line).or_insert(0.0) += p
            }
            _ => truncated = true,
        }
    }
    Some((lines, truncated))
}
