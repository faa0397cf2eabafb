#!/usr/bin/python3
"""Combine the closed form at the four-step states with contact-path's Jager and Mindlin
results. Writes md17.tsv and prints the worst relative errors. With --check, exits 1 if a
Jager point misses the closed form by more than --tol.

The relative error of a state is |T_model - T_cf| / max(|T_cf|, mu N): the tangential force
vector's distance from the closed form (T_cf, 0), over the larger of |T_cf| and mu N at that
state. At T_cf = 0 (the first and the last state) the scale is mu N.

usage: md17_compare.py --mu MU STATES.tsv JAGER.tsv MINDLIN.tsv OUT.tsv [--check] [--tol 1e-9]
                      [--fine CURVE.tsv JAGER_FINE.tsv MINDLIN_FINE.tsv]
With --fine, the laws driven along the ~400-state fine path are compared with the curve too
(and --check also fails if Jager misses there).
"""
import argparse
import math
import sys


def table(path):
    """Rows of floats (or strings where not numeric) of a TSV; '#' lines skipped. The last
    '#' line before the data names the columns."""
    names, rows = None, []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                names = line[1:].split()
                continue
            if not line.strip():
                continue
            cells = line.rstrip("\n").split("\t")
            row = []
            for c in cells:
                try:
                    row.append(float(c))
                except ValueError:
                    row.append(c)
            rows.append(row)
    if names is None:
        sys.exit("md17_compare: error: %s: no '#' header line" % path)
    return [dict(zip(names, r)) for r in rows]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mu", type=float, required=True)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--tol", type=float, default=1e-9)
    ap.add_argument("--quiet", action="store_true", help="write OUT.tsv only, print nothing")
    ap.add_argument("--fine", nargs=3, metavar=("CURVE", "JAGER", "MINDLIN"),
                    help="also compare the laws driven along the fine path")
    ap.add_argument("states")
    ap.add_argument("jager")
    ap.add_argument("mindlin")
    ap.add_argument("out")
    a = ap.parse_args()

    cf, jg, md = table(a.states), table(a.jager), table(a.mindlin)
    for name, t in (("jager", jg), ("mindlin", md)):
        if len(t) != len(cf):
            sys.exit("md17_compare: error: %s has %d states, the closed form %d"
                     % (name, len(t), len(cf)))
        for i, (r, c) in enumerate(zip(t, cf), 1):
            # The path contact-path echoes must be the one the closed form wrote.
            if r["delta"] != c["d"] or r["sx"] != c["s"] or r["sy"] != 0:
                sys.exit("md17_compare: error: %s state %d is (%r, %r, %r), the closed form's "
                         "(%r, %r, 0)" % (name, i, r["delta"], r["sx"], r["sy"], c["d"], c["s"]))

    mu = a.mu
    worst = {"jager": (-1.0, 0), "mindlin": (-1.0, 0)}
    worst_n = 0.0
    lines = []
    for i, (c, j, m) in enumerate(zip(cf, jg, md), 1):
        N, T = c["N"], c["T_cf"]
        scale = max(abs(T), mu * N)
        errs = {}
        for name, r in (("jager", j), ("mindlin", m)):
            e = math.hypot(r["Tx"] - T, r["Ty"]) / scale
            errs[name] = e
            worst[name] = max(worst[name], (e, i))
            worst_n = max(worst_n, abs(r["N"] - N) / N)
        muN0 = mu * cf[0]["N"]
        lines.append((i, c["stage"], c["N_over_N0"], c["d"], c["s"], c["s_over_sref"], T,
                      j["Tx"], m["Tx"], errs["jager"], errs["mindlin"], T / muN0,
                      j["Tx"] / muN0, m["Tx"] / muN0, int(j["history_length"])))

    with open(a.out, "w") as f:
        f.write("# MD sec.17 in four large steps: closed form vs contact-path. rel_err = "
                "|T - T_cf| / max(|T_cf|, mu N) at the state (T as a vector; T_cf along x)\n")
        f.write("# state\tstage\tN_over_N0\td\ts\ts_over_sref\tT_cf\tT_jager\tT_mindlin\t"
                "rel_err_jager\trel_err_mindlin\tTcf_over_muN0\tTjager_over_muN0\t"
                "Tmindlin_over_muN0\tjager_history_length\n")
        for r in lines:
            f.write("%d\t%s\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.3e\t%.3e\t"
                    "%.17g\t%.17g\t%.17g\t%d\n" % r)

    say = (lambda *x, **k: None) if a.quiet else print
    say("md17: worst relative error of T, |T - T_cf|/max(|T_cf|, mu N), over the %d states:"
          % len(cf))
    say("md17:   jager   (exact history law) %.3e at state %d" % worst["jager"])
    say("md17:   mindlin (incremental law)   %.3e at state %d" % worst["mindlin"])
    say("md17:   N vs Hertz, both laws: worst relative %.1e" % worst_n)
    fine_bad = None
    if a.fine:
        curve, jf, mf = (table(x) for x in a.fine)
        if not len(curve) == len(jf) == len(mf):
            sys.exit("md17_compare: error: the fine path has %d states, the results %d and %d"
                     % (len(curve), len(jf), len(mf)))
        wf = {}
        for name, t in (("jager", jf), ("mindlin", mf)):
            w = (-1.0, 0)
            for i, (c, r) in enumerate(zip(curve, t), 1):
                scale = max(abs(c["T"]), mu * c["N"])
                if scale > 0:
                    w = max(w, (math.hypot(r["Tx"] - c["T"], r["Ty"]) / scale, i))
            wf[name] = w
        say("md17: along the %d-state fine path (one law step per curve point):" % len(curve))
        say("md17:   jager   %.3e at state %d" % wf["jager"])
        say("md17:   mindlin %.3e at state %d (the incremental law converges to its own curve,"
              " not to Mindlin-Deresiewicz)" % wf["mindlin"])
        fine_bad = wf["jager"] if not wf["jager"][0] <= a.tol else None
    sys.stdout.flush()
    if a.check:
        bad = [(r[0], r[9]) for r in lines if not r[9] <= a.tol]
        if fine_bad:
            print("md17: FAIL: jager on the fine path misses the closed form by %.3e relative at "
                  "state %d (tolerance %.0e)" % (fine_bad[0], fine_bad[1], a.tol), file=sys.stderr)
        if bad or fine_bad or not worst_n <= 1e-12:
            for i, e in bad:
                print("md17: FAIL: jager state %d misses the closed form by %.3e relative "
                      "(tolerance %.0e)" % (i, e, a.tol), file=sys.stderr)
            if not worst_n <= 1e-12:
                print("md17: FAIL: normal force off Hertz by %.1e relative" % worst_n,
                      file=sys.stderr)
            sys.exit(1)
        print("md17: check passed: every Jager state within %.0e of the closed form" % a.tol)


if __name__ == "__main__":
    main()
