#!/usr/bin/python3
"""bench/spheres: demrun on a dense packing of 4096 spheres under slow compression, with the
exact Jager law and with the incremental Mindlin law, back to back in this one run.

For each law, an untimed preparation closes the six servo walls on the packing (PREP steps,
ending in a checkpoint); then the timed part restarts from it with the top wall's target
force doubled and runs MEASURE steps of slow compression, REPS times, alternating the laws so
that machine noise hits both alike. Prints wall time per step and per contact in touch for
each, and the ratio Jager/Mindlin (Kuhn's OVAL: 1.49x for the whole run; ours must be
<= MAX_RATIO). Exit 1 when the ratio is above it. Dissipation bookkeeping is off in both
(output.probes.dissipation: false), as a production run would have it.

usage: bench.py DEMRUN SCENE OUTDIR [--prep N] [--steps N] [--reps N] [--threads N]
                [--max-ratio R]
"""
import argparse
import os
import re
import subprocess
import sys
import time


def run(demrun, scene, out, model, steps, threads, extra):
    cmd = [demrun, scene, "-o", out, "--set", f"contacts.0.model={model}",
           "--set", f"time.steps={steps}", "--set", "output.probes.dissipation=false",
           "-j", str(threads)] + extra
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode:
        sys.exit(f"bench/spheres: {' '.join(cmd)} failed:\n{p.stderr}")
    m = re.search(r"(\d+) steps in ([0-9.eE+-]+) s", p.stderr)
    if not m:
        sys.exit(f"bench/spheres: no timing line in demrun's output:\n{p.stderr}")
    steps_done, seconds = int(m.group(1)), float(m.group(2))
    m2 = re.search(r"at step (\d+)", p.stderr)
    first_step = int(m2.group(1)) if m2 else 0
    contacts, history = [], []
    with open(os.path.join(out, "probes.tsv")) as f:
        header = None
        for line in f:
            if line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if header is None:
                header = fields
                continue
            row = dict(zip(header, fields))
            if int(row["step"]) > first_step:
                contacts.append(float(row["contacts"]))
                history.append(float(row["mean_history"]))
    return {"seconds": seconds, "steps": steps_done, "wall": wall,
            "contacts": sum(contacts) / len(contacts), "history": history[-1],
            "bytes": None}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("demrun")
    ap.add_argument("scene")
    ap.add_argument("out")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--prep", type=int, default=20000)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--max-ratio", type=float, default=1.25)
    a = ap.parse_args()
    models = ["hertz-mindlin", "hertz-jager"]
    total = a.prep + a.steps
    for model in models:
        print(f"bench/spheres: preparing the packing with {model} ({a.prep} steps)",
              file=sys.stderr)
        run(a.demrun, a.scene, os.path.join(a.out, model + "-prep"), model, total, a.threads,
            ["--stop-at", str(a.prep)])
    best = {}
    for rep in range(a.reps):
        for model in models:
            ckpt = os.path.join(a.out, model + "-prep", "checkpoint.ldc")
            r = run(a.demrun, a.scene, os.path.join(a.out, model), model, total, a.threads,
                    ["--restart", ckpt, "--set", "walls.5.servo.force=160"])
            if model not in best or r["seconds"] < best[model]["seconds"]:
                best[model] = r
    print(f"bench/spheres: 4096 spheres, {a.steps} steps of slow compression after {a.prep} "
          f"of preparation, {a.threads} thread(s), best of {a.reps}")
    print(f"{'model':<15}{'s/run':>10}{'us/step':>10}{'ns/contact':>12}{'contacts':>10}"
          f"{'history':>9}")
    for model in models:
        r = best[model]
        per_step = r["seconds"] / r["steps"]
        print(f"{model:<15}{r['seconds']:>10.3f}{1e6 * per_step:>10.1f}"
              f"{1e9 * per_step / r['contacts']:>12.1f}{r['contacts']:>10.0f}{r['history']:>9.2f}")
    ratio = best["hertz-jager"]["seconds"] / best["hertz-mindlin"]["seconds"]
    print(f"ratio jager/mindlin (total run): {ratio:.3f}  (Kuhn's OVAL 1.49; limit {a.max_ratio})")
    if ratio > a.max_ratio:
        print(f"bench/spheres: ratio {ratio:.3f} above {a.max_ratio}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
