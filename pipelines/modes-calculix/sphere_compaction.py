#!/usr/bin/python3
"""Elastic sphere compressed between two rigid planes (Henzel & Karapiperis §4.2, App. B).

    sphere_compaction.py deck  --mesh M.inp --deck OUT.inp [--E --nu --R --travel --increments]
    sphere_compaction.py table --mesh M.inp --frd F.frd --dat D.dat --out T.tsv
                               [--dat-deck OUT.inp] [--E --nu --R]
    sphere_compaction.py check --table T.tsv --bundle B.ldg --snapshots S.tsv --mesh M.inp
                               --frd F.frd [--E --nu --R --rho] [--report R] [--curves C]

The FEM model: the full sphere (Gmsh C3D10 mesh of sphere.geo, centred at the origin as
`lsgen sphere` builds it), linear elastic, no NLGEOM; two rigid plates (one C3D8 each, all
of their nodes driven) move towards each other along z by `travel` each, in equal fixed
increments, with frictionless penalty contact (surface to surface) against the sphere's
polar caps. Rigid motion is stopped by a statically determinate support that the loading
(two opposite, collinear plate forces) leaves without reaction: the centre node held
(the symmetric solution does not move it), the surface node nearest (R, 0, 0) held in y
and z, and the one nearest (0, R, 0) held in z. Output per increment: U of the sphere
nodes only (*NODE FILE, NSET: the .frd DISP blocks hold exactly the mesh's nodes, as
modefit wants), the poles' U, the plates' total reaction forces and the sphere's strain
energy (.dat).

`table` turns the .dat into a TSV per increment (checking the .frd against it): the plate
travel, the pole's displacement (the generalized coordinate eps once modefit normalizes the mode there), each
plate's reaction force, the generalized force F_eps = 2 F (both plates do work on eps), the
strain energy, and Hertz's force for one contact at indentation eps.

`check` compares (1) the force with Hertz at small eps, (2) modefit's K against the
energy-consistent 2 U(eps_max)/eps_max^2 (U from ccx and from the work integral of the
table), (3) modefit's M against the same integral of ccx's field done here in numpy,
(4) modefit's snapshot table (pole value, strain energy) against the .dat, (5) the ETAB
section against the table, and reports K against the tangent and the secant of the force
curve. Exit 1 when a check fails."""
import argparse
import os
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "modefit", "calculix"))
sys.path.insert(0, os.path.join(ROOT, "tests", "modefit"))
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
import ccx_fem as cf  # noqa: E402

PLATE_HALF_WIDTH_FACTOR = 0.6   # plate half width / R: well beyond the largest contact radius
PLATE_THICKNESS_FACTOR = 0.1


def effective_modulus(E, nu):
    return E / (1.0 - nu * nu)


def hertz_force(E, nu, R, d):
    """Sphere of radius R on a rigid plane, indentation d: F = 4/3 E* sqrt(R) d^(3/2)."""
    d = np.maximum(np.asarray(d, dtype=float), 0.0)
    return 4.0 / 3.0 * effective_modulus(E, nu) * np.sqrt(R) * d ** 1.5


# ---------------------------------------------------------------- deck

def plate_lines(first_node, z_near, z_far, half):
    """8 nodes of a square plate between z_near (the face touching the sphere) and z_far.
    Nodes 1-4 at z_near, 5-8 at z_far; 1-2-3-4 turn counter-clockwise seen from the z_far
    side, as a C3D8 with positive volume needs (its face S1, 1-2-3-4, then faces the
    sphere)."""
    corners = [(-half, -half), (half, -half), (half, half), (-half, half)]
    if z_far < z_near:
        corners.reverse()
    pts = [(x, y, z_near) for x, y in corners] + [(x, y, z_far) for x, y in corners]
    return [f"{first_node + k}, {x!r}, {y!r}, {z!r}" for k, (x, y, z) in enumerate(pts)]


