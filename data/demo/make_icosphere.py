#!/usr/bin/python3
"""Regenerate the demo grain: an icosphere of radius 10 (the sphere of Henzel &
Karapiperis' compaction test), subdivided twice: 162 surface nodes, 320 triangles.

Writes icosphere_nodes.tsv (x y z nx ny nz area) and icosphere_triangles.tsv (i j k,
0-based, counter-clockwise seen from outside). A node's area weight is one third of the
areas of its flat neighbouring triangles, so the weights sum to the polyhedron's area.
Pure Python: run it with any python3; the outputs are committed, so the demo needs no
Python at all.
"""
import math
import sys

RADIUS = 10.0
LEVELS = 2


def normalize(v):
    n = math.sqrt(sum(c * c for c in v))
    return tuple(c / n for c in v)


def icosahedron():
    t = (1 + math.sqrt(5)) / 2
    verts = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0),
             (0, -1, t), (0, 1, t), (0, -1, -t), (0, 1, -t),
             (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    faces = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11),
             (1, 5, 9), (5, 11, 4), (11, 10, 2), (10, 7, 6), (7, 1, 8),
             (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9),
             (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    return [normalize(v) for v in verts], faces


def subdivide(verts, faces):
    cache = {}

    def midpoint(a, b):
        key = (min(a, b), max(a, b))
        if key not in cache:
            m = tuple((verts[a][k] + verts[b][k]) / 2 for k in range(3))
            verts.append(normalize(m))
            cache[key] = len(verts) - 1
        return cache[key]

    out = []
    for a, b, c in faces:
        ab, bc, ca = midpoint(a, b), midpoint(b, c), midpoint(c, a)
        out += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
    return out


def main(outdir):
    verts, faces = icosahedron()
    for _ in range(LEVELS):
        faces = subdivide(verts, faces)
    pos = [tuple(RADIUS * c for c in v) for v in verts]
    area = [0.0] * len(pos)
    for f in faces:
        p, q, r = (pos[i] for i in f)
        u = [q[k] - p[k] for k in range(3)]
        w = [r[k] - p[k] for k in range(3)]
        cr = (u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0])
        a = 0.5 * math.sqrt(sum(c * c for c in cr))
        # Outward orientation: the normal must point away from the centre.
        assert sum(cr[k] * (p[k] + q[k] + r[k]) for k in range(3)) > 0
        for i in f:
            area[i] += a / 3
    with open(f"{outdir}/icosphere_nodes.tsv", "w") as fp:
        fp.write("# icosphere radius 10, 2 subdivisions (make_icosphere.py)\n")
        fp.write("x\ty\tz\tnx\tny\tnz\tarea\n")
        for p, v, a in zip(pos, verts, area):
            fp.write("\t".join(f"{c:.17g}" for c in (*p, *v, a)) + "\n")
    with open(f"{outdir}/icosphere_triangles.tsv", "w") as fp:
        fp.write("# surface triangles, 0-based node indices, counter-clockwise from outside\n")
        fp.write("i\tj\tk\n")
        for f in faces:
            fp.write("\t".join(str(i) for i in f) + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
