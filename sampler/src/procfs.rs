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
/// /proc/self/limits; `None` when unlimited (64 KiB, the kernel's default,
/// when the file cannot be read).
pub fn memlock_limit() -> Option<u64> {
    match procfs::process::Process::myself().and_then(|p| p.limits()) {
        Ok(limits) => match limits.max_locked_memory.soft_limit {
            procfs::process::LimitValue::Unlimited => None,
            procfs::process::LimitValue::Value(bytes) => Some(bytes),
        },
        Err(_) => Some(64 * 1024),
    }
}

/// True when this process has capability number `cap` in its effective set.
pub fn has_capability(cap: u32) -> bool {
    procfs::process::Process::myself()
        .and_then(|p| p.status())
        .is_ok_and(|s| s.capeff & (1u64 << cap) != 0)
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

fn process(pid: u32) -> Option<procfs::process::Process> {
    procfs::process::Process::new(i32::try_from(pid).ok()?).ok()
}

/// The thread-group (process) id of a thread.
pub fn tgid(tid: u32) -> Option<u32> {
    u32::try_from(process(tid)?.status().ok()?.tgid).ok()
}

pub fn ppid(pid: u32) -> Option<u32> {
    u32::try_from(process(pid)?.stat().ok()?.ppid).ok()
}

/// Exit code and signal of a process that exited but was not reaped yet.
pub fn zombie_exit_status(pid: u32) -> Option<(Option<i32>, Option<i32>)> {
    let stat = process(pid)?.stat().ok()?;
    if stat.state != 'Z' {
        return None;
    }
    // `exit_code` (field 52) is a wait status.
    Some(decode_wait_status(stat.exit_code?))
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

/// The executable mappings of a process (files and the vDSO).
pub fn exec_mappings(pid: u32) -> Vec<Mapping> {
    let Ok(maps) = std::fs::read_to_string(format!("/proc/{pid}/maps")) else {
        return Vec::new();
    };
    blame_capture::maps::parse_maps(pid, &maps)
        .into_iter()
        .filter(|e| e.executable)
        .map(|e| e.mapping)
        .collect()
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
    fn cpu_lists_limits_and_stat() {
        assert_eq!(count_cpu_list("0-3,6\n"), Some(5));
        assert_eq!(count_cpu_list("0"), Some(1));
        assert_eq!(count_cpu_list("x"), None);
        // (this process's own limit, whatever it is, read through procfs)
        let _ = memlock_limit();
        assert_eq!(tgid(std::process::id()), Some(std::process::id()));
        assert_eq!(zombie_exit_status(std::process::id()), None);
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
