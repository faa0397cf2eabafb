#!/usr/bin/python3
"""Check cubic27 (Henzel & Karapiperis §4.2, Fig. 6, App. C): 27 spheres with the cubic
compaction mode in a 3x3x3 cubic packing, six walls moving inwards by u_w. Appendix C:
the total force of the six walls is F_w(u_w) = 9 F_int(u_w / 3), F_int the force table the
ETAB interpolates. Checked: |F_w - 9 F_int(u/3)| <= 3 % of 9 F_int(u/3) for u >= u_max/4,
<= 3 % of 9 F_int(u_max/3) below, with u the wall travel from the just-touching packing
(make_scene.py starts it with every contact closed; checked here: the walls must feel the
packing within 0.1 g of travel, g = R - max(node coordinate)). Writes OUT/cubic.tsv and
OUT/check.txt, prints the numbers; exits 1 with a one-line reason when the tolerance is
missed.

usage: check_cubic.py OUTDIR BUNDLE.json TABLE.tsv --radius R [--tol 0.03]"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "compaction1"))
import henzel  # noqa: E402

PROG = "check_cubic"
GRAINS = 27


def peak_contacts(out, t_peak):
    """Mean overlap and normal force of wall and of sphere-sphere contacts in the last
    frame at or before t_peak."""
    t, c = henzel.contacts_at(out, t_peak, PROG)
    wall, pair = c["j"] < 0, c["j"] >= 0
    if not wall.any() or not pair.any():
        henzel.fail(PROG, f"frame at t = {t}: {int(wall.sum())} wall and {int(pair.sum())} "
                    "sphere-sphere contacts")
    return (t, c["overlap"][wall].mean(), c["overlap"][pair].mean(), c["fn"][pair].mean(),
            int(wall.sum()), int(pair.sum()))


def main():
    a, col, facts, table, force, travel, spread = henzel.check_inputs(__doc__)
    missing = [g for g in range(GRAINS) if f"g{g}.eps0" not in col]
    if missing:
        henzel.fail(PROG, f"probes lack the modal amplitude of grains {missing}")
    eps_all = np.array([col[f"g{g}.eps0"] for g in range(GRAINS)])

    end = int(np.argmax(travel >= travel.max() - 1e-12))     # the ramp's end
    gap = a.radius - min(facts["node_max"])
    first = travel[np.argmax(force > 0.0)]
    if first > 0.1 * gap:
        henzel.fail(PROG, f"the walls first feel the packing at travel {first:.5f}: it does not "
                    f"start touching (gap g = {gap:.5f}; scene from make_scene.py?)")
    u = travel
    load = np.arange(end + 1)
    load = load[u[load] > 0.0]
    if load.size < 20:
        henzel.fail(PROG, f"only {load.size} probe rows during the loading")
    u_l, f_l = u[load], force[load]
    e_ref = np.minimum(u_l / 3.0, table.x[-1])
    ref = 9.0 * table(e_ref)
    u_max = u_l.max()
    f_max = 9.0 * table(min(u_max / 3.0, table.x[-1]))
    worst_high, worst_low, bad = henzel.tolerance_errors(u_l, f_l, ref, u_max, f_max, a.tol)
    eps_mean = eps_all[:, load].mean(axis=0)
    eps_min, eps_max = eps_all[:, load].min(axis=0), eps_all[:, load].max(axis=0)
    upper = load[u_l >= 0.25 * u_max]

    t_peak = col["t"][load[-1]]
    t_frame, ov_wall, ov_pair, fn_pair, n_wall, n_pair = peak_contacts(a.out, t_peak)
    u_frame = np.interp(t_frame, col["t"], u)
    periods = {
        "modal at eps=0": 2 * math.pi * math.sqrt(facts["M"] / table.slope(0)),
        "modal at eps_max": 2 * math.pi * math.sqrt(facts["M"] / table.slope(len(table.x) - 1)),
        # the centre sphere between two neighbours, Hertz tangent 1.5 f / overlap each
        "rigid on the contacts at the peak":
            2 * math.pi * math.sqrt(facts["mass"] / (3.0 * fn_pair / ov_pair)),
    }
    lines = [
        f"cubic27: {GRAINS} spheres R = {a.radius:g} in a 3x3x3 cubic packing, six walls",
        f"packing just touching at the nodes (g = R - node extent = {gap:.5f}); first wall "
        f"force at travel {first:.2e}",
        f"loading: {load.size} probe rows, u up to {u_max:.5f}, t = "
        f"{col['t'][load[0]]:.1f} .. {t_peak:.1f}",
        "periods: " + ", ".join(f"{k} {v:.3g}" for k, v in periods.items())
        + f"; loading time {t_peak - col['t'][load[0]]:.0f}",
        f"peak: F_w = {f_l[-1]:.1f}, 9 F_int(u/3) = {ref[-1]:.1f} "
        f"({(f_l[-1] / ref[-1] - 1) * 100:+.2f} %); mean eps = {eps_mean[-1]:.5f} at u/3 = "
        f"{u_l[-1] / 3:.5f} (ratio {eps_mean[-1] * 3 / u_l[-1]:.4f}), eps over the 27 grains "
        f"{eps_min[-1]:.5f} .. {eps_max[-1]:.5f}",
        f"contact compliance at t = {t_frame:.1f}: overlaps wall {ov_wall:.5f} ({n_wall} "
        f"contacts), sphere-sphere {ov_pair:.5f} ({n_pair}); per half chain "
        f"{(ov_wall + ov_pair) / u_frame * 100:.2f} % of u = {u_frame:.5f}",
        f"worst |F_w - 9 F_int(u/3)| / 9 F_int(u/3) for u >= u_max/4: {worst_high * 100:.2f} % "
        f"(limit {a.tol * 100:g} %); below, / 9 F_int(u_max/3): {worst_low * 100:.2f} %",
        f"symmetry: wall travels within {spread:.2e}; for u >= u_max/4: energy balance error at "
        f"most {np.abs(col['balance_error'][upper]).max():.3g}, modal kinetic / elastic energy "
        f"at most {(col['modal_kinetic'][upper] / col['modal_elastic'][upper]).max():.2e}",
    ]
    with open(os.path.join(a.out, "cubic.tsv"), "w") as f:
        f.write("u\tF_w\tF_ref\teps_mean\teps_min\teps_max\n")
        for k in range(load.size):
            f.write(f"{u_l[k]:.8g}\t{f_l[k]:.8g}\t{ref[k]:.8g}\t{eps_mean[k]:.8g}\t"
                    f"{eps_min[k]:.8g}\t{eps_max[k]:.8g}\n")
    lines.append("verdict: " + ("ok" if bad is None else "FAIL"))
    with open(os.path.join(a.out, "check.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(f"{PROG}: {l}" for l in lines))
    if bad is not None:
        where = "9 F_int(u/3)" if u_l[bad] >= 0.25 * u_max else "9 F_int(u_max/3)"
        henzel.fail(PROG, f"at u = {u_l[bad]:.5f} F_w = {f_l[bad]:.1f} against 9 F_int(u/3) = "
                    f"{ref[bad]:.1f}: off by more than {a.tol * 100:g} % of {where}")


if __name__ == "__main__":
    main()
