#!/usr/bin/python3
"""modefit's own FE analyses end to end: --eigen, --contact-modes, and Gmsh meshing of the
bundle's surface when no --mesh is given.

usage: check_modefit_solve.py LSGEN MODEFIT [--workdir DIR]

The unit sphere, E = 2.6, nu = 0.3, rho = 1 (shear modulus 1, shear wave speed 1):
  validation  --eigen 5 on a Gmsh C3D10 mesh: omega within 1e-3 of Lamb's torsional n = 2
              root 2.501133 (omega R / c_s);
  validation  --eigen 5 without --mesh (the bundle's surface meshed by Gmsh, faceted):
              within 1.5 % of Lamb (the faceted sphere is ~1 % smaller, so stiffer);
  guard       the bundle carries K = diag(omega^2), M = I (M-orthonormal modes) and DAMP's
              omega equals the printed ones (1e-9);
  validation  --contact-modes 3 --modes 3 --patch-radius 0.5 on the sphere: the three patch
              pairs along the principal axes are one load rotated, so their compliances
              agree within 2 % (mesh asymmetry; patches narrower than the elements, 0.2
              against 0.3, differ by 3 %), and the lowest mode's omega lies above Lamb's lowest
              (Rayleigh: any rigid-free field's quotient bounds omega_1 from above);
  errors      --eigen with --snapshots, --eigen 0, a mesh of two separate spheres (12 zero
              modes): exit 2, a message naming the cause, no output written.
Exit 0 when all hold, 1 when one does not, 77 when gmsh is missing."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import modes_read  # noqa: E402

SKIP = 77
LAMB_T2 = 2.501133   # test_fe_solve computes it by bisection; here it is a constant
GEO = """SetFactory("OpenCASCADE");
Sphere(1) = {%g, 0, 0, 1};
%s
Mesh.CharacteristicLengthMax = 0.3;
Mesh.CharacteristicLengthMin = 0.3;
Mesh.ElementOrder = 2;
Mesh.SecondOrderLinear = 0;
Physical Volume("ball") = {1%s};
"""

failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def run(cmd, expect=0):
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = res.stderr.decode("utf-8", "replace")
    if res.returncode != expect:
        print(err[-2000:])
    return res.returncode, err


def omegas(log):
    return np.array([float(v) for v in re.findall(r"^modefit: omega\[\d+\] = (\S+)", log, re.M)])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lsgen")
    ap.add_argument("modefit")
    ap.add_argument("--workdir")
    a = ap.parse_args()
    if shutil.which("gmsh") is None:
        print("gmsh missing: skipped")
        return SKIP
    work = a.workdir or tempfile.mkdtemp(prefix="modefit-solve-")
    os.makedirs(work, exist_ok=True)
    j = lambda name: os.path.join(work, name)
    with open(j("ball.geo"), "w") as f:
        f.write(GEO % (0.0, "", ""))
    subprocess.run(["gmsh", j("ball.geo"), "-3", "-format", "inp", "-o", j("ball.inp")],
                   check=True, stdout=subprocess.DEVNULL)
    with open(j("two.geo"), "w") as f:
        f.write(GEO % (0.0, "Sphere(2) = {3, 0, 0, 1};", ", 2"))
    subprocess.run(["gmsh", j("two.geo"), "-3", "-format", "inp", "-o", j("two.inp")],
                   check=True, stdout=subprocess.DEVNULL)
    rc, _ = run([a.lsgen, "sphere", "--radius", "1", "--h", "0.05", "--density", "1",
                 "-o", j("g.ldg")])
    check(rc == 0, "lsgen sphere")
    mat = ["--E", "2.6", "--nu", "0.3"]

    # --eigen on the given mesh
    rc, log = run([a.modefit, "-i", j("g.ldg"), "--mesh", j("ball.inp"), "--eigen", "5", *mat,
                   "-v", "-o", j("eigen.ldg")])
    w = omegas(log)
    check(rc == 0 and len(w) == 5, f"--eigen 5 ran and printed 5 omegas ({w})")
    if len(w) == 5:
        err = np.max(np.abs(w - LAMB_T2)) / LAMB_T2
        check(err < 1e-3, f"--eigen: torsional n=2 within {err:.2e} of Lamb (1e-3)")
        g = modes_read.grain(j("eigen.ldg"))
        K, M = g["K"], g["M"]
        check(np.allclose(M, np.eye(5), rtol=0, atol=1e-9), "--eigen: MMAT is the identity")
        check(np.allclose(K, np.diag(np.diag(K)), rtol=0, atol=1e-9 * K.max()),
              "--eigen: KMAT is diagonal")
        lanczos = np.array([float(v) for v in re.findall(r"Lanczos omega\[\d+\] = (\S+)", log)])
        check(np.allclose(np.sqrt(np.diag(K)), lanczos, rtol=1e-7),
              "--eigen: KMAT's omega^2 are the Lanczos eigenvalues (1e-7)")
        check(np.allclose(g["damping"]["omega"], np.sqrt(np.diag(K)), rtol=1e-9),
              "--eigen: DAMP's omega match KMAT")

    # --eigen without --mesh: Gmsh meshes the bundle's surface
    rc, log = run([a.modefit, "-i", j("g.ldg"), "--eigen", "5", *mat, "-v",
                   "-o", j("auto.ldg")])
    w = omegas(log)
    check(rc == 0 and len(w) == 5 and "meshed by Gmsh" in log, "--eigen without --mesh ran")
    if len(w) == 5:
        err = np.max(np.abs(w - LAMB_T2)) / LAMB_T2
        check(err < 0.015, f"--eigen, Gmsh's mesh of the bundle surface: within {err:.2e} of "
              "Lamb (1.5e-2)")

    # --contact-modes
    rc, log = run([a.modefit, "-i", j("g.ldg"), "--mesh", j("ball.inp"), "--contact-modes", "3",
                   "--modes", "3", "--patch-radius", "0.5", *mat, "-v", "-o", j("contact.ldg"),
                   "--snapshot-table", j("contact.tsv")])
    comp = np.array([float(v) for v in re.findall(r"compliance \(work of unit forces\) (\S+)",
                                                  log)])
    w = omegas(log)
    check(rc == 0 and len(comp) == 3 and len(w) == 3, "--contact-modes 3 ran")
    if len(comp) == 3:
        spread = (comp.max() - comp.min()) / comp.mean()
        check(spread < 0.02, f"--contact-modes: the three axes' compliances agree ({spread:.2e})")
    if len(w) == 3:
        check(w[0] > LAMB_T2, f"--contact-modes: omega_1 {w[0]:.4f} above the sphere's lowest "
              f"{LAMB_T2} (Rayleigh)")
    check(os.path.exists(j("contact.tsv")), "--contact-modes writes the snapshot table")
    if os.path.exists(j("contact.tsv")):
        head = open(j("contact.tsv")).readline()
        check("snapshots of the contact load cases" in head,
              f"--contact-modes: the table's header names its load cases: {head.strip()!r}")

    # errors: exit 2, a message, nothing written
    rc, log = run([a.modefit, "-i", j("g.ldg"), "--mesh", j("ball.inp"), "--eigen", "4",
                   "--snapshots", j("ball.inp"), *mat, "-o", j("bad1.ldg")], expect=2)
    check(rc == 2 and "drop --snapshots" in log and not os.path.exists(j("bad1.ldg")),
          "--eigen with --snapshots is a usage error")
    rc, log = run([a.modefit, "-i", j("g.ldg"), "--mesh", j("ball.inp"), "--eigen", "0", *mat,
                   "-o", j("bad2.ldg")], expect=2)
    check(rc == 2 and "--eigen" in log, "--eigen 0 is refused")
    # two.inp is not the grain of g.ldg: --allow-mismatch gets past modefit's mismatch
    # refusal to the check of the modes themselves.
    rc, log = run([a.modefit, "-i", j("g.ldg"), "--mesh", j("two.inp"), "--eigen", "8", *mat,
                   "--allow-mismatch", "-o", j("bad3.ldg")], expect=2)
    check(rc == 2 and "12 zero-frequency modes" in log and "pieces" in log
          and not os.path.exists(j("bad3.ldg")), "two bodies in one mesh: 12 zero modes, refused")

    if not a.workdir:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
