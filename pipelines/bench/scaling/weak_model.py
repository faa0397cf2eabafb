#!/usr/bin/python3
"""Weak-scaling model on paper for MPI demrun (issue 39): per rank, n spheres in a cube.

usage: weak_model.py PACKING.tsv [--skin S] [--history H] [--scaling out/scaling.tsv]
                     [--ranks P] [--gbps B] [--latency-us A]

MEASURED from the packing (numpy, periodic minimum image): solid fraction phi, mean radius,
r_max, mean of r^3, contacts (pairs overlapping) and broad-phase candidates (pairs closer
than r_i + r_j + skin) per sphere, and their mean centre distance l. MEASURED from
scaling.tsv when given: demrun's microseconds per body-step (1 thread, the largest packing).
Everything else is the MODEL, for n = 1e4, 1e5, 1e6 spheres per rank on P ranks:
  side a = (n (4/3) pi <r^3> / phi)^(1/3), ghost width g = 2 r_max + skin,
  ghosts G = (n / a^3) ((a + 2g)^3 - a^3),
  exchange = G (104 + 8) bytes a step each way (x 24, v 24, q 32, L 24, id 8),
  duplicated pairs (owned-ghost, computed on both ranks) = 3 l / (2 a) of the pairs
  (pairs crossing a plane per area: rho (z/2) <|l cos|> = rho z l / 4; interfaces 3 a^2 a rank),
  reductions: one allreduce of 18 exact accumulators (cell virial 9, stiffness 3, kinetic
  stress 6; walls add 4 each) of 68 int64 limbs = 544 B: 9792 B, log2(P) stages,
  memory: ldem_bodies' arrays 277 B a body (owned + ghosts), ldem_contact 568 B per stored
  candidate pair, (H - 2) Jager cells of 29 B per touching contact in the pools (a contact
  holds its top two cells itself), H the mean history length.
Prints a Markdown table. Exit 2 on bad arguments.
"""
import argparse
import csv
import math
import os
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lammps"))
from tsv2lammps import InputError, read_packing  # noqa: E402

BODY_BYTES = 1 + 4 + 4 + 4 + 8 + 8 + 8 + 24 + 24 + 24 + 32 + 24 + 24 + 24 + 24 + 32 + 4 + 4
CONTACT_BYTES = 568
CELL_BYTES = 29
GHOST_BYTES = 24 + 24 + 32 + 24 + 8
ACCUMULATORS = 9 + 3 + 6
ACC_BYTES = 68 * 8


def fail(msg):
    sys.stderr.write("weak_model.py: error: %s\n" % msg)
    sys.exit(2)


def measure(path, skin):
    import numpy as np
    try:
        lo, hi, _, spheres = read_packing(path)
    except InputError as e:
        fail(str(e))
    except OSError as e:
        fail("%s: %s" % (e.filename or path, e.strerror))
    x = np.array([s[1:4] for s in spheres])
    r = np.array([s[4] for s in spheres])
    box = np.array(hi) - np.array(lo)
    n = len(r)
    touching = candidates = 0
    dist_sum = 0.0
    for i0 in range(0, n, 256):
        d = x[i0:i0 + 256, None, :] - x[None, :, :]
        d -= box * np.round(d / box)
        dist = np.sqrt((d * d).sum(axis=2))
        sumr = r[i0:i0 + 256, None] + r[None, :]
        upper = np.arange(i0, min(i0 + 256, n))[:, None] < np.arange(n)[None, :]
        cand = upper & (dist < sumr + skin)
        touching += int((upper & (dist < sumr)).sum())
        candidates += int(cand.sum())
        dist_sum += float(dist[cand].sum())
    return {"n": n, "phi": float((4 / 3 * math.pi * r ** 3).sum() / box.prod()),
            "r_mean": float(r.mean()), "r_max": float(r.max()), "r3": float((r ** 3).mean()),
            "z": 2 * touching / n, "zc": 2 * candidates / n, "l": dist_sum / candidates}


def measured_us(path):
    """demrun's us per body-step on 1 thread at the largest N in scaling.tsv, and LAMMPS's."""
    try:
        rows = list(csv.DictReader(open(path), delimiter="\t"))
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    out = {}
    for code in ("demrun", "lammps"):
        one = [r for r in rows if r["code"] == code and r["ranks"] == "1"
               and r["threads"] == "1"]
        if one:
            r = max(one, key=lambda r: int(r["N"]))
            out[code] = (float(r["us_per_body_step"]), int(r["N"]))
    return out


