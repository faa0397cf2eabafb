#!/usr/bin/python3
"""bench/deformable: the same assembly of level-set grains rigid and deformable (scene.yaml:
27 spheres with three linear modes each, compressed by six walls), back to back in this
one run, REPS times alternating so that machine noise hits both alike. Prints the wall time
per step of each (the best of the repetitions), the mean contact count, and the ratio
deformable/rigid; exit 1 when the ratio is above MAX_RATIO (the issue's 1.5).

usage: bench.py DEMRUN SCENE OUTDIR [--reps N] [--steps N] [--threads N] [--max-ratio R]"""
import argparse
import os
import re
import subprocess
import sys

VARIANTS = {"rigid": ["--set", "grains.0.lattice.deformable=false"], "deformable": []}


def run(demrun, scene, out, steps, threads, extra):
    cmd = [demrun, scene, "-o", out, "--set", f"time.steps={steps}", "-j", str(threads)] + extra
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"bench/deformable: {' '.join(cmd)} failed:\n{p.stderr}")
    m = re.search(r"(\d+) steps in ([0-9.eE+-]+) s", p.stderr)
    if not m:
        sys.exit(f"bench/deformable: no timing line in demrun's output:\n{p.stderr}")
    with open(os.path.join(out, "probes.tsv")) as f:
        rows = [l.rstrip("\n").split("\t") for l in f if not l.startswith("#")]
    k = rows[0].index("contacts")
    contacts = [float(r[k]) for r in rows[1:]]
    return float(m.group(2)) / int(m.group(1)), sum(contacts) / len(contacts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("demrun")
    ap.add_argument("scene")
    ap.add_argument("out")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--max-ratio", type=float, default=1.5)
    a = ap.parse_args()
    best, contacts = {}, {}
    for _ in range(a.reps):
        for name, extra in VARIANTS.items():
            t, c = run(a.demrun, a.scene, os.path.join(a.out, name), a.steps, a.threads, extra)
            best[name] = min(best.get(name, t), t)
            contacts[name] = c
    for name in VARIANTS:
        print(f"bench/deformable: {name:10s} {best[name] * 1e3:8.3f} ms/step, "
              f"{contacts[name]:.1f} contacts on average ({a.steps} steps, {a.threads} thread(s))")
    ratio = best["deformable"] / best["rigid"]
    print(f"bench/deformable: deformable / rigid = {ratio:.2f} (target <= {a.max_ratio:g})")
    if ratio > a.max_ratio:
        sys.exit(f"bench/deformable: FAIL: ratio {ratio:.2f} above {a.max_ratio:g}")


if __name__ == "__main__":
    main()
