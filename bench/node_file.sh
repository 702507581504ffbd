#!/usr/bin/env bash
# One file per node against one file per process (issue 16, item 2): the
# same MPI program (bench/busy_mpi.c) recorded under `blame record -- mpirun
# -np N` with the default layout (one node file) and with
# --per-process-files, for each N; then files, bytes, and `blame post` of
# each recording (whole, and shard 0/2), time, peak memory and bytes read.
#
#   bench/node_file.sh            # N = 4 and 16 (oversubscribed), 3 posts each
#
# Knobs: NODE_NP ("4 16"), NODE_ITER (busy_mpi iterations, 3000), NODE_N
# (grid, 256), NODE_REPS (posts per recording, 3; the median is printed),
# NODE_DIR (target/node-file), NODE_SYNTH_RANKS (1024; 0 leaves the synthetic
# run out).
# Ratios are new/old of recordings made in this same invocation.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export LLVM_SYS_191_PREFIX=${LLVM_SYS_191_PREFIX:-$(llvm-config-19 --prefix)}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export BLAME_PROGRESS=0
OUT=${NODE_DIR:-$CARGO_TARGET_DIR/node-file}
NPS=${NODE_NP:-"4 16"}
ITER=${NODE_ITER:-3000}
GRID=${NODE_N:-256}
REPS=${NODE_REPS:-3}
BLAME=$CARGO_TARGET_DIR/release/blame
mkdir -p "$OUT"
. bench/measure.sh
echo "== build" >&2
cargo build --release --bins -q
OMPI_CC=clang-19 mpicc -g -O2 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
    bench/busy_mpi.c -o "$OUT/busy_mpi"
clang-19 -g -O0 -emit-llvm -c bench/busy_mpi.c $(mpicc --showme:compile) -o "$OUT/busy_mpi.bc"
"$BLAME" analyze "$OUT/busy_mpi.bc" -o "$OUT/static.db" >/dev/null 2>&1

# median of the wall times of REPS runs of `blame post ARGS...`, with the
# peak RSS and bytes read of the median run.
post_median() {
    local label=$1
    shift
    local lines=()
    for _ in $(seq "$REPS"); do
        lines+=("$(measure "$label" "$BLAME" post "$@" --static "$OUT/static.db" -o "$OUT/tmp.bres")")
    done
    printf '%s\n' "${lines[@]}" | sort -t= -k2 -g | sed -n "$(((REPS + 1) / 2))p"
    rm -f "$OUT"/tmp.bres*
}

echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
for np in $NPS; do
    for layout in new old; do
        run=$OUT/run-$np-$layout
        rm -rf "$run"
        flag=()
        [ "$layout" = old ] && flag=(--per-process-files)
        nice "$BLAME" record "${flag[@]}" -F 1000 -o "$run" -- \
            mpirun -np "$np" "$OUT/busy_mpi" "$ITER" "$GRID" >/dev/null 2>"$run.log"
        files=$(find "$run" -maxdepth 1 \( -name '*.bnode' -o -name '*.bstream' \) | wc -l)
        bytes=$(find "$run" -maxdepth 1 \( -name '*.bnode' -o -name '*.bstream' \) -printf '%s\n' | awk '{s+=$1} END {print s}')
        samples=$(sed -n 's/.*blame record: \([0-9]*\) samples.*/\1/p' "$run.log")
        procs=$(grep -o 'of [0-9]* process image' "$run.log" | grep -o '[0-9]*')
        whole=$(post_median "post" "$run")
        shard=$(post_median "shard0/2" "$run" --shard 0/2)
        bps=$(awk -v b="$bytes" -v s="$samples" 'BEGIN{printf "%.1f", b/s}')
        echo "np=$np layout=$layout processes=$procs samples=$samples files=$files bytes=$bytes bytes/sample=$bps $whole | $shard"
        eval "files_$layout=$files bytes_$layout=$bps wall_$layout=$(field wall_s "$whole") read_$layout=$(field read_mb "$whole") sread_$layout=$(field read_mb "$shard")"
    done
    echo "np=$np new/old: files $files_new/$files_old bytes/sample $(ratio "$bytes_new" "$bytes_old") post wall $(ratio "$wall_new" "$wall_old") post read $(ratio "$read_new" "$read_old") shard read $(ratio "$sread_new" "$sread_old")"
done

# Many ranks: a synthetic run of NODE_SYNTH_RANKS ranks (blame-post/examples/
# scale_run.rs against bench/scale/treecode.c) as one file per rank and as
# node files of 64 ranks; `blame post --shard 0/S` for S = 16 (one node
# file's ranks) and 2: what a shard opens and reads before and while it posts.
RANKS=${NODE_SYNTH_RANKS:-1024}
[ "$RANKS" -gt 0 ] || exit 0
cargo build --release -p blame-post --example scale_run -q
clang-19 -g -O2 -fno-omit-frame-pointer bench/scale/treecode.c -o "$OUT/treecode" -lm
for layout in new old; do
    run=$OUT/synth-$RANKS-$layout
    rm -rf "$run"
    flag=()
    [ "$layout" = new ] && flag=(--ranks-per-node 64)
    "$CARGO_TARGET_DIR/release/examples/scale_run" "$run" --binary "$OUT/treecode" --ranks "$RANKS" \
        --min-samples 2000 --max-samples 3000 --contexts 1000 "${flag[@]}" 2>/dev/null
    files=$(find "$run" -maxdepth 1 \( -name '*.bnode' -o -name '*.bstream' \) | wc -l)
    for s in 16 2; do
        line=$(measure "shard0/$s" "$BLAME" post "$run" --shard "0/$s" -o "$OUT/tmp.bres")
        rm -f "$OUT"/tmp.bres*
        echo "synthetic ranks=$RANKS layout=$layout files=$files $line"
        eval "synth_${layout}_$s='$line'"
    done
done
for s in 16 2; do
    new=synth_new_$s old=synth_old_$s
    echo "synthetic shard 0/$s new/old: wall $(ratio "$(field wall_s "${!new}")" "$(field wall_s "${!old}")") read $(ratio "$(field read_mb "${!new}")" "$(field read_mb "${!old}")") rss $(ratio "$(field rss_mib "${!new}")" "$(field rss_mib "${!old}")")"
done
