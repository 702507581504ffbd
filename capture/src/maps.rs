//! `/proc/PID/maps` text to mappings: the one reading of maps lines (by
//! `procfs-core`), for the recorder (a live process's maps, mappings made
//! before recording began) and for post (the maps the allocation tracer
//! logged, to name heap blocks and the objects of their allocation sites).

use blame_formats::stream::Mapping;
use procfs_core::process::{MMapPath, MemoryMaps};
use procfs_core::FromBufRead;

/// One mapping of a maps file with what the readers ask of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapsEntry {
    pub mapping: Mapping,
    /// Mapped executable (`r-xp`).
    pub executable: bool,
    /// Backed by a file (an absolute path), not a pseudo-mapping (`[vdso]`,
    /// `[heap]`) or anonymous memory.
    pub file: bool,
}

/// The named mappings of `text` (a maps file, or lines of one) of process
/// `pid`; anonymous mappings and lines that are not maps lines are left out.
pub fn parse_maps(pid: u32, text: &str) -> Vec<MapsEntry> {
    text.lines()
        .filter_map(|line| {
            // A line at a time: a damaged line (a torn log) costs only itself.
            let maps = MemoryMaps::from_buf_read(line.as_bytes()).ok()?;
            let m = maps.into_iter().next()?;
            let (path, file) = match &m.pathname {
                MMapPath::Path(p) => (p.to_string_lossy().into_owned(), true),
                MMapPath::Heap => ("[heap]".into(), false),
                MMapPath::Stack => ("[stack]".into(), false),
                MMapPath::TStack(tid) => (format!("[stack:{tid}]"), false),
                MMapPath::Vdso => ("[vdso]".into(), false),
                MMapPath::Vvar => ("[vvar]".into(), false),
                MMapPath::Vsyscall => ("[vsyscall]".into(), false),
                // `[anon:name]` and the like: the brackets are the kernel's.
                MMapPath::Other(s) => (format!("[{s}]"), false),
                // System V shared memory (`/SYSVaabbccdd (deleted)`).
                MMapPath::Vsys(key) => (format!("/SYSV{:08x}", *key as u32), true),
                MMapPath::Anonymous | MMapPath::Rollup => return None,
            };
            Some(MapsEntry {
                mapping: Mapping {
                    pid,
                    start: m.address.0,
                    end: m.address.1,
                    file_offset: m.offset,
                    path,
                    build_id: Vec::new(),
                },
                executable: m
                    .perms
                    .contains(procfs_core::process::MMPermissions::EXECUTE),
                file,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_lines_become_mappings() {
        let text = "\
5583f8a00000-5583f8a21000 r-xp 00001000 08:01 131 /usr/bin/my prog\n\
7f1c2a000000-7f1c2a021000 rw-p 00000000 00:00 0 \n\
7ffd-7ffe rw-p 00000000 00:00 0                          [stack]\n\
7ffc0000-7ffc2000 r-xp 00000000 00:00 0                  [vdso]\n\
7f00-7f10 r--p 00002000 08:01 99   /lib/x.so (deleted)\n\
7e00-7e10 rw-s 00000000 00:01 5   /SYSV0000002a (deleted)\n\
7d00-7d10 rw-p 00000000 00:00 0   [anon:arena]\n\
not a maps line\n";
        let got = parse_maps(7, text);
        let brief: Vec<(u64, u64, u64, &str, bool, bool)> = got
            .iter()
            .map(|e| {
                let m = &e.mapping;
                (
                    m.start,
                    m.end,
                    m.file_offset,
                    m.path.as_str(),
                    e.executable,
                    e.file,
                )
            })
            .collect();
        assert_eq!(
            brief,
            [
                (
                    0x5583f8a00000,
                    0x5583f8a21000,
                    0x1000,
                    "/usr/bin/my prog",
                    true,
                    true
                ),
                (0x7ffd, 0x7ffe, 0, "[stack]", false, false),
                (0x7ffc0000, 0x7ffc2000, 0, "[vdso]", true, false),
                (0x7f00, 0x7f10, 0x2000, "/lib/x.so (deleted)", false, true),
                (0x7e00, 0x7e10, 0, "/SYSV0000002a", false, true),
                (0x7d00, 0x7d10, 0, "[anon:arena]", false, false),
            ]
        );
        assert!(got.iter().all(|e| e.mapping.pid == 7));
    }
}
