#!/usr/bin/python3
"""Summarize the biaxial runs (pipelines/biaxial/Makefile): wall time of the compression
stage, time inside the contacts' geometry and laws, mean and peak Jager history length per
contact, history bytes per contact, and the curves for the plot; Kuhn's Table 1 beside.

usage: summary.py [--settle N] [--sigma S] [-o summary.tsv] RUN_DIR...  (table on stdout)
       summary.py --check MAX_RATIO RUN_DIR...    exit 1 if jager-0 / mindlin > MAX_RATIO
       summary.py --settle N --check-curves PEAK_BY,MIN_PEAK,MIN_DILATION RUN_DIR...
           exit 1 unless every run's stress ratio has reached its peak by PEAK_BY axial
           strain (it is within 3 % of its largest value there: no longer hardening), the
           peak is at least MIN_PEAK, and the sample dilates by at least MIN_DILATION
           (volumetric strain, from the compression's start to its end)

       summary.py --settle N --check-softening PEAK_BY,MIN_FALL RUN_DIR...
           exit 1 unless every run's stress ratio peaks (its largest running mean) by
           PEAK_BY axial strain and ends at least MIN_FALL below that peak (for a run
           continued well past the peak)
       summary.py --settle N --describe RUN_DIR...     the curve's line alone, no logs needed

The curves: the deviator stress ratio R = (szz - sxx) / (szz + sxx) against the axial strain
from the compression's start. The peak is the largest running mean of R over SMOOTH probe
rows (1,000 steps, 0.1 % strain; a single row moves by about 0.008 from the next); the peak
is reached where that mean first comes within PLATEAU of it (97 %); the end is R's mean over
the last END_STRAIN of axial strain (its fall from the peak is reported, not checked: on the
dense sample it is 0.00-0.01 by 4 %, the size of the fluctuations); the dilation is minus
the change in eps_vol (compression positive) over the compression.
"""
import argparse
import csv
import glob
import os
import re
import sys

# Kuhn's Table 1 (Pentium 4, 2008): force time and total time in minutes, mean history length
KUHN = {"jager-0": ("8.2", "26.2", "260"), "jager-0.1": ("", "", "171"),
        "jager-0.2": ("", "", "107"), "mindlin": ("3.4", "17.6", "")}
BYTES_PER_CELL = 29  # ldem/contact/history.h: {z, wx, wy}, a 32-bit link, the merged flag
SMOOTH = 5           # probe rows in the running mean of the stress ratio
PLATEAU = 0.97       # the peak is reached where the running mean comes within 3 % of it
END_STRAIN = 0.0025  # the end of the curve: its last 0.25 % of axial strain


def fail(msg):
    sys.stderr.write("summary.py: error: %s\n" % msg)
    sys.exit(2)


def read_log(path):
    try:
        text = open(path).read()
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    steps = re.search(r"(\d+) steps in ([0-9.]+) s", text)
    law = re.search(r"contact geometry and laws: ([0-9.]+) s", text)
    if not steps or not law:
        fail("%s: no timing lines (did the run finish?)" % path)
    return int(steps.group(1)), float(steps.group(2)), float(law.group(1))


def read_pieces(run):
    """Steps, seconds and contact seconds summed over RUN.biaxial.K.log, K = 1, 2, ..."""
    numbered = ((p.rsplit(".", 2)[-2], p) for p in glob.glob(glob.escape(run) + ".biaxial.*.log"))
    pieces = sorted((int(k), p) for k, p in numbered if k.isdigit())
    if not pieces:
        fail("%s.biaxial.1.log: no such file (run the compression first)" % run)
    if [k for k, _ in pieces] != list(range(1, len(pieces) + 1)):
        fail("%s.biaxial.K.log: pieces %s, expected 1 to %d" % (
            run, ", ".join(str(k) for k, _ in pieces), len(pieces)))
    logs = [read_log(p) for _, p in pieces]
    return (sum(x[0] for x in logs), sum(x[1] for x in logs), sum(x[2] for x in logs),
            [x[1] / x[0] for x in logs])


def read_probes(path):
    try:
        with open(path) as f:
            first = f.readline()
            if not first.startswith("#"):
                fail("%s:1: expected the '# demrun probes' line" % path)
            rows = list(csv.DictReader(f, delimiter="\t"))
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    if not rows:
        fail("%s: no rows" % path)
    return rows


