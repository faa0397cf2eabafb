#!/usr/bin/python3
"""The deformable-grain bundles demrun's validations use, made from the shipped two-plate
compaction (data/fem/sphere-compaction) by modefit --cubic.

usage: check_deformable.py SPHERE6.ldg SPHERE3.ldg SPHERE.ldg APPENDIX_B.tsv [--check]

SPHERE6 (--cubic sum + the Appendix B table as ETAB: cubic27) and SPHERE3
(--cubic copies, three linear modes: bench/deformable); SPHERE is the single two-plate mode
of the same snapshot. Prints what it compares and, with --check, exits 1 when:
  1. one of sphere6's six poles (the surface node nearest to ±10 on each axis) moves
     inwards by more than 3 % from 1 (the mode is normalized at the +z pole; the others
     follow from the rotations, up to the FEM's own asymmetry and interpolation);
  2. each of sphere3's modes does not move its own pole (rotated with it) inwards by 1
     within 3 %;
  3. sphere3's K or M lacks the symmetry of the cube (equal diagonals, equal
     off-diagonals: 1e-9 relative), or its diagonal differs from SPHERE's K, M (the same
     snapshot, normalized the same way: 1e-9);
  4. sphere6 is not the normalized sum of sphere3's modes: Φ6 = Σ_p Φ3_p / c at every node
     (c by least squares; residual 1e-9) and then K6 = 1ᵀ K3 1 / c², M6 = 1ᵀ M3 1 / c² (1e-9);
  5. sphere6's ETAB is not the Appendix B table (its knots, 1e-12).
Then reports, for sphere6: K, M, ω; the ETAB's tangent stiffness at eps = 0.16 (the
runtime's PCHIP end slope: the parabola through the last three knots, runtime/modal/
energy.c); and Hertz's six-contact force 6 (4/3) E* √R eps^1.5 (E = 1000, ν = 0.3, R = 10)
at eps = 0.16 next to the table's 1974.62."""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "support"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "modefit"))
import ldg  # noqa: E402
from modes_read import grain  # noqa: E402

R_SPHERE, E, NU, EPS_MAX = 10.0, 1000.0, 0.3, 0.16
failures = 0


def check(name, ok, detail):
    global failures
    print(("ok   " if ok else "FAIL ") + name + ": " + detail)
    failures += not ok


def geometry(g):
    """Surface nodes in the geometry frame and the modes there (node-major, 3 components)."""
    R = ldg.quat_matrix(g["body"]["orientation"])
    x = g["body"]["centroid"] + g["nodes"]["position"] @ R.T
    return x, g["modes"]["nodes"] @ R.T


def pole_values(g, mode, points):
    """Inward displacement of `mode` at the surface node nearest to each point (±R e_a)."""
    x, phi = geometry(g)
    out = []
    for p in points:
        i = int(np.argmin(np.linalg.norm(x - p, axis=1)))
        inward = -p / np.linalg.norm(p)
        out.append((phi[mode, i] @ inward, np.linalg.norm(x[i] - p)))
    return out


POLES = [s * R_SPHERE * np.eye(3)[a] for a in range(3) for s in (1, -1)]
NAMES = ["+x", "-x", "+y", "-y", "+z", "-z"]
COPY_POLE = [np.array([0, 0, R_SPHERE]), np.array([0, R_SPHERE, 0]),
             np.array([R_SPHERE, 0, 0])]  # C^p (0,0,10): C v = (v_y, v_z, v_x)


def rel(a, b):
    return abs(a - b) / abs(b)


