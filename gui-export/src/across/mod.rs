//! Across runs: the same program's variables compared between two runs
//! ([`diff`]) and modelled over many ([`scaling`], with Extra-P).
//!
//! Runs of different builds name the same variable with the same defining
//! function, name and type, but its line (and the source path) may move, so
//! variables are matched on (function, name, type); when one function has
//! several variables of one name and type (two loops' `i`), they are paired
//! by line after the shift of the function's other variables.

pub mod diff;
pub mod scaling;

use crate::views::VariableRow;
use std::collections::BTreeMap;

/// What identifies a variable across builds.
fn group_key(r: &VariableRow) -> (&str, &str, &str) {
    (&r.function, &r.name, &r.type_name)
}

/// Pairs the rows of two runs: `(Some(i), Some(j))` for `a[i]` matched with
/// `b[j]`, `(Some(i), None)` for a row only in `a`, `(None, Some(j))` only in `b`.
/// Pairs come in `a`'s order, then `b`'s unmatched rows.
pub fn match_rows(a: &[VariableRow], b: &[VariableRow]) -> Vec<(Option<usize>, Option<usize>)> {
    let mut groups_a: BTreeMap<(&str, &str, &str), Vec<usize>> = BTreeMap::new();
    let mut groups_b: BTreeMap<(&str, &str, &str), Vec<usize>> = BTreeMap::new();
    for (i, r) in a.iter().enumerate() {
        groups_a.entry(group_key(r)).or_default().push(i);
    }
    for (j, r) in b.iter().enumerate() {
        groups_b.entry(group_key(r)).or_default().push(j);
    }
    // The line shift of each function, from its unambiguous variables (median).
    let mut shifts: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    for (k, ia) in &groups_a {
        if let (1, Some(jb)) = (ia.len(), groups_b.get(k).filter(|v| v.len() == 1)) {
            let shift = b[jb[0]].line as i64 - a[ia[0]].line as i64;
            shifts.entry(k.0).or_default().push(shift);
        }
    }
    let shift_of = |function: &str| -> i64 {
        shifts
            .get(function)
            .map(|v| {
                let mut v = v.clone();
                v.sort_unstable();
                v[v.len() / 2]
            })
            .unwrap_or(0)
    };
    let mut partner_of_a: Vec<Option<usize>> = vec![None; a.len()];
    let mut taken_b = vec![false; b.len()];
    for (k, ia) in &groups_a {
        let Some(jb) = groups_b.get(k) else { continue };
        let shift = shift_of(k.0);
        // Greedy on the shifted line distance, then the order of lines.
        let mut pairs: Vec<(i64, u32, u32, usize, usize)> = Vec::new();
        for &i in ia {
            for &j in jb {
                let d = (b[j].line as i64 - a[i].line as i64 - shift).abs();
                pairs.push((d, a[i].line, b[j].line, i, j));
            }
        }
        pairs.sort_unstable();
        for (_, _, _, i, j) in pairs {
            if partner_of_a[i].is_none() && !taken_b[j] {
                partner_of_a[i] = Some(j);
                taken_b[j] = true;
            }
        }
    }
    let mut out: Vec<(Option<usize>, Option<usize>)> = partner_of_a
        .into_iter()
        .enumerate()
        .map(|(i, j)| (Some(i), j))
        .collect();
    out.extend(
        taken_b
            .iter()
            .enumerate()
            .filter(|(_, t)| !**t)
            .map(|(j, _)| (None, Some(j))),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::RankStats;

    pub(crate) fn row(function: &str, name: &str, line: u32) -> VariableRow {
        VariableRow {
            name: name.into(),
            function: function.into(),
            file: "/a/x.c".into(),
            line,
            type_name: "int".into(),
            kind: "local".into(),
            samples: 1.0,
            percent: 1.0,
            explicit: 1.0,
            explicit_percent: 1.0,
            exclusive: 0.0,
            exclusive_percent: 0.0,
            derived: false,
            ranks: RankStats::default(),
            methods: Default::default(),
            also_reached_as: Vec::new(),
        }
    }

    #[test]
    fn moved_lines_match_and_same_names_pair_after_the_shift() {
        // B inserted 10 lines above `f`; `f` has two `i`, and B lost the first.
        let a = vec![row("f", "a", 10), row("f", "i", 12), row("f", "i", 20)];
        let b = vec![row("f", "i", 30), row("f", "a", 20), row("g", "z", 1)];
        let m = match_rows(&a, &b);
        assert_eq!(
            m,
            vec![
                (Some(0), Some(1)),
                (Some(1), None),
                (Some(2), Some(0)),
                (None, Some(2))
            ]
        );
    }

    #[test]
    fn type_and_function_are_part_of_the_identity() {
        let a = vec![row("f", "a", 10)];
        let mut other_type = row("f", "a", 10);
        other_type.type_name = "double".into();
        let b = vec![other_type, row("g", "a", 10)];
        let m = match_rows(&a, &b);
        assert_eq!(m, vec![(Some(0), None), (None, Some(0)), (None, Some(1))]);
    }
}
