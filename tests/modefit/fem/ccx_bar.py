#!/usr/bin/env python3
"""Build-time fixture for test_fem_frd: a 4 x 1 x 1 bar in uniform tension, solved by CalculiX.

usage: ccx_bar.py GMSH CCX OUTDIR

Gmsh meshes the bar with 10-node tets and writes it as an Abaqus deck (ccx_bar_mesh.inp);
this script adds node sets found by coordinates (ccx_bar_sets.inp) and a deck including
both (ccx_bar.inp) with two linear static steps: the end x = 0 held in x, the end x = L
pulled to u_x = +0.01 (step 1), then pushed to u_x = -0.02 (step 2); (0,0,0) is held in y
and z and (0,1,0) in z, which removes rigid motions without restraining the contraction.
The exact solution is homogeneous, u = d (x/L, -nu y/L, -nu z/L), which 10-node tets
reproduce exactly. CalculiX writes ccx_bar.frd (DISP of both steps, with STRESS and
ERROR blocks between) and ccx_bar.dat (*NODE PRINT of every node: an independent print
of the same values). ccx_bar_expect.txt records what the mesh holds, counted here.
"""
import os
import shutil
import subprocess
import sys
import tempfile

GEO = """SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 4, 1, 1};
Mesh.CharacteristicLengthMax = 0.5;
Mesh.ElementOrder = 2;
Physical Volume("bar") = {1};
"""

DECK = """** a bar in uniform tension (tests/modefit/fem/ccx_bar.py)
*INCLUDE, INPUT=ccx_bar_mesh.inp
*INCLUDE, INPUT=ccx_bar_sets.inp
*MATERIAL, NAME=STEEL
*ELASTIC
210000., 0.3
*SOLID SECTION, ELSET=bar, MATERIAL=STEEL
*STEP
*STATIC
*BOUNDARY
X0, 1, 1, 0.
XL, 1, 1, 0.01
ORIGIN, 2, 3, 0.
PY, 3, 3, 0.
*NODE FILE
U
*EL FILE
S
*NODE PRINT, NSET=ALLN
U
*END STEP
*STEP
*STATIC
*BOUNDARY
X0, 1, 1, 0.
XL, 1, 1, -0.02
ORIGIN, 2, 3, 0.
PY, 3, 3, 0.
*NODE FILE
U
*NODE PRINT, NSET=ALLN
U
*END STEP
"""

OUTPUTS = ("ccx_bar.inp", "ccx_bar_mesh.inp", "ccx_bar_sets.inp", "ccx_bar.frd",
           "ccx_bar.dat", "ccx_bar_expect.txt")


def read_gmsh_inp(path):
    """Node coordinates and the number of C3D10 elements of Gmsh's deck (no includes,
    one element per line: Gmsh writes it so)."""
    nodes, nelem, mode = {}, 0, None
    with open(path) as f:
        for raw in f:
            line = raw.strip()
            if not line or line.startswith("**"):
                continue
            if line.startswith("*"):
                key = line.upper().replace(" ", "")
                mode = "node" if key == "*NODE" or key.startswith("*NODE,") else \
                    "tet" if key.startswith("*ELEMENT") and "TYPE=C3D10" in key else None
                continue
            if mode == "node":
                v = line.split(",")
                nodes[int(v[0])] = tuple(float(x) for x in v[1:4])
            elif mode == "tet":
                nelem += 1
    return nodes, nelem


def nset(name, ids):
    out = [f"*NSET, NSET={name}"]
    for k in range(0, len(ids), 8):
        out.append(", ".join(str(i) for i in ids[k:k + 8]))
    return "\n".join(out) + "\n"


def main():
    gmsh, ccx, outdir = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "bar.geo"), "w") as f:
            f.write(GEO)
        subprocess.run([gmsh, "bar.geo", "-3", "-format", "inp", "-o", "ccx_bar_mesh.inp"],
                       cwd=tmp, check=True, stdout=subprocess.DEVNULL)
        nodes, nelem = read_gmsh_inp(os.path.join(tmp, "ccx_bar_mesh.inp"))
        eps = 1e-9
        ids = sorted(nodes)
        pick = lambda f: [i for i in ids if f(nodes[i])]
        with open(os.path.join(tmp, "ccx_bar_sets.inp"), "w") as f:
            f.write(nset("ALLN", ids))
            f.write(nset("X0", pick(lambda p: abs(p[0]) < eps)))
            f.write(nset("XL", pick(lambda p: abs(p[0] - 4.0) < eps)))
            f.write(nset("ORIGIN", pick(lambda p: max(abs(c) for c in p) < eps)))
            f.write(nset("PY", pick(lambda p: abs(p[0]) < eps and abs(p[1] - 1) < eps
                                    and abs(p[2]) < eps)))
        with open(os.path.join(tmp, "ccx_bar.inp"), "w") as f:
            f.write(DECK)
        with open(os.path.join(tmp, "ccx_bar_expect.txt"), "w") as f:
            f.write(f"nodes {len(nodes)}\ntets {nelem}\nlength 4\nnu 0.3\n"
                    f"pull1 0.01\npull2 -0.02\n")
        env = dict(os.environ, OMP_NUM_THREADS="1")
        subprocess.run([ccx, "-i", "ccx_bar"], cwd=tmp, check=True, env=env,
                       stdout=subprocess.DEVNULL)
        for name in OUTPUTS:
            shutil.copy(os.path.join(tmp, name), os.path.join(outdir, name))


if __name__ == "__main__":
    main()
