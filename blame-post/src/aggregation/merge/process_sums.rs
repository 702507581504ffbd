//! A key's sums per process (inclusive, exclusive, explicit, inherited
//! and by method), as a merger holds them: a part's values added, another
//! merger's sums joined or merged in one pass, and the records made of them.

use crate::borrowed_keys::FxKeyMap;
use blame_formats::results::{
    FunctionBlame, FunctionKey, ProcessValue, VariableBlame, VariableKey,
};
use std::collections::BTreeMap;

/// Sums of one key in one process: (inclusive, exclusive, explicit, inherited, methods).
type Sums = (f64, f64, f64, f64, BTreeMap<String, f64>);

/// A key's sums per process, in the order of the processes. Parts come
/// in the order of their ranks, so a part's process is mostly after every
/// one before: its sums are appended, and another merger's (of the groups
/// of parts after) are joined on the end, not searched.
#[derive(Debug, Default, PartialEq)]
pub(super) struct ProcessSums(Vec<(u32, Sums)>);

impl ProcessSums {
    /// The sums of `process`, added (zero) when new.
    fn entry(&mut self, process: u32) -> &mut Sums {
        let v = &mut self.0;
        let at = match v.last() {
            Some(&(last, _)) if last < process => v.len(),
            None => 0,
            _ => match v.binary_search_by_key(&process, |e| e.0) {
                Ok(at) => return &mut v[at].1,
                Err(at) => at,
            },
        };
        v.insert(at, (process, Sums::default()));
        &mut v[at].1
    }
}

