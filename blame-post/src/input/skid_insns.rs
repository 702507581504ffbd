//! Instruction skid (5.2.3 with the "second mapping" of the text): the
//! sampled instruction may be a few instructions after the one that missed;
//! walking the function's code back from the sampled address gives the
//! instructions it may really be, and their lines the skid window.
//!
//! The walk follows execution order, not address order: the instruction
//! executed before the first one of a loop body is usually the loop's
//! back-edge branch at the body's end, not the preheader above it. Where
//! several instructions can precede one, the loop-branch heuristic of static
//! branch prediction (a backward branch is taken 124 times in 128, as in
//! LLVM's `BranchProbabilityInfo`) weighs a back edge against the entries.
//! Only instructions that read memory can have caused a load miss, so the
//! window keeps those (the posterior of the skid distribution given that the
//! event is a load miss). Instructions the line table gives line 0 (code the
//! compiler hoisted or merged, e.g. the first load of a rotated loop) take
//! the line of the next instruction with one.
//!
//! The walk crosses inlined code: a sample in an inlined callee may come from
//! the caller's instructions before the inlined body (`locate(ax, density[c])`
//! loads `density[c]` in the caller, then runs `locate`'s code), and a sample
//! after an inlined call from the callee's last instructions (a binary search
//! inlined before the caller's reads). Each instruction keeps its inline
//! instance (its chain of inline frames); the window's lines of the sampled
//! instruction's own instance are [`InsnWindow::lines`], those of other
//! instances carry their inline frames ([`InsnWindow::inlined`]), so each is
//! read in its own function and lifted through its own call lines.

use crate::input::skid_model::LineSkid;
use crate::input::symbolize::Symbolizer;
use blame_formats::results::SymFrame;
use blame_formats::stream::Mapping;
use iced_x86::{Mnemonic, OpKind};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// A skid window over instructions, as lines: weights over the lines of
/// the sampled instruction's own inline instance and over the lines of
/// other inline instances of the same machine function (with their inline
/// frames), summing to 1; and whether it was cut short.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InsnWindow {
    /// Lines of the sampled instruction's innermost (possibly inlined) function.
    pub lines: BTreeMap<u32, f64>,
    /// Lines of other inline instances: the instruction's inline frames,
    /// innermost first (the innermost frame's line is the window line, its
    /// column 0), ending with the machine function's frame.
    pub inlined: BTreeMap<Vec<SymFrame>, f64>,
    /// A call or the function's entry cut some path short.
    pub truncated: bool,
}

impl InsnWindow {
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty() && self.inlined.is_empty()
    }
}

/// Weighted lines of a skid window: `(instance, line)` -> weight (see
/// [`window_over`]), and whether it was cut short.
pub type SkidLines = (BTreeMap<(u32, u32), f64>, bool);

/// One instruction of a function, as the skid walk sees it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Insn {
    pub addr: u64,
    /// Source line in the instruction's innermost function; 0 when the line
    /// table has none.
    pub line: u32,
    /// The inline instance the instruction belongs to (its innermost
    /// function and the call lines that inlined it): instructions of one
    /// instance share the number.
    pub instance: u32,
    pub reads_memory: bool,
    pub is_call: bool,
    /// Never falls through to the next instruction (jmp, ret, ud2).
    pub ends_flow: bool,
    /// Target of a direct jump or conditional branch.
    pub target: Option<u64>,
}

/// Static branch weights (LLVM's loop branch heuristic): taken back edges
/// against every other way in.
const BACK_EDGE_WEIGHT: f64 = 124.0;
const OTHER_EDGE_WEIGHT: f64 = 4.0;

/// The loops of a function's code as ranges of instruction positions: a
/// backward branch or jump at `hi` to `lo` closes the loop `lo..=hi`; two
/// ranges that overlap without one holding the other are one loop (a loop
/// body with two back edges, as an if/else at the end of a rotated loop
/// gives), so the ranges nest.
fn loop_ranges(insns: &[Insn], at: &HashMap<u64, usize>) -> Vec<(usize, usize)> {
    let mut ranges: Vec<(usize, usize)> = insns
        .iter()
        .enumerate()
        .filter_map(|(i, x)| {
            let t = *at.get(x.target.as_ref()?)?;
            (t <= i).then_some((t, i))
        })
        .collect();
    loop {
        ranges.sort_unstable();
        ranges.dedup();
        let crossing = (0..ranges.len()).find_map(|a| {
            (a + 1..ranges.len()).find_map(|b| {
                let (x, y) = (ranges[a], ranges[b]);
                // x.0 <= y.0 (sorted): they cross when y starts inside x and ends beyond it.
                (y.0 > x.0 && y.0 <= x.1 && y.1 > x.1).then_some((a, b))
            })
        });
        let Some((a, b)) = crossing else {
            return ranges;
        };
        let merged = (ranges[a].0, ranges[b].1);
        ranges[a] = merged;
        ranges.swap_remove(b);
    }
}

