# Shell helpers of the benchmark scripts (sourced by bench/scale.sh,
# bench/node_file.sh).
# measure LABEL CMD...: wall s (to the millisecond), CPU s (user + sys:
# what the command used, whatever else loads the machine), peak RSS MiB,
# bytes read (rchar) of CMD.
measure() {
    local label=$1
    shift
    local log start end
    log=$(mktemp)
    start=$EPOCHREALTIME
    /usr/bin/time -f "%e %M %U %S" -o "$log.time" sh -c '"$@" 2>>"$0.err"; s=$?; grep "^rchar" /proc/$$/io > "$0.io"; exit $s' "$log" "$@"
    end=$EPOCHREALTIME
    read -r _ rss user sys < "$log.time"
    rchar=$(awk '{print $2}' "$log.io")
    echo "$label wall_s=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.3f", b-a}') cpu_s=$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u+s}') rss_mib=$((rss / 1024)) read_mb=$(awk -v b="$rchar" 'BEGIN{printf "%.1f", b/1e6}')"
    rm -f "$log" "$log.time" "$log.io" "$log.err"
}
# measure_median N LABEL CMD...: `measure` N times; the line of the run of
# median wall time (a single run of a command of 0.1 s lands in whatever
# stretch a shared machine is in).
measure_median() {
    local n=$1
    shift
    for _ in $(seq "$n"); do measure "$@"; done |
        awk '{for (i = 1; i <= NF; i++) if ($i ~ /^wall_s=/) print substr($i, 8) "\t" $0}' |
        sort -n | awk -v n="$n" 'NR == int((n + 1) / 2)' | cut -f2-
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.2f", a/b; else print "-" }'; }
field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" <<< "$2"; }
