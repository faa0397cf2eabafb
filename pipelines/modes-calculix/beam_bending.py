#!/usr/bin/python3
"""Slender beam under three-point bending (linear): CalculiX snapshot -> modefit -> K, M.

    beam_bending.py deck  --mesh M.inp --deck OUT.inp [--L --B --H --E --nu --P]
    beam_bending.py check --mesh M.inp --frd F.frd --dat D.dat --bundle B.ldg
                          [--snapshots T.tsv] [--L --B --H --E --nu --rho] [--report R.txt]

The beam (beam.geo, centred at the origin like `lsgen cuboid`) rests on two line supports,
the bottom edges of its end faces (z = -H/2 at x = -L/2 and x = +L/2; span L), and carries
a line load P in -z across its top at mid-span (consistent nodal forces on the quadratic
edges). Rigid motion is stopped by u_x, u_y at one support corner and u_y at the other:
statically determinate, so nothing but the supports' z reactions acts on the beam.

`check` compares modefit's K for the single mode normalized to the mid-span deflection
(the centre of the mid-span section, -z) with 48EI/L^3, with its Timoshenko shear
correction, and with 2U/w^2 from CalculiX's own strain energy; and M with the mode's
kinetic-energy integral from the Euler-Bernoulli field (translation removed; the mode is
symmetric, so no rotation to remove), and with the same integral of CalculiX's field on the
C3D10 mesh (numpy). Exit 1 when a check fails."""
import argparse
import os
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "modefit", "calculix"))
sys.path.insert(0, os.path.join(ROOT, "tests", "modefit"))
import ccx_fem as cf  # noqa: E402

TOL_CLOSED_FORM = 0.03
TOL_SAME_FIELD = 0.005
TOL_MASS = 0.03
SHEAR_FACTOR = 5.0 / 6.0   # Timoshenko's kappa for a rectangle


def line_edges(conn, on_line):
    """Quadratic tet edges with both corner nodes on a line: (corner i, corner j, midside)."""
    seen, out = set(), []
    for c in conn:
        for k, (i, j) in enumerate(cf.C3D10_EDGES):
            a, b = c[i], c[j]
            if on_line[a] and on_line[b]:
                key = (min(a, b), max(a, b))
                if key not in seen:
                    seen.add(key)
                    out.append((a, b, c[4 + k]))
    return out


def write_deck(args):
    ids, xyz, _eids, conn = cf.read_inp_mesh(args.mesh)
    L, B, H = args.L, args.B, args.H
    tol = 1e-7 * L
    on = lambda x, z: (np.abs(xyz[:, 0] - x) < tol) & (np.abs(xyz[:, 2] - z) < tol)  # noqa: E731
    support_a, support_b = ids[on(-L / 2, -H / 2)], ids[on(L / 2, -H / 2)]
    corner_a = ids[cf.nearest_node(xyz, [-L / 2, -B / 2, -H / 2])]
    corner_b = ids[cf.nearest_node(xyz, [L / 2, -B / 2, -H / 2])]
    # Line load: a quadratic edge of length l carrying q l puts 1/6, 2/3, 1/6 on its nodes.
    edges = line_edges(conn, on(0.0, H / 2))
    q = args.P / B
    loads = {}
    for a, b, m in edges:
        f = q * np.linalg.norm(xyz[a] - xyz[b])
        for n, share in ((a, 1 / 6), (b, 1 / 6), (m, 2 / 3)):
            loads[n] = loads.get(n, 0.0) + share * f
    total = sum(loads.values())
    if abs(total - args.P) > 1e-9 * args.P:
        raise cf.FemError(f"load line covers {total / q} of the width {B}: the mesh has no "
                          "line of nodes across the top at x = 0")
    mesh_name = os.path.relpath(os.path.abspath(args.mesh),
                                os.path.dirname(os.path.abspath(args.deck)))
    lines = ["** Three-point bending (pipelines/modes-calculix/beam_bending.py)",
             f"** L = {L}, B = {B}, H = {H}, E = {args.E}, nu = {args.nu}, P = {args.P}",
             f"*INCLUDE, INPUT={mesh_name}"]
    lines += cf.nset_lines("SUPPORTA", support_a) + cf.nset_lines("SUPPORTB", support_b)
    lines += ["*MATERIAL, NAME=ELASTIC", "*ELASTIC", f"{args.E!r}, {args.nu!r}",
              "*SOLID SECTION, ELSET=solid, MATERIAL=ELASTIC",
              "*STEP", "*STATIC", "*BOUNDARY",
              "SUPPORTA, 3, 3, 0.", "SUPPORTB, 3, 3, 0.",
              f"{corner_a}, 1, 2, 0.", f"{corner_b}, 2, 2, 0.", "*CLOAD"]
    lines += [f"{ids[n]}, 3, {-f!r}" for n, f in sorted(loads.items())]
    lines += ["*NODE FILE", "U",
              "*NODE PRINT, NSET=SUPPORTA, TOTALS=ONLY", "RF",
              "*NODE PRINT, NSET=SUPPORTB, TOTALS=ONLY", "RF",
              "*EL PRINT, ELSET=solid, TOTALS=ONLY", "ELSE", "*END STEP"]
    cf.write_deck(args.deck, lines)
    print(f"{args.deck}: {len(ids)} nodes, {len(conn)} C3D10, supports {len(support_a)} + "
          f"{len(support_b)} nodes, load on {len(edges)} edges")


