//! Firefox Profiler's processed format via fxprof-processed-profile: a
//! process per rank, one thread holding its samples. Weights are whole
//! samples (fractional memory attributions are scaled by 1000).

use crate::trees::WeightedStack;
use blame_formats::results::Results;
use fxprof_processed_profile::{
    CategoryHandle, CpuDelta, Frame, FrameFlags, FrameInfo, Profile, ReferenceTimestamp,
    SamplingInterval, Timestamp,
};
use std::collections::BTreeMap;

pub fn firefox(
    results: &Results,
    stacks: &[WeightedStack],
    title: &str,
) -> Result<Vec<u8>, super::ExportError> {
    let mut profile = Profile::new(
        title,
        ReferenceTimestamp::from_millis_since_unix_epoch(0.0),
        SamplingInterval::from_millis(1),
    );
    let fractional = stacks.iter().any(|s| s.weight.fract() != 0.0);
    let scale = if fractional { 1000.0 } else { 1.0 };
    let mut threads = BTreeMap::new();
    for s in stacks {
        let thread = *threads.entry(s.process).or_insert_with(|| {
            let info = results.header.processes.get(s.process as usize);
            let pid = info.map(|p| p.pid).unwrap_or(s.process);
            let label = crate::trees::process_label(results, s.process);
            let process =
                profile.add_process(&label, pid, Timestamp::from_millis_since_reference(0.0));
            let thread = profile.add_thread(
                process,
                pid,
                Timestamp::from_millis_since_reference(0.0),
                true,
            );
            profile.set_thread_name(thread, &label);
            thread
        });
        let frames: Vec<FrameInfo> = s
            .frames
            .iter()
            .map(|f| {
                let name = if f.file.is_empty() {
                    f.name.clone()
                } else {
                    format!(
                        "{} ({}:{})",
                        f.name,
                        f.file.rsplit('/').next().unwrap_or(&f.file),
                        f.line
                    )
                };
                FrameInfo {
                    frame: Frame::Label(profile.intern_string(&name)),
                    category_pair: CategoryHandle::OTHER.into(),
                    flags: FrameFlags::empty(),
                }
            })
            .collect();
        let stack = profile.intern_stack_frames(thread, frames.into_iter());
        let weight = (s.weight * scale).round();
        if weight < 1.0 {
            continue;
        }
        profile.add_sample(
            thread,
            Timestamp::from_millis_since_reference(0.0),
            stack,
            CpuDelta::ZERO,
            weight.min(i32::MAX as f64) as i32,
        );
    }
    serde_json::to_vec(&profile).map_err(super::ExportError::Firefox)
}
