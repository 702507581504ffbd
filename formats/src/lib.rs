//! # blame-formats: the files between the pipeline's stages
//!
//! ```text
//! sampler ──sample stream──> blame-post <──static db── blame-static
//!                                │
//!                             results ──> report
//! ```
//!
//! Every binary file is a [`container`]: magic, version, then zstd-compressed
//! chunks with checksums, so a crash loses at most the last chunk and readers
//! report torn or corrupt data as typed [`FormatError`]s instead of panicking.
//! [`jsonl`] is the text form of samples with symbolic frames. This crate
//! depends on no other workspace crate; `FORMATS.md` documents the layouts.

#![forbid(unsafe_code)]
pub mod alloc_log;
pub mod analysis_queue;
pub mod container;
pub mod db_store;
pub mod error;
pub mod files;
pub mod jsonl;
pub mod lock;
pub mod manifest;
pub mod memory_profile;
pub mod names;
pub mod node_file;
pub mod record_bytes;
pub mod results;
pub mod results_flat;
pub mod run_dir;
pub mod static_db;
pub mod stream;
pub mod units;

pub use error::{FormatError, Result};
