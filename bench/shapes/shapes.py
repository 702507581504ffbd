#!/usr/bin/env python3
"""Function shapes that code generators and large codes produce, at any size.

    python3 bench/shapes/shapes.py SHAPE N        # the source on stdout
    python3 bench/shapes/shapes.py --list         # SHAPE EXT per line

N is the number of statements (branches, cases, calls, methods...). Every
shape reads and writes arrays, so the read table of chapter 5 (access
patterns of every load) has work to do. Used by bench/analyze_shapes.sh
(timed, up to 20,000) and blame-static/tests/shapes.rs (small sizes, not
timed).

  branches  `if (a[i%97] > i+0.5) { x += b[i%89]*y; y = x-i; } else a[i%97] = y;`
  switch    a switch of N cases over arrays (an interpreter's dispatch)
  straight  N statements `w[i%211] += k[i%307] * c[i%53] * c[(i*5)%53];`
  nest      8-deep loop nests over arrays, 8 statements in each innermost body
            (16 statements a nest: its 8 `for`s and its 8 body statements)
  body      one 8-deep loop nest whose innermost body holds N statements
  table     a constant table of N entries (global) and a local table filled
            by N stores, then read in a loop
  calls     a chain of N small functions, each calling the next
  cxx       C++: a class with many small inline accessors, N calls of them
"""
import sys

SHAPES = {
    "branches": "c",
    "switch": "c",
    "straight": "c",
    "nest": "c",
    "body": "c",
    "table": "c",
    "calls": "c",
    "cxx": "cc",
}


def branches(n):
    out = ["double f(double *a, const double *b, double x, double y) {"]
    for i in range(n):
        out.append(
            f"  if (a[{i % 97}] > {i}.5) {{ x += b[{i % 89}] * y; y = x - {i}; }}"
            f" else {{ a[{i % 97}] = y; }}"
        )
    out.append("  return x + y;\n}")
    return out


def switch(n):
    out = [
        "double f(int op, double *a, const double *b, double *c, double x) {",
        "  switch (op) {",
    ]
    for k in range(n):
        out.append(
            f"  case {k}: a[{k % 97}] = b[{(k * 7) % 89}] * x + c[{k % 61}];"
            f" c[{(k * 3) % 61}] += a[{(k + 1) % 97}]; break;"
        )
    out.append("  default: break;\n  }\n  return a[0] + c[0];\n}")
    return out


def straight(n):
    out = ["void f(double *w, const double *k, const double *c) {"]
    for i in range(n):
        out.append(f"  w[{i % 211}] += k[{i % 307}] * c[{i % 53}] * c[{(i * 5) % 53}];")
    out.append("}")
    return out


def nest_loops(depth, body, indent="  "):
    idx = [f"i{d}" for d in range(depth)]
    out = []
    for d in range(depth):
        out.append(f"{indent}{'  ' * d}for (int i{d} = 0; i{d} < n; i{d}++)")
    out.append(f"{indent}{'  ' * (depth - 1)}  {{")
    for s in body(idx):
        out.append(f"{indent}{'  ' * depth}{s}")
    out.append(f"{indent}{'  ' * (depth - 1)}  }}")
    return out


def stmt(k, idx):
    """An array statement over the counters of a nest."""
    d = len(idx)
    i, j, l = idx[k % d], idx[(k + 1) % d], idx[(k + 3) % d]
    return (
        f"u[{i} * n + {j}] += v[{j} * n + {l}] * w[({l} + {k % 5}) * n + {i}]"
        f" - u[{i} * n + {j} + {k % 3}];"
    )


def nest(n):
    out = ["void f(int n, double *u, const double *v, const double *w) {"]
    per = 8
    for m in range(max(1, n // (2 * per))):
        out += nest_loops(8, lambda idx, m=m: [stmt(m * per + s, idx) for s in range(per)])
    out.append("}")
    return out


def body(n):
    out = ["void f(int n, double *u, const double *v, const double *w) {"]
    out += nest_loops(8, lambda idx: [stmt(k, idx) for k in range(n)])
    out.append("}")
    return out


def table(n):
    vals = ", ".join(f"{(k * 0.37) % 11:.3f}" for k in range(n))
    out = [f"static const double T[{n}] = {{{vals}}};"]
    out.append("double f(int m, double *x) {")
    out.append(f"  double t[{n}];")
    for k in range(n):
        out.append(f"  t[{k}] = {(k * 0.61) % 7:.3f} * x[{k % 64}];")
    out.append("  double s = 0.0;")
    out.append(f"  for (int k = 0; k < {n}; k++)")
    out.append("    s += T[k] * t[k] + T[(k * 7) % m];")
    out.append("  return s;\n}")
    return out


def calls(n):
    out = ["double g0(double *a, int i) { return a[i % 97]; }"]
    for k in range(1, n):
        out.append(
            f"double g{k}(double *a, int i) {{ a[(i + {k}) % 97] += 0.5;"
            f" return g{k - 1}(a, i + 1) * 0.5 + a[i % 89]; }}"
        )
    out.append(f"double f(double *a) {{ return g{n - 1}(a, 0); }}")
    return out


def cxx(n):
    methods = max(1, min(n // 10, 2000))
    out = ["struct Cell {", "  double d[64];", "  int k;"]
    for m in range(methods):
        out.append(f"  double get{m}() const {{ return d[{m % 64}] * {m % 7 + 1}; }}")
        out.append(f"  void set{m}(double v) {{ d[{(m * 5) % 64}] = v + k; }}")
    out.append("  double at(int i) const { return d[i & 63]; }")
    out.append("};")
    out.append("double f(Cell &c, Cell *cells, int n) {")
    out.append("  double s = 0.0;")
    for k in range(n):
        a, b = k % methods, (k * 7) % methods
        if k % 2:
            out.append(f"  c.set{a}(c.get{b}() + cells[{k % 13}].at({k}));")
        else:
            out.append(f"  s += cells[{k % 13}].get{a}() * c.get{b}();")
    out.append("  return s;\n}")
    return out


def main():
    if sys.argv[1:] == ["--list"]:
        for s, ext in SHAPES.items():
            print(s, ext)
        return
    shape, n = sys.argv[1], int(sys.argv[2])
    if shape not in SHAPES:
        sys.exit(f"unknown shape {shape}; one of {', '.join(SHAPES)}")
    print("\n".join(globals()[shape](n)))


if __name__ == "__main__":
    main()
