#!/usr/bin/env bash
# Stops the single-node Slurm of scripts/slurm-up.sh.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/target/slurm}
for pid in "$dir/slurmd.pid" "$dir/slurmctld.pid"; do
  [ -s "$pid" ] && kill "$(cat "$pid")" 2>/dev/null
done
sleep 0.5
exit 0
