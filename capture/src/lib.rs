//! # blame-capture: from perf records to process images
//!
//! The layer under both ways samples enter the pipeline: `blame record`
//! (the sampler reads the kernel's ring buffers) and `blame post
//! --perf-data` (captures of Linux `perf record`). Both parse records with
//! one parser, follow processes with one table, unwind with one unwinder
//! and find object files with one locator; only the ends differ. The
//! recorder's [`process_table::ImageSink`] writes sample streams (in
//! `blame-sampler`); the importer's keeps the images in memory for
//! `blame-post` ([`perf_data::read_perf_data`]).
//!
//! ```text
//! ring buffer ─┐                                  ┌─> stream files (sampler)
//!              ├─> perf_records ─> process_table ─┤
//! perf.data ───┘        (unwind, locate)          └─> imported_images (blame-post)
//! ```
//!
//! | module | job |
//! |---|---|
//! | `perf_records` | the one parser of perf records (`linux-perf-event-reader`, given the events' attributes) |
//! | `process_table` | processes, images, mappings and threads through fork/exec/mmap/exit; samples unwound and handed to a sink |
//! | `unwind` | framehop unwinding of copied stacks |
//! | `locate` | where a mapping's object file and its debug file are on this machine |
//! | `maps` | `/proc/PID/maps` text to mappings (a live process's, or the allocation tracer's log) |
//! | `perf_data` | reading perf.data files into the process table |
//! | `imported_images` | the importer's sink (images in memory) and source (object files by `--binary-path`) |
//! | `error` | errors of reading a capture |
//!
//! No `unsafe` here: the recorder hands the unwinder memory-mapped files
//! through [`unwind::ObjectCache::new`].

#![forbid(unsafe_code)]
pub mod error;
pub mod imported_images;
pub mod locate;
pub mod maps;
pub mod perf_data;
pub mod perf_records;
pub mod process_table;
pub mod unwind;

pub use error::{ImportError, ImportWarning};