def write_deck(args):
    ids, xyz, eids, conn = cf.read_inp_mesh(args.mesh)
    R = args.R
    if abs(np.linalg.norm(xyz, axis=1).max() - R) > 1e-6 * R:
        raise cf.FemError(f"{args.mesh}: the mesh is not a sphere of radius {R} at the origin")
    centre = ids[cf.nearest_node(xyz, [0.0, 0.0, 0.0], tol=1e-9 * R)]
    east = ids[np.argmin(np.linalg.norm(xyz - [R, 0.0, 0.0], axis=1))]
    north_eq = ids[np.argmin(np.linalg.norm(xyz - [0.0, R, 0.0], axis=1))]
    on_sphere = lambda p: np.abs(np.linalg.norm(p, axis=1) - R) < 1e-6 * R  # noqa: E731
    # Slave surfaces: the polar caps down to 60 % of R (the contact radius stays below 0.3 R).
    caps = {"TOP": cf.boundary_faces(xyz, conn, lambda p: on_sphere(p) & (p[:, 2] > 0.6 * R)),
            "BOT": cf.boundary_faces(xyz, conn, lambda p: on_sphere(p) & (p[:, 2] < -0.6 * R))}
    n0, e0 = int(ids.max()) + 1, int(eids.max()) + 1
    half, thick = PLATE_HALF_WIDTH_FACTOR * R, PLATE_THICKNESS_FACTOR * R
    mesh_name = os.path.relpath(os.path.abspath(args.mesh), os.path.dirname(os.path.abspath(args.deck)))
    E, nu = args.E, args.nu
    # Penalty stiffness (pressure per overclosure): 2000 E / R keeps the overclosure below
    # ~0.5 % of the indentation at every increment (Hertz peak pressure over K).
    penalty = 2000.0 * E / R
    lines = [
        "** Elastic sphere between two rigid planes (pipelines/modes-calculix/sphere_compaction.py)",
        f"** E = {E}, nu = {nu}, R = {R}, travel per plate = {args.travel}, {args.increments} increments",
        f"*INCLUDE, INPUT={mesh_name}",
        "*NODE, NSET=NPLATETOP"] + plate_lines(n0, R, R + thick, half) + [
        "*NODE, NSET=NPLATEBOT"] + plate_lines(n0 + 8, -R, -R - thick, half) + [
        "*ELEMENT, TYPE=C3D8, ELSET=PLATETOP",
        f"{e0}, " + ", ".join(str(n0 + k) for k in range(8)),
        "*ELEMENT, TYPE=C3D8, ELSET=PLATEBOT",
        f"{e0 + 1}, " + ", ".join(str(n0 + 8 + k) for k in range(8))]
    lines += cf.nset_lines("NSPHERE", ids)
    lines += cf.nset_lines("NNORTH", [ids[cf.nearest_node(xyz, [0.0, 0.0, R])]])
    lines += cf.nset_lines("NSOUTH", [ids[cf.nearest_node(xyz, [0.0, 0.0, -R])]])
    for name, faces in caps.items():
        lines += [f"*SURFACE, NAME=S{name}, TYPE=ELEMENT"]
        lines += [f"{eids[e]}, S{fnum}" for e, fnum, _c, _m in faces]
    # Face S1 of a plate is its nodes 1-4, the face at z_near: outward normal to the sphere.
    lines += [
        "*SURFACE, NAME=MTOP, TYPE=ELEMENT", f"{e0}, S1",
        "*SURFACE, NAME=MBOT, TYPE=ELEMENT", f"{e0 + 1}, S1",
        "*MATERIAL, NAME=GRAIN", "*ELASTIC", f"{E!r}, {nu!r}",
        "*SOLID SECTION, ELSET=SPHERE, MATERIAL=GRAIN",
        # The plates' nodes are all driven: their material never matters.
        "*MATERIAL, NAME=PLATE", "*ELASTIC", f"{1000.0 * E!r}, 0.3",
        "*SOLID SECTION, ELSET=PLATETOP, MATERIAL=PLATE",
        "*SOLID SECTION, ELSET=PLATEBOT, MATERIAL=PLATE",
        "*SURFACE INTERACTION, NAME=FRICTIONLESS",
        "*SURFACE BEHAVIOR, PRESSURE-OVERCLOSURE=LINEAR",
        f"{penalty!r}",
        "*CONTACT PAIR, INTERACTION=FRICTIONLESS, TYPE=SURFACE TO SURFACE", "STOP, MTOP",
        "*CONTACT PAIR, INTERACTION=FRICTIONLESS, TYPE=SURFACE TO SURFACE", "SBOT, MBOT",
        "*STEP, INC=1000",
        f"*STATIC, DIRECT{', SOLVER=' + args.solver if args.solver else ''}",
        f"{1.0 / args.increments!r}, 1.0",
        "*BOUNDARY",
        f"{centre}, 1, 3, 0.", f"{east}, 2, 3, 0.", f"{north_eq}, 3, 3, 0.",
        "NPLATETOP, 1, 2, 0.", f"NPLATETOP, 3, 3, {-args.travel!r}",
        "NPLATEBOT, 1, 2, 0.", f"NPLATEBOT, 3, 3, {args.travel!r}",
        f"*NODE FILE, NSET=NSPHERE, FREQUENCY={args.frd_every}", "U",
        "*NODE PRINT, NSET=NNORTH", "U", "*NODE PRINT, NSET=NSOUTH", "U",
        "*NODE PRINT, NSET=NPLATETOP, TOTALS=ONLY", "RF",
        "*NODE PRINT, NSET=NPLATEBOT, TOTALS=ONLY", "RF",
        "*EL PRINT, ELSET=SPHERE, TOTALS=ONLY", "ELSE",
        "*END STEP"]
    cf.write_deck(args.deck, lines)
    print(f"{args.deck}: {len(ids)} nodes, {len(eids)} C3D10, contact faces "
          f"{len(caps['TOP'])} + {len(caps['BOT'])}, {args.increments} increments")


