#!/usr/bin/python3
"""compaction1's mesh study: the six walls' total force F(u) of the CalculiX octant model on
three meshes (coarse to fine), the finest as the reference curve.

usage: fem_study.py DIR1 DIR2 DIR3 --henzel TABLE --reference OUT.tsv --report OUT.txt

Each DIR holds six_walls.py's table.tsv, the mesh (mesh.inp) and CalculiX's wall time
(walls.time). The report lists the force at u = 0.01, 0.02, 0.05, 0.1, 0.16 on each mesh,
the differences to the finest, the run times, and Appendix B's table and Hertz against
the finest. Convergence check (a guard of the reference, exit 1 with a FAIL line): the two
finer meshes agree within TOL_CONVERGED for u >= U_CHECK, and within TOL_SMALL below."""
import argparse
import os
import shutil
import sys

import numpy as np

sys.dont_write_bytecode = True   # no __pycache__ in the source tree

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import henzel  # noqa: E402

PROG = "fem_study"
U_CHECK = 0.05
TOL_CONVERGED = 0.01     # measured 0.33 % (lc 0.1 against 0.05)
TOL_SMALL = 0.03         # below U_CHECK, where the contact spans few elements
REPORT_AT = (0.01, 0.02, 0.05, 0.1, 0.16)


def read_tsv(path):
    with open(path) as f:
        lines = [ln for ln in f if not ln.startswith("#") and ln.strip()]
    names = lines[0].split()
    data = np.array([[float(v) for v in ln.split()] for ln in lines[1:]])
    return {n: data[:, k] for k, n in enumerate(names)}


def mesh_nodes(path):
    n, on = 0, False
    with open(path) as f:
        for line in f:
            if line.startswith("*"):
                on = line.upper().startswith("*NODE") and "PRINT" not in line.upper() \
                    and "FILE" not in line.upper()
            elif on and line.strip():
                n += 1
    return n


def at(tab, u):
    k = np.flatnonzero(np.abs(tab["u"] - u) < 1e-9)
    if k.size == 0:
        henzel.fail(PROG, f"no increment at u = {u}")
    return tab["F"][k[0]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs=3)
    ap.add_argument("--henzel", required=True)
    ap.add_argument("--reference", required=True)
    ap.add_argument("--report", required=True)
    ap.add_argument("--full", help="the full-sphere run's directory, for its times")
    a = ap.parse_args()
    tabs = [read_tsv(os.path.join(d, "table.tsv")) for d in a.dirs]
    nodes = [mesh_nodes(os.path.join(d, "mesh.inp")) for d in a.dirs]
    times, cpus = [], []
    for d in a.dirs + ([a.full] if a.full else []):
        with open(os.path.join(d, "walls.time")) as f:
            fields = f.read().split()      # wall seconds, CPU seconds (ccx_fem.py)
        times.append(float(fields[0]))
        cpus.append(float(fields[1]) if len(fields) > 1 else float("nan"))
    fine = tabs[-1]
    table = henzel.Pchip(*henzel.read_table(a.henzel))
    lines = ["compaction1 mesh study: CalculiX octant (three symmetry planes, three walls), "
             "sphere R = 10, E = 1000, nu = 0.3, frictionless penalty contact; F = six walls' "
             "total force",
             "meshes: " + ", ".join(f"{os.path.basename(d)} {n} nodes, ccx {t:.0f} s (CPU "
                                    f"{c:.0f} s)" for d, n, t, c in zip(a.dirs, nodes, times, cpus))
             + (f"; the full sphere {mesh_nodes(os.path.join(a.full, 'mesh.inp'))} nodes, ccx "
                f"{times[3]:.0f} s (CPU {cpus[3]:.0f} s)" if a.full else "")
             + f"; CalculiX in all {sum(times):.0f} s (CPU {sum(cpus):.0f} s)",
             "  u       " + "".join(f"F({os.path.basename(d)})".ljust(14) for d in a.dirs)
             + "coarse-fine  mid-fine   Henzel-fine  Hertz-fine"]
    for u in REPORT_AT:
        F = [at(t, u) for t in tabs]
        hz = 6 * 4 / 3 * 1000 / (1 - 0.09) * np.sqrt(10) * u ** 1.5
        lines.append(f"  {u:<7.3g} " + "".join(f"{v:<14.5g}" for v in F)
                     + f"{100 * (F[0] / F[2] - 1):+7.2f} %  {100 * (F[1] / F[2] - 1):+7.3f} %  "
                     f"{100 * (table(u) / F[2] - 1):+7.1f} %    {100 * (hz / F[2] - 1):+6.1f} %")
    ok = True
    for k, (lo, hi, tol) in enumerate(((U_CHECK - 1e-9, 1.0, TOL_CONVERGED),
                                       (1e-9, U_CHECK - 1e-9, TOL_SMALL))):
        sel = (fine["u"] > lo) & (fine["u"] <= hi)
        mid = np.interp(fine["u"][sel], tabs[1]["u"], tabs[1]["F"])
        coarse = np.interp(fine["u"][sel], tabs[0]["u"], tabs[0]["F"])
        d_mid = np.abs(mid / fine["F"][sel] - 1).max()
        d_coarse = np.abs(coarse / fine["F"][sel] - 1).max()
        good = d_mid <= tol
        ok &= good
        where = f"u >= {U_CHECK}" if k == 0 else f"u < {U_CHECK}"
        lines.append(f"max |F_mid - F_fine| / F_fine for {where}: {100 * d_mid:.2f} % (limit "
                     f"{100 * tol:g} %; coarse: {100 * d_coarse:.2f} %) "
                     f"{'ok' if good else 'FAIL'}")
    lines.append(f"reference: {os.path.basename(a.dirs[-1])} ({a.reference})")
    text = "\n".join(lines) + "\n"
    with open(a.report, "w") as f:
        f.write(text)
    print(text, end="")
    shutil.copyfile(os.path.join(a.dirs[-1], "table.tsv"), a.reference)
    if not ok:
        henzel.fail(PROG, "the CalculiX reference is not converged (see above)")


if __name__ == "__main__":
    main()
