//! Any bytes given to the node file reader: the index walk and every
//! section's salvaging read end in a typed error or what is intact, never a
//! panic, a hang or an unbounded allocation.
#![no_main]
use blame_formats::node_file::NodeIndex;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(index) = NodeIndex::scan(&data, "fuzz") else {
        return;
    };
    let _ = index.describe();
    for (i, section) in index.sections.iter().enumerate() {
        let (Ok(reader), Some(header)) = (index.section_reader_in(data, i), section.header.clone())
        else {
            continue;
        };
        // What a salvaging read keeps is usable: every sample's whole stack.
        if let Ok((stream, salvage)) = blame_formats::stream::salvage_from(reader, header) {
            for s in &stream.samples {
                assert!(stream.frames(s.stack).is_ok());
            }
            let _ = salvage.describe();
        }
    }
});
