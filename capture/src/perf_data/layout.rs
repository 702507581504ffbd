//! The layout of a perf.data file checked against the file's length before
//! the parser trusts it ([`check_layout`]): the header and its sections,
//! the feature sections and the event descriptions' counts, old files'
//! event types, and the records whose size the parser takes from their
//! contents (AUX trace data).

use super::{io, unreadable};
use crate::error::Result;
use linux_perf_data::Feature;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// `perf_file_header`: magic, size, attr_size, attrs, data, event_types, feature bits.
const HEADER_SIZE: u64 = 8 + 8 + 8 + 3 * 16 + 32;
const PERF_RECORD_AUXTRACE: u32 = 71;

/// Checks the file header's sections against the file's length before the
/// parser trusts them: a cut or corrupt file is refused with a reason
/// instead of being read past its end (or allocating what a bad length claims).
pub(super) fn check_layout<R: Read + Seek>(path: &Path, f: &mut R) -> Result<()> {
    let len = f.seek(SeekFrom::End(0)).map_err(io(path))?;
    f.seek(SeekFrom::Start(0)).map_err(io(path))?;
    let mut check = LayoutCheck { path, f, len };
    let header = check.header()?;
    let sections = check.sections(&header)?;
    check.feature_sections(&header, &sections)?;
    if sections.types_len != 0 {
        check.event_types(&sections)?;
    }
    check.records(&sections)
}

/// A file's layout being checked: the file and its length.
struct LayoutCheck<'a, R> {
    path: &'a Path,
    f: &'a mut R,
    len: u64,
}

/// The header's sections the checks after it need: the attributes' size,
/// the data section and the event types (old files).
struct Sections {
    attr_size: u64,
    data_at: u64,
    data_len: u64,
    types_at: u64,
    types_len: u64,
}

/// Word `i` of the header, little endian.
fn header_word(header: &[u8; HEADER_SIZE as usize], i: usize) -> u64 {
    u64::from_le_bytes(header[8 * i..8 * i + 8].try_into().unwrap())
}

/// The little-endian u64 at the start of `b`.
fn le(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().unwrap())
}

