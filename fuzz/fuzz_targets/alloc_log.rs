//! Any bytes given to the allocation log parser: a log or a typed error.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    match blame_formats::alloc_log::AllocLog::parse(data, Path::new("<fuzz>")) {
        Ok(log) => {
            for e in &log.events {
                assert!(e.frames.len() <= blame_formats::alloc_log::MAX_DEPTH as usize);
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
