#!/usr/bin/env python3
"""Build-time fixture for test_fe_solve: free-free vibration of an elastic sphere by
CalculiX *FREQUENCY, the reference for modefit --eigen's sparse K, M and Lanczos.

usage: ccx_sphere_freq.py GMSH CCX OUTDIR

The unit sphere (E = 2.6, nu = 0.3, rho = 1: shear modulus 1, shear wave speed 1, so
omega R / c_s reads off directly), Gmsh 10-node tets of size 0.3 with curved boundary
faces, as an Abaqus deck (ccx_sphere_mesh.inp). CalculiX computes the 16 lowest modes
(6 rigid, then 5 torsional n = 2 and 5 spheroidal n = 2) into ccx_sphere_freq.dat, whose
EIGENVALUE OUTPUT table the test reads. No support: CalculiX's own shift-invert copes with
the singular K, and its rigid modes come out at |omega^2| ~ 1e-14.
"""
import os
import shutil
import subprocess
import sys
import tempfile

GEO = """SetFactory("OpenCASCADE");
Sphere(1) = {0, 0, 0, 1};
Mesh.CharacteristicLengthMax = 0.3;
Mesh.CharacteristicLengthMin = 0.3;
Mesh.ElementOrder = 2;
Mesh.SecondOrderLinear = 0;
Physical Volume("ball") = {1};
"""

DECK = """** free-free sphere (tests/modefit/fem/ccx_sphere_freq.py)
*INCLUDE, INPUT=ccx_sphere_mesh.inp
*MATERIAL, NAME=M
*ELASTIC
2.6, 0.3
*DENSITY
1.
*SOLID SECTION, ELSET=ball, MATERIAL=M
*STEP
*FREQUENCY
16
*END STEP
"""

OUTPUTS = ("ccx_sphere_mesh.inp", "ccx_sphere_freq.dat")


def main():
    gmsh, ccx, outdir = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "ball.geo"), "w") as f:
            f.write(GEO)
        subprocess.run([gmsh, "ball.geo", "-3", "-format", "inp", "-o", "ccx_sphere_mesh.inp"],
                       cwd=tmp, check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(tmp, "ccx_sphere_freq.inp"), "w") as f:
            f.write(DECK)
        env = dict(os.environ, OMP_NUM_THREADS="1")
        res = subprocess.run([ccx, "-i", "ccx_sphere_freq"], cwd=tmp, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        log = res.stdout.decode("utf-8", "replace")
        if res.returncode != 0 or "*ERROR" in log:
            sys.stderr.write(log[-3000:])
            return 1
        for name in OUTPUTS:
            shutil.copy(os.path.join(tmp, name), os.path.join(outdir, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