/// How control can arrive at each instruction: `None` when it cannot be
/// followed back (function entry, return from a call), else the
/// predecessors with probabilities.
///
/// Execution frequencies from the loop heuristic: an edge from inside the
/// innermost loop around an instruction (a back edge, or the fall-through
/// of a loop test that stays in the loop) is taken 124 times for every 4
/// that enter the loop from outside (the jump into a rotated loop's test,
/// the preheader's fall-through).
fn predecessors(insns: &[Insn]) -> Vec<Option<Vec<(usize, f64)>>> {
    let at: HashMap<u64, usize> = insns.iter().enumerate().map(|(i, x)| (x.addr, i)).collect();
    let ranges = loop_ranges(insns, &at);
    // The innermost loop around each instruction (the shortest range holding it).
    let innermost: Vec<Option<(usize, usize)>> = (0..insns.len())
        .map(|k| {
            ranges
                .iter()
                .filter(|r| r.0 <= k && k <= r.1)
                .min_by_key(|r| r.1 - r.0)
                .copied()
        })
        .collect();
    let weight = |from: usize, to: usize| match innermost[to] {
        Some((lo, hi)) if lo <= from && from <= hi => BACK_EDGE_WEIGHT,
        _ => OTHER_EDGE_WEIGHT,
    };
    let mut preds: Vec<Vec<(usize, f64)>> = vec![Vec::new(); insns.len()];
    let mut cut = vec![false; insns.len()];
    for (i, x) in insns.iter().enumerate() {
        if let Some(&t) = x.target.as_ref().and_then(|t| at.get(t)) {
            preds[t].push((i, weight(i, t)));
        }
        if i + 1 < insns.len() {
            if x.is_call {
                // What ran before the next instruction is the callee's return.
                cut[i + 1] = true;
            } else if !x.ends_flow {
                preds[i + 1].push((i, weight(i, i + 1)));
            }
        }
    }
    if !insns.is_empty() {
        cut[0] = true;
    }
    preds
        .into_iter()
        .zip(cut)
        .map(|(p, cut)| {
            if cut || p.is_empty() {
                return None;
            }
            let total: f64 = p.iter().map(|e| e.1).sum();
            Some(p.into_iter().map(|(i, w)| (i, w / total)).collect())
        })
        .collect()
}

/// The line of instruction `i`, with line 0 resolved to the next
/// instruction of its inline instance that has a line (else the previous one).
pub fn resolved_line(insns: &[Insn], i: usize) -> u32 {
    let instance = insns[i].instance;
    let has = |x: &Insn| x.instance == instance && x.line > 0;
    if has(&insns[i]) {
        return insns[i].line;
    }
    insns[i..]
        .iter()
        .take(32)
        .find(|x| has(x))
        .or_else(|| insns[..i].iter().rev().take(32).find(|x| has(x)))
        .map(|x| x.line)
        .unwrap_or(0)
}

/// The skid window of a sample reported at `insns[leaf]`: the lines of the
/// memory-reading instructions that executed 0, 1, 2... instructions before
/// it, weighted by the skid model and the path probabilities, normalized to
/// sum to 1 (all instructions of the window when none reads memory), keyed
/// by each instruction's inline instance and line: the walk goes through
/// inlined code and back into its caller. `truncated` when some path met a
/// call or the function's entry before the deepest offset.
pub fn window_over(insns: &[Insn], leaf: usize, model: LineSkid) -> SkidLines {
    let offsets = model.offsets();
    let deepest = offsets.iter().map(|o| o.0).max().unwrap_or(0).max(0) as usize;
    let preds = predecessors(insns);
    let mut dist: BTreeMap<usize, f64> = BTreeMap::from([(leaf, 1.0)]);
    // Per instruction: weight as a load, weight as any instruction.
    let mut candidates: BTreeMap<usize, (f64, f64)> = BTreeMap::new();
    let mut truncated = false;
    for back in 0..=deepest {
        let p: f64 = offsets
            .iter()
            .filter(|o| o.0 == back as i64)
            .map(|o| o.1)
            .sum();
        if p > 0.0 {
            for (&i, &q) in &dist {
                let c = candidates.entry(i).or_default();
                if insns[i].reads_memory {
                    c.0 += p * q;
                }
                c.1 += p * q;
            }
        }
        if back == deepest {
            break;
        }
        let mut next: BTreeMap<usize, f64> = BTreeMap::new();
        for (&i, &q) in &dist {
            match &preds[i] {
                None => truncated = true,
                Some(ps) => {
                    for &(j, w) in ps {
                        *next.entry(j).or_default() += q * w;
                    }
                }
            }
        }
        dist = next;
    }
    // No load within reach (the event may not be a load miss): every
    // instruction of the window, as the line model would.
    let loads = candidates.values().any(|c| c.0 > 0.0);
    let mut lines: BTreeMap<(u32, u32), f64> = BTreeMap::new();
    for (i, (load, any)) in candidates {
        let w = if loads { load } else { any };
        let line = resolved_line(insns, i);
        if line > 0 && w > 0.0 {
            *lines.entry((insns[i].instance, line)).or_default() += w;
        }
    }
    let total: f64 = lines.values().sum();
    if total > 0.0 {
        lines.values_mut().for_each(|w| *w /= total);
    }
    (lines, truncated)
}

