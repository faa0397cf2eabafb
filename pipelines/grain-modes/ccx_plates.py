#!/usr/bin/python3
"""Nonlinear contact snapshots for any grain: CalculiX compresses the grain's tet mesh
between two rigid frictionless plates along each chosen axis, one step per axis, and
modefit reads the result back as it comes (plates and all).

    ccx_plates.py deck  --mesh M.inp --deck OUT.inp --axes z,x --travel T --E E --nu NU
                        [--increments N]
    ccx_plates.py table --deck OUT.inp --dat OUT.dat --out T.tsv

The model. The grain: the C3D4/C3D10 elements of M.inp (Gmsh's lines and surface elements
are left out), linear elastic, small strain. For each axis a, two plates: C3D8 blocks
1000 times stiffer than the grain, touching the mesh's extreme nodes along ±a, wider than
the grain. Step k moves the plates of axis k inwards by `travel` each in equal increments
while every other plate stands 0.25 travel off the grain (CalculiX ramps each plate from
where the last step left it: the first step's plates start touching, a later step's start
0.25 travel off, so its first increments unload the grain from the previous axis); contact is
frictionless penalty (surface to surface) between each plate and the grain's boundary
faces that face it within a third of the grain's extent from its extreme. Rigid motion:
the statically determinate support of the step's axis a with lateral axes b, c: the node
nearest the centroid held in x, y, z; the extreme node along +b held along a and c; the
extreme node along +c held along a. On a symmetric grain the loading leaves them without
reaction; on an irregular one they carry what the plates' forces do not balance, and
`table` reports that reaction beside the plate forces.

Output: the .frd holds U (and RF) of every node, walls included, and S, E, ENER of every
element: what a user's contact run writes; the .dat per increment: each plate's force,
the support reaction, the grain's strain energy.

`table` writes one row per increment: step (axis), time, plate travel, the plates' mean
force along the axis, the support's reaction (its largest component), the strain energy."""
import argparse
import os
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "modefit", "calculix"))
import ccx_fem as cf  # noqa: E402

AXES = {"x": 0, "y": 1, "z": 2}
THICKNESS = 0.1        # plate thickness / grain extent
WIDTH = 0.75           # plate half width / grain extent (about the grain's centre)
CAP_DEPTH = 1.0 / 3.0  # slave faces: within this fraction of the extent from the extreme
CAP_COS = 0.3          # ... whose outward normal is within 72.5 degrees of the axis
PENALTY_FACTOR = 2.0e4 # contact stiffness (pressure per overclosure) x extent / E
GAP = 0.25             # idle plates stand this fraction of the travel off the grain (its
                       # Poisson bulge under another axis' plates stays below it)


def boundary_faces(conn):
    """(element row, CalculiX face number 1..4, corner rows) of the faces no other tet has."""
    faces = {}
    for e, c in enumerate(conn):
        for fnum, face in enumerate(cf.TET_FACES, start=1):
            key = tuple(sorted(int(c[i]) for i in face))
            faces.setdefault(key, []).append((e, fnum, [int(c[i]) for i in face]))
    return [v[0] for v in faces.values() if len(v) == 1]


def plate_nodes(axis, sign, extreme, centre, half, thick):
    """The 8 corners of a C3D8 plate on the plane x_axis = extreme, beyond it by thick:
    nodes 1-4 on the near face ordered so that face S1 faces the grain (outward normal of
    the block's face 1-2-3-4 pointing at the grain)."""
    b, c = [k for k in range(3) if k != axis]
    square = [(-half, -half), (half, -half), (half, half), (-half, half)]
    pts = []
    for depth in (0.0, thick):
        for u, v in square:
            p = np.zeros(3)
            p[axis] = extreme + sign * depth
            p[b] = centre[b] + u
            p[c] = centre[c] + v
            pts.append(p)
    # C3D8 face S1 (nodes 1-2-3-4) has its outward normal along (2-1) x (4-1) reversed;
    # flip the order where that normal would point away from the grain.
    n = np.cross(pts[1] - pts[0], pts[3] - pts[0])
    if np.dot(n, -sign * np.eye(3)[axis]) > 0:   # S1's outward normal is -n
        pts = pts[:4][::-1] + pts[4:][::-1]
    return pts


