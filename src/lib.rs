//! What the `blame` and `blame-analyzer` executables share (the last stage
//! of the pipeline: the command line over every library crate): the
//! arguments of `blame analyze`, which `blame` checks and `blame-analyzer`
//! runs; how an error is printed; progress on a terminal. `blame` itself
//! never calls into LLVM (it starts in a millisecond as `blame cc`), so the
//! analysis that does (`cmd_analyze`) runs only in `blame-analyzer`.

#![forbid(unsafe_code)]

pub mod analyze_args;
pub mod cmd_analyze;
pub mod error_text;
pub mod progress;
