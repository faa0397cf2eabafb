#!/usr/bin/python3
"""Write a Gmsh MSH 2.2 ASCII file: a box meshed into tetrahedra (6 per cube, conforming)
and displacement snapshots as NodeData steps of one view, for modefit's CLI tests.

Every snapshot is a known combination of analytic fields, optionally plus noise and a
rigid motion, so the test can predict what modefit must find. Written independently of
modefit (plain numpy, Gmsh's documented node order for 10-node tets: edges 01 12 20 30 32 31).

usage: make_msh_snapshots.py OUT.msh --size A,B,C --cells NX,NY,NZ --order 1|2
           --fields SPEC [--noise REL] [--rigid] [--seed N] [--scale S] [--shift X,Y,Z]
--group NAME adds the triangles of the box's +x face as a physical group NAME ($PhysicalNames;
corner nodes only, for modefit --normalize mean:NAME:C).
--scale/--shift write the same body and motion in another frame: every coordinate x as
S x + shift and every displacement times S (a mesh exported in mm instead of m: S = 1000).
SPEC: 'strain'  one snapshot u = (x, 0, 0) (uniaxial strain, exactly representable)
      'three'   20 snapshots of 3 smooth fields with random coefficients
      'rigid'   one snapshot of pure rigid-body motion (nothing for modefit to find)
      'compress-z'   one snapshot u = -1e-3 (0, 0, z) (uniaxial compression along z)
      'quadratic-z'  one snapshot u = -1e-3 (0, 0, z + z^2)
"""
import argparse
import numpy as np

# Six tetrahedra per cube along the main diagonal 0-6 (cube corners numbered
# 0:(000) 1:(100) 2:(110) 3:(010) 4:(001) 5:(101) 6:(111) 7:(011)); the same split in every
# cube makes the mesh conforming.
CUBE_TETS = [(0, 1, 2, 6), (0, 2, 3, 6), (0, 3, 7, 6), (0, 7, 4, 6), (0, 4, 5, 6), (0, 5, 1, 6)]
CORNER = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
GMSH_EDGES = [(0, 1), (1, 2), (2, 0), (3, 0), (3, 2), (3, 1)]


def box_mesh(size, cells, order):
    nx, ny, nz = cells
    grid = np.stack(np.meshgrid(*[np.linspace(-s / 2, s / 2, n + 1) for s, n in zip(size, cells)],
                                indexing="ij"), axis=-1)
    xyz = grid.reshape(-1, 3)

    def vid(i, j, k):
        return (i * (ny + 1) + j) * (nz + 1) + k

    tets = []
    for i in range(nx):
        for j in range(ny):
            for k in range(nz):
                ids = [vid(i + a, j + b, k + c) for a, b, c in CORNER]
                for t in CUBE_TETS:
                    v = [ids[q] for q in t]
                    p = xyz[v]
                    if np.linalg.det(np.array([p[1] - p[0], p[2] - p[0], p[3] - p[0]])) < 0:
                        v[1], v[2] = v[2], v[1]
                    tets.append(v)
    tets = np.array(tets)
    if order == 1:
        return xyz, tets
    points = list(map(tuple, xyz))
    edge_node = {}
    full = []
    for t in tets:
        row = list(t)
        for a, b in GMSH_EDGES:
            key = (min(t[a], t[b]), max(t[a], t[b]))
            if key not in edge_node:
                edge_node[key] = len(points)
                points.append(tuple((xyz[t[a]] + xyz[t[b]]) / 2))
            row.append(edge_node[key])
        full.append(row)
    return np.array(points), np.array(full)


def fields(xyz, size):
    x, y, z = (xyz[:, d] / size[0] for d in range(3))
    f1 = np.stack([x * x, 0 * x, 0 * x], axis=1)
    f2 = np.stack([0 * x, np.sin(np.pi * x), 0.3 * x * y], axis=1)
    f3 = np.stack([y * z, x * z, np.cos(np.pi * y) * x], axis=1)
    return [f1, f2, f3]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--size", required=True)
    ap.add_argument("--cells", required=True)
    ap.add_argument("--order", type=int, default=2)
    ap.add_argument("--fields", required=True, choices=["strain", "three", "rigid", "compress-z", "quadratic-z"])
    ap.add_argument("--noise", type=float, default=0.0)
    ap.add_argument("--rigid", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--group", default=None)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--shift", default="0,0,0")
    a = ap.parse_args()
    size = [float(v) for v in a.size.split(",")]
    cells = [int(v) for v in a.cells.split(",")]
    rng = np.random.default_rng(a.seed)
    xyz, tets = box_mesh(size, cells, a.order)
    if a.fields == "strain":
        snaps = [np.stack([xyz[:, 0], 0 * xyz[:, 0], 0 * xyz[:, 0]], axis=1) * 1e-3]
    elif a.fields in ("compress-z", "quadratic-z"):
        z = xyz[:, 2]
        w = z if a.fields == "compress-z" else z + z * z
        snaps = [np.stack([0 * z, 0 * z, -1e-3 * w], axis=1)]
    elif a.fields == "rigid":
        snaps = [np.array([1e-3, -2e-3, 0.5e-3]) + np.cross([0, 0, 1e-3], xyz)]
    else:
        f = fields(xyz, size)
        snaps = [sum(c * fk for c, fk in zip(rng.normal(size=3), f)) for _ in range(20)]
    out = []
    for u in snaps:
        if a.noise:
            u = u + a.noise * np.abs(u).max() * rng.normal(size=u.shape)
        if a.rigid:
            # A rigid motion of the same order as the field: translation + small rotation.
            t = rng.normal(size=3) * np.abs(u).max()
            w = rng.normal(size=3) * np.abs(u).max() / max(size)
            u = u + t + np.cross(w, xyz)
        out.append(u)
    shift = np.array([float(v) for v in a.shift.split(",")])
    xyz = a.scale * xyz + shift
    out = [a.scale * u for u in out]
    etype = 4 if a.order == 1 else 11
    tris = []
    if a.group:
        xmax = xyz[:, 0].max()
        for t in tets:
            for f in ((0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)):
                c = [t[i] for i in f]
                if all(abs(xyz[v, 0] - xmax) < 1e-9 * max(1.0, abs(xmax)) for v in c):
                    tris.append(c)
    with open(a.out, "w") as fp:
        fp.write("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n")
        if a.group:
            fp.write('$PhysicalNames\n2\n2 2 "%s"\n3 1 "body"\n$EndPhysicalNames\n' % a.group)
        fp.write("$Nodes\n%d\n" % len(xyz))
        for i, p in enumerate(xyz):
            fp.write("%d %.17g %.17g %.17g\n" % (i + 1, *p))
        fp.write("$EndNodes\n$Elements\n%d\n" % (len(tets) + len(tris)))
        for e, t in enumerate(tets):
            fp.write("%d %d 2 1 1 %s\n" % (e + 1, etype, " ".join(str(v + 1) for v in t)))
        for e, c in enumerate(tris):
            fp.write("%d 2 2 2 2 %s\n" % (len(tets) + e + 1, " ".join(str(v + 1) for v in c)))
        fp.write("$EndElements\n")
        for s, u in enumerate(out):
            fp.write('$NodeData\n1\n"u"\n1\n%.17g\n3\n%d\n3\n%d\n' % (float(s + 1), s, len(xyz)))
            for i, v in enumerate(u):
                fp.write("%d %.17g %.17g %.17g\n" % (i + 1, *v))
            fp.write("$EndNodeData\n")
    np.save(a.out + ".npy", np.array(out))


if __name__ == "__main__":
    main()
