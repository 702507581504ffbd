#!/usr/bin/env bash
# Post-mortem at scale (issue 16, item 3): `blame post` and `blame merge` on
# synthetic runs of many ranks whose frames are real code of a real binary
# (bench/scale/treecode.c, compiled with clang-19 -g -O2) against its real
# static db (clang-19 -g -O0 -emit-llvm + blame analyze). The runs are
# written by blame-post/examples/scale_run.rs (see there for the stacks).
#
#   bench/scale.sh                # everything: 1,024 ranks (100M samples), 8,192 ranks, merges to 1,024
#   SCALE_QUICK=1 bench/scale.sh  # small sizes, a minute
#
# Knobs: SCALE_DIR (target/scale), SCALE_BIG_RANKS (1024), SCALE_BIG_MIN/MAX
# (95000/100000 samples per rank), SCALE_FLAT_RANKS ("64 1024 8192": runs whose
# shard of SCALE_FLAT_OWNED=64 ranks is posted; SCALE_FLAT_MIN/MAX samples per
# rank, 2000/3000, small so that 8,192 ranks fit on disk), SCALE_MERGE_MAX
# (1024 partial results, one rank each of the SCALE_MERGE_MAX-rank flat run),
# SCALE_KEEP=1 keeps the generated runs. SCALE_PIN=1 gives each shard of the
# big run one core of its own (`taskset`, RAYON_NUM_THREADS=1; the 1-shard
# baseline too): a job array with a core per shard, as on a cluster node.
# SCALE_SECTIONS ("1 2 3") picks the sections to run. Each merge is measured twice: per-rank
# contexts (`blame merge`) and contexts summed over ranks (`--sum-contexts`),
# each the run of median wall time of SCALE_MERGE_ROUNDS (5). The big run
# is posted SCALE_BIG_ROUNDS_REPEAT (3) times with 1 shard and then 2 shards
# at once (side by side, so that both see the same load), each shard's peak
# memory printed; SCALE_CMP_BLAME=path/to/other/blame posts it once with
# that build first and `cmp`s every result against it.
# Prints one line per measurement and ratios against the baseline (the first
# measurement of each kind in this same invocation).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export LLVM_SYS_191_PREFIX=${LLVM_SYS_191_PREFIX:-$(llvm-config-19 --prefix)}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
OUT=${SCALE_DIR:-$CARGO_TARGET_DIR/scale}
BIG_RANKS=${SCALE_BIG_RANKS:-1024}
BIG_MIN=${SCALE_BIG_MIN:-95000}
BIG_MAX=${SCALE_BIG_MAX:-100000}
FLAT_RANKS=${SCALE_FLAT_RANKS:-"64 1024 8192"}
FLAT_OWNED=${SCALE_FLAT_OWNED:-64}
FLAT_MIN=${SCALE_FLAT_MIN:-2000}
FLAT_MAX=${SCALE_FLAT_MAX:-3000}
MERGE_MAX=${SCALE_MERGE_MAX:-1024}
MERGE_ROUNDS=${SCALE_MERGE_ROUNDS:-5}
BIG_ROUNDS=${SCALE_BIG_ROUNDS_REPEAT:-3}
SECTIONS=${SCALE_SECTIONS:-"1 2 3"}
PIN=${SCALE_PIN:-}
section() { [[ " $SECTIONS " == *" $1 "* ]]; }
# The command prefix that puts a shard on core N of its own when SCALE_PIN is set.
if [ -n "$PIN" ]; then
    ON0=(env RAYON_NUM_THREADS=1 taskset -c 0)
    ON1=(env RAYON_NUM_THREADS=1 taskset -c 1)
else
    ON0=()
    ON1=()
fi
CMP_BLAME=${SCALE_CMP_BLAME:-}
if [ -n "${SCALE_QUICK:-}" ]; then
    BIG_RANKS=32 BIG_MIN=20000 BIG_MAX=30000 FLAT_RANKS="64 256" MERGE_MAX=32 BIG_ROUNDS=1
fi
mkdir -p "$OUT"
BLAME=$CARGO_TARGET_DIR/release/blame
GEN=$CARGO_TARGET_DIR/release/examples/scale_run
echo "== build" >&2
cargo build --release --bins -q
cargo build --release -p blame-post --example scale_run -q
export BLAME_PROGRESS=0

. bench/measure.sh

echo "== the binary and its static db" >&2
# Compiled only when changed: the runs carry its build-id, which post checks.
if [ ! -f "$OUT/treecode" ] || [ bench/scale/treecode.c -nt "$OUT/treecode" ]; then
    (cd bench/scale && clang-19 -g -O2 -fno-omit-frame-pointer -o "$OUT/treecode" treecode.c -lm)
