//! Results whose contexts are summed over ranks (results version 5, `blame
//! merge --sum-contexts`): what each consumer does with them. Views of
//! variables and functions and the aggregate trees work as on per-rank
//! results; what needs each rank's calling contexts refuses, naming the
//! results to use instead.

use crate::export::{export, ExportError, ExportFormat};
use crate::tests::fixture;
use crate::trees::{self, TreeKind};
use crate::views::{self, Filters};
use blame_formats::results::{ContextBlame, Results, StackRecord, SummedContexts, ALL_RANKS};
use std::collections::BTreeMap;

/// The fixture (two ranks, the same three stacks each) with its stacks and
/// contexts summed over the ranks, as `blame merge --sum-contexts` writes it.
fn summed() -> Results {
    let mut r = fixture();
    let mut stacks: BTreeMap<Vec<u32>, Vec<f64>> = BTreeMap::new();
    for st in &r.stacks {
        let sums = stacks.entry(st.frames.clone()).or_default();
        sums.resize(st.samples.len(), 0.0);
        for (a, b) in sums.iter_mut().zip(&st.samples) {
            *a += b;
        }
    }
    let ids: BTreeMap<Vec<u32>, u32> = stacks
        .keys()
        .enumerate()
        .map(|(i, f)| (f.clone(), i as u32))
        .collect();
    let old = std::mem::take(&mut r.stacks);
    r.contexts = r
        .contexts
        .iter()
        .map(|c| ContextBlame {
            process: ALL_RANKS,
            stack: ids[&old[c.stack as usize].frames],
            ..c.clone()
        })
        .collect();
    r.stacks = stacks
        .into_iter()
        .map(|(frames, samples)| StackRecord {
            process: ALL_RANKS,
            frames,
            samples,
        })
        .collect();
    r.header.summed = Some(SummedContexts {
        from: vec!["node-0.bres".into(), "node-1.bres".into()],
    });
    r
}

fn assert_refused(what: Result<Vec<u8>, ExportError>, names: &str) {
    let e = what
        .expect_err("a per-rank export of summed contexts is refused")
        .to_string();
    assert!(e.contains(names), "{e}");
    assert!(e.contains("--sum-contexts"), "{e}");
    assert!(e.contains("node-0.bres, node-1.bres"), "{e}");
}

#[test]
fn summed_results_write_the_current_version_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("root.bres");
    let r = summed();
    r.write(&path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
    assert_eq!(version, blame_formats::results::RESULTS.version);
    assert_eq!(Results::read(&path).unwrap(), r);
    assert!(Results::read(&path).unwrap().header.summed.is_some());
}

#[test]
fn variable_and_function_views_of_summed_results_are_the_per_rank_ones() {
    for rank in [None, Some(0), Some(1)] {
        let filters = Filters {
            rank,
            ..Default::default()
        };
        let json =
            |r: &Results| serde_json::to_value(views::by_variable(r, &filters).unwrap()).unwrap();
        assert_eq!(json(&summed()), json(&fixture()), "rank {rank:?}");
    }
}

#[test]
fn code_trees_of_summed_results_are_all_ranks_at_once() {
    let per_rank: f64 = trees::code_stacks(&fixture(), 0)
        .iter()
        .map(|s| s.weight)
        .sum();
    let stacks = trees::code_stacks(&summed(), 0);
    assert_eq!(stacks.len(), 3, "one stack per call path, not per rank");
    assert_eq!(stacks.iter().map(|s| s.weight).sum::<f64>(), per_rank);
    assert_eq!(trees::process_label(&summed(), ALL_RANKS), "all ranks");
    let folded =
        String::from_utf8(export(&summed(), ExportFormat::Folded, TreeKind::Code, None).unwrap())
            .unwrap();
    // The per-rank fold is `rank 0;main;foo;bar 3` and `rank 1;...`.
    assert_eq!(folded, "main;foo;bar 6\n");
    for format in [
        ExportFormat::Pprof,
        ExportFormat::Hatchet,
        ExportFormat::Svg,
    ] {
        export(&summed(), format, TreeKind::Code, None).unwrap();
    }
    // Thicket's code tree holds the summed stacks (the application's).
    let thicket = String::from_utf8(
        crate::export::thicket::thicket(&summed(), None, false, "run", &[]).unwrap(),
    )
    .unwrap();
    assert!(thicket.contains("bar"), "{thicket}");
    // Data trees come from the per-rank variable values.
    assert_eq!(
        export(&summed(), ExportFormat::Folded, TreeKind::Data, None).unwrap(),
        export(&fixture(), ExportFormat::Folded, TreeKind::Data, None).unwrap()
    );
}

#[test]
fn per_rank_exports_refuse_summed_results_naming_the_node_results() {
    assert_refused(
        export(&summed(), ExportFormat::Speedscope, TreeKind::Code, None),
        "Speedscope",
    );
    assert_refused(
        export(&summed(), ExportFormat::Firefox, TreeKind::Code, None),
        "Firefox",
    );
    assert_refused(
        export(&summed(), ExportFormat::Cubex, TreeKind::Code, None),
        "Cube4",
    );
    assert_refused(
        export(&summed(), ExportFormat::Html, TreeKind::Code, None),
        "HTML",
    );
    // The same exports of per-rank results work.
    for format in [ExportFormat::Speedscope, ExportFormat::Cubex] {
        export(&fixture(), format, TreeKind::Code, None).unwrap();
    }
}

#[test]
fn drilldown_of_summed_results_sums_ranks_and_refuses_one_rank() {
    let mut sources = crate::source::SourceCache::new(vec![]);
    let d = views::drilldown(&summed(), &Filters::default(), "se.sX", &mut sources).unwrap();
    let paths = &d.variables[0].paths;
    assert_eq!(paths.len(), 1);
    assert_eq!(paths[0].samples, 1.0);
    assert!(paths[0].ranks.is_empty(), "ranks are not known once summed");
    let e = views::drilldown(
        &summed(),
        &Filters {
            rank: Some(0),
            ..Default::default()
        },
        "se.sX",
        &mut sources,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("--rank") && e.contains("node-0.bres, node-1.bres"),
        "{e}"
    );
}
