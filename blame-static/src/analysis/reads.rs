//! The read table of chapter 5: the distinct memory reads of each line,
//! with copies of elements held in scalars resolved to the element.

use super::locations::{strip_casts, Loc, Resolver, Root};
use super::variables::Vars;
use crate::access::AccessPatterns;
use crate::cfg::Cfg;
use crate::ir::*;
use crate::HashMap;
use blame_formats::static_db::*;
use std::collections::{BTreeMap, BTreeSet};

/// Chapter 5: the natural loops (source lines, nesting) and the distinct
/// reads of each line with their access patterns.
pub(super) fn loops_and_reads(
    m: &Module,
    f: &Function,
    cfg: &Cfg,
    res: &mut Resolver,
    vars: &mut Vars,
) -> (Vec<LoopInfo>, Vec<LineReads>) {
    // Chapter 5: loops and the distinct reads of each line.
    let loops = loop_infos(f, cfg);
    let address_only = address_only_values(f);
    let copies = element_copies(f, cfg);
    let statements = statement_lines(f);
    let access = AccessPatterns::new(m, f, cfg);
    let line_loop = innermost_loops_of_lines(&loops);
    let mut reads: BTreeMap<u32, BTreeMap<MemRead, ReadCost>> = BTreeMap::new();
    for (i, inst) in f.insts.iter().enumerate() {
        if !matches!(inst.op, Op::Load) || inst.line == 0 {
            continue;
        }
        if inst.is_pointer && address_only[i] {
            continue;
        }
        let mut addr = strip_casts(f, &inst.args[0]);
        let mut at = i as InstId;
        // Reading a scalar that holds a copy of an element reads the element.
        if let Value::Inst(a) = addr {
            if let Some(&source) = copies.get(&a) {
                addr = strip_casts(f, &f.insts[source as usize].args[0]);
                at = source;
            }
        }
        let index = read_index(f, res, vars, &addr);
        let cost = access.cost(&addr, at, line_loop.get(&inst.line).copied());
        for l in res.locs(&addr) {
            if let Some(v) = variable_holding(vars, &l) {
                let read = MemRead {
                    variable: v,
                    index: index.clone(),
                };
                let lines = statements.get(&(i as InstId));
                add_read(&mut reads, inst.line, lines, read, cost);
            }
        }
    }
    let reads = reads
        .into_iter()
        .map(|(line, r)| LineReads {
            line,
            costs: r.values().copied().collect(),
            reads: r.into_keys().collect(),
        })
        .collect();

    (loops, reads)
}

/// The natural loops of `f`: the source lines of each, its header's line
/// and the loop it is nested in.
fn loop_infos(f: &Function, cfg: &Cfg) -> Vec<LoopInfo> {
    let mut loops = Vec::new();
    for l in &cfg.loops {
        let mut lines: Vec<u32> = l
            .blocks
            .iter()
            .flat_map(|&b| f.blocks[b as usize].insts.iter())
            .map(|&i| f.insts[i as usize].line)
            .filter(|&x| x > 0)
            .collect();
        // A statement's instructions share its line: dropping the runs
        // first leaves a sort of lines, not of instructions (each loop of
        // an 8-deep nest sorted every instruction of its body).
        lines.dedup();
        lines.sort_unstable();
        lines.dedup();
        let header_line = f.blocks[l.header as usize]
            .insts
            .iter()
            .map(|&i| f.insts[i as usize].line)
            .find(|&x| x > 0)
            .unwrap_or(0);
        loops.push(LoopInfo {
            header_line,
            lines,
            parent: l.parent.map(|p| p as u32),
        });
    }
    loops
}

/// Per instruction, true when it is used only as an address (loaded from,
/// stored to, stepped from or cast).
fn address_only_values(f: &Function) -> Vec<bool> {
    let mut address_only = vec![true; f.insts.len()];
    for inst in &f.insts {
        for (pos, a) in inst.args.iter().enumerate() {
            if let Value::Inst(j) = a {
                let addr_use = matches!(
                    (&inst.op, pos),
                    (Op::Load, 0) | (Op::Store, 1) | (Op::Gep { .. }, 0) | (Op::Cast, 0)
                );
                if !addr_use {
                    address_only[*j as usize] = false;
                }
            }
        }
    }
    address_only
}

/// The innermost loop of each line, as post-processing finds it: the
/// loop with the fewest lines among those containing the line.
fn innermost_loops_of_lines(loops: &[LoopInfo]) -> HashMap<u32, usize> {
    let mut line_loop: HashMap<u32, usize> = HashMap::default();
    for (li, l) in loops.iter().enumerate() {
        for &line in &l.lines {
            let slot = line_loop.entry(line).or_insert(li);
            if l.lines.len() < loops[*slot].lines.len() {
                *slot = li;
            }
        }
    }
    line_loop
}

