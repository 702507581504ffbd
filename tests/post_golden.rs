//! Table 3.10 end to end: the Figure 3.14 program analyzed for real by
//! `blame analyze`, the three samples of Table 3.9 fed as JSON lines.

mod e2e_support;
use e2e_support::*;

#[test]
fn table_3_10_from_the_samples_of_table_3_9() {
    let dir = tempfile::tempdir().unwrap();
    let db = analyze(&program("fig3_14.c"), dir.path(), false);
    let samples = dir.path().join("table_3_9.jsonl");
    let line = |bar_line: u32| {
        format!(
            r#"{{"stack":[{{"function":"bar","file":"fig3_14.c","line":{bar_line}}},{{"function":"foo","file":"fig3_14.c","line":22}},{{"function":"main","file":"fig3_14.c","line":27}}],"event":"cycles","weight":1,"rank":0,"thread":1}}"#
        )
    };
    std::fs::write(&samples, [9, 12, 14].map(line).join("\n")).unwrap();
    let report = report_json(&[
        "--samples",
        samples.to_str().unwrap(),
        "--static",
        db.to_str().unwrap(),
        "--by-variable",
    ]);
    assert_eq!(report["total_samples"], 3.0);
    assert_eq!(report["event"], "cycles");
    let got: Vec<(String, String, String)> = percents(&report)
        .into_iter()
        .map(|(n, f, p)| (n, f, format!("{p:.0}%")))
        .collect();
    let want: Vec<(String, String, String)> = [
        ("se", "foo", "100%"),
        ("se.sX", "foo", "67%"),
        ("se.sY", "foo", "67%"),
        ("loopC", "bar", "33%"),
    ]
    .iter()
    .map(|(n, f, p)| (n.to_string(), f.to_string(), p.to_string()))
    .collect();
    assert_eq!(got, want, "Table 3.10");
}
