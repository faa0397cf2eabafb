#!/usr/bin/python3
"""Check compaction1 (Henzel & Karapiperis §4.2, Fig. 5): the total force of the six walls
against their travel u matches the force table the sphere's ETAB interpolates,
|F_walls - F_table(u)| <= 3 % of F_table(u) for u >= u_max/4 and <= 3 % of F_table(u_max)
below. u is each wall's travel from first contact: the surface nodes nearest a pole lie
R - max(node coordinate) inside the tangent plane, so a wall at R meets the sphere after
that gap. Writes OUT/compaction.tsv (the plot's data) and OUT/check.txt, prints the numbers;
exits 1 with a one-line reason when the tolerance is missed.

usage: check_compaction.py OUTDIR BUNDLE.json TABLE.tsv --radius R [--tol 0.03]"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import henzel  # noqa: E402

PROG = "check_compaction"


def loading_rows(col, travel):
    """Rows up to the end of the ramp (the first row at the largest travel)."""
    end = int(np.argmax(travel >= travel.max() - 1e-12))
    return np.arange(end + 1)


def peak_contacts(out, t_peak):
    """Mean normal force and overlap of the wall contacts in the last frame at or before
    t_peak (frames carry per-contact overlaps; probes do not)."""
    t, c = henzel.contacts_at(out, t_peak, PROG)
    walls = c["j"] < 0
    return t, c["fn"][walls].mean(), c["overlap"][walls].mean(), int(walls.sum())


def main():
    a, col, facts, table, force, travel, spread = henzel.check_inputs(__doc__)
    rows = loading_rows(col, travel)

    gap = a.radius - min(facts["node_max"])
    first = travel[np.argmax(force > 0.0)]
    u = travel - gap
    load = rows[u[rows] > 0.0]
    if load.size < 20:
        henzel.fail(PROG, f"only {load.size} probe rows after first contact")
    u_l, f_l = u[load], force[load]
    ref = table(np.minimum(u_l, table.x[-1]))
    u_max, f_max = u_l.max(), table(min(u_l.max(), table.x[-1]))
    worst_high, worst_low, bad = henzel.tolerance_errors(u_l, f_l, ref, u_max, f_max, a.tol)
    eps = col["g0.eps0"][load]
    q = col["g0.Q0"][load]
    end = load[-1]
    upper = load[u_l >= 0.25 * u_max]

    t_peak = col["t"][end]
    t_frame, fn, overlap, ncontacts = peak_contacts(a.out, t_peak)
    u_frame = np.interp(t_frame, col["t"], u)
    m_modal, mass = facts["M"], facts["mass"]
    periods = {
        "modal at eps=0": 2 * math.pi * math.sqrt(m_modal / table.slope(0)),
        "modal at eps_max": 2 * math.pi * math.sqrt(m_modal / table.slope(len(table.x) - 1)),
        # a rigid translation between two opposite walls, Hertz tangent 1.5 f / overlap each
        "rigid on the contacts at the peak": 2 * math.pi * math.sqrt(mass / (3.0 * fn / overlap)),
    }
    t_load = t_peak - col["t"][load[0]]

    lines = [
        f"compaction1: sphere R = {a.radius:g}, six walls, u from first contact",
        f"gap to first contact: R - node extent = {gap:.5f} (measured first wall force at "
        f"travel {first:.5f})",
        f"loading: {load.size} probe rows, u up to {u_max:.5f}, t = {col['t'][load[0]]:.1f} .. "
        f"{t_peak:.1f}",
        "periods: " + ", ".join(f"{k} {v:.3g}" for k, v in periods.items())
        + f"; loading time {t_load:.0f}",
        f"peak: F_walls = {f_l[-1]:.2f}, F_table(u) = {ref[-1]:.2f} "
        f"({(f_l[-1] / ref[-1] - 1) * 100:+.2f} %); eps = {eps[-1]:.5f} at u = {u_l[-1]:.5f} "
        f"(eps/u = {eps[-1] / u_l[-1]:.4f}); Q/F_walls = {q[-1] / f_l[-1]:.4f} (the mode's "
        f"inward displacement at the contacts)",
        f"contact compliance at t = {t_frame:.1f}: wall overlap {overlap:.5f} at fn {fn:.2f} "
        f"({ncontacts} wall contacts) = {overlap / u_frame * 100:.2f} % of u = {u_frame:.5f}",
        f"worst |F_walls - F_table| / F_table(u) for u >= u_max/4: {worst_high * 100:.2f} % "
        f"(limit {a.tol * 100:g} %); below, / F_table(u_max): {worst_low * 100:.2f} %",
        f"symmetry: wall travels within {spread:.2e}; for u >= u_max/4: energy balance "
        f"error at most {np.abs(col['balance_error'][upper]).max():.3g}, modal kinetic / "
        f"elastic energy at most {(col['modal_kinetic'][upper] / col['modal_elastic'][upper]).max():.2e}",
    ]
    with open(os.path.join(a.out, "compaction.tsv"), "w") as f:
        f.write("u\tF_walls\tF_table\teps\tQ\n")
        for k in range(load.size):
            f.write(f"{u_l[k]:.8g}\t{f_l[k]:.8g}\t{ref[k]:.8g}\t{eps[k]:.8g}\t{q[k]:.8g}\n")
    verdict = "ok" if bad is None else "FAIL"
    lines.append(f"verdict: {verdict}")
    with open(os.path.join(a.out, "check.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(f"{PROG}: {l}" for l in lines))
    if bad is not None:
        where = "F_table(u)" if u_l[bad] >= 0.25 * u_max else "F_table(u_max)"
        henzel.fail(PROG, f"at u = {u_l[bad]:.5f} F_walls = {f_l[bad]:.2f} against F_table = "
                    f"{ref[bad]:.2f}: off by more than {a.tol * 100:g} % of {where}")


if __name__ == "__main__":
    main()
