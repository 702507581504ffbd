#!/bin/sh
# Slurm Prolog (slurm.conf: Prolog=/etc/slurm/blame-prolog.sh): tells the
# blame daemon a job starts. Needed only where jobs get no cgroup (the
# daemon groups by SLURM_JOB_ID/SLURM_STEP_ID then); never fails the job.
blame daemon job-begin "${SLURM_JOB_ID:?}" --socket "${BLAME_DAEMON_SOCKET:-/run/blame/daemon.sock}" >/dev/null 2>&1 || true
exit 0