/// What an instruction does, from its decoding: (reads memory, ends the
/// flow, direct branch target).
fn classify(ins: &iced_x86::Instruction) -> (bool, bool, Option<u64>) {
    use Mnemonic::*;
    let m = ins.mnemonic();
    let near = |k: OpKind| {
        matches!(
            k,
            OpKind::NearBranch16 | OpKind::NearBranch32 | OpKind::NearBranch64
        )
    };
    let branch = m != Call && ins.op_count() > 0 && near(ins.op0_kind());
    let target = branch.then(|| ins.near_branch_target());
    let ends_flow = matches!(
        m,
        Jmp | Ret | Retf | Iret | Iretd | Iretq | Ud2 | Ud0 | Ud1 | Hlt
    );
    let kinds: Vec<OpKind> = ins.op_kinds().collect();
    let string_read = kinds.iter().any(|k| {
        matches!(
            k,
            OpKind::MemorySegSI | OpKind::MemorySegESI | OpKind::MemorySegRSI
        )
    }) || matches!(m, Scasb | Scasw | Scasd | Scasq);
    let Some(mem) = kinds.iter().position(|k| *k == OpKind::Memory) else {
        return (string_read || matches!(m, Pop | Ret), ends_flow, target);
    };
    let no_access = matches!(
        m,
        Lea | Nop | Prefetch | Prefetchnta | Prefetcht0 | Prefetcht1 | Prefetcht2 | Prefetchw
    ) || format!("{m:?}").starts_with("Clflush");
    // A plain store: the memory operand is the destination and is only written.
    let store_only = mem == 0
        && (matches!(
            m,
            Mov | Movsd
                | Movss
                | Movaps
                | Movapd
                | Movups
                | Movupd
                | Movdqa
                | Movdqu
                | Movq
                | Movd
                | Movnti
                | Movntdq
                | Movntps
                | Movntpd
                | Movhps
                | Movhpd
                | Movlps
                | Movlpd
                | Movbe
                | Extractps
                | Pextrb
                | Pextrw
                | Pextrd
                | Pextrq
                | Fst
                | Fstp
                | Fistp
        ) || {
            let name = format!("{m:?}");
            (name.starts_with("Vmov") && !name.starts_with("Vmovmsk"))
                || name.starts_with("Set")
                || name.starts_with("Vextract")
                || name.starts_with("Vpextr")
        });
    (!no_access && !store_only, ends_flow, target)
}

/// A function's decoded code, cached per (object path, function start):
/// the instructions, and the inline frames of each instance (innermost
/// first; the innermost frame's line and column 0), by instance number.
type Decoded = Rc<(Vec<Insn>, Vec<Vec<SymFrame>>)>;

thread_local! {
    static FILES: RefCell<HashMap<String, Rc<Vec<u8>>>> = RefCell::new(HashMap::new());
    static FUNCTIONS: RefCell<HashMap<(String, u64), Decoded>> = RefCell::new(HashMap::new());
}

fn file_bytes(path: &str) -> Option<Rc<Vec<u8>>> {
    FILES.with(|f| {
        if let Some(b) = f.borrow().get(path) {
            return Some(b.clone());
        }
        let b = Rc::new(std::fs::read(path).ok()?);
        f.borrow_mut().insert(path.to_string(), b.clone());
        Some(b)
    })
}