/// The variable whose memory holds the location: the location's own
/// variable, else the nearest container on its path (a field that
/// is only read, `a->x` or `atoms[i].x`, has no variable of its
/// own but is memory of `a`, `atoms`), else, for a global only
/// read in this function (no variable made for it yet), the global.
fn variable_holding(vars: &mut Vars, l: &Loc) -> Option<u32> {
    let own = (0..=l.path.len())
        .rev()
        .find_map(|n| vars.by_key.get(&(l.root, l.path[..n].to_vec())).copied());
    own.or_else(|| match l.root {
        Root::Global(_) => vars.get(l.root, &[], None),
        _ => None,
    })
}

/// Read `read` of cost `cost` on `line`. A statement over several lines
/// (`lines`): the optimized code may put the load on any of them, so
/// every line of the statement reads it.
fn add_read(
    reads: &mut BTreeMap<u32, BTreeMap<MemRead, ReadCost>>,
    line: u32,
    lines: Option<&Vec<u32>>,
    read: MemRead,
    cost: ReadCost,
) {
    for &line in std::iter::once(&line).chain(lines.into_iter().flatten()) {
        // The same read on a line twice: the pattern likelier to miss.
        let slot = reads
            .entry(line)
            .or_default()
            .entry(read.clone())
            .or_insert(cost);
        if misses(&cost) > misses(slot) {
            *slot = cost;
        }
    }
}

/// Sets each variable's `heap_bytes`: the size of the heap blocks it
/// receives from allocations of a constant size (`p = malloc(8 * 1024)`,
/// `calloc(64, 8)`, `new double[512]`), the largest of several; none when
/// one of its allocations has a size known only at run time.
pub(super) fn allocation_sizes(f: &Function, res: &mut Resolver, vars: &mut Vars) {
    let constant = |v: Option<&Value>| match v {
        Some(Value::ConstInt(c)) if *c > 0 => Some(*c as u64),
        _ => None,
    };
    let mut sizes: HashMap<u32, Option<u64>> = HashMap::default();
    for inst in &f.insts {
        if !matches!(inst.op, Op::Store) {
            continue;
        }
        let Value::Inst(c) = strip_casts(f, &inst.args[0]) else {
            continue;
        };
        let call = &f.insts[c as usize];
        let Op::Call { callee: Some(name) } = &call.op else {
            continue;
        };
        let a = &call.args;
        let bytes = match name.as_str() {
            "malloc" | "_Znwm" | "_Znam" | "valloc" => constant(a.first()),
            "calloc" => constant(a.first())
                .zip(constant(a.get(1)))
                .map(|(n, k)| n * k),
            "realloc" | "aligned_alloc" | "memalign" => constant(a.get(1)),
            _ => continue,
        };
        for l in res.locs(&inst.args[1]) {
            if let Some(&v) = vars.by_key.get(&(l.root, l.path.clone())) {
                let slot = sizes.entry(v).or_insert(Some(0));
                *slot = slot.zip(bytes).map(|(x, y)| x.max(y));
            }
        }
    }
    for (v, bytes) in sizes {
        vars.out[v as usize].heap_bytes = bytes.unwrap_or(0);
    }
}

/// The source lines of the statement each instruction belongs to, for
/// statements written over several lines (only those are listed).
///
/// A statement is what one expression computes: the instructions of one
/// basic block joined by the values they pass each other (a load feeding
/// an add feeding the store), not through memory (stack slots of locals
/// are where one statement ends and the next begins in `-O0` IR). The
/// optimized binary's line table is coarser than the IR's locations: a load
/// the compiler moved or merged carries no line of its own and inherits the
/// previous row's (`u[i*n+j] = 0.25 * (u[..] + ... +\n h2 * f[i*n+j])`: the
/// load of `f` on line 24 sits in line 23's row), so a read of a statement
/// is a read of each of its lines.
pub(super) fn statement_lines(f: &Function) -> HashMap<InstId, Vec<u32>> {
    let n = f.insts.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let joins = |inst: &Inst| {
        !matches!(
            inst.op,
            Op::Alloca { .. } | Op::DbgDeclare { .. } | Op::DbgValue { .. } | Op::Phi
        ) && inst.block != u32::MAX
    };
    for (i, inst) in f.insts.iter().enumerate() {
        if !joins(inst) {
            continue;
        }
        for a in &inst.args {
            let Value::Inst(j) = a else { continue };
            let j = *j as usize;
            if j < n && joins(&f.insts[j]) && f.insts[j].block == inst.block {
                let (ri, rj) = (find(&mut parent, i), find(&mut parent, j));
                parent[ri] = rj;
            }
        }
    }
    let mut lines: HashMap<usize, Vec<u32>> = HashMap::default();
    for (i, inst) in f.insts.iter().enumerate() {
        if inst.line > 0 && joins(inst) {
            let r = find(&mut parent, i);
            lines.entry(r).or_default().push(inst.line);
        }
    }
    for l in lines.values_mut() {
        l.sort_unstable();
        l.dedup();
    }
    let mut out = HashMap::default();
    for (i, inst) in f.insts.iter().enumerate() {
        if !joins(inst) {
            continue;
        }
        let r = find(&mut parent, i);
        if let Some(l) = lines.get(&r).filter(|l| l.len() > 1) {
            out.insert(i as InstId, l.clone());
        }
    }
    out
}

