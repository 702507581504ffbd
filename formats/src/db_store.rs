//! The build-id index of static dbs (`$BLAME_DB_STORE`, a directory
//! shared by the users of a machine, e.g. mode 1777). At each link step
//! `blame cc` registers the db that holds the linked binary's summaries
//! under the binary's build-id (`BUILD-ID.json`); `blame daemon` finds a
//! job's db there, so posting a daemon run needs no user action.

use serde::{Deserialize, Serialize};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The environment variable naming the store.
pub const STORE_VAR: &str = "BLAME_DB_STORE";

/// One registration.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Entry {
    /// The static db (absolute).
    pub db: PathBuf,
    /// The binary linked (absolute), for people reading the store.
    pub binary: PathBuf,
}

fn entry_path(store: &Path, build_id: &[u8]) -> PathBuf {
    let hex: String = build_id.iter().map(|b| format!("{b:02x}")).collect();
    store.join(format!("{hex}.json"))
}

/// Registers `db` for the binary of `build_id` (replacing an older
/// registration of the same build, atomically).
pub fn register(store: &Path, build_id: &[u8], db: &Path, binary: &Path) -> std::io::Result<()> {
    if build_id.is_empty() {
        return Err(std::io::Error::other("the binary has no build-id"));
    }
    let entry = Entry {
        db: std::path::absolute(db)?,
        binary: std::path::absolute(binary)?,
    };
    let json = serde_json::to_vec_pretty(&entry).map_err(std::io::Error::other)?;
    crate::files::write_atomic(entry_path(store, build_id), &json)
}

/// The db registered for `build_id`, if any (and still there).
pub fn lookup(store: &Path, build_id: &[u8]) -> Option<PathBuf> {
    if build_id.is_empty() {
        return None;
    }
    let mut bytes = Vec::new();
    crate::files::open_regular(entry_path(store, build_id))
        .ok()?
        .take(1 << 16)
        .read_to_end(&mut bytes)
        .ok()?;
    let entry: Entry = serde_json::from_slice(&bytes).ok()?;
    entry.db.is_file().then_some(entry.db)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registered_db_is_found_by_build_id_while_it_exists() {
        let store = tempfile::tempdir().unwrap();
        let db = store.path().join("static.db");
        std::fs::write(&db, b"db").unwrap();
        let id = [0xab, 0x01, 0xff];
        assert_eq!(lookup(store.path(), &id), None);
        register(store.path(), &id, &db, Path::new("/bin/app")).unwrap();
        assert!(store.path().join("ab01ff.json").is_file());
        assert_eq!(lookup(store.path(), &id), Some(db.clone()));
        std::fs::remove_file(&db).unwrap();
        assert_eq!(lookup(store.path(), &id), None, "a db that is gone");
        assert!(register(store.path(), &[], &db, Path::new("/bin/app")).is_err());
    }
}
