//! What the sampler reads about processes from /proc: command lines, MPI
//! ranks from the environment, executable mappings, exit codes of zombies;
//! and about the machine from /sys: its L1 data cache.

use blame_formats::static_db::{parse_size, CacheGeometry};
use blame_formats::stream::Mapping;
use std::path::Path;

/// The L1 data cache of this machine (CPU 0's), from sysfs; `None` when the
/// kernel does not say (some VMs and containers).
pub fn l1_data_cache() -> Option<CacheGeometry> {
    l1_data_cache_in(Path::new("/sys/devices/system/cpu/cpu0/cache"))
}

/// [`l1_data_cache`] from a sysfs `cache` directory: the `indexN` entry of
/// level 1 and type Data.
fn l1_data_cache_in(dir: &Path) -> Option<CacheGeometry> {
    let read = |index: &Path, file: &str| {
        std::fs::read_to_string(index.join(file))
            .ok()
            .map(|s| s.trim().to_string())
    };
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("index"))
        })
        .find(|p| {
            read(p, "level").as_deref() == Some("1") && read(p, "type").as_deref() == Some("Data")
        })
        .and_then(|p| {
            let l1d_bytes = parse_size(&read(&p, "size")?)?;
            let line_bytes = parse_size(&read(&p, "coherency_line_size")?)?;
            (line_bytes > 0 && l1d_bytes >= line_bytes).then_some(CacheGeometry {
                line_bytes,
                l1d_bytes,
            })
        })
}

/// Number of online CPUs (`/sys/devices/system/cpu/online`, e.g. `0-3,6`).
pub fn online_cpus() -> usize {
    std::fs::read_to_string("/sys/devices/system/cpu/online")
        .ok()
        .and_then(|s| count_cpu_list(&s))
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// CPUs in a kernel CPU list (`0-3,6`).
fn count_cpu_list(text: &str) -> Option<usize> {
    let mut n = 0;
    for part in text.trim().split(',') {
        n += match part.split_once('-') {
            Some((a, b)) => b.parse::<usize>().ok()?.checked_sub(a.parse().ok()?)? + 1,
            None => {
                part.parse::<usize>().ok()?;
                1
            }
        };
    }
    (n > 0).then_some(n)
}

/// This process's `RLIMIT_MEMLOCK` soft limit in bytes (`ulimit -l`), from
/// /proc/self/limits; `None` when unlimited.
pub fn memlock_limit() -> Option<u64> {
    std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|t| parse_memlock(&t))
        .unwrap_or(Some(64 * 1024))
}

/// `Max locked memory  8388608  8388608  bytes` → Some(Some(8388608)); `unlimited` → Some(None).
fn parse_memlock(limits: &str) -> Option<Option<u64>> {
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max locked memory"))?;
    let soft = line["Max locked memory".len()..]
        .split_whitespace()
        .next()?;
    if soft == "unlimited" {
        return Some(None);
    }
    soft.parse().ok().map(Some)
}

/// True when this process has capability number `cap` in its effective set.
pub fn has_capability(cap: u32) -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let hex = s
                .lines()
                .find_map(|l| l.strip_prefix("CapEff:"))?
                .trim()
                .to_string();
            u64::from_str_radix(&hex, 16).ok()
        })
        .is_some_and(|caps| caps & (1u64 << cap) != 0)
}

/// The bytes of this process's vDSO (an ELF image the kernel maps into
/// every process, the same for all of them): its mapping's range, read
/// from `/proc/self/mem`. `None` when there is none or it cannot be read.
pub fn vdso_image() -> Option<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let vdso = exec_mappings(std::process::id())
        .into_iter()
        .find(|m| m.path == blame_capture::locate::VDSO_MAPPING)?;
    let mut image = vec![0; usize::try_from(vdso.end.checked_sub(vdso.start)?).ok()?];
    let mut mem = std::fs::File::open("/proc/self/mem").ok()?;
    mem.seek(SeekFrom::Start(vdso.start)).ok()?;
    mem.read_exact(&mut image).ok()?;
    image.starts_with(b"\x7fELF").then_some(image)
}

pub fn hostname() -> String {
    nix::unistd::gethostname()
        .ok()
        .and_then(|h| h.into_string().ok())
        .unwrap_or_else(|| "localhost".into())
}

