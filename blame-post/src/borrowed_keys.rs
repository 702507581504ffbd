//! Keys read in place (a frame or key borrowed from a part's bytes) found in
//! maps of owned keys without being made: `Borrowed` hashes as the owned key
//! does and equals it field by field; `FxKeyMap` is such a map. Used by the
//! frame table and the merge.

use blame_formats::results::{
    FrameRef, FunctionKey, FunctionKeyRef, SymFrame, VariableKey, VariableKeyRef,
};

/// A borrowed key (a frame or key read from a part's bytes) as a key of a
/// map of owned ones: it hashes as the owned key does (its fields, in
/// order) and equals it field by field, so a part's keys are found without
/// being made, and made only when new.
#[derive(Hash)]
pub(crate) struct Borrowed<R>(pub R);

impl hashbrown::Equivalent<SymFrame> for Borrowed<FrameRef<'_>> {
    fn equivalent(&self, owned: &SymFrame) -> bool {
        self.0 == owned.as_ref()
    }
}

impl hashbrown::Equivalent<VariableKey> for Borrowed<VariableKeyRef<'_>> {
    fn equivalent(&self, owned: &VariableKey) -> bool {
        self.0 == owned.as_ref()
    }
}

impl hashbrown::Equivalent<FunctionKey> for Borrowed<FunctionKeyRef<'_>> {
    fn equivalent(&self, owned: &FunctionKey) -> bool {
        self.0 == owned.as_ref()
    }
}

/// A map searched with [`Borrowed`] keys.
pub(crate) type FxKeyMap<K, V> = hashbrown::HashMap<K, V, rustc_hash::FxBuildHasher>;
