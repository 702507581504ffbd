//! JSON-lines samples with symbolic frames: how tests and other tools feed
//! samples to `blame post`, and what `blame dump` prints.
//!
//! ```json
//! {"stack":[{"function":"bar","file":"ex.c","line":9},{"function":"foo","file":"ex.c","line":22}],"event":"cpu-clock","weight":1,"rank":0,"thread":1}
//! ```
//! Frames are innermost first. `weight` defaults to 1, `rank` and `thread` to
//! absent/0; `time_ns` and `data_address` are optional.

use crate::error::{FormatError, Result};
use crate::results::SymFrame;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};

/// One symbolic sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonSample {
    pub stack: Vec<SymFrame>,
    pub event: String,
    #[serde(default = "one")]
    pub weight: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    #[serde(default)]
    pub thread: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ns: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_address: Option<u64>,
}

fn one() -> f64 {
    1.0
}

/// Reads every sample; a bad line is an error naming its line number.
pub fn read_samples<R: BufRead>(input: R, source: &str) -> Result<Vec<JsonSample>> {
    let mut out = Vec::new();
    for (i, line) in input.lines().enumerate() {
        let line = line.map_err(|e| FormatError::Invalid {
            context: format!("{source}:{}", i + 1),
            reason: e.to_string(),
        })?;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let s: JsonSample = serde_json::from_str(trimmed).map_err(|e| FormatError::Invalid {
            context: format!("{source}:{}", i + 1),
            reason: format!("not a sample: {e}"),
        })?;
        if !s.weight.is_finite() || s.weight < 0.0 {
            return Err(FormatError::Invalid {
                context: format!("{source}:{}", i + 1),
                reason: format!("weight {} must be a finite number >= 0", s.weight),
            });
        }
        out.push(s);
    }
    Ok(out)
}

pub fn write_sample<W: Write>(out: &mut W, s: &JsonSample) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, s)?;
    out.write_all(b"\n")
}
