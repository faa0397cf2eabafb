#!/usr/bin/python3
"""Tile a periodic sphere packing NX x NY x NZ times into a larger periodic packing.

usage: tile_packing.py INPUT.tsv NX NY NZ -o OUTPUT.tsv

The input is a packing TSV as data/packings/packing_4096.tsv has it (read with
pipelines/bench/lammps/tsv2lammps.py's reader: '# box_lo', '# box_hi', then id x y z radius).
Copy (a, b, c) of sphere k is sphere k shifted by (a Lx, b Ly, c Lz), numbered
1 + k-1 + n (a + NX (b + NY c)); the box grows to (NX Lx, NY Ly, NZ Lz) from the same lo corner.
A periodic packing tiled this way has exactly the same contacts, NX NY NZ times over: every
contact across the small box's faces becomes one between neighbouring copies (or across the
large box's faces). Deterministic: the same input gives the same bytes. Errors exit 2.
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lammps"))
from tsv2lammps import InputError, read_packing  # noqa: E402

PROG = "tile_packing"


def fail(msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(2)


def main():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("input")
    ap.add_argument("n", nargs=3, metavar="N", help="copies along x, y, z (integers >= 1)")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    try:
        n = [int(v) for v in a.n]
    except ValueError:
        fail(f"NX NY NZ must be integers, got {' '.join(a.n)}")
    if min(n) < 1 or n[0] * n[1] * n[2] > 1000:
        fail(f"NX NY NZ must be >= 1 with at most 1000 copies, got {n}")
    try:
        lo, hi, comments, spheres = read_packing(a.input)
    except InputError as e:
        fail(str(e))
    except OSError as e:
        fail(f"{e.filename or a.input}: {e.strerror}")
    length = [hi[k] - lo[k] for k in range(3)]
    big_hi = [lo[k] + n[k] * length[k] for k in range(3)]
    count = len(spheres)
    tmp = f"{a.output}.tmp.{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(f"# {count * n[0] * n[1] * n[2]} spheres: {os.path.basename(a.input)} tiled "
                    f"{n[0]} x {n[1]} x {n[2]} by {PROG}.py. Periodic orthogonal box in x, y, z.\n")
            f.write("# box_lo %r %r %r\n" % tuple(lo))
            f.write("# box_hi %r %r %r\n" % tuple(big_hi))
            for c in comments:
                f.write(f"# source: {c}\n")
            f.write("id\tx\ty\tz\tradius\n")
            copy = 0
            for c in range(n[2]):
                for b in range(n[1]):
                    for aa in range(n[0]):
                        shift = (aa * length[0], b * length[1], c * length[2])
                        for k, (_, x, y, z, r, _line) in enumerate(spheres):
                            f.write("%d\t%r\t%r\t%r\t%r\n" % (
                                1 + k + count * copy, x + shift[0], y + shift[1],
                                z + shift[2], r))
                        copy += 1
        os.replace(tmp, a.output)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        fail(f"{a.output}: {e.strerror}")
    print(f"{PROG}: {count} x {n[0] * n[1] * n[2]} = {count * n[0] * n[1] * n[2]} spheres, box "
          f"{n[0] * length[0]:.6g} x {n[1] * length[1]:.6g} x {n[2] * length[2]:.6g} m "
          f"-> {a.output}")


if __name__ == "__main__":
    main()
