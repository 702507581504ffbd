//! Extra-P: its text input (a region per variable, metrics `time` and
//! `share`), its run (`extrap --text FILE --print ...`), its output read
//! back into models, and the models applied to the rows.

use super::model::{Model, ModelFactor, ModelTerm};
use super::{
    ExtrapFailure, ScalingError, ScalingOptions, ScalingPoint, ScalingRow, GROWTH_FACTOR,
    GROWTH_POINTS,
};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// A region name Extra-P keeps as it is: `function::name`, without its
/// call-path separator `->` or line breaks; `#2`... for a second variable
/// of the same name in one function.
fn region_name(function: &str, name: &str, taken: &mut BTreeSet<String>) -> String {
    let base = if function.is_empty() {
        name.to_string()
    } else {
        format!("{function}::{name}")
    };
    let base: String = base
        .replace("->", "-")
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut name = base.clone();
    let mut k = 2;
    while !taken.insert(name.clone()) {
        name = format!("{base} #{k}");
        k += 1;
    }
    name
}

/// A number in the form Extra-P's text format reads (no exponent).
fn number(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        "0".into()
    }
}

/// Extra-P's text input for the regions (one per row) and their
/// per-point values of each metric.
pub fn extrap_text(
    parameters: &[String],
    points: &[ScalingPoint],
    regions: &[String],
    metrics: &[(&str, Vec<&Vec<Vec<f64>>>)],
) -> String {
    let mut s = String::from(
        "# blame scaling: per-variable blame (time in seconds, share in percent of the run)\n",
    );
    s.push_str(&format!("PARAMETER {}\n", parameters.join(" ")));
    s.push_str("POINTS");
    for p in points {
        let coords: Vec<String> = p.values.iter().map(|v| number(*v)).collect();
        s.push_str(&format!(" ( {} )", coords.join(" ")));
    }
    s.push('\n');
    for (metric, data) in metrics {
        s.push_str(&format!("METRIC {metric}\n"));
        for (region, values) in regions.iter().zip(data) {
            s.push_str(&format!("REGION {region}\n"));
            for per_point in values.iter() {
                let v: Vec<String> = per_point.iter().map(|x| number(*x)).collect();
                s.push_str(&format!("DATA {}\n", v.join(" ")));
            }
        }
    }
    s
}

/// `1`, `4/5`, `-1/2`, `1.5`.
fn fraction(s: &str) -> Option<f64> {
    match s.split_once('/') {
        Some((a, b)) => Some(a.trim().parse::<f64>().ok()? / b.trim().parse::<f64>().ok()?),
        None => s.trim().parse().ok(),
    }
}

/// Reads one of Extra-P's model renderings back: terms joined by ` + `,
/// each a coefficient (left out when 1) times factors `n^(E)` and `log2(n)^(E)`.
pub fn parse_model(function: &str) -> Option<(f64, Vec<ModelTerm>)> {
    let mut constant = 0.0;
    let mut terms = Vec::new();
    for term in function.split(" + ") {
        // A coefficient of 1 is left out (`p^(1)`); numbers multiply wherever they stand.
        let mut coefficient = 1.0;
        let mut factors: Vec<ModelFactor> = Vec::new();
        for f in term.split(" * ") {
            let f = f.trim();
            if let Ok(x) = f.parse::<f64>() {
                coefficient *= x;
                continue;
            }
            let (base, exp) = match f.rsplit_once("^(") {
                Some((b, e)) => (b, fraction(e.strip_suffix(')')?)?),
                None => return None,
            };
            let (parameter, log) = match base.strip_prefix("log2(") {
                Some(rest) => (rest.strip_suffix(')')?, true),
                None => (base, false),
            };
            let slot = match factors.iter_mut().find(|x| x.parameter == parameter) {
                Some(x) => x,
                None => {
                    factors.push(ModelFactor {
                        parameter: parameter.to_string(),
                        exponent: 0.0,
                        log_exponent: 0.0,
                    });
                    factors.last_mut().expect("just pushed")
                }
            };
            if log {
                slot.log_exponent += exp;
            } else {
                slot.exponent += exp;
            }
        }
        if factors.is_empty() {
            constant += coefficient;
        } else {
            terms.push(ModelTerm {
                coefficient,
                factors,
            });
        }
    }
    Some((constant, terms))
}