# ---------------------------------------------------------------- table

TABLE_COLUMNS = ("increment", "time", "travel", "eps", "F_top", "F_bottom", "F_eps",
                 "energy", "F_hertz")


def write_table(args):
    """One row per increment from the .dat (pole displacements, plate forces, strain
    energy); the .frd's DISP blocks must agree with the .dat at the poles where they exist."""
    ids, xyz, _e, _c = cf.read_inp_mesh(args.mesh)
    t_n, u_n = cf.dat_series(args.dat, "displacements", "NNORTH")
    t_s, u_s = cf.dat_series(args.dat, "displacements", "NSOUTH")
    t_top, f_top = cf.dat_series(args.dat, "total force", "NPLATETOP")
    t_bot, f_bot = cf.dat_series(args.dat, "total force", "NPLATEBOT")
    t_en, energy = cf.dat_series(args.dat, "total internal energy", "SPHERE")
    n = len(t_top)
    if n == 0 or any(len(t) != n for t in (t_n, t_s, t_bot, t_en)):
        raise cf.FemError(f"{args.dat}: {len(t_n)}/{len(t_s)} pole, {len(t_top)}/{len(t_bot)} "
                          f"force and {len(t_en)} energy prints: the run did not finish")
    for t in (t_n, t_s, t_bot, t_en):
        if np.max(np.abs(t - t_top)) > 1e-9:
            raise cf.FemError(f"{args.dat}: the prints are not at the same increments")
    north = ids[cf.nearest_node(xyz, [0.0, 0.0, args.R])]
    blocks = cf.read_frd_disp(args.frd)
    if not blocks:
        raise cf.FemError(f"{args.frd}: no DISP block")
    for blk in blocks:
        k = int(np.argmin(np.abs(t_top - blk["time"])))
        frd_u = cf.disp_on(blk, [north])[0][2]
        if abs(t_top[k] - blk["time"]) > 1e-6 or abs(frd_u - u_n[k][2]) > 1e-4 * abs(frd_u):
            raise cf.FemError(f"{args.frd}: DISP at time {blk['time']} does not match the "
                              f".dat (north pole u_z {frd_u} against {u_n[k][2]})")
    travel = read_travel(args.dat_deck) if args.dat_deck else float("nan")
    rows = [(0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)]
    for k in range(n):
        # CalculiX sometimes closes a contact step with an extra increment of 1e-6 of the
        # step time, printing the final state twice: keep the later print only.
        if k + 1 < n and t_top[k + 1] - t_top[k] < 1e-5:
            continue
        eps = -u_n[k][2]                     # the north pole's travel towards the centre
        if abs(u_n[k][2] + u_s[k][2]) > 1e-2 * abs(u_n[k][2]) + 1e-12:
            raise cf.FemError(f"increment {k + 1}: the poles move by {u_n[k][2]} and "
                              f"{u_s[k][2]}: not symmetric")
        F_top, F_bot = -f_top[k][2], f_bot[k][2]   # compressive forces, > 0
        rows.append((k + 1, t_top[k], travel * t_top[k], eps, F_top, F_bot, F_top + F_bot,
                     energy[k][0], float(hertz_force(args.E, args.nu, args.R, eps))))
    with open(args.out, "w") as f:
        f.write(f"# sphere R={args.R:g} E={args.E:g} nu={args.nu:g} between rigid planes: "
                "eps = pole travel towards the centre (the mode's normalization),\n")
        f.write("# travel = each plate's prescribed travel, F_top/F_bottom = plate reactions, "
                "F_eps = F_top + F_bottom (generalized force conjugate to eps),\n")
        f.write("# energy = CalculiX strain energy, F_hertz = 4/3 E* sqrt(R) eps^1.5 "
                "(one contact)\n")
        f.write("\t".join(TABLE_COLUMNS) + "\n")
        for r in rows:
            f.write(f"{r[0]:d}\t" + "\t".join(f"{v:.9g}" for v in r[1:]) + "\n")
    print(f"{args.out}: {len(rows)} rows ({len(blocks)} DISP blocks in the .frd), "
          f"eps_max = {rows[-1][3]:.6g}, F_eps(max) = {rows[-1][6]:.6g}")


