#!/bin/sh
# Runs every cargo-fuzz target of blame-formats for N seconds each (default 60).
#   scripts/fuzz.sh [SECONDS] [TARGET...]
# Needs cargo-fuzz (`cargo install cargo-fuzz`). A nightly toolchain is not
# required: RUSTC_BOOTSTRAP=1 lets the stable compiler accept -Zsanitizer.
# Crashes land in fuzz/artifacts/<target>/; the summary line of each run
# (executions, seconds) is printed at the end.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-stream node_file static_db results jsonl alloc_log}
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR="$PWD/fuzz/target"
cargo run -q -p blame-formats --example fuzz_seeds -- fuzz/corpus
mkdir -p fuzz/logs
for t in $targets; do
    echo "== fuzzing $t for ${secs}s"
    (cd fuzz && cargo fuzz run -O "$t" -- -max_total_time="$secs" -rss_limit_mb=2048 \
        -malloc_limit_mb=512 -timeout=10 -print_final_stats=1) >"fuzz/logs/$t.log" 2>&1 || {
        echo "!! $t failed, see fuzz/logs/$t.log and fuzz/artifacts/$t/"; tail -30 "fuzz/logs/$t.log"; exit 1; }
    grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|Done [0-9]+ runs" "fuzz/logs/$t.log" | sed "s/^/   $t: /"
done