impl IntoIterator for ProcessSums {
    type Item = (u32, Sums);
    type IntoIter = std::vec::IntoIter<(u32, Sums)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

pub(super) fn add_values(into: &mut ProcessSums, values: &[ProcessValue]) {
    // A part's values come in the order of their processes: after the
    // sums so far (parts in rank order) they are appended one by one, else
    // (a part's processes among those before) its sums are merged in one
    // pass, never inserted one by one into the middle of many.
    let after = match (into.0.last(), values.first()) {
        (Some(&(last, _)), Some(first)) => first.process > last,
        _ => true,
    };
    if after || values.len() == 1 {
        values.iter().for_each(|v| add_value(into, v));
        return;
    }
    let mut part = ProcessSums::default();
    values.iter().for_each(|v| add_value(&mut part, v));
    add_sums(into, part);
}

fn add_value(into: &mut ProcessSums, v: &ProcessValue) {
    add_to_sums(
        into.entry(v.process),
        [v.inclusive, v.exclusive, v.explicit, v.inherited],
        v.methods.iter().map(|(m, x)| (m.as_str(), *x)),
    );
}

/// Adds four sums (inclusive, exclusive, explicit, inherited) and sums by
/// method to `e`; a method's name is copied only when `e` has none yet.
fn add_to_sums<'m>(
    e: &mut Sums,
    [inclusive, exclusive, explicit, inherited]: [f64; 4],
    methods: impl IntoIterator<Item = (&'m str, f64)>,
) {
    e.0 += inclusive;
    e.1 += exclusive;
    e.2 += explicit;
    e.3 += inherited;
    for (m, x) in methods {
        match e.4.get_mut(m) {
            Some(sum) => *sum += x,
            None => {
                e.4.insert(m.to_owned(), x);
            }
        }
    }
}

/// Adds the sums per process `from` (another merger's) to `into`, as
/// [`add_values`] of their values would. Mergers of consecutive groups of
/// parts hold consecutive ranks: the sums are then joined, not searched;
/// else the two are merged in one pass.
pub(super) fn add_sums(into: &mut ProcessSums, from: ProcessSums) {
    let after = match (into.0.last(), from.0.first()) {
        (Some((last, _)), Some((first, _))) => first > last,
        _ => true,
    };
    if after {
        into.0.extend(from.0);
        return;
    }
    let ours = std::mem::take(&mut into.0);
    let mut merged = Vec::with_capacity(ours.len() + from.0.len());
    let (mut ours, mut theirs) = (ours.into_iter().peekable(), from.into_iter().peekable());
    while let (Some(a), Some(b)) = (ours.peek(), theirs.peek()) {
        let next = match a.0.cmp(&b.0) {
            std::cmp::Ordering::Less => ours.next(),
            std::cmp::Ordering::Greater => theirs.next(),
            std::cmp::Ordering::Equal => {
                let (process, mut e) = ours.next().expect("peeked");
                let (_, (inclusive, exclusive, explicit, inherited, methods)) =
                    theirs.next().expect("peeked");
                add_to_sums(
                    &mut e,
                    [inclusive, exclusive, explicit, inherited],
                    methods.iter().map(|(m, x)| (m.as_str(), *x)),
                );
                Some((process, e))
            }
        };
        merged.extend(next);
    }
    merged.extend(ours);
    merged.extend(theirs);
    into.0 = merged;
}

fn to_values(m: ProcessSums) -> Vec<ProcessValue> {
    m.into_iter()
        .map(
            |(process, (inclusive, exclusive, explicit, inherited, methods))| ProcessValue {
                process,
                inclusive,
                exclusive,
                explicit,
                inherited,
                methods: methods.into_iter().collect(),
            },
        )
        .collect()
}

/// Each variable key with its sums per process, as records (in the keys'
/// order).
pub(super) fn variable_blames(
    keys: impl IntoIterator<Item = VariableKey>,
    sums: Vec<ProcessSums>,
) -> Vec<VariableBlame> {
    keys.into_iter()
        .zip(sums)
        .map(|(key, m)| VariableBlame {
            key,
            values: to_values(m),
        })
        .collect()
}

/// Each function key with its sums per process, as records (unordered).
pub(super) fn function_blames(sums: FxKeyMap<FunctionKey, ProcessSums>) -> Vec<FunctionBlame> {
    sums.into_iter()
        .map(|(key, m)| FunctionBlame {
            key,
            values: to_values(m),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Another merger's sums per process, and a part's values, add as
    /// their values would one by one, whether their processes come after
    /// these (joined) or among them (merged).
    #[test]
    fn sums_of_two_mergers_add_as_their_values() {
        let sums = |ps: &[u32], x: f64| -> ProcessSums {
            ProcessSums(
                ps.iter()
                    .map(|&p| {
                        let methods = BTreeMap::from([("raw".to_string(), x)]);
                        (p, (x, x / 2.0, 1.0, 0.0, methods))
                    })
                    .collect(),
            )
        };
        for (ours, theirs) in [
            (&[0, 1][..], &[2, 3][..]),
            (&[0, 2], &[1, 2, 5]),
            (&[], &[4]),
            (&[3, 4, 9], &[0, 1, 4, 10]),
            (&[7], &[]),
        ] {
            let mut joined = sums(ours, 1.5);
            add_sums(&mut joined, sums(theirs, 2.25));
            let mut added = sums(ours, 1.5);
            add_values(&mut added, &to_values(sums(theirs, 2.25)));
            // One value at a time, each process found on its own.
            let mut one_by_one = sums(ours, 1.5);
            for v in to_values(sums(theirs, 2.25)) {
                add_value(&mut one_by_one, &v);
            }
            assert_eq!(joined, one_by_one, "{ours:?} then {theirs:?}");
            assert_eq!(added, one_by_one, "{ours:?} then {theirs:?}");
        }
    }

    /// Sums per process come out in the order of the processes, however
    /// they were added, each process once, as a map's would.
    #[test]
    fn process_sums_keep_processes_in_order() {
        let mut sums = ProcessSums::default();
        let mut map: BTreeMap<u32, f64> = BTreeMap::new();
        for (i, p) in [5u32, 7, 9, 6, 0, 9, 12, 5, 3].into_iter().enumerate() {
            sums.entry(p).0 += i as f64;
            *map.entry(p).or_default() += i as f64;
        }
        let got: Vec<(u32, f64)> = sums.into_iter().map(|(p, s)| (p, s.0)).collect();
        assert_eq!(got, map.into_iter().collect::<Vec<_>>());
    }
}
