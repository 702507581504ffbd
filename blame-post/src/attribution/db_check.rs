//! Does the static db describe the binary that was sampled? The db holds,
//! per function, every source line with code (`FunctionSummary::lines`,
//! from the IR's debug locations); the binary's DWARF gives each sampled
//! frame's line. A db built from other sources (a rebuild that moved lines)
//! puts samples on lines its summaries have no code on, and resolution
//! then blames the wrong variables or none, silently. This pass counts,
//! per function, the samples whose frames fall on such lines and names the
//! functions where they are common; and says when the db has no summary for
//! any sampled function at all.

use crate::attribution::static_index::StaticIndex;
use crate::error::Warning;
use crate::input::ProcessProfile;
use std::collections::{BTreeMap, BTreeSet};

/// A function is reported when at least this share of its frames' samples
/// are on lines its summary has no code on. Optimized code keeps the lines
/// of the source it came from, so a matching db leaves almost none.
const MISMATCH_SHARE: f64 = 0.25;

/// Per summary: samples of frames in it, those on unknown lines, and those lines.
#[derive(Default)]
struct Counts {
    samples: f64,
    off: f64,
    /// (file name of the sampled frame, line).
    lines: BTreeSet<(String, u32)>,
}

#[derive(Default)]
pub struct LineCheck {
    by_function: BTreeMap<usize, Counts>,
    /// Samples with a frame in a function of the db / with a named frame at all.
    matched: f64,
    named: f64,
    /// A few names of sampled functions, for the "matches nothing" note.
    examples: BTreeSet<String>,
}

impl LineCheck {
    /// Counts the frames of a process's contexts.
    pub fn add(&mut self, index: &StaticIndex, profile: &ProcessProfile) {
        /// What a frame of the process is to the check, found once per frame.
        enum Found {
            /// No file or line: not counted.
            Unnamed,
            /// Named, but no summary of the db has its function.
            Unmatched,
            /// The summary's index; whether the summary has lines to check
            /// and whether the frame's line is off them.
            Matched {
                function: usize,
                checked: bool,
                off: bool,
            },
        }
        let found: Vec<Found> = profile
            .frames
            .iter()
            .map(|frame| {
                if frame.file.is_empty() || frame.line == 0 {
                    return Found::Unnamed;
                }
                let Some(i) = index.lookup(&frame.function, &frame.file) else {
                    return Found::Unmatched;
                };
                let f = &index.functions[i];
                // A line of another file (optimized code the line table
                // gives to an inlined caller's line) says nothing of the db.
                let checked = f.has_line_info
                    && !f.lines.is_empty()
                    && crate::attribution::static_index::same_file_name(&f.file, &frame.file);
                // (The function's own line is its prologue: at -O2 the
                // frame's setup and the parameters' copies sit there, while
                // the IR's code for it may carry no location.)
                let off = checked
                    && (!crate::attribution::static_index::same_file(&f.file, &frame.file)
                        || (frame.line != f.line && f.lines.binary_search(&frame.line).is_err()));
                Found::Matched {
                    function: i,
                    checked,
                    off,
                }
            })
            .collect();
        let mut line_noted = vec![false; profile.frames.len()];
        for ctx in &profile.contexts {
            let n: f64 = ctx.counts.iter().sum();
            if n <= 0.0 {
                continue;
            }
            let mut matched = false;
            let mut named = false;
            for &fi in &ctx.frames {
                let frame = &profile.frames[fi as usize];
                match found[fi as usize] {
                    Found::Unnamed => continue,
                    Found::Unmatched => {
                        named = true;
                        if self.examples.len() < 5 {
                            self.examples.insert(frame.function.clone());
                        }
                    }
                    Found::Matched {
                        function,
                        checked,
                        off,
                    } => {
                        named = true;
                        matched = true;
                        if !checked {
                            continue;
                        }
                        let c = self.by_function.entry(function).or_default();
                        c.samples += n;
                        if off {
                            c.off += n;
                            if !std::mem::replace(&mut line_noted[fi as usize], true) {
                                let file = frame.file.rsplit('/').next().unwrap_or(&frame.file);
                                c.lines.insert((file.to_string(), frame.line));
                            }
                        }
                    }
                }
            }
            self.matched += if matched { n } else { 0.0 };
            self.named += if named { n } else { 0.0 };
        }
    }

    /// Warnings: the functions whose lines do not match the db, and a db
    /// that matches none of the sampled functions.
    pub fn warnings(&self, index: &StaticIndex) -> Vec<Warning> {
        let mut out = Vec::new();
        if index.is_empty() {
            return out;
        }
        if self.matched == 0.0 && self.named > 0.0 {
            out.push(Warning::DbMatchesNothing {
                functions: index.functions.len(),
                sampled: self.examples.iter().cloned().collect::<Vec<_>>().join(", "),
            });
            return out;
        }
        let stale: Vec<(&usize, &Counts)> = self
            .by_function
            .iter()
            .filter(|(_, c)| c.samples > 0.0 && c.off / c.samples >= MISMATCH_SHARE)
            .collect();
        if stale.is_empty() {
            return out;
        }
        let names: Vec<String> = stale
            .iter()
            .map(|(&i, c)| {
                let f = &index.functions[i];
                let lines: Vec<String> = c
                    .lines
                    .iter()
                    .take(4)
                    .map(|(file, l)| format!("{file}:{l}"))
                    .collect();
                let file = f.file.rsplit('/').next().unwrap_or(&f.file);
                format!(
                    "{} of {file} ({:.0}% of its samples, on lines {})",
                    f.name,
                    100.0 * c.off / c.samples,
                    lines.join(", ")
                )
            })
            .collect();
        out.push(Warning::StaleDb {
            functions: names.join("; "),
        });
        out
    }
}
