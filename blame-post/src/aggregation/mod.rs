//! Stage 3 of post-processing: resolved contexts summed into results per
//! variable, function and context per process ([`aggregate`]), and the
//! reduction of shards' partial results into one ([`merge`]).

pub mod aggregate;
pub mod merge;