def curve(rows):
    """Peak of the stress ratio (running mean), the ratio at the end, the dilation."""
    e0, v0 = float(rows[0]["eps_zz"]), float(rows[0]["eps_vol"])
    strain = [float(r["eps_zz"]) - e0 for r in rows]
    ratio = [(float(r["szz"]) - float(r["sxx"])) / (float(r["szz"]) + float(r["sxx"]))
             for r in rows]
    if len(rows) < 4 * SMOOTH:
        fail("%d probe rows in the compression: too few for its curve" % len(rows))
    means = [sum(ratio[k:k + SMOOTH]) / SMOOTH for k in range(len(ratio) - SMOOTH + 1)]
    k = max(range(len(means)), key=lambda i: means[i])
    reached = next(i for i in range(len(means)) if means[i] >= PLATEAU * means[k])
    end = [x for e, x in zip(strain, ratio) if e >= strain[-1] - END_STRAIN]
    return {"peak_ratio": means[k], "peak_strain": strain[k + SMOOTH // 2],
            "peak_reached": strain[reached + SMOOTH // 2],
            "end_ratio": sum(end) / len(end), "end_strain": strain[-1],
            "dilation": -(float(rows[-1]["eps_vol"]) - v0)}


def summarize(run, settle, sigma):
    name = os.path.basename(os.path.normpath(run))
    steps, seconds, law, piece_s = read_pieces(os.path.normpath(run))
    rows = [r for r in read_probes(os.path.join(run, "probes.tsv")) if int(r["step"]) > settle]
    hist = [float(r["mean_history"]) for r in rows]
    per_contact = [float(r["history_bytes"]) / max(1, int(r["contacts"])) for r in rows]
    peak = max(range(len(rows)), key=lambda k: hist[k])
    # the lateral stress against its target over the compression (the servo's tracking)
    lateral = [float(r["sxx"]) / sigma - 1 for r in rows] if sigma else [0.0]
    shape = run_curve(run, settle)
    return {
        **shape,
        "run": name, "steps": steps, "pieces": len(piece_s), "piece_s_per_step": piece_s,
        "wall_s": seconds, "ms_per_step": 1e3 * seconds / steps,
        "contact_s": law, "contact_share": law / seconds,
        "mean_history": sum(hist) / len(hist), "peak_history": hist[peak],
        "peak_at_strain": float(rows[peak]["eps_zz"]),
        "live_bytes_per_contact": BYTES_PER_CELL * hist[peak],
        "pool_bytes_per_contact": max(per_contact),
        "contacts": int(rows[-1]["contacts"]),
        "sxx_error_mean": sum(lateral) / len(lateral),
        "sxx_error_worst": max(lateral, key=abs),
    }


def describe(name, c):
    return ("%s: stress ratio peak %.3f (within 3 %% of it from %.2f %% axial strain, largest "
            "at %.2f %%), %.3f at %.2f %% (%.3f below the peak); volumetric strain %+.2f %%" % (
                name, c["peak_ratio"], 100 * c["peak_reached"], 100 * c["peak_strain"],
                c["end_ratio"], 100 * c["end_strain"], c["peak_ratio"] - c["end_ratio"],
                -100 * c["dilation"]))


def run_curve(run, settle):
    return curve([r for r in read_probes(os.path.join(run, "probes.tsv"))
                  if int(r["step"]) >= settle])


def check_softening(runs, settle, spec):
    """A run continued past the peak: the peak comes early and the ratio falls after it."""
    try:
        peak_by, min_fall = (float(x) for x in spec.split(","))
    except ValueError:
        fail("--check-softening: expected PEAK_BY,MIN_FALL, got '%s'" % spec)
    bad = []
    for run in runs:
        name = os.path.basename(os.path.normpath(run))
        c = run_curve(run, settle)
        print(describe(name, c))
        if c["peak_strain"] > peak_by:
            bad.append("%s: the stress ratio is largest at %.2f %% axial strain, after %.2f %%" %
                       (name, 100 * c["peak_strain"], 100 * peak_by))
        if c["peak_ratio"] - c["end_ratio"] < min_fall:
            bad.append("%s: the stress ratio falls %.3f from its peak by %.2f %%, less than %g"
                       % (name, c["peak_ratio"] - c["end_ratio"], 100 * c["end_strain"],
                          min_fall))
    for b in bad:
        print("FAILED: " + b)
    print("peak and softening: %s (largest by %.2f %% axial strain, falling at least %g after "
          "it)" % ("FAILED" if bad else "ok", 100 * peak_by, min_fall))
    sys.exit(1 if bad else 0)


def check_curves(runs, settle, spec):
    """The dense sample's signature, every run alike: an early peak, and dilation."""
    try:
        peak_by, min_peak, min_dilation = (float(x) for x in spec.split(","))
    except ValueError:
        fail("--check-curves: expected PEAK_BY,MIN_PEAK,MIN_DILATION, got '%s'" % spec)
    bad = []
    for run in runs:
        name = os.path.basename(os.path.normpath(run))
        c = run_curve(run, settle)
        print(describe(name, c))
        if c["peak_reached"] > peak_by:
            bad.append("%s: the stress ratio comes within 3 %% of its peak only at %.2f %% "
                       "axial strain, after %.2f %% (still hardening: no peak)" % (
                           name, 100 * c["peak_reached"], 100 * peak_by))
        if c["peak_ratio"] < min_peak:
            bad.append("%s: the stress ratio peaks at %.3f, below %.3f" % (
                name, c["peak_ratio"], min_peak))
        if c["dilation"] < min_dilation:
            bad.append("%s: dilation %.2f %%, less than %.2f %%" % (
                name, 100 * c["dilation"], 100 * min_dilation))
    for b in bad:
        print("FAILED: " + b)
    print("peak and dilation: %s (peak reached by %.2f %% axial strain, at least %.2f; "
          "dilation at least %.2f %%)" % ("FAILED" if bad else "ok", 100 * peak_by, min_peak,
                                          100 * min_dilation))
    sys.exit(1 if bad else 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--settle", type=int, default=0)
    ap.add_argument("--sigma", type=float, default=0.0,
                    help="the lateral stress target, for the servo's tracking error")
    ap.add_argument("-o", dest="out")
    ap.add_argument("--check", type=float)
    ap.add_argument("--check-curves", metavar="PEAK_BY,MIN_PEAK,MIN_DILATION")
    ap.add_argument("--check-softening", metavar="PEAK_BY,MIN_FALL")
    ap.add_argument("--describe", action="store_true")
    a = ap.parse_args()
    if a.check_curves is not None:
        check_curves(a.runs, a.settle, a.check_curves)
    if a.check_softening is not None:
        check_softening(a.runs, a.settle, a.check_softening)
    if a.describe:
        for run in a.runs:
            print(describe(os.path.basename(os.path.normpath(run)), run_curve(run, a.settle)))
        return
    s = [summarize(r, a.settle, a.sigma) for r in a.runs]
    if len(set(x["steps"] for x in s)) > 1:
        fail("the runs timed different numbers of steps: %s" % ", ".join(
            "%s %d" % (x["run"], x["steps"]) for x in s))
    by = {x["run"]: x for x in s}
    if a.check is not None:
        if "jager-0" not in by or "mindlin" not in by:
            fail("--check needs the jager-0 and mindlin runs")
        ratio = by["jager-0"]["wall_s"] / by["mindlin"]["wall_s"]
        print("jager/mindlin whole run %.3f (limit %.2f)" % (ratio, a.check))
        sys.exit(0 if ratio <= a.check else 1)
    cols = ["run", "steps", "pieces", "wall_s", "ms_per_step", "contact_s", "contact_share",
            "mean_history", "peak_history", "peak_at_strain", "live_bytes_per_contact",
            "pool_bytes_per_contact", "contacts", "sxx_error_mean", "sxx_error_worst",
            "peak_ratio", "peak_strain", "peak_reached", "end_ratio", "end_strain",
            "dilation"]
    if a.out:
        tmp = a.out + ".tmp"
        with open(tmp, "w") as f:
            f.write("\t".join(cols) + "\n")
            for x in s:
                f.write("\t".join(str(x[c]) for c in cols) + "\n")
        os.replace(tmp, a.out)
    print("%-10s %9s %8s %9s %7s %8s %8s %9s %9s   Kuhn: law/total min, mean history" %
          ("run", "total s", "ms/step", "law s", "law %", "mean h", "peak h", "B/contact",
           "pool B/c"))
    for x in s:
        k = KUHN.get(x["run"], ("", "", ""))
        print("%-10s %9.1f %8.3f %9.1f %6.0f%% %8.1f %8.1f %9.0f %9.0f   %s/%s %s" % (
            x["run"], x["wall_s"], x["ms_per_step"], x["contact_s"], 100 * x["contact_share"],
            x["mean_history"], x["peak_history"], x["live_bytes_per_contact"],
            x["pool_bytes_per_contact"], k[0] or "-", k[1] or "-", k[2] or "-"))
    print("(each compression timed in %s pieces, the runs taking turns)" %
          "/".join(sorted(set(str(x["pieces"]) for x in s))))
    if a.sigma:
        print("lateral stress sxx against its target %g Pa over the compression: %s" % (
            a.sigma, ", ".join("%s mean %+.2f%% worst %+.2f%%" % (
                x["run"], 100 * x["sxx_error_mean"], 100 * x["sxx_error_worst"]) for x in s)))
    for x in s:
        print(describe(x["run"], x))
    if "jager-0" in by and "jager-0-full" in by:
        j, f = by["jager-0"], by["jager-0-full"]
        print("history per contact, exact law: lossless compression mean %.2f cells (peak %.1f), "
              "%.0f B; every leg kept mean %.2f (peak %.1f), %.0f B: %.3f of it (target <= 0.25)"
              % (j["mean_history"], j["peak_history"], BYTES_PER_CELL * j["mean_history"],
                 f["mean_history"], f["peak_history"], BYTES_PER_CELL * f["mean_history"],
                 j["mean_history"] / max(f["mean_history"], 1e-300)))
    if "jager-0" in by and "mindlin" in by:
        j, m = by["jager-0"], by["mindlin"]
        print("exact Jager / Mindlin: whole run %.3f (Kuhn 1.49, limit 1.5), contact "
              "geometry and laws %.3f (Kuhn 2.4)" % (j["wall_s"] / m["wall_s"],
                                                     j["contact_s"] / m["contact_s"]))
        if j["pieces"] == m["pieces"] > 1:
            r = [a / b for a, b in zip(j["piece_s_per_step"], m["piece_s_per_step"])]
            print("  piece by piece (the same minutes of the machine): %s" %
                  " ".join("%.3f" % x for x in r))


if __name__ == "__main__":
    main()
