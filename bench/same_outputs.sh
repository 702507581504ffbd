#!/usr/bin/env bash
# Byte-identity of a refactoring: two builds of blame (OLD and NEW, paths to
# their `blame` binaries; each with its blame-analyzer beside it) analyze the
# same sources and post, report and export the same recordings, and every
# output is compared byte for byte. The recordings are made once (sampling is
# not deterministic), by NEW.
#
#   bench/same_outputs.sh OLD/blame NEW/blame [WORKDIR]
#
# Programs: the demo's MPI solver (2 ranks, with and without allocation
# tracing) and corpus programs in C, C++ and MPI (CORPUS="name:compiler:ext ..."
# picks others). Prints one line per output
# and exits 1 when any differs.
set -euo pipefail
old=$1
new=$2
root=$(cd "$(dirname "$0")/.." && pwd)
work=${3:-$(mktemp -d)}
mkdir -p "$work"
export OMPI_CC=clang-19 OMPI_CXX=clang++-19
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpirun_flags=(-np 2)
[[ $(id -u) -eq 0 ]] && mpirun_flags+=(--allow-run-as-root)
differ=0

same() { # what, file-a, file-b
  if cmp -s "$2" "$3"; then
    echo "same     $1"
  else
    echo "DIFFERS  $1 ($2 $3)"
    differ=1
  fi
}

# build NAME COMPILER EXT SOURCES...: each file through `blame cc` of both
# builds (one db each), linked once (from NEW's objects).
build() {
  local name=$1 cc=$2
  shift 2
  local dir=$work/$name
  mkdir -p "$dir/old" "$dir/new"
  local objs=()
  for src in "$@"; do
    local o
    o=$(basename "${src%.*}").o
    BLAME_DB=$dir/old/static.db "$old" cc -- "$cc" -g -O2 -c "$src" -o "$dir/old/$o"
    BLAME_DB=$dir/new/static.db "$new" cc -- "$cc" -g -O2 -c "$src" -o "$dir/new/$o"
    objs+=("$dir/new/$o")
  done
  BLAME_DB=$dir/old/static.db "$old" cc --wait
  BLAME_DB=$dir/new/static.db "$new" cc --wait
  "$cc" -g "${objs[@]}" -lm -o "$dir/prog"
  same "$name: static db" "$dir/old/static.db" "$dir/new/static.db"
}

# compare NAME RUN: post, reports and exports of one recording by both builds.
compare() {
  local name=$1 run=$2 dir=$work/$1
  for side in old new; do
    local b=$old
    [[ $side == new ]] && b=$new
    rm -rf "$dir/$side.run" && cp -a "$run" "$dir/$side.run"
    rm -f "$dir/$side.run/results.bres"
    "$b" post "$dir/$side.run" --static "$dir/new/static.db" 2>"$dir/$side.post.err"
    "$b" report "$dir/$side.run" --by-variable >"$dir/$side.var.txt"
    "$b" report "$dir/$side.run" --by-variable --format json >"$dir/$side.var.json"
    "$b" report "$dir/$side.run" --by-function --format csv >"$dir/$side.fn.csv"
    for f in speedscope pprof folded hatchet cubex csv; do
      "$b" export "$dir/$side.run" --format "$f" -o "$dir/$side.export.$f"
    done
  done
  same "$name: results.bres" "$dir/old.run/results.bres" "$dir/new.run/results.bres"
  for f in var.txt var.json fn.csv; do
    same "$name: report $f" "$dir/old.$f" "$dir/new.$f"
  done
  for f in speedscope pprof folded hatchet cubex csv; do
    same "$name: export $f" "$dir/old.export.$f" "$dir/new.export.$f"
  done
}

build demo mpicc "$root/examples/solver/solver.c"
"$new" record -F 1000 -o "$work/demo/run" -- mpirun "${mpirun_flags[@]}" "$work/demo/prog" >/dev/null
compare demo "$work/demo/run"
"$new" record -F 1000 --track-allocations -o "$work/demo/run-mem" -- mpirun "${mpirun_flags[@]}" "$work/demo/prog" >/dev/null
mkdir -p "$work/demo-mem" && cp -a "$work/demo/old" "$work/demo/new" "$work/demo-mem/"
compare demo-mem "$work/demo/run-mem"
for side in old new; do
  b=$old
  [[ $side == new ]] && b=$new
  "$b" report "$work/demo-mem/$side.run" --memory >"$work/demo-mem/$side.memory.txt"
done
same "demo-mem: report --memory" "$work/demo-mem/old.memory.txt" "$work/demo-mem/new.memory.txt"

corpus=$root/tests/programs/corpus
for prog in ${CORPUS:-mdlink:mpicc:c hydrocxx:mpicxx:cc pcgvec:clang++-19:cpp}; do
  IFS=: read -r name cc ext <<<"$prog"
  [[ -d $corpus/$name ]] || continue
  build "$name" "$cc" "$corpus/$name"/*."$ext"
  if [[ $cc == mpic* ]]; then
    "$new" record -F 2000 -o "$work/$name/run" -- mpirun "${mpirun_flags[@]}" "$work/$name/prog" >/dev/null
  else
    "$new" record -F 2000 -o "$work/$name/run" -- "$work/$name/prog" >/dev/null
  fi
  compare "$name" "$work/$name/run"
done
exit $differ
