#!/usr/bin/python3
"""The elastic sphere of Henzel & Karapiperis §4.2 between six rigid frictionless walls,
solved by CalculiX: the reference curve of compaction1.

    six_walls.py deck  --mesh M.inp --deck OUT.inp [--octant] [--E --nu --R --travel
                       --increments --full-output]
    six_walls.py table --mesh M.inp --deck OUT.inp --dat OUT.dat --out T.tsv [--octant]

The model: the sphere meshed by sphere_walls.geo (C3D10, centred at the origin), linear
elastic, small strain (no NLGEOM, as the paper's table and the modal model); each wall a
C3D8 block whose nodes are all driven inwards along its axis by `travel`, in equal fixed
increments, with frictionless penalty contact (surface to surface) against the sphere's
cap around its pole. --octant: only x, y, z >= 0 with symmetry on the three coordinate
planes (u_x = 0 on x = 0, ...), three walls, one eighth of the unknowns; each octant wall
carries a quarter of a full wall's contact (two symmetry planes cut its patch). Full
sphere: six walls; the frictionless walls leave the rotations free, so the deck adds the
statically determinate support of modes-calculix's two-plate deck (centre node held, the
node at (R,0,0) in y and z, the node at (0,R,0) in z), which the symmetric solution leaves
without reaction.

Output per increment in the .dat: every wall's total reaction, the poles' displacements,
the sphere's strain energy. --full-output also writes everything CalculiX can put in the
.frd for every node and element (U, RF; S, E, ENER; contact CDIS, CSTR, CELS): the file
modefit reads as it comes, wall nodes and all.

`table` writes one row per increment: the wall travel u, eps (the poles' mean inward
displacement: the mode's amplitude once modefit normalizes it at a pole), one full wall's
force F_wall, the six walls' total F = 6 F_wall (what compaction1's demrun probes sum),
the strain energy of the whole sphere, and 6 x Hertz's force at indentation u."""
import argparse
import os
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "modefit", "calculix"))
import ccx_fem as cf  # noqa: E402

AXES = {"X": 0, "Y": 1, "Z": 2}
THICKNESS_FACTOR = 0.1      # wall thickness / R (its nodes are all driven: any will do)
CAP_COS = 0.9               # contact slave faces: the cap x.n > 0.9 R (radius 0.44 R,
                            # against a contact radius of at most 0.13 R at travel 0.16)
# Penalty stiffness (pressure per overclosure) K = PENALTY_FACTOR E / R: Hertz's peak
# pressure (2E*/pi) sqrt(u/R) over K is 0.11 % of u at u = 0.01 and 0.03 % at 0.16 with
# 2e4: the force at a given travel is low by 1.5 times that (F ~ u^1.5).
PENALTY_FACTOR = 2.0e4


def walls(octant):
    """(name, axis index, sign) of every wall: octant +X +Y +Z; full sphere all six."""
    out = []
    for name, k in AXES.items():
        out.append(("P" + name, k, 1.0))
        if not octant:
            out.append(("M" + name, k, -1.0))
    return out


def wall_nodes(axis, sign, R, lo, hi, thick):
    """8 corners of a C3D8 block on the plane x_axis = sign R, beyond it by thick. Built
    for +z (nodes 1-4 on the near face, counter-clockwise seen from the far side: face S1
    faces the sphere) and turned onto the axis by a cyclic permutation (a rotation)."""
    corners = [(lo, lo), (hi, lo), (hi, hi), (lo, hi)]
    if sign < 0:
        corners.reverse()
    near, far = sign * R, sign * (R + thick)
    pts = [(a, b, near) for a, b in corners] + [(a, b, far) for a, b in corners]
    # (a, b, c) along (x, y, z) for +z; x: (c, a, b); y: (b, c, a)
    perm = {2: lambda p: p, 0: lambda p: (p[2], p[0], p[1]), 1: lambda p: (p[1], p[2], p[0])}
    return [perm[axis](p) for p in pts]


def pole_node(xyz, axis, sign, R):
    target = np.zeros(3)
    target[axis] = sign * R
    return cf.nearest_node(xyz, target, tol=1e-6 * R)


