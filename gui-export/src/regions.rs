//! Region classes and hidden functions: what `--filter FILE` and `--class`
//! do to results before any view or export sees them.
//!
//! Region classes are those of Score-P's `scorep-score` and Cube, decided
//! per function from the sampled calling contexts:
//!
//! - `MPI`: MPI's own functions (`MPI_*`, the profiling layer `PMPI_*`, the
//!   Fortran bindings `mpi_*_`);
//! - `WRP`: functions seen inside an MPI call and never outside one (the MPI
//!   library's internals below `MPI_*`: progress engines, transports); a
//!   stack cut short by the stack copy (not reaching `_start`, `main` or a
//!   thread's start) does not count as outside, its outer frames unknown;
//! - `COM`: functions on a call path to an MPI function (they communicate);
//! - `USR`: the rest (local computation);
//! - `FLT`: the `[filtered]` frame that stands for a calling context every
//!   frame of which is hidden.
//!
//! Hiding a function removes its frames from every calling context, so its
//! samples fold into its caller (the caller's line becomes the sampled one),
//! as if Score-P had not instrumented it; the code-centric totals are then
//! recomputed from the contexts. Variables keep their values: a filter
//! changes the code paths shown, not what the data was blamed for.

use crate::scorep_filter::Filter;
use blame_formats::results::{
    FunctionBlame, FunctionKey, ProcessValue, Results, StackRecord, SymFrame,
};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The name of the frame standing for a context whose frames are all hidden.
pub const FILTERED_FRAME: &str = "[filtered]";

/// A function's class, as `scorep-score` and Cube name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, clap::ValueEnum)]
pub enum RegionClass {
    #[serde(rename = "MPI")]
    #[value(name = "MPI")]
    Mpi,
    #[serde(rename = "WRP")]
    #[value(name = "WRP")]
    Wrp,
    #[serde(rename = "COM")]
    #[value(name = "COM")]
    Com,
    #[serde(rename = "USR")]
    #[value(name = "USR")]
    Usr,
    #[serde(rename = "FLT")]
    #[value(name = "FLT")]
    Flt,
}

impl RegionClass {
    pub fn as_str(self) -> &'static str {
        match self {
            RegionClass::Mpi => "MPI",
            RegionClass::Wrp => "WRP",
            RegionClass::Com => "COM",
            RegionClass::Usr => "USR",
            RegionClass::Flt => "FLT",
        }
    }

    /// Cube's paradigm of a region of this class.
    pub fn paradigm(self) -> &'static str {
        match self {
            RegionClass::Mpi | RegionClass::Wrp => "mpi",
            RegionClass::Flt => "measurement",
            RegionClass::Com | RegionClass::Usr => "user",
        }
    }
}

impl std::fmt::Display for RegionClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One demangler for every stage (`blame_formats::names`).
pub use blame_formats::names::demangle;

/// Is `name` one of MPI's own functions (C, profiling layer, Fortran)?
pub fn is_mpi_function(name: &str) -> bool {
    let c = name.strip_prefix('P').unwrap_or(name);
    if let Some(rest) = c.strip_prefix("MPI_") {
        return rest.starts_with(|ch: char| ch.is_ascii_uppercase());
    }
    let lower = name.to_ascii_lowercase();
    let f = lower.strip_prefix('p').unwrap_or(&lower);
    f.starts_with("mpi_") && (f.ends_with('_') || f.ends_with("_f08"))
}

/// Does a stack (innermost first) reach a thread's or process's first
/// frame? Stacks cut short by the sampler's stack copy do not, and their
/// outermost frames may well be inside an MPI call.
fn complete(frames: &[&SymFrame]) -> bool {
    frames.last().is_some_and(|f| {
        let n = f.function.as_str();
        matches!(
            n,
            "_start" | "__libc_start_main" | "__libc_start_call_main" | "main" | "start_thread"
        ) || n.contains("clone")
    })
}

/// The class of every function (by demangled name) of the results' contexts.
pub fn classes(results: &Results) -> HashMap<String, RegionClass> {
    #[derive(Default, Clone, Copy)]
    struct Seen {
        /// Above an MPI frame: calls MPI.
        above_mpi: bool,
        /// Below an MPI frame: inside an MPI call.
        inside_mpi: bool,
        /// In a complete stack without an MPI frame at or below it.
        outside_mpi: bool,
    }
    let mut seen: HashMap<&str, Seen> = HashMap::new();
    for s in &results.stacks {
        let frames: Vec<&SymFrame> = results.frames_of(s).collect();
        // Frames are innermost first: those before the outermost MPI frame
        // run inside the MPI call, those after it call MPI.
        let outermost_mpi = frames.iter().rposition(|f| is_mpi_function(&f.function));
        let complete = complete(&frames);
        for (i, f) in frames.into_iter().enumerate() {
            let e = seen.entry(f.function.as_str()).or_default();
            match outermost_mpi {
                Some(m) if i > m => e.above_mpi = true,
                Some(m) if i < m => e.inside_mpi = true,
                Some(_) => {}
                None => e.outside_mpi |= complete,
            }
        }
    }
    let mut out = HashMap::new();
    for (name, s) in seen {
        let class = if name == FILTERED_FRAME {
            RegionClass::Flt
        } else if is_mpi_function(name) {
            RegionClass::Mpi
        } else if s.above_mpi {
            RegionClass::Com
        } else if s.inside_mpi && !s.outside_mpi {
            RegionClass::Wrp
        } else {
            RegionClass::Usr
        };
        // Two linkage names may demangle alike: the more specific class wins.
        let e = out.entry(demangle(name)).or_insert(class);
        *e = (*e).min(class);
    }
    out
}