fi
(cd bench/scale && clang-19 -g -O0 -emit-llvm -c -o "$OUT/treecode.bc" treecode.c)
rm -f "$OUT/static.db"
echo "static db: $(/usr/bin/time -f "%e s, peak %M KB" "$BLAME" analyze "$OUT/treecode.bc" -o "$OUT/static.db" 2>&1 | tail -1) for $(stat -c %s "$OUT/treecode.bc") bytes of bitcode"
DB=$OUT/static.db

gen() { # gen DIR RANKS MIN MAX
    [ "$1/manifest.json" -nt "$OUT/treecode" ] && [ "$(ls "$1" | grep -c bstream)" = "$2" ] && return 0
    rm -rf "$1"
    "$GEN" "$1" --binary "$OUT/treecode" --ranks "$2" --min-samples "$3" --max-samples "$4" --contexts 3000
}
samples_of() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['samples'])" "$1/manifest.json"; }
bytes_of() { du -sb --apparent-size "$1" | cut -f1; }

if section 1; then
echo "== 1. memory per shard against the ranks it does not own (shard of $FLAT_OWNED ranks, $FLAT_MIN-$FLAT_MAX samples per rank)"
base_rss=""
for n in $FLAT_RANKS; do
    d=$OUT/flat-$n
    gen "$d" "$n" "$FLAT_MIN" "$FLAT_MAX" >&2
    k=$((n / FLAT_OWNED))
    rm -f "$d"/results.bres*
    if [ "$k" -le 1 ]; then shard=0/1; else shard=0/$k; fi
    r=$(measure "ranks=$n shard=$shard owned=$FLAT_OWNED" "$BLAME" post "$d" --static "$DB" --shard "$shard")
    rss=$(field rss_mib "$r")
    base_rss=${base_rss:-$rss}
    echo "$r samples_total=$(samples_of "$d") run_mb=$(awk -v b="$(bytes_of "$d")" 'BEGIN{printf "%.0f", b/1e6}') rss_vs_first=$(ratio "$rss" "$base_rss")"
    rm -f "$d"/results.bres*
done
fi

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
if section 2; then
echo "== 2. the big run: $BIG_RANKS ranks, $BIG_MIN-$BIG_MAX samples per rank; post with 1 shard, then 2 shards at once, $BIG_ROUNDS rounds"
d=$OUT/big-$BIG_RANKS
gen "$d" "$BIG_RANKS" "$BIG_MIN" "$BIG_MAX" >&2
S=$(samples_of "$d")
echo "run: $BIG_RANKS ranks, $S samples, $(bytes_of "$d") bytes"
rm -f "$d"/results.bres*
if [ -n "$CMP_BLAME" ]; then
    # The reference: the whole post of another build (e.g. main's), which
    # every result of this build below must equal byte for byte.
    "$CMP_BLAME" post "$d" --static "$DB" --shard 0/1 -o "$OUT/reference.bres" 2>/dev/null
    echo "reference: $CMP_BLAME, $(stat -c %s "$OUT/reference.bres") bytes"
fi
same_as_reference() { # same_as_reference FILE LABEL
    [ -z "$CMP_BLAME" ] && return 0
    if cmp -s "$1" "$OUT/reference.bres"; then echo "  $2: byte-identical to the reference"; else echo "  $2: DIFFERS from the reference"; fi
}
speedups=()
for round in $(seq "$BIG_ROUNDS"); do
    echo "round $round, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    rm -f "$d"/results.bres*
    r1=$(measure "shards=1${PIN:+ pinned}" "${ON0[@]}" "$BLAME" post "$d" --static "$DB" --shard 0/1)
    w1=$(field wall_s "$r1")
    echo "$r1 samples_per_s=$(awk -v s="$S" -v w="$w1" 'BEGIN{printf "%.2fM", s/w/1e6}')"
    same_as_reference "$d/results.bres" "1 shard"
    rm -f "$d"/results.bres*
    t0=$EPOCHREALTIME
    measure "shards=2 shard=0/2${PIN:+ pinned}" "${ON0[@]}" "$BLAME" post "$d" --static "$DB" --shard 0/2 > "$OUT/s0.txt" &
    measure "shards=2 shard=1/2${PIN:+ pinned}" "${ON1[@]}" "$BLAME" post "$d" --static "$DB" --shard 1/2 > "$OUT/s1.txt" &
    wait
    t1=$EPOCHREALTIME
    w2=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')
    cat "$OUT/s0.txt" "$OUT/s1.txt"
    sp=$(ratio "$w1" "$w2")
    speedups+=("$sp")
    echo "shards=2 both wall_s=$w2 (includes the merge of 2 by the last shard) samples_per_s=$(awk -v s="$S" -v w="$w2" 'BEGIN{printf "%.2fM", s/w/1e6}') speedup_vs_1_shard=$sp"
    echo "max_rss_mib: 1 shard $(field rss_mib "$r1"); 2 shards $(field rss_mib "$(cat "$OUT/s0.txt")") and $(field rss_mib "$(cat "$OUT/s1.txt")") (limit 300)"
    same_as_reference "$d/results.bres" "2 shards merged"
    ls -l "$d"/results.bres* | awk '{print "  " $5, $9}'
