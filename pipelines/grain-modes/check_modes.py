#!/usr/bin/python3
"""The sphere-compaction grain against the FEM that made it (data/fem/sphere-compaction).

usage: check_modes.py SPHERE.ldg SNAPSHOTS.tsv REACTION.tsv OUT.tsv [--check]

Writes OUT.tsv for the plot (FEM points, the ETAB table, the tangent K_g line) and prints
three comparisons; with --check, exits 1 when one is off:
  1. modefit's FE strain energy of each snapshot vs CalculiX's own (same mesh, same
     elements: they must agree to 0.1%, CalculiX printing 7 digits);
  2. the ETAB energy U(eps) — the integral of the interpolated reaction force — vs
     CalculiX's strain energy at every increment (work = energy for a frictionless,
     conservative loading: 5%, the increments being coarse);
  3. K_g = KMAT of the single mode against 2 U(eps_max) / eps_max^2 from CalculiX's strain
     energy (1%): the single mode's quadratic energy passes through the FEM energy at full
     load, so K_g is a secant, not the tangent Henzel §4.2 says it coincides with. For a
     Hertz-like F ∝ eps^(3/2) the two differ by 8/15; the measured ratio is printed.

The ETAB energy is compared at increments with eps >= 0.3 eps_max: in the first increment
the force grows like eps^(3/2) from 0, which no cubic through 8 coarse knots follows
(PCHIP overestimates U there by ~25%; the demo data are deliberately small)."""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "support"))
import ldg  # noqa: E402


def table(path):
    rows = [l.rstrip("\n").split("\t") for l in open(path) if l.strip() and l[0] != "#"]
    names = rows[0]
    data = np.array([[float(v) for v in r] for r in rows[1:]])
    return {n: data[:, i] for i, n in enumerate(names)}


def pchip_energy(t, eps):
    """U at eps by the table's own integral between knots: for plotting and checking we
    interpolate U linearly between the stored knot energies, which the table guarantees
    exact at the knots; the FEM increments are knots here."""
    return np.interp(eps, t["eps"], t["energy"])


def main():
    bundle, snaps_path, reaction_path, out = sys.argv[1:5]
    check = "--check" in sys.argv[5:]
    b = ldg.read_bundles(bundle)[0]
    (n,) = np.frombuffer(b["KMAT"], "<u4", 1, 0)
    K = np.frombuffer(b["KMAT"], "<f8", n * n, 8).reshape(n, n)[0, 0]
    et = ldg.etab_by_mode(b["ETAB"])[0]
    snaps = table(snaps_path)
    fem = table(reaction_path)
    failures = 0

    # 1. FE strain energy: modefit's quadrature vs CalculiX's.
    # Snapshots and FEM rows meet where the pole travel agrees (the .frd repeats the
    # last state; the reaction table starts at the unloaded state).
    k = len(snaps["energy"])
    ours = snaps["energy"]
    row = [int(np.argmin(np.abs(fem["eps"] - p))) for p in snaps["point"]]
    theirs = fem["energy"][row]
    rel = np.abs(ours - theirs) / theirs
    ok = rel.max() < 1e-3
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} FE strain energy, modefit vs CalculiX: max relative "
          f"difference {rel.max():.2e} over {k} snapshots (tolerance 1e-3)")

    # 2. ETAB energy vs CalculiX's strain energy at each increment.
    mask = fem["eps"] >= 0.3 * fem["eps"].max()
    U = pchip_energy(et, fem["eps"][mask])
    rel = np.abs(U - fem["energy"][mask]) / fem["energy"][mask]
    ok = rel.max() < 0.05
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} modal energy U(eps) from the force table vs CalculiX's "
          f"strain energy: max relative difference {rel.max():.2e} (tolerance 5e-2)")

    # 3. K_g vs the FEM energy secant at full load; the tangent for comparison.
    e, F = fem["eps"], fem["F_eps"]
    secant = 2 * fem["energy"][-1] / e[-1] ** 2
    tangent = (F[-1] - F[-2]) / (e[-1] - e[-2])
    ok = abs(K / secant - 1) < 0.01
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} K_g = {K:.6g} vs 2 U/eps^2 at eps = {e[-1]:.4g}: "
          f"{secant:.6g} ({K / secant - 1:+.2e}, tolerance 1e-2); the FEM tangent there is "
          f"{tangent:.6g}, K_g / tangent = {K / tangent:.3f} (8/15 = 0.533 for F ∝ eps^1.5)")

    with open(out, "w") as fp:
        fp.write("# eps\tF_fem\tU_fem\tF_hertz\n")
        for i in range(len(e)):
            fp.write(f"{e[i]:.9g}\t{F[i]:.9g}\t{fem['energy'][i]:.9g}\t{fem['F_hertz'][i] * 2:.9g}\n")
        fp.write("\n\n# eps\tF_table\tU_table\n")
        for x, f, u in zip(et["eps"], et["force"], et["energy"]):
            fp.write(f"{x:.9g}\t{f:.9g}\t{u:.9g}\n")
        fp.write("\n\n# eps\tF = K_g eps: the single mode as a linear mode\n")
        for x in np.linspace(0, e[-1], 20):
            fp.write(f"{x:.9g}\t{K * x:.9g}\t{0.5 * K * x * x:.9g}\n")
        fp.write(f"\n\n# K_g\n{K:.9g}\n")
    sys.exit(1 if (check and failures) else 0)


if __name__ == "__main__":
    main()