/// Local scalars that only hold a copy of a value read from memory in the
/// same loop iteration (`double south = in[k]; ... out[j] = north + south`),
/// by alloca, with the load they copy.
///
/// The read table is built from `-O0` IR, where every local lives in a stack
/// slot, but is joined by line to the samples of an optimized binary. There
/// such a scalar is a register and the compiler moves the element load to
/// where the value is used (`addsd (%rdx,%rax,1),%xmm1` on the `out[j] = ...`
/// line). A read of the scalar on any line is therefore recorded as the read
/// of the element it copies (same variable, same index identity): the memory
/// the line may miss on. Only pure copies qualify: one store in the function,
/// whose value is a load (casts aside) of non-pointer data through a pointer,
/// an array or a global, never the slot of another scalar; the slot is only
/// loaded and stored (its address never escapes); and every read of it is in
/// the innermost loop of the store (a load is not sunk into a loop).
pub(super) fn element_copies(f: &Function, cfg: &Cfg) -> HashMap<InstId, InstId> {
    let mut stores: HashMap<InstId, Vec<InstId>> = HashMap::default();
    let mut loads: HashMap<InstId, Vec<InstId>> = HashMap::default();
    let mut escapes: BTreeSet<InstId> = BTreeSet::new();
    for (i, inst) in f.insts.iter().enumerate() {
        for (pos, a) in inst.args.iter().enumerate() {
            let Value::Inst(j) = a else { continue };
            if !matches!(f.insts[*j as usize].op, Op::Alloca { .. }) {
                continue;
            }
            match (&inst.op, pos) {
                (Op::Load, 0) => loads.entry(*j).or_default().push(i as InstId),
                (Op::Store, 1) => stores.entry(*j).or_default().push(i as InstId),
                (Op::DbgDeclare { .. }, _) => {}
                _ => {
                    escapes.insert(*j);
                }
            }
        }
    }
    let innermost = cfg.innermost_loop_of_blocks(f.blocks.len());
    let loop_of = |i: InstId| {
        innermost
            .get(f.insts[i as usize].block as usize)
            .copied()
            .flatten()
            .unwrap_or(usize::MAX)
    };
    let mut out = HashMap::default();
    for (&slot, st) in &stores {
        let [store] = st.as_slice() else { continue };
        if escapes.contains(&slot) {
            continue;
        }
        let Value::Inst(v) = strip_casts(f, &f.insts[*store as usize].args[0]) else {
            continue;
        };
        let src = &f.insts[v as usize];
        if !matches!(src.op, Op::Load) || src.is_pointer {
            continue;
        }
        let from = strip_casts(f, &src.args[0]);
        if matches!(from, Value::Inst(j) if matches!(f.insts[j as usize].op, Op::Alloca { .. })) {
            continue; // a copy of another scalar: registers both
        }
        let here = loop_of(*store);
        if loads
            .get(&slot)
            .is_some_and(|ls| ls.iter().all(|&l| loop_of(l) == here))
        {
            out.insert(slot, v);
        }
    }
    out
}

/// Expected misses of a read pattern, to choose between two loads of one read.
pub(super) fn misses(c: &ReadCost) -> f64 {
    c.expected_misses(&CacheGeometry::default())
}

