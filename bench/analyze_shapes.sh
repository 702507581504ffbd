#!/usr/bin/env bash
# blame analyze on every function shape of bench/shapes/shapes.py (branches
# over arrays, a big switch, straight-line array code, 8-deep loop nests, one
# nest with a huge body, constant tables, call chains, C++ accessors), each at
# several sizes: wall time and peak memory of one `blame analyze` of the
# generated unit (compiled as blame cc does: clang-19 -g -O0 -emit-llvm), and
# the ratio of each size's time to the previous size's (2.0 = linear); the
# CPU time (user+sys) beside the wall time, which other builds on a shared
# machine stretch.
# Target (issue 33): every shape at 20,000 in under 3 s and 500 MB, doubling
# the size at most 2.3x the time.
#
#   bench/analyze_shapes.sh                     # every shape, 2500 5000 10000 20000
#   SIZES="1000 2000" SHAPES="straight" bench/analyze_shapes.sh
#   BLAME=/path/to/blame bench/analyze_shapes.sh   # another build (before/after)
#   LIMIT=60 ...                                # seconds before a run is given up
#   REPEAT=1 ...                                # runs per size (default 3)
#
# Each size runs REPEAT times: the time printed is the fastest run's (with
# its CPU time), the memory the largest run's. On a shared 2-core machine a
# single run of 0.3-1 s varies by up to 2x (page clearing, other builds),
# which made per-doubling ratios of single runs swing from 1.0 to 4.7.
set -euo pipefail
cd "$(dirname "$0")/.."
export LLVM_SYS_191_PREFIX=${LLVM_SYS_191_PREFIX:-$(llvm-config-19 --prefix)}
if [ -z "${BLAME:-}" ]; then
  cargo build -q --release --bins
  BLAME=$PWD/target/release/blame
fi
SIZES=${SIZES:-"2500 5000 10000 20000"}
SHAPES=${SHAPES:-$(python3 bench/shapes/shapes.py --list | cut -d' ' -f1)}
LIMIT=${LIMIT:-120}
REPEAT=${REPEAT:-3}
w=$(mktemp -d); trap 'rm -rf "$w"' EXIT
printf "%-9s %6s %9s %7s %8s %7s  %s\n" shape n seconds "cpu s" "peak MB" ratio note
fail=0
missed=""
for shape in $SHAPES; do
  ext=$(python3 bench/shapes/shapes.py --list | awk -v s="$shape" '$1 == s { print $2 }')
  cc=clang-19; [ "$ext" = cc ] && cc=clang++-19
  prev=""
  for n in $SIZES; do
    src="$w/$shape$n.$ext"
    python3 bench/shapes/shapes.py "$shape" "$n" > "$src"
    "$cc" -g -O0 -emit-llvm -c "$src" -o "$w/$shape$n.bc"
    rc=0
    s="" kb=0 user=0 sys=0
    for _ in $(seq "$REPEAT"); do
      rm -rf "$w/db"
      timeout "$LIMIT" /usr/bin/time -o "$w/time" -f "%e %M %U %S" \
        "$BLAME" analyze "$w/$shape$n.bc" -o "$w/db" >/dev/null 2>"$w/err" || rc=$?
      [ $rc -ne 0 ] && break
      read -r s1 kb1 user1 sys1 < <(tail -1 "$w/time")
      [ "$kb1" -gt "$kb" ] && kb=$kb1
      if [ -z "$s" ] || python3 -c "import sys; sys.exit(0 if $s1 < $s else 1)"; then
        s=$s1 user=$user1 sys=$sys1
      fi
    done
    if [ $rc -ne 0 ]; then
      printf "%-9s %6d %9s %7s %8s %7s  %s\n" "$shape" "$n" ">$LIMIT" - - - "exit $rc"
      fail=1
      break
    fi
    cpu=$(python3 -c "print(round($user + $sys, 2))")
    ratio=-
    [ -n "$prev" ] && ratio=$(python3 -c "print(round($s/max($prev,0.01),2))")
    note=$(grep -m1 -o 'warning: .*' "$w/err" | cut -c1-90 || true)
    printf "%-9s %6d %9s %7s %8d %7s  %s\n" "$shape" "$n" "$s" "$cpu" $((kb / 1024)) "$ratio" "$note"
    python3 -c "import sys; s, mb, r = $s, $kb / 1024, '$ratio'; sys.exit(0 if s < 3 and mb < 500 and (r == '-' or float(r) <= 2.3) else 1)" ||
      missed+=" $shape@$n"
    prev=$s
  done
done
# Each size against the target (under 3 s and 500 MB, at most 2.3x the
# previous size's time); the issue asks it at 20,000.
echo "over the target (3 s, 500 MB, 2.3x per doubling):${missed:- none}"
exit $fail
