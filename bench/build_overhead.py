#!/usr/bin/env python3
"""Build overhead of `blame cc` (issue 15, item 1).

Builds real multi-file projects with `make -j2` plainly and through
`blame cc`, side by side, in alternating rounds, and prints the ratios of
the medians:

  * hpcc 1.5.0 (HPC Challenge: HPL, DGEMM, STREAM, PTRANS, FFT,
    RandomAccess; 178 C files; Debian source package) with mpicc over
    clang-19 and the reference BLAS;
  * lua 5.4.4 (33 C files; Debian source package) with clang-19;
  * the corpus of tests/programs/corpus (C and C++, 9 units) through a
    generated Makefile.

Per project and round: `plain` (the compiler as given), `blame` (`blame cc
-- COMPILER`, the default: one front end, analysis queued and drained in
the background at idle priority; then `blame cc --wait`, timed apart) and
`sync` (`BLAME_CC_SYNC=1`: every compile waits for its analysis). Wall
times and the CPU time of make's children; the background drain's CPU is
not in make's children, so `blame+wait` (the build, then waiting for the
queue) is the honest end-to-end figure.

Once per project it also checks that the objects `blame cc` builds are the
plain compile's, byte for byte, when the frame-pointer flags are off
(BLAME_CC_FRAME_POINTERS=0); with them on, the only difference is those
flags.

  bench/build_overhead.py [--rounds N] [--projects hpcc,lua,corpus]
"""

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BLAME = ROOT / "target" / "release" / "blame"
SRC = ROOT / "target" / "bench-src"

