#!/usr/bin/python3
"""modefit on real CalculiX results: a bar in axial tension and a cantilever under a tip load.

usage: check_bar_cantilever.py LSGEN MODEFIT [--workdir DIR] [--case bar|cantilever]

For each case: Gmsh meshes the box of box.geo (centred at the origin, as `lsgen cuboid`
builds it) with 10-node tets, this script writes the deck, CalculiX solves it (one linear
static snapshot), lsgen makes the grain bundle of the same box, and
`modefit --method single --normalize point:...` adds the mode, K and M. The checks:

  K against the closed form (EA/L, 3EI/L^3)                       within 3 %
  K against 2 U / u_p^2 from CalculiX itself (U: ccx's strain energy, u_p: the raw
    displacement at the normalization node): the same FE field, so   within 0.5 %
  the snapshot table's energy against ccx's strain energy          within 0.5 %
  M against the mode's kinetic-energy integral, computed here from the analytic field
    with its rigid motion removed (L2 projection, Gauss-Legendre):  within 3 %
  M against the same integral of CalculiX's field on the C3D10 mesh (numpy: isoparametric
    shape functions, collapsed Gauss rule, mass-weighted rigid projection): within 0.5 %

Exit 0 when all hold, 1 when one does not, 77 when gmsh or ccx is missing."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import ccx_fem as cf  # noqa: E402
import modes_read  # noqa: E402

SKIP = 77
E, NU, RHO = 1.0e4, 0.3, 2.5
TOL_CLOSED_FORM = 0.03
TOL_SAME_FIELD = 0.005
TOL_MASS = 0.03


# ---------------------------------------------------------------- independent references

def gauss_box(size, n=(12, 6, 6)):
    """Gauss-Legendre points and weights on the box centred at the origin."""
    axes, weights = [], []
    for extent, k in zip(size, n):
        t, w = np.polynomial.legendre.leggauss(k)
        axes.append(0.5 * extent * t)
        weights.append(0.5 * extent * w)
    X, Y, Z = np.meshgrid(*axes, indexing="ij")
    W = np.einsum("i,j,k->ijk", *weights)
    return np.stack([X.ravel(), Y.ravel(), Z.ravel()], axis=1), W.ravel()


def rigid_fields(p):
    """The six rigid motions at points p: translations, then rotations about the origin."""
    out = [np.tile(e, (len(p), 1)) for e in np.eye(3)]
    out += [np.cross(e, p) for e in np.eye(3)]
    return out


def projected_mass(field, size, rho):
    """rho * integral |u - P u|^2 over the box, P the L2 projection on rigid motions."""
    p, w = gauss_box(size)
    u = field(p)
    rig = rigid_fields(p)
    G = np.array([[np.sum(w * np.einsum("ij,ij->i", a, b)) for b in rig] for a in rig])
    rhs = np.array([np.sum(w * np.einsum("ij,ij->i", a, u)) for a in rig])
    c = np.linalg.solve(G, rhs)
    v = u - sum(ck * r for ck, r in zip(c, rig))
    return rho * np.sum(w * np.einsum("ij,ij->i", v, v))


def beam_projected_mass_1d(w, length, area, rho, n=16):
    """rho A * integral (w - a - b s)^2 ds over [0, L], (a, b) the L2 best fit."""
    t, g = np.polynomial.legendre.leggauss(n)
    s, g = 0.5 * length * (t + 1.0), 0.5 * length * g
    ws = w(s)
    A = np.stack([np.ones_like(s), s], axis=1)
    coef = np.linalg.solve(A.T @ (g[:, None] * A), A.T @ (g * ws))
    r = ws - A @ coef
    return rho * area * np.sum(g * r * r)


# ---------------------------------------------------------------- the two cases

class Case:
    def __init__(self, name, size, lc, grid_h, normalize):
        self.name, self.size, self.lc, self.grid_h = name, size, lc, grid_h
        self.normalize = normalize          # (point, component)


def bar_case():
    return Case("bar", (100.0, 10.0, 10.0), 2.5, 1.0, ((50.0, 0.0, 0.0), "x"))


def cantilever_case():
    return Case("cantilever", (100.0, 5.0, 5.0), 1.7, 0.5, ((50.0, 0.0, 0.0), "-z"))


def bar_deck(case, ids, xyz, eids, conn, mesh_name):
    """Face x = -L/2 held axially only; its centre held in y, z and one corner in z, which
    stops the rigid motion without restraining the Poisson contraction (uniaxial stress).
    Face x = +L/2 pulled by a uniform traction (a *DLOAD pressure of -P/A) of total P."""
    L, B, H = case.size
    P = 100.0
    face0 = ids[np.abs(xyz[:, 0] + L / 2) < 1e-9]
    centre = ids[cf.nearest_node(xyz, [-L / 2, 0.0, 0.0])]
    corner = ids[cf.nearest_node(xyz, [-L / 2, B / 2, -H / 2])]
    end = cf.boundary_faces(xyz, conn, lambda p: np.abs(p[:, 0] - L / 2) < 1e-9)
    lines = [f"*INCLUDE, INPUT={mesh_name}"] + cf.nset_lines("FIXED", face0) + material() + [
        "*STEP", "*STATIC", "*BOUNDARY", "FIXED, 1, 1, 0.", f"{centre}, 2, 3, 0.",
        f"{corner}, 3, 3, 0.", "*DLOAD"]
    lines += [f"{eids[e]}, P{fnum}, {-P / (B * H)!r}" for e, fnum, _c, _m in end]
    return lines + outputs(), {"P": P, "loaded area": float(sum(
        np.linalg.norm(cf.face_area_vector(xyz, f[2])) for f in end))}


def cantilever_deck(case, ids, xyz, eids, conn, mesh_name):
    """Face x = -L/2 clamped; a uniform shear traction of total P in -z on face x = +L/2
    (consistent nodal forces of the quadratic faces, *CLOAD)."""
    L, B, H = case.size
    P = 1.0
    face0 = ids[np.abs(xyz[:, 0] + L / 2) < 1e-9]
    end = cf.boundary_faces(xyz, conn, lambda p: np.abs(p[:, 0] - L / 2) < 1e-9)
    loads = cf.consistent_traction_loads(xyz, end, [0.0, 0.0, -P / (B * H)])
    lines = [f"*INCLUDE, INPUT={mesh_name}"] + cf.nset_lines("FIXED", face0) + material() + [
        "*STEP", "*STATIC", "*BOUNDARY", "FIXED, 1, 3, 0.", "*CLOAD"]
    lines += [f"{ids[n]}, 3, {f[2]!r}" for n, f in sorted(loads.items())]
    total = sum(f[2] for f in loads.values())
    return lines + outputs(), {"P": P, "sum of the nodal loads (z)": total}


def material():
    return ["*MATERIAL, NAME=ELASTIC", "*ELASTIC", f"{E!r}, {NU!r}",
            "*SOLID SECTION, ELSET=solid, MATERIAL=ELASTIC"]


def outputs():
    return ["*NODE FILE", "U", "*EL PRINT, ELSET=solid, TOTALS=ONLY", "ELSE", "*END STEP"]


def bar_references(case):
    L, B, H = case.size
    A = B * H

    def field(p):   # raw u / u_x(L/2): uniaxial stress, x measured from the held face
        s = p[:, 0] + L / 2
        return np.stack([s / L, -NU * p[:, 1] / L, -NU * p[:, 2] / L], axis=1)

    return {"K": E * A / L, "K_name": "EA/L",
            "M": projected_mass(field, case.size, RHO), "M_name": "rho int |u - Pu|^2 (3-D)",
            "M_1d": RHO * A * L / 12.0, "M_1d_name": "rho A L / 12 (rod)"}


def cantilever_references(case):
    L, B, H = case.size
    A, I = B * H, B * H ** 3 / 12.0

    def w(s):       # Euler-Bernoulli tip-load deflection with w(L) = 1
        return (3.0 * L * s ** 2 - s ** 3) / (2.0 * L ** 3)

    def dw(s):
        return (6.0 * L * s - 3.0 * s ** 2) / (2.0 * L ** 3)

    def field(p):   # raw u / (-u_z(L/2)): deflection -w, sections rotate (u_x = z w')
        s = p[:, 0] + L / 2
        return np.stack([p[:, 2] * dw(s), np.zeros(len(p)), -w(s)], axis=1)

    return {"K": 3.0 * E * I / L ** 3, "K_name": "3EI/L^3",
            "M": beam_projected_mass_1d(w, L, A, RHO), "M_name": "rho A int (w-a-bx)^2 (E-B)",
            "M_1d": projected_mass(field, case.size, RHO),
            "M_1d_name": "with rotary inertia (3-D)"}


# ---------------------------------------------------------------- running one case

def run_case(case, deck_fn, refs_fn, lsgen, modefit, work):
    os.makedirs(work, exist_ok=True)
    L, B, H = case.size
    mesh = os.path.join(work, "mesh.inp")
    t_gmsh = cf.gmsh_mesh(os.path.join(HERE, "box.geo"), mesh,
                          {"L": L, "B": B, "H": H, "lc": case.lc})
    ids, xyz, eids, conn = cf.read_inp_mesh(mesh)
    if cf.tet_volumes(xyz, conn).min() <= 0:
        raise cf.FemError(f"{mesh}: a tet with non-positive volume")
    lines, info = deck_fn(case, ids, xyz, eids, conn, "mesh.inp")
    cf.write_deck(os.path.join(work, "job.inp"), lines)
    t_ccx = cf.run_ccx("job", work)

    blocks = cf.read_frd_disp(os.path.join(work, "job.frd"))
    _t, energy = cf.dat_series(os.path.join(work, "job.dat"), "total internal energy", "SOLID")
    if len(blocks) != 1 or len(energy) != 1:
        raise cf.FemError(f"{work}: expected one DISP block and one energy print")
    point, comp = case.normalize
    sign = -1.0 if comp.startswith("-") else 1.0
    axis = "xyz".index(comp[-1])
    u_p = sign * cf.disp_on(blocks[0], [ids[cf.nearest_node(xyz, point)]])[0][axis]
    U_ccx = float(energy[0][0])
    M_fe = cf.projected_mass(xyz, conn, cf.disp_on(blocks[0], ids) / u_p, RHO)

    grain = os.path.join(work, "grain.ldg")
    t0 = time.monotonic()
    cf.run([lsgen, "cuboid", "--size", f"{L!r},{B!r},{H!r}", "--h", repr(case.grid_h),
            "--density", repr(RHO), "--name", case.name, "-q", "-o", grain])
    t_lsgen = time.monotonic() - t0
    out = os.path.join(work, "modes.ldg")
    table = os.path.join(work, "snapshots.tsv")
    t0 = time.monotonic()
    cf.run([modefit, "-i", grain, "-o", out, "--mesh", mesh,
            "--snapshots", os.path.join(work, "job.frd"), "--method", "single",
            "--normalize", f"point:{point[0]!r},{point[1]!r},{point[2]!r}:{comp}",
            "--E", repr(E), "--nu", repr(NU), "--snapshot-table", table])
    t_modefit = time.monotonic() - t0
    g = modes_read.grain(out)
    K, M = g["K"], g["M"]
    if K.shape != (1, 1) or M.shape != (1, 1):
        raise cf.FemError(f"{out}: expected one mode, got K {K.shape}")
    K, M = float(K[0, 0]), float(M[0, 0])
    table_energy = read_snapshot_energy(table)

    refs = refs_fn(case)
    print(f"== {case.name}: box {L:g} x {B:g} x {H:g}, {len(ids)} nodes, {len(eids)} C3D10 "
          f"(gmsh {t_gmsh:.2f} s, ccx {t_ccx:.2f} s, lsgen {t_lsgen:.2f} s, "
          f"modefit {t_modefit:.2f} s)")
    for key, value in info.items():
        print(f"   {key} = {value:.6g}")
    print(f"   raw u at the normalization point ({comp}) = {u_p:.6g}, ccx strain energy U = "
          f"{U_ccx:.6g}")
    checks = [
        ("K", K, refs["K"], refs["K_name"], TOL_CLOSED_FORM),
        ("K", K, 2.0 * U_ccx / u_p ** 2, "2U/u_p^2 (ccx)", TOL_SAME_FIELD),
        ("snapshot energy", table_energy, U_ccx, "ccx ELSE", TOL_SAME_FIELD),
        ("M", M, refs["M"], refs["M_name"], TOL_MASS),
        ("M", M, refs["M_1d"], refs["M_1d_name"], TOL_MASS),
        ("M", M, M_fe, "rho int |u - Pu|^2 (FE, numpy)", TOL_SAME_FIELD),
    ]
    ok = True
    for what, got, ref, name, tol in checks:
        rel = got / ref - 1.0
        good = abs(rel) <= tol
        ok &= good
        print(f"   {what:15s} {got:12.6g}  vs {name:31s} {ref:12.6g}  {100 * rel:+7.3f} %  "
              f"(tol {100 * tol:g} %) {'ok' if good else 'FAIL'}")
    return ok


def read_snapshot_energy(path):
    """The energy column of modefit's snapshot table (one snapshot)."""
    with open(path) as f:
        rows = [ln.rstrip("\n").split("\t") for ln in f if ln.strip() and not ln.startswith("#")]
    header, data = rows[0], rows[1:]
    if "energy" not in header or len(data) != 1:
        raise cf.FemError(f"{path}: expected an 'energy' column and one snapshot row")
    return float(data[0][header.index("energy")])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("lsgen")
    p.add_argument("modefit")
    p.add_argument("--workdir", help="keep the runs here (default: a temporary directory)")
    p.add_argument("--case", choices=("bar", "cantilever"), action="append")
    args = p.parse_args()
    missing = cf.tools_missing()
    if missing:
        print(f"skipped: {', '.join(missing)} not found", file=sys.stderr)
        return SKIP
    cases = {"bar": (bar_case(), bar_deck, bar_references),
             "cantilever": (cantilever_case(), cantilever_deck, cantilever_references)}
    work = args.workdir or tempfile.mkdtemp(prefix="modefit-calculix-")
    ok = True
    try:
        for name in args.case or ("bar", "cantilever"):
            case, deck_fn, refs_fn = cases[name]
            try:
                ok &= run_case(case, deck_fn, refs_fn, args.lsgen, args.modefit,
                               os.path.join(work, name))
            except (cf.FemError, OSError, ValueError, KeyError,
                    subprocess.SubprocessError) as e:
                print(f"== {name}: error: {e}")
                ok = False
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    print("modefit-calculix:", "all checks hold" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