/// The loadable segments of an object file: (address, size in memory,
/// file offset, size in the file, writable).
type Segments = Rc<Vec<(u64, u64, u64, u64, bool)>>;

thread_local! {
    static SEGMENTS: RefCell<HashMap<String, Segments>> = RefCell::new(HashMap::new());
}

fn segments_of(path: &str, bytes: &[u8]) -> Segments {
    use object::{Object, ObjectSegment};
    if let Some(s) = SEGMENTS.with(|c| c.borrow().get(path).cloned()) {
        return s;
    }
    let segments: Vec<(u64, u64, u64, u64, bool)> = object::File::parse(bytes)
        .map(|file| {
            file.segments()
                .map(|seg| {
                    let (offset, size) = seg.file_range();
                    let writable = match seg.flags() {
                        object::SegmentFlags::Elf { p_flags, .. } => {
                            p_flags.0 & object::elf::PF_W.0 != 0
                        }
                        _ => true,
                    };
                    (seg.address(), seg.size(), offset, size, writable)
                })
                .collect()
        })
        .unwrap_or_default();
    let segments = Rc::new(segments);
    SEGMENTS.with(|c| c.borrow_mut().insert(path.to_string(), segments.clone()));
    segments
}

/// Whether the memory operand of `ins` is a literal of the object's
/// read-only data addressed directly (`mulsd 0x974(%rip), %xmm7`: a
/// constant of the constant pool): it has no variable in the read table
/// and stays in the cache, so it never explains a miss. `m` maps the code.
fn reads_read_only_literal(ins: &iced_x86::Instruction, m: &Mapping, segments: &Segments) -> bool {
    if !ins.is_ip_rel_memory_operand() || ins.memory_index() != iced_x86::Register::None {
        return false;
    }
    // The load bias: where the segment holding the code's file offset is mapped.
    let Some(&(vaddr, _, offset, _, _)) = segments
        .iter()
        .find(|s| m.file_offset >= s.2 && m.file_offset < s.2 + s.3)
    else {
        return false;
    };
    let bias = m.start.wrapping_sub(vaddr + (m.file_offset - offset));
    let target = ins.ip_rel_memory_address().wrapping_sub(bias);
    segments
        .iter()
        .find(|s| target >= s.0 && target < s.0 + s.1)
        .is_some_and(|s| !s.4)
}

fn decode_function(
    symbolizer: &mut Symbolizer,
    mappings: &[Mapping],
    m: &Mapping,
    list: &[(u64, bool)],
) -> Option<Decoded> {
    let bytes = file_bytes(&m.path)?;
    let segments = segments_of(&m.path, &bytes);
    let mut insns = Vec::with_capacity(list.len());
    let mut decoded = Vec::with_capacity(list.len());
    let mut functions: Vec<Rc<str>> = Vec::with_capacity(list.len());
    let mut names: HashMap<String, Rc<str>> = HashMap::new();
    let mut instances: HashMap<Vec<SymFrame>, u32> = HashMap::new();
    let mut chains: Vec<Vec<SymFrame>> = Vec::new();
    for (k, &(addr, is_call)) in list.iter().enumerate() {
        let off = (addr.checked_sub(m.start)? + m.file_offset) as usize;
        let end = list
            .get(k + 1)
            .map(|n| (n.0 - m.start + m.file_offset) as usize)
            .unwrap_or(off + 15)
            .min(bytes.len());
        let code = bytes.get(off..end)?;
        let mut dec = iced_x86::Decoder::with_ip(64, code, addr, 0);
        let ins = dec.decode();
        let (reads_memory, ends_flow, target) = classify(&ins);
        let reads_memory = reads_memory && !reads_read_only_literal(&ins, m, &segments);
        decoded.push(ins);
        let mut chain = symbolizer.frames_for(mappings, addr, false);
        let (line, function) = chain
            .first()
            .map(|f| (f.line, f.function.clone()))
            .unwrap_or_default();
        let function = names
            .entry(function.clone())
            .or_insert_with(|| Rc::from(function.as_str()))
            .clone();
        if let Some(first) = chain.first_mut() {
            first.line = 0;
            first.column = 0;
        }
        let instance = *instances.entry(chain.clone()).or_insert_with(|| {
            chains.push(chain);
            chains.len() as u32 - 1
        });
        insns.push(Insn {
            addr,
            line,
            instance,
            reads_memory,
            is_call,
            ends_flow,
            target,
        });
        functions.push(function);
    }
    // A load the line table gives line 0 (hoisted, or the argument of an
    // inlined call: `locate(ax, density[c], ..)`) takes the line where its
    // value is used in its own function: the first later instruction that
    // reads the loaded register, or the call line of the inlined code that
    // does (the frame of the load's function in the use's inline stack).
    for k in 0..insns.len() {
        if insns[k].line != 0 || !insns[k].reads_memory {
            continue;
        }
        let Some(reg) = loaded_register(&decoded[k]) else {
            continue;
        };
        let user = (k + 1..insns.len().min(k + 17)).find(|&j| uses_register(&decoded[j], reg));
        let Some(j) = user else { continue };
        let line = symbolizer
            .frames_for(mappings, list[j].0, false)
            .iter()
            .find(|f| *f.function == *functions[k])
            .map_or(0, |f| f.line);
        insns[k].line = line;
    }
    Some(Rc::new((insns, chains)))
}

