//! The data records of a results file: each variable's and function's
//! values per process ([`VariableBlame`], [`FunctionBlame`],
//! [`ProcessValue`]), stacks and the call paths they share
//! ([`StackRecord`], [`CallPath`], [`PathStack`]), calling contexts
//! ([`ContextBlame`]), and the record enums of versions 4 to 9
//! ([`ResultRecord`]) and 2 and 3 ([`ResultRecordV3`]).

use super::keys::{FunctionKey, SymFrame, VariableKey};
use crate::container::{encode_f64s, encode_u32s};
use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};

/// The blame of one variable (or function) in one process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Decode)]
pub struct ProcessValue {
    /// Index into `ResultsHeader::processes`.
    pub process: u32,
    /// Samples whose blame reaches the variable (fractional for memory events).
    pub inclusive: f64,
    /// Samples that wrote the variable's own memory directly.
    pub exclusive: f64,
    /// Samples whose explicit blame (data flow only, no control
    /// dependence) reaches the variable; `inclusive` is the total blame.
    #[serde(default)]
    pub explicit: f64,
    /// For scalars: explicit samples that also blame a data structure
    /// (array, pointer, struct), so that the scalar's blame there is
    /// inherited from it (a norm of a vector, the index of a loop filling an array).
    #[serde(default)]
    pub inherited: f64,
    /// For memory events: the attribution under each method (`raw`, `loop`, `skid`, `direct`).
    #[serde(default)]
    pub methods: Vec<(String, f64)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct VariableBlame {
    pub key: VariableKey,
    pub values: Vec<ProcessValue>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct FunctionBlame {
    pub key: FunctionKey,
    pub values: Vec<ProcessValue>,
}

/// A symbolized calling context of one process, stored once and referred
/// to by index from [`ContextBlame`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Decode)]
pub struct StackRecord {
    pub process: u32,
    /// Innermost first, as indices into `Results::frames`; the innermost
    /// frame's line is the sampled line.
    pub frames: Vec<u32>,
    /// Samples of each event with exactly this stack (for code-centric trees).
    pub samples: Vec<f64>,
}

/// A call path of results version 8: frame ids, innermost first, stored
/// once however many processes' stacks run through it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct CallPath {
    pub frames: Vec<u32>,
}

/// A stack of results version 8 on a call path that other stacks share: a
/// process's samples on a path, an index into the file's [`CallPath`]
/// records stored as the difference from the path of the `PathStack`
/// before (from 0 for the first): stacks run through paths mostly in the
/// order paths are stored, a step of a byte.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct PathStack {
    pub process: u32,
    pub path_step: i64,
    pub samples: Vec<f64>,
}

// The records a results file holds most of, encoded as bincode's derive
// would (fields in order), their vectors in runs ([`encode_u32s`],
// [`encode_f64s`]) and a value's four sums in one write.

impl Encode for ProcessValue {
    fn encode<E: bincode::enc::Encoder>(
        &self,
        e: &mut E,
    ) -> std::result::Result<(), bincode::error::EncodeError> {
        use bincode::enc::write::Writer;
        self.process.encode(e)?;
        let mut sums = [0u8; 32];
        for (bytes, v) in sums.chunks_exact_mut(8).zip([
            self.inclusive,
            self.exclusive,
            self.explicit,
            self.inherited,
        ]) {
            bytes.copy_from_slice(&v.to_le_bytes());
        }
        e.writer().write(&sums)?;
        self.methods.encode(e)
    }
}

impl Encode for StackRecord {
    fn encode<E: bincode::enc::Encoder>(
        &self,
        e: &mut E,
    ) -> std::result::Result<(), bincode::error::EncodeError> {
        self.process.encode(e)?;
        encode_u32s(e, &self.frames)?;
        encode_f64s(e, &self.samples)
    }
}

/// The path of a [`PathStack`] whose step is `step` after a stack on
/// `before` (`None`: a step out of range, which no path has).
pub(crate) fn path_after(before: u32, step: i64) -> Option<u32> {
    u32::try_from(i64::from(before).checked_add(step)?).ok()
}

/// One calling context that contributed to a variable's blame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct ContextBlame {
    /// Index into `Results::variables`.
    pub variable: u32,
    pub process: u32,
    /// Index into `Results::stacks`.
    pub stack: u32,
    pub samples: f64,
}

/// The data records of results versions 4 to 8: frames are stored once and
/// stacks name them by index, contexts name their variable by index.
/// Versions 4 to 7 wrote each stack's frames in its `Stack` record;
/// version 8 writes each call path that more than one stack runs through
/// once (`Path`), before the stacks, and the stacks on it as `PathStack`
/// records naming it (the others as `Stack` records).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub enum ResultRecord {
    Variable(VariableBlame),
    Function(FunctionBlame),
    Frame(SymFrame),
    Stack(StackRecord),
    Context(ContextBlame),
    Path(CallPath),
    PathStack(PathStack),
}

/// [`StackRecord`] of versions 2 and 3: every frame written out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct StackRecordV3 {
    pub process: u32,
    pub frames: Vec<SymFrame>,
    pub samples: Vec<f64>,
}

/// [`ContextBlame`] of versions 2 and 3: the variable's whole key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub struct ContextBlameV3 {
    pub variable: VariableKey,
    pub process: u32,
    pub stack: u32,
    pub samples: f64,
}

/// The data records of versions 2 and 3 (read, never written).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Encode, Decode)]
pub enum ResultRecordV3 {
    Variable(VariableBlame),
    Function(FunctionBlame),
    Stack(StackRecordV3),
    Context(ContextBlameV3),
}
