//! Positioned reads of a node file ([`ReadAt`]: a file, or bytes in
//! memory), filled as far as the input goes, and sequential reads from a
//! position.

use std::fs::File;
use std::io::Read;

/// Positioned reads: a file, or bytes in memory (tests, fuzzing).
pub trait ReadAt {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize>;
    fn size(&self) -> std::io::Result<u64>;
}

impl ReadAt for File {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        std::os::unix::fs::FileExt::read_at(self, buf, offset)
    }
    fn size(&self) -> std::io::Result<u64> {
        Ok(self.metadata()?.len())
    }
}

impl ReadAt for &[u8] {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        let start = (offset as usize).min(self.len());
        let n = buf.len().min(self.len() - start);
        buf[..n].copy_from_slice(&self[start..start + n]);
        Ok(n)
    }
    fn size(&self) -> std::io::Result<u64> {
        Ok(self.len() as u64)
    }
}

/// Fills `buf` from `offset` as far as the input goes; the bytes read.
pub(super) fn read_full_at<R: ReadAt>(
    src: &R,
    buf: &mut [u8],
    offset: u64,
) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match src.read_at(&mut buf[filled..], offset + filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Sequential reads from a position of a [`ReadAt`].
pub(super) struct ReadFrom<'a, R> {
    pub(super) src: &'a R,
    pub(super) pos: u64,
}

impl<R: ReadAt> Read for ReadFrom<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.src.read_at(buf, self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}
