//! What results name: symbolized frames ([`SymFrame`]), variables
//! ([`VariableKey`]) and functions ([`FunctionKey`]), and each of them
//! borrowed from the bytes it was read from ([`FrameRef`],
//! [`VariableKeyRef`], [`FunctionKeyRef`]), hashing as the owned one does.

use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};

/// A symbolized frame, as results and JSON-lines samples carry it.
///
/// In JSON a zero `column` and a false `inlined` are left out; in the binary
/// (bincode) files every field is always written, because bincode is not
/// self-describing and cannot skip fields (see the manual `Serialize`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, Encode, Decode)]
pub struct SymFrame {
    pub function: String,
    #[serde(default)]
    pub file: String,
    #[serde(default)]
    pub line: u32,
    #[serde(default)]
    pub column: u32,
    /// True for a frame expanded from DWARF inline info.
    #[serde(default)]
    pub inlined: bool,
}

impl Serialize for SymFrame {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        // Skipping fields is only safe for self-describing formats.
        let human = s.is_human_readable();
        let skip_column = human && self.column == 0;
        let skip_inlined = human && !self.inlined;
        let fields = 3 + usize::from(!skip_column) + usize::from(!skip_inlined);
        let mut st = s.serialize_struct("SymFrame", fields)?;
        st.serialize_field("function", &self.function)?;
        st.serialize_field("file", &self.file)?;
        st.serialize_field("line", &self.line)?;
        if skip_column {
            st.skip_field("column")?;
        } else {
            st.serialize_field("column", &self.column)?;
        }
        if skip_inlined {
            st.skip_field("inlined")?;
        } else {
            st.serialize_field("inlined", &self.inlined)?;
        }
        st.end()
    }
}

/// A [`SymFrame`] borrowed from the bytes it was read from (a merge reads
/// each partial result's frames, nearly all of which it has already): it
/// hashes as the frame does, field by field, so that tables of frames are
/// searched with it and the frame is made only when it is new.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FrameRef<'a> {
    pub function: &'a str,
    pub file: &'a str,
    pub line: u32,
    pub column: u32,
    pub inlined: bool,
}

impl FrameRef<'_> {
    pub fn to_frame(self) -> SymFrame {
        SymFrame {
            function: self.function.to_owned(),
            file: self.file.to_owned(),
            line: self.line,
            column: self.column,
            inlined: self.inlined,
        }
    }
}

impl SymFrame {
    pub fn as_ref(&self) -> FrameRef<'_> {
        FrameRef {
            function: &self.function,
            file: &self.file,
            line: self.line,
            column: self.column,
            inlined: self.inlined,
        }
    }
}

/// A [`VariableKey`] borrowed from the bytes it was read from; it hashes
/// as the key does (see [`FrameRef`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VariableKeyRef<'a> {
    pub name: &'a str,
    pub function: &'a str,
    pub file: &'a str,
    pub line: u32,
    pub type_name: &'a str,
    pub kind: &'a str,
    pub scalar: bool,
    pub event: u16,
}

impl VariableKeyRef<'_> {
    pub fn to_key(self) -> VariableKey {
        VariableKey {
            name: self.name.to_owned(),
            function: self.function.to_owned(),
            file: self.file.to_owned(),
            line: self.line,
            type_name: self.type_name.to_owned(),
            kind: self.kind.to_owned(),
            scalar: self.scalar,
            event: self.event,
        }
    }
}

impl VariableKey {
    pub fn as_ref(&self) -> VariableKeyRef<'_> {
        VariableKeyRef {
            name: &self.name,
            function: &self.function,
            file: &self.file,
            line: self.line,
            type_name: &self.type_name,
            kind: &self.kind,
            scalar: self.scalar,
            event: self.event,
        }
    }
}

/// A [`FunctionKey`] borrowed from the bytes it was read from; it hashes
/// as the key does (see [`FrameRef`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FunctionKeyRef<'a> {
    pub name: &'a str,
    pub file: &'a str,
    pub event: u16,
}

impl FunctionKeyRef<'_> {
    pub fn to_key(self) -> FunctionKey {
        FunctionKey {
            name: self.name.to_owned(),
            file: self.file.to_owned(),
            event: self.event,
        }
    }
}

impl FunctionKey {
    pub fn as_ref(&self) -> FunctionKeyRef<'_> {
        FunctionKeyRef {
            name: &self.name,
            file: &self.file,
            event: self.event,
        }
    }
}

/// What a blamed name is.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Encode, Decode,
)]
pub struct VariableKey {
    pub name: String,
    /// Defining function (demangled); empty for globals.
    pub function: String,
    pub file: String,
    pub line: u32,
    pub type_name: String,
    /// local, param, global, field, heap.
    pub kind: String,
    /// A scalar of a basic type (no fields): see `Variable::is_scalar`.
    #[serde(default)]
    pub scalar: bool,
    pub event: u16,
}

/// Code-centric totals for one function.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Encode, Decode,
)]
pub struct FunctionKey {
    pub name: String,
    pub file: String,
    pub event: u16,
}
