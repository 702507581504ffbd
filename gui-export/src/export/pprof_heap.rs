//! Heap profiles by variable for pprof (`blame export --format pprof-heap`):
//! from the processes' memory profiles, one sample per (process, variable,
//! allocation site) whose leaf location is the variable that received the
//! blocks (`sys.parts_`, `grid.u`; `[heap via MPI_Init at main:110]` for
//! the runtime's own) above the allocation's call stack, with the values of
//! a heap profile: `alloc_objects`, `alloc_space`, `peak_space` (bytes live
//! at the process's peak; the default) and `leaked_space` (live at exit).
//! Labels: `variable` and `rank`. `go tool pprof -top` lists variables;
//! `-sample_index=alloc_space` switches the value.

use super::pprof::{gzipped, Label, Locations, Profile, Sample, Strings, ValueType};
use blame_formats::memory_profile::MemoryProfile;

/// The heap profile, before gzip.
pub fn heap_profile(profiles: &[MemoryProfile]) -> Profile {
    let mut strings = Strings::new();
    let sample_type: Vec<ValueType> = [
        ("alloc_objects", "count"),
        ("alloc_space", "bytes"),
        ("peak_space", "bytes"),
        ("leaked_space", "bytes"),
    ]
    .iter()
    .map(|(t, u)| ValueType {
        r#type: strings.id(t),
        unit: strings.id(u),
    })
    .collect();
    let mut table = Locations::default();
    let variable_key = strings.id("variable");
    let rank_key = strings.id("rank");
    let mut samples = Vec::new();
    for p in profiles {
        for v in &p.variables {
            for site in &v.sites {
                // Leaf first: the variable, then the allocation's stack.
                let mut ids = vec![table.id(&mut strings, &v.key.name, &v.key.file, v.key.line)];
                for f in &site.frames {
                    let name = blame_formats::names::demangle(&f.function);
                    ids.push(table.id(&mut strings, &name, &f.file, f.line));
                }
                let mut label = vec![Label {
                    key: variable_key,
                    str: strings.id(&v.key.name),
                    ..Default::default()
                }];
                if let Some(r) = p.rank {
                    label.push(strings.rank_label(rank_key, r));
                }
                samples.push(Sample {
                    location_id: ids,
                    value: [site.allocs, site.bytes, site.at_peak, site.leaked_bytes]
                        .iter()
                        .map(|x| x.round() as i64)
                        .collect(),
                    label,
                });
            }
        }
    }
    let comment = vec![strings.id("blame: heap memory by variable (leaf frames are variables)")];
    let default_sample_type = strings.id("peak_space");
    Profile {
        period_type: sample_type.get(1).cloned(),
        period: 1,
        sample_type,
        sample: samples,
        location: table.locations,
        function: table.functions,
        string_table: strings.table,
        comment,
        default_sample_type,
        ..Default::default()
    }
}

/// [`heap_profile`], gzip-compressed.
pub fn pprof_heap(profiles: &[MemoryProfile]) -> Vec<u8> {
    gzipped(&heap_profile(profiles))
}

#[cfg(test)]
mod tests {
    use super::*;
    use blame_formats::memory_profile::{SiteMemory, VariableMemory};
    use blame_formats::results::{SymFrame, VariableKey};

    /// One sample per site, the variable as its leaf, the four values.
    #[test]
    fn a_sample_per_site_with_the_variable_as_leaf() {
        let frame = SymFrame {
            function: "main".into(),
            file: "m.c".into(),
            line: 7,
            column: 0,
            inlined: false,
        };
        let v = VariableMemory {
            key: VariableKey {
                name: "grid.u".into(),
                function: "main".into(),
                file: "m.c".into(),
                line: 3,
                type_name: String::new(),
                kind: "field".into(),
                scalar: false,
                event: 0,
            },
            own: true,
            allocs: 2.0,
            bytes: 200.0,
            at_peak: 100.0,
            peak: 100.0,
            leaked_bytes: 0.0,
            leaked_blocks: 0.0,
            mean_lifetime_ns: 1.0,
            sites: vec![SiteMemory {
                function: "malloc".into(),
                frames: vec![frame],
                allocs: 2.0,
                bytes: 200.0,
                at_peak: 100.0,
                leaked_bytes: 0.0,
            }],
        };
        let p = MemoryProfile {
            version: 1,
            rank: Some(0),
            variables: vec![v],
            ..Default::default()
        };
        let prof = heap_profile(&[p]);
        assert_eq!(prof.sample.len(), 1);
        assert_eq!(prof.sample[0].value, vec![2, 200, 100, 0]);
        let leaf = &prof.location[prof.sample[0].location_id[0] as usize - 1];
        let f = &prof.function[leaf.line[0].function_id as usize - 1];
        assert_eq!(prof.string_table[f.name as usize], "grid.u");
        assert_eq!(
            prof.string_table[prof.default_sample_type as usize],
            "peak_space"
        );
    }
}
