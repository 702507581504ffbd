//! Direct data-centric attribution: a sample that carries the data address
//! it touched (PEBS, IBS, SPE, `perf mem`) is attributed to the variable
//! whose memory holds that address. This is the ground truth the
//! approximate methods of chapter 5 are compared against (5.3.4).
//!
//! - Heap blocks come from the allocation log (`--track-allocations`): the
//!   block alive at the sample's time that contains the address, named by
//!   the variable that received the allocation — the allocation's call
//!   stack resolved through the static db like a sample inside `malloc`.
//! - Globals and statics come from the objects' symbol tables.

use crate::attribution::footprints::HeapFootprints;
use crate::attribution::resolve::{resolve, DerivedField, Resolution, VarRef};
use crate::attribution::static_index::StaticIndex;
use crate::input::allocations::Allocations;
use crate::input::heap_blocks::{DirectTarget, HeapBlocks};
use crate::input::symbolize::Symbolizer;
use blame_formats::results::SymFrame;
use blame_formats::stream::Mapping;

/// Finds the target of one data address.
pub fn classify(
    address: u64,
    time_ns: u64,
    heap: Option<&HeapBlocks>,
    symbolizer: &mut Symbolizer,
    mappings: &[Mapping],
) -> DirectTarget {
    if let Some(b) = heap.and_then(|h| h.find(address, time_ns)) {
        return DirectTarget::Heap(b.site);
    }
    match symbolizer.data_symbol(mappings, address) {
        Some(name) => DirectTarget::Global(name),
        None => DirectTarget::Unattributed,
    }
}

/// The variable an allocation site's block belongs to: the variable that
/// receives the allocation's result.
#[derive(Debug, Clone, PartialEq)]
pub enum Named {
    Var(VarRef),
    Derived(DerivedField),
}

/// Names the heap block allocated at `frames` (symbolized, innermost first)
/// by `function` (malloc, calloc...).
///
/// The block is named by the pointer variable the allocation is stored
/// into (5.1: "attributed to variable x, allocated on line 1"): among the
/// variables the allocation's result reaches, a pointer whose own memory is
/// written on the line of the frame's call. The result also reaches every
/// variable computed *from the block's contents* (`double south = in[k]`
/// blames `south` for the block of `in`), so "the variable it reaches" alone
/// does not name it. When helpers pass the pointer up (`x = alloc_vec(n)`),
/// the outermost receiver names the block: that is the variable the code
/// reading the block uses. Without a receiver (the pointer is stored into a
/// field by a callee) a derived field path names it, and as a last resort the
/// blamed pointer variable that contains no other blamed variable.
pub fn name_allocation(index: &StaticIndex, function: &str, frames: &[SymFrame]) -> Option<Named> {
    let mut stack = Vec::with_capacity(frames.len() + 1);
    stack.push(SymFrame {
        function: function.to_string(),
        file: String::new(),
        line: 0,
        column: 0,
        inlined: false,
    });
    stack.extend(frames.iter().cloned());
    let r: Resolution = resolve(index, &stack);
    // The call's line in each frame with a summary, innermost first.
    let frame_lines: Vec<(u32, u32)> = frames
        .iter()
        .filter_map(|fr| {
            index
                .lookup(&fr.function, &fr.file)
                .map(|fi| (fi as u32, fr.line))
        })
        .collect();
    let variable = |&(fi, vi): &VarRef| &index.functions[fi as usize].variables[vi as usize];
    for (pos, &(fi, line)) in frame_lines.iter().enumerate().rev() {
        // The frame's blamed variables, and its fields of parameters (their
        // blame moved to the caller: `g->energy = malloc(..)`).
        let fields_of_params = (0..index.functions[fi as usize].variables.len() as u32)
            .map(|vi| (fi, vi))
            .filter(|v| {
                variable(v).kind == blame_formats::static_db::VarKind::Field && variable(v).is_exit
            });
        let receivers = r
            .blamed
            .iter()
            .copied()
            .chain(fields_of_params)
            .filter(|v| {
                let var = variable(v);
                v.0 == fi && var.is_pointer && var.write_lines.binary_search(&line).is_ok()
            });
        // Several on one line (`p = q = malloc(n)`): the one declared nearest.
        if let Some(v) = receivers.min_by_key(|v| (variable(v).line.abs_diff(line), v.1)) {
            return Some(through_parameter_fields(index, &r, &frame_lines, pos, v));
        }
    }
    if let Some(d) = r.derived.iter().max_by_key(|d| d.suffix.len()) {
        return Some(Named::Derived(d.clone()));
    }
    // Not a container of another blamed variable; pointers first.
    let is_parent = |&(fi, vi): &VarRef| {
        r.blamed.iter().any(|&(f2, v2)| {
            f2 == fi && index.functions[fi as usize].variables[v2 as usize].parent == Some(vi)
        })
    };
    r.blamed
        .iter()
        .filter(|v| !is_parent(v))
        .max_by_key(|v| (variable(v).is_pointer, std::cmp::Reverse(v.1)))
        .map(|&v| Named::Var(v))
}

