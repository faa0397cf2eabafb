#!/usr/bin/python3
"""Side by side: LAMMPS (out/lammps.tsv from parse_lammps_log.py) and demrun on the same
packing and loading, demrun with hertz-jager and hertz-mindlin on one thread, then
hertz-jager on two. Prints each time per step, time per contact update (time per step over
the mean number of contacts), the ratios to LAMMPS, and the contact counts at the start and
the end, which must agree with LAMMPS's within 1 %.

usage: bench.py DEMRUN SCENE OUTDIR --steps N [--max-ratio R]
Exit 1 when the contact counts disagree or exact Jager on one thread takes more than R times
LAMMPS's time per step (the issue: at or below, R = 1)."""
import argparse
import csv
import math
import os
import re
import subprocess
import sys


def fail(msg):
    sys.stderr.write("bench.py: error: %s\n" % msg)
    sys.exit(2)


def lammps(out):
    path = os.path.join(out, "lammps.tsv")
    try:
        rows = list(csv.DictReader(open(path), delimiter="\t"))
    except OSError as e:
        fail("%s: %s (run make lammps first)" % (path, e.strerror))
    r = rows[0]
    return {"ms": float(r["ms_per_step"]), "steps": int(r["steps"]),
            "c0": int(r["contacts_start"]), "c1": int(r["contacts_end"])}


def demrun(exe, scene, out, name, steps, threads, extra, launcher=()):
    """Run demrun on SCENE for STEPS steps (the cell's z at 0.999 at the last step) into
    OUT/NAME: ms per step, contacts from probes.tsv. launcher prefixes the command (e.g.
    mpirun -np 2, by bench/scaling)."""
    d = os.path.join(out, name)
    rate = math.log(0.999) / (steps * 1e-7)
    cmd = list(launcher) + [exe, scene, "-o", d, "-j", str(threads), "--set", "time.steps=%d" % steps,
           "--set", "cell.z.strain_rate=%.17g" % rate,
           "--set", "output.probes.every=%d" % max(1, steps // 10)] + extra
    p = subprocess.run(cmd, stderr=subprocess.PIPE, text=True)
    if p.returncode:
        sys.stderr.write(p.stderr)
        fail("%s failed (exit %d)" % (name, p.returncode))
    m = re.search(r"(\d+) steps in ([0-9.]+) s", p.stderr)
    law = re.search(r"contact geometry and laws: ([0-9.]+) s", p.stderr)
    if not m or not law:
        fail("%s: no timing in demrun's report:\n%s" % (name, p.stderr))
    with open(os.path.join(d, "probes.tsv")) as f:
        f.readline()
        rows = list(csv.DictReader(f, delimiter="\t"))
    contacts = [int(r["contacts"]) for r in rows]
    return {"ms": 1e3 * float(m.group(2)) / int(m.group(1)), "law_s": float(law.group(1)),
            "c0": contacts[0], "c1": contacts[-1], "mean_c": sum(contacts) / len(contacts),
            "history": float(rows[-1]["mean_history"])}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("demrun")
    ap.add_argument("scene")
    ap.add_argument("out")
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--max-ratio", type=float, default=1.0)
    a = ap.parse_args()
    lmp = lammps(a.out)
    if lmp["steps"] != a.steps:
        fail("out/lammps.tsv is for %d steps, this bench for %d: make lammps STEPS=%d"
             % (lmp["steps"], a.steps, a.steps))
    runs = [("jager-j1", 1, []),
            ("mindlin-j1", 1, ["--set", "contacts.0.model=hertz-mindlin"]),
            ("jager-j2", 2, [])]
    res = {n: demrun(a.demrun, a.scene, a.out, n, a.steps, j, x) for n, j, x in runs}
    lmp_per_contact = 1e6 * lmp["ms"] / (0.5 * (lmp["c0"] + lmp["c1"]))
    print("%d steps of the 4096-sphere packing, z compressed to 0.999, dt 1e-7" % a.steps)
    print("%-12s %10s %14s %10s %10s %10s" % ("run", "ms/step", "ns/contact", "vs LAMMPS",
                                             "contacts0", "contacts1"))
    print("%-12s %10.3f %14.1f %10s %10d %10d" % ("lammps", lmp["ms"], lmp_per_contact, "1",
                                                  lmp["c0"], lmp["c1"]))
    bad = []
    for n, _, _ in runs:
        r = res[n]
        print("%-12s %10.3f %14.1f %10.3f %10d %10d" % (
            n, r["ms"], 1e6 * r["ms"] / r["mean_c"], r["ms"] / lmp["ms"], r["c0"], r["c1"]))
        for k in ("c0", "c1"):
            if abs(r[k] - lmp[k]) > 0.01 * lmp[k]:
                bad.append("%s: %d contacts at the %s, LAMMPS %d (more than 1 %% apart)"
                           % (n, r[k], "start" if k == "c0" else "end", lmp[k]))
    j, m = res["jager-j1"], res["mindlin-j1"]
    print("exact Jager / LAMMPS, one thread each: %.3f (target <= %.2f); two threads: %.3f"
          % (j["ms"] / lmp["ms"], a.max_ratio, res["jager-j2"]["ms"] / lmp["ms"]))
    print("exact Jager / demrun Mindlin: %.3f; mean Jager history at the end %.1f"
          % (j["ms"] / m["ms"], j["history"]))
    if j["ms"] / lmp["ms"] > a.max_ratio:
        bad.append("exact Jager takes %.3f x LAMMPS's time per step (limit %.2f)"
                   % (j["ms"] / lmp["ms"], a.max_ratio))
    for b in bad:
        print("FAIL: " + b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
