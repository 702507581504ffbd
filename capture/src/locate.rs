//! Where the object files of a capture are on this machine: one search
//! order for unwinding (perf.data import) and for symbolization
//! (`blame post`). A mapping's file is looked up under the `--binary-path`
//! directories (by file name) first, then at its recorded path, then by
//! build-id under `/usr/lib/debug/.build-id`. Separate debug files are
//! found by build-id or `.gnu_debuglink`, in gdb's order.

use object::Object;
use std::path::{Path, PathBuf};

/// Where build-id named debug files live.
const BUILD_ID_DIR: &str = "/usr/lib/debug/.build-id";

/// Lower-case hex of `bytes` (build-ids in paths and messages).
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `/usr/lib/debug/.build-id/xx/yyyy.debug` for a build-id of two bytes or more.
fn by_build_id(build_id: &[u8]) -> Option<PathBuf> {
    (build_id.len() > 1).then(|| {
        let id = hex(build_id);
        Path::new(BUILD_ID_DIR)
            .join(&id[..2])
            .join(format!("{}.debug", &id[2..]))
    })
}

/// The pseudo-path of the vDSO's mapping: the kernel's code every process
/// has mapped, of which the recorder saves a copy in the run directory
/// ([`blame_formats::run_dir::VDSO_FILE`]).
pub const VDSO_MAPPING: &str = "[vdso]";

/// The file of a mapping recorded at `recorded` with `build_id` (empty:
/// unknown): the first that exists of `search_dirs`/NAME, `recorded`, and
/// the build-id debug path. The vDSO's is the recorder's copy in one of
/// `search_dirs` (a run directory); other pseudo-files (`[vsyscall]`)
/// have none.
pub fn locate(search_dirs: &[PathBuf], recorded: &str, build_id: &[u8]) -> Option<PathBuf> {
    if recorded == VDSO_MAPPING {
        return search_dirs
            .iter()
            .map(|d| d.join(blame_formats::run_dir::VDSO_FILE))
            .find(|p| p.is_file());
    }
    if recorded.starts_with('[') {
        return None;
    }
    let recorded = Path::new(recorded);
    let name = recorded.file_name()?;
    search_dirs
        .iter()
        .map(|d| d.join(name))
        .chain(std::iter::once(recorded.to_path_buf()))
        .chain(by_build_id(build_id))
        .find(|p| p.is_file())
}

/// Parses `path` reading only the parts of the file `object` asks for
/// (headers, then the tables read), not the whole file.
pub fn with_object<T>(
    path: &Path,
    f: impl FnOnce(&object::File<'_, &object::ReadCache<std::fs::File>>) -> T,
) -> Result<T, ObjectError> {
    let file = blame_formats::files::open_regular(path).map_err(ObjectError::Open)?;
    let cache = object::ReadCache::new(file);
    let parsed = object::File::parse(&cache).map_err(ObjectError::NotObject)?;
    Ok(f(&parsed))
}

/// Why a file's object cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ObjectError {
    #[error("{0}")]
    Open(#[source] std::io::Error),
    #[error("not an object file: {0}")]
    NotObject(#[source] object::Error),
}

/// The GNU build-id of an object file (`None`: unreadable, not an object, or none).
pub fn build_id_of(path: &Path) -> Option<Vec<u8>> {
    with_object(path, |file| {
        file.build_id().ok().flatten().map(<[u8]>::to_vec)
    })
    .ok()
    .flatten()
}

/// True when the object at `path` imports a symbol whose name starts with
/// one of `prefixes` (an executable calling `MPI_Init` through its dynamic
/// symbols). False when it is unreadable or imports none.
pub fn imports_any(path: &Path, prefixes: &[&str]) -> bool {
    with_object(path, |file| {
        file.imports().is_ok_and(|imports| {
            imports.into_iter().flatten().any(|i| match i.name() {
                object::NameOrOrdinal::Name(n) => {
                    std::str::from_utf8(n).is_ok_and(|n| prefixes.iter().any(|p| n.starts_with(p)))
                }
                object::NameOrOrdinal::Ordinal(_) => false,
            })
        })
    })
    .unwrap_or(false)
}

/// The separate debug file of the object at `path`: by build-id under
/// `/usr/lib/debug/.build-id`, else by its `.gnu_debuglink` next to it, in
/// its `.debug` directory or under `/usr/lib/debug` (gdb's search order).
pub fn debug_file(path: &Path, build_id: &[u8]) -> Option<PathBuf> {
    let (own_id, link) = with_object(path, |file| {
        (
            file.build_id().ok().flatten().map(<[u8]>::to_vec),
            file.gnu_debuglink()
                .ok()
                .flatten()
                .map(|(name, _)| String::from_utf8_lossy(name).into_owned()),
        )
    })
    .ok()?;
    let id = if build_id.len() > 1 {
        Some(build_id.to_vec())
    } else {
        own_id
    };
    let by_id = id.and_then(|id| by_build_id(&id));
    let dir = path.parent().unwrap_or(Path::new("/"));
    let by_link = link.into_iter().flat_map(|name| {
        [
            dir.join(&name),
            dir.join(".debug").join(&name),
            Path::new("/usr/lib/debug")
                .join(dir.strip_prefix("/").unwrap_or(dir))
                .join(&name),
        ]
    });
    by_id
        .into_iter()
        .chain(by_link)
        .find(|p| p.is_file() && p != path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_dirs_come_before_the_recorded_path() {
        let dir = tempfile::tempdir().unwrap();
        let exe = std::env::current_exe().unwrap();
        let name = exe.file_name().unwrap();
        let exe = exe.to_str().unwrap();
        assert_eq!(locate(&[], exe, &[]), Some(PathBuf::from(exe)));
        std::fs::write(dir.path().join(name), b"copy").unwrap();
        let dirs = [dir.path().to_path_buf()];
        assert_eq!(locate(&dirs, exe, &[]), Some(dir.path().join(name)));
        assert_eq!(locate(&dirs, "[vdso]", &[]), None);
        std::fs::write(dir.path().join("vdso.so"), b"copy").unwrap();
        assert_eq!(
            locate(&dirs, "[vdso]", &[]),
            Some(dir.path().join("vdso.so"))
        );
        assert_eq!(locate(&dirs, "[vsyscall]", &[]), None);
        assert_eq!(locate(&[], "/nonexistent/lib.so", &[]), None);
    }

    #[test]
    fn build_id_paths() {
        assert_eq!(
            by_build_id(&[0xab, 0xcd, 0xef]),
            Some(PathBuf::from("/usr/lib/debug/.build-id/ab/cdef.debug"))
        );
        assert_eq!(by_build_id(&[1]), None);
        assert_eq!(build_id_of(Path::new("/nonexistent")), None);
    }
}
