#!/usr/bin/python3
"""Solid fraction and coordination of a sphere packing in a periodic box (a demrun packing.tsv,
output.packing: true; or data/packings/packing_4096.tsv).

usage: packing_stats.py [--label NAME]... [--min-phi F] [--min-z Z]
                        [--probes PROBES.tsv --sigma S [--step N] [--max-unbalanced U]
                        [--max-perror E]] PACKING.tsv...

For each table: solid fraction phi = sum of the spheres' volumes / the box's volume (the
"# box_lo" and "# box_hi" comment lines); contacts = pairs whose centres are closer than the
sum of their radii, with the minimum image across the box's faces (demrun's test for a sphere
pair in touch, overlap > 0); Z = 2 contacts / grains; and Z without rattlers, for two
definitions of a rattler, each removed repeatedly (removing one lowers its neighbours' counts)
until every grain left has at least k contacts: k = 4, a frictionless sphere's least for
a stable equilibrium in 3-D (d + 1), and k = 2, a frictional one's. Z*_k = 2 contacts among
the rest / the rest, with the share of rattlers. One line per table on stdout; with --min-phi
or --min-z, exit 1 when a table's phi or Z*_4 is below it (a loud failure of make).

--probes reads the last row (or the row at --step) of the probes table of the run that wrote
the packing, where it wrote it: the mean stress p against the target --sigma, and the
unbalanced force ratio (the mean net force on a grain over the mean contact force); exit 1
when |p / sigma - 1| > --max-perror or the ratio > --max-unbalanced."""
import argparse
import sys

import numpy as np


def fail(msg, code=2):
    sys.stderr.write("packing_stats.py: error: %s\n" % msg)
    sys.exit(code)


def read(path):
    lo = hi = None
    try:
        with open(path) as f:
            lines = f.readlines()
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    for ln in lines:
        if ln.startswith("# box_lo"):
            lo = np.array([float(v) for v in ln.split()[2:5]])
        elif ln.startswith("# box_hi"):
            hi = np.array([float(v) for v in ln.split()[2:5]])
    if lo is None or hi is None:
        fail("%s: no '# box_lo' and '# box_hi' lines (an orthogonal periodic box)" % path)
    body = [ln for ln in lines if ln.strip() and not ln.startswith("#")]
    cols = body[0].split()
    try:
        idx = [cols.index(c) for c in ("x", "y", "z", "radius")]
    except ValueError:
        fail("%s: the columns are %s; expected x y z radius" % (path, " ".join(cols)))
    data = np.array([[float(v) for v in ln.split()] for ln in body[1:]])
    return data[:, idx[:3]], data[:, idx[3]], lo, hi


def contacts(x, r, box):
    """Pairs (i < j) closer than r_i + r_j, minimum image; by blocks of rows."""
    n = len(r)
    pairs = []
    for a in range(0, n, 256):
        d = x[a:a + 256, None, :] - x[None, :, :]
        d -= box * np.round(d / box)
        dist2 = np.einsum("ijk,ijk->ij", d, d)
        reach = r[a:a + 256, None] + r[None, :]
        i, j = np.nonzero(dist2 < reach * reach)
        i += a
        keep = i < j
        pairs.append(np.stack([i[keep], j[keep]], axis=1))
    return np.concatenate(pairs)


def without_rattlers(n, pairs, k):
    """Remove grains with fewer than k contacts until none is left; (grains, contacts) kept."""
    alive = np.ones(n, bool)
    live = np.ones(len(pairs), bool)
    while True:
        count = np.bincount(pairs[live].ravel(), minlength=n)
        drop = alive & (count < k)
        if not drop.any():
            return int(alive.sum()), int(live.sum())
        alive &= ~drop
        live &= alive[pairs[:, 0]] & alive[pairs[:, 1]]


def probe_row(path, step):
    """The row of a demrun probes table at `step` (None: its last row), as floats by name."""
    try:
        with open(path) as f:
            lines = [ln for ln in f if ln.strip() and not ln.startswith("#")]
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    cols = [c.strip() for c in lines[0].split("\t")] if lines else []
    rows = [dict(zip(cols, (float(v) for v in ln.split("\t")))) for ln in lines[1:]]
    if step is not None:
        rows = [r for r in rows if r.get("step") == step]
    if not rows:
        fail("%s: no rows%s" % (path, "" if step is None else " at step %d" % step))
    return rows[-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tables", nargs="+")
    ap.add_argument("--label", action="append", default=[],
                    help="a name for each table, in order (default: the path)")
    ap.add_argument("--min-phi", type=float)
    ap.add_argument("--min-z", type=float, help="least Z*_4 (coordination without rattlers)")
    ap.add_argument("--probes", help="the probes table of the run that wrote the packing")
    ap.add_argument("--sigma", type=float, help="the mean stress the run held (with --probes)")
    ap.add_argument("--step", type=int, help="the probes' row at this step (default: the last)")
    ap.add_argument("--max-unbalanced", type=float)
    ap.add_argument("--max-perror", type=float)
    a = ap.parse_args()
    failed = []
    if a.probes:
        if not a.sigma:
            fail("--probes needs --sigma")
        row = probe_row(a.probes, a.step)
        for c in ("step", "p", "unbalanced", "contacts"):
            if c not in row:
                fail("%s: no column %s (a periodic run's probes?)" % (a.probes, c))
        perr = row["p"] / a.sigma - 1.0
        print("probes at step %d: p %.6g Pa (%+.2e of %g), unbalanced force ratio %.2e, "
              "%d contacts" % (row["step"], row["p"], perr, a.sigma, row["unbalanced"],
                               row["contacts"]))
        if a.max_perror is not None and abs(perr) > a.max_perror:
            failed.append("pressure error %.2e > %g" % (abs(perr), a.max_perror))
        if a.max_unbalanced is not None and row["unbalanced"] > a.max_unbalanced:
            failed.append("unbalanced force ratio %.2e > %g" % (row["unbalanced"],
                                                                 a.max_unbalanced))
    for t, path in enumerate(a.tables):
        x, r, lo, hi = read(path)
        box = hi - lo
        n = len(r)
        phi = (4.0 / 3.0 * np.pi * r ** 3).sum() / box.prod()
        pairs = contacts(x, r, box)
        count = np.bincount(pairs.ravel(), minlength=n)
        z = 2.0 * len(pairs) / n
        parts = []
        zk = {}
        for k in (4, 2):
            m, c = without_rattlers(n, pairs, k)
            zk[k] = 2.0 * c / m if m else 0.0
            parts.append("Z*_%d %.3f (rattlers %.1f %%)" % (k, zk[k], 100.0 * (n - m) / n))
        label = a.label[t] if t < len(a.label) else path
        print("%s: %d spheres, solid fraction %.4f, %d contacts, Z %.3f (no contact %.1f %%), %s"
              % (label, n, phi, len(pairs), z, 100.0 * (count == 0).mean(), ", ".join(parts)))
        if a.min_phi is not None and phi < a.min_phi:
            failed.append("%s: solid fraction %.4f < %.4f" % (label, phi, a.min_phi))
        if a.min_z is not None and zk[4] < a.min_z:
            failed.append("%s: Z*_4 %.3f < %.3f" % (label, zk[4], a.min_z))
    for f in failed:
        sys.stderr.write("packing_stats.py: FAILED: %s\n" % f)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