/// What to hide: functions a Score-P filter excludes, and functions whose
/// class is not among `classes` (when given).
#[derive(Debug, Clone, Default)]
pub struct Hide {
    pub filter: Option<Filter>,
    pub classes: Option<BTreeSet<RegionClass>>,
}

impl Hide {
    pub fn is_empty(&self) -> bool {
        self.filter.as_ref().is_none_or(Filter::is_empty) && self.classes.is_none()
    }
}

/// `results` with the hidden functions' frames removed from every context
/// (their samples fold into the caller) and the code-centric totals
/// recomputed; a context left without frames keeps its samples under
/// [`FILTERED_FRAME`]. Variables and their contexts are unchanged.
pub fn apply(results: &Results, hide: &Hide) -> Results {
    if hide.is_empty() {
        return results.clone();
    }
    let class_of = classes(results);
    let hidden: Vec<bool> = results
        .frames
        .iter()
        .map(|f| {
            let name = demangle(&f.function);
            let by_filter = hide
                .filter
                .as_ref()
                .is_some_and(|flt| flt.excludes(&name, &f.function, &f.file));
            let by_class = hide.classes.as_ref().is_some_and(|keep| {
                !keep.contains(class_of.get(&name).unwrap_or(&RegionClass::Usr))
            });
            by_filter || by_class
        })
        .collect();
    let mut out = results.clone();
    let mut filtered_frame: Option<u32> = None;
    let stacks: Vec<StackRecord> = results
        .stacks
        .iter()
        .map(|s| {
            let mut frames: Vec<u32> = s
                .frames
                .iter()
                .copied()
                .filter(|&f| !hidden[f as usize])
                .collect();
            if frames.is_empty() {
                let id = *filtered_frame.get_or_insert_with(|| {
                    out.frames.push(SymFrame {
                        function: FILTERED_FRAME.into(),
                        file: String::new(),
                        line: 0,
                        column: 0,
                        inlined: false,
                    });
                    out.frames.len() as u32 - 1
                });
                frames.push(id);
            }
            StackRecord {
                process: s.process,
                frames,
                samples: s.samples.clone(),
            }
        })
        .collect();
    out.functions = functions_of(&out.frames, &stacks);
    out.stacks = stacks;
    out
}

