//! A chunk's records read in place: bincode's layout (varint integers,
//! little endian, [`crate::container`]'s payloads) decoded straight from
//! the decompressed bytes, field by field, for the records a merge reads
//! 10^6 of (a partial result's stacks, contexts, frames and keys; strings
//! borrowed). Bincode decodes each value through a reader and a
//! configuration, which costs more than the decoding; the records of the
//! other files go through bincode ([`RecordBytes::decode`],
//! [`crate::container::Chunk::decode_each`]).
//!
//! What decodes here decodes with bincode, to the same values, and what
//! bincode refuses is refused here (a short varint or vector, a varint
//! too wide for its type, a vector longer than the bytes left): readers
//! that decode the same files through bincode's derives agree with these.

use crate::error::FormatError;
use bincode::error::{DecodeError, IntegerType};
use bincode::Decode;

/// The most memory the containers (vectors, strings, maps) of one decoded
/// record may claim: a corrupt length field is an error, never an allocation
/// of that size. Bincode counts a container's claim in memory (`len` times
/// the element's size) and sums the claims of a record's nested containers;
/// the largest real records (a static db function of tens of thousands of
/// instructions, a results header of 10^5 processes) stay far below it.
pub const MAX_RECORD_MEMORY: usize = 512 << 20;

/// The bincode settings of every payload: varint integers, little endian
/// (the bytes of bincode 1's `DefaultOptions` with varint encoding, which
/// wrote every file before the move to bincode 2's derives), and
/// [`MAX_RECORD_MEMORY`] per record.
pub(crate) fn codec() -> impl bincode::config::Config {
    bincode::config::standard()
        .with_little_endian()
        .with_variable_int_encoding()
        .with_limit::<MAX_RECORD_MEMORY>()
}

/// Why a record read in place ([`crate::container::Chunk::read_records`])
/// was not kept: its bytes do not decode, or its reader refused what they
/// hold (an index out of range).
#[derive(Debug)]
pub enum RecordFault {
    Decode(DecodeError),
    Refused(FormatError),
}

impl From<DecodeError> for RecordFault {
    fn from(e: DecodeError) -> Self {
        RecordFault::Decode(e)
    }
}

impl From<FormatError> for RecordFault {
    fn from(e: FormatError) -> Self {
        RecordFault::Refused(e)
    }
}

/// The bytes of a chunk's records not yet decoded.
pub struct RecordBytes<'a> {
    rest: &'a [u8],
}

/// Bincode's first byte of a varint: the value itself below 251, else the
/// width that follows.
const U16_BYTE: u8 = 251;
const U32_BYTE: u8 = 252;
const U64_BYTE: u8 = 253;
const U128_BYTE: u8 = 254;

/// Bincode's error for a varint whose first byte names a wider type (or
/// none) than the one decoded.
#[cold]
fn too_wide(expected: IntegerType, first: u8) -> DecodeError {
    DecodeError::InvalidIntegerType {
        expected,
        found: match first {
            U32_BYTE => IntegerType::U32,
            U64_BYTE => IntegerType::U64,
            U128_BYTE => IntegerType::U128,
            _ => IntegerType::Reserved,
        },
    }
}

impl<'a> RecordBytes<'a> {
    pub fn new(bytes: &'a [u8]) -> RecordBytes<'a> {
        RecordBytes { rest: bytes }
    }

    /// The bytes not decoded yet.
    pub fn rest(&self) -> &'a [u8] {
        self.rest
    }

