//! Static variable-blame analysis (dissertation ch. 3 and 5.1) over LLVM IR.

pub mod ir;
pub mod llvm_loader;

/// Bumped whenever the analysis changes, so cached summaries are recomputed.
pub const ANALYSIS_VERSION: u64 = 1;
