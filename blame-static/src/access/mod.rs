//! Access patterns of reads (extends ch. 5's read table): how a load's
//! address moves across iterations of the innermost loop around it, the
//! reference classes of a locality model (a fixed or loop-invariant address
//! is reused, a short stride reuses each cache line, an index loaded from
//! memory is irregular). Post-processing weighs a line's reads with it, so
//! `sum += val[k] * x[col[k]]` gives the gather `x[col[k]]` more of the
//! line's misses than the streams `val[k]`, `col[k]` and nothing to `sum`.
//!
//! Strides are found on the IR as written: a scalar slot stored in the loop
//! only as `v = v ± C` (`i++`, `p++`) advances by C per iteration, a phi of
//! the loop header updated that way likewise (optimized IR), anything
//! defined outside the loop is invariant, and address arithmetic (GEPs,
//! adds, multiplications by constants) combines strides in bytes.

mod polynomials;
mod recent;
mod strides;
mod sweeps;

use crate::cfg::Cfg;
use crate::ir::{Function, GepStep, InstId, Module, Op, Value};
use crate::{HashMap, HashSet};
use blame_formats::static_db::{OuterReuse, ReadCost, Reuse};
use std::cell::{OnceCell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use polynomials::Atom;
use recent::Accesses;
use sweeps::Sweep;

/// A scalar slot: an alloca or a global, plus a constant byte offset.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
enum Slot {
    Stack(InstId, i64),
    Global(u32, i64),
}

/// Stride of a value across iterations of one loop: `Some(step)` in the
/// value's own units (bytes for pointers), `None` when irregular.
type Stride = Option<i64>;

/// (instruction, loop, inner loop taken as restarting, or `u32::MAX`):
/// 12 bytes, as the memo holds an entry per instruction and loop of a
/// function.
type StrideKey = (InstId, u32, u32);

/// The step of each counter of a loop (see [`AccessPatterns::counter_steps`]).
type Steps = Rc<BTreeMap<Slot, i64>>;

/// Strides kept in [`AccessPatterns::memo`] before it starts afresh: an
/// address shares subexpressions with the addresses read just before it,
/// not with the whole function's (a function of 840k instructions kept
/// 2M strides, 100 MB).
const MAX_MEMO: usize = 1 << 16;

/// Access-pattern analysis of one function.
pub struct AccessPatterns<'a> {
    m: &'a Module,
    f: &'a Function,
    cfg: &'a Cfg,
    /// Per loop, the values stored into each scalar slot inside it.
    stores: Vec<HashMap<Slot, Vec<Value>>>,
    /// Stack slots stored exactly once in the function, from arithmetic
    /// that does not read them, and only loaded and stored
    /// (`int c = j * nx + i`, `p = &bank[i]`): an address polynomial reads
    /// the arithmetic for the slot, so its counters shift. A slot stored
    /// from a constant, an argument or a call stays an atom (a size known
    /// at run time).
    defined_once: HashMap<Slot, Value>,
    /// Strides already computed, per (instruction, loop, restarting
    /// loop): address expressions share subexpressions, so each is walked once.
    memo: RefCell<HashMap<StrideKey, Stride>>,
    /// While computing a stride across iterations of an enclosing loop: the
    /// inner loop whose counters restart each iteration (taken as unchanged).
    restart: std::cell::Cell<Option<usize>>,
    /// The innermost loop of each block.
    innermost: Vec<Option<usize>>,
    /// Each instruction's position in its block.
    position: Vec<u32>,
    /// Stores outside loops by address, for [`Self::written_before`]
    /// (made on first use).
    outside: OnceCell<Accesses>,
    /// Per loop, the accesses of its own blocks by address and shifted
    /// address, for [`Self::recently_touched`] (made on first use).
    touched: RefCell<HashMap<usize, Rc<Accesses>>>,
    /// [`Self::counter_steps`] per (loop, restarting loop).
    steps: RefCell<HashMap<(usize, Option<usize>), Steps>>,
    /// [`Self::counter_step`] per (slot, loop).
    counters: RefCell<HashMap<(Slot, usize), Stride>>,
    /// [`Self::trip`] per loop.
    trips: RefCell<HashMap<usize, Option<(Atom, i64)>>>,
    /// The loops of each loop (`None`: of the function's body), for
    /// [`Self::swept_before`].
    children: HashMap<Option<usize>, Vec<usize>>,
    /// [`Self::sweeps_of`] per loop.
    sweeps: RefCell<HashMap<usize, Rc<HashSet<Sweep>>>>,
}

