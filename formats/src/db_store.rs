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

/// The stores a link registers in and a recorder looks in: `$BLAME_DB_STORE`
/// when set, and the user's own (`$XDG_DATA_HOME/blame/dbs`, else
/// `~/.local/share/blame/dbs`), so that `blame record` finds the db of a
/// program linked through `blame cc` whatever directory it runs in.
pub fn stores() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::env::var_os(STORE_VAR)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .into_iter()
        .collect();
    if let Some(own) = user_store() {
        if !out.contains(&own) {
            out.push(own);
        }
    }
    out
}

/// The user's own store (`$XDG_DATA_HOME/blame/dbs`, else
/// `$HOME/.local/share/blame/dbs`).
pub fn user_store() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| Path::new(&h).join(".local/share"))
        })?;
    Some(data.join("blame/dbs"))
}

/// Makes the user's own store (mode 0700) if it is not there.
pub fn make_user_store(store: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(store)
}

/// The db registered for `build_id` in any of `stores`, first found.
pub fn lookup_any(stores: &[PathBuf], build_id: &[u8]) -> Option<PathBuf> {
    stores.iter().find_map(|s| lookup(s, build_id))
}

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
    // A db whose units `blame cc` still analyzes counts: readers wait for them.
    (entry.db.is_file() || crate::analysis_queue::dir_of(&entry.db).is_dir()).then_some(entry.db)
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