def main():
    s6, s3, s1, table_path = sys.argv[1:5]
    strict = "--check" in sys.argv[5:]
    g6, g3, g1 = grain(s6), grain(s3), grain(s1)

    # 1. sphere6's six poles.
    vals = pole_values(g6, 0, POLES)
    worst = max(abs(v - 1) for v, _ in vals)
    check("sphere6 six poles", g6["K"].shape == (1, 1) and worst < 0.03,
          "inward " + ", ".join(f"{n} {v:.4f}" for n, (v, _) in zip(NAMES, vals)) +
          f" (nodes within {max(d for _, d in vals):.3f} of the poles; max |1 - u| "
          f"{worst:.2e}, tolerance 3e-2)")

    # 2. sphere3: each copy at its own pole.
    ok3 = g3["K"].shape == (3, 3)
    vals = [pole_values(g3, p, [COPY_POLE[p]])[0][0] for p in range(3)] if ok3 else []
    worst = max(abs(v - 1) for v in vals) if vals else np.inf
    check("sphere3 poles", ok3 and worst < 0.03,
          "copy p at C^p (0,0,10): " + ", ".join(f"{v:.4f}" for v in vals) +
          f" (tolerance 3e-2)")

    # 3. sphere3's symmetry, and its diagonal against the two-plate mode.
    for key in ("K", "M"):
        A = g3[key]
        d, off = np.diag(A), A[~np.eye(3, dtype=bool)]
        spread_d = (d.max() - d.min()) / abs(d).max()
        spread_o = (off.max() - off.min()) / abs(d).max()
        one = g1[key][0, 0]
        check(f"sphere3 {key} cubic symmetry",
              spread_d < 1e-9 and spread_o < 1e-9 and rel(d[0], one) < 1e-9,
              f"diagonal {d[0]:.8g} (spread {spread_d:.1e}; two-plate mode {one:.8g}), "
              f"off-diagonal {off[0]:.8g} (spread {spread_o:.1e} of the diagonal)")
    check("sphere3 K positive definite", np.linalg.eigvalsh(g3["K"]).min() > 0,
          f"eigenvalues {np.linalg.eigvalsh(g3['K'])}")

    # 4. sphere6 = Σ sphere3 / c.
    phi6 = g6["modes"]["nodes"][0].ravel()
    phi3 = g3["modes"]["nodes"].sum(axis=0).ravel()
    c = (phi3 @ phi3) / (phi3 @ phi6)
    resid = np.abs(phi3 / c - phi6).max() / np.abs(phi6).max()
    check("sphere6 = sum of sphere3's modes", resid < 1e-9,
          f"Φ6 = ΣΦ3 / {c:.9g} at every node, residual {resid:.1e}")
    for key in ("K", "M"):
        want = g3[key].sum() / c ** 2
        check(f"sphere6 {key} from sphere3", rel(g6[key][0, 0], want) < 1e-9,
              f"{g6[key][0, 0]:.9g} vs 1ᵀ{key}3 1 / c² = {want:.9g}")

    # 5. the ETAB is Appendix B.
    rows = [l.split() for l in open(table_path) if l.strip() and l[0] != "#"]
    tab = np.array([[float(v) for v in r] for r in rows[1:]])
    et = ldg.etab_by_mode(g6["sections"]["ETAB"])[0]
    err = max(np.abs(et["eps"] - tab[:, 0]).max(), np.abs(et["force"] - tab[:, 1]).max() / 1e3) \
        if len(et["eps"]) == len(tab) else np.inf
    check("sphere6 ETAB", err < 1e-12, f"{len(et['eps'])} knots, {et['interp']}, "
          f"extrapolate {et['extrapolate']}; max difference from Appendix B {err:.1e}")

    # Report: linear K vs the table's tangent vs Hertz.
    K6, M6 = g6["K"][0, 0], g6["M"][0, 0]
    e, F = et["eps"], et["force"]
    h0, h1 = e[-1] - e[-2], e[-2] - e[-3]
    d0, d1 = (F[-1] - F[-2]) / h0, (F[-2] - F[-3]) / h1
    tangent = ((2 * h0 + h1) * d0 - h0 * d1) / (h0 + h1)
    Estar = E / (1 - NU ** 2)
    hertz = 6 * 4 / 3 * Estar * np.sqrt(R_SPHERE) * EPS_MAX ** 1.5
    hertz_tangent = 6 * 2 * Estar * np.sqrt(R_SPHERE) * EPS_MAX ** 0.5
    F_end = float(np.interp(EPS_MAX, e, F))
    print(f"report sphere6: K = {K6:.6g} (FE integration, linear), M = {M6:.6g}, "
          f"omega = sqrt(K/M) = {np.sqrt(K6 / M6):.6g}")
    print(f"report sphere6: ETAB tangent dF/deps at eps = {EPS_MAX}: {tangent:.6g} "
          f"(last-interval secant {d0:.6g}); K / tangent = {K6 / tangent:.3f}")
    print(f"report sphere6: Hertz, six contacts, at eps = {EPS_MAX}: F = {hertz:.6g}, "
          f"dF/deps = {hertz_tangent:.6g}; Appendix B F = {F_end:.6g} = "
          f"{F_end / hertz:.3f} x Hertz (one wall's force would be {6 * F_end / hertz:.2f} x "
          f"a single Hertz contact)")
    sys.exit(1 if strict and failures else 0)


if __name__ == "__main__":
    main()
