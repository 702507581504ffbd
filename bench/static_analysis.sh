#!/usr/bin/env bash
# Static-analysis speed of `blame analyze` on the largest real C file we can
# compile here: the SQLite amalgamation (sqlite3.c, ~270,000 lines, ~2,600
# functions, among them sqlite3VdbeExec, the ~9,000-line bytecode interpreter).
#
# The dissertation needed 381 s for 6,105 PETSc functions: 0.06 s per
# function, 14 s for the worst one. Target: at least 100x faster per
# function, and no function over 1 s.
#
#   bench/static_analysis.sh [RUNS]          (default 3; the median run is reported)
#   BLAME_BENCH_C=path/to/file.c bench/static_analysis.sh   (another C file)
#
# The file comes from the `libsqlite3-sys` crate (feature `bundled`), which
# vendors the amalgamation: a scratch crate outside the workspace depends on
# it and `cargo fetch` puts the sources into the cargo registry. Nothing is
# fetched when they are already there. Everything else is written to
# target/bench/static-analysis/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-3}
cd "$root"
export LLVM_SYS_191_PREFIX=${LLVM_SYS_191_PREFIX:-$(llvm-config-19 --prefix)}
work="$root/target/bench/static-analysis"
mkdir -p "$work"
sqlite_crate=libsqlite3-sys-0.40.0 # vendors SQLite 3.54.1

if [[ ! -x /usr/bin/time ]]; then
  echo "static_analysis: /usr/bin/time is missing (apt-get install time)" >&2
  exit 1
fi

# 1. The C file.
find_sqlite() {
  find "${CARGO_HOME:-$HOME/.cargo}/registry/src" -path "*/$sqlite_crate/sqlite3/sqlite3.c" \
    2>/dev/null | head -n 1
}
src=${BLAME_BENCH_C:-}
if [[ -z $src ]]; then
  src=$(find_sqlite)
  if [[ -z $src ]]; then
    fetch="$work/fetch"
    mkdir -p "$fetch/src"
    cat >"$fetch/Cargo.toml" <<'EOF'
[package]
name = "blame-bench-sqlite-fetch"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
libsqlite3-sys = { version = "=0.40.0", features = ["bundled"] }

# Not a member of the blame workspace.
[workspace]
EOF
    : >"$fetch/src/lib.rs"
    echo "static_analysis: fetching $sqlite_crate (SQLite amalgamation) with cargo fetch" >&2
    cargo fetch -q --manifest-path "$fetch/Cargo.toml"
    src=$(find_sqlite)
    [[ -n $src ]] || { echo "static_analysis: sqlite3.c not found after cargo fetch" >&2; exit 1; }
  fi
fi
name=$(basename "$src" .c)
bc="$work/$name.bc"

# 2. Bitcode, as `blame cc` would analyse it.
if [[ ! -s $bc || $src -nt $bc ]]; then
  clang-19 -g -O0 -emit-llvm -c "$src" -o "$bc"
fi

# 3. The release binary.
cargo build --release -q --bins
blame="$root/target/release/blame"

# 4. Runs: a fresh db each time, so every function is analysed (none reused).
lines=$(wc -l <"$src")
defined=$(llvm-dis-19 "$bc" -o - | grep -c '^define ' || true)
echo "input: $src"
echo "       $lines lines, $defined defined functions; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "command: /usr/bin/time -v $blame analyze $bc -o $work/$name.db --stats"
results="$work/runs.tsv"
: >"$results"
for ((r = 1; r <= runs; r++)); do
  rm -f "$work/$name.db" "$work/$name.lock"
  log="$work/run$r.log"
  /usr/bin/time -v "$blame" analyze "$bc" -o "$work/$name.db" --stats 2>"$log" >/dev/null
  awk -v run="$r" '
    /^analyzed / { functions = $2 }
    /^stages:/ {
      for (i = 1; i <= NF; i++) {
        if ($i == "IR") load = $(i + 1)
        if ($i == "analysis" && analysis == "") analysis = $(i + 1)
        if ($i == "summed") summed = $(i + 1)
        if ($i == "mean") mean = $(i + 1)
      }
    }
    /^slowest:/ { slowest_ms = $2; sub(/^slowest: +[0-9.]+ ms +/, ""); slowest = $0 }
    /Elapsed \(wall clock\)/ {
      n = split($NF, t, ":"); wall = 0
      for (i = 1; i <= n; i++) wall = wall * 60 + t[i]
    }
    /User time/ { user = $NF }
    /System time/ { sys = $NF }
    /Maximum resident set size/ { rss = $NF }
    END {
      printf "%s\t%s\t%.3f\t%.2f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", run, functions, wall, user + sys,
        load, analysis, summed, mean, slowest, slowest_ms, rss
    }' "$log" >>"$results"
done

# 5. Report: every run, then the median run (by wall time) in detail.
echo
printf '%-4s %9s %8s %8s %8s %10s %10s %12s %10s  %s\n' run functions wall_s cpu_s load_s \
  analysis_s summed_s mean_ms slowest_ms slowest
awk -F'\t' '{ printf "%-4s %9s %8.3f %8.2f %8s %10s %10s %12s %10s  %s\n", $1, $2, $3, $4, $5, $6, $7, $8, $10, $9 }' "$results"
sort -t$'\t' -k3,3n "$results" | awk -F'\t' -v runs="$runs" -v dissertation=0.06 '
  NR == int((runs + 1) / 2) {
    f = $2; wall = $3; cpu = $4
    printf "\nmedian run (%s of %s):\n", $1, runs
    printf "  functions                 %d\n", f
    printf "  functions/s               %.0f (wall, whole command: load IR, analysis on all cores, db write)\n", f / wall
    printf "  s per function            %.6f wall, %.6f CPU (user+sys, all threads), %.6f analysis only (mean per function)\n", wall / f, cpu / f, $8 / 1000
    printf "  vs 0.06 s/function        %.0fx (wall), %.0fx (CPU), %.0fx (analysis only)\n", dissertation * f / wall, dissertation * f / cpu, dissertation * 1000 / $8
    printf "  slowest function          %s: %.3f s\n", $9, $10 / 1000
    printf "  peak RSS                  %.1f MiB\n", $11 / 1024
    printf "  stages                    load IR %s s, analysis %s s (per-function times summed: %s s)\n", $5, $6, $7
    ok = (dissertation * f / cpu >= 100) && ($10 < 1000)
    printf "  target (>= 100x per function on CPU time, no function over 1 s): %s\n", ok ? "met" : "NOT met"
  }'
