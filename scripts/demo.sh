#!/usr/bin/env bash
# The end-to-end demo: compile the MPI heat solver through `blame cc`, record
# two ranks with `blame record -- mpirun`, post-process, print the
# by-variable report and the memory report, and write the HTML report. Run by `make demo`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
blame=${BLAME:-$root/target/release/blame}
out=${DEMO_DIR:-$root/target/demo}

missing=()
for sub in cc record post report export; do
  "$blame" help "$sub" >/dev/null 2>&1 || missing+=("$sub")
done
if ((${#missing[@]})); then
  echo "demo: this build of blame lacks: ${missing[*]} (see the open issues)" >&2
  exit 1
fi

rm -rf "$out" && mkdir -p "$out"
cd "$out"
export BLAME_DB="$out/static.db"
export OMPI_CC=clang-19
echo "== compile through the blame cc launcher (static analysis into $BLAME_DB)"
"$blame" cc -- mpicc -g -O2 -fno-omit-frame-pointer -c "$root/examples/solver/solver.c" -o solver.o
mpicc -g solver.o -o solver -lm

echo "== record two ranks"
mpirun_flags=(-np 2)
[[ $(id -u) -eq 0 ]] && mpirun_flags+=(--allow-run-as-root)
"$blame" record -F 1000 -o run -- mpirun "${mpirun_flags[@]}" ./solver

echo "== post-process"
"$blame" post run --static "$BLAME_DB"

echo "== where the time went, by variable"
"$blame" report run --by-variable --top 15
echo
echo "== by function, for comparison"
"$blame" report run --by-function --top 8
echo
echo "== where the heap memory is, by variable (a second run, its allocations traced:"
echo "   tracing slows MPI_Init, so the time profile above is recorded without it)"
"$blame" record -F 1000 --track-allocations -o run-mem -- mpirun "${mpirun_flags[@]}" ./solver
"$blame" post run-mem --static "$BLAME_DB"
"$blame" report run-mem --memory

"$blame" export run --format html -o report.html
"$blame" export run --format speedscope -o profile.speedscope.json
"$blame" export run-mem --format html -o report-memory.html
echo
echo "demo: HTML report at $out/report.html (the memory run's, with its Memory tab, at"
echo "      $out/report-memory.html), speedscope profile at $out/profile.speedscope.json"
