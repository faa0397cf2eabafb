#!/usr/bin/python3
"""Check bending3pt (Henzel & Karapiperis §4.1, Fig. 4, Table 1): the indenter's force F
against its travel delta from first contact, normalized as eq. 52 (F^ = F / (K_g delta0),
delta^ = delta / delta0, K_g the bundle's KMAT, delta0 the largest travel), must follow
F^ = delta^: the least-squares slope (with an intercept, which takes the constant offset of
the damping forces at constant loading speed) over the loading at delta^ >= 0.1 (the
smooth start excluded) within 2 % of 1. Writes OUT/bending.tsv and OUT/check.txt, prints
the numbers; exits 1 with a one-line reason when the tolerance is missed.

usage: check_bending.py OUTDIR BUNDLE.json [--tol 0.02] [--from 0.1]"""
import argparse
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "compaction1"))
import henzel  # noqa: E402  (probes, frames and bundle facts, shared with the sphere checks)

PROG = "check_bending"
INDENTER = "indenter"


def fail(msg):
    henzel.fail(PROG, msg)


def peak_overlaps(out, t_peak):
    """Overlap and normal force of each wall contact (keyed by wall index) in the last
    contact frame at or before t_peak."""
    t, c = henzel.contacts_at(out, t_peak, PROG)
    by_wall = {int(-1 - jj): (o, f) for jj, o, f in zip(c["j"], c["overlap"], c["fn"]) if jj < 0}
    if len(by_wall) != 3:
        fail(f"frame at t = {t}: {len(by_wall)} wall contacts, expected 3")
    return t, by_wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("bundle_json")
    ap.add_argument("--tol", type=float, default=0.02)
    ap.add_argument("--from", dest="start", type=float, default=0.1)
    a = ap.parse_args()

    col = henzel.read_probes(os.path.join(a.out, "probes.tsv"))
    facts = henzel.bundle_facts(a.bundle_json)
    k_g, m_modal, mass = facts["K"], facts["M"], facts["mass"]
    force = col[INDENTER + ".fz"]          # the beam pushes the indenter up
    travel = -col[INDENTER + ".dz"]
    end = int(np.argmax(travel >= travel.max() - 1e-12))
    touching = np.flatnonzero(force[:end + 1] > 0.0)
    if touching.size == 0:
        fail("the indenter never touched the beam")
    delta = travel - travel[touching[0]]
    delta0 = delta[end]
    rows = np.arange(touching[0], end + 1)
    d_hat, f_hat = delta[rows] / delta0, force[rows] / (k_g * delta0)
    fit = d_hat >= a.start
    if fit.sum() < 20:
        fail(f"only {fit.sum()} probe rows at delta^ >= {a.start}")
    slope, icept = np.polyfit(d_hat[fit], f_hat[fit], 1)
    resid = f_hat[fit] - (slope * d_hat[fit] + icept)
    slope_all = np.polyfit(d_hat, f_hat, 1)[0]
    eps = col["g0.eps0"][rows]

    t_peak = col["t"][end]
    t_frame, walls = peak_overlaps(a.out, t_peak)
    d_frame = np.interp(t_frame, col["t"], delta)
    ov_ind, fn_ind = walls[2]
    ov_sup = 0.5 * (walls[0][0] + walls[1][0])
    k_sup = sum(1.5 * f / o for o, f in (walls[0], walls[1]))
    periods = {"modal": 2 * math.pi * math.sqrt(m_modal / k_g),
               "rigid on the supports at the peak": 2 * math.pi * math.sqrt(mass / k_sup)}

    lines = [
        f"bending3pt: K_g = {k_g:.6g} (KMAT), M = {m_modal:.6g} (MMAT), delta0 = {delta0:.5f} "
        f"(first contact at travel {travel[touching[0]]:.2e})",
        "periods: " + ", ".join(f"{k} {v:.3g}" for k, v in periods.items())
        + f"; loading time {t_peak - col['t'][touching[0]]:.0f}",
        f"slope of F^ against delta^ over delta^ >= {a.start:g}: {slope:.5f} (limit 1 +- "
        f"{a.tol:g}), intercept {icept:+.5f}, rms residual {np.sqrt(np.mean(resid**2)):.2e}; "
        f"over all the loading {slope_all:.5f}",
        f"end of the loading: fitted F^(1) = {slope + icept:.5f}, mean F^ over delta^ >= 0.99 "
        f"{f_hat[d_hat >= 0.99].mean():.5f}; eps = {eps[-1]:.5f} at delta = {delta0:.5f} "
        f"(eps - delta = {eps[-1] - delta0:+.5f})",
        f"contact compliance at t = {t_frame:.0f} (delta = {d_frame:.4f}): indenter overlap "
        f"{ov_ind:.5f} at fn {fn_ind:.3f}, supports {ov_sup:.5f}; together "
        f"{(ov_ind + ov_sup) / d_frame * 100:.3f} % of delta",
        f"energy balance error over delta^ >= {a.start:g}: at most "
        f"{np.abs(col['balance_error'][rows][fit]).max():.3g}",
    ]
    with open(os.path.join(a.out, "bending.tsv"), "w") as f:
        f.write("delta_hat\tF_hat\tdelta\teps\n")
        for k in range(rows.size):
            f.write(f"{d_hat[k]:.8g}\t{f_hat[k]:.8g}\t{delta[rows[k]]:.8g}\t{eps[k]:.8g}\n")
    ok = abs(slope - 1.0) <= a.tol
    lines.append("verdict: " + ("ok" if ok else "FAIL"))
    with open(os.path.join(a.out, "check.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(f"{PROG}: {l}" for l in lines))
    if not ok:
        fail(f"slope of F^ against delta^ is {slope:.5f}, not within {a.tol:g} of 1")


if __name__ == "__main__":
    main()