def write_deck(a):
    ids, xyz, eids, conn = cf.read_inp_mesh(a.mesh)
    if len(conn) == 0:
        raise cf.FemError(f"{a.mesh}: no C3D4/C3D10 elements")
    used = np.unique(conn)
    lo, hi = xyz[used].min(axis=0), xyz[used].max(axis=0)
    extent = float((hi - lo).max())
    centre = 0.5 * (lo + hi)
    centroid = xyz[used].mean(axis=0)
    axes = [AXES[s] for s in a.axes]
    n0, e0 = int(ids.max()) + 1, int(eids.max()) + 1
    etype = "C3D10" if conn.shape[1] == 10 else "C3D4"
    lines = [f"** A grain between rigid plates along {','.join(a.axes)} "
             "(pipelines/grain-modes/ccx_plates.py)",
             f"** mesh {os.path.basename(a.mesh)}, E = {a.E}, nu = {a.nu}, plate travel "
             f"{a.travel}, {a.increments} increments per axis",
             "*NODE, NSET=NGRAIN"]
    lines += [f"{i}, {p[0]!r}, {p[1]!r}, {p[2]!r}" for i, p in zip(ids[used], xyz[used])]
    lines.append(f"*ELEMENT, TYPE={etype}, ELSET=GRAIN")
    for e, c in zip(eids, conn):
        vals = [str(e)] + [str(ids[k]) for k in c]
        lines.append(", ".join(vals[:11]))
    faces = boundary_faces(conn)
    normals = {}
    for e, fnum, corners in faces:
        p = xyz[corners]
        n = np.cross(p[1] - p[0], p[2] - p[0])
        # CalculiX numbers faces with outward normals for positive tets; orient anyway
        mid = xyz[conn[e][:4]].mean(axis=0)
        if np.dot(n, p.mean(axis=0) - mid) < 0:
            n = -n
        normals[(e, fnum)] = n / np.linalg.norm(n)
    plates = []
    for k, axis in enumerate(axes):
        for sign in (1.0, -1.0):
            name = ("P" if sign > 0 else "M") + "XYZ"[axis]
            extreme = hi[axis] if sign > 0 else lo[axis]
            plates.append((name, axis, sign))
            pts = plate_nodes(axis, sign, extreme, centre, WIDTH * extent, THICKNESS * extent)
            j = len(plates) - 1
            lines.append(f"*NODE, NSET=N{name}")
            lines += [f"{n0 + 8 * j + m}, {p[0]!r}, {p[1]!r}, {p[2]!r}" for m, p in enumerate(pts)]
            lines += [f"*ELEMENT, TYPE=C3D8, ELSET=W{name}",
                      f"{e0 + j}, " + ", ".join(str(n0 + 8 * j + m) for m in range(8))]
            cap = [(e, fnum) for e, fnum, corners in faces
                   if np.dot(normals[(e, fnum)], sign * np.eye(3)[axis]) > CAP_COS
                   and sign * (xyz[corners][:, axis].mean() - extreme) > -CAP_DEPTH * extent]
            lines.append(f"*SURFACE, NAME=S{name}, TYPE=ELEMENT")
            lines += [f"{eids[e]}, S{fnum}" for e, fnum in cap]
            lines += [f"*SURFACE, NAME=M{name}, TYPE=ELEMENT", f"{e0 + j}, S1"]
    lines += ["*MATERIAL, NAME=GRAIN", "*ELASTIC", f"{a.E!r}, {a.nu!r}",
              "*SOLID SECTION, ELSET=GRAIN, MATERIAL=GRAIN",
              "*MATERIAL, NAME=PLATE", "*ELASTIC", f"{1000.0 * a.E!r}, 0.3"]
    lines += [f"*SOLID SECTION, ELSET=W{name}, MATERIAL=PLATE" for name, _, _ in plates]
    lines += ["*SURFACE INTERACTION, NAME=FRICTIONLESS",
              "*SURFACE BEHAVIOR, PRESSURE-OVERCLOSURE=LINEAR",
              f"{PENALTY_FACTOR * a.E / extent!r}"]
    for name, _, _ in plates:
        lines += ["*CONTACT PAIR, INTERACTION=FRICTIONLESS, TYPE=SURFACE TO SURFACE",
                  f"S{name}, M{name}"]
    g = xyz[used]
    support = {}
    for axis in axes:
        b, c = [k for k in range(3) if k != axis]
        centre_node = ids[used][int(np.argmin(np.linalg.norm(g - centroid, axis=1)))]
        east = ids[used][int(np.argmax(g[:, b]))]
        north = ids[used][int(np.argmax(g[:, c]))]
        support[axis] = [(centre_node, [0, 1, 2]), (east, [axis, c]), (north, [axis])]
        lines += cf.nset_lines(f"SUP{'XYZ'[axis]}", [centre_node])
    for axis in axes:
        lines += ["*STEP, INC=1000", "*STATIC", f"{1.0 / a.increments!r}, 1.0",
                  "*BOUNDARY, OP=NEW"]
        for node, dofs in support[axis]:
            lines += [f"{node}, {d + 1}, {d + 1}, 0." for d in dofs]
        for name, p_axis, sign in plates:
            move = -sign * a.travel if p_axis == axis else sign * GAP * a.travel
            lines += [f"N{name}, {d + 1}, {d + 1}, {(move if d == p_axis else 0.0)!r}"
                      for d in range(3)]
        lines += ["*NODE FILE", "U, RF", "*EL FILE", "S, E, ENER"]
        lines += [f"*NODE PRINT, NSET=N{name}, TOTALS=ONLY\nRF" for name, _, _ in plates]
        lines += [f"*NODE PRINT, NSET=SUP{'XYZ'[axis]}\nRF",
                  "*EL PRINT, ELSET=GRAIN, TOTALS=ONLY", "ELSE", "*END STEP"]
    cf.write_deck(a.deck, lines)
    print(f"{a.deck}: {len(used)} grain nodes, {len(eids)} {etype}, {len(plates)} plates, "
          f"{len(axes)} steps of {a.increments} increments")


