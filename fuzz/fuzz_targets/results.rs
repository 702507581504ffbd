//! Any bytes given to the results reader: a typed error or consistent results.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match blame_formats::results::Results::read_bytes(data) {
        Ok(r) => {
            let n = r.header.processes.len() as u32;
            for c in &r.contexts {
                assert!(c.process < n && (c.stack as usize) < r.stacks.len());
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
