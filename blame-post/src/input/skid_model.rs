//! The skid models a run is posted with (`--skid lines:MEAN:SPREAD` or
//! `insns:MEAN:SPREAD`, 5.2.3) and the skid window a memory sample's
//! context takes from one: the lines the miss may really come from. Read
//! with the samples (an instruction window walks the binary's code), used
//! by the attribution (`attribution::datacentric`).

/// A distribution of skid in source lines: the true line is `mean` lines
/// before the reported one, give or take `spread`, with triangular weights
/// (spread 1: 0.25 / 0.5 / 0.25 as in the dissertation's Itanium model).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineSkid {
    pub mean: u32,
    pub spread: u32,
}

/// How far samples skid: in source lines, or in instructions (mapped to
/// lines through the binary's disassembly when the samples are loaded).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SkidModel {
    Lines(LineSkid),
    Instructions(LineSkid),
}

impl SkidModel {
    /// Parses `lines:MEAN:SPREAD` or `insns:MEAN:SPREAD`.
    pub fn parse(text: &str) -> Result<SkidModel, BadSkid> {
        let bad = |why| BadSkid {
            text: text.to_string(),
            why,
        };
        let parts: Vec<&str> = text.split(':').collect();
        let [kind, mean, spread] = parts.as_slice() else {
            return Err(bad(SkidProblem::Form));
        };
        let unit = if *kind == "insns" {
            "instructions"
        } else {
            "lines"
        };
        let model = LineSkid {
            mean: mean.parse().map_err(|_| bad(SkidProblem::Mean { unit }))?,
            spread: spread
                .parse()
                .map_err(|_| bad(SkidProblem::Spread { unit }))?,
        };
        match *kind {
            "lines" => Ok(SkidModel::Lines(model)),
            "insns" => Ok(SkidModel::Instructions(model)),
            _ => Err(bad(SkidProblem::Unit)),
        }
    }
}

/// Why a `--skid` is no skid model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--skid {text}: {why}")]
pub struct BadSkid {
    pub text: String,
    pub why: SkidProblem,
}

/// What is wrong with a `--skid`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SkidProblem {
    #[error("expected lines:MEAN:SPREAD or insns:MEAN:SPREAD, e.g. lines:1:1")]
    Form,
    #[error("MEAN must be a whole number of {unit}")]
    Mean { unit: &'static str },
    #[error("SPREAD must be a whole number of {unit}")]
    Spread { unit: &'static str },
    #[error("the unit is lines or insns")]
    Unit,
    #[error("expected a model in lines here")]
    NotInLines,
}

impl LineSkid {
    /// The dissertation's model (5.3): one line before, spread one line.
    pub const DISSERTATION: LineSkid = LineSkid { mean: 1, spread: 1 };

    /// Parses `lines:MEAN:SPREAD`.
    pub fn parse(text: &str) -> Result<LineSkid, BadSkid> {
        match SkidModel::parse(text)? {
            SkidModel::Lines(l) => Ok(l),
            SkidModel::Instructions(_) => Err(BadSkid {
                text: text.to_string(),
                why: SkidProblem::NotInLines,
            }),
        }
    }

    /// (steps before the reported one, probability) with triangular
    /// weights; steps after the reported one (spread > mean) are dropped by
    /// the callers, since skid only moves forward.
    pub fn offsets(&self) -> Vec<(i64, f64)> {
        let k = self.spread as i64;
        let raw: Vec<(i64, f64)> = (-k..=k)
            .map(|d| (self.mean as i64 + d, (k + 1 - d.abs()) as f64))
            .collect();
        let total: f64 = raw.iter().map(|(_, w)| w).sum();
        raw.into_iter().map(|(o, w)| (o, w / total)).collect()
    }
}

/// What a skid window looked like: lines with probabilities, and whether a
/// call or the function's start cut it short.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SkidWindow {
    pub lines: Vec<(u32, f64)>,
    pub truncated: bool,
    /// Lines of other inline instances of the sampled machine function (an
    /// instruction window that walked from inlined code into its caller or
    /// into another inlined callee): the instruction's inline frames,
    /// innermost first, its line in the innermost frame; with `lines` the
    /// probabilities sum to 1. Empty for line windows.
    pub inlined: Vec<(Vec<blame_formats::results::SymFrame>, f64)>,
}
