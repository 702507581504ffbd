//! Any bytes given to the allocation log parser: a log or a typed error.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    match blame_formats::alloc_log::AllocLog::parse(data, Path::new("<fuzz>")) {
        Ok(log) => {
            for e in &log.events {
                assert!(log.frames(e).len() <= blame_formats::alloc_log::MAX_DEPTH as usize);
                assert!(log.weight(e) >= 1.0);
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
