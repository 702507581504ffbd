//! Reading a results file into [`Results`]: records decoded straight from
//! each chunk, checked and appended, stacks on call paths given their
//! path's frames, and the records of versions 2 and 3 interned
//! ([`OldLayout`]).

use super::check::RecordCheck;
use super::header::open_results;
use super::keys::{SymFrame, VariableKey};
use super::records::{
    path_after, ContextBlame, ResultRecord, ResultRecordV3, StackRecord, VariableBlame,
};
use super::Results;
use crate::error::{FormatError, RecordRefused, Result};
use crate::files::open_regular;
use std::io::{BufReader, Read};
use std::path::Path;

impl Results {
    pub fn read(path: impl AsRef<Path>) -> Result<Results> {
        let path = path.as_ref();
        let file = open_regular(path).map_err(|e| FormatError::io(path, e))?;
        Self::read_from(BufReader::new(file), path)
    }

    pub fn read_bytes(bytes: &[u8]) -> Result<Results> {
        Self::read_from(bytes, Path::new("<memory>"))
    }

    fn read_from<R: Read>(input: R, path: &Path) -> Result<Results> {
        let (mut r, header) = open_results(input, path)?;
        let check = RecordCheck::of(&header, r.version);
        let mut out = Results {
            header,
            ..Default::default()
        };
        let mut old = (r.version < 4).then(OldLayout::default);
        let mut paths = PathsRead::default();
        while let Some(chunk) = r.next_chunk()? {
            let corrupt = |reason: RecordRefused| chunk.corrupt(path, reason);
            // Records are decoded straight from the chunk's bytes into
            // `out`. Old records are converted one at a time, each after the
            // records before it are in `out` (a context names a variable
            // read earlier, maybe in the same chunk).
            match old.as_mut() {
                None => chunk.decode_each::<ResultRecord>(path, |rec| {
                    Self::push_record(&mut out, &mut paths, rec, &check).map_err(corrupt)
                })?,
                Some(old) => chunk.decode_each::<ResultRecordV3>(path, |rec| {
                    let rec = old.convert(rec, &mut out);
                    Self::push_record(&mut out, &mut paths, rec, &check).map_err(corrupt)
                })?,
            }
        }
        r.require_end()?;
        Ok(out)
    }

    /// Checks one decoded record against what is already read and appends
    /// it (a call path to `paths`, where the stacks after it find it).
    fn push_record(
        out: &mut Results,
        paths: &mut PathsRead,
        rec: ResultRecord,
        check: &RecordCheck,
    ) -> std::result::Result<(), RecordRefused> {
        match rec {
            ResultRecord::Variable(v) => {
                check.values(&v.values)?;
                out.variables.push(v)
            }
            ResultRecord::Function(f) => {
                check.values(&f.values)?;
                out.functions.push(f)
            }
            ResultRecord::Frame(f) => out.frames.push(f),
            ResultRecord::Stack(st) => {
                check.stack(st.process, &st.frames, out.frames.len())?;
                out.stacks.push(st)
            }
            ResultRecord::Context(c) => {
                check.context(&c, out.stacks.len(), out.variables.len())?;
                out.contexts.push(c)
            }
            ResultRecord::Path(p) => {
                check.path(&p.frames, out.frames.len(), out.stacks.len())?;
                paths.paths.push(p.frames)
            }
            ResultRecord::PathStack(st) => {
                let path = path_after(paths.last, st.path_step);
                check.path_stack(st.process, path, paths.paths.len())?;
                let path = path.expect("checked");
                paths.last = path;
                out.stacks.push(StackRecord {
                    process: st.process,
                    frames: paths.paths[path as usize].clone(),
                    samples: st.samples,
                })
            }
        }
        Ok(())
    }
}

/// The call paths of a result read so far, and the path of its last
/// `PathStack`.
#[derive(Default)]
struct PathsRead {
    paths: Vec<Vec<u32>>,
    last: u32,
}

/// Interning of version 2 and 3 records while they are read: frames into
/// `Results::frames`, context keys into indices of `Results::variables`
/// (a key no variable record has, which those versions did not forbid,
/// gets a variable record of no values).
#[derive(Default)]
struct OldLayout {
    frame_ids: std::collections::HashMap<SymFrame, u32>,
    variable_ids: std::collections::HashMap<VariableKey, u32>,
}

impl OldLayout {
    fn convert(&mut self, rec: ResultRecordV3, out: &mut Results) -> ResultRecord {
        match rec {
            ResultRecordV3::Variable(v) => ResultRecord::Variable(v),
            ResultRecordV3::Function(f) => ResultRecord::Function(f),
            ResultRecordV3::Stack(st) => {
                let frames = st
                    .frames
                    .into_iter()
                    .map(|f| match self.frame_ids.get(&f) {
                        Some(&id) => id,
                        None => {
                            let id = out.frames.len() as u32;
                            self.frame_ids.insert(f.clone(), id);
                            out.frames.push(f);
                            id
                        }
                    })
                    .collect();
                ResultRecord::Stack(StackRecord {
                    process: st.process,
                    frames,
                    samples: st.samples,
                })
            }
            ResultRecordV3::Context(c) => {
                if self.variable_ids.len() < out.variables.len() {
                    for (i, v) in out.variables.iter().enumerate() {
                        self.variable_ids.entry(v.key.clone()).or_insert(i as u32);
                    }
                }
                let variable = match self.variable_ids.get(&c.variable) {
                    Some(&id) => id,
                    None => {
                        let id = out.variables.len() as u32;
                        self.variable_ids.insert(c.variable.clone(), id);
                        out.variables.push(VariableBlame {
                            key: c.variable,
                            values: Vec::new(),
                        });
                        id
                    }
                };
                ResultRecord::Context(ContextBlame {
                    variable,
                    process: c.process,
                    stack: c.stack,
                    samples: c.samples,
                })
            }
        }
    }
}