done
echo "speedup of 2 shards over 1, median of $BIG_ROUNDS rounds: $(printf '%s\n' "${speedups[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}') (all: ${speedups[*]}); load average $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$d"/results.bres*
fi

if section 3; then
echo "== 3. merge of 2..$MERGE_MAX partial results (each one rank of a $MERGE_MAX-rank run, $FLAT_MIN-$FLAT_MAX samples per rank)"
d=$OUT/flat-$MERGE_MAX
gen "$d" "$MERGE_MAX" "$FLAT_MIN" "$FLAT_MAX" >&2
P=$OUT/partials-$MERGE_MAX
# Made again when blame is newer than them (the results format may have changed).
if [ "$(ls "$P" 2>/dev/null | grep -c shard-)" != "$MERGE_MAX" ] || [ "$BLAME" -nt "$P/.made" ]; then
    rm -rf "$P"
    mkdir -p "$P"
    t0=$(date +%s.%N)
    # One post per shard, two at a time; the last one to finish merges all (timed below on its own).
    seq 0 $((MERGE_MAX - 1)) | xargs -P 2 -I{} "$BLAME" post "$d" --static "$DB" --shard "{}/$MERGE_MAX" -o "$P/results.bres" 2>/dev/null
    t1=$(date +%s.%N)
    touch "$P/.made"
    echo "made $MERGE_MAX partials in $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}') s (2 at a time; includes the automatic merge of all by the last one)"
fi
base_per=""
m=2
while [ "$m" -le "$MERGE_MAX" ]; do
    M=$OUT/merge-$m
    rm -rf "$M"
    mkdir -p "$M"
    for i in $(seq 0 $((m - 1))); do
        ln -s "$P/results.bres.shard-$i-of-$MERGE_MAX" "$M/results.bres.shard-$i-of-$m"
    done
    in_bytes=$(cat "$M"/results.bres.shard-* | wc -c)
    r=$(measure_median "$MERGE_ROUNDS" "merge partials=$m" "$BLAME" merge "$M/results.bres")
    w=$(field wall_s "$r")
    per=$(awk -v w="$w" -v m="$m" 'BEGIN{printf "%.4f", w/m}')
    base_per=${base_per:-$per}
    echo "$r in_mb=$(awk -v b="$in_bytes" 'BEGIN{printf "%.1f", b/1e6}') out_mb=$(awk -v b="$(stat -c %s "$M/results.bres")" 'BEGIN{printf "%.1f", b/1e6}') mb_per_s=$(awk -v b="$in_bytes" -v w="$w" 'BEGIN{printf "%.1f", b/1e6/(w>0?w:0.01)}') s_per_partial=$per per_partial_vs_first=$(ratio "$per" "$base_per")"
    # The same partials, contexts summed over ranks (the root of a hierarchical merge).
    rm -f "$M/results.bres"
    r=$(measure_median "$MERGE_ROUNDS" "merge --sum-contexts partials=$m" "$BLAME" merge --sum-contexts "$M/results.bres")
    w=$(field wall_s "$r")
    c=$(field cpu_s "$r")
    echo "$r in_mb=$(awk -v b="$in_bytes" 'BEGIN{printf "%.1f", b/1e6}') out_mb=$(awk -v b="$(stat -c %s "$M/results.bres")" 'BEGIN{printf "%.1f", b/1e6}') mb_per_s=$(awk -v b="$in_bytes" -v w="$w" 'BEGIN{printf "%.1f", b/1e6/(w>0?w:0.01)}') mb_per_cpu_s=$(awk -v b="$in_bytes" -v c="$c" 'BEGIN{printf "%.1f", b/1e6/(c>0?c:0.01)}') s_per_partial=$(awk -v w="$w" -v m="$m" 'BEGIN{printf "%.4f", w/m}')"
    rm -rf "$M"
    m=$((m * 2))
done
fi

echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -z "${SCALE_KEEP:-}" ]; then
    rm -rf "$OUT"/big-* "$OUT"/flat-* "$OUT"/partials-*
fi