SOURCES_LIST = """Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""

HPCC_MAKE = """SHELL        = /bin/sh
CD           = cd
CP           = cp
LN_S         = ln -s
MKDIR        = mkdir
RM           = /bin/rm -f
TOUCH        = touch
ARCH         = $(arch)
TOPdir       = ../../..
INCdir       = $(TOPdir)/include
BINdir       = $(TOPdir)/bin/$(ARCH)
LIBdir       = $(TOPdir)/lib/$(ARCH)
HPLlib       = $(LIBdir)/libhpl.a
LAlib        = -lblas
HPL_INCLUDES = -I$(INCdir) -I$(INCdir)/$(ARCH)
HPL_LIBS     = $(HPLlib) $(LAlib) -lm
HPL_OPTS     = -DHPL_CALL_CBLAS -DMPI_Address=MPI_Get_address -DMPI_Type_struct=MPI_Type_create_struct
HPL_DEFS     = $(HPL_OPTS) $(HPL_INCLUDES)
CC           = $(BUILDCC)
CCNOOPT      = $(HPL_DEFS)
CCFLAGS      = $(HPL_DEFS) -g -O2
LINKER       = mpicc
LINKFLAGS    = $(CCFLAGS)
ARCHIVER     = ar
ARFLAGS      = r
RANLIB       = echo
"""


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=True, check=True, **kw)


def fetch(package, tarball_glob):
    """The upstream tarball of a Debian source package, unpacked once."""
    SRC.mkdir(parents=True, exist_ok=True)
    marker = SRC / f".{package}.done"
    if marker.exists():
        return
    lists = SRC / "apt-lists"
    (lists / "partial").mkdir(parents=True, exist_ok=True)
    (SRC / "src.sources").write_text(SOURCES_LIST)
    opts = (
        f"-o Dir::Etc::SourceList={SRC}/src.sources -o Dir::Etc::SourceParts=/dev/null "
        f"-o Dir::State::Lists={lists}"
    )
    if not any(lists.glob("*Sources*")):
        sh(f"apt-get {opts} update -qq")
    # The Debian packaging tarball may be gone from the mirror; the
    # upstream tarball is what we build.
    subprocess.run(
        f"cd {SRC} && apt-get {opts} source --download-only {package}",
        shell=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    tars = sorted(SRC.glob(tarball_glob))
    if not tars:
        sys.exit(f"build_overhead: could not download the source of {package}")
    sh(f"cd {SRC} && tar xzf {tars[-1].name}")
    marker.touch()


def projects():
    """name -> (directory, clean command, build command given a compiler prefix)."""
    out = {}
    fetch("hpcc", "hpcc_*.orig.tar.gz")
    hpcc = SRC / "hpcc-1.5.0"
    (hpcc / "hpl" / "Make.blame").write_text(HPCC_MAKE)
    out["hpcc"] = (
        hpcc,
        "make arch=blame clean >/dev/null 2>&1; rm -rf hpl/lib/arch/build/.blame",
        lambda pre: f"make arch=blame -j2 BUILDCC='{pre}mpicc'",
        hpcc / "hpl" / "lib" / "arch" / "build" / ".blame" / "static.db",
    )
    fetch("lua5.4", "lua5.4_*.orig.tar.gz")
    lua = SRC / "lua-5.4.4"
    out["lua"] = (
        lua,
        "make -C src clean >/dev/null 2>&1; rm -rf src/.blame",
        lambda pre: f"make -C src -j2 linux-noreadline CC='{pre}clang-19 -std=gnu99' MYCFLAGS=-g",
        lua / "src" / ".blame" / "static.db",
    )
    corpus = SRC / "corpus"
    if corpus.exists():
        shutil.rmtree(corpus)
    shutil.copytree(ROOT / "tests" / "programs" / "corpus", corpus)
    units = sorted(
        p.relative_to(corpus)
        for p in corpus.rglob("*")
        if p.suffix in (".c", ".cc", ".cpp")
    )
    objs = " ".join(str(u.with_suffix(".o")) for u in units)
    rules = []
    for u in units:
        cc = "$(MPICC)" if u.suffix == ".c" else "$(MPICXX)"
        rules.append(f"{u.with_suffix('.o')}: {u}\n\t{cc} -g -O2 -I{u.parent} -c $< -o $@\n")
    (corpus / "Makefile").write_text(f"all: {objs}\n" + "\n".join(rules))
    out["corpus"] = (
        corpus,
        "find . -name '*.o' -delete; rm -rf .blame",
        lambda pre: f"make -j2 MPICC='{pre}mpicc' MPICXX='{pre}mpicxx'",
        corpus / ".blame" / "static.db",
    )
    return out


def timed(cmd, cwd, env):
    """(wall seconds, CPU seconds of the children) of a shell command."""
    before = os.times()
    t = time.monotonic()
    subprocess.run(
        cmd, shell=True, cwd=cwd, env=env, check=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    wall = time.monotonic() - t
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return wall, cpu


def objects(d):
    return {
        str(p.relative_to(d)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in d.rglob("*.o")
    }


def code(obj):
    """The disassembly of an object, without its file name."""
    out = subprocess.run(["objdump", "-d", str(obj)], capture_output=True, text=True).stdout
    return out.split("\n", 3)[-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--projects", default="hpcc,lua,corpus")
    a = ap.parse_args()
    env = dict(os.environ)
    env.update(
        OMPI_CC="clang-19",
        OMPI_CXX="clang++-19",
        OMPI_ALLOW_RUN_AS_ROOT="1",
        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
    )
    env.pop("BLAME_DB", None)
    env.pop("BLAME_CC_SYNC", None)
    sync_env = dict(env, BLAME_CC_SYNC="1")
    nofp_env = dict(env, BLAME_CC_FRAME_POINTERS="0")
    blame = f"{BLAME} cc -- "
    load = os.getloadavg()[0]
    print(f"# blame cc build overhead, make -j2, {a.rounds} rounds, load at start {load:.2f}")
    all_projects = projects()
    for name in a.projects.split(","):
        d, clean, build, db = all_projects[name]
        # Objects: blame cc's (frame-pointer flags off) against plain.
        sh(clean, cwd=d)
        timed(build(""), d, env)
        plain_objs = objects(d)
        sh(clean, cwd=d)
        timed(build(blame), d, nofp_env)
        blame_objs = objects(d)
        blame_code = {k: code(d / k) for k in blame_objs if blame_objs[k] != plain_objs.get(k)}
        same = sum(1 for k, v in plain_objs.items() if blame_objs.get(k) == v)
        print(f"{name}: {same} of {len(plain_objs)} objects identical to the plain build's (BLAME_CC_FRAME_POINTERS=0)")
        # The others: is their code the same (blame cc added -g to a unit
        # compiled without it, or -fstandalone-debug to C++), or do two plain
        # builds differ too (__DATE__, __TIME__)?
        differ = [k for k, v in plain_objs.items() if blame_objs.get(k) != v]
        sh(clean, cwd=d)
        timed(build(""), d, env)
        again = objects(d)
        unstable = [k for k in differ if again.get(k) != plain_objs[k]]
        same_code = sum(
            1 for k in differ if k not in unstable and code(d / k) == blame_code[k]
        )
        if differ:
            print(f"{name}: of the {len(differ)} others, {same_code} have the same code (objdump -d; blame cc added -g or -fstandalone-debug, debug info only) and {len(unstable)} differ between two plain builds too (__DATE__/__TIME__)")
        rows = {k: [] for k in ("plain", "blame", "wait", "sync", "plain_cpu", "blame_cpu", "sync_cpu")}
        for r in range(a.rounds):
            order = ["plain", "blame", "sync"] if r % 2 == 0 else ["sync", "blame", "plain"]
            for mode in order:
                sh(clean, cwd=d)
                if mode == "plain":
                    w, c = timed(build(""), d, env)
                elif mode == "blame":
                    w, c = timed(build(blame), d, env)
                    ww, _ = timed(f"{BLAME} cc --wait", d, dict(env, BLAME_DB=str(db)))
                    rows["wait"].append(ww)
                else:
                    w, c = timed(build(blame), d, sync_env)
                rows[mode].append(w)
                rows[mode + "_cpu"].append(c)
        check = subprocess.run(
            [str(BLAME), "check", str(db)], capture_output=True, text=True
        )
        med = {k: statistics.median(v) for k, v in rows.items() if v}
        spread = {
            k: (max(v) - min(v)) / statistics.median(v) if statistics.median(v) else 0
            for k, v in rows.items() if v and not k.endswith("cpu")
        }
        p = med["plain"]
        print(f"{name}: {check.stdout.strip()}")
        print(f"{name}: plain {p:.2f} s (spread {spread['plain']:.0%}), "
              f"blame {med['blame']:.2f} s (spread {spread['blame']:.0%}), "
              f"then --wait {med['wait']:.2f} s, sync {med['sync']:.2f} s")
        print(f"{name}: ratio blame/plain {med['blame'] / p:.3f} (target <= 1.15), "
              f"(blame+wait)/plain {(med['blame'] + med['wait']) / p:.3f}, "
              f"sync/plain {med['sync'] / p:.3f}")
        print(f"{name}: CPU of make's children: plain {med['plain_cpu']:.1f} s, "
              f"blame {med['blame_cpu']:.1f} s ({med['blame_cpu'] / med['plain_cpu']:.2f}x), "
              f"sync {med['sync_cpu']:.1f} s ({med['sync_cpu'] / med['plain_cpu']:.2f}x)")
        sys.stdout.flush()
    print(f"# load at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