/// The register a load writes (its first operand), as a full register.
fn loaded_register(ins: &iced_x86::Instruction) -> Option<iced_x86::Register> {
    (ins.op_count() > 1 && ins.op0_kind() == OpKind::Register && ins.op1_kind() == OpKind::Memory)
        .then(|| ins.op0_register().full_register())
}

/// Whether `ins` names `reg` (any part of it) in an operand or an address.
fn uses_register(ins: &iced_x86::Instruction, reg: iced_x86::Register) -> bool {
    let same = |r: iced_x86::Register| r != iced_x86::Register::None && r.full_register() == reg;
    (0..ins.op_count()).any(|i| {
        ins.op_kind(i) == OpKind::Register && same(ins.op_register(i))
            || ins.op_kind(i) == OpKind::Memory
                && (same(ins.memory_base()) || same(ins.memory_index()))
    })
}

/// The decoded instructions of the machine function holding `leaf`, with
/// the inline frames of each instance, and `leaf`'s position.
fn decoded_function(
    symbolizer: &mut Symbolizer,
    mappings: &[Mapping],
    leaf: u64,
) -> Option<(Decoded, usize)> {
    let m = mappings
        .iter()
        .rev()
        .find(|m| leaf >= m.start && leaf < m.end)?
        .clone();
    let list = symbolizer.function_instructions(mappings, leaf)?;
    let key = (m.path.clone(), list.first()?.0);
    let cached = FUNCTIONS.with(|f| f.borrow().get(&key).cloned());
    let decoded = match cached {
        Some(d) => d,
        None => {
            let d = decode_function(symbolizer, mappings, &m, &list)?;
            FUNCTIONS.with(|f| f.borrow_mut().insert(key, d.clone()));
            d
        }
    };
    let at = decoded.0.iter().position(|i| i.addr == leaf)?;
    Some((decoded, at))
}

/// The instructions of the function holding `leaf`, and `leaf`'s position.
pub fn function_insns(
    symbolizer: &mut Symbolizer,
    mappings: &[Mapping],
    leaf: u64,
) -> Option<(Vec<Insn>, usize)> {
    let (decoded, at) = decoded_function(symbolizer, mappings, leaf)?;
    Some((decoded.0.clone(), at))
}

/// The source line of a sample at `leaf`: its own, or for an instruction
/// the line table gives line 0, the next instruction's. `None` when the
/// code cannot be read.
pub fn sample_line(symbolizer: &mut Symbolizer, mappings: &[Mapping], leaf: u64) -> Option<u32> {
    let (decoded, at) = decoded_function(symbolizer, mappings, leaf)?;
    Some(resolved_line(&decoded.0, at))
}

/// Gives the innermost frame of a sample at `leaf` the line of its
/// instruction when the line table says 0 (see [`sample_line`]).
pub fn resolve_leaf_line(
    symbolizer: &mut Symbolizer,
    mappings: &[Mapping],
    frames: &mut [SymFrame],
    leaf: u64,
) {
    if let Some(frame) = frames.first_mut().filter(|f| f.line == 0) {
        if let Some(line) = sample_line(symbolizer, mappings, leaf) {
            frame.line = line;
        }
    }
}