def main():
    ap = argparse.ArgumentParser(prog="weak_model.py")
    ap.add_argument("packing")
    ap.add_argument("--skin", type=float, default=1e-4)
    ap.add_argument("--history", type=float, default=103.0,
                    help="mean Jager history cells per contact (bench/lammps, 50000 steps: 103)")
    ap.add_argument("--scaling", help="scaling.tsv for the measured time per body-step")
    ap.add_argument("--ranks", type=int, default=1000)
    ap.add_argument("--gbps", type=float, default=100.0, help="link bandwidth, Gb/s")
    ap.add_argument("--latency-us", type=float, default=2.0, help="message latency, us")
    a = ap.parse_args()
    if not (a.skin >= 0 and a.history >= 2 and a.ranks >= 2 and a.gbps > 0
            and a.latency_us >= 0):
        fail("need skin >= 0, history >= 2, ranks >= 2, gbps > 0, latency-us >= 0")
    m = measure(a.packing, a.skin)
    us = measured_us(a.scaling) if a.scaling else {}
    beta = a.gbps * 1e9 / 8  # bytes/s
    alpha = a.latency_us * 1e-6
    g = 2 * m["r_max"] + a.skin
    r = m["r_mean"]
    print("MEASURED (packing %s, %d spheres): solid fraction %.4f, mean radius %.4g m, r_max "
          "%.4g m, skin %.3g m; contacts per sphere z = %.3f, broad-phase candidates per "
          "sphere %.3f (pairs closer than r_i + r_j + skin), their mean centre distance "
          "l = %.3f r" % (os.path.basename(a.packing), m["n"], m["phi"], r, m["r_max"],
                           a.skin, m["z"], m["zc"], m["l"] / r))
    for code, (u, n) in sorted(us.items()):
        print("MEASURED (scaling.tsv): %s, 1 process, 1 thread, %d spheres: %.3f us per "
              "body-step" % (code, n, u))
    t_body = us.get("demrun", (None,))[0]
    print("MODEL: g = 2 r_max + skin = %.3f r; %d ranks; %.0f Gb/s, %.1f us latency; "
          "6 messages a step (staged x, y, z exchange); mean Jager history %.0f cells"
          % (g / r, a.ranks, a.gbps, a.latency_us, a.history))
    print()
    print("| spheres/rank n | side a/r | ghosts G | G/n | exchange B/step (each way) | "
          "exchange us/step | duplicated pairs | allreduce us/step | memory/rank MB, H = 2 | "
          "H = %.0f | B/sphere, H = %.0f | compute ms/step | comm/compute | weak E |"
          % (a.history, a.history))
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n in (1e4, 1e5, 1e6):
        a_side = (n * 4 / 3 * math.pi * m["r3"] / m["phi"]) ** (1 / 3)
        ghosts = n / a_side ** 3 * ((a_side + 2 * g) ** 3 - a_side ** 3)
        xbytes = ghosts * GHOST_BYTES
        t_x = 6 * alpha + xbytes / beta
        dup = 3 * m["l"] / (2 * a_side)
        red_bytes = ACCUMULATORS * ACC_BYTES
        t_red = math.ceil(math.log2(a.ranks)) * (alpha + red_bytes / beta)
        pairs = n * m["zc"] / 2 * (1 + dup)
        touching = n * m["z"] / 2 * (1 + dup)
        mem0 = (n + ghosts) * BODY_BYTES + pairs * CONTACT_BYTES
        mem = mem0 + touching * (a.history - 2) * CELL_BYTES
        if t_body:
            comp = n * t_body * 1e-6 * (1 + dup)
            comp_s = "%.1f" % (1e3 * comp)
            ratio = "%.4f" % ((t_x + t_red) / comp)
            eff = "%.3f" % (n * t_body * 1e-6 / (comp + t_x + t_red))
        else:
            comp_s = ratio = eff = "(no scaling.tsv)"
        print("| 10^%d | %.1f | %.0f | %.3f | %.3g | %.1f | %.1f %% | %.1f | %.0f | %.0f | %.0f "
              "| %s | %s | %s |"
              % (round(math.log10(n)), a_side / r, ghosts, ghosts / n, xbytes, 1e6 * t_x,
                 100 * dup, 1e6 * t_red, mem0 / 1e6, mem / 1e6, mem / n, comp_s, ratio, eff))
    print()
    print("compute: n x the measured time per body-step x (1 + duplicated pairs); weak E: "
          "n t / (compute + exchange + allreduce), no overlap of communication and compute")
    print("B/sphere: (owned + ghost bodies) x %d B + stored candidate pairs x %d B + touching "
          "contacts x (H - 2) x %d B, over n; deformable grains add 16 B a mode to each "
          "ghost's %d B a step" % (BODY_BYTES, CONTACT_BYTES, CELL_BYTES, GHOST_BYTES))


if __name__ == "__main__":
    main()