impl<'a> AccessPatterns<'a> {
    pub fn new(m: &'a Module, f: &'a Function, cfg: &'a Cfg) -> AccessPatterns<'a> {
        let mut ap = AccessPatterns {
            m,
            f,
            cfg,
            stores: Vec::new(),
            defined_once: HashMap::default(),
            memo: RefCell::new(HashMap::default()),
            restart: std::cell::Cell::new(None),
            innermost: cfg.innermost_loop_of_blocks(f.blocks.len()),
            position: vec![0; f.insts.len()],
            outside: OnceCell::new(),
            touched: RefCell::new(HashMap::default()),
            steps: RefCell::new(HashMap::default()),
            counters: RefCell::new(HashMap::default()),
            trips: RefCell::new(HashMap::default()),
            children: HashMap::default(),
            sweeps: RefCell::new(HashMap::default()),
        };
        for (li, l) in cfg.loops.iter().enumerate() {
            ap.children.entry(l.parent).or_default().push(li);
        }
        for b in &f.blocks {
            for (k, &i) in b.insts.iter().enumerate() {
                if let Some(p) = ap.position.get_mut(i as usize) {
                    *p = k as u32;
                }
            }
        }
        let mut stores = vec![HashMap::default(); cfg.loops.len()];
        for (li, l) in cfg.loops.iter().enumerate() {
            for &b in &l.blocks {
                for &i in &f.blocks[b as usize].insts {
                    let inst = &f.insts[i as usize];
                    if !matches!(inst.op, Op::Store) {
                        continue;
                    }
                    if let Some(slot) = ap.slot(&inst.args[1]) {
                        let list: &mut Vec<Value> = stores[li].entry(slot).or_default();
                        list.push(inst.args[0].clone());
                    }
                }
            }
        }
        ap.stores = stores;
        ap.defined_once = ap.slots_defined_once();
        ap
    }

    /// The access pattern of a load from `addr` (the load's address, or
    /// the element a scalar copies) per iteration of loop `innermost`, the
    /// innermost loop of the load's source line (post-processing weighs a
    /// line's reads against each other). A load of that line placed before
    /// the loop (a `for` header's initialization) runs once per entry to
    /// the loop, so it counts as invariant there.
    ///
    /// `at` is the load (of the element, for a copy): a read of what another
    /// access of the loop touched in the same iteration before it, or one or
    /// two iterations earlier (of the line's loop or of the loop around it),
    /// is [`Reuse::Recent`].
    pub fn cost(&self, addr: &Value, at: InstId, innermost: Option<usize>) -> ReadCost {
        let footprint = self.footprint(addr);
        let reuse = if self.slot(addr).is_some() {
            Reuse::Fixed
        } else {
            match innermost {
                None if self.written_before(addr, at) => Reuse::Recent,
                None => Reuse::NoLoop,
                Some(l) => match self.stride(addr, l, 0) {
                    Some(0) => Reuse::Invariant,
                    _ if self.recently_touched(addr, at, l) => Reuse::Recent,
                    Some(s) => self.row(addr, l, s).unwrap_or(Reuse::Stride(s)),
                    None => self.rows(addr, l).unwrap_or(Reuse::Irregular),
                },
            }
        };
        let outer = match innermost.and_then(|l| self.cfg.loops[l].parent.map(|p| (l, p))) {
            Some((l, parent)) if !matches!(reuse, Reuse::Fixed) => {
                self.restart.set(Some(l));
                let s = self.stride(addr, parent, 0);
                self.restart.set(None);
                match s {
                    Some(0) => OuterReuse::Same,
                    _ => OuterReuse::Moves,
                }
            }
            _ => OuterReuse::Unknown,
        };
        let (sweep, swept_before) = match (reuse, innermost) {
            (Reuse::Stride(s), Some(l)) => (self.sweep(addr, l, s), self.swept_before(addr, l)),
            (Reuse::Row { stride, .. }, Some(l)) => (
                self.sweep(addr, l, i64::from(stride)),
                self.swept_before(addr, l),
            ),
            _ => (0, false),
        };
        ReadCost {
            reuse,
            outer,
            footprint,
            sweep,
            swept_before,
        }
    }

    /// The fixed slot an address names, when no pointer is loaded on the
    /// way (casts and constant GEPs of an alloca or a global).
    fn slot(&self, addr: &Value) -> Option<Slot> {
        let mut v = addr.clone();
        let mut offset = 0i64;
        for _ in 0..32 {
            match v {
                Value::Global(g) => return Some(Slot::Global(g, offset)),
                Value::Inst(i) => {
                    let inst = &self.f.insts[i as usize];
                    match &inst.op {
                        Op::Alloca { .. } => return Some(Slot::Stack(i, offset)),
                        Op::Cast => v = inst.args[0].clone(),
                        Op::Gep { steps, elem_size } => {
                            offset += const_offset(&inst.args, steps, *elem_size)?;
                            v = inst.args[0].clone();
                        }
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
        None
    }

    /// Bytes of the global or stack object the address lies in, when it is
    /// named directly (0 when reached through a pointer or unknown).
    fn footprint(&self, addr: &Value) -> u64 {
        let mut v = addr.clone();
        for _ in 0..32 {
            match v {
                Value::Global(g) => return self.m.globals.get(g as usize).map_or(0, |g| g.size),
                Value::Inst(i) => {
                    let inst = &self.f.insts[i as usize];
                    match &inst.op {
                        Op::Alloca { size } => return *size,
                        Op::Cast | Op::Gep { .. } => v = inst.args[0].clone(),
                        _ => return 0,
                    }
                }
                _ => return 0,
            }
        }
        0
    }
}

/// The byte offset of a GEP whose indices are all constants.
fn const_offset(args: &[Value], steps: &[GepStep], elem_size: u64) -> Option<i64> {
    let konst = |v: Option<&Value>| match v {
        Some(Value::ConstInt(c)) => Some(*c),
        None => Some(0),
        _ => None,
    };
    let mut offset = konst(args.get(1))?.checked_mul(elem_size as i64)?;
    for s in steps {
        let step = match s {
            GepStep::Field { offset, .. } => *offset as i64,
            GepStep::Index { arg, elem_size } => {
                konst(args.get(*arg as usize))?.checked_mul(*elem_size as i64)?
            }
        };
        offset = offset.checked_add(step)?;
    }
    Some(offset)
}

#[cfg(test)]
mod tests {
    use crate::analysis::read_table_tests::{summary, summary_at};
    use blame_formats::static_db::{FunctionSummary, Reuse};

    /// (variable, reuse) of every read on line `l`, sorted.
    fn reads(f: &FunctionSummary, l: u32) -> Vec<(String, Reuse)> {
        let mut v: Vec<(String, Reuse)> = f
            .reads
            .iter()
            .filter(|r| r.line == l)
            .flat_map(|r| r.reads.iter().zip(&r.costs))
            .map(|(r, c)| (f.variables[r.variable as usize].name.clone(), c.reuse))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    fn reuse_of(f: &FunctionSummary, l: u32, name: &str) -> Reuse {
        let r = reads(f, l);
        r.iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no read of {name} on line {l}: {r:?}"))
            .1
    }

    /// The outer pattern of the read of `name` on line `l`.
    fn outer_of(f: &FunctionSummary, l: u32, name: &str) -> blame_formats::static_db::OuterReuse {
        f.reads
            .iter()
            .filter(|r| r.line == l)
            .flat_map(|r| r.reads.iter().zip(&r.costs))
            .find(|(r, _)| f.variables[r.variable as usize].name == name)
            .unwrap_or_else(|| panic!("no read of {name} on line {l}"))
            .1
            .outer
    }

    /// Across iterations of the loop around the innermost one: the vector
    /// of a matrix-vector product and the C row of an ikj product are swept
    /// again, the matrix rows move on (the inner counter restarts each time).
    #[test]
    fn outer_loops_repeat_or_move_the_sweep() {
        use blame_formats::static_db::OuterReuse::{Moves, Same};
        let f = summary(
            "void mv(int n, int m, const double *a, const double *x, double *y) {
  for (int i = 0; i < n; i++) {
    double acc = 0.0;
    for (int k = 0; k < m; k++)
      acc += a[i * m + k] * x[k];
    y[i] = acc;
  }
}
",
            "mv",
        );
        assert_eq!(outer_of(&f, 5, "x"), Same);
        assert_eq!(outer_of(&f, 5, "a"), Moves);
        let g = summary(
            "void ikj(int n, const double *a, const double *b, double *c) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++) {
      double aik = a[i * n + k];
      for (int j = 0; j < n; j++)
        c[i * n + j] += aik * b[k * n + j];
    }
}
",
            "ikj",
        );
        assert_eq!(outer_of(&g, 6, "c"), Same);
        assert_eq!(outer_of(&g, 6, "b"), Moves);
    }

    /// A column of a matrix whose size is known at run time: a stride of
    /// 8·n bytes over an `i < n` loop (a line per access, n lines per sweep).
    #[test]
    fn columns_of_a_matrix_sized_at_run_time() {
        let f = summary(
            "void jki(int n, const double *a, const double *b, double *c) {
  for (int j = 0; j < n; j++)
    for (int k = 0; k < n; k++) {
      double bkj = b[k * n + j];
      for (int i = 0; i < n; i++)
        c[i * n + j] += a[i * n + k] * bkj;
    }
}
",
            "jki",
        );
        assert_eq!(reuse_of(&f, 6, "c"), Reuse::Rows { trip: 1, stride: 8 });
        assert_eq!(reuse_of(&f, 6, "a"), Reuse::Rows { trip: 1, stride: 8 });
        assert_eq!(
            outer_of(&f, 6, "c"),
            blame_formats::static_db::OuterReuse::Same
        );
    }

    /// Reads of what the loop wrote one iteration earlier (`p[j - 1]`), or
    /// read one or two rows earlier (`u[i - 1][j]`, `u[i][j]` after `u[i +
    /// 1][j]`), are Recent; the leading read and the plain streams are not.
    #[test]
    fn reads_of_recently_touched_data() {
        let f = summary(
            "void sweep(int n, const double *u, double *p, double *q) {
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++) {
      double den = 2.0 + p[i * n + j - 1];
      p[i * n + j] = 1.0 / den;
      q[i * n + j] = u[(i - 1) * n + j] + u[i * n + j] + u[(i + 1) * n + j] - q[i * n + j - 1];
    }
}
",
            "sweep",
        );
        assert_eq!(reuse_of(&f, 4, "p"), Reuse::Recent);
        assert_eq!(reuse_of(&f, 6, "q"), Reuse::Recent);
        let mut u: Vec<Reuse> = reads(&f, 6)
            .into_iter()
            .filter(|r| r.0 == "u")
            .map(|r| r.1)
            .collect();
        u.sort_by_key(|r| format!("{r:?}"));
        let row = Reuse::Row {
            stride: 8,
            trip: 1,
            pitch: 8,
        };
        assert_eq!(u, [Reuse::Recent, Reuse::Recent, row], "row i + 1 of n x n");
    }