impl<R: Read + Seek> LayoutCheck<'_, R> {
    /// `size` bytes from `at` lie in the file.
    fn within(&self, at: u64, size: u64) -> bool {
        at.checked_add(size).is_some_and(|end| end <= self.len)
    }

    /// The header: perf.data's little-endian magic, not a pipe's header,
    /// and all of it present.
    fn header(&mut self) -> Result<[u8; HEADER_SIZE as usize]> {
        let (path, len) = (self.path, self.len);
        let err = |what: String| unreadable(path, what);
        let mut header = [0u8; HEADER_SIZE as usize];
        let got = read_up_to(&mut *self.f, &mut header).map_err(io(path))?;
        if got < 8 || &header[..8] != b"PERFILE2" {
            return Err(err(if &header[..8.min(got)] == b"2ELIFREP" {
                "a big-endian perf.data: only little-endian captures are supported".into()
            } else {
                "not a perf.data file (no PERFILE2 magic); give the file `perf record -o` wrote"
                    .into()
            }));
        }
        let word = |i: usize| header_word(&header, i);
        if got >= 16 && word(1) == 16 {
            return Err(err("perf.data written to a pipe (`perf record -o -`); convert it with `perf inject -i IN -o OUT.data` first".into()));
        }
        if (got as u64) < HEADER_SIZE {
            return Err(err(format!(
                "truncated perf.data: {len} bytes, shorter than perf's {HEADER_SIZE}-byte header"
            )));
        }
        Ok(header)
    }

    /// The attribute, data and event type sections the header places, each
    /// within the file (the data section not empty).
    fn sections(&self, header: &[u8; HEADER_SIZE as usize]) -> Result<Sections> {
        let (path, len) = (self.path, self.len);
        let err = |what: String| unreadable(path, what);
        let word = |i: usize| header_word(header, i);
        let attr_size = word(2);
        let section = |i: usize| (word(i), word(i + 1));
        let ((attrs_at, attrs_len), (data_at, data_len), (types_at, types_len)) =
            (section(3), section(5), section(7));
        if !(8..=4096).contains(&attr_size) || !self.within(attrs_at, attrs_len) {
            return Err(err(format!(
                "corrupt perf.data header: attribute section at {attrs_at} of {attrs_len} bytes (size {attr_size} each) in a {len}-byte file"
            )));
        }
        if data_len == 0 {
            return Err(err("the perf.data header says the data section is empty: was `perf record` stopped before it finished writing the file?".into()));
        }
        if !self.within(data_at, data_len) {
            return Err(err(format!(
                "truncated perf.data: the header says the samples run to byte {} but the file has {len} bytes (was the copy cut short, or `perf record` killed?)",
                data_at.saturating_add(data_len)
            )));
        }
        if types_len != 0 && !self.within(types_at, types_len) {
            return Err(err(format!(
                "corrupt perf.data header: event types at {types_at} of {types_len} bytes in a {len}-byte file"
            )));
        }
        Ok(Sections {
            attr_size,
            data_at,
            data_len,
            types_at,
            types_len,
        })
    }

    /// The feature sections after the data, as the header's feature bits
    /// say, each within the file, and the event descriptions' counts within
    /// theirs.
    fn feature_sections(
        &mut self,
        header: &[u8; HEADER_SIZE as usize],
        s: &Sections,
    ) -> Result<()> {
        let (path, len) = (self.path, self.len);
        let err = |what: String| unreadable(path, what);
        let word = |i: usize| header_word(header, i);
        let bits = [word(9), word(10), word(11), word(12)];
        let features: Vec<u32> = (0..256u32)
            .filter(|&b| bits[(b / 64) as usize] & (1 << (b % 64)) != 0)
            .collect();
        let table_at = s.data_at + s.data_len;
        if !self.within(table_at, features.len() as u64 * 16) {
            return Err(err(format!(
                "truncated perf.data: {len} bytes, but the header's feature sections start at byte {table_at} (was the copy cut short?)"
            )));
        }
        self.f.seek(SeekFrom::Start(table_at)).map_err(io(path))?;
        let mut table = vec![0u8; features.len() * 16];
        self.f.read_exact(&mut table).map_err(io(path))?;
        for (k, &feature) in features.iter().enumerate() {
            let (at, size) = (le(&table[16 * k..]), le(&table[16 * k + 8..]));
            if !self.within(at, size) {
                return Err(err(format!(
                    "truncated perf.data: header feature {feature} claims bytes {at}..{} of a {len}-byte file (was the copy cut short?)",
                    at.saturating_add(size)
                )));
            }
            if feature == Feature::EVENT_DESC.0 {
                self.f.seek(SeekFrom::Start(at)).map_err(io(path))?;
                let mut desc = vec![0u8; size as usize];
                self.f.read_exact(&mut desc).map_err(io(path))?;
                if !event_desc_fits(&desc) {
                    return Err(err("corrupt perf.data: the event descriptions (HEADER_EVENT_DESC) run past their section".into()));
                }
            }
        }
        Ok(())
    }

    /// Old files: (attr, id section) pairs; every id section must lie in the file.
    fn event_types(&mut self, s: &Sections) -> Result<()> {
        let path = self.path;
        let err = |what: String| unreadable(path, what);
        let entry = s.attr_size + 16;
        self.f.seek(SeekFrom::Start(s.types_at)).map_err(io(path))?;
        let mut types = vec![0u8; s.types_len as usize];
        self.f.read_exact(&mut types).map_err(io(path))?;
        for e in types.chunks_exact(entry as usize) {
            let ids = &e[s.attr_size as usize..];
            if !self.within(le(ids), le(&ids[8..])) {
                return Err(err(
                    "corrupt perf.data: an event's id list lies outside the file".into(),
                ));
            }
        }
        Ok(())
    }

    /// Records the parser sizes from their contents (AUX trace data) must fit in the data section.
    fn records(&mut self, s: &Sections) -> Result<()> {
        let path = self.path;
        let err = |what: String| unreadable(path, what);
        self.f.seek(SeekFrom::Start(s.data_at)).map_err(io(path))?;
        let mut records = std::io::BufReader::with_capacity(1 << 16, &mut *self.f);
        let (mut at, end) = (s.data_at, s.data_at + s.data_len);
        let mut head = [0u8; 16];
        while at + 8 <= end {
            if read_up_to(&mut records, &mut head[..8]).map_err(io(path))? < 8 {
                break;
            }
            let kind = u32::from_le_bytes(head[..4].try_into().unwrap());
            let size = u16::from_le_bytes(head[6..8].try_into().unwrap()) as u64;
            if size < 8 {
                return Err(err(format!(
                    "corrupt perf.data: the record at byte {at} claims {size} bytes"
                )));
            }
            let mut skip = size - 8;
            if kind == PERF_RECORD_AUXTRACE && skip >= 8 {
                if read_up_to(&mut records, &mut head[8..]).map_err(io(path))? < 8 {
                    break;
                }
                skip = (skip - 8).saturating_add(le(&head[8..]));
            }
            let next = at
                .saturating_add(8 + 8 * (kind == PERF_RECORD_AUXTRACE && size >= 16) as u64)
                .saturating_add(skip);
            if next > end {
                return Err(err(format!(
                    "truncated perf.data: the record at byte {at} runs past the data section's end at byte {end}"
                )));
            }
            records.seek_relative(skip as i64).map_err(io(path))?;
            at = next;
        }
        Ok(())
    }
}

