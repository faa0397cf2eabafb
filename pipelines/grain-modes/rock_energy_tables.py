#!/usr/bin/python3
"""Per-mode energy tables for energyfit from modefit's --snapshot-table of linear contact modes.

Each load case i is a static FE response u_i whose strain energy U_i modefit computes on the
FE mesh (the `energy` column), with its modal coordinates eps_i (the `eps*` columns). When the
modes span the responses (residual ~ 0) and are decoupled (modefit --orthogonalize), the FE
energies obey U_i = 1/2 sum_a k_a eps_ia^2; solving that system for k_a uses the FE energies
only, not KMAT. Mode a's table is then U_a(eps) = 1/2 k_a eps^2 at SAMPLES points over
[-AMAX, AMAX], AMAX = --range-factor x the largest |eps_ia| (the response to that many unit
loads). energyfit fits each table; check_rock.py compares its F'(0) with KMAT's K_aa.

usage: rock_energy_tables.py SNAPSHOTS.tsv OUTPREFIX [--range-factor F] [--samples N]
writes OUTPREFIX1.tsv ... OUTPREFIXA.tsv (eps, U) and prints k_a"""
import argparse
import sys

import numpy as np

RESIDUAL = 1e-9     # the modes must hold every load case to this (mass-weighted, relative)


def fail(msg):
    sys.exit(f"rock_energy_tables: error: {msg}")


def read_table(path):
    rows = [l.rstrip("\n").split("\t") for l in open(path) if l.strip() and not l.startswith("#")]
    if len(rows) < 2:
        fail(f"{path}: no header and rows")
    head = rows[0]
    data = np.array([[float(v) for v in r] for r in rows[1:]])
    return {h: data[:, k] for k, h in enumerate(head)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("snapshots")
    ap.add_argument("prefix")
    ap.add_argument("--range-factor", type=float, default=1000.0)
    ap.add_argument("--samples", type=int, default=21)
    a = ap.parse_args()
    t = read_table(a.snapshots)
    eps = [t[k] for k in sorted((k for k in t if k.startswith("eps")), key=lambda k: int(k[3:]))]
    if not eps:
        fail(f"{a.snapshots}: no eps columns")
    E = np.array(eps).T            # load case x mode
    n, m = E.shape
    if n < m:
        fail(f"{n} load cases cannot determine {m} modal stiffnesses")
    worst = t["residual"].max()
    if worst > RESIDUAL:
        fail(f"a load case lies outside the modes (residual {worst:.3g} > {RESIDUAL}): "
             "use as many modes as load cases")
    A = 0.5 * E ** 2
    k, *_ = np.linalg.lstsq(A, t["energy"], rcond=None)
    misfit = np.abs(A @ k - t["energy"]).max() / t["energy"].max()
    if misfit > 1e-9:
        fail(f"the FE energies are not 1/2 sum k_a eps_a^2 (misfit {misfit:.3g}): are the "
             "modes decoupled (modefit --orthogonalize)?")
    amax = a.range_factor * np.abs(E).max()
    x = np.linspace(-amax, amax, a.samples)
    for j in range(m):
        if k[j] <= 0:
            fail(f"mode {j + 1}: k = {k[j]:.6g} from the FE energies is not positive")
        with open(f"{a.prefix}{j + 1}.tsv", "w") as f:
            f.write(f"# mode {j + 1}: U = k eps^2 / 2, k = {k[j]:.12g} from the FE strain "
                    f"energies of {n} contact load cases ({a.snapshots})\n")
            f.write("eps\tU\n")
            for v in x:
                f.write(f"{v:.12g}\t{0.5 * k[j] * v * v:.12g}\n")
        print(f"rock_energy_tables: mode {j + 1}: k = {k[j]:.9g} (FE energies, misfit {misfit:.2g})")


if __name__ == "__main__":
    main()
