//! Any bytes given to the JSON-lines sample reader: samples or a typed error.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match blame_formats::jsonl::read_samples(data, "<fuzz>") {
        Ok(samples) => {
            let mut out = Vec::new();
            for s in &samples {
                assert!(s.weight.is_finite() && s.weight >= 0.0);
                blame_formats::jsonl::write_sample(&mut out, s).unwrap();
            }
            // What we write we read back the same.
            let again = blame_formats::jsonl::read_samples(&out[..], "<again>").unwrap();
            assert_eq!(again.len(), samples.len());
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
