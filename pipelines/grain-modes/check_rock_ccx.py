#!/usr/bin/python3
"""Checks of `make rock-ccx`: the rock compressed between rigid plates by CalculiX along
three axes (ccx_plates.py), read back by modefit from the deck and .frd as they come.

usage: check_rock_ccx.py OUT

  validation  modefit's FE strain energy of every snapshot (its own quadrature of
              CalculiX's displacement field, rigid motion removed) against CalculiX's
              internal energy of the same increment: within 1 % (the .frd's 5 digits and
              CalculiX's 4-point rule bound the agreement)
  validation  energy balance on each axis' last increment: the plates' work 2 F d(travel)
              (F the mean of the increment's ends) against the change of CalculiX's
              strain energy, within 2 % (the trapezoid rule on one increment of a curve
              ~ travel^1.3)
  report      the support's reaction against the plate force (the rock is irregular: the
              plates' contact points are not collinear)
Exit 1 with FAIL lines when a check fails."""
import os
import sys

import numpy as np


def read_tsv(path):
    with open(path) as f:
        lines = [l.rstrip("\n").split("\t") for l in f if l.strip() and not l.startswith("#")]
    head = lines[0]
    return head, lines[1:]


def main():
    out = sys.argv[1]
    fails = []

    def check(ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        if not ok:
            fails.append(what)

    head, rows = read_tsv(os.path.join(out, "rock-plates.tsv"))
    col = {h: k for k, h in enumerate(head)}
    step = np.array([int(r[col["step"]]) for r in rows])
    travel = np.array([float(r[col["travel"]]) for r in rows])
    force = np.array([float(r[col["F_plate"]]) for r in rows])
    support = np.array([float(r[col["support"]]) for r in rows])
    energy = np.array([float(r[col["energy"]]) for r in rows])

    shead, srows = read_tsv(os.path.join(out, "rock-ccx-snapshots.tsv"))
    scol = {h: k for k, h in enumerate(shead)}
    ekey = next(h for h in shead if "energy" in h.lower())
    fe_energy = np.array([float(r[scol[ekey]]) for r in srows])
    check(len(fe_energy) == len(energy), f"modefit read {len(fe_energy)} snapshots, the .dat "
          f"has {len(energy)} increments")
    if len(fe_energy) == len(energy):
        rel = np.abs(fe_energy - energy) / np.maximum(energy, 1e-30)
        big = energy > 0.05 * energy.max()
        check(rel[big].max() < 0.01, f"modefit's FE energy vs CalculiX's: worst "
              f"{rel[big].max():.2e} over {big.sum()} snapshots above 5 % of the largest (1e-2)")
    for s in np.unique(step):
        k = np.flatnonzero(step == s)
        # the last increment: both plates move by d(travel), so dU = 2 F d(travel), with F
        # the mean of its ends (the trapezoid rule on one increment of a smooth curve)
        a, b = k[-2], k[-1]
        dW = (force[a] + force[b]) * (travel[b] - travel[a])
        dU = energy[b] - energy[a]
        rel = abs(dW - dU) / abs(dU)
        check(rel < 0.02, f"axis {s}: the plates' work over the last increment {dW:.5g} vs the "
              f"strain energy's change {dU:.5g} ({rel:.2e}, 2e-2)")
        print(f"info  axis {s}: support reaction up to {support[k].max() / force[k].max():.3f} "
              "of the plate force")
    print(f"{len(fails)} failure(s)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