pub fn unix_time_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// CLOCK_MONOTONIC in nanoseconds: the clock perf events are opened with.
pub fn monotonic_ns() -> u64 {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_MONOTONIC)
        .map(|t| t.tv_sec() as u64 * 1_000_000_000 + t.tv_nsec() as u64)
        .unwrap_or(0)
}

pub fn cmdline(pid: u32) -> Option<Vec<String>> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let args: Vec<String> = raw
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    (!args.is_empty()).then_some(args)
}

pub fn comm(pid: u32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .ok()
        .map(|s| s.trim_end().to_string())
}

/// Fields of /proc/PID/stat after the command name (which may contain spaces).
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    Some(after.split_whitespace().map(str::to_string).collect())
}

/// The thread-group (process) id of a thread.
pub fn tgid(tid: u32) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{tid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Tgid:"))
        .and_then(|v| v.trim().parse().ok())
}

pub fn ppid(pid: u32) -> Option<u32> {
    stat_fields(pid)?.get(1)?.parse().ok()
}

/// Exit code and signal of a process that exited but was not reaped yet.
pub fn zombie_exit_status(pid: u32) -> Option<(Option<i32>, Option<i32>)> {
    let f = stat_fields(pid)?;
    if f.first()? != "Z" {
        return None;
    }
    // Field 52 (exit_code) is the 50th after the name; a wait status.
    let code: i32 = f.get(49)?.parse().ok()?;
    Some(decode_wait_status(code))
}

/// (exit code, terminating signal) of a wait status.
pub fn decode_wait_status(status: i32) -> (Option<i32>, Option<i32>) {
    if status & 0x7f == 0 {
        (Some((status >> 8) & 0xff), None)
    } else {
        (None, Some(status & 0x7f))
    }
}

/// The MPI rank and world size of a process, from the variables MPI
/// launchers set (OpenMPI, MPICH/PMI, SLURM).
pub fn mpi_rank(pid: u32) -> (Option<u32>, Option<u32>) {
    let Ok(raw) = std::fs::read(format!("/proc/{pid}/environ")) else {
        return (None, None);
    };
    let vars: Vec<(&[u8], &[u8])> = raw
        .split(|&b| b == 0)
        .filter_map(|kv| {
            let eq = kv.iter().position(|&b| b == b'=')?;
            Some((&kv[..eq], &kv[eq + 1..]))
        })
        .collect();
    rank_from_vars(|name| {
        vars.iter()
            .find(|(k, _)| *k == name.as_bytes())
            .and_then(|(_, v)| std::str::from_utf8(v).ok()?.parse().ok())
    })
}

/// Rank and size from the first launcher whose rank variable is set.
pub fn rank_from_vars(get: impl Fn(&str) -> Option<u32>) -> (Option<u32>, Option<u32>) {
    const PAIRS: [(&str, &str); 3] = [
        ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),
        ("PMI_RANK", "PMI_SIZE"),
        ("SLURM_PROCID", "SLURM_NTASKS"),
    ];
    PAIRS
        .iter()
        .find_map(|(rank, size)| get(rank).map(|r| (Some(r), get(size))))
        .unwrap_or((None, None))
}

/// The executable file mappings of a process.
pub fn exec_mappings(pid: u32) -> Vec<Mapping> {
    let Ok(maps) = std::fs::read_to_string(format!("/proc/{pid}/maps")) else {
        return Vec::new();
    };
    maps.lines()
        .filter_map(|line| parse_maps_line(pid, line))
        .collect()
}