/// A receiver that is a field of a pointer parameter (`g->energy =
/// malloc(..)` in `build_grids(&grids, ..)`) stores into the caller's
/// object: the block is the caller's field with the same path
/// (`grids.energy`) of the variable passed for the parameter, followed up
/// while that is itself a parameter's field; else a derived field path;
/// else the receiver itself. `frame_lines`: (function, call line) of the
/// frames with a summary, innermost first; `v` is in `frame_lines[pos]`.
fn through_parameter_fields(
    index: &StaticIndex,
    r: &Resolution,
    frame_lines: &[(u32, u32)],
    pos: usize,
    v: VarRef,
) -> Named {
    use blame_formats::static_db::{CallOutput, VarKind};
    let f = &index.functions[v.0 as usize];
    let mut root = v.1;
    while let Some(p) = f.variables[root as usize].parent {
        root = p;
    }
    let rv = &f.variables[root as usize];
    let (true, VarKind::Param, Some(k)) = (root != v.1, rv.kind, rv.param_index) else {
        return Named::Var(v);
    };
    let suffix = &f.variables[v.1 as usize].name[rv.name.len()..];
    if let Some(&(cfi, line)) = frame_lines.get(pos + 1) {
        let caller = &index.functions[cfi as usize];
        let passed = caller
            .call_sites
            .iter()
            .filter(|c| c.line == line && c.callee.as_deref() == Some(f.linkage_name.as_str()))
            .flat_map(|c| c.outputs.iter().filter(|b| b.output == CallOutput::Arg(k)))
            .flat_map(|b| {
                if b.pointees.is_empty() {
                    &b.blamed
                } else {
                    &b.pointees
                }
            });
        for &c in passed {
            let want = format!("{}{suffix}", caller.variables[c as usize].name);
            if let Some(field) = caller.variables.iter().position(|x| x.name == want) {
                return through_parameter_fields(
                    index,
                    r,
                    frame_lines,
                    pos + 1,
                    (cfi, field as u32),
                );
            }
        }
    }
    match r.derived.iter().find(|d| d.suffix.ends_with(suffix)) {
        Some(d) => Named::Derived(d.clone()),
        None => Named::Var(v),
    }
}

/// Finds the static variable of a global symbol (demangled), so direct and
/// approximate attributions of a global share one key. A function-static
/// local is its function's local: its symbol is `f.buf` (C) or `f(int)::buf`
/// (C++).
pub fn global_variable(index: &StaticIndex, symbol: &str) -> Option<VarRef> {
    use blame_formats::static_db::VarKind;
    index.functions.iter().enumerate().find_map(|(fi, f)| {
        let static_local = |name: &str| {
            symbol
                .strip_prefix(f.name.as_str())
                .and_then(|rest| rest.strip_prefix('.').or_else(|| rest.strip_prefix("::")))
                == Some(name)
        };
        f.variables
            .iter()
            .position(|v| match v.kind {
                VarKind::Global => v.name == symbol,
                VarKind::Local => v.parent.is_none() && static_local(&v.name),
                _ => false,
            })
            .map(|vi| (fi as u32, vi as u32))
    })
}