def read_axes(deck):
    with open(deck) as f:
        first = f.readline()
    return first.split("along ")[1].split()[0].split(",")


def write_table(a):
    axes = read_axes(a.deck)
    blocks = cf.read_dat(a.dat)
    rows = []
    # CalculiX's time runs on across steps: step k (0-based) covers (k, k + 1].
    cur = None
    for title, sname, t, vals in blocks:
        if cur is None or cur["t"] != t:
            cur = {"step": int(np.ceil(t - 1e-6)) - 1, "t": t, "plates": {}, "support": 0.0,
                   "energy": np.nan}
            rows.append(cur)
        arr = np.array(vals, dtype=float)
        if title.lower().startswith("total force") and sname.startswith("N"):
            cur["plates"][sname[1:]] = arr.reshape(-1)[-3:]
        elif title.lower().startswith("forces") and sname.startswith("SUP"):
            cur["support"] = float(np.abs(arr[:, 1:]).max())
        elif "energy" in title.lower():
            cur["energy"] = float(arr.reshape(-1)[-1])
    with open(a.out, "w") as f:
        f.write("step\taxis\ttime\ttravel\tF_plate\tsupport\tenergy\n")
        for r in rows:
            axis = axes[min(r["step"], len(axes) - 1)]
            k = AXES[axis]
            F = [abs(v[k]) for name, v in r["plates"].items() if name.endswith(axis.upper())]
            Fm = float(np.mean(F)) if F else np.nan
            # inward plate travel: from 0 (step 1) or -GAP * travel (later steps) to travel
            start = 0.0 if r["step"] == 0 else -GAP * a.travel
            travel = start + (a.travel - start) * (r["t"] - r["step"])
            f.write(f"{r['step'] + 1}\t{axis}\t{r['t']:.9g}\t{travel:.9g}\t{Fm:.9g}"
                    f"\t{r['support']:.9g}\t{r['energy']:.9g}\n")
    print(f"{a.out}: {len(rows)} increments")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("deck")
    d.add_argument("--mesh", required=True)
    d.add_argument("--deck", required=True)
    d.add_argument("--axes", default="z", type=lambda s: s.lower().split(","))
    d.add_argument("--travel", type=float, required=True)
    d.add_argument("--E", type=float, required=True)
    d.add_argument("--nu", type=float, required=True)
    d.add_argument("--increments", type=int, default=4)
    t = sub.add_parser("table")
    t.add_argument("--deck", required=True)
    t.add_argument("--dat", required=True)
    t.add_argument("--out", required=True)
    t.add_argument("--travel", type=float, required=True)
    a = ap.parse_args(argv)
    try:
        if a.cmd == "deck":
            if any(s not in AXES for s in a.axes) or len(set(a.axes)) != len(a.axes):
                ap.error(f"--axes: expected distinct x, y, z, got {','.join(a.axes)}")
            write_deck(a)
        else:
            write_table(a)
    except cf.FemError as e:
        print(f"ccx_plates.py: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