fn read_up_to<R: Read>(f: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match f.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Whether a HEADER_EVENT_DESC section's counts fit in it (the parser allocates by them).
fn event_desc_fits(s: &[u8]) -> bool {
    let u32_at = |at: usize| -> Option<u64> {
        Some(u32::from_le_bytes(s.get(at..at + 4)?.try_into().ok()?) as u64)
    };
    let (Some(nr), Some(attr_size)) = (u32_at(0), u32_at(4)) else {
        return false;
    };
    let mut at = 8u64;
    for _ in 0..nr {
        // attr, nr_ids, string (u32 length + bytes), ids.
        let Some(nr_ids) = u32_at((at + attr_size) as usize) else {
            return false;
        };
        let Some(str_len) = u32_at((at + attr_size + 4) as usize) else {
            return false;
        };
        at += attr_size + 8 + str_len + 8 * nr_ids;
        if at > s.len() as u64 {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_descriptions_must_fit() {
        let mut s = Vec::new();
        s.extend_from_slice(&1u32.to_le_bytes());
        s.extend_from_slice(&8u32.to_le_bytes());
        s.extend_from_slice(&[0; 8]);
        s.extend_from_slice(&u32::MAX.to_le_bytes()); // nr_ids
        s.extend_from_slice(&0u32.to_le_bytes());
        assert!(!event_desc_fits(&s));
        let n = s.len();
        s[n - 8..n - 4].copy_from_slice(&1u32.to_le_bytes());
        s.extend_from_slice(&[0; 8]);
        assert!(event_desc_fits(&s));
    }

    #[test]
    fn layout_checks_name_what_is_wrong() {
        let path = Path::new("x.data");
        let check = |bytes: &[u8]| {
            check_layout(path, &mut std::io::Cursor::new(bytes.to_vec()))
                .unwrap_err()
                .to_string()
        };
        assert!(check(b"hello").contains("not a perf.data file"));
        assert!(check(b"").contains("not a perf.data file"));
        assert!(check(b"PERFILE2\0\0\0\0").contains("truncated"));
        let mut h = vec![0u8; HEADER_SIZE as usize];
        h[..8].copy_from_slice(b"PERFILE2");
        h[8..16].copy_from_slice(&HEADER_SIZE.to_le_bytes());
        h[16..24].copy_from_slice(&136u64.to_le_bytes());
        assert!(check(&h).contains("data section is empty"));
        h[40..48].copy_from_slice(&HEADER_SIZE.to_le_bytes());
        h[48..56].copy_from_slice(&4096u64.to_le_bytes());
        assert!(check(&h).contains("samples run to byte 4200"));
    }
}