/// Lines (with weights summing to 1) a memory sample at `leaf` may come
/// from under an instruction skid model: of `leaf`'s own inline instance,
/// and of other inline instances of the machine function with their inline
/// frames; and whether a call or the function start cut the window short
/// (then it may be empty). `None` when the code cannot be disassembled.
pub fn instruction_window(
    symbolizer: &mut Symbolizer,
    mappings: &[Mapping],
    leaf: u64,
    model: LineSkid,
) -> Option<InsnWindow> {
    let (decoded, at) = decoded_function(symbolizer, mappings, leaf)?;
    let (insns, chains) = &*decoded;
    let (lines, truncated) = window_over(insns, at, model);
    let own = insns[at].instance;
    let mut out = InsnWindow {
        truncated,
        ..Default::default()
    };
    for ((instance, line), w) in lines {
        if instance == own {
            *out.lines.entry(line).or_default() += w;
        } else if let Some(chain) = chains.get(instance as usize) {
            let mut chain = chain.clone();
            if let Some(first) = chain.first_mut() {
                first.line = line;
            }
            *out.inlined.entry(chain).or_default() += w;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn insn(addr: u64, line: u32, reads: bool) -> Insn {
        Insn {
            addr,
            line,
            reads_memory: reads,
            ..Default::default()
        }
    }

    /// The triad loop of the -O1 binary (bench/datacentric): the body starts
    /// with the load of `c[i]`, which the line table gives line 0.
    ///
    /// ```text
    /// 0  40120b  xor   edx,edx            line 0   (preheader)
    /// 1  401210  movsd xmm1,[r12+rdx*8]   line 0   c[i]
    /// 2  401216  mulsd xmm1,xmm0          line 18
    /// 3  40121a  addsd xmm1,[r15+rdx*8]   line 18  b[i]
    /// 4  401220  movsd [r14+rdx*8],xmm1   line 18  a[i] = (a store)
    /// 5  401226  inc   rdx                line 17
    /// 6  401229  cmp   rax,rdx            line 17
    /// 7  40122c  jne   401210             line 17
    /// 8  40122e  jmp   401200             line 17
    /// ```
    fn triad() -> Vec<Insn> {
        let mut v = vec![
            insn(0x40120b, 0, false),
            insn(0x401210, 0, true),
            insn(0x401216, 18, false),
            insn(0x40121a, 18, true),
            insn(0x401220, 18, false),
            insn(0x401226, 17, false),
            insn(0x401229, 17, false),
            insn(0x40122c, 17, false),
            insn(0x40122e, 17, false),
        ];
        v[7].target = Some(0x401210);
        v[8].target = Some(0x401200);
        v[8].ends_flow = true;
        v
    }

    /// A sample at the loop's first instruction skidded from the previous
    /// iteration: walking back by address reached the preheader and line 17
    /// (whose -O0 reads are `n` and `i`); in execution order the loads one
    /// to five instructions back are `b[i]` (line 18) and, through the back
    /// edge, nothing else, so the window is line 18 (nearly) alone.
    #[test]
    fn the_walk_follows_the_back_edge_and_keeps_loads() {
        let (lines, truncated) = window_over(&triad(), 1, LineSkid { mean: 3, spread: 2 });
        let l18 = lines.get(&(0, 18)).copied().unwrap_or(0.0);
        assert!((l18 - 1.0).abs() < 1e-12, "{lines:?}");
        // The entry path (1/32) leaves this fragment at its first instruction.
        assert!(truncated);
    }

    /// Line 0 takes the next line: the `c[i]` load is on line 18.
    #[test]
    fn line_zero_takes_the_next_instructions_line() {
        let t = triad();
        assert_eq!(resolved_line(&t, 1), 18);
        assert_eq!(resolved_line(&t, 0), 18);
        assert_eq!(resolved_line(&t, 5), 17);
        // Reported at the store, 1..5 back: b[i] (line 18) and, one more
        // step back, c[i] (line 0 -> 18); non-loads are never the source.
        let (lines, _) = window_over(&t, 4, LineSkid { mean: 3, spread: 2 });
        assert_eq!(lines.keys().copied().collect::<Vec<_>>(), vec![(0, 18)]);
        assert!((lines[&(0, 18)] - 1.0).abs() < 1e-12);
    }

    /// Zero skid at an instruction that reads nothing: no load explains
    /// the event, so the window is the instruction's own line.
    #[test]
    fn without_a_load_in_reach_the_window_is_unfiltered() {
        let t = triad();
        let (lines, truncated) = window_over(&t, 6, LineSkid { mean: 0, spread: 0 });
        assert!(!truncated);
        assert_eq!(lines, BTreeMap::from([((0, 17), 1.0)]));
    }

    /// Never back across a call or before the function's first instruction.
    #[test]
    fn calls_and_the_entry_cut_the_window() {
        let mut v = vec![
            insn(0x10, 3, true),
            insn(0x14, 4, false),
            insn(0x18, 5, true),
            insn(0x1c, 6, false),
        ];
        v[1].is_call = true;
        let (lines, truncated) = window_over(&v, 3, LineSkid { mean: 2, spread: 1 });
        assert!(truncated);
        assert_eq!(lines, BTreeMap::from([((0, 5), 1.0)]));
        let (lines, truncated) = window_over(&v, 0, LineSkid { mean: 1, spread: 0 });
        assert!(truncated && lines.is_empty());
    }

    /// Two ways into a join point without a back edge weigh the same.
    #[test]
    fn forward_joins_split_evenly() {
        // 0: load (line 2); 1: jmp 3; 2: load (line 4); 3: reported (line 5)
        let mut v = vec![
            insn(0x0, 2, true),
            insn(0x4, 3, false),
            insn(0x8, 4, true),
            insn(0xc, 5, false),
        ];
        v[0].target = None;
        v[1].target = Some(0xc);
        v[1].ends_flow = true;
        // From 3, one back: insn 1 (jmp, not a load) or insn 2 (load): only 2 counts.
        let (lines, _) = window_over(&v, 3, LineSkid { mean: 1, spread: 0 });
        assert_eq!(lines, BTreeMap::from([((0, 4), 1.0)]));
        // Two back: through the jump to insn 0 (line 2); insn 2 has no way
        // in (insn 1 jumps away), so that path is cut.
        let (lines, _) = window_over(&v, 3, LineSkid { mean: 2, spread: 0 });
        assert_eq!(lines, BTreeMap::from([((0, 2), 1.0)]));
    }

    /// The walk crosses inline instances: a sample in an inlined callee
    /// (instance 1, `locate`'s lines 26-27) may come from the caller's load
    /// of the call's argument just before the inlined body (instance 0,
    /// line 49); each keeps its instance, and a line-0 instruction takes a
    /// line of its own instance, not the neighbouring callee's.
    ///
    /// ```text
    /// 0  movsd xmm0,[r15+rcx*8]   instance 0, line 0 -> 49 (density[c])
    /// 1  addsd xmm0,xmm5          instance 1, line 26
    /// 2  mulsd xmm0,[rax]         instance 1, line 26 (ax->inv_step)
    /// 3  cvttsd2si edx,xmm0       instance 1, line 27  <- reported
    /// 4  inc rcx                  instance 0, line 49
    /// ```
    #[test]
    fn windows_walk_from_inlined_code_into_its_caller() {
        let mut v = vec![
            insn(0x0, 0, true),
            insn(0x6, 26, false),
            insn(0xa, 26, true),
            insn(0xe, 27, false),
            insn(0x12, 49, false),
        ];
        for x in &mut v[1..4] {
            x.instance = 1;
        }
        assert_eq!(resolved_line(&v, 0), 49);
        let (lines, truncated) = window_over(&v, 3, LineSkid { mean: 2, spread: 1 });
        // 1 back: cvt's predecessor mulsd (a load, line 26); 2 back: addsd
        // (no load); 3 back: the caller's load (line 49).
        assert!(!truncated);
        assert_eq!(
            lines.keys().copied().collect::<Vec<_>>(),
            vec![(0, 49), (1, 26)]
        );
        assert!((lines[&(0, 49)] - 0.5).abs() < 1e-12, "{lines:?}");
    }

    /// A rotated loop entered by a jump into its test (a binary search at
    /// -O1): the test's instruction is reached from the loop's own
    /// fall-through 124 times for every 4 from the jump that enters it, so
    /// a sample there skidded from the search's load, not from the load
    /// before the loop.
    ///
    /// ```text
    /// 0  movsd xmm10,[rsi]     line 158  (p->energy, before the loop)
    /// 1  jmp 4                 line 158
    /// 2  mov r9d,r8d           line 108  <- loop top: from 6 (back edge)
    /// 3  cmp r9d,1; jle 9      line 108  (exit)
    /// 4  shr r9d               line 109  <- from 3 (in the loop) or 1 (entry)
    /// 5  movsd xmm7,[r14+r9*8] line 110  (grid[mid])
    /// 6  jbe 2                 line 110
    /// 7..9                     line 121
    /// ```
    #[test]
    fn entries_into_a_loop_are_rarer_than_its_iterations() {
        let mut v = vec![
            insn(0x0, 158, true),
            insn(0x4, 158, false),
            insn(0x8, 108, false),
            insn(0xc, 108, false),
            insn(0x10, 109, false),
            insn(0x14, 110, true),
            insn(0x18, 110, false),
            insn(0x1c, 121, false),
            insn(0x20, 121, false),
            insn(0x24, 121, true),
        ];
        v[1].target = Some(0x10);
        v[1].ends_flow = true;
        v[3].target = Some(0x24);
        v[6].target = Some(0x8);
        let preds = predecessors(&v);
        let into_test = preds[4].clone().unwrap();
        let from = |k: usize| into_test.iter().find(|p| p.0 == k).unwrap().1;
        assert!((from(3) - 124.0 / 128.0).abs() < 1e-12, "{into_test:?}");
        assert!((from(1) - 4.0 / 128.0).abs() < 1e-12, "{into_test:?}");
        // Reported at the test, 1..3 back: nearly always the search's load.
        let (lines, _) = window_over(&v, 4, LineSkid { mean: 3, spread: 1 });
        assert!(lines[&(0, 110)] > 0.95, "{lines:?}");
        // Two back edges whose ranges cross are one loop.
        let at: HashMap<u64, usize> = v.iter().enumerate().map(|(i, x)| (x.addr, i)).collect();
        v[8].target = Some(0xc);
        assert_eq!(loop_ranges(&v, &at), vec![(2, 8)]);
    }

    /// A literal of the constant pool (`movsd 0x94b(%rip), %xmm3` into
    /// .rodata) is not a read that can explain a miss; a RIP-relative load
    /// of writable data (a global) and an indexed one still are.
    #[test]
    fn constant_pool_literals_are_not_candidate_loads() {
        let segments: Segments = Rc::new(vec![
            (0x400000, 0x1000, 0, 0x1000, false),
            (0x401000, 0x1000, 0x1000, 0x1000, false),
            (0x402000, 0x1000, 0x2000, 0x1000, false),
            (0x403e00, 0x300, 0x2e00, 0x200, true),
        ]);
        let code = Mapping {
            pid: 1,
            start: 0x401000,
            end: 0x402000,
            file_offset: 0x1000,
            path: "k".into(),
            build_id: vec![],
        };
        let at = |bytes: &[u8], ip: u64| {
            let mut d = iced_x86::Decoder::with_ip(64, bytes, ip, 0);
            d.decode()
        };
        // movsd xmm3, [rip+0x94b] at 0x4016bd: 0x402010, read-only.
        let literal = at(&[0xf2, 0x0f, 0x10, 0x1d, 0x4b, 0x09, 0, 0], 0x4016bd);
        assert!(reads_read_only_literal(&literal, &code, &segments));
        // The same at 0x4034bd: 0x403e10, writable (a global).
        let global = at(&[0xf2, 0x0f, 0x10, 0x1d, 0x4b, 0x09, 0, 0], 0x4034bd);
        assert!(!reads_read_only_literal(&global, &code, &segments));
        // The same mapped 0x10000 higher (PIE): still the literal.
        let moved = Mapping {
            start: 0x411000,
            end: 0x412000,
            ..code.clone()
        };
        let literal = at(&[0xf2, 0x0f, 0x10, 0x1d, 0x4b, 0x09, 0, 0], 0x4116bd);
        assert!(reads_read_only_literal(&literal, &moved, &segments));
        // movsd xmm1, [r12+rdx*8]: not RIP-relative.
        let indexed = at(&[0xf2, 0x41, 0x0f, 0x10, 0x0c, 0xd4], 0x401210);
        assert!(!reads_read_only_literal(&indexed, &code, &segments));
    }

    /// Loads, stores and address arithmetic as the decoder sees them.
    #[test]
    fn memory_reads_are_told_from_stores_and_lea() {
        let decode = |bytes: &[u8]| {
            let mut d = iced_x86::Decoder::with_ip(64, bytes, 0x1000, 0);
            classify(&d.decode())
        };
        // movsd xmm1, [r12+rdx*8]
        assert!(decode(&[0xf2, 0x41, 0x0f, 0x10, 0x0c, 0xd4]).0);
        // addsd xmm1, [r15+rdx*8]
        assert!(decode(&[0xf2, 0x41, 0x0f, 0x58, 0x0c, 0xd7]).0);
        // movsd [r14+rdx*8], xmm1: a store
        assert!(!decode(&[0xf2, 0x41, 0x0f, 0x11, 0x0c, 0xd6]).0);
        // lea r12, [r13*8]
        assert!(!decode(&[0x4e, 0x8d, 0x24, 0xed, 0, 0, 0, 0]).0);
        // add [rax], ecx: read-modify-write
        assert!(decode(&[0x01, 0x08]).0);
        // jne -0x1e: a branch with a target
        let (r, ends, target) = decode(&[0x75, 0xe2]);
        assert!(!r && !ends && target == Some(0x1000 + 2 - 0x1e));
        // ret
        assert!(decode(&[0xc3]).1);
    }
}
