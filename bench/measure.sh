# Shell helpers of the benchmark scripts (sourced by bench/scale.sh,
# bench/node_file.sh).
# measure LABEL CMD...: wall s, CPU s (user + sys: what the command used,
# whatever else loads the machine), peak RSS MiB, bytes read (rchar) of CMD.
measure() {
    local label=$1
    shift
    local log
    log=$(mktemp)
    /usr/bin/time -f "%e %M %U %S" -o "$log.time" sh -c '"$@" 2>>"$0.err"; s=$?; grep "^rchar" /proc/$$/io > "$0.io"; exit $s' "$log" "$@"
    read -r wall rss user sys < "$log.time"
    rchar=$(awk '{print $2}' "$log.io")
    echo "$label wall_s=$wall cpu_s=$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u+s}') rss_mib=$((rss / 1024)) read_mb=$(awk -v b="$rchar" 'BEGIN{printf "%.1f", b/1e6}')"
    rm -f "$log" "$log.time" "$log.io" "$log.err"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.2f", a/b; else print "-" }'; }
field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" <<< "$2"; }