def read_travel(deck):
    """The prescribed plate travel, from the deck's 'NPLATETOP, 3, 3, -t' line."""
    with open(deck) as f:
        for line in f:
            parts = [p.strip() for p in line.split(",")]
            if len(parts) == 4 and parts[0].upper() == "NPLATETOP" and parts[1] == "3":
                return -float(parts[3])
    raise cf.FemError(f"{deck}: no 'NPLATETOP, 3, 3, ...' boundary line")


def read_table(path):
    with open(path) as f:
        lines = [ln for ln in f if not ln.startswith("#")]
    header = lines[0].split()
    data = np.array([[float(v) for v in ln.split()] for ln in lines[1:]])
    return {name: data[:, k] for k, name in enumerate(header)}


# ---------------------------------------------------------------- check

TOL_HERTZ = 0.08          # at eps <= HERTZ_RANGE * R (see the module notes in check())
HERTZ_RANGE = 0.01
TOL_SAME_FIELD = 0.01     # modefit's K against ccx's own strain energy of that snapshot
TOL_WORK = 0.02           # strain energy against the work of the reaction forces
TOL_ETAB = 1e-9
TOL_SNAPSHOTS = 1e-4      # .frd/.dat print precision


def tangent_at_end(eps, force):
    """dF/deps at the last sample from the parabola through the last three samples."""
    x, y = eps[-3:], force[-3:]
    c = np.polyfit(x - x[-1], y, 2)
    return c[1]


def cumulative_work(eps, force):
    """Trapezoidal integral of F deps from 0, sample by sample."""
    return np.concatenate([[0.0], np.cumsum(0.5 * (force[1:] + force[:-1]) * np.diff(eps))])


def read_snapshot_table(path):
    with open(path) as f:
        rows = [ln.rstrip("\n").split("\t") for ln in f if ln.strip() and not ln.startswith("#")]
    header = rows[0]
    return {name: np.array([float(r[k]) for r in rows[1:]]) for k, name in enumerate(header)}


