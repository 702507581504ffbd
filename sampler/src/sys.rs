//! The sampler's system calls: `perf_event_open`, its ioctls, the mmap'ed
//! ring buffer, and the fork that holds a child before its `exec` until
//! its counters are open. All of the crate's `unsafe` lives here.

use perf_event_open_sys as sys;
use perf_event_open_sys::bindings::perf_event_attr;
use std::ffi::CString;
use std::io;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{fence, Ordering};

/// Opens one perf event for `pid` on `cpu` (-1: any CPU).
pub fn perf_event_open(attr: &perf_event_attr, pid: i32, cpu: i32) -> io::Result<OwnedFd> {
    let mut attr = *attr;
    attr.size = std::mem::size_of::<perf_event_attr>() as u32;
    // SAFETY: `attr` is a fully initialised perf_event_attr owned by this
    // frame; the kernel only reads it (and may write its `size` on E2BIG).
    let fd = unsafe {
        sys::perf_event_open(
            &mut attr,
            pid,
            cpu,
            -1,
            (sys::bindings::PERF_FLAG_FD_CLOEXEC) as libc::c_ulong,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just returned this descriptor to us; nobody else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The kernel's id of an event (what PERF_SAMPLE_IDENTIFIER carries).
pub fn event_id(fd: &OwnedFd) -> io::Result<u64> {
    let mut id = 0u64;
    // SAFETY: PERF_EVENT_IOC_ID writes one u64 through the pointer, which
    // points at a live local.
    let r = unsafe { sys::ioctls::ID(fd.as_raw_fd(), &mut id) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(id)
}

/// Sends `event`'s samples into the ring buffer of `leader` (same CPU).
pub fn set_output(event: &OwnedFd, leader: &OwnedFd) -> io::Result<()> {
    // SAFETY: both descriptors are open perf events owned by the caller.
    let r = unsafe { sys::ioctls::SET_OUTPUT(event.as_raw_fd(), leader.as_raw_fd()) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

pub fn enable(fd: &OwnedFd) -> io::Result<()> {
    // SAFETY: plain ioctl on an owned perf event descriptor, no pointers.
    let r = unsafe { sys::ioctls::ENABLE(fd.as_raw_fd(), 0) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

pub fn disable(fd: &OwnedFd) -> io::Result<()> {
    // SAFETY: plain ioctl on an owned perf event descriptor, no pointers.
    let r = unsafe { sys::ioctls::DISABLE(fd.as_raw_fd(), 0) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// A perf ring buffer: one metadata page followed by 2^n data pages.
pub struct RingBuffer {
    base: *mut u8,
    len: usize,
    data_offset: usize,
    data_size: usize,
    fd: OwnedFd,
}

// SAFETY: the mapping is owned by this value and only touched through
// `&mut self`; moving it to another thread moves that ownership.
unsafe impl Send for RingBuffer {}

impl RingBuffer {
    /// Maps `data_pages` (a power of two) data pages of `fd`.
    pub fn map(fd: OwnedFd, data_pages: usize) -> io::Result<RingBuffer> {
        let page = page_size();
        let len = page * (1 + data_pages);
        // SAFETY: a fresh shared mapping of the perf fd; the kernel checks
        // the size. The pointer is only used within `len` bytes below.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let meta = base as *const sys::bindings::perf_event_mmap_page;
        // SAFETY: the first page of the mapping is the kernel's
        // perf_event_mmap_page; data_offset/data_size are set at mmap time
        // (zero on old kernels, where data starts after one page).
        let (data_offset, data_size) = unsafe {
            let off = std::ptr::read_volatile(&(*meta).data_offset) as usize;
            let size = std::ptr::read_volatile(&(*meta).data_size) as usize;
            if size == 0 {
                (page, page * data_pages)
            } else {
                (off, size)
            }
        };
        Ok(RingBuffer {
            base: base as *mut u8,
            len,
            data_offset,
            data_size,
            fd,
        })
    }

    pub fn fd(&self) -> &OwnedFd {
        &self.fd
    }

    /// Appends every complete record now in the buffer to `out` (each as its
    /// raw bytes, header included, in `offsets`) and frees the space.
    pub fn drain(&mut self, out: &mut Vec<u8>, offsets: &mut Vec<(usize, usize)>) -> usize {
        let meta = self.base as *mut sys::bindings::perf_event_mmap_page;
        // SAFETY: `meta` points at the metadata page of our live mapping.
        // data_head is written by the kernel: read it volatile, then an
        // acquire fence orders our reads of the data after it (as in the
        // kernel's documented protocol). data_tail is ours to write.
        let (head, tail) = unsafe {
            let head = std::ptr::read_volatile(&(*meta).data_head);
            fence(Ordering::Acquire);
            (head, std::ptr::read_volatile(&(*meta).data_tail))
        };
        let size = self.data_size as u64;
        // SAFETY: data pages live at base+data_offset for data_size bytes.
        let data =
            unsafe { std::slice::from_raw_parts(self.base.add(self.data_offset), self.data_size) };
        let mut pos = tail;
        let mut count = 0;
        while head - pos >= 8 {
            let mut header = [0u8; 8];
            copy_wrapped(data, (pos % size) as usize, &mut header);
            let rec_size = u16::from_ne_bytes([header[6], header[7]]) as u64;
            if rec_size < 8 || head - pos < rec_size {
                break;
            }
            let start = out.len();
            append_wrapped(data, (pos % size) as usize, rec_size as usize, out);
            offsets.push((start, rec_size as usize));
            pos += rec_size;
            count += 1;
        }
        // SAFETY: release ordering: our reads of the records happen before
        // the kernel may overwrite them after seeing the new tail.
        unsafe {
            fence(Ordering::Release);
            std::ptr::write_volatile(&mut (*meta).data_tail, pos);
        }
        count
    }
}

/// Appends the `len` bytes at `start` of the circular `data` to `out`
/// (no zero-filling first: the recorder moves every sample through here).
fn append_wrapped(data: &[u8], start: usize, len: usize, out: &mut Vec<u8>) {
    let first = (data.len() - start).min(len);
    out.extend_from_slice(&data[start..start + first]);
    out.extend_from_slice(&data[..len - first]);
}

fn copy_wrapped(data: &[u8], start: usize, out: &mut [u8]) {
    let first = (data.len() - start).min(out.len());
    out[..first].copy_from_slice(&data[start..start + first]);
    let rest = out.len() - first;
    out[first..].copy_from_slice(&data[..rest]);
}

impl Drop for RingBuffer {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the region mapped in `map`, once.
        unsafe {
            libc::munmap(self.base as *mut libc::c_void, self.len);
        }
    }
}

pub fn page_size() -> usize {
    // SAFETY: sysconf has no memory-safety preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}

/// Number of CPUs perf events can be opened on (0..n).
pub fn possible_cpus() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .max(online_cpus_from_sysfs())
}

fn online_cpus_from_sysfs() -> usize {
    let Ok(s) = std::fs::read_to_string("/sys/devices/system/cpu/online") else {
        return 1;
    };
    s.trim()
        .split(',')
        .filter_map(|r| r.rsplit('-').next()?.parse::<usize>().ok())
        .max()
        .map(|m| m + 1)
        .unwrap_or(1)
}

/// A child process forked and waiting, before `exec`, for [`HeldChild::release`].
pub struct HeldChild {
    pub pid: i32,
    release: Option<OwnedFd>,
    /// Read end of a close-on-exec pipe: end of file once the child's exec
    /// succeeded, else the exec's errno.
    exec_status: Option<OwnedFd>,
}

/// How long [`HeldChild::release`] waits for the child's exec to succeed or fail.
const EXEC_WAIT_MS: u16 = 10_000;

impl HeldChild {
    /// Lets the child exec its command, and waits until the exec happened:
    /// Err with the exec's errno (ENOENT: not found, EACCES: not executable)
    /// when it failed; the child then exits with 127 (not found) or 126.
    pub fn release(&mut self) -> io::Result<()> {
        if let Some(fd) = self.release.take() {
            let _ = nix::unistd::write(&fd, b"g");
        }
        let Some(fd) = self.exec_status.take() else {
            return Ok(());
        };
        let mut fds = [nix::poll::PollFd::new(
            fd.as_fd(),
            nix::poll::PollFlags::POLLIN,
        )];
        // A child that neither execs nor fails within the wait is left to run.
        if !matches!(nix::poll::poll(&mut fds, EXEC_WAIT_MS), Ok(n) if n > 0) {
            return Ok(());
        }
        let mut errno = [0u8; 4];
        match nix::unistd::read(fd.as_raw_fd(), &mut errno) {
            Ok(4) => Err(io::Error::from_raw_os_error(i32::from_ne_bytes(errno))),
            _ => Ok(()),
        }
    }

    /// Kills the child without letting it run its command (or, after a
    /// failed exec, reaps it).
    pub fn abort(mut self) {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(self.pid),
            nix::sys::signal::Signal::SIGKILL,
        );
        self.release.take();
        let _ = nix::sys::wait::waitpid(nix::unistd::Pid::from_raw(self.pid), None);
    }
}

/// Forks a child that waits on a pipe and then execs `argv` (searching
/// PATH) with our environment plus `env`. An exec failure is reported by
/// [`HeldChild::release`]; the child exits with 127 (not found) or 126.
pub fn fork_held(argv: &[String], env: &[(String, String)]) -> io::Result<HeldChild> {
    let cargs: Vec<CString> = argv
        .iter()
        .map(|a| CString::new(a.as_bytes()))
        .collect::<Result<_, _>>()
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "argument contains a NUL byte"))?;
    if cargs.is_empty() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "no command"));
    }
    let mut argv_ptrs: Vec<*const libc::c_char> = cargs.iter().map(|c| c.as_ptr()).collect();
    argv_ptrs.push(std::ptr::null());
    let overridden = |k: &std::ffi::OsStr| env.iter().any(|(name, _)| k == name.as_str());
    let cenv: Vec<CString> = std::env::vars_os()
        .filter(|(k, _)| !overridden(k))
        .map(|(k, v)| {
            let mut kv = k.into_encoded_bytes();
            kv.push(b'=');
            kv.extend(v.into_encoded_bytes());
            kv
        })
        .chain(env.iter().map(|(k, v)| format!("{k}={v}").into_bytes()))
        .filter_map(|kv| CString::new(kv).ok())
        .collect();
    let mut env_ptrs: Vec<*const libc::c_char> = cenv.iter().map(|c| c.as_ptr()).collect();
    env_ptrs.push(std::ptr::null());
    let (read_end, write_end) = nix::unistd::pipe().map_err(io::Error::from)?;
    // Closed by a successful exec: the parent then reads end of file.
    let (status_read, status_write) =
        nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).map_err(io::Error::from)?;
    // SAFETY: the child only calls async-signal-safe functions (read,
    // close, execvpe, write, _exit) on memory prepared before the fork.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        // SAFETY: in the child; see above. `__errno_location` is the
        // thread's errno, read right after the failed exec.
        unsafe {
            libc::close(write_end.as_raw_fd());
            libc::close(status_read.as_raw_fd());
            let mut byte = 0u8;
            let n = libc::read(
                read_end.as_raw_fd(),
                &mut byte as *mut u8 as *mut libc::c_void,
                1,
            );
            if n != 1 {
                libc::_exit(126);
            }
            libc::close(read_end.as_raw_fd());
            libc::execvpe(argv_ptrs[0], argv_ptrs.as_ptr(), env_ptrs.as_ptr());
            let errno = *libc::__errno_location();
            let bytes = errno.to_ne_bytes();
            libc::write(
                status_write.as_raw_fd(),
                bytes.as_ptr() as *const libc::c_void,
                bytes.len(),
            );
            libc::_exit(if errno == libc::ENOENT { 127 } else { 126 });
        }
    }
    drop(read_end);
    drop(status_write);
    Ok(HeldChild {
        pid,
        release: Some(write_end),
        exec_status: Some(status_read),
    })
}

/// Maps an object file read-only, to read its unwind tables (the
/// recorder's [`blame_capture::unwind::ObjectLoader`]).
pub fn map_object_file(path: &std::path::Path) -> io::Result<blame_capture::unwind::FileBytes> {
    let file = std::fs::File::open(path)?;
    // SAFETY: memmap2 requires that the file is not truncated or changed
    // while mapped. Object files of a running program are replaced by
    // rename, not rewritten in place; a rewritten one shows as a build-id
    // mismatch in post-processing. We only read from the mapping.
    let map = unsafe { memmap2::Mmap::map(&file) }?;
    Ok(std::sync::Arc::new(map))
}

/// The bytes of a `perf_event_attr` (with its `size` set), as perf.data
/// stores them: what [`blame_capture::perf_records::parse_info_of_attr`] reads.
pub fn attr_bytes(attr: &perf_event_attr) -> Vec<u8> {
    let mut attr = *attr;
    attr.size = std::mem::size_of::<perf_event_attr>() as u32;
    // SAFETY: perf_event_attr is a plain C struct of integers (bindgen,
    // `repr(C)`, no padding the kernel leaves undefined: every field is
    // written by `Default`), so its bytes may be read for its whole size;
    // the slice lives only within this function, borrowing `attr`.
    let bytes = unsafe {
        std::slice::from_raw_parts(
            (&attr as *const perf_event_attr).cast::<u8>(),
            std::mem::size_of::<perf_event_attr>(),
        )
    };
    bytes.to_vec()
}
