#!/usr/bin/python3
"""Modulus reduction and damping of the cyclic plane-strain runs (pipelines/cyclic/Makefile).

usage: summary.py --start N --amplitudes A... --periods P... --cycles C [--last K]
                  [--sigma S] [-o summary.tsv] [--history history.tsv] [--loops loops.tsv]
                  [--check] RUN_DIR...

Each RUN_DIR has probes.tsv (every row of the cyclic stage from step N on, at a multiple of the
probe interval that divides every quarter period) and RUN_DIR.*.log (demrun's reports, for the
time). The drive (cell.z.cyclic) starts at step N: level i (amplitude A_i, P_i steps a cycle)
runs C cycles, z first towards compression.

Definitions (compression positive, as the probes):
  tau = (szz - sxx)/2 and gamma = eps_zz - eps_xx, the shear stress and engineering shear
  strain of the x-z plane (the plane-strain analogue of simple shear; with y at zero strain
  and the mean stress held, gamma is about 2 eps_zz). For an isotropic elastic solid
  tau = G gamma exactly, whatever sxx does, so G below is the shear modulus.
  A loop runs from the +A turn of one cycle to that of the next (turn to turn, so the
  virgin first quarter of a level is not in it): C - 1 loops a level. Per loop:
    G   = (tau(+A) - tau(-A)) / (gamma(+A) - gamma(-A))     secant shear modulus
    dW  = -(signed area of the polygon (gamma, tau), closed by its chord)   loop area
    D   = dW / (4 pi W),  W = (tau(+A) - tau(-A)) (gamma(+A) - gamma(-A)) / 8
    G_turn = the secant from each turn over the first quarter of its branch (the two turns
          averaged): for an elastic loop it is G, for slipping contacts (Masing: the branch
          starts at the small-strain tangent) it is larger. (A tangent over the first tenth
          was tried: at 1e-6 its few samples carry the stress noise, 16 % off.)
    closure = tau and gamma at the loop's end less at its start, over the loop's range
  A level's G and D are the mean over its last K loops; G/Gmax divides by the smallest
  amplitude's G of the same run. The chord closing the polygon removes a drift of the loop
  (creep, ratcheting) from its area: a loop that does not close is measured as if its end
  were joined to its start.

--check (the exact law's run, named jager-0): at the smallest amplitude D < --d-small,
|G / G_turn - 1| < --g-tol and every counted loop closed within --close-tol; G/Gmax falling and D
rising from one amplitude to the next. Exit 1 with every failed check on stderr."""
import argparse
import csv
import glob
import math
import os
import re
import sys

BYTES_PER_CELL = 29  # ldem/contact/history.h: base and slope (3 doubles), a 32-bit link, a flag


def fail(msg):
    sys.stderr.write("summary.py: error: %s\n" % msg)
    sys.exit(2)


def read_probes(path):
    try:
        with open(path) as f:
            if not f.readline().startswith("#"):
                fail("%s:1: expected the '# demrun probes' line" % path)
            rows = list(csv.DictReader(f, delimiter="\t"))
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    if not rows:
        fail("%s: no rows" % path)
    by_step = {}
    for r in rows:
        by_step[int(r["step"])] = {k: float(v) for k, v in r.items()}
    return by_step


def read_times(run):
    """Seconds and steps over the demrun logs of the run's stages (RUN.K-STAGE.log)."""
    secs = steps = 0.0
    for p in sorted(glob.glob(glob.escape(os.path.normpath(run)) + ".[0-9]-*.log")):
        m = re.search(r"(\d+) steps in ([0-9.]+) s", open(p).read())
        if m:
            steps += int(m.group(1))
            secs += float(m.group(2))
    return steps, secs