    /// The next `n` bytes.
    #[inline(always)]
    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.rest.len() {
            return Err(DecodeError::UnexpectedEnd {
                additional: n - self.rest.len(),
            });
        }
        let (now, rest) = self.rest.split_at(n);
        self.rest = rest;
        Ok(now)
    }

    #[inline(always)]
    fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        Ok(self.take(N)?.try_into().expect("N bytes taken"))
    }

    /// A u32 (a variant's index, an id, a process).
    #[inline(always)]
    pub fn u32(&mut self) -> Result<u32, DecodeError> {
        match self.array::<1>()?[0] {
            b @ 0..=250 => Ok(u32::from(b)),
            U16_BYTE => Ok(u32::from(u16::from_le_bytes(self.array()?))),
            U32_BYTE => Ok(u32::from_le_bytes(self.array()?)),
            first => Err(too_wide(IntegerType::U32, first)),
        }
    }

    /// A u16 (an event's index).
    #[inline(always)]
    pub fn u16(&mut self) -> Result<u16, DecodeError> {
        match self.array::<1>()?[0] {
            b @ 0..=250 => Ok(u16::from(b)),
            U16_BYTE => Ok(u16::from_le_bytes(self.array()?)),
            first => Err(too_wide(IntegerType::U16, first)),
        }
    }

    /// A u64 (a vector's length, a zigzagged i64).
    #[inline(always)]
    pub fn u64(&mut self) -> Result<u64, DecodeError> {
        match self.array::<1>()?[0] {
            b @ 0..=250 => Ok(u64::from(b)),
            U16_BYTE => Ok(u64::from(u16::from_le_bytes(self.array()?))),
            U32_BYTE => Ok(u64::from(u32::from_le_bytes(self.array()?))),
            U64_BYTE => Ok(u64::from_le_bytes(self.array()?)),
            first => Err(too_wide(IntegerType::U64, first)),
        }
    }

    /// An i64 as bincode writes it: zigzag (`2n` for `n >= 0`, `-2n - 1`
    /// for `n < 0`), then the u64.
    #[inline(always)]
    pub fn i64(&mut self) -> Result<i64, DecodeError> {
        let zigzag = self.u64()?;
        Ok(((zigzag >> 1) as i64) ^ -((zigzag & 1) as i64))
    }

    /// A bool: a byte, 0 or 1.
    #[inline(always)]
    pub fn bool(&mut self) -> Result<bool, DecodeError> {
        match self.array::<1>()?[0] {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(DecodeError::InvalidBooleanValue(v)),
        }
    }

    /// A string, borrowed: its length (a u64), then its UTF-8 bytes.
    #[inline(always)]
    pub fn str(&mut self) -> Result<&'a str, DecodeError> {
        let len = self.vector_len(1)?;
        let bytes = self.take(len)?;
        std::str::from_utf8(bytes).map_err(|inner| DecodeError::Utf8 { inner })
    }

    /// An f64: eight bytes.
    #[inline(always)]
    pub fn f64(&mut self) -> Result<f64, DecodeError> {
        Ok(f64::from_le_bytes(self.array()?))
    }

    /// A vector's length, whose elements take `element_bytes` bytes or
    /// more each: one longer than the bytes left is refused before anything
    /// is allocated (bincode refuses it too, by its memory limit or at the
    /// end of the bytes).
    #[inline(always)]
    pub(crate) fn vector_len(&mut self, element_bytes: usize) -> Result<usize, DecodeError> {
        let n = self.u64()?;
        let n = usize::try_from(n).map_err(|_| DecodeError::OutsideUsizeRange(n))?;
        match n.checked_mul(element_bytes) {
            Some(bytes) if bytes <= self.rest.len() => Ok(n),
            _ => Err(DecodeError::UnexpectedEnd {
                additional: n.saturating_mul(element_bytes) - self.rest.len(),
            }),
        }
    }

    /// A `Vec<u32>` appended to `into`; the largest of its values (`None`
    /// for none). Ids below 251 (those of results of fewer than 251
    /// frames) are a byte each: runs of them are a loop the compiler
    /// vectorizes.
    #[inline(always)]
    pub fn u32s_into(&mut self, into: &mut Vec<u32>) -> Result<Option<u32>, DecodeError> {
        let count = self.vector_len(1)?;
        into.reserve(count);
        let bytes = &self.rest[..count];
        let byte_max = bytes.iter().fold(0u8, |m, &b| m.max(b));
        if byte_max <= 250 {
            into.extend(bytes.iter().map(|&b| u32::from(b)));
            self.rest = &self.rest[count..];
            return Ok((count > 0).then_some(u32::from(byte_max)));
        }
        let mut largest = None;
        for _ in 0..count {
            let value = self.u32()?;
            into.push(value);
            largest = largest.max(Some(value));
        }
        Ok(largest)
    }

    /// A `Vec<f64>` appended to `into`; its length.
    #[inline(always)]
    pub fn f64s_into(&mut self, into: &mut Vec<f64>) -> Result<usize, DecodeError> {
        let count = self.vector_len(8)?;
        let bytes = self.take(count * 8)?;
        into.extend(
            bytes
                .chunks_exact(8)
                .map(|b| f64::from_le_bytes(b.try_into().expect("chunks of eight bytes"))),
        );
        Ok(count)
    }

    /// One value decoded by bincode, with the container's memory limit
    /// per value (the records of the other files: a post decodes 10^7
    /// of a stream's, so the decoder is made in line, reading these bytes).
    #[inline]
    pub fn decode<T: Decode<()>>(&mut self) -> Result<T, DecodeError> {
        T::decode(&mut bincode::de::DecoderImpl::new(self, codec(), ()))
    }
}