/// How the address of a read is indexed (5.2.1).
pub(super) fn read_index(f: &Function, res: &mut Resolver, vars: &Vars, addr: &Value) -> ReadIndex {
    let Value::Inst(g) = addr else {
        return ReadIndex::None;
    };
    let Op::Gep { steps, .. } = &f.insts[*g as usize].op else {
        return ReadIndex::None;
    };
    let inst = &f.insts[*g as usize];
    let mut idx: Vec<&Value> = Vec::new();
    if let Some(first) = inst.args.get(1) {
        idx.push(first);
    }
    let mut has_field = false;
    for s in steps {
        match s {
            GepStep::Index { arg, .. } => {
                if let Some(v) = inst.args.get(*arg as usize) {
                    idx.push(v)
                }
            }
            GepStep::Field { .. } => has_field = true,
        }
    }
    if let Some(v) = idx.iter().rev().find(|v| !matches!(v, Value::ConstInt(_))) {
        let v = strip_casts(f, v);
        if let Value::Inst(j) = v {
            let li = &f.insts[j as usize];
            if matches!(li.op, Op::Load) {
                let locs = res.locs(&li.args[0]);
                if let [l] = locs.as_slice() {
                    if l.deref == 0 {
                        if let Some(&var) = vars.by_key.get(&(l.root, l.path.clone())) {
                            return ReadIndex::Var(var);
                        }
                    }
                }
            }
            return ReadIndex::Expr(j);
        }
        return ReadIndex::Expr(*g);
    }
    if has_field {
        return ReadIndex::None;
    }
    match idx.last() {
        Some(Value::ConstInt(c)) => ReadIndex::Const(*c),
        _ => ReadIndex::None,
    }
}

#[cfg(test)]
pub(crate) mod read_table_tests {
    use blame_formats::static_db::{FunctionSummary, MemRead, ReadIndex};

    /// The summary of `function` in C source `src`, compiled as `blame cc` does.
    pub(crate) fn summary(src: &str, function: &str) -> FunctionSummary {
        summary_at(src, function, "-O0")
    }

    /// As [`summary`], with the IR optimized at `opt` (`-O1`, ...).
    pub(crate) fn summary_at(src: &str, function: &str, opt: &str) -> FunctionSummary {
        let dir = tempfile::tempdir().unwrap();
        let c = dir.path().join("k.c");
        let bc = dir.path().join("k.bc");
        std::fs::write(&c, src).unwrap();
        crate::test_clang::bitcode(&c, &bc, &[opt]);
        let m = crate::load_file(&bc).unwrap();
        crate::analyze_module(&m, None)
            .summaries
            .into_iter()
            .find(|s| s.name == function)
            .unwrap()
    }

    fn line(f: &FunctionSummary, l: u32) -> Vec<(String, ReadIndex)> {
        let mut v: Vec<(String, ReadIndex)> = f
            .reads
            .iter()
            .filter(|r| r.line == l)
            .flat_map(|r| r.reads.iter())
            .map(|r: &MemRead| {
                (
                    f.variables[r.variable as usize].name.clone(),
                    r.index.clone(),
                )
            })
            .collect();
        v.sort();
        v
    }

