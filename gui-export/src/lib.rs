//! # blame-report: how people see blame
//!
//! ```text
//! results (blame-post) ──> blame-report ──> text / json / csv reports
//! ```
//!
//! The last stage of the pipeline. It renders [`Results`](blame_formats::results::Results)
//! and never computes blame: [`views`] selects, filters and summarizes rows
//! (per-rank statistics, percentages of the run), [`render`] turns a view into
//! a text table, JSON or CSV.

#![forbid(unsafe_code)]
pub mod across;
pub mod export;
pub mod html;
pub mod memory;
pub mod regions;
pub mod render;
pub mod scorep_filter;
pub mod source;
pub mod trees;
pub mod views;

pub use views::{Filters, OutputFormat};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_across;
#[cfg(test)]
mod tests_browser;
#[cfg(test)]
mod tests_columns;
#[cfg(test)]
mod tests_consumers;
#[cfg(test)]
mod tests_interop;
#[cfg(test)]
mod tests_naming;
#[cfg(test)]
mod tests_summed;