def check(args):
    """Hertz is the half-space solution: a finite sphere between two planes is stiffer by a
    relative amount of order sqrt(eps / R) (the centre is at depth R, not at infinity:
    Boussinesq's far field gives ~5-8 % at eps = 0.005-0.01 R), so Hertz is checked only at
    the first increments, to TOL_HERTZ. K_g from the single mode at eps_max is the energy
    of that field, 2 U(eps_max) / eps_max^2; for a Hertzian F ~ eps^1.5 that is 8/15 of the
    tangent dF/deps and 4/5 of the secant F/eps: reported, not asserted."""
    import modes_read
    import ldg
    tab = read_table(args.table)
    eps, F_eps, F_top = tab["eps"], tab["F_eps"], tab["F_top"]
    energy, hertz = tab["energy"], tab["F_hertz"]
    g = modes_read.grain(args.bundle)
    K, M = float(g["K"][0, 0]), float(g["M"][0, 0])
    etab = ldg.etab_by_mode(g["sections"]["ETAB"])[0]
    snaps = read_snapshot_table(args.snapshots)
    eps_max, U_max = eps[-1], energy[-1]
    # The mode's kinetic-energy integral, from CalculiX's largest field normalized at the
    # north pole, integrated here on the C3D10 mesh (numpy, mass-weighted rigid removal).
    ids, xyz, _eids, conn = cf.read_inp_mesh(args.mesh)
    blocks = cf.read_frd_disp(args.frd)
    largest = max(blocks, key=lambda b: float(np.sum(b["u"] ** 2)))
    u = cf.disp_on(largest, ids)
    u_pole = -u[cf.nearest_node(xyz, [0.0, 0.0, args.R])][2]
    M_fe = cf.projected_mass(xyz, conn, u / u_pole, args.rho)
    work = cumulative_work(eps, F_eps)
    tangent = tangent_at_end(eps, F_eps)
    secant = F_eps[-1] / eps_max
    out = [f"sphere R = {args.R:g}, E = {args.E:g}, nu = {args.nu:g} between rigid planes: "
           f"{len(eps) - 1} increments, eps_max = {eps_max:.6g} (pole travel), "
           f"F_eps(eps_max) = {F_eps[-1]:.6g} (2 x plate force)",
           f"  modefit: K_g = {K:.6g}, M = {M:.6g}",
           "  eps        eps/R     F_plate     F_Hertz     F/F_Hertz-1   U_ccx       "
           "work(F_eps)"]
    for k in range(1, len(eps)):
        out.append(f"  {eps[k]:<10.5g} {eps[k] / args.R:<9.4f} {F_top[k]:<11.5g} "
                   f"{hertz[k]:<11.5g} {100 * (F_top[k] / hertz[k] - 1):+8.3f} %    "
                   f"{energy[k]:<11.5g} {work[k]:<11.5g}")
    ok = True

    def verdict(name, got, ref, tol, ref_name):
        nonlocal ok
        rel = got / ref - 1.0
        good = abs(rel) <= tol
        ok &= good
        out.append(f"  {name:34s} {got:12.6g} vs {ref_name:34s} {ref:12.6g} "
                   f"{100 * rel:+8.3f} % (tol {100 * tol:g} %) {'ok' if good else 'FAIL'}")

    small = [k for k in range(1, len(eps)) if eps[k] <= HERTZ_RANGE * args.R]
    if not small:
        out.append(f"  FAIL: no increment with eps <= {HERTZ_RANGE} R to compare with Hertz")
        ok = False
    for k in small:
        verdict(f"F_plate at eps = {eps[k]:.4g}", F_top[k], hertz[k], TOL_HERTZ,
                "Hertz 4/3 E* sqrt(R) eps^1.5")
    verdict("M (modefit)", M, M_fe, TOL_SAME_FIELD, "rho int |Phi - P Phi|^2 (numpy FE)")
    verdict("K_g (modefit)", K, 2.0 * U_max / eps_max ** 2, TOL_SAME_FIELD,
            "2 U_ccx(eps_max) / eps_max^2")
    verdict("K_g (modefit)", K, 2.0 * work[-1] / eps_max ** 2, TOL_WORK,
            "2 int F_eps deps / eps_max^2")
    # modefit's snapshot table against the .dat, increment by increment (matched by time):
    # the pole value it interpolates is eps, its FE strain energy is CalculiX's.
    dev_point, dev_energy = 0.0, 0.0
    for t, pt, en in zip(snaps["time"], snaps["point"], snaps["energy"]):
        k = int(np.argmin(np.abs(tab["time"] - t)))
        dev_point = max(dev_point, abs(pt - eps[k]) / eps_max)
        dev_energy = max(dev_energy, abs(en - energy[k]) / U_max)
    for what, dev in (("point (pole travel)", dev_point), ("energy", dev_energy)):
        good = dev <= TOL_SNAPSHOTS
        ok &= good
        out.append(f"  snapshot table {what} against the .dat: max deviation {dev:.2e} of "
                   f"the largest (tol {TOL_SNAPSHOTS:g}) {'ok' if good else 'FAIL'}")
    fit = snaps["eps1"] / snaps["point"]
    out.append("  fixed-shape projection: eps1 (mass least squares) / pole travel = "
               + " ".join(f"{v:.3f}" for v in fit) + " (1 at eps_max; the residual column "
               f"of {args.snapshots} says how much of each snapshot the mode misses)")
    big = int(np.argmax(np.abs(snaps["energy"])))
    verdict("snapshot energy (modefit, largest)", snaps["energy"][big], U_max, TOL_SAME_FIELD,
            "U_ccx(eps_max)")
    verdict("U_ccx(eps_max)", U_max, work[-1], TOL_WORK, "int F_eps deps (trapezoid)")
    f_err = np.max(np.abs(np.interp(eps, etab["eps"], etab["force"]) - F_eps)) / F_eps[-1]
    good = f_err <= TOL_ETAB
    ok &= good
    out.append(f"  ETAB F at the table's eps: max |F - F_eps| / F_eps,max = {f_err:.2e} "
               f"(tol {TOL_ETAB:g}) {'ok' if good else 'FAIL'}")
    verdict("ETAB U(eps_max)", etab["energy"][-1], U_max, TOL_WORK, "U_ccx(eps_max)")
    out.append(f"  K_g / tangent dF_eps/deps at eps_max ({tangent:.6g}) = {K / tangent:.4f}  "
               f"(Hertzian F ~ eps^1.5: 8/15 = {8 / 15:.4f})")
    out.append(f"  K_g / secant F_eps/eps at eps_max ({secant:.6g}) = {K / secant:.4f}  "
               f"(Hertzian: 4/5)")
    out.append(f"  local exponent dlnF/dln eps at eps_max = {tangent / secant:.4f} (Hertz 1.5)")
    out.append("sphere-compaction: " + ("all checks hold" if ok else "FAILED"))
    text = "\n".join(out)
    print(text)
    if args.report:
        with open(args.report, "w") as f:
            f.write(text + "\n")
    if args.curves:
        write_curves(args, tab, etab, K, tangent)
    return 0 if ok else 1


