#!/usr/bin/python3
"""Nonlinear contact snapshots of a grain between rigid plates, end to end: Gmsh meshes a
unit sphere (C3D10), pipelines/grain-modes/ccx_plates.py writes the deck (plates along z
then x), CalculiX solves it, modefit reads the deck and the .frd as they come (C3D8 plates,
their nodes in every DISP block, stress and energy blocks between), and
pipelines/grain-modes/check_rock_ccx.py checks modefit's FE energies against CalculiX's
(1 %) and the plates' work against the strain energy (2 %, last increment).

usage: check_ccx_plates.py LSGEN MODEFIT [--workdir DIR]
Exit 0 when all hold, 1 when one does not, 77 when gmsh or ccx is missing."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
PLATES = os.path.join(ROOT, "pipelines", "grain-modes", "ccx_plates.py")
CHECK = os.path.join(ROOT, "pipelines", "grain-modes", "check_rock_ccx.py")
GEO = """SetFactory("OpenCASCADE");
Sphere(1) = {0, 0, 0, 1};
Mesh.CharacteristicLengthMax = 0.35;
Mesh.ElementOrder = 2;
Physical Volume("ball") = {1};
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lsgen")
    ap.add_argument("modefit")
    ap.add_argument("--workdir")
    a = ap.parse_args()
    if shutil.which("gmsh") is None or shutil.which("ccx") is None:
        print("gmsh or ccx missing: skipped")
        return 77
    work = a.workdir or tempfile.mkdtemp(prefix="ccx-plates-")
    os.makedirs(work, exist_ok=True)
    j = lambda name: os.path.join(work, name)
    py = sys.executable
    with open(j("ball.geo"), "w") as f:
        f.write(GEO)
    steps = [
        ["gmsh", j("ball.geo"), "-3", "-format", "inp", "-o", j("ball.inp")],
        [py, PLATES, "deck", "--mesh", j("ball.inp"), "--deck", j("rock-plates.inp"),
         "--axes", "z,x", "--travel", "0.02", "--E", "2.6", "--nu", "0.3", "--increments", "4"],
        [py, os.path.join(HERE, "ccx_fem.py"), "ccx", work, "rock-plates"],
        [py, PLATES, "table", "--deck", j("rock-plates.inp"), "--dat", j("rock-plates.dat"),
         "--out", j("rock-plates.tsv"), "--travel", "0.02"],
        [a.lsgen, "sphere", "--radius", "1", "--h", "0.1", "--density", "1", "-q",
         "-o", j("ball.ldg")],
        [a.modefit, "-i", j("ball.ldg"), "--mesh", j("rock-plates.inp"), "--snapshots",
         j("rock-plates.frd"), "--modes", "2", "--E", "2.6", "--nu", "0.3",
         "--snapshot-table", j("rock-ccx-snapshots.tsv"), "-o", j("ball-ccx.ldg")],
        [py, CHECK, work],
    ]
    for cmd in steps:
        res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = res.stdout.decode("utf-8", "replace")
        if cmd[-1] == work or res.returncode != 0:
            print(out[-3000:])
        if res.returncode != 0:
            print(f"FAIL  {' '.join(map(str, cmd[:3]))}: exit {res.returncode}")
            return 1
    if not a.workdir:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