    /// The stencil kernel's temporaries: at -O1 the loads of `in` sit on
    /// the line that adds `north + south` (folded into `addsd`). The read
    /// table used to list the stack slots `north`, `south` there and no read
    /// of `in` at all, so misses on that line could never reach `in`.
    #[test]
    fn a_scalar_copy_of_an_element_reads_the_element_where_it_is_used() {
        let f = summary(
            "void k(double *out, const double *in, const double *coef, int n) {
  for (int j = 1; j < n - 1; j++) {
    double north = in[j - 1];
    double south = in[j + 1];
    out[j] = north + south + coef[j];
  }
  double first = in[0];
  for (int j = 0; j < n; j++)
    out[j] += first;
}
",
            "k",
        );
        let names = |l| line(&f, l).into_iter().map(|r| r.0).collect::<Vec<_>>();
        assert_eq!(names(5), ["coef", "in", "in", "j"], "{:?}", line(&f, 5));
        // The same reads (index identities) as on the lines that copy them.
        let ins = |l| {
            line(&f, l)
                .into_iter()
                .filter(|r| r.0 == "in")
                .map(|r| r.1)
                .collect::<Vec<_>>()
        };
        let mut copied = ins(3);
        copied.extend(ins(4));
        copied.sort();
        assert_eq!(ins(5), copied);
        assert!(matches!(ins(3)[0], ReadIndex::Expr(_)) && ins(3) != ins(4));
        // `out[j] = ...` is a store target, not a read.
        assert!(!names(5).contains(&"out".to_string()));
        // Read in another loop than the one that copies it: stays a scalar.
        assert_eq!(names(9), ["first", "j", "out"], "{:?}", line(&f, 9));
    }

    /// A statement written over two lines (a Gauss-Seidel update): the -O1
    /// line table puts the load of `f[i*n+j]` (line 4) in line 3's row, so
    /// both lines read everything the statement reads; the next statement
    /// (line 5, its own line) shares nothing, and neither does the loop
    /// header.
    #[test]
    fn every_line_of_a_statement_over_several_lines_reads_all_its_reads() {
        let f = summary(
            "void gs(int n, double h2, const double *f, double *u, double *r) {
  for (int j = 1; j < n - 1; j++) {
    u[j] = 0.25 * (u[j - 1] + u[j + 1] +
                   h2 * f[j]);
    r[j] = u[j];
  }
}
",
            "gs",
        );
        let names = |l| {
            let mut v: Vec<String> = line(&f, l).into_iter().map(|r| r.0).collect();
            v.dedup();
            v
        };
        assert_eq!(names(3), ["f", "h2", "j", "u"], "{:?}", line(&f, 3));
        assert_eq!(names(4), names(3), "{:?}", line(&f, 4));
        assert_eq!(names(5), ["j", "u"], "{:?}", line(&f, 5));
        assert_eq!(names(2), ["j", "n"], "{:?}", line(&f, 2));
    }

    /// Heap blocks of a size known at compile time are the receiving
    /// variable's `heap_bytes`; a size known only at run time leaves it 0.
    #[test]
    fn constant_allocation_sizes_are_the_receivers_heap_bytes() {
        let f = summary(
            "#include <stdlib.h>
struct grid { double *e; };
double k(int n, struct grid *g) {
  double *table = malloc(sizeof(double) * 32 * 32);
  double *ones = calloc(64, sizeof(double));
  double *row = malloc(sizeof(double) * n);
  g->e = malloc(4096);
  double s = table[0] + ones[1] + row[0];
  free(table);
  free(ones);
  free(row);
  return s;
}
",
            "k",
        );
        let bytes = |name: &str| {
            f.variables
                .iter()
                .find(|v| v.name == name)
                .map(|v| v.heap_bytes)
                .unwrap_or_else(|| panic!("no {name}: {:?}", f.variables))
        };
        assert_eq!(bytes("table"), 8192);
        assert_eq!(bytes("ones"), 512);
        assert_eq!(bytes("row"), 0);
        assert_eq!(bytes("g.e"), 4096);
    }

    /// Reads of globals that the function never writes, and of fields that
    /// have no variable of their own (only read), used to be missing from
    /// the table: `atoms[i].x` read nothing but `i`, so no miss on the
    /// line could reach `atoms`; `aj->x` read nothing.
    #[test]
    fn reads_of_read_only_globals_and_fields_name_their_variable() {
        let src = "typedef struct { double x, y; int type; } ATOM;
ATOM *atoms;
int natoms;
double table[4][4];
double sum_x(void) {
  double s = 0.0;
  for (int i = 0; i < natoms; i++) {
    ATOM *a = &atoms[i];
    s += atoms[i].x * table[a->type][1];
    s += a->y;
  }
  return s;
}
";
        let f = summary(src, "sum_x");
        let names = |l| {
            let mut v: Vec<String> = line(&f, l).into_iter().map(|r| r.0).collect();
            v.dedup();
            v
        };
        assert_eq!(names(7), ["i", "natoms"], "{:?}", line(&f, 7));
        assert_eq!(
            names(9),
            ["a", "atoms", "i", "s", "table"],
            "{:?}",
            line(&f, 9)
        );
        assert_eq!(names(10), ["a", "s"], "{:?}", line(&f, 10));
        let global = |n: &str| {
            f.variables
                .iter()
                .find(|v| v.name == n)
                .map(|v| v.kind == blame_formats::static_db::VarKind::Global)
        };
        assert_eq!(global("atoms"), Some(true));
        assert_eq!(global("table"), Some(true));
    }
}

#[cfg(test)]
mod write_line_tests {
    use super::read_table_tests::summary;

    /// `g->energy = malloc(..)` stores into the field's own memory (the
    /// pointee of `g`), so the field has that write line: direct attribution
    /// finds the block's receiver by it.
    #[test]
    fn a_field_stored_through_its_root_pointer_is_written_there() {
        let f = summary(
            "#include <stdlib.h>
struct grids { int n; double *energy; };
void build(struct grids *g, int n) {
  g->n = n;
  g->energy = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++)
    g->energy[i] = i;
}
",
            "build",
        );
        let lines = |name: &str| {
            f.variables
                .iter()
                .find(|v| v.name == name)
                .map(|v| v.write_lines.clone())
                .unwrap_or_else(|| panic!("no {name}: {:?}", f.variables))
        };
        assert_eq!(lines("g.energy"), [5]);
        assert_eq!(lines("g.n"), [4]);
    }
}
