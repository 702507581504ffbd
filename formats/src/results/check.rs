//! The checks every reader of results makes of a data record before it
//! keeps it ([`RecordCheck`]): the processes, frames, call paths, stacks
//! and variables it names exist.

use super::header::ResultsHeader;
use super::records::{ContextBlame, ProcessValue};
use super::ALL_RANKS;
use crate::error::RecordRefused;

/// What a data record may refer to, by its result's header: the checks
/// every reader of results makes before it keeps a record (a corrupt file
/// is an error naming it, never an index out of range later).
pub(crate) struct RecordCheck {
    processes: u32,
    /// Stacks and contexts of a summed result may belong to all ranks.
    summed: bool,
    /// Call paths may be stored, and stacks name them (version 8).
    paths: bool,
}

impl RecordCheck {
    pub(crate) fn of(header: &ResultsHeader, version: u32) -> RecordCheck {
        Self::new(header.processes.len(), header, version)
    }

    /// The checks of a result of `version`, of `processes` processes and
    /// this header's kind.
    pub(crate) fn new(processes: usize, header: &ResultsHeader, version: u32) -> RecordCheck {
        RecordCheck {
            processes: processes as u32,
            summed: header.summed.is_some(),
            paths: version >= 8,
        }
    }

    /// Call paths, and stacks naming them, exist from version 8.
    #[inline]
    fn paths_exist(&self) -> std::result::Result<(), RecordRefused> {
        match self.paths {
            true => Ok(()),
            false => Err(RecordRefused::PathsBeforeVersion8),
        }
    }

    #[inline]
    fn process(&self, p: u32) -> std::result::Result<(), RecordRefused> {
        if p < self.processes {
            Ok(())
        } else {
            Err(RecordRefused::Process {
                process: p,
                processes: self.processes,
            })
        }
    }

    #[inline]
    fn context_process(&self, p: u32) -> std::result::Result<(), RecordRefused> {
        if self.summed && p == ALL_RANKS {
            Ok(())
        } else {
            self.process(p)
        }
    }

    /// A variable's or function's values.
    pub(crate) fn values(&self, values: &[ProcessValue]) -> std::result::Result<(), RecordRefused> {
        values.iter().try_for_each(|v| self.process(v.process))
    }

    /// A stack, when `frames` frames are read before it.
    pub(crate) fn stack(
        &self,
        process: u32,
        ids: &[u32],
        frames: usize,
    ) -> std::result::Result<(), RecordRefused> {
        // The largest id, not the first out of range: a loop the compiler
        // vectorizes (every stack of every result read is checked).
        self.stack_of_largest(process, ids.iter().copied().max(), frames)
    }

    /// A call path, when `frames` frames and `stacks` stacks are read
    /// before it (paths come before every stack).
    pub(crate) fn path(
        &self,
        ids: &[u32],
        frames: usize,
        stacks: usize,
    ) -> std::result::Result<(), RecordRefused> {
        self.path_of_largest(ids.iter().copied().max(), frames, stacks)
    }

    /// [`Self::path`] of a path whose largest frame id is `largest`.
    #[inline]
    pub(crate) fn path_of_largest(
        &self,
        largest: Option<u32>,
        frames: usize,
        stacks: usize,
    ) -> std::result::Result<(), RecordRefused> {
        self.paths_exist()?;
        Self::frame_ids("path", largest, frames)?;
        match stacks {
            0 => Ok(()),
            _ => Err(RecordRefused::PathAfterStacks { stacks }),
        }
    }

    /// Frame ids of a `what` whose largest is `largest`, when `frames`
    /// frames are read before it.
    #[inline]
    fn frame_ids(
        what: &'static str,
        largest: Option<u32>,
        frames: usize,
    ) -> std::result::Result<(), RecordRefused> {
        match largest {
            Some(f) if f as usize >= frames => Err(RecordRefused::Frame {
                what,
                frame: f,
                frames,
            }),
            _ => Ok(()),
        }
    }

    /// A stack on a call path (`None`: a step to no path, see
    /// [`path_after`]), when `paths` paths are read before it.
    #[inline]
    pub(crate) fn path_stack(
        &self,
        process: u32,
        path: Option<u32>,
        paths: usize,
    ) -> std::result::Result<(), RecordRefused> {
        self.paths_exist()?;
        self.context_process(process)?;
        match path {
            Some(p) if (p as usize) < paths => Ok(()),
            Some(path) => Err(RecordRefused::Path { path, paths }),
            None => Err(RecordRefused::PathOutOfRange { paths }),
        }
    }

    /// [`Self::stack`] of a stack whose largest frame id is `largest`
    /// (`None`: no frames), found as its ids were decoded.
    #[inline]
    pub(crate) fn stack_of_largest(
        &self,
        process: u32,
        largest: Option<u32>,
        frames: usize,
    ) -> std::result::Result<(), RecordRefused> {
        self.context_process(process)?;
        Self::frame_ids("stack", largest, frames)
    }

    /// A context, when `stacks` stacks and `variables` variables are read before it.
    #[inline]
    pub(crate) fn context(
        &self,
        c: &ContextBlame,
        stacks: usize,
        variables: usize,
    ) -> std::result::Result<(), RecordRefused> {
        // What is wrong is told apart out of line, from the fields' values:
        // the record stays in registers (a merge checks 10^6 contexts).
        let (variable, process, stack) = (c.variable, c.process, c.stack);
        let process_ok = process < self.processes || (self.summed && process == ALL_RANKS);
        if process_ok && (stack as usize) < stacks && (variable as usize) < variables {
            return Ok(());
        }
        self.context_refused(variable, process, stack, stacks, variables)
    }

    #[cold]
    #[inline(never)]
    fn context_refused(
        &self,
        variable: u32,
        process: u32,
        stack: u32,
        stacks: usize,
        variables: usize,
    ) -> std::result::Result<(), RecordRefused> {
        self.context_process(process)?;
        if stack as usize >= stacks {
            return Err(RecordRefused::Stack { stack, stacks });
        }
        if variable as usize >= variables {
            return Err(RecordRefused::Variable {
                variable,
                variables,
            });
        }
        Ok(())
    }
}