fn parse_maps_line(pid: u32, line: &str) -> Option<Mapping> {
    let mut parts = line.split_whitespace();
    let range = parts.next()?;
    let perms = parts.next()?;
    let offset = parts.next()?;
    let _dev = parts.next()?;
    let _inode = parts.next()?;
    let path = parts.collect::<Vec<_>>().join(" ");
    if !perms.contains('x') || path.is_empty() {
        return None;
    }
    let (start, end) = range.split_once('-')?;
    Some(Mapping {
        pid,
        start: u64::from_str_radix(start, 16).ok()?,
        end: u64::from_str_radix(end, 16).ok()?,
        file_offset: u64::from_str_radix(offset, 16).ok()?,
        path,
        build_id: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vdso_is_an_elf_image_that_names_its_clock() {
        let Some(image) = vdso_image() else {
            return; // no vDSO (vdso=0 on the kernel's command line)
        };
        assert!(image.starts_with(b"\x7fELF"));
        assert!(
            image.windows(13).any(|w| w == b"clock_gettime"),
            "the vDSO's symbols name clock_gettime"
        );
    }

    #[test]
    fn own_process_is_readable() {
        let me = std::process::id();
        assert!(cmdline(me).unwrap()[0].contains("blame_sampler"));
        assert_eq!(ppid(me), Some(std::os::unix::process::parent_id()));
        let maps = exec_mappings(me);
        let exe = std::env::current_exe().unwrap();
        assert!(
            maps.iter().any(|m| m.path == exe.to_string_lossy()),
            "{maps:?}"
        );
    }

    #[test]
    fn maps_lines() {
        let m = parse_maps_line(
            1,
            "55d0c000-55d0d000 r-xp 00001000 08:01 1234   /usr/bin/my app",
        )
        .unwrap();
        assert_eq!(
            (m.start, m.end, m.file_offset),
            (0x55d0c000, 0x55d0d000, 0x1000)
        );
        assert_eq!(m.path, "/usr/bin/my app");
        assert!(parse_maps_line(1, "7ffd-7ffe rw-p 00000000 00:00 0 [stack]").is_none());
    }

    #[test]
    fn ranks_from_each_launcher() {
        let vars = |pairs: &'static [(&'static str, u32)]| {
            move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| *v)
        };
        assert_eq!(
            rank_from_vars(vars(&[
                ("OMPI_COMM_WORLD_RANK", 3),
                ("OMPI_COMM_WORLD_SIZE", 4)
            ])),
            (Some(3), Some(4))
        );
        assert_eq!(rank_from_vars(vars(&[("PMI_RANK", 1)])), (Some(1), None));
        assert_eq!(
            rank_from_vars(vars(&[("SLURM_PROCID", 7), ("SLURM_NTASKS", 8)])),
            (Some(7), Some(8))
        );
        assert_eq!(rank_from_vars(vars(&[])), (None, None));
    }

    #[test]
    fn cpu_lists_and_memlock_limits() {
        assert_eq!(count_cpu_list("0-3,6\n"), Some(5));
        assert_eq!(count_cpu_list("0"), Some(1));
        assert_eq!(count_cpu_list("x"), None);
        let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                      Max locked memory         8388608              8388608              bytes\n";
        assert_eq!(parse_memlock(limits), Some(Some(8 << 20)));
        assert_eq!(
            parse_memlock(
                "Max locked memory         unlimited            unlimited            bytes"
            ),
            Some(None)
        );
        assert!(online_cpus() >= 1);
    }

    #[test]
    fn wait_status_decoding() {
        assert_eq!(decode_wait_status(3 << 8), (Some(3), None));
        assert_eq!(decode_wait_status(9), (None, Some(9)));
    }
}

#[cfg(test)]
mod cache_tests {
    use super::*;

    fn index(dir: &Path, n: u32, level: &str, ty: &str, size: &str, line: &str) {
        let d = dir.join(format!("index{n}"));
        std::fs::create_dir_all(&d).unwrap();
        for (f, v) in [
            ("level", level),
            ("type", ty),
            ("size", size),
            ("coherency_line_size", line),
        ] {
            std::fs::write(d.join(f), format!("{v}\n")).unwrap();
        }
    }

    #[test]
    fn the_level_1_data_cache_of_a_sysfs_tree() {
        let dir = tempfile::tempdir().unwrap();
        index(dir.path(), 0, "1", "Instruction", "32K", "64");
        index(dir.path(), 1, "2", "Unified", "2048K", "64");
        assert_eq!(
            l1_data_cache_in(dir.path()),
            None,
            "no L1 data cache listed"
        );
        index(dir.path(), 2, "1", "Data", "48K", "64");
        assert_eq!(
            l1_data_cache_in(dir.path()),
            Some(CacheGeometry {
                line_bytes: 64,
                l1d_bytes: 48 * 1024
            })
        );
        assert_eq!(l1_data_cache_in(&dir.path().join("missing")), None);
    }

    #[test]
    fn this_machine_reports_its_cache_when_sysfs_lists_one() {
        if Path::new("/sys/devices/system/cpu/cpu0/cache/index0").exists() {
            let c = l1_data_cache().expect("sysfs lists caches");
            assert!(c.line_bytes >= 32 && c.l1d_bytes >= 8 * 1024, "{c:?}");
        }
    }
}