def euler_bernoulli_mass(L, A, rho, n=24):
    """rho A * integral (w - mean w)^2 over the span, w the three-point bending deflection
    normalized to 1 at mid-span (symmetric: the L2-best rigid fit is the mean alone)."""
    t, g = np.polynomial.legendre.leggauss(n)
    s, g = 0.25 * L * (t + 1.0), 0.25 * L * g          # the half span [0, L/2]
    w = (3.0 * L * L * s - 4.0 * s ** 3) / L ** 3       # w(L/2) = 1
    mean = np.sum(g * w) / (L / 2)
    return 2.0 * rho * A * np.sum(g * (w - mean) ** 2)


def check(args):
    sys.path.insert(0, os.path.join(ROOT, "tests", "modefit"))
    import modes_read
    ids, xyz, _e, conn = cf.read_inp_mesh(args.mesh)
    L, B, H, E, nu, rho = args.L, args.B, args.H, args.E, args.nu, args.rho
    A, I, G = B * H, B * H ** 3 / 12.0, E / (2.0 * (1.0 + nu))
    blocks = cf.read_frd_disp(args.frd)
    _t, energy = cf.dat_series(args.dat, "total internal energy", "SOLID")
    _t, ra = cf.dat_series(args.dat, "total force", "SUPPORTA")
    _t, rb = cf.dat_series(args.dat, "total force", "SUPPORTB")
    w_mid = -cf.disp_on(blocks[-1], [ids[cf.nearest_node(xyz, [0.0, 0.0, 0.0])]])[0][2]
    U = float(energy[-1][0])
    P = float(ra[-1][2] + rb[-1][2])
    g = modes_read.grain(args.bundle)
    K, M = float(g["K"][0, 0]), float(g["M"][0, 0])
    K_eb = 48.0 * E * I / L ** 3
    K_timo = 1.0 / (L ** 3 / (48.0 * E * I) + L / (4.0 * SHEAR_FACTOR * G * A))
    M_eb = euler_bernoulli_mass(L, A, rho)
    M_fe = cf.projected_mass(xyz, conn, cf.disp_on(blocks[-1], ids) / w_mid, rho)
    lines = [f"three-point bending: L = {L:g}, B = {B:g}, H = {H:g} (L/H = {L / H:g}), "
             f"E = {E:g}, nu = {nu:g}, rho = {rho:g}, {len(ids)} nodes",
             f"  support reactions sum to P = {P:.6g}; mid-span deflection w = {w_mid:.6g} "
             f"(Euler-Bernoulli {P / K_eb:.6g}, Timoshenko {P / K_timo:.6g}); "
             f"ccx strain energy U = {U:.6g}"]
    checks = [("K", K, K_eb, "48EI/L^3 (Euler-Bernoulli)", TOL_CLOSED_FORM),
              ("K", K, K_timo, "Timoshenko (shear, kappa 5/6)", TOL_CLOSED_FORM),
              ("K", K, 2.0 * U / w_mid ** 2, "2U/w^2 (ccx, same field)", TOL_SAME_FIELD),
              ("K", K, P / w_mid, "P/w (ccx)", TOL_CLOSED_FORM),
              ("M", M, M_eb, "rho A int (w - mean)^2 (E-B)", TOL_MASS),
              ("M", M, M_fe, "rho int |u - Pu|^2 (ccx field, numpy)", TOL_SAME_FIELD)]
    ok = True
    for what, got, ref, name, tol in checks:
        rel = got / ref - 1.0
        good = abs(rel) <= tol
        ok &= good
        lines.append(f"  {what} = {got:12.6g}  vs {name:38s} {ref:12.6g}  {100 * rel:+7.3f} %"
                     f"  (tol {100 * tol:g} %) {'ok' if good else 'FAIL'}")
    text = "\n".join(lines)
    print(text)
    if args.report:
        with open(args.report, "w") as f:
            f.write(text + "\n")
    return 0 if ok else 1


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("deck", "check"):
        s = sub.add_parser(name)
        s.add_argument("--mesh", required=True)
        s.add_argument("--L", type=float, default=160.0)
        s.add_argument("--B", type=float, default=4.0)
        s.add_argument("--H", type=float, default=4.0)
        s.add_argument("--E", type=float, default=1.0e4)
        s.add_argument("--nu", type=float, default=0.3)
    sub.choices["deck"].add_argument("--deck", required=True)
    sub.choices["deck"].add_argument("--P", type=float, default=1.0)
    c = sub.choices["check"]
    c.add_argument("--frd", required=True)
    c.add_argument("--dat", required=True)
    c.add_argument("--bundle", required=True)
    c.add_argument("--rho", type=float, default=1.0)
    c.add_argument("--report")
    args = p.parse_args(argv)
    try:
        if args.cmd == "deck":
            write_deck(args)
            return 0
        return check(args)
    except (cf.FemError, OSError, ValueError, KeyError) as e:
        print(f"beam_bending.py {args.cmd}: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