/// The bytes as bincode's reader (its own slice reader does not tell its
/// position, so what a value left could not be told).
impl bincode::de::read::Reader for RecordBytes<'_> {
    #[inline]
    fn read(&mut self, bytes: &mut [u8]) -> Result<(), DecodeError> {
        bytes.copy_from_slice(self.take(bytes.len())?);
        Ok(())
    }

    #[inline]
    fn peek_read(&mut self, n: usize) -> Option<&[u8]> {
        self.rest.get(..n)
    }

    #[inline]
    fn consume(&mut self, n: usize) {
        self.rest = &self.rest[n.min(self.rest.len())..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::{codec, encode_into};
    use crate::results::SymFrame;

    /// A frame whose function name is not ASCII and whose line takes a
    /// wide varint.
    fn frame() -> SymFrame {
        SymFrame {
            function: "solve_é".into(),
            file: "/src/a.c".into(),
            line: 70_000,
            column: 3,
            inlined: true,
        }
    }

    fn bincode_u32(bytes: &[u8]) -> Result<(u32, usize), String> {
        bincode::decode_from_slice::<u32, _>(bytes, codec()).map_err(|e| e.to_string())
    }

    fn ours<T>(
        bytes: &[u8],
        f: impl FnOnce(&mut RecordBytes) -> Result<T, DecodeError>,
    ) -> Result<(T, usize), String> {
        let mut r = RecordBytes::new(bytes);
        let v = f(&mut r).map_err(|e| e.to_string())?;
        Ok((v, bytes.len() - r.rest().len()))
    }

    /// Every first byte, with what may follow it cut at every length:
    /// the same values and lengths as bincode's, and errors where it has
    /// them (the same errors for u32s; bincode's errors for a u64 or an
    /// i64 sometimes name another type).
    #[test]
    fn integers_decode_as_bincode_decodes_them() {
        fn theirs<T: Decode<()>>(bytes: &[u8]) -> Option<(T, usize)> {
            bincode::decode_from_slice::<T, _>(bytes, codec()).ok()
        }
        for first in 0..=255u8 {
            let whole = [first, 0x34, 0x12, 0x78, 0x56, 0xbc, 0x9a, 0xf0, 0xde];
            for len in 0..=whole.len() {
                let bytes = &whole[..len];
                assert_eq!(ours(bytes, |r| r.u32()), bincode_u32(bytes), "{bytes:?}");
                assert_eq!(ours(bytes, |r| r.u64()).ok(), theirs(bytes), "{bytes:?}");
                assert_eq!(ours(bytes, |r| r.i64()).ok(), theirs(bytes), "{bytes:?}");
                assert_eq!(
                    ours(bytes, |r| r.f64()).ok().map(|(v, n)| (v.to_bits(), n)),
                    theirs::<f64>(bytes).map(|(v, n)| (v.to_bits(), n)),
                    "{bytes:?}"
                );
            }
        }
    }

    /// Bools and strings (and frames, made of them) decode as bincode
    /// decodes them, whole or cut at every length, and bad bytes (a bool
    /// of 2, a string that is not UTF-8) are errors as they are to bincode.
    #[test]
    fn bools_strings_and_frames_decode_as_bincode_decodes_them() {
        for b in 0..=255u8 {
            let bytes = [b];
            assert_eq!(
                ours(&bytes, |r| r.bool()).ok(),
                bincode::decode_from_slice::<bool, _>(&bytes, codec()).ok()
            );
        }
        let frame = frame();
        let mut bytes = bincode::encode_to_vec(&frame, codec()).unwrap();
        for len in 0..=bytes.len() {
            let cut = &bytes[..len];
            let theirs = bincode::decode_from_slice::<SymFrame, _>(cut, codec()).ok();
            let got = ours(cut, |r| r.frame().map(|f| f.to_frame())).ok();
            assert_eq!(got, theirs, "cut at {len}");
        }
        // The second byte of "é" made an ASCII byte: not UTF-8.
        let at = bytes.iter().position(|&b| b == 0xa9).unwrap();
        bytes[at] = b'x';
        assert!(bincode::decode_from_slice::<SymFrame, _>(&bytes, codec()).is_err());
        assert!(RecordBytes::new(&bytes).frame().is_err());
    }

    /// Variables and functions (keys, then values with and without
    /// methods) decode as bincode decodes them, whole or cut anywhere.
    #[test]
    fn variables_and_functions_decode_as_bincode_decodes_them() {
        use crate::results::{
            FunctionBlame, FunctionKey, ProcessValue, VariableBlame, VariableKey,
        };
        let values = vec![
            ProcessValue {
                process: 300,
                inclusive: 2.5,
                exclusive: 1.0,
                explicit: 2.0,
                inherited: 0.5,
                methods: vec![("raw".into(), 1.5), ("loop".into(), 0.25)],
            },
            ProcessValue {
                process: 7,
                inclusive: 1.0,
                exclusive: 0.0,
                explicit: 1.0,
                inherited: 0.0,
                methods: vec![],
            },
        ];
        let variable = VariableBlame {
            key: VariableKey {
                name: "node_u".into(),
                function: "solve".into(),
                file: "/src/é.c".into(),
                line: 70_000,
                type_name: "double *".into(),
                kind: "local".into(),
                scalar: false,
                event: 300,
            },
            values: values.clone(),
        };
        let function = FunctionBlame {
            key: FunctionKey {
                name: "solve".into(),
                file: "/src/a.c".into(),
                event: 1,
            },
            values,
        };
        let bytes = bincode::encode_to_vec(&variable, codec()).unwrap();
        for len in 0..=bytes.len() {
            let cut = &bytes[..len];
            let got = ours(cut, |r| {
                let key = r.variable_key()?.to_key();
                let mut values = Vec::new();
                r.values_into(&mut values)?;
                Ok(VariableBlame { key, values })
            })
            .ok();
            let theirs = bincode::decode_from_slice::<VariableBlame, _>(cut, codec()).ok();
            assert_eq!(got, theirs, "variable cut at {len}");
        }
        let bytes = bincode::encode_to_vec(&function, codec()).unwrap();
        for len in 0..=bytes.len() {
            let cut = &bytes[..len];
            let got = ours(cut, |r| {
                let key = r.function_key()?.to_key();
                let mut values = Vec::new();
                r.values_into(&mut values)?;
                Ok(FunctionBlame { key, values })
            })
            .ok();
            let theirs = bincode::decode_from_slice::<FunctionBlame, _>(cut, codec()).ok();
            assert_eq!(got, theirs, "function cut at {len}");
        }
        for first in 0..=255u8 {
            let bytes = [first, 0x34, 0x12, 0x78, 0x56];
            assert_eq!(
                ours(&bytes, |r| r.u16()).ok(),
                bincode::decode_from_slice::<u16, _>(&bytes, codec()).ok()
            );
        }
    }

    /// Vectors of ids (bytes, wide ids, mixed) and of counts, whole and
    /// cut short: the values bincode decodes, or an error where it fails.
    #[test]
    fn vectors_decode_as_bincode_decodes_them() {
        let id_vectors: [Vec<u32>; 5] = [
            vec![],
            vec![0, 7, 250],
            vec![251, 3, 70_000, u32::MAX],
            (0..300).collect(),
            vec![1; 64],
        ];
        for ids in id_vectors {
            let bytes = bincode::encode_to_vec(&ids, codec()).unwrap();
            for len in 0..=bytes.len() {
                let cut = &bytes[..len];
                let mut into = vec![9];
                let got = ours(cut, |r| r.u32s_into(&mut into));
                match bincode::decode_from_slice::<Vec<u32>, _>(cut, codec()) {
                    Ok((want, used)) => {
                        assert_eq!(got, Ok((want.iter().copied().max(), used)));
                        assert_eq!(into[1..], want[..]);
                    }
                    Err(_) => assert!(got.is_err(), "{ids:?} cut at {len}"),
                }
            }
        }
        let counts = vec![1.5, -0.0, f64::MAX, 7.0];
        let bytes = bincode::encode_to_vec(&counts, codec()).unwrap();
        for len in 0..=bytes.len() {
            let cut = &bytes[..len];
            let mut into = Vec::new();
            let got = ours(cut, |r| r.f64s_into(&mut into));
            match bincode::decode_from_slice::<Vec<f64>, _>(cut, codec()) {
                Ok((want, used)) => {
                    assert_eq!(got, Ok((want.len(), used)));
                    assert_eq!(into, want);
                }
                Err(_) => assert!(got.is_err(), "cut at {len}"),
            }
        }
        // A length beyond the bytes left allocates nothing.
        let mut huge = vec![253];
        huge.extend_from_slice(&(u64::MAX / 2).to_le_bytes());
        assert!(RecordBytes::new(&huge).u32s_into(&mut Vec::new()).is_err());
        assert!(RecordBytes::new(&huge).f64s_into(&mut Vec::new()).is_err());
    }

    /// Frames and keys read from a slice as from a reader that lends
    /// nothing, and strings borrowed from bytes refused where bincode's
    /// own decoding refuses them.
    #[test]
    fn strings_decode_as_bincode_decodes_them() {
        use crate::results::VariableKey;
        let frame = frame();
        let bytes = bincode::encode_to_vec(&frame, codec()).unwrap();
        let (from_slice, _): (SymFrame, _) = bincode::decode_from_slice(&bytes, codec()).unwrap();
        let from_reader: SymFrame =
            bincode::decode_from_std_read(&mut &bytes[..], codec()).unwrap();
        assert_eq!((&from_slice, &from_reader), (&frame, &frame));
        let key = VariableKey {
            name: "u".into(),
            function: String::new(),
            file: "f.c".into(),
            line: 1,
            type_name: "double *".into(),
            kind: "local".into(),
            scalar: false,
            event: 300,
        };
        let bytes = bincode::encode_to_vec(&key, codec()).unwrap();
        let (back, _): (VariableKey, _) = bincode::decode_from_slice(&bytes, codec()).unwrap();
        assert_eq!(back, key);
        // Not UTF-8: a string of one byte 0xff, refused as bincode refuses it.
        let bad = [1u8, 0xff];
        let slice = bincode::decode_from_slice::<String, _>(&bad, codec()).map(drop);
        let ours = RecordBytes::new(&bad).str().map(drop);
        let reader = bincode::decode_from_std_read::<String, _, _>(&mut &bad[..], codec());
        for e in [slice, ours, reader.map(drop)] {
            assert!(
                matches!(e, Err(bincode::error::DecodeError::Utf8 { .. })),
                "{e:?}"
            );
        }
        // A length past the container's limit is refused, not allocated
        // (by bincode at its limit, here at the end of the bytes).
        let mut huge = vec![253u8];
        huge.extend_from_slice(&(1u64 << 60).to_le_bytes());
        let e = bincode::decode_from_slice::<String, _>(&huge, codec()).map(drop);
        assert!(
            matches!(e, Err(bincode::error::DecodeError::LimitExceeded)),
            "{e:?}"
        );
        assert!(RecordBytes::new(&huge).str().is_err());
    }

    #[test]
    fn unsigned_integers_decode_one_after_another() {
        let values = [0u64, 250, 251, 65535, 65536, u64::from(u32::MAX) + 1];
        let mut bytes = Vec::new();
        for v in values {
            encode_into(&mut bytes, &v).unwrap();
        }
        let mut r = RecordBytes::new(&bytes);
        for v in values {
            assert_eq!(r.u64().unwrap(), v);
        }
        assert!(r.rest().is_empty());
        // A u16 cut short, and a u64 where a u32 is due, are bincode's errors.
        assert!(RecordBytes::new(&bytes[2..3]).u32().is_err());
        let u64_at = bytes.len() - 9;
        assert!(RecordBytes::new(&bytes[u64_at..]).u32().is_err());
    }

    #[test]
    fn a_records_fields_decode_one_after_another() {
        let mut bytes = Vec::new();
        encode_into(&mut bytes, &(300u32, 7u64)).unwrap();
        let mut r = RecordBytes::new(&bytes);
        let pair = (r.u32().unwrap(), r.u64().unwrap());
        assert_eq!(pair, (300, 7));
        assert!(r.rest().is_empty());
    }
}
