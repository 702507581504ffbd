#!/usr/bin/env bash
# Table 5.6 of the dissertation, reproduced on this machine without a PMU:
# memory-bound kernels (five micro-kernels, three application kernels) run
# under valgrind's lackey (every data access), an L1 cache simulation picks
# the misses, every 7th read miss is a sample,
# and the approximate methods (raw, loop, skid+loop) are correlated against
# direct attribution by data address. Skid is injected from the stated
# distribution: the sample reports the instruction MEAN +- SPREAD later.
# Figures and what they mean: BENCHMARKS.md. `datacentric_eval --explain`
# shows, per kernel, where the misses are and each line's read table.
#
#   bench/datacentric/run.sh [MEAN:SPREAD ...]     (default 3:2)
#
# Several skids (`run.sh 1:1 3:2 8:4`) evaluate each kernel's trace once per
# skid and print one table per skid (valgrind runs once per kernel).
#
# MICRO="..." / APPS="..." / EXTRA="..." choose the kernels of each group
# (empty: none);
# EXPLAIN=PREFIX writes each kernel's --explain to PREFIX.KERNEL.txt;
# JSON=PREFIX writes each kernel's --json (shares per variable of direct
# attribution and of every method) to PREFIX.KERNEL.json.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
skids=("${@:-3:2}")
cd "$root"
export LLVM_SYS_191_PREFIX=${LLVM_SYS_191_PREFIX:-$(llvm-config-19 --prefix)}
cargo build --release -q --bins
cargo build --release -q -p blame-post --example datacentric_eval
blame="$root/target/release/blame"
eval_bin="$root/target/release/examples/datacentric_eval"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
clang-19 -shared -fPIC -O2 -static-libgcc -o "$work/libblame_alloc.so" alloc-tracer/blame_alloc.c -ldl -lm

header() {
  echo "Correlation with direct attribution (Pearson), skid injected: insns $1;"
  echo "overlap = share of the misses put on direct's variables in direct's proportions;"
  echo "+acc = the same method then access-pattern weights (blame-static's locality classes)"
  printf '%-10s %-35s   %-35s\n' "" "------------- Pearson -------------" "------------- overlap -------------"
  printf '%-10s %-17s %-17s   %-17s %-17s\n' "" "---- no skid ----" "----- skid ------" "---- no skid ----" "----- skid ------"
  h=$(printf '%5s %5s %5s %5s %5s %5s' raw loop +acc raw s+l +acc)
  printf '%-10s %s   %s\n' kernel "$h" "$h"
}
# One table per skid: the first is printed as the kernels run, the others
# collected and printed at the end.
for skid in "${skids[@]}"; do
  if [ "$skid" = "${skids[0]}" ]; then header "$skid"; else header "$skid" >"$work/table.$skid"; fi
done
group() {
  for skid in "${skids[@]}"; do
    if [ "$skid" = "${skids[0]}" ]; then echo "$1"; else echo "$1" >>"$work/table.$skid"; fi
  done
}
# Micro-kernels: one hot loop each, all misses on one source line that
# reads several arrays and scalars (the method's limits, BENCHMARKS.md).
micro=${MICRO-triad stencil spmv histogram transpose}
# Application kernels in the manner of 5.3's SPEC programs: misses spread
# over many lines, functions and variables (md ~ ammp, quake ~ equake,
# art ~ art).
apps=${APPS-md quake art}
# Reuse and footprint kernels (issue 20): small operands that stay in L1
# beside a streamed one, reuse across an outer loop, reads of what was just
# written, heap arrays in structs; each file's header says which variables
# a reader expects to take the misses.
# Outputs read and written by an earlier pass of the same nest (issue 35):
# a row rescaled in place then accumulated, at a small data set
# (gemm_scale) and a large one (gemm_large), and zeroed then accumulated
# with a transposed operand (atb_zero).
extra=${EXTRA-mv_row mv_col bicg basis mm_ijk mm_ikj mm_jki mm_kij cholesky lu_update adi xs_lookup byval eos fir lut gauss_seidel gemm_scale gemm_large atb_zero}
explain=${EXPLAIN:-}
json=${JSON:-}
run_kernel() {
  local k=$1
  local src="bench/datacentric/kernels/$k.c"
  clang-19 -g -O1 -fno-pie -no-pie -o "$work/$k" "$src" -lm
  clang-19 -g -O0 -emit-llvm -c "$src" -o "$work/$k.bc"
  "$blame" analyze "$work/$k.bc" -o "$work/$k.db" >/dev/null
  mkdir -p "$work/$k.allocs"
  BLAME_ALLOC_DIR="$work/$k.allocs" LD_PRELOAD="$work/libblame_alloc.so" \
    valgrind --tool=lackey --trace-mem=yes --log-file="$work/$k.trace" "$work/$k" >/dev/null
  local allocs
  allocs=$(ls "$work/$k.allocs"/*.balloc | head -n 1)
  for skid in "${skids[@]}"; do
    local suffix=""
    [ "$skid" = "${skids[0]}" ] || suffix=".$skid"
    "$eval_bin" --binary "$work/$k" --static "$work/$k.db" --trace "$work/$k.trace" \
      --allocs "$allocs" --skid "$skid" --period 7 \
      ${explain:+--explain} 2>"$work/$k.explain" |
      if [ -z "$suffix" ]; then cat; else cat >>"$work/table.$skid"; fi
    if [ -n "$explain" ]; then
      cp "$work/$k.explain" "$explain.$k$suffix.txt"
    fi
    if [ -n "$json" ]; then
      "$eval_bin" --binary "$work/$k" --static "$work/$k.db" --trace "$work/$k.trace" \
        --allocs "$allocs" --skid "$skid" --period 7 \
        --json >"$json.$k$suffix.json" 2>/dev/null
    fi
  done
  rm -f "$work/$k.trace"
}
if [ -n "$micro" ]; then
  group "micro-kernels"
  for k in $micro; do run_kernel "$k"; done
fi
if [ -n "$apps" ]; then
  group "application kernels"
  for k in $apps; do run_kernel "$k"; done
fi
if [ -n "$extra" ]; then
  group "reuse and footprint kernels"
  for k in $extra; do run_kernel "$k"; done
fi
for skid in "${skids[@]:1}"; do
  echo
  cat "$work/table.$skid"
done
