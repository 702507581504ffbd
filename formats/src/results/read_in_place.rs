//! The records of results read in place: frames, variable and function
//! keys borrowed from a chunk's bytes, and values appended to a vector
//! (the readers [`crate::results_flat`] decodes with).

use super::keys::{FrameRef, FunctionKeyRef, VariableKeyRef};
use super::records::ProcessValue;

/// The records of results read in place ([`crate::record_bytes`] knows
/// bincode's layout, this file the schema).
impl<'a> crate::record_bytes::RecordBytes<'a> {
    /// A [`SymFrame`](crate::results::SymFrame), borrowed.
    pub fn frame(&mut self) -> Result<FrameRef<'a>, bincode::error::DecodeError> {
        Ok(FrameRef {
            function: self.str()?,
            file: self.str()?,
            line: self.u32()?,
            column: self.u32()?,
            inlined: self.bool()?,
        })
    }

    /// A [`VariableKey`](crate::results::VariableKey), borrowed.
    pub fn variable_key(&mut self) -> Result<VariableKeyRef<'a>, bincode::error::DecodeError> {
        Ok(VariableKeyRef {
            name: self.str()?,
            function: self.str()?,
            file: self.str()?,
            line: self.u32()?,
            type_name: self.str()?,
            kind: self.str()?,
            scalar: self.bool()?,
            event: self.u16()?,
        })
    }

    /// A [`FunctionKey`](crate::results::FunctionKey), borrowed.
    pub fn function_key(&mut self) -> Result<FunctionKeyRef<'a>, bincode::error::DecodeError> {
        Ok(FunctionKeyRef {
            name: self.str()?,
            file: self.str()?,
            event: self.u16()?,
        })
    }

    /// A `Vec<ProcessValue>` appended to `into` (its methods' names are
    /// the only strings made).
    pub fn values_into(
        &mut self,
        into: &mut Vec<ProcessValue>,
    ) -> Result<(), bincode::error::DecodeError> {
        // A value takes a byte of process, four sums and a byte of methods.
        let count = self.vector_len(34)?;
        into.reserve(count);
        for _ in 0..count {
            let process = self.u32()?;
            let [inclusive, exclusive, explicit, inherited] =
                [self.f64()?, self.f64()?, self.f64()?, self.f64()?];
            let methods = (0..self.vector_len(9)?)
                .map(|_| Ok((self.str()?.to_owned(), self.f64()?)))
                .collect::<Result<_, bincode::error::DecodeError>>()?;
            into.push(ProcessValue {
                process,
                inclusive,
                exclusive,
                explicit,
                inherited,
                methods,
            });
        }
        Ok(())
    }
}