def write_deck(a):
    ids, xyz, eids, conn = cf.read_inp_mesh(a.mesh)
    R = a.R
    if abs(np.linalg.norm(xyz, axis=1).max() - R) > 1e-6 * R:
        raise cf.FemError(f"{a.mesh}: not a sphere of radius {R} at the origin")
    on_sphere = np.abs(np.linalg.norm(xyz, axis=1) - R) < 1e-6 * R
    n0, e0 = int(ids.max()) + 1, int(eids.max()) + 1
    thick = THICKNESS_FACTOR * R
    lo, hi = (-0.05 * R, 0.35 * R) if a.octant else (-0.4 * R, 0.4 * R)
    mesh_name = os.path.relpath(os.path.abspath(a.mesh), os.path.dirname(os.path.abspath(a.deck)))
    lines = [f"** Elastic sphere between {'three (octant)' if a.octant else 'six'} rigid walls "
             "(pipelines/compaction1/six_walls.py)",
             f"** E = {a.E}, nu = {a.nu}, R = {R}, wall travel {a.travel}, "
             f"{a.increments} increments",
             f"*INCLUDE, INPUT={mesh_name}"]
    wl = walls(a.octant)
    for k, (name, axis, sign) in enumerate(wl):
        lines.append(f"*NODE, NSET=N{name}")
        for j, p in enumerate(wall_nodes(axis, sign, R, lo, hi, thick)):
            lines.append(f"{n0 + 8 * k + j}, {p[0]!r}, {p[1]!r}, {p[2]!r}")
        lines += [f"*ELEMENT, TYPE=C3D8, ELSET=W{name}",
                  f"{e0 + k}, " + ", ".join(str(n0 + 8 * k + j) for j in range(8))]
    lines += cf.nset_lines("NSPHERE", ids)
    for name, axis, sign in wl:
        lines += cf.nset_lines(f"POLE{name}", [ids[pole_node(xyz, axis, sign, R)]])
    for name, axis, sign in wl:
        cap = cf.boundary_faces(xyz, conn, lambda p, ax=axis, s=sign: on_sphere
                                & (s * p[:, ax] > CAP_COS * R))
        lines += [f"*SURFACE, NAME=S{name}, TYPE=ELEMENT"]
        lines += [f"{eids[e]}, S{fnum}" for e, fnum, _c, _m in cap]
        lines += [f"*SURFACE, NAME=M{name}, TYPE=ELEMENT", f"{e0 + wl.index((name, axis, sign))}, S1"]
    lines += ["*MATERIAL, NAME=GRAIN", "*ELASTIC", f"{a.E!r}, {a.nu!r}",
              "*SOLID SECTION, ELSET=SPHERE, MATERIAL=GRAIN",
              "*MATERIAL, NAME=WALL", "*ELASTIC", f"{1000.0 * a.E!r}, 0.3"]
    for name, _axis, _sign in wl:
        lines.append(f"*SOLID SECTION, ELSET=W{name}, MATERIAL=WALL")
    lines += ["*SURFACE INTERACTION, NAME=FRICTIONLESS",
              "*SURFACE BEHAVIOR, PRESSURE-OVERCLOSURE=LINEAR",
              f"{PENALTY_FACTOR * a.E / R!r}"]
    for name, _axis, _sign in wl:
        lines += ["*CONTACT PAIR, INTERACTION=FRICTIONLESS, TYPE=SURFACE TO SURFACE",
                  f"S{name}, M{name}"]
    # Supports: symmetry planes (octant) or the determinate three-node support (full).
    bc = []
    if a.octant:
        for axis in range(3):
            plane = ids[np.abs(xyz[:, axis]) < 1e-9 * R]
            lines += cf.nset_lines(f"SYM{axis + 1}", plane)
            bc.append(f"SYM{axis + 1}, {axis + 1}, {axis + 1}, 0.")
    else:
        centre = ids[cf.nearest_node(xyz, [0.0, 0.0, 0.0], tol=1e-9 * R)]
        east = ids[pole_node(xyz, 0, 1.0, R)]
        north_eq = ids[pole_node(xyz, 1, 1.0, R)]
        bc += [f"{centre}, 1, 3, 0.", f"{east}, 2, 3, 0.", f"{north_eq}, 3, 3, 0."]
    for name, axis, sign in wl:
        for d in range(3):
            value = -sign * a.travel if d == axis else 0.0
            bc.append(f"N{name}, {d + 1}, {d + 1}, {value!r}")
    lines += ["*STEP, INC=1000", "*STATIC, DIRECT, SOLVER=ITERATIVE CHOLESKY" if a.iterative
              else "*STATIC, DIRECT", f"{1.0 / a.increments!r}, 1.0", "*BOUNDARY"] + bc
    if a.full_output:
        lines += ["*NODE FILE", "U, RF", "*EL FILE", "S, E, ENER",
                  "*CONTACT FILE", "CDIS, CSTR, CELS"]
    else:
        lines += ["*NODE FILE, NSET=NSPHERE, FREQUENCY=1", "U"]
    for name, _axis, _sign in wl:
        lines += [f"*NODE PRINT, NSET=POLE{name}", "U",
                  f"*NODE PRINT, NSET=N{name}, TOTALS=ONLY", "RF"]
    lines += ["*EL PRINT, ELSET=SPHERE, TOTALS=ONLY", "ELSE", "*END STEP"]
    cf.write_deck(a.deck, lines)
    print(f"{a.deck}: {len(ids)} nodes, {len(eids)} C3D10, {len(wl)} walls, "
          f"{a.increments} increments")


