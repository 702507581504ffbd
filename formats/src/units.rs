//! The translation units of a static db (`DB` with the extension `units`,
//! e.g. `.blame/static.units/`, private to the user): the IR of every unit
//! whose summaries the db holds, one file per unit named by a hash of the
//! unit's name (`<xxh64>.ir`: bitcode or textual IR, as it was analyzed).
//!
//! A caller's summary depends on the write and read sets of the functions
//! it calls in other units; when a unit is rebuilt (or a callee's unit is
//! analyzed after its callers'), the callers' units are analyzed again from
//! these files, under the db's writer lock, with the new sets.

use crate::files;
use std::hash::Hasher;
use std::io;
use std::path::{Path, PathBuf};

/// The units directory of `db`.
pub fn dir_of(db: &Path) -> PathBuf {
    db.with_extension("units")
}

/// Where the IR of unit `unit` (its source file's name) is kept.
pub fn path_of(db: &Path, unit: &str) -> PathBuf {
    let mut h = twox_hash::XxHash64::with_seed(0);
    h.write(unit.as_bytes());
    dir_of(db).join(format!("{:016x}.ir", h.finish()))
}

/// Keeps the IR of `unit` (replacing what an earlier build kept).
pub fn store(db: &Path, unit: &str, ir: &[u8]) -> io::Result<()> {
    crate::analysis_queue::create_private_dir(&dir_of(db))?;
    files::write_atomic(path_of(db, unit), ir)
}

/// The IR kept for `unit`, `None` when none is (a db written before units
/// were kept, or a unit analyzed elsewhere and merged in).
pub fn load(db: &Path, unit: &str) -> io::Result<Option<Vec<u8>>> {
    let path = path_of(db, unit);
    match files::open_regular(&path) {
        Ok(mut f) => {
            let mut bytes = Vec::new();
            io::Read::read_to_end(&mut f, &mut bytes)?;
            Ok(Some(bytes))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_kept_replaced_and_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("static.db");
        assert_eq!(load(&db, "/src/main.c").unwrap(), None);
        store(&db, "/src/main.c", b"one").unwrap();
        store(&db, "/src/kernels.c", b"two").unwrap();
        store(&db, "/src/main.c", b"three").unwrap();
        assert_eq!(load(&db, "/src/main.c").unwrap().unwrap(), b"three");
        assert_eq!(load(&db, "/src/kernels.c").unwrap().unwrap(), b"two");
        assert_ne!(path_of(&db, "/src/main.c"), path_of(&db, "/src/kernels.c"));
        let mode = std::fs::metadata(dir_of(&db)).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
    }
}