/// What `--print` asks Extra-P for: one tab-separated line per region and metric.
const PRINT_FORMAT: &str = "@@\t{callpath}\t{metric}\t{model}\t{ar2}\t{smape}\t{rss}\t{re}";

/// (region, metric) → model, from Extra-P's output.
pub fn parse_extrap_output(out: &str) -> Vec<(String, String, Model)> {
    out.lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            if f.len() != 8 || f[0] != "@@" {
                return None;
            }
            let opt = |s: &str| s.trim().parse::<f64>().ok().filter(|x| x.is_finite());
            let (constant, terms) = parse_model(f[3]).unwrap_or((f64::NAN, Vec::new()));
            Some((
                f[1].to_string(),
                f[2].to_string(),
                Model {
                    function: f[3].to_string(),
                    constant,
                    terms,
                    adjusted_r2: opt(f[4]),
                    smape: opt(f[5]),
                    rss: opt(f[6]),
                    re: opt(f[7]),
                },
            ))
        })
        .collect()
}

fn run_extrap(extrap: &Path, input: &Path) -> Result<(String, String), ScalingError> {
    let missing = |error: std::io::Error| ExtrapFailure::CannotRun {
        path: extrap.to_path_buf(),
        error,
    };
    let version = Command::new(extrap)
        .arg("--version")
        .output()
        .map_err(missing)?;
    let version = String::from_utf8_lossy(&version.stdout).trim().to_string();
    let out = Command::new(extrap)
        .args(["--disable-progress", "--text"])
        .arg(input)
        .args(["--print", PRINT_FORMAT])
        .output()
        .map_err(missing)?;
    if !out.status.success() {
        return Err(ExtrapFailure::Failed {
            path: extrap.to_path_buf(),
            input: input.to_path_buf(),
            status: out.status,
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        }
        .into());
    }
    Ok((version, String::from_utf8_lossy(&out.stdout).into_owned()))
}

/// Extra-P's models of every row, its time and its share, and whether the
/// share grows with scale; the Extra-P that fitted them.
pub(super) fn fit_models(
    rows: &mut [ScalingRow],
    parameters: &[String],
    points: &[ScalingPoint],
    options: &ScalingOptions,
) -> Result<String, ScalingError> {
    // Extra-P.
    let mut taken = BTreeSet::new();
    let regions: Vec<String> = rows
        .iter()
        .map(|r| region_name(&r.function, &r.name, &mut taken))
        .collect();
    let text = extrap_text(
        parameters,
        points,
        &regions,
        &[
            ("time", rows.iter().map(|r| &r.time).collect()),
            ("share", rows.iter().map(|r| &r.share).collect()),
        ],
    );
    let (modeler, out) = extrap_on(&text, options)?;
    let models = parse_extrap_output(&out);
    if models.is_empty() {
        return Err(ExtrapFailure::NoModels {
            output: out.trim().to_string(),
        }
        .into());
    }
    apply_models(rows, &regions, &models, parameters, points);
    Ok(modeler)
}

/// Extra-P run on the input `text`: where asked (written atomically), else
/// a private temporary file (0600, random name), removed once Extra-P has
/// read it.
fn extrap_on(text: &str, options: &ScalingOptions) -> Result<(String, String), ScalingError> {
    // Extra-P's input: where asked (written atomically), else a private
    // temporary file (0600, random name), removed once Extra-P has read it.
    let input_error = |path: &std::path::Path, error: std::io::Error| ExtrapFailure::Input {
        path: path.to_path_buf(),
        error,
    };
    match &options.extrap_input {
        Some(p) => {
            blame_formats::files::write_atomic(p, text.as_bytes())
                .map_err(|e| input_error(p, e))?;
            run_extrap(&options.extrap, p)
        }
        None => {
            let tmp =
                blame_formats::files::private_temp_file("blame-scaling-", ".txt", text.as_bytes())
                    .map_err(|e| input_error(&std::env::temp_dir(), e))?;
            run_extrap(&options.extrap, &tmp)
        }
    }
}

