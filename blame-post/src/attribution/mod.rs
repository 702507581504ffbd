//! Stage 2 of post-processing: a calling context's samples to the
//! variables they are blamed on. [`resolve`] applies the static summaries'
//! transfer functions and container resolution (3.3.3, 3.4.3);
//! [`datacentric`] shares memory samples among the reads of a line (ch. 5);
//! [`by_address`] names what a sample's data address is in; [`footprints`]
//! and [`memory`] turn allocation logs into access weights and memory blame;
//! [`keys`] gives each blamed variable its identity in results. Uses the
//! input stage's types, never the aggregation's.

pub mod by_address;
pub mod datacentric;
pub mod db_check;
pub mod footprints;
pub mod keys;
pub mod memory;
pub mod other_names;
pub mod resolve;
pub mod static_index;