def loop_of(rows, every, first, period, sigma):
    """One turn-to-turn loop from step `first` (a +A turn) over `period` steps."""
    steps = list(range(first, first + period + 1, every))
    missing = [s for s in steps if s not in rows]
    if missing:
        fail("no probe row at step %d (the probes must cover the cyclic stage every %d steps)"
             % (missing[0], every))
    rs = [rows[s] for s in steps]
    tau = [(r["szz"] - r["sxx"]) / 2 for r in rs]
    gam = [r["eps_zz"] - r["eps_xx"] for r in rs]
    half = len(steps) // 2  # the -A turn
    dtau, dgam = tau[0] - tau[half], gam[0] - gam[half]
    area = 0.0
    n = len(tau)
    for k in range(n):
        j = (k + 1) % n
        area += gam[k] * tau[j] - gam[j] * tau[k]
    dw = -0.5 * area
    w = dtau * dgam / 8
    q = max(1, round(0.25 * half))
    g_turn = 0.5 * ((tau[0] - tau[q]) / (gam[0] - gam[q]) +
                    (tau[half] - tau[half + q]) / (gam[half] - gam[half + q]))
    p = [r["p"] for r in rs]
    return {
        "G": dtau / dgam, "D": dw / (4 * math.pi * w), "dW": dw, "G_turn": g_turn,
        "tau_a": dtau / 2, "gamma_a": dgam / 2,
        "close_tau": (tau[-1] - tau[0]) / dtau, "close_gamma": (gam[-1] - gam[0]) / dgam,
        "p_dev": max(abs(x / sigma - 1) for x in p) if sigma else float("nan"),
        "deps_vol": rs[-1]["eps_vol"] - rs[0]["eps_vol"],
        "inertial": max(r["inertial"] for r in rs),
        "tau": tau, "gamma": gam,
    }


