#!/bin/bash
# A Slurm batch job: record every task of an MPI program with blame, resolve
# the samples as a job step (one shard per task, the last one merges), and
# print where the time went by variable. Submit from the directory that
# holds the program and its static db (built with `blame cc`):
#
#   sbatch -n 4 examples/slurm/blame-job.sh ./solver input.txt
#
# BLAME (the blame binary), BLAME_DB (the static db, default
# .blame/static.db) and RUN (the run directory, default blame.run.$SLURM_JOB_ID)
# may be set in the environment.
#SBATCH --job-name=blame
#SBATCH --output=blame-%j.out
set -euo pipefail
blame=${BLAME:-blame}
run=${RUN:-blame.run.${SLURM_JOB_ID:-0}}
db=${BLAME_DB:-.blame/static.db}
ntasks=${SLURM_NTASKS:-1}

# One recorder per task: srun starts the tasks through slurmd, so the
# recorder runs inside each task and follows the program it starts.
srun -n "$ntasks" "$blame" record -o "$run" -- "$@"

# Post-processing as a job step: task I resolves shard I of N (from the
# step's SLURM_PROCID / SLURM_STEP_NUM_TASKS); the last to finish merges.
srun -n "$ntasks" "$blame" post "$run" --static "$db"

"$blame" report "$run" --static "$db" --by-variable --top 20
