//! The performance models Extra-P fits: terms of factors `n^(E)` and
//! `log2(n)^(E)`, with the fit quality Extra-P reported, evaluated at a
//! point.

use serde::Serialize;

/// One factor of a model term: `param^exponent * log2(param)^log_exponent`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ModelFactor {
    pub parameter: String,
    pub exponent: f64,
    pub log_exponent: f64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ModelTerm {
    pub coefficient: f64,
    pub factors: Vec<ModelFactor>,
}

/// A model Extra-P returned, with the fit quality it reported.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Model {
    /// Extra-P's own rendering, e.g. `0.02 + 0.1 * n^(1)`.
    pub function: String,
    pub constant: f64,
    /// The terms read back from `function` (empty for a constant model).
    pub terms: Vec<ModelTerm>,
    pub adjusted_r2: Option<f64>,
    pub smape: Option<f64>,
    pub rss: Option<f64>,
    pub re: Option<f64>,
}

impl Model {
    /// The model at `point` (values in the order of `parameters`), or
    /// `None` when a factor names an unknown parameter.
    pub fn eval(&self, parameters: &[String], point: &[f64]) -> Option<f64> {
        let mut y = self.constant;
        for t in &self.terms {
            let mut x = t.coefficient;
            for f in &t.factors {
                let p = point[parameters.iter().position(|n| *n == f.parameter)?];
                x *= p.powf(f.exponent) * p.log2().powf(f.log_exponent);
            }
            y += x;
        }
        Some(y)
    }

    /// A model without terms: the blame does not change with the parameters.
    pub fn is_constant(&self) -> bool {
        self.terms.is_empty()
    }
}
