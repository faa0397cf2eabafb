#!/usr/bin/python3
"""Checks for modefit's frame, mismatch and normalization tests (numpy, docs/bundle.md).

usage: check_frame.py ratio BUNDLE_A BUNDLE_B K_RATIO M_RATIO TOL
           K_A / K_B and M_A / M_B (1-mode bundles) against the ratios, relative TOL
       check_frame.py suggest ERRFILE LARGER TX,TY,TZ TOL
           the refusal proposes --mesh-scale 1/LARGER (1/S within TOL relative) and
           --mesh-translate TX,TY,TZ (within TOL absolute)
       check_frame.py meta BUNDLE KEY VALUE
           META KEY is exactly VALUE ('-' for: absent)
       check_frame.py gridvalue BUNDLE X,Y,Z COMPONENT VALUE TOL
           mode 1's MODE grid value at the grid node X,Y,Z (body frame), component 0..2,
           against VALUE (absolute TOL; VALUE prefixed by '!' must differ by more than TOL)
       check_frame.py column TABLE.tsv NAME V1,V2,... TOL
           the snapshot table's column NAME row by row (absolute TOL)
Prints what it compared; exits 1 when a check fails."""
import re
import sys

import numpy as np

from modes_read import grain

failures = 0


def check(name, ok, detail):
    global failures
    print(("ok   " if ok else "FAIL ") + name + ": " + detail)
    if not ok:
        failures += 1


def ratio(a, b, kr, mr, tol):
    ga, gb = grain(a), grain(b)
    k = ga["K"][0, 0] / gb["K"][0, 0]
    m = ga["M"][0, 0] / gb["M"][0, 0]
    check("K ratio", abs(k / kr - 1) <= tol, f"{k!r} vs {kr!r}")
    check("M ratio", abs(m / mr - 1) <= tol, f"{m!r} vs {mr!r}")


def suggest(errfile, larger, shift, tol):
    text = open(errfile).read()
    m = re.search(r"--mesh-scale (\S+) --mesh-translate (\S+),(\S+),(\S+) ", text)
    check("a fit is proposed", m is not None, text.strip()[:200])
    if not m:
        return
    s = float(m.group(1))
    t = np.array([float(m.group(k)) for k in (2, 3, 4)])
    check("scale", abs((1 / s) / larger - 1) <= tol, f"1/{s!r} = {1 / s!r} vs {larger!r}")
    check("translate", np.abs(t - shift).max() <= tol, f"{t} vs {shift}")
    check("factor named", f"{larger:g}× larger" in text, "the message says how much larger")


def meta(path, key, value):
    got = grain(path)["meta"].get(key)
    want = None if value == "-" else value
    check(f"META {key}", got == want, f"{got!r} vs {want!r}")


def gridvalue(path, point, comp, value, tol):
    m = grain(path)["modes"]
    ijk = (point - m["origin"]) / m["spacing"]
    idx = np.rint(ijk).astype(int)
    check("grid node", np.abs(ijk - idx).max() < 1e-9, f"{point} at index {ijk}")
    v = m["grid"][0, idx[2], idx[1], idx[0], comp]
    differ = value.startswith("!")
    want = float(value.lstrip("!"))
    ok = abs(v - want) > tol if differ else abs(v - want) <= tol
    check("grid value", ok, f"{v!r} {'differs from' if differ else 'vs'} {want!r} (tol {tol})")


def column(path, name, values, tol):
    rows = [line.rstrip("\n").split("\t") for line in open(path) if not line.startswith("#")]
    head, rows = rows[0], rows[1:]
    col = np.array([float(r[head.index(name)]) for r in rows])
    check(f"column {name}", len(col) == len(values) and np.abs(col - values).max() <= tol,
          f"{col} vs {values}")


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "ratio":
        ratio(args[0], args[1], float(args[2]), float(args[3]), float(args[4]))
    elif cmd == "suggest":
        suggest(args[0], float(args[1]), np.array([float(v) for v in args[2].split(",")]),
                float(args[3]))
    elif cmd == "meta":
        meta(args[0], args[1], args[2])
    elif cmd == "gridvalue":
        gridvalue(args[0], np.array([float(v) for v in args[1].split(",")]), int(args[2]),
                  args[3], float(args[4]))
    elif cmd == "column":
        column(args[0], args[1], np.array([float(v) for v in args[2].split(",")]),
               float(args[3]))
    else:
        sys.exit(f"unknown check {cmd}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