    /// spmv: the streams `val[k]`, `col[k]` advance by their element size,
    /// the gather `x[col[k]]` is irregular, the accumulator and the counter
    /// are fixed slots.
    #[test]
    fn streams_gathers_and_scalars_of_a_sparse_product() {
        let f = summary(
            "void spmv(int rows, const int *row_ptr, const int *col, const double *val,
          const double *x, double *y) {
  for (int r = 0; r < rows; r++) {
    double sum = 0.0;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; k++)
      sum += val[k] * x[col[k]];
    y[r] = sum;
  }
}
",
            "spmv",
        );
        assert_eq!(reuse_of(&f, 6, "val"), Reuse::Stride(8));
        assert_eq!(reuse_of(&f, 6, "col"), Reuse::Stride(4));
        assert_eq!(reuse_of(&f, 6, "x"), Reuse::Irregular);
        assert_eq!(reuse_of(&f, 6, "sum"), Reuse::Fixed);
        assert_eq!(reuse_of(&f, 6, "k"), Reuse::Fixed);
        // `row_ptr[r]` starts the inner loop (read once per entry to it) and
        // `row_ptr[r + 1]` is re-read by its condition at one address: per
        // iteration of the line's innermost loop, both are invariant.
        let row_ptr: Vec<Reuse> = reads(&f, 5)
            .into_iter()
            .filter(|r| r.0 == "row_ptr")
            .map(|r| r.1)
            .collect();
        assert_eq!(row_ptr, [Reuse::Invariant, Reuse::Invariant]);
    }

    /// A linked-cell scan: `cell_head[c]` starts the list once per cell,
    /// `cell_next[j]` runs once per atom; on their shared line only the
    /// second is per iteration of the line's loop.
    #[test]
    fn a_for_header_initialization_runs_once_per_entry() {
        let f = summary(
            "int count(const int *cell_head, const int *cell_next, int ncells) {
  int n = 0;
  for (int c = 0; c < ncells; c++)
    for (int j = cell_head[c]; j >= 0; j = cell_next[j])
      n++;
  return n;
}
",
            "count",
        );
        assert_eq!(reuse_of(&f, 4, "cell_head"), Reuse::Invariant);
        assert_eq!(reuse_of(&f, 4, "cell_next"), Reuse::Irregular);
    }

    /// Row-major and column-major walks, a loop-invariant row, a pointer
    /// bumped in the loop, a linked list, a small table, a read outside loops.
    #[test]
    fn strides_follow_the_address_arithmetic() {
        let f = summary(
            "struct node { struct node *next; double v; };
static double table[64];
double walk(const double *a, int n, const double *p, const struct node *list, int m) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      s += a[i * n + j];
      s += a[j * n + i];
      s += a[i * n] * table[j & 63];
    }
  for (int k = 0; k < m; k++, p++)
    s += *p;
  for (const struct node *q = list; q; q = q->next)
    s += q->v;
  for (int k = 0; k < m; k += 4)
    s += a[2 * k + 1];
  return s + a[m];
}
",
            "walk",
        );
        // Along a row of an n x n matrix (i < n outside, j < n inside).
        let row = Reuse::Row {
            stride: 8,
            trip: 1,
            pitch: 8,
        };
        assert_eq!(reuse_of(&f, 7, "a"), row);
        assert_eq!(
            reuse_of(&f, 8, "a"),
            Reuse::Rows { trip: 1, stride: 8 },
            "stride 8·n, n iterations"
        );
        let line9 = reads(&f, 9);
        assert!(line9.contains(&("a".into(), Reuse::Invariant)), "{line9:?}");
        assert!(
            line9.contains(&("table".into(), Reuse::Irregular)),
            "{line9:?}"
        );
        let table = f.reads.iter().find(|r| r.line == 9).unwrap();
        let k = table
            .reads
            .iter()
            .position(|r| f.variables[r.variable as usize].name == "table")
            .unwrap();
        assert_eq!(table.costs[k].footprint, 64 * 8);
        assert_eq!(reuse_of(&f, 12, "p"), Reuse::Stride(8));
        assert_eq!(reuse_of(&f, 14, "q"), Reuse::Irregular);
        assert_eq!(
            reuse_of(&f, 16, "a"),
            Reuse::Stride(64),
            "2 * 4 elements of 8 bytes"
        );
        assert_eq!(reuse_of(&f, 17, "a"), Reuse::NoLoop);
        assert_eq!(reuse_of(&f, 17, "s"), Reuse::Fixed);
    }

    /// Outside loops, a read of what a store before it wrote (`out[0] *= f`
    /// after `out[0] = ...`) is recent; one nothing wrote, or that a store
    /// only on one branch wrote, is not.
    #[test]
    fn reads_of_what_straight_line_code_just_wrote_are_recent() {
        let src =
            "void interp(const double *t, const double *u, int k, double f, int c, double *out) {
  out[0] = t[k] + f * (t[k + 1] - t[k]);
  out[1] = u[k];
  if (c)
    out[2] = 1.0;
  out[0] *= u[k + 1];
  out[1] += out[2];
}
";
        let f = summary(src, "interp");
        assert_eq!(reuse_of(&f, 2, "t"), Reuse::NoLoop);
        assert_eq!(reuse_of(&f, 6, "u"), Reuse::NoLoop);
        assert_eq!(reuse_of(&f, 6, "out"), Reuse::Recent);
        let mut seven: Vec<Reuse> = reads(&f, 7)
            .into_iter()
            .filter(|r| r.0 == "out")
            .map(|r| r.1)
            .collect();
        seven.sort_by_key(|r| format!("{r:?}"));
        // out[1] was written on line 3, out[2] only when c holds.
        assert_eq!(seven, [Reuse::NoLoop, Reuse::Recent], "{:?}", reads(&f, 7));
    }

    /// An index held in a local computed once per iteration (`int c = j *
    /// nx + i`) is its arithmetic: `rho[c - 1]` and `rho[c]` were read as
    /// `rho[c + 1]` one and two iterations earlier (recent), `rho[c + 1]` is
    /// the stream; a size stored from an argument stays a run-time size.
    #[test]
    fn an_index_defined_once_from_counters_shifts_with_them() {
        let src = "double up(const double *rho, int nx, int ny) {
  double s = 0.0;
  for (int j = 1; j < ny - 1; j++)
    for (int i = 1; i < nx - 1; i++) {
      int c = j * nx + i;
      s += rho[c - 1] + rho[c + 1];
      s += rho[c];
    }
  return s;
}
";
        let f = summary(src, "up");
        let six: Vec<Reuse> = reads(&f, 6)
            .into_iter()
            .filter(|r| r.0 == "rho")
            .map(|r| r.1)
            .collect();
        assert!(six.contains(&Reuse::Recent), "{:?}", reads(&f, 6));
        assert!(six.contains(&Reuse::Stride(8)), "{:?}", reads(&f, 6));
        assert_eq!(reuse_of(&f, 7, "rho"), Reuse::Recent);
    }

    /// Optimized IR keeps counters in phis of the loop header.
    #[test]
    fn phi_counters_of_optimized_ir() {
        let src = "double dot(const double *a, const float *b, const int *idx, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[idx[i]];
  return s;
}
";
        let f = summary_at(src, "dot", "-O1");
        assert_eq!(reuse_of(&f, 4, "a"), Reuse::Stride(8), "{:?}", reads(&f, 4));
        assert_eq!(reuse_of(&f, 4, "b"), Reuse::Irregular);
    }

    /// The access pattern of the read of `name` on line `l`.
    fn cost_of(f: &FunctionSummary, l: u32, name: &str) -> blame_formats::static_db::ReadCost {
        *f.reads
            .iter()
            .filter(|r| r.line == l)
            .flat_map(|r| r.reads.iter().zip(&r.costs))
            .find(|(r, _)| f.variables[r.variable as usize].name == name)
            .unwrap_or_else(|| panic!("no read of {name} on line {l}"))
            .1
    }

    /// An output rescaled in place by a loop before the nest that
    /// accumulates into it, in the same iteration of the row loop: the
    /// accumulation's reads of the row were swept before over the same range
    /// (each pass counting with its own `j`), the streamed operand's were
    /// not, nor the rescaling pass's own. One sweep spans the row's pitch
    /// for a column count fixed at compile time, the trip count times the
    /// stride for a constant bound.
    #[test]
    fn a_pass_before_the_accumulation_sweeps_the_output_row() {
        let f = summary(
            "void gemm(int ni, int nj, int nk, double alpha, double beta, double c[][96],
          double a[][64], double b[][96], double *s) {
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++)
      c[i][j] *= beta;
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++)
        c[i][j] += alpha * a[i][k] * b[k][j];
  }
  for (int j = 0; j < 50; j++)
    s[j] = 0.0;
  for (int j = 0; j < 50; j++)
    s[j] += c[1][j];
}
",
            "gemm",
        );
        let (c, b) = (cost_of(&f, 8, "c"), cost_of(&f, 8, "b"));
        assert_eq!(
            (c.reuse, c.sweep, c.swept_before),
            (Reuse::Stride(8), 768, true)
        );
        assert_eq!(
            (b.reuse, b.sweep, b.swept_before),
            (Reuse::Stride(8), 768, false)
        );
        assert!(
            !cost_of(&f, 5, "c").swept_before,
            "nothing before the first pass"
        );
        // Loops of the function's body: a constant bound, zeroed first.
        let s = cost_of(&f, 13, "s");
        assert_eq!((s.sweep, s.swept_before), (400, true));
        assert!(!cost_of(&f, 13, "c").swept_before);
    }

    /// Zeroing then accumulating with a transposed operand, the matrices
    /// indexed by hand with a size known at run time: the accumulation's
    /// reads of the row were swept before when the zeroing pass runs over
    /// the same bound, not when it runs over another one.
    #[test]
    fn a_zeroing_pass_over_the_same_range_sweeps_the_output_row() {
        let src = |bound: &str| {
            format!(
                "void atb(int n, int m, const double *a, const double *b, double *c) {{
  for (int i = 0; i < n; i++) {{
    for (int j = 0; j < {bound}; j++)
      c[i * n + j] = 0.0;
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        c[i * n + j] += a[k * n + i] * b[k * n + j];
  }}
}}
"
            )
        };
        let same = summary(&src("n"), "atb");
        assert!(cost_of(&same, 7, "c").swept_before);
        assert!(!cost_of(&same, 7, "b").swept_before);
        assert_eq!(reuse_of(&same, 7, "a"), Reuse::Invariant);
        let other = summary(&src("m"), "atb");
        assert!(!cost_of(&other, 7, "c").swept_before);
    }
}
