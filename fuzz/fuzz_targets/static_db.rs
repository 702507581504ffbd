//! Any bytes given to the static db reader: a typed error or a validated db.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match blame_formats::static_db::StaticDb::read_bytes(data) {
        Ok((db, _header)) => {
            for f in db.functions.values() {
                assert!(f.validate().is_ok());
                for v in &f.variables {
                    let _ = v.lines();
                }
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