def write_curves(args, tab, etab, K, tangent):
    """Dense curves for the plot, per plate (F_eps / 2): Hertz, the linear modal force
    K_g eps / 2, the tangent at eps_max, and the ETAB knots."""
    eps_max = tab["eps"][-1]
    e = np.linspace(0.0, 1.05 * eps_max, 211)
    with open(args.curves, "w") as f:
        f.write("# eps\tF_hertz\tK_g_eps_half\ttangent_half\n")
        F_end = tab["F_eps"][-1]
        for x in e:
            # the tangent only near eps_max, where it means something
            tan = 0.5 * (F_end + tangent * (x - eps_max)) if x >= 0.6 * eps_max else float("nan")
            f.write(f"{x:.6g}\t{float(hertz_force(args.E, args.nu, args.R, x)):.6g}\t"
                    f"{0.5 * K * x:.6g}\t{tan:.6g}\n")
        f.write("\n\n# ETAB knots: eps\tF/2\tU\n")
        for x, F, U in zip(etab["eps"], etab["force"], etab["energy"]):
            f.write(f"{x:.6g}\t{0.5 * F:.6g}\t{U:.6g}\n")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("deck", "table"):
        s = sub.add_parser(name)
        s.add_argument("--mesh", required=True)
        s.add_argument("--E", type=float, default=1e3)
        s.add_argument("--nu", type=float, default=0.3)
        s.add_argument("--R", type=float, default=10.0)
    d = sub.choices["deck"]
    d.add_argument("--deck", required=True)
    d.add_argument("--travel", type=float, default=0.8, help="each plate's travel")
    d.add_argument("--increments", type=int, default=16)
    d.add_argument("--solver", default="", help="ccx *STATIC SOLVER= (default: ccx's)")
    d.add_argument("--frd-every", type=int, default=1,
                   help="write U to the .frd every N increments (the .dat gets every one)")
    t = sub.choices["table"]
    t.add_argument("--frd", required=True)
    t.add_argument("--dat", required=True)
    t.add_argument("--dat-deck", help="the deck, to read the plate travel from")
    t.add_argument("--out", required=True)
    c = sub.add_parser("check")
    c.add_argument("--table", required=True)
    c.add_argument("--bundle", required=True)
    c.add_argument("--snapshots", required=True, help="modefit --snapshot-table output")
    c.add_argument("--mesh", required=True)
    c.add_argument("--frd", required=True)
    c.add_argument("--rho", type=float, default=1.0)
    c.add_argument("--E", type=float, default=1e3)
    c.add_argument("--nu", type=float, default=0.3)
    c.add_argument("--R", type=float, default=10.0)
    c.add_argument("--report")
    c.add_argument("--curves", help="dense curves for the plot (TSV)")
    args = p.parse_args(argv)
    try:
        if args.cmd == "check":
            return check(args)
        {"deck": write_deck, "table": write_table}[args.cmd](args)
    except (cf.FemError, OSError, ValueError) as e:
        print(f"sphere_compaction.py {args.cmd}: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
