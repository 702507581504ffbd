//! Any bytes given to the results reader: a typed error or consistent results.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match blame_formats::results::Results::read_bytes(data) {
        Ok(r) => {
            let n = r.header.processes.len() as u32;
            // A summed result's contexts may belong to all ranks at once.
            let all_ranks = r.header.summed.is_some();
            let process_ok =
                |p: u32| p < n || (all_ranks && p == blame_formats::results::ALL_RANKS);
            for c in &r.contexts {
                assert!(process_ok(c.process) && (c.stack as usize) < r.stacks.len());
            }
            for st in &r.stacks {
                assert!(process_ok(st.process));
                assert!(st.frames.iter().all(|&f| (f as usize) < r.frames.len()));
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