def analyse(run, a):
    rows = read_probes(os.path.join(run, "probes.tsv"))
    name = os.path.basename(os.path.normpath(run))
    levels, history = [], []
    s0 = a.start
    cycle = 0
    r0 = rows.get(s0)
    if r0 is None:
        fail("%s: no probe row at the drive's start, step %d" % (run, s0))
    history.append((name, 0, 0.0, s0, r0["mean_history"], r0["mean_history"],
                    r0["max_history"], BYTES_PER_CELL * r0["mean_history"],
                    r0["history_bytes"] / max(1.0, r0["contacts"]), r0["contacts"]))
    for i, (amp, period) in enumerate(zip(a.amplitudes, a.periods)):
        if period % (4 * a.every):
            fail("period %d steps is not a multiple of 4 x the probe interval %d" %
                 (period, a.every))
        loops = [loop_of(rows, a.every, s0 + c * period + period // 4, period, a.sigma)
                 for c in range(a.cycles - 1)]
        used = loops[-a.last:]
        level = {"run": name, "level": i, "amplitude": amp, "period_steps": period,
                 "loops": len(used)}
        for k in ("G", "D", "G_turn", "tau_a", "gamma_a", "dW"):
            level[k] = sum(x[k] for x in used) / len(used)
        level["D_first"] = loops[0]["D"]
        level["G_first"] = loops[0]["G"]
        level["close_tau"] = max(abs(x["close_tau"]) for x in used)
        level["close_gamma"] = max(abs(x["close_gamma"]) for x in used)
        level["p_dev"] = max(x["p_dev"] for x in loops)
        level["deps_vol_per_cycle"] = sum(x["deps_vol"] for x in used) / len(used)
        level["inertial"] = max(x["inertial"] for x in loops)
        level["last_loop"] = used[-1]
        for c in range(a.cycles):
            cycle += 1
            lo, hi = s0 + c * period, s0 + (c + 1) * period
            span = [rows[s] for s in range(lo, hi + 1, a.every) if s in rows]
            end = rows[hi]
            history.append((name, cycle, amp, hi, end["mean_history"],
                            max(r["mean_history"] for r in span),
                            max(r["max_history"] for r in span),
                            BYTES_PER_CELL * end["mean_history"],
                            end["history_bytes"] / max(1.0, end["contacts"]), end["contacts"]))
        level["mean_history"] = sum(h[4] for h in history[-a.cycles:]) / a.cycles
        level["max_history"] = max(h[6] for h in history[-a.cycles:])
        level["pool_bytes_per_contact"] = history[-1][8]
        levels.append(level)
        s0 += a.cycles * period
    for lv in levels:
        lv["G_Gmax"] = lv["G"] / levels[0]["G"]
    steps, secs = read_times(run)
    return name, levels, history, steps, secs


COLS = ["run", "level", "amplitude", "period_steps", "gamma_a", "tau_a", "G", "G_Gmax", "G_turn",
        "D", "G_first", "D_first", "loops", "close_tau", "close_gamma", "p_dev",
        "deps_vol_per_cycle", "inertial", "mean_history", "max_history",
        "pool_bytes_per_contact"]
HCOLS = ["run", "cycle", "amplitude", "step", "mean_history", "peak_mean_history",
         "max_history", "live_bytes_per_contact", "pool_bytes_per_contact", "contacts"]


def write_tsv(path, cols, rows):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\t".join(cols) + "\n")
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")
    os.replace(tmp, path)


def check(levels, a):
    """The exact law's checks; returns the failures."""
    bad = []
    small = levels[0]
    if not small["D"] < a.d_small:
        bad.append("smallest amplitude %g: damping %.4g, expected below %g (elastic loops)" %
                   (small["amplitude"], small["D"], a.d_small))
    if not abs(small["G"] / small["G_turn"] - 1) < a.g_tol:
        bad.append("smallest amplitude %g: secant G %.4g MPa is %.4g x the secant over the first "
                   "quarter of a branch, %.4g MPa, expected within %g of 1 (linear: G = Gmax)" %
                   (small["amplitude"], small["G"] / 1e6, small["G"] / small["G_turn"],
                    small["G_turn"] / 1e6, a.g_tol))
    if not (small["close_tau"] < a.close_tol and small["close_gamma"] < a.close_tol):
        bad.append("smallest amplitude %g: loops not closed: tau %.3g, gamma %.3g of the loop's "
                   "range at worst (limit %g)" % (small["amplitude"], small["close_tau"],
                                                 small["close_gamma"], a.close_tol))
    for lo, hi in zip(levels, levels[1:]):
        if not hi["G_Gmax"] < lo["G_Gmax"]:
            bad.append("G/Gmax does not fall from amplitude %g (%.4g) to %g (%.4g)" %
                       (lo["amplitude"], lo["G_Gmax"], hi["amplitude"], hi["G_Gmax"]))
        if not hi["D"] > lo["D"]:
            bad.append("damping does not rise from amplitude %g (%.4g) to %g (%.4g)" %
                       (lo["amplitude"], lo["D"], hi["amplitude"], hi["D"]))
    for lv in levels:
        if not all(math.isfinite(lv[k]) for k in ("G", "D", "G_turn")):
            bad.append("amplitude %g: G %g, D %g, G_turn %g not finite" %
                       (lv["amplitude"], lv["G"], lv["D"], lv["G_turn"]))
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--start", type=int, required=True)
    ap.add_argument("--amplitudes", type=float, nargs="+", required=True)
    ap.add_argument("--periods", type=int, nargs="+", required=True, help="steps a cycle")
    ap.add_argument("--cycles", type=int, required=True)
    ap.add_argument("--every", type=int, required=True, help="probe interval (steps)")
    ap.add_argument("--last", type=int, default=5, help="loops a level's numbers average")
    ap.add_argument("--sigma", type=float, default=0.0, help="the mean stress held")
    ap.add_argument("-o", dest="out")
    ap.add_argument("--history")
    ap.add_argument("--loops", help="TSV of each level's last loop, normalized")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--d-small", type=float, default=0.01)
    ap.add_argument("--g-tol", type=float, default=0.05)
    ap.add_argument("--close-tol", type=float, default=0.05)
    a = ap.parse_args()
    if len(a.periods) == 1:
        a.periods *= len(a.amplitudes)
    if len(a.periods) != len(a.amplitudes):
        fail("%d periods for %d amplitudes" % (len(a.periods), len(a.amplitudes)))
    if a.cycles < 2:
        fail("a turn-to-turn loop needs 2 cycles a level or more")
    a.last = max(1, min(a.last, a.cycles - 1))
    results = [analyse(r, a) for r in a.runs]

    if a.out:
        write_tsv(a.out, COLS, [[lv[c] for c in COLS] for _, levels, _, _, _ in results
                                for lv in levels])
    if a.history:
        write_tsv(a.history, HCOLS, [h for _, _, hist, _, _ in results for h in hist])
    if a.loops:
        rows = []
        for name, levels, _, _, _ in results:
            for lv in levels:
                lp = lv["last_loop"]
                g0, t0 = sum(lp["gamma"]) / len(lp["gamma"]), sum(lp["tau"]) / len(lp["tau"])
                for g, t in zip(lp["gamma"], lp["tau"]):
                    rows.append((name, lv["amplitude"], (g - g0) / lp["gamma_a"],
                                 (t - t0) / lp["tau_a"]))
                rows.append(("", "", "", ""))  # a blank line between loops (gnuplot)
        write_tsv(a.loops, ["run", "amplitude", "gamma_norm", "tau_norm"], rows)

    print("Drained cyclic plane strain, x holding p = %g Pa, y at zero strain, z cycled; per "
          "amplitude the mean of the last %d turn-to-turn loops" % (a.sigma, a.last))
    print("%-10s %8s %9s %9s %8s %7s %8s %7s %7s %8s %9s %8s %6s %6s %8s" % (
        "run", "A_zz", "gamma_a", "G MPa", "G/Gmax", "G/Gturn", "D", "D(1st)", "close", "p dev",
        "deps_v/c", "I max", "hist", "max h", "pool B/c"))
    for name, levels, _, _, _ in results:
        for lv in levels:
            print("%-10s %8.0e %9.3g %9.4g %8.4f %7.4f %8.4f %7.4f %7.2g %8.2g %9.2g %8.2g "
                  "%6.1f %6d %8.0f" % (
                      name, lv["amplitude"], lv["gamma_a"], lv["G"] / 1e6, lv["G_Gmax"],
                      lv["G"] / lv["G_turn"], lv["D"], lv["D_first"],
                      max(lv["close_tau"], lv["close_gamma"]), lv["p_dev"],
                      lv["deps_vol_per_cycle"], lv["inertial"], lv["mean_history"],
                      lv["max_history"], lv["pool_bytes_per_contact"]))
    total = 0.0
    for name, _, hist, steps, secs in results:
        total += secs
        print("%-10s history after the rest / each level's last cycle: mean %s, longest %s "
              "cells; pool %s B/contact; %d steps in %.0f s (%.2f ms/step)" % (
                  name, " ".join("%.1f" % h[4] for h in hist[::a.cycles]),
                  " ".join("%d" % h[6] for h in hist[::a.cycles]),
                  " ".join("%.0f" % h[8] for h in hist[::a.cycles]),
                  steps, secs, 1e3 * secs / max(1, steps)))
    print("demrun time, all runs: %.0f s (%.1f min)" % (total, total / 60))
    if a.check:
        by = {name: levels for name, levels, _, _, _ in results}
        if "jager-0" not in by:
            fail("--check needs the exact law's run, jager-0")
        bad = check(by["jager-0"], a)
        for b in bad:
            sys.stderr.write("cyclic: CHECK FAILED (exact Jager): %s\n" % b)
        if bad:
            sys.exit(1)
        print("cyclic: checks passed (exact Jager): smallest amplitude D %.4f < %g, G/Gturn %.4f, "
              "loops closed within %.2g; G/Gmax falling, D rising over %d amplitudes" % (
                  by["jager-0"][0]["D"], a.d_small,
                  by["jager-0"][0]["G"] / by["jager-0"][0]["G_turn"],
                  max(by["jager-0"][0]["close_tau"], by["jager-0"][0]["close_gamma"]),
                  len(by["jager-0"])))


if __name__ == "__main__":
    main()
