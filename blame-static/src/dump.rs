//! `--dump json`: a static db as JSON, for people and scripts to read.

use blame_formats::static_db::{ReadIndex, Reuse, StaticDb};

/// The `--dump json` view: per function, each variable with its kind, type,
/// declaration line and blamed lines.
pub fn dump_json(db: &StaticDb) -> serde_json::Value {
    use serde_json::json;
    let functions: Vec<serde_json::Value> = db
        .functions
        .values()
        .map(|f| {
            let vars: Vec<serde_json::Value> = f
                .variables
                .iter()
                .map(|v| {
                    json!({
                        "name": v.name,
                        "kind": v.kind.as_str(),
                        "type": v.type_name,
                        "line": v.line,
                        "explicit_lines": v.explicit_lines,
                        "implicit_lines": v.implicit_lines,
                        "lines": v.lines(),
                        "write_lines": v.write_lines,
                        "exit": v.is_exit,
                        "parent": v.parent.map(|p| f.variables[p as usize].name.clone()),
                        "aliases": v.aliases.iter().map(|&a| f.variables[a as usize].name.clone()).collect::<Vec<_>>(),
                        "heap_bytes": v.heap_bytes,
                        "record": v.is_record,
                        "result": v.is_result,
                        "element_of": v.element_of.map(|o| f.variables[o as usize].name.clone()),
                    })
                })
                .collect();
            let calls: Vec<serde_json::Value> = f
                .call_sites
                .iter()
                .map(|c| {
                    json!({
                        "line": c.line,
                        "callee": c.callee,
                        "outputs": c.outputs.iter().map(|o| json!({
                            "output": match o.output {
                                blame_formats::static_db::CallOutput::Return => "return".to_string(),
                                blame_formats::static_db::CallOutput::Arg(k) => format!("arg{k}"),
                            },
                            "blamed": o.blamed.iter().map(|&b| f.variables[b as usize].name.clone()).collect::<Vec<_>>(),
                            "explicit": o.explicit.iter().map(|&b| f.variables[b as usize].name.clone()).collect::<Vec<_>>(),
                            "pointees": o.pointees.iter().map(|&b| f.variables[b as usize].name.clone()).collect::<Vec<_>>(),
                        })).collect::<Vec<_>>(),
                        "model": c.model.as_ref().map(|m| m.iter().map(|o| format!("{o:?}")).collect::<Vec<_>>()),
                    })
                })
                .collect();
            json!({
                "name": f.name,
                "linkage_name": f.linkage_name,
                "file": f.file,
                "line": f.line,
                "has_line_info": f.has_line_info,
                "variables": vars,
                "call_sites": calls,
                "side_effects": f.side_effects.iter().map(|s| json!({"blamed_param": s.blamed_param, "blamed_path": s.blamed_path, "from_param": s.from_param, "from_path": s.from_path, "implicit": s.implicit})).collect::<Vec<_>>(),
                "param_aliases": f.param_aliases,
                "param_alias_paths": f.param_alias_paths,
                "param_writes": f.param_writes,
                "param_reads": f.param_reads,
                "fields_feeding_data": f.fields_feeding_data,
                "returns_into": f.returns_into.iter().map(|r| json!({"arg": r.arg, "path": r.path, "deref": r.deref})).collect::<Vec<_>>(),
                "unit": f.unit,
                "loops": f.loops.iter().map(|l| json!({"header_line": l.header_line, "lines": l.lines, "parent": l.parent})).collect::<Vec<_>>(),
                "reads": f.reads.iter().map(|lr| json!({
                    "line": lr.line,
                    "reads": lr.reads.iter().enumerate().map(|(k, r)| {
                        let name = |v: u32| f.variables.get(v as usize).map(|v| v.name.clone()).unwrap_or_default();
                        let index = match &r.index {
                            ReadIndex::None => json!(null),
                            ReadIndex::Var(v) => json!({"variable": name(*v)}),
                            ReadIndex::Const(c) => json!({"constant": c}),
                            ReadIndex::Expr(e) => json!({"expression": e}),
                        };
                        let access = lr.costs.get(k).map(|c| {
                            let reuse = match c.reuse {
                                Reuse::Fixed => json!("fixed"),
                                Reuse::Invariant => json!("invariant"),
                                Reuse::Stride(s) => json!({"stride": s}),
                                Reuse::Irregular => json!("irregular"),
                                Reuse::NoLoop => json!("no loop"),
                                Reuse::Recent => json!("recent"),
                                Reuse::Rows { trip, stride } => {
                                    json!({"rows": {"trip": trip, "stride": stride}})
                                }
                                Reuse::Row {
                                    stride,
                                    trip,
                                    pitch,
                                } => {
                                    json!({"row": {"stride": stride, "trip": trip, "pitch": pitch}})
                                }
                            };
                            json!({"reuse": reuse, "footprint": c.footprint, "sweep": c.sweep, "swept_before": c.swept_before})
                        });
                        json!({"variable": name(r.variable), "index": index, "access": access})
                    }).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({ "functions": functions })
}
