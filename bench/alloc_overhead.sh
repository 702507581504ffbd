#!/usr/bin/env bash
# Allocation tracing cost (issue 34): bench/alloc/amr_churn.c (AMR-style
# levels of blocks of arrays of arrays, regridded: 10 million allocations and
# as many frees) run plain, under blame's allocation tracer alone (LD_PRELOAD
# of alloc-tracer/blame_alloc.c, as `blame record --track-allocations`
# preloads it), under `blame record --track-allocations` (tracer and
# sampler), and under heaptrack (Debian's; scripts/deps.sh installs it):
# median wall and CPU time of N runs each (CPU includes heaptrack's
# interpreting process), the logs' sizes, and blame's exact totals against
# heaptrack's counts.
#   bench/alloc_overhead.sh [runs=5] [million_allocations=10]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source bench/measure.sh
runs=${1:-5}
million=${2:-10}
export LLVM_SYS_191_PREFIX=${LLVM_SYS_191_PREFIX:-$(llvm-config-19 --prefix)}
cargo build --release -q --bins
blame=$root/target/release/blame
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
clang-19 -O2 -g -o "$work/churn" bench/alloc/amr_churn.c
clang-19 -shared -fPIC -O2 -static-libgcc -o "$work/libblame_alloc.so" alloc-tracer/blame_alloc.c -ldl -lm
mkdir -p "$work/logs"

echo "# $million million allocations, median of $runs runs"
plain=$(measure_median "$runs" plain "$work/churn" "$million")
echo "$plain"
tracer=$(measure_median "$runs" tracer sh -c 'rm -f "$0"/logs/*; BLAME_ALLOC_DIR="$0/logs" LD_PRELOAD="$0/libblame_alloc.so" "$0/churn" "$1" >/dev/null' "$work" "$million")
echo "$tracer"
record=$(measure_median "$runs" blame-record sh -c 'rm -rf "$0/run"; "$1" record --track-allocations -o "$0/run" -- "$0/churn" "$2" >/dev/null 2>&1' "$work" "$blame" "$million")
echo "$record"
heap=$(measure_median "$runs" heaptrack sh -c 'rm -f "$0"/ht.*; heaptrack -o "$0/ht" "$0/churn" "$1" >"$0/ht.out" 2>&1' "$work" "$million")
echo "$heap"
w0=$(field wall_s "$plain")
for line in "$tracer" "$record" "$heap"; do
    label=${line%% *}
    w=$(field wall_s "$line")
    echo "$label: $(ratio "$w" "$w0")x the plain run's wall time (+$(awk -v a="$w" -v b="$w0" 'BEGIN{printf "%.2f", a-b}') s)"
done
echo "log sizes: blame $(du -b "$work"/logs/*.balloc | awk '{s+=$1} END{printf "%.1f MB", s/1e6}') (run dir $(du -sb "$work/run" | awk '{printf "%.1f MB", $1/1e6}')), heaptrack $(du -b "$work"/ht.* | grep -v ht.out | awk '{s+=$1} END{printf "%.1f kB (aggregated per call stack by its interpreting process)", s/1e3}')"
python3 - "$work"/logs/*.balloc <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
at, events, totals = 40, 0, None
while at < len(b):
    k, n = struct.unpack_from('<II', b, at)
    kk = k & 0xff
    if kk == 4: at += 32; events += 1
    elif kk in (1, 2, 3, 5): at += 48; events += 1
    elif kk == 6: at += 16 + struct.unpack_from('<Q', b, at + 8)[0]
    elif kk == 7: at += 16 + 8 * n
    elif kk == 8: totals = struct.unpack_from('<14Q', b, at + 8); at += 8 + 112
    else: break
print(f"blame: {events} events logged; exact totals: {totals[0]} allocations, {totals[1]} bytes, peak {totals[5]} bytes, {totals[4]} blocks leaked")
PY
grep -E "allocations:|leaked allocations" "$work/ht.out" | sed 's/^[[:space:]]*/heaptrack: /'
