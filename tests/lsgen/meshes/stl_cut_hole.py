#!/usr/bin/python3
"""Cut a small hole in an STL surface: drop every triangle with a vertex within RADIUS of
CENTER. Reads ASCII or binary STL, writes binary STL (or ASCII with --ascii).

    stl_cut_hole.py IN.stl OUT.stl --center 10,0,0 --radius 0.8

Prints how many triangles were removed on stderr; fails (exit 2) if none were, so a test
that expects a hole cannot silently get a closed mesh.
"""
import argparse
import re
import sys

import numpy as np

BINARY_RECORD = np.dtype([("normal", "<f4", 3), ("v", "<f4", (3, 3)), ("attr", "<u2")])


def read_stl(path):
    """Triangles as an (n, 3, 3) float64 array."""
    data = open(path, "rb").read()
    if len(data) >= 84:
        count = int(np.frombuffer(data, "<u4", 1, 80)[0])
        if len(data) == 84 + 50 * count:
            rec = np.frombuffer(data, BINARY_RECORD, count, 84)
            return rec["v"].astype(np.float64)
    text = data.decode("ascii", errors="strict")
    if not text.lstrip().startswith("solid"):
        raise ValueError(f"{path}: neither binary STL (size mismatch) nor ASCII STL")
    num = r"[-+0-9.eEinfINFaA]+"
    vs = re.findall(rf"vertex\s+({num})\s+({num})\s+({num})", text)
    if len(vs) % 3:
        raise ValueError(f"{path}: {len(vs)} vertices is not a multiple of 3")
    return np.array(vs, dtype=np.float64).reshape(-1, 3, 3)


def write_stl(path, tris, ascii_out):
    e1 = tris[:, 1] - tris[:, 0]
    e2 = tris[:, 2] - tris[:, 0]
    n = np.cross(e1, e2)
    norm = np.linalg.norm(n, axis=1, keepdims=True)
    n = np.divide(n, norm, out=np.zeros_like(n), where=norm > 0)
    if ascii_out:
        with open(path, "w") as f:
            f.write("solid holed\n")
            for t, nn in zip(tris, n):
                f.write(f"facet normal {nn[0]:.9g} {nn[1]:.9g} {nn[2]:.9g}\n outer loop\n")
                for v in t:
                    f.write(f"  vertex {v[0]:.17g} {v[1]:.17g} {v[2]:.17g}\n")
                f.write(" endloop\nendfacet\n")
            f.write("endsolid holed\n")
        return
    rec = np.zeros(len(tris), BINARY_RECORD)
    rec["normal"] = n
    rec["v"] = tris
    with open(path, "wb") as f:
        f.write(b"binary STL with a hole cut by stl_cut_hole.py".ljust(80, b" "))
        f.write(np.uint32(len(tris)).tobytes())
        f.write(rec.tobytes())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--center", required=True, help="x,y,z")
    ap.add_argument("--radius", type=float, required=True)
    ap.add_argument("--ascii", action="store_true")
    a = ap.parse_args()
    c = np.array([float(x) for x in a.center.split(",")])
    if c.shape != (3,):
        ap.error("--center needs three comma-separated numbers")
    tris = read_stl(a.input)
    near = (np.linalg.norm(tris - c, axis=2) < a.radius).any(axis=1)
    removed = int(near.sum())
    if removed == 0:
        print(f"stl_cut_hole: no triangle within {a.radius} of {a.center}", file=sys.stderr)
        sys.exit(2)
    write_stl(a.output, tris[~near], a.ascii)
    print(f"stl_cut_hole: removed {removed} of {len(tris)} triangles", file=sys.stderr)


if __name__ == "__main__":
    main()