impl Allocations {
    /// The footprints of the blocks, each site named as direct attribution
    /// names it (the variable that receives the allocation).
    pub fn footprints(&self, index: &StaticIndex) -> HeapFootprints {
        let names: Vec<Option<VarRef>> = self
            .sites
            .iter()
            .map(
                |(function, frames)| match name_allocation(index, function, frames) {
                    Some(Named::Var(v)) => Some(v),
                    _ => None,
                },
            )
            .collect();
        HeapFootprints::from_blocks(index, &self.blocks, &names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests_fig3_14::{func, var};
    use blame_formats::static_db::{CallOutput, CallSite, OutputBinding, StaticDb, VarKind};

    fn frame(function: &str, line: u32) -> SymFrame {
        SymFrame {
            function: function.into(),
            file: "k.c".into(),
            line,
            column: 0,
            inlined: false,
        }
    }

    fn call(line: u32, callee: &str, model: bool, blamed: Vec<u32>) -> CallSite {
        CallSite {
            line,
            column: 5,
            callee: Some(callee.into()),
            arg_count: 1,
            outputs: vec![OutputBinding {
                output: CallOutput::Return,
                blamed,
                pointees: vec![],
                field: String::new(),
                explicit: vec![],
            }],
            model: model.then(|| vec![CallOutput::Return]),
        }
    }

    fn pointer(name: &str, decl: u32, writes: &[u32]) -> blame_formats::static_db::Variable {
        let mut v = var(name, VarKind::Local, None, None, false, &[]);
        v.is_pointer = true;
        v.line = decl;
        v.write_lines = writes.to_vec();
        v
    }

    fn scalar(name: &str, decl: u32) -> blame_formats::static_db::Variable {
        let mut v = var(name, VarKind::Local, None, None, false, &[]);
        v.type_name = "double".into();
        v.line = decl;
        v.write_lines = vec![decl];
        v
    }

    fn index(functions: Vec<FunctionSummary>) -> StaticIndex {
        let mut db = StaticDb::default();
        for mut f in functions {
            f.file = "k.c".into();
            db.insert(f);
        }
        StaticIndex::new(db)
    }

    use blame_formats::static_db::FunctionSummary;

    fn name(index: &StaticIndex, n: Option<Named>) -> String {
        match n {
            Some(Named::Var((fi, vi))) => format!(
                "{}:{}",
                index.functions[fi as usize].name,
                index.functions[fi as usize].variables[vi as usize].name
            ),
            other => format!("{other:?}"),
        }
    }

    /// Data symbols name globals (demangled) and function-static locals:
    /// `f.buf` in C, `f(int)::buf` in C++, never a plain local of that name
    /// in another function.
    #[test]
    fn data_symbols_find_globals_and_function_statics() {
        let f = func(
            "f",
            vec![
                var("buf", VarKind::Local, None, None, false, &[]),
                var("ns::g", VarKind::Global, None, None, true, &[]),
            ],
            vec![],
        );
        let g = func(
            "g(int)",
            vec![var("buf", VarKind::Local, None, None, false, &[])],
            vec![],
        );
        let index = index(vec![f, g]);
        let found = |symbol: &str| {
            global_variable(&index, symbol).map(|(fi, vi)| {
                let f = &index.functions[fi as usize];
                format!("{}:{}", f.name, f.variables[vi as usize].name)
            })
        };
        assert_eq!(found("ns::g").as_deref(), Some("f:ns::g"));
        assert_eq!(found("f.buf").as_deref(), Some("f:buf"));
        assert_eq!(found("g(int)::buf").as_deref(), Some("g(int):buf"));
        assert_eq!(found("buf"), None);
        assert_eq!(found("h.buf"), None);
    }

    /// The stencil kernel: `double *in = malloc(...)` on line 7, and later
    /// `double south = in[(i + 1) * n + j]`. The allocation's result reaches
    /// `south` (and `out`, computed from it) too; the block is `in`'s. The
    /// old rule (longest blamed name) called it `south`.
    #[test]
    fn heap_block_is_named_by_the_pointer_that_receives_it() {
        let main = func(
            "main",
            vec![
                pointer("in", 7, &[7]),
                pointer("out", 8, &[8]),
                scalar("south", 18),
                scalar("north", 17),
            ],
            vec![
                call(7, "malloc", true, vec![0, 1, 2, 3]),
                call(8, "malloc", true, vec![1]),
            ],
        );
        let index = index(vec![main]);
        let got = name_allocation(&index, "malloc", &[frame("main", 7)]);
        assert_eq!(name(&index, got), "main:in");
        let got = name_allocation(&index, "malloc", &[frame("main", 8)]);
        assert_eq!(name(&index, got), "main:out");
    }

    /// `double *x = alloc_vec(n)` where `alloc_vec` does
    /// `double *v = malloc(...); return v;`: the code reading the block
    /// says `x`, so the outermost receiver names it.
    #[test]
    fn a_block_passed_up_by_a_helper_is_named_by_the_outermost_receiver() {
        let mut ret = var("return", VarKind::Return, None, None, true, &[]);
        ret.is_pointer = true;
        let alloc_vec = func(
            "alloc_vec",
            vec![pointer("v", 3, &[3]), ret],
            vec![call(3, "malloc", true, vec![0, 1])],
        );
        let main = func(
            "main",
            vec![scalar("total", 9), pointer("x", 10, &[10])],
            vec![call(10, "alloc_vec", false, vec![1, 0])],
        );
        let index = index(vec![alloc_vec, main]);
        let got = name_allocation(
            &index,
            "malloc",
            &[frame("alloc_vec", 3), frame("main", 10)],
        );
        assert_eq!(name(&index, got), "main:x");
    }

    /// Without a receiver on the call's line, the pointer variable among the
    /// blamed ones, not the longest name.
    #[test]
    fn without_a_receiver_a_blamed_pointer_wins_over_longer_names() {
        let main = func(
            "main",
            vec![scalar("accumulated", 12), pointer("buf", 4, &[4])],
            vec![call(5, "malloc", true, vec![0, 1])],
        );
        let index = index(vec![main]);
        let got = name_allocation(&index, "malloc", &[frame("main", 5)]);
        assert_eq!(name(&index, got), "main:buf");
    }
}
