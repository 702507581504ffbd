//! Values encoded into a chunk's payload as bincode encodes them: one
//! value ([`encode_into`]), and slices of `u32` and `f64` in runs of one
//! write each ([`encode_u32s`], [`encode_f64s`]).

use crate::error::{FormatError, Result};
use crate::record_bytes::codec;
use bincode::Encode;

/// Appends one value to a payload buffer.
pub(crate) fn encode_into<T: Encode>(buf: &mut Vec<u8>, value: &T) -> Result<()> {
    bincode::encode_into_std_write(value, buf, codec()).map_err(|e| FormatError::Encode {
        context: "record".into(),
        reason: e.to_string(),
    })?;
    Ok(())
}

/// Encodes `values` as bincode encodes a `[u32]` (its length, then each
/// value as a varint), in runs of one write each: bincode writes every
/// value through its own call, which costs more than the encoding (a
/// results file holds 10^5–10^7 frame ids).
pub fn encode_u32s<E: bincode::enc::Encoder>(
    encoder: &mut E,
    values: &[u32],
) -> std::result::Result<(), bincode::error::EncodeError> {
    use bincode::enc::write::Writer;
    bincode::Encode::encode(&(values.len() as u64), encoder)?;
    let mut run = [0u8; 5 * 64];
    for block in values.chunks(64) {
        let mut len = 0;
        for &v in block {
            match v {
                0..=250 => {
                    run[len] = v as u8;
                    len += 1;
                }
                251..=0xffff => {
                    run[len] = 251;
                    run[len + 1..len + 3].copy_from_slice(&(v as u16).to_le_bytes());
                    len += 3;
                }
                _ => {
                    run[len] = 252;
                    run[len + 1..len + 5].copy_from_slice(&v.to_le_bytes());
                    len += 5;
                }
            }
        }
        encoder.writer().write(&run[..len])?;
    }
    Ok(())
}

/// Encodes `values` as bincode encodes a `[f64]` (its length, then each
/// value's eight bytes, little endian), in one write per run.
pub fn encode_f64s<E: bincode::enc::Encoder>(
    encoder: &mut E,
    values: &[f64],
) -> std::result::Result<(), bincode::error::EncodeError> {
    use bincode::enc::write::Writer;
    bincode::Encode::encode(&(values.len() as u64), encoder)?;
    let mut run = [0u8; 8 * 16];
    for block in values.chunks(16) {
        for (bytes, v) in run.chunks_exact_mut(8).zip(block) {
            bytes.copy_from_slice(&v.to_le_bytes());
        }
        encoder.writer().write(&run[..8 * block.len()])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Slices encoded in runs are bincode's bytes, in every varint form
    /// and across runs.
    #[test]
    fn slices_encode_as_bincode_encodes_them() {
        struct Runs<'a>(&'a [u32], &'a [f64]);
        impl bincode::Encode for Runs<'_> {
            fn encode<E: bincode::enc::Encoder>(
                &self,
                e: &mut E,
            ) -> std::result::Result<(), bincode::error::EncodeError> {
                encode_u32s(e, self.0)?;
                encode_f64s(e, self.1)
            }
        }
        let ids: Vec<u32> = (0..300u32)
            .map(|i| match i % 7 {
                0 => 250,
                1 => 251,
                2 => 65_535,
                3 => 65_536,
                4 => u32::MAX,
                _ => i,
            })
            .collect();
        let values: Vec<f64> = (0..40).map(|i| i as f64 * -0.75).collect();
        for n in [0, 1, 63, 64, 65, 300] {
            let (ids, values) = (&ids[..n], &values[..n.min(40)]);
            let ours = bincode::encode_to_vec(Runs(ids, values), codec()).unwrap();
            let theirs = bincode::encode_to_vec((ids, values), codec()).unwrap();
            assert_eq!(ours, theirs, "{n} values");
        }
    }
}