TABLE_COLUMNS = ("increment", "time", "u", "eps", "F_wall", "F", "energy", "F_hertz")


def hertz_six(E, nu, R, u):
    """Six walls' total force, each contact Hertz's sphere on a rigid plane at indentation
    u: 6 * 4/3 E* sqrt(R) u^1.5."""
    return 6.0 * 4.0 / 3.0 * E / (1.0 - nu * nu) * np.sqrt(R) * np.maximum(u, 0.0) ** 1.5


def read_travel(deck):
    """The walls' prescribed travel and whether the deck is an octant."""
    travel, octant = None, True
    with open(deck) as f:
        for line in f:
            parts = [p.strip() for p in line.split(",")]
            if len(parts) == 4 and parts[0] == "NPX" and parts[1] == "1":
                travel = -float(parts[3])
            if parts[0] == "*NODE" and len(parts) > 1 and parts[1] == "NSET=NMX":
                octant = False
    if travel is None:
        raise cf.FemError(f"{deck}: no 'NPX, 1, 1, ...' boundary line")
    return travel, octant


def write_table(a):
    travel, octant = read_travel(a.deck)
    names = [w[0] for w in walls(octant)]
    t_ref, _ = cf.dat_series(a.dat, "total force", "N" + names[0])
    forces, poles = [], []
    for name, axis, sign in walls(octant):
        t, f = cf.dat_series(a.dat, "total force", "N" + name)
        tp, u = cf.dat_series(a.dat, "displacements", "POLE" + name)
        if len(t) != len(t_ref) or len(tp) != len(t_ref):
            raise cf.FemError(f"{a.dat}: {len(t)} force and {len(tp)} pole prints for wall "
                              f"{name}, {len(t_ref)} for {names[0]}: the run did not finish")
        forces.append(-sign * f[:, axis])    # the wall pushed back: compressive > 0
        poles.append(-sign * u[:, axis])     # the pole's travel towards the centre
    t_en, energy = cf.dat_series(a.dat, "total internal energy", "SPHERE")
    forces, poles = np.array(forces), np.array(poles)
    spread = np.ptp(forces, axis=0) / np.maximum(forces.mean(axis=0), 1e-300)
    if spread.max() > 0.02:
        raise cf.FemError(f"{a.dat}: the walls' forces differ by {spread.max():.2%}: not "
                          "symmetric")
    scale = 4.0 if octant else 1.0           # an octant wall carries a quarter of a contact
    rows = [(0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)]
    for k, t in enumerate(t_ref):
        # CalculiX sometimes closes a step with an extra increment of 1e-6 of the step
        # time, printing the final state twice: keep the later print only.
        if k + 1 < len(t_ref) and t_ref[k + 1] - t < 1e-5:
            continue
        u = travel * t
        F_wall = scale * forces[:, k].mean()
        en = (8.0 if octant else 1.0) * energy[k][0]
        rows.append((k + 1, t, u, poles[:, k].mean(), F_wall, 6.0 * F_wall, en,
                     float(hertz_six(a.E, a.nu, a.R, u))))
    with open(a.out, "w") as f:
        f.write(f"# sphere R={a.R:g} E={a.E:g} nu={a.nu:g} between six rigid frictionless "
                f"walls ({'octant, x4 per wall, x8 energy' if octant else 'full sphere'}); "
                f"mesh {os.path.basename(a.mesh)}\n")
        f.write("# u = wall travel, eps = poles' inward displacement, F_wall = one wall's "
                "force, F = six walls' total, energy = strain energy, F_hertz = 6 x Hertz(u)\n")
        f.write("\t".join(TABLE_COLUMNS) + "\n")
        for r in rows:
            f.write(f"{r[0]:d}\t" + "\t".join(f"{v:.9g}" for v in r[1:]) + "\n")
    print(f"{a.out}: {len(rows)} rows, u_max = {rows[-1][2]:.6g}, F(u_max) = {rows[-1][5]:.6g}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("deck", "table"):
        s = sub.add_parser(name)
        s.add_argument("--mesh", required=True)
        s.add_argument("--deck", required=True)
        s.add_argument("--E", type=float, default=1e3)
        s.add_argument("--nu", type=float, default=0.3)
        s.add_argument("--R", type=float, default=10.0)
    d = sub.choices["deck"]
    d.add_argument("--octant", action="store_true")
    d.add_argument("--travel", type=float, default=0.16)
    d.add_argument("--increments", type=int, default=16)
    d.add_argument("--full-output", action="store_true")
    d.add_argument("--iterative", action="store_true", help="SOLVER=ITERATIVE CHOLESKY")
    t = sub.choices["table"]
    t.add_argument("--dat", required=True)
    t.add_argument("--out", required=True)
    a = p.parse_args(argv)
    try:
        {"deck": write_deck, "table": write_table}[a.cmd](a)
    except (cf.FemError, OSError, ValueError) as e:
        print(f"six_walls.py {a.cmd}: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
