//! Any bytes given to the sample stream reader: a typed error or a recovered
//! prefix (or, salvaging, every intact chunk), never a panic, a hang or an unbounded allocation.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok((stream, recovery)) = blame_formats::stream::read_stream_bytes(data) {
        // Everything handed out must be usable: resolve every sample's stack.
        for s in &stream.samples {
            let _ = stream.frames(s.stack);
        }
        let _ = recovery.stopped_by.map(|e| e.to_string());
    }
    // The salvaging reader skips damage: every sample it keeps has its whole stack.
    if let Ok((stream, salvage)) = blame_formats::stream::salvage_stream_bytes(data) {
        for s in &stream.samples {
            assert!(stream.frames(s.stack).is_ok());
        }
        let _ = salvage.describe();
    }
});
