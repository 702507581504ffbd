//! Stored results are never replaced by emptier ones (fewer variables,
//! fewer samples reaching one) when the db they were computed with is gone,
//! unless `--force`.

use blame_formats::results::{Results, ResultsHeader};
use blame_formats::results_flat::FlatResults;
use std::path::Path;

/// Samples that reached a named variable.
fn covered(header: &ResultsHeader) -> f64 {
    header.coverage.iter().map(|c| c.resolved).sum()
}

/// Why `new` must not replace the results at `path` (unless `--force`):
/// the stored ones, of the same samples, reach more, and the db they were
/// computed with is gone (none found now, or another one found instead).
/// A db the user names (`--static`, `$BLAME_DB`), or the same db rebuilt,
/// gives results that replace the stored ones whatever they reach.
pub(super) fn refuse_emptier(path: &Path, new: &FlatResults, why: Option<&str>) -> Option<String> {
    let old = Results::read(path).ok()?;
    let (old_prov, new_prov) = (&old.header.provenance, &new.header.provenance);
    let same_inputs = match (old_prov, new_prov) {
        (Some(a), Some(b)) => a.inputs == b.inputs,
        _ => true,
    };
    let db_of = |p: &Option<blame_formats::results::Provenance>| {
        p.as_ref()
            .and_then(|p| p.static_db.as_ref())
            .map(|d| d.path.clone())
    };
    let (old_db, new_db) = (db_of(old_prov), db_of(new_prov));
    let db_lost = match (&old_db, &new_db) {
        (_, None) => true,
        (Some(o), Some(n)) => o != n && !Path::new(o).exists(),
        (None, Some(_)) => false,
    };
    let (was, now) = (covered(&old.header), covered(&new.header));
    let emptier =
        (new.variables.is_empty() && !old.variables.is_empty()) || (now < 0.99 * was && was > 0.0);
    (same_inputs && emptier && db_lost).then(|| {
        format!(
            "not replacing {} ({} variables; {} samples reached one) with emptier results ({} variables; {} samples){}; --force replaces it",
            path.display(),
            old.variables.len(),
            was,
            new.variables.len(),
            now,
            why.map(|w| format!(": {w}")).unwrap_or_default()
        )
    })
}
