#!/usr/bin/python3
"""lsgen --scale S --translate T against the untransformed grain (docs/bundle.md, numpy).

usage: check_transform.py PLAIN.ldg MOVED.ldg S TX,TY,TZ
The moved grain is the same body S times larger, moved by T: volume x S^3 and the surface
area x S^2 (to 1e-12), principal moments per unit density x S^5 (1e-10), centroid
S c + T (1e-12 of the size), the same principal axes, META lsgen.scale and lsgen.translate
as given. Exits 1 when a check fails."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import ldg  # noqa: E402

failures = 0


def check(name, ok, detail):
    global failures
    print(("ok   " if ok else "FAIL ") + name + ": " + detail)
    if not ok:
        failures += 1


def load(path):
    b = ldg.read_bundles(path)[0]
    return ldg.body(b["BODY"]), ldg.nodes(b["NODE"]), ldg.meta(b["META"])


def main():
    plain, moved, s, t = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    shift = np.array([float(v) for v in t.split(",")])
    b0, n0, _ = load(plain)
    b1, n1, m1 = load(moved)
    size = b0["volume"] ** (1 / 3) * s
    check("volume", abs(b1["volume"] / (s ** 3 * b0["volume"]) - 1) < 1e-12,
          f"{b1['volume']!r} vs {s ** 3 * b0['volume']!r}")
    a0, a1 = n0["area"].sum(), n1["area"].sum()
    check("area", abs(a1 / (s * s * a0) - 1) < 1e-12, f"{a1!r} vs {s * s * a0!r}")
    i0 = b0["inertia"] / b0["density"]
    i1 = b1["inertia"] / b1["density"]
    check("inertia", np.abs(i1 / (s ** 5 * i0) - 1).max() < 1e-10, f"{i1} vs {s ** 5 * i0}")
    c = s * b0["centroid"] + shift
    check("centroid", np.abs(b1["centroid"] - c).max() < 1e-12 * size, f"{b1['centroid']} vs {c}")
    check("orientation", np.abs(b1["orientation"] - b0["orientation"]).max() < 1e-12,
          f"{b1['orientation']} vs {b0['orientation']}")
    check("META lsgen.scale", float(m1.get("lsgen.scale", "nan")) == s, m1.get("lsgen.scale", "-"))
    mt = np.array([float(v) for v in m1.get("lsgen.translate", "nan,nan,nan").split(",")])
    check("META lsgen.translate", np.array_equal(mt, shift), m1.get("lsgen.translate", "-"))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
