//! Reads source lines for drill-downs, caching files; a missing file is not an error.
//!
//! Only sources under the source roots are read (`--source-root`, the
//! current directory, the run directory): a DWARF line names any path
//! (`#line 1 "/etc/shadow"`), and a report must not carry a file only
//! because a program's debug info named it. A source must be a regular file
//! of at most [`MAX_SOURCE_BYTES`]; as root, only one readable by every
//! user, or owned by the run's owner (when that is not root). What was left
//! out, and why, is kept ([`SourceCache::left_out`]).

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The largest source file read.
pub const MAX_SOURCE_BYTES: u64 = 16 << 20;

#[derive(Default)]
pub struct SourceCache {
    roots: Vec<PathBuf>,
    /// The roots, resolved (links followed); `/` is never a root.
    canonical_roots: Vec<PathBuf>,
    /// The user whose run this is: as root, their own files are read.
    owner: Option<u32>,
    files: HashMap<String, Option<Vec<String>>>,
    left_out: BTreeMap<String, String>,
}

impl SourceCache {
    /// `roots` are tried in order for relative paths (e.g. the build directory).
    pub fn new(roots: Vec<PathBuf>) -> Self {
        let canonical_roots = roots
            .iter()
            .filter_map(|r| std::fs::canonicalize(r).ok())
            .filter(|r| r != Path::new("/"))
            .collect();
        SourceCache {
            roots,
            canonical_roots,
            owner: None,
            files: HashMap::new(),
            left_out: BTreeMap::new(),
        }
    }

    /// The owner of the run the sources are shown for.
    pub fn with_owner(mut self, uid: Option<u32>) -> Self {
        self.owner = uid;
        self
    }

    /// Sources named by the results but not read, each with the reason
    /// (outside the source roots, not a regular file, not readable by every
    /// user, too large). Missing files are not listed.
    pub fn left_out(&self) -> &BTreeMap<String, String> {
        &self.left_out
    }

    pub fn line(&mut self, file: &str, line: u32) -> Option<String> {
        if file.is_empty() || line == 0 {
            return None;
        }
        if !self.files.contains_key(file) {
            let lines = self.read(file);
            self.files.insert(file.to_string(), lines);
        }
        self.files[file]
            .as_ref()?
            .get(line as usize - 1)
            .map(|s| s.trim().to_string())
    }

    fn read(&mut self, file: &str) -> Option<Vec<String>> {
        let p = Path::new(file);
        let candidates: Vec<PathBuf> = if p.is_absolute() {
            vec![p.to_path_buf()]
        } else {
            self.roots
                .iter()
                .map(|r| r.join(p))
                .chain(std::iter::once(p.to_path_buf()))
                .collect()
        };
        let mut why = None;
        for c in candidates {
            // Missing here: try the next root.
            let Ok(real) = std::fs::canonicalize(&c) else {
                continue;
            };
            match self.allowed(&real) {
                Ok(text) => {
                    return Some(text.lines().map(str::to_string).collect());
                }
                Err(reason) => why = why.or(Some(reason)),
            }
        }
        if let Some(reason) = why {
            self.left_out.insert(file.to_string(), reason.to_string());
        }
        None
    }

    /// The text of `real` (a resolved path) when a report may hold it.
    fn allowed(&self, real: &Path) -> Result<String, LeftOut> {
        if !self.canonical_roots.iter().any(|r| real.starts_with(r)) {
            return Err(LeftOut::OutsideRoots {
                roots: self.roots.clone(),
            });
        }
        let file = blame_formats::files::open_regular(real).map_err(LeftOut::Unreadable)?;
        let m = file.metadata().map_err(LeftOut::Unreadable)?;
        if blame_formats::files::fs_uid() == 0
            && m.mode() & 0o004 == 0
            && !(m.uid() != 0 && Some(m.uid()) == self.owner)
        {
            return Err(LeftOut::Private);
        }
        if m.len() > MAX_SOURCE_BYTES {
            return Err(LeftOut::TooLarge);
        }
        let mut text = String::new();
        file.take(MAX_SOURCE_BYTES)
            .read_to_string(&mut text)
            .map_err(LeftOut::Unreadable)?;
        Ok(text)
    }
}

/// Why a source file is left out of a report.
#[derive(Debug, thiserror::Error)]
enum LeftOut {
    #[error("outside the source roots ({}); add --source-root to show it", roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", "))]
    OutsideRoots { roots: Vec<PathBuf> },
    #[error("{0}")]
    Unreadable(#[source] std::io::Error),
    #[error("not readable by every user nor the run owner's: root does not copy it into a report")]
    Private,
    #[error("larger than {} MiB", MAX_SOURCE_BYTES >> 20)]
    TooLarge,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn only_sources_under_the_roots_are_read() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("src");
        std::fs::create_dir(&root).unwrap();
        std::fs::write(root.join("a.c"), "int main() {\n  return 0;\n}\n").unwrap();
        let outside = d.path().join("secret");
        std::fs::write(&outside, "root:*:19000:0:99999:7:::\n").unwrap();
        std::fs::set_permissions(&outside, std::fs::Permissions::from_mode(0o600)).unwrap();
        let mut c = SourceCache::new(vec![root.clone()]);
        assert_eq!(c.line("a.c", 2).as_deref(), Some("return 0;"));
        assert_eq!(
            c.line(root.join("a.c").to_str().unwrap(), 1).as_deref(),
            Some("int main() {")
        );
        assert_eq!(c.line(outside.to_str().unwrap(), 1), None);
        assert_eq!(c.line("../secret", 1), None);
        assert_eq!(c.line("/etc/shadow", 1), None);
        let out = c.left_out();
        assert!(
            out[outside.to_str().unwrap()].contains("outside the source roots"),
            "{out:?}"
        );
        assert!(out.contains_key("../secret"), "{out:?}");
        // A link under a root to a file outside is outside.
        std::os::unix::fs::symlink(&outside, root.join("link.c")).unwrap();
        assert_eq!(c.line("link.c", 1), None);
        // `/` is no root.
        let mut all = SourceCache::new(vec![PathBuf::from("/")]);
        assert_eq!(all.line(outside.to_str().unwrap(), 1), None);
    }

    #[test]
    fn root_copies_only_what_every_user_or_the_runs_owner_may_read() {
        if !nix_root() {
            return;
        }
        let d = tempfile::tempdir().unwrap();
        let private = d.path().join("private.c");
        std::fs::write(&private, "secret\n").unwrap();
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).unwrap();
        let public = d.path().join("public.c");
        std::fs::write(&public, "shared\n").unwrap();
        std::fs::set_permissions(&public, std::fs::Permissions::from_mode(0o644)).unwrap();
        let mut c = SourceCache::new(vec![d.path().to_path_buf()]);
        assert_eq!(c.line("public.c", 1).as_deref(), Some("shared"));
        assert_eq!(c.line("private.c", 1), None);
        assert!(c.left_out()["private.c"].contains("not readable by every user"));
        // The run's owner's own file is theirs to see.
        std::os::unix::fs::chown(&private, Some(54321), None).unwrap();
        let mut c = SourceCache::new(vec![d.path().to_path_buf()]).with_owner(Some(54321));
        assert_eq!(c.line("private.c", 1).as_deref(), Some("secret"));
        // A FIFO is not a source.
        let fifo = d.path().join("fifo.c");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        assert_eq!(c.line("fifo.c", 1), None);
        assert!(c.left_out()["fifo.c"].contains("FIFO"));
    }

    fn nix_root() -> bool {
        blame_formats::files::fs_uid() == 0
    }
}