/// Each row's time and share models, and the share's range from the
/// smallest to the largest parameters.
fn apply_models(
    rows: &mut [ScalingRow],
    regions: &[String],
    models: &[(String, String, Model)],
    parameters: &[String],
    points: &[ScalingPoint],
) {
    let low: Vec<f64> = (0..parameters.len())
        .map(|i| {
            points
                .iter()
                .map(|p| p.values[i])
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    let high: Vec<f64> = (0..parameters.len())
        .map(|i| points.iter().map(|p| p.values[i]).fold(0.0, f64::max))
        .collect();
    for (row, region) in rows.iter_mut().zip(regions) {
        let find = |metric: &str| {
            models
                .iter()
                .find(|(r, m, _)| r == region && m == metric)
                .map(|(_, _, model)| model.clone())
        };
        row.time_model = find("time");
        row.share_model = find("share");
        if let Some(m) = &row.share_model {
            if let (Some(a), Some(b)) = (m.eval(parameters, &low), m.eval(parameters, &high)) {
                row.share_range = Some((a, b));
                row.grows = !m.is_constant() && b - a >= GROWTH_POINTS && b >= GROWTH_FACTOR * a;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_read_back_with_fractions_logs_and_negative_coefficients() {
        let (c, t) = parse_model("-4.3 + 0.05 * n^(4/5) + -1e-05 * p^(1) * log2(p)^(2)").unwrap();
        assert_eq!(c, -4.3);
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].factors[0].parameter, "n");
        assert!((t[0].factors[0].exponent - 0.8).abs() < 1e-12);
        assert_eq!(t[1].coefficient, -1e-05);
        assert_eq!(
            t[1].factors[0],
            ModelFactor {
                parameter: "p".into(),
                exponent: 1.0,
                log_exponent: 2.0
            }
        );
        assert_eq!(parse_model("3.01").unwrap(), (3.01, vec![]));
        let (c, t) = parse_model("4e-16 + p^(1)").unwrap();
        assert_eq!(
            (c, t[0].coefficient, t[0].factors[0].exponent),
            (4e-16, 1.0, 1.0)
        );
        assert!(parse_model("0.5 * what").is_none());
    }

    #[test]
    fn extrap_output_lines_become_models() {
        let out = "@@\tmain::a\ttime\t0.002 + 0.0998 * n^(1)\t0.99995\t1.39\t5.6e-05\t0.0137\n\n";
        let m = parse_extrap_output(out);
        assert_eq!(m.len(), 1);
        let (region, metric, model) = &m[0];
        assert_eq!((region.as_str(), metric.as_str()), ("main::a", "time"));
        assert_eq!(model.adjusted_r2, Some(0.99995));
        let params = vec!["n".to_string()];
        assert!((model.eval(&params, &[10.0]).unwrap() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn text_input_has_one_data_line_per_point_with_repetitions() {
        let points = vec![
            ScalingPoint {
                values: vec![1.0, 1000.0],
                runs: vec!["a".into(), "b".into()],
                seconds: vec![1.0, 1.0],
            },
            ScalingPoint {
                values: vec![2.0, 1000.0],
                runs: vec!["c".into()],
                seconds: vec![1.0],
            },
        ];
        let data = vec![vec![0.5, 0.25], vec![1.5]];
        let text = extrap_text(
            &["p".into(), "n".into()],
            &points,
            &["main::x".into()],
            &[("time", vec![&data])],
        );
        assert!(text.contains("PARAMETER p n\nPOINTS ( 1 1000 ) ( 2 1000 )\nMETRIC time\nREGION main::x\nDATA 0.5 0.25\nDATA 1.5\n"), "{text}");
    }
}
