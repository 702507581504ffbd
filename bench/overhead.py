#!/usr/bin/env python3
"""Recorder overhead against the kernel's own sampling cost, in one run.

For each rate (1 kHz and 4 kHz) the same binary (tests/programs/hot.c,
~1.5 s of compute) runs: alone; under `perf record -e cpu-clock` without
stacks (the floor: what sampling itself costs on this VM); under
`perf record --call-graph dwarf`; and under `blame record` (dwarf
unwinding while recording). Prints median wall and CPU time, overhead
against the unprofiled run, the ratios the targets are stated in, and
bytes on disk per sample. Then records a 4-rank MPI run and reports the
recorder's peak RSS.

    bench/overhead.py [--runs N] [--blame PATH]
"""
import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_timed(cmd, cwd):
    """Wall seconds and CPU seconds (user+sys of all children) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p.stderr


def dir_bytes(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))


def perf_samples(stderr):
    m = re.search(r"\((\d+) samples\)", stderr)
    return int(m.group(1)) if m else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--blame", default=os.path.join(ROOT, "target/release/blame"))
    ap.add_argument("--reps", default="120000", help="hot.c argument (work size)")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="blame-overhead-")
    try:
        hot = os.path.join(work, "hot")
        subprocess.run(["clang-19", "-g", "-O2", "-fno-omit-frame-pointer",
                        os.path.join(ROOT, "tests/programs/hot.c"), "-o", hot], check=True)
        target = [hot, args.reps]
        print(f"# recorder overhead, {args.runs} runs each (median); target: {' '.join(target)}")
        print(f"{'rate':>5} {'config':<22} {'wall s':>7} {'cpu s':>7} {'overhead s':>10} {'samples':>8} {'B/sample':>9}")
        results = {}
        for hz in (1000, 4000):
            configs = {
                "alone": lambda out: target,
                "perf (no stacks)": lambda out: ["perf", "record", "-q", "-e", "cpu-clock", "-F", str(hz), "-o", out, "--"] + target,
                "perf --call-graph dwarf": lambda out: ["perf", "record", "-q", "-e", "cpu-clock", "-F", str(hz), "--call-graph", "dwarf", "-o", out, "--"] + target,
                "blame record": lambda out: [args.blame, "record", "-e", "cpu-clock", "-F", str(hz), "-o", out, "--"] + target,
            }
            for name, make in configs.items():
                walls, cpus, sizes = [], [], []
                samples = 0
                for i in range(args.runs):
                    out = os.path.join(work, f"out-{hz}-{i}")
                    shutil.rmtree(out, ignore_errors=True)
                    if os.path.exists(out):
                        os.remove(out)
                    wall, cpu, stderr = run_timed(make(out), work)
                    walls.append(wall)
                    cpus.append(cpu)
                    if name.startswith("perf"):
                        # perf -q prints nothing: count with perf report.
                        rep = subprocess.run(["perf", "report", "-i", out, "--stats"], capture_output=True, text=True)
                        m = re.search(r"SAMPLE events:\s+(\d+)", rep.stdout)
                        samples = int(m.group(1)) if m else 0
                        sizes.append(dir_bytes(out) / max(samples, 1))
                    elif name == "blame record":
                        samples = json.load(open(os.path.join(out, "manifest.json")))["samples"]
                        sizes.append(dir_bytes(out) / max(samples, 1))
                w, c = statistics.median(walls), statistics.median(cpus)
                results[(hz, name)] = (w, c, statistics.median(sizes) if sizes else 0.0)
                base = results[(hz, "alone")][0]
                bps = f"{results[(hz, name)][2]:9.1f}" if sizes else f"{'':>9}"
                print(f"{hz:>5} {name:<22} {w:7.3f} {c:7.3f} {w - base:10.3f} {samples if sizes else '':>8} {bps}")
            base = results[(hz, "alone")][0]
            floor = results[(hz, "perf (no stacks)")][0] - base
            dwarf = results[(hz, "perf --call-graph dwarf")][0] - base
            ours = results[(hz, "blame record")][0] - base
            print(f"{hz:>5} blame overhead / floor overhead: {ours / floor if floor > 0 else float('inf'):.2f} (target <= 1.25)")
            print(f"{hz:>5} blame overhead / perf dwarf overhead: {ours / dwarf if dwarf > 0 else float('inf'):.2f} (target <= 0.25)")
            print(f"{hz:>5} blame bytes/sample / perf dwarf bytes/sample: "
                  f"{results[(hz, 'blame record')][2] / results[(hz, 'perf --call-graph dwarf')][2]:.4f} (target <= 0.01)")
            cbase = results[(hz, "alone")][1]
            cfloor = results[(hz, "perf (no stacks)")][1] - cbase
            cdwarf = results[(hz, "perf --call-graph dwarf")][1] - cbase
            cours = results[(hz, "blame record")][1] - cbase
            print(f"{hz:>5} CPU overhead: blame / floor {cours / cfloor if cfloor > 0 else float('inf'):.2f}, "
                  f"blame / perf dwarf {cours / cdwarf if cdwarf > 0 else float('inf'):.2f}")
            print(f"{hz:>5} wall vs alone: perf {results[(hz, 'perf (no stacks)')][0] / base:.3f}x, "
                  f"perf dwarf {results[(hz, 'perf --call-graph dwarf')][0] / base:.3f}x, blame {results[(hz, 'blame record')][0] / base:.3f}x")
        rss_of_mpi_run(args.blame, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def rss_of_mpi_run(blame, work):
    exe = os.path.join(work, "quad_mpi")
    env = dict(os.environ, OMPI_CC="clang-19")
    subprocess.run(["mpicc", "-g", "-O2", os.path.join(ROOT, "tests/programs/quad_mpi.c"), "-o", exe, "-lm"],
                   check=True, env=env)
    out = os.path.join(work, "mpi-run")
    cmd = [blame, "record", "-F", "4000", "-o", out, "--", "mpirun", "--allow-run-as-root", "--oversubscribe",
           "-np", "4", exe]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while p.poll() is None:
        try:
            with open(f"/proc/{p.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
        except FileNotFoundError:
            break
        time.sleep(0.01)
    m = json.load(open(os.path.join(out, "manifest.json")))
    ranks = sum(1 for x in m["processes"] if x["rank"] is not None)
    print(f"# 4-rank MPI run at 4 kHz: {ranks} rank streams, {m['samples']} samples, "
          f"recorder peak RSS {peak / 1024:.1f} MB (target < 200 MB)")


if __name__ == "__main__":
    main()
