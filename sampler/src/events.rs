//! Event names as perf spells them (`cycles`, `cpu-clock`,
//! `L1-dcache-load-misses`, raw `r01a1`...) mapped to perf_event types and
//! configs.

use blame_formats::stream::{is_memory_event, EventDesc, Sampling};
use perf_event_open_sys::bindings as b;

/// A perf event the sampler can open.
#[derive(Debug, Clone, PartialEq)]
pub struct EventSpec {
    pub name: String,
    pub type_: u32,
    pub config: u64,
    /// Software clocks count nanoseconds.
    pub is_clock: bool,
}

impl EventSpec {
    pub fn desc(&self, sampling: Sampling) -> EventDesc {
        EventDesc {
            name: self.name.clone(),
            sampling,
            unit: if self.is_clock { "ns" } else { "events" }.into(),
            memory: is_memory_event(&self.name),
        }
    }

    /// True for events that need a hardware PMU.
    pub fn is_hardware(&self) -> bool {
        matches!(
            self.type_,
            b::PERF_TYPE_HARDWARE | b::PERF_TYPE_HW_CACHE | b::PERF_TYPE_RAW
        )
    }
}

const HARDWARE: &[(&str, u32)] = &[
    ("cycles", b::PERF_COUNT_HW_CPU_CYCLES),
    ("cpu-cycles", b::PERF_COUNT_HW_CPU_CYCLES),
    ("instructions", b::PERF_COUNT_HW_INSTRUCTIONS),
    ("cache-references", b::PERF_COUNT_HW_CACHE_REFERENCES),
    ("cache-misses", b::PERF_COUNT_HW_CACHE_MISSES),
    ("branches", b::PERF_COUNT_HW_BRANCH_INSTRUCTIONS),
    ("branch-instructions", b::PERF_COUNT_HW_BRANCH_INSTRUCTIONS),
    ("branch-misses", b::PERF_COUNT_HW_BRANCH_MISSES),
    ("bus-cycles", b::PERF_COUNT_HW_BUS_CYCLES),
    (
        "stalled-cycles-frontend",
        b::PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
    ),
    (
        "stalled-cycles-backend",
        b::PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
    ),
    ("ref-cycles", b::PERF_COUNT_HW_REF_CPU_CYCLES),
];

const SOFTWARE: &[(&str, u32)] = &[
    ("cpu-clock", b::PERF_COUNT_SW_CPU_CLOCK),
    ("task-clock", b::PERF_COUNT_SW_TASK_CLOCK),
    ("page-faults", b::PERF_COUNT_SW_PAGE_FAULTS),
    ("faults", b::PERF_COUNT_SW_PAGE_FAULTS),
    ("context-switches", b::PERF_COUNT_SW_CONTEXT_SWITCHES),
    ("cs", b::PERF_COUNT_SW_CONTEXT_SWITCHES),
    ("cpu-migrations", b::PERF_COUNT_SW_CPU_MIGRATIONS),
    ("migrations", b::PERF_COUNT_SW_CPU_MIGRATIONS),
    ("minor-faults", b::PERF_COUNT_SW_PAGE_FAULTS_MIN),
    ("major-faults", b::PERF_COUNT_SW_PAGE_FAULTS_MAJ),
    ("alignment-faults", b::PERF_COUNT_SW_ALIGNMENT_FAULTS),
    ("emulation-faults", b::PERF_COUNT_SW_EMULATION_FAULTS),
];

const CACHES: &[(&str, u32)] = &[
    ("L1-dcache", b::PERF_COUNT_HW_CACHE_L1D),
    ("L1-icache", b::PERF_COUNT_HW_CACHE_L1I),
    ("LLC", b::PERF_COUNT_HW_CACHE_LL),
    ("dTLB", b::PERF_COUNT_HW_CACHE_DTLB),
    ("iTLB", b::PERF_COUNT_HW_CACHE_ITLB),
    ("branch", b::PERF_COUNT_HW_CACHE_BPU),
    ("node", b::PERF_COUNT_HW_CACHE_NODE),
];

const CACHE_OPS: &[(&str, u32)] = &[
    ("load", b::PERF_COUNT_HW_CACHE_OP_READ),
    ("store", b::PERF_COUNT_HW_CACHE_OP_WRITE),
    ("prefetch", b::PERF_COUNT_HW_CACHE_OP_PREFETCH),
];

const CACHE_RESULTS: &[(&str, u32)] = &[
    ("loads", b::PERF_COUNT_HW_CACHE_RESULT_ACCESS),
    ("stores", b::PERF_COUNT_HW_CACHE_RESULT_ACCESS),
    ("prefetches", b::PERF_COUNT_HW_CACHE_RESULT_ACCESS),
    ("misses", b::PERF_COUNT_HW_CACHE_RESULT_MISS),
];

