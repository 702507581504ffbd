#!/usr/bin/env bash
# blame analyze on generated functions with thousands of branches (what
# code generators emit): time and peak memory at 5,000 / 10,000 / 20,000
# branches, and the ratio 20k/10k (2.0 = linear). Target (issue 14): a
# 20,000-branch function in under 3 s and 500 MB.
#   chain: `if (x > k) s += k;` updating a few scalars (one long merge chain)
#   vars:  200 scalars updated from each other under 20,000 branches
set -euo pipefail
cd "$(dirname "$0")/.."
export LLVM_SYS_191_PREFIX=${LLVM_SYS_191_PREFIX:-$(llvm-config-19 --prefix)}
cargo build -q --release --bins
B=$PWD/target/release/blame
w=$(mktemp -d); trap 'rm -rf "$w"' EXIT
gen() { # shape n
  python3 - "$1" "$2" > "$w/$1$2.c" <<'PY'
import sys
shape, n = sys.argv[1], int(sys.argv[2])
if shape == "chain":
    print("int f(int x, int *a) {\n  int s = 0, t = 1;")
    for k in range(n):
        print([f"  if (x > {k}) s += {k};", f"  if (x == {k}) t = s + {k};", f"  if (x < {k}) a[{k%50}] = t;"][k % 3])
    print("  return s + t;\n}")
else:
    nv = 200
    print("int f(int x, int *a) {")
    for i in range(nv): print(f"  int v{i} = {i};")
    for k in range(n): print(f"  if (x > {k}) v{k%nv} += v{(k*7)%nv};")
    print("  return " + " + ".join(f"v{i}" for i in range(nv)) + ";\n}")
PY
  clang-19 -g -O0 -emit-llvm -c "$w/$1$2.c" -o "$w/$1$2.bc"
}
printf "%-6s %8s %9s %9s\n" shape branches seconds "peak MB"
for shape in chain vars; do
  declare -A t=()
  for n in 5000 10000 20000; do
    gen $shape $n
    /usr/bin/time -o "$w/time" -f "%e %M" "$B" analyze "$w/$shape$n.bc" -o "$w/db" >/dev/null 2>&1
    out=$(tail -1 "$w/time")
    s=${out% *}; kb=${out#* }
    t[$n]=$s
    printf "%-6s %8d %9s %9d\n" $shape $n "$s" $((kb / 1024))
  done
  echo "$shape: time 20k/10k = $(python3 -c "print(round(${t[20000]}/max(${t[10000]},0.001),2))")"
done
