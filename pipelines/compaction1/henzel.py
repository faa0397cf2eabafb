"""Shared by Henzel & Karapiperis's validations (bending3pt; the sphere ones, compaction1 and cubic27):
demrun's probes and frames, the bundle's facts from ldg-info --json, Appendix B's force
table and the curve the ETAB interpolates from it (PCHIP, as runtime/modal/energy.c)."""
import json
import os
import sys
import xml.etree.ElementTree as ET

import numpy as np

# The six walls of both scenes: name -> inward normal (the direction the grains lie in).
SIX_WALLS = {"xm": (1, 0, 0), "xp": (-1, 0, 0), "ym": (0, 1, 0), "yp": (0, -1, 0),
             "zm": (0, 0, 1), "zp": (0, 0, -1)}


def fail(prog, msg):
    sys.stdout.flush()
    sys.exit(f"{prog}: FAIL: {msg}")


def read_probes(path):
    """probes.tsv as {column: array}."""
    with open(path) as f:
        lines = [l for l in f if not l.startswith("#")]
    names = lines[0].rstrip("\n").split("\t")
    table = np.array([[float(v) for v in l.split("\t")] for l in lines[1:]])
    return {n: table[:, k] for k, n in enumerate(names)}


def six_walls(col):
    """Total normal force the grains exert on the six walls, and each wall's inward travel
    (all six move alike; their mean is returned, the spread as a check of symmetry)."""
    force = np.zeros_like(col["t"])
    travel = []
    for name, n in SIX_WALLS.items():
        n = np.array(n, float)
        f = np.stack([col[name + ".fx"], col[name + ".fy"], col[name + ".fz"]], axis=1)
        d = np.stack([col[name + ".dx"], col[name + ".dy"], col[name + ".dz"]], axis=1)
        force -= f @ n          # the grains push each wall against its normal
        travel.append(d @ n)
    travel = np.array(travel)
    return force, travel.mean(axis=0), np.ptp(travel, axis=0).max()


def bundle_facts(path):
    """K, M (1 mode), the surface nodes' extent, BODY mass of an ldg-info --json dump."""
    with open(path) as f:
        doc = json.load(f)
    sections = {s["tag"]: s["facts"] for s in doc["files"][0]["bundles"][0]["sections"]}
    return {"K": sections["KMAT"]["diagonal"][0], "M": sections["MMAT"]["diagonal"][0],
            "node_max": sections["NODE"]["bbox_max"], "mass": sections["BODY"]["mass"]}


def read_table(path):
    """(eps, F) of a TSV with '#' comments and a header line."""
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            try:
                rows.append([float(v) for v in line.split()[:2]])
            except ValueError:
                continue    # the header
    a = np.array(rows)
    return a[:, 0], a[:, 1]


class Pchip:
    """Monotone piecewise cubic Hermite interpolant with Fritsch-Carlson slopes: interior
    slopes are the weighted harmonic mean of the neighbouring secants (0 at a local
    extremum), end slopes the three-point parabola's, limited to keep the end interval
    monotone. The same curve as the runtime's ETAB (ldem/energy.h), evaluated here
    independently from the TSV."""

    def __init__(self, x, y):
        self.x, self.y = np.asarray(x, float), np.asarray(y, float)
        h = np.diff(self.x)
        d = np.diff(self.y) / h
        m = np.zeros(len(self.x))
        for k in range(1, len(self.x) - 1):
            if d[k - 1] * d[k] > 0.0:
                w1, w2 = 2 * h[k] + h[k - 1], h[k] + 2 * h[k - 1]
                m[k] = (w1 + w2) / (w1 / d[k - 1] + w2 / d[k])
        m[0] = self._end(h[0], h[1], d[0], d[1])
        m[-1] = self._end(h[-1], h[-2], d[-1], d[-2])
        self.h, self.m = h, m

    @staticmethod
    def _end(h0, h1, d0, d1):
        m = ((2 * h0 + h1) * d0 - h0 * d1) / (h0 + h1)
        if m * d0 <= 0.0:
            return 0.0
        if d0 * d1 < 0.0 and abs(m) > 3 * abs(d0):
            return 3 * d0
        return m

    def __call__(self, e):
        e = np.asarray(e, float)
        if (e < self.x[0] - 1e-12).any() or (e > self.x[-1] + 1e-12).any():
            raise ValueError(f"eps outside the table [{self.x[0]}, {self.x[-1]}]")
        i = np.clip(np.searchsorted(self.x, e) - 1, 0, len(self.x) - 2)
        h = self.h[i]
        t = (e - self.x[i]) / h
        return ((2 * t**3 - 3 * t**2 + 1) * self.y[i] + (t**3 - 2 * t**2 + t) * h * self.m[i]
                + (-2 * t**3 + 3 * t**2) * self.y[i + 1] + (t**3 - t**2) * h * self.m[i + 1])

    def slope(self, k):
        """dF/deps at knot k."""
        return self.m[k]


def frames(out, part):
    """(time, file) of each frame of a .pvd series."""
    root = ET.parse(os.path.join(out, part + ".pvd")).getroot()
    return [(float(d.get("timestep")), os.path.join(out, d.get("file")))
            for d in root.iter("DataSet")]


def read_vtu(path):
    import vtk     # only the frame readers need VTK
    reader = vtk.vtkXMLUnstructuredGridReader()
    reader.SetFileName(path)
    reader.Update()
    return reader.GetOutput()


def cell_arrays(path, names):
    from vtk.util.numpy_support import vtk_to_numpy
    grid = read_vtu(path)
    return {n: vtk_to_numpy(grid.GetCellData().GetArray(n)) for n in names}


def contacts_at(out, t_at, prog):
    """Time and fn, overlap, j of every contact in the last contact frame at or before t_at
    (frames carry per-contact overlaps; probes do not)."""
    series = [f for f in frames(out, "contacts") if f[0] <= t_at + 1e-9]
    if not series:
        fail(prog, f"no contact frame before t = {t_at}")
    t, path = series[-1]
    return t, cell_arrays(path, ["fn", "overlap", "j"])


def check_inputs(doc):
    """The arguments every compaction check takes (OUT BUNDLE_JSON TABLE --radius --tol)
    and what they name: (args, probe columns, bundle facts, the table as a PCHIP, and the
    six walls' force, travel and spread)."""
    import argparse
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("out")
    ap.add_argument("bundle_json")
    ap.add_argument("table")
    ap.add_argument("--radius", type=float, required=True)
    ap.add_argument("--tol", type=float, default=0.03)
    a = ap.parse_args()
    col = read_probes(os.path.join(a.out, "probes.tsv"))
    force, travel, spread = six_walls(col)
    return (a, col, bundle_facts(a.bundle_json), Pchip(*read_table(a.table)), force, travel,
            spread)


def tolerance_errors(u, f, ref, u_max, f_max, tol):
    """Brief's reading of "within tol over the loading": |f - ref| <= tol ref(u) where
    u >= u_max / 4, <= tol f_max below. Returns (worst relative error above u_max/4,
    worst error / f_max below, index of the worst violation or None)."""
    high = u >= 0.25 * u_max
    rel = np.abs(f - ref) / np.where(high, ref, f_max)
    limit_ok = rel <= tol
    worst_high = rel[high].max() if high.any() else 0.0
    worst_low = rel[~high].max() if (~high).any() else 0.0
    bad = np.flatnonzero(~limit_ok)
    return worst_high, worst_low, (bad[np.argmax(rel[bad])] if bad.size else None)