/// Parses one event name, or says which names exist.
pub fn parse_event(name: &str) -> Result<EventSpec, BadEvent> {
    let spec = |type_, config: u64, is_clock| EventSpec {
        name: name.to_string(),
        type_,
        config,
        is_clock,
    };
    if let Some(&(_, id)) = HARDWARE.iter().find(|(n, _)| *n == name) {
        return Ok(spec(b::PERF_TYPE_HARDWARE, id as u64, false));
    }
    if let Some(&(_, id)) = SOFTWARE.iter().find(|(n, _)| *n == name) {
        let clock = id == b::PERF_COUNT_SW_CPU_CLOCK || id == b::PERF_COUNT_SW_TASK_CLOCK;
        return Ok(spec(b::PERF_TYPE_SOFTWARE, id as u64, clock));
    }
    if let Some(hex) = name.strip_prefix('r') {
        if !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit()) {
            let config = u64::from_str_radix(hex, 16).map_err(|error| BadEvent::Raw {
                name: name.to_string(),
                error,
            })?;
            return Ok(spec(b::PERF_TYPE_RAW, config, false));
        }
    }
    // <cache>-<op>-<result>, e.g. L1-dcache-load-misses, LLC-loads, dTLB-load-misses.
    for &(cache_name, cache) in CACHES {
        let Some(rest) = name
            .strip_prefix(cache_name)
            .and_then(|r| r.strip_prefix('-'))
        else {
            continue;
        };
        let (op, result) = match rest.split_once('-') {
            Some((op, result)) => (op, result),
            // `LLC-loads`: the op is in the result's name.
            None => (rest.trim_end_matches('s'), rest),
        };
        let op = CACHE_OPS.iter().find(|(n, _)| *n == op);
        let result = CACHE_RESULTS.iter().find(|(n, _)| *n == result);
        if let (Some(&(_, op)), Some(&(_, result))) = (op, result) {
            let config = cache as u64 | (op as u64) << 8 | (result as u64) << 16;
            return Ok(spec(b::PERF_TYPE_HW_CACHE, config, false));
        }
    }
    Err(BadEvent::Unknown {
        name: name.to_string(),
    })
}

/// Why an event list names no events blame can sample.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadEvent {
    #[error("unknown event '{name}': use one of {}, a cache event such as L1-dcache-load-misses or LLC-load-misses, or a raw event rNNNN", known_names())]
    Unknown { name: String },
    #[error("{name}: {error}")]
    Raw {
        name: String,
        error: std::num::ParseIntError,
    },
    #[error("no event given")]
    NoEvent,
    #[error("too many events")]
    TooMany,
}

/// The hardware and software events' names, as an error lists them.
fn known_names() -> String {
    let known: Vec<&str> = HARDWARE.iter().chain(SOFTWARE).map(|(n, _)| *n).collect();
    known.join(", ")
}

/// Parses a comma-separated event list.
pub fn parse_events(list: &str) -> Result<Vec<EventSpec>, BadEvent> {
    let events: Vec<EventSpec> = list
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(parse_event)
        .collect::<Result<_, _>>()?;
    if events.is_empty() {
        return Err(BadEvent::NoEvent);
    }
    if events.len() > u16::MAX as usize {
        return Err(BadEvent::TooMany);
    }
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_to_perf_types() {
        let e = parse_event("cpu-clock").unwrap();
        assert_eq!(
            (e.type_, e.config, e.is_clock),
            (b::PERF_TYPE_SOFTWARE, 0, true)
        );
        assert!(!e.is_hardware());
        let e = parse_event("cache-misses").unwrap();
        assert_eq!((e.type_, e.config), (b::PERF_TYPE_HARDWARE, 3));
        assert!(e.desc(Sampling::Period(1000)).memory);
        let e = parse_event("L1-dcache-load-misses").unwrap();
        assert_eq!((e.type_, e.config), (b::PERF_TYPE_HW_CACHE, 1 << 16));
        let e = parse_event("LLC-loads").unwrap();
        assert_eq!((e.type_, e.config), (b::PERF_TYPE_HW_CACHE, 2));
        let e = parse_event("r01a1").unwrap();
        assert_eq!((e.type_, e.config), (b::PERF_TYPE_RAW, 0x1a1));
    }

    #[test]
    fn unknown_names_are_refused_with_the_list() {
        let err = parse_event("cylces").unwrap_err().to_string();
        assert!(
            err.contains("unknown event 'cylces'") && err.contains("cpu-clock"),
            "{err}"
        );
        assert!(parse_events("cpu-clock,,").is_ok());
        assert!(parse_events(",").is_err());
    }
}
