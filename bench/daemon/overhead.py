#!/usr/bin/env python3
"""blame daemon overhead on a busy node and its memory with many processes.

Part 1: `mpirun -np NCPU busy_mpi ITER` alone, under `blame daemon` at 49 Hz
and at 199 Hz, in alternating rounds (a round runs the three in a rotating
order). Reported: median wall time per mode and the slowdown against alone;
the ranks' compute CPU time (thread CPU time in the sweeps, BUSY_MPI_COMPUTE)
and its inflation under the daemon (cache and interrupt cost to the
program); and the daemon's CPU time over the program's run (from `blame
daemon status`, taken right before and after the program) as a share of
the node's CPU (wall x CPUs). On a node where every core runs a rank, the
slowdown is about the daemon's share plus the inflation: a figure that the
noise of other jobs on the machine disturbs far less than wall time.

Part 2: the daemon at 199 Hz while PROCS copies of bench/daemon/mem_worker
run at once (started first, then all working together, each burning 20 ms
of CPU per 120 ms): the daemon's peak RSS
(VmHWM), the processes it saw and the streams it wrote.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BLAME = os.path.join(ROOT, "target/release/blame")
FP = ["-g", "-O2", "-fno-omit-frame-pointer", "-mno-omit-leaf-frame-pointer"]


def start_daemon(work, rate, commands):
    runs = os.path.join(work, f"runs-{rate}-{time.time_ns()}")
    sock = os.path.join(work, "d.sock")
    cfg = os.path.join(work, "d.toml")
    with open(cfg, "w") as f:
        f.write(f'dir = "{runs}"\nsocket = "{sock}"\nrate_hz = {rate}\n'
                f'include_users = ["root"]\ninclude_commands = {json.dumps(commands)}\n'
                'job_end_after_s = 1\nflush_interval_s = 5\n')
    p = subprocess.Popen([BLAME, "daemon", "run", "--config", cfg], stderr=subprocess.DEVNULL)
    for _ in range(300):
        if os.path.exists(sock):
            break
        time.sleep(0.05)
    else:
        p.kill()
        sys.exit("the daemon did not start")
    return p, sock, runs


def status(sock):
    out = subprocess.run([BLAME, "daemon", "status", "--json", "--socket", sock],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["status"] if "status" in json.loads(out) else json.loads(out)


def stop(p, sock, runs):
    subprocess.run([BLAME, "daemon", "stop", "--socket", sock], check=True, capture_output=True)
    p.wait(timeout=60)
    shutil.rmtree(runs, ignore_errors=True)


def busy(args, work):
    exe = os.path.join(work, "busy_mpi")
    subprocess.run(["mpicc"] + FP + [os.path.join(ROOT, "bench/busy_mpi.c"), "-o", exe], check=True)
    ncpu = os.cpu_count()
    cmd = ["mpirun", "-np", str(ncpu), exe, str(args.iterations)]
    modes = [0, 49, 199]
    wall = {m: [] for m in modes}
    compute = {m: [] for m in modes}
    share = {m: [] for m in modes if m}
    samples = {m: [] for m in modes if m}
    for r in range(args.rounds):
        order = modes[r % 3:] + modes[:r % 3]
        for m in order:
            d = None
            if m:
                d = start_daemon(work, m, ["busy_mpi"])
                before = status(d[1])
            cfile = os.path.join(work, "compute.txt")
            if os.path.exists(cfile):
                os.remove(cfile)
            t = time.monotonic()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                           env=dict(os.environ, BUSY_MPI_COMPUTE=cfile))
            w = time.monotonic() - t
            wall[m].append(w)
            with open(cfile) as f:
                compute[m].append(sum(float(x) for x in f.read().split()))
            if d:
                after = status(d[1])
                cpu = after["daemon_cpu_seconds"] - before["daemon_cpu_seconds"]
                share[m].append(100.0 * cpu / (w * ncpu))
                samples[m].append(after["samples"] - before["samples"])
                stop(*d)
        print(f"round {r + 1}: " + ", ".join(f"{m or 'alone'}: {wall[m][-1]:.2f} s" for m in modes),
              flush=True)
    base = statistics.median(wall[0])
    print(f"\nbusy node: `mpirun -np {ncpu} busy_mpi {args.iterations}`, {args.rounds} rounds, medians")
    cbase = statistics.median(compute[0])
    print("| mode | wall | wall slowdown | ranks' compute CPU | compute inflation | daemon CPU (% of node) | daemon + inflation | samples per run |")
    print("|---|---|---|---|---|---|---|---|")
    print(f"| alone | {base:.2f} s | | {cbase:.2f} s | | | | |")
    for m in (49, 199):
        med = statistics.median(wall[m])
        cmed = statistics.median(compute[m])
        infl = 100 * (cmed / cbase - 1)
        sh = statistics.median(share[m])
        print(f"| daemon {m} Hz | {med:.2f} s | {100 * (med / base - 1):+.2f}% "
              f"(rounds {min(wall[m]) / base - 1:+.1%} .. {max(wall[m]) / base - 1:+.1%}) | "
              f"{cmed:.2f} s | {infl:+.2f}% | {sh:.2f}% | {infl + sh:+.2f}% | {int(statistics.median(samples[m]))} |")
    spread = (max(wall[0]) - min(wall[0])) / base
    print(f"spread of the program alone: {spread:.1%}")


def memory(args, work):
    exe = os.path.join(work, "mem_worker")
    subprocess.run(["clang-19"] + FP + [os.path.join(ROOT, "bench/daemon/mem_worker.c"), "-o", exe], check=True)
    p, sock, runs = start_daemon(work, 199, ["mem_worker"])
    # All start working together, after every copy is started.
    start = time.time() + 5 + 0.03 * args.procs
    procs = [subprocess.Popen([exe, str(args.seconds), f"{start:.3f}"]) for _ in range(args.procs)]
    peak_seen = 0
    while any(q.poll() is None for q in procs):
        s = status(sock)
        peak_seen = max(peak_seen, sum(j["processes"] for j in s["jobs"]))
        time.sleep(1)
    time.sleep(2)
    s = status(sock)
    with open(f"/proc/{p.pid}/status") as f:
        hwm = next(int(l.split()[1]) for l in f if l.startswith("VmHWM"))
    streams = sum(len(json.load(open(os.path.join(d, "manifest.json")))["processes"])
                  for d, _, fs in os.walk(runs) if "manifest.json" in fs)
    stop(p, sock, runs)
    print(f"\nmemory: {args.procs} mem_worker processes at once for {args.seconds} s, daemon at 199 Hz")
    print(f"daemon peak RSS (VmHWM) {hwm / 1024:.1f} MiB; processes live at once (max seen) {peak_seen}; "
          f"process sections written {streams}; samples {s['samples']}; daemon CPU {s['daemon_cpu_seconds']:.2f} s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--iterations", default="6000")
    ap.add_argument("--procs", type=int, default=500)
    ap.add_argument("--seconds", type=float, default=15)
    ap.add_argument("--part", choices=["busy", "memory", "all"], default="all")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("blame daemon needs root")
    with tempfile.TemporaryDirectory(prefix="blame-daemon-bench") as work:
        os.chmod(work, 0o755)
        if args.part in ("busy", "all"):
            busy(args, work)
        if args.part in ("memory", "all"):
            memory(args, work)


if __name__ == "__main__":
    main()