/// Code-centric totals from contexts: a function's inclusive samples once
/// per context it is on, its exclusive samples where it is innermost.
pub fn functions_of(frames: &[SymFrame], stacks: &[StackRecord]) -> Vec<FunctionBlame> {
    let mut sums: BTreeMap<FunctionKey, BTreeMap<u32, (f64, f64)>> = BTreeMap::new();
    let mut names: HashMap<&str, String> = HashMap::new();
    for s in stacks {
        for (e, &n) in s.samples.iter().enumerate() {
            if n <= 0.0 {
                continue;
            }
            let mut on_stack: BTreeSet<(&str, &str)> = BTreeSet::new();
            for (depth, f) in s.frames.iter().map(|&f| &frames[f as usize]).enumerate() {
                let first = on_stack.insert((f.function.as_str(), f.file.as_str()));
                if !first && depth > 0 {
                    continue;
                }
                let name = names
                    .entry(f.function.as_str())
                    .or_insert_with(|| demangle(&f.function))
                    .clone();
                let key = FunctionKey {
                    name,
                    file: f.file.clone(),
                    event: e as u16,
                };
                let v = sums.entry(key).or_default().entry(s.process).or_default();
                if first {
                    v.0 += n;
                }
                if depth == 0 {
                    v.1 += n;
                }
            }
        }
    }
    sums.into_iter()
        .map(|(key, per)| FunctionBlame {
            key,
            values: per
                .into_iter()
                .map(|(process, (inc, exc))| ProcessValue {
                    process,
                    inclusive: inc,
                    exclusive: exc,
                    explicit: inc,
                    inherited: 0.0,
                    methods: Vec::new(),
                })
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(function: &str, line: u32) -> SymFrame {
        SymFrame {
            function: function.into(),
            file: "a.c".into(),
            line,
            column: 0,
            inlined: false,
        }
    }

    /// Innermost first, one event.
    fn stack(frames: &[&str]) -> Vec<SymFrame> {
        frames
            .iter()
            .enumerate()
            .map(|(i, f)| frame(f, 10 + i as u32))
            .collect()
    }

    fn results(stacks: Vec<(Vec<SymFrame>, f64)>) -> Results {
        let mut r = crate::tests::fixture();
        r.frames.clear();
        r.stacks.clear();
        for (frames, n) in stacks {
            r.push_stack(0, frames, vec![n]);
        }
        r.functions = functions_of(&r.frames, &r.stacks);
        r
    }

    fn sample() -> Results {
        results(vec![
            (
                stack(&["opal_progress", "MPI_Allreduce", "exchange", "main"]),
                3.0,
            ),
            (stack(&["compute", "main"]), 5.0),
            (stack(&["main"]), 1.0),
            (stack(&["PMPI_Barrier", "MPI_Barrier", "main"]), 2.0),
            // Cut short by the stack copy: says nothing of opal_progress.
            (stack(&["opal_progress", "poll"]), 1.0),
            (stack(&["helper", "poll"]), 1.0),
        ])
    }

    #[test]
    fn classes_follow_the_calls_to_mpi() {
        let c = classes(&sample());
        assert_eq!(c["MPI_Allreduce"], RegionClass::Mpi);
        assert_eq!(c["PMPI_Barrier"], RegionClass::Mpi);
        assert_eq!(c["opal_progress"], RegionClass::Wrp);
        assert_eq!(c["exchange"], RegionClass::Com);
        assert_eq!(c["main"], RegionClass::Com);
        assert_eq!(c["compute"], RegionClass::Usr);
        assert_eq!(c["helper"], RegionClass::Usr);
        assert!(is_mpi_function("mpi_allreduce_"));
        assert!(!is_mpi_function("MPI_"));
        assert!(!is_mpi_function("MPIX"));
        assert!(!is_mpi_function("mpi_helper"));
    }

    fn row(r: &Results, name: &str) -> Option<(f64, f64)> {
        r.functions
            .iter()
            .find(|f| f.key.name == name)
            .map(|f| (f.values[0].inclusive, f.values[0].exclusive))
    }

    #[test]
    fn hidden_functions_fold_into_their_callers() {
        let r = sample();
        assert_eq!(row(&r, "main"), Some((11.0, 1.0)));
        let hide = Hide {
            filter: Some(
                Filter::parse(
                    "SCOREP_REGION_NAMES_BEGIN EXCLUDE compute exchange SCOREP_REGION_NAMES_END",
                )
                .unwrap(),
            ),
            classes: None,
        };
        let f = apply(&r, &hide);
        assert_eq!(row(&f, "compute"), None);
        assert_eq!(row(&f, "exchange"), None);
        // compute's samples are main's own now; main's line is its call site.
        assert_eq!(row(&f, "main"), Some((11.0, 6.0)));
        assert_eq!(
            f.stack_frames(1).cloned().collect::<Vec<_>>(),
            vec![frame("main", 11)]
        );
        assert_eq!(
            f.stack_frames(0)
                .map(|f| f.function.as_str())
                .collect::<Vec<_>>(),
            ["opal_progress", "MPI_Allreduce", "main"]
        );
        // Contexts keep their indices.
        assert_eq!(f.stacks.len(), r.stacks.len());
    }

    #[test]
    fn a_class_filter_keeps_only_those_classes() {
        let hide = Hide {
            filter: None,
            classes: Some(BTreeSet::from([RegionClass::Mpi])),
        };
        let f = apply(&sample(), &hide);
        assert_eq!(row(&f, "MPI_Allreduce"), Some((3.0, 3.0)));
        assert_eq!(row(&f, "MPI_Barrier"), Some((2.0, 0.0)));
        assert_eq!(row(&f, "main"), None);
        // compute, main, helper alone: their 8 samples stay, under [filtered].
        assert_eq!(row(&f, FILTERED_FRAME), Some((8.0, 8.0)));
        assert_eq!(classes(&f)[FILTERED_FRAME], RegionClass::Flt);
        assert!(<RegionClass as clap::ValueEnum>::from_str("XYZ", true).is_err());
        assert_eq!(
            <RegionClass as clap::ValueEnum>::from_str("mpi", true),
            Ok(RegionClass::Mpi)
        );
    }

    #[test]
    fn recomputed_totals_match_for_a_filter_that_hides_nothing() {
        let r = sample();
        let hide = Hide {
            filter: Some(
                Filter::parse("SCOREP_REGION_NAMES_BEGIN EXCLUDE nothing* SCOREP_REGION_NAMES_END")
                    .unwrap(),
            ),
            classes: None,
        };
        assert!(!hide.is_empty());
        assert_eq!(apply(&r, &hide), r);
    }
}
