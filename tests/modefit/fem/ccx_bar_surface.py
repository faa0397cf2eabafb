#!/usr/bin/env python3
"""A deck around the ccx_bar fixture (ccx_bar.py) with named sets for --normalize mean.

usage: ccx_bar_surface.py BAR_DIR OUT.inp

OUT.inp includes BAR_DIR's ccx_bar_mesh.inp and ccx_bar_sets.inp (NSETs X0, XL, ORIGIN,
PY, ALLN) and adds, found here from the mesh's C3D10 elements independently of modefit:
  *SURFACE END, TYPE=ELEMENT: every element face on x = 4 (faces S1..S4 of the Abaqus
    tetrahedron: S1 = 1-2-3, S2 = 1-4-2, S3 = 2-4-3, S4 = 3-4-1), the first one by its
    element number, the others through one *ELSET per face number;
  *NSET ALLGEN, GENERATE: every node number from 1 to the largest.
"""
import os
import sys

FACES = {1: (0, 1, 2), 2: (0, 3, 1), 3: (1, 3, 2), 4: (2, 3, 0)}


def main():
    bar, out = sys.argv[1:3]
    mesh = os.path.join(bar, "ccx_bar_mesh.inp")
    nodes, elems, mode = {}, [], None
    for raw in open(mesh):
        line = raw.strip()
        if not line or line.startswith("**"):
            continue
        if line.startswith("*"):
            key = line.upper().replace(" ", "")
            mode = "node" if key == "*NODE" else "tet" if "TYPE=C3D10" in key else None
            continue
        v = [x for x in line.split(",") if x.strip()]
        if mode == "node":
            nodes[int(v[0])] = [float(x) for x in v[1:4]]
        elif mode == "tet":
            elems.append([int(x) for x in v[:5]])
    faces = []
    for e in elems:
        for k, f in FACES.items():
            if all(abs(nodes[e[1 + i]][0] - 4.0) < 1e-9 for i in f):
                faces.append((e[0], k))
    with open(out, "w") as f:
        f.write(f"*INCLUDE, INPUT={mesh}\n*INCLUDE, INPUT={os.path.join(bar, 'ccx_bar_sets.inp')}\n")
        for k in FACES:
            ids = [e for e, kk in faces[1:] if kk == k]
            if ids:
                f.write(f"*ELSET, ELSET=END_S{k}\n")
                for i in range(0, len(ids), 8):
                    f.write(", ".join(map(str, ids[i:i + 8])) + "\n")
        f.write("*SURFACE, NAME=End, TYPE=ELEMENT\n")
        f.write(f"{faces[0][0]}, S{faces[0][1]}\n")
        for k in FACES:
            if any(kk == k for _, kk in faces[1:]):
                f.write(f"END_S{k}, S{k}\n")
        f.write(f"*NSET, NSET=ALLGEN, GENERATE\n1, {max(nodes)}, 1\n")
    print(f"{len(faces)} faces on x = 4")


if __name__ == "__main__":
    main()
