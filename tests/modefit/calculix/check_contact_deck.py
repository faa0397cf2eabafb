#!/usr/bin/python3
"""modefit reads a real CalculiX contact model as CalculiX writes it.

usage: check_contact_deck.py LSGEN MODEFIT [--workdir DIR]

A coarse sphere (R = 10, pipelines/compaction1/sphere_walls.geo) between six rigid
frictionless walls (pipelines/compaction1/six_walls.py, 0.2 of travel in 2 increments): five
walls are C3D8 blocks whose nodes are all driven, the sixth is a C3D8 block made a *RIGID
BODY driven through its REF and ROT nodes. The deck asks for every output the .frd can hold
for every node and element (U, RF; S, E, ENER; contact CDIS, CSTR, CELS), so the .frd has
the walls' and reference nodes in its DISP blocks and STRESS, TOSTRAIN, FORC, ENER, ERROR,
CONTACT, CELS blocks and 1P/1U lines around them. The checks (exit 1 on failure):

  modefit reads the full deck and the full .frd (C3D8 walls and their nodes ignored, each
  with one note), and its K and M equal those it gets from the hand-stripped pair (the
  Gmsh mesh alone and a .frd with only the grain's nodes and DISP blocks): relative
  difference <= 1e-12 (the same numbers in the same order: in fact bitwise);
  M against an independent numpy integration of the same field (isoparametric C3D10,
  collapsed Gauss rule, rigid motion projected out): <= TOL_MASS (the rule is exact on
  straight tets; the curved boundary tets leave a few 1e-7);
  the notes count the 6 C3D8 elements, their 48 nodes + the 2 rigid-body nodes, and the
  wall nodes of the DISP blocks.

A guard of the readers on real output (not a validation of the physics). About 15 s of
CalculiX on one core. Exit 77 when gmsh or ccx is missing."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.dont_write_bytecode = True   # no __pycache__ in the source tree

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "pipelines", "compaction1"))
import ccx_fem as cf  # noqa: E402
import modes_read  # noqa: E402
import six_walls  # noqa: E402

SKIP = 77
E, NU, R, RHO = 1.0e3, 0.3, 10.0, 1.0
TOL_SAME = 1e-12
TOL_MASS = 1e-5
GEO = os.path.join(ROOT, "pipelines", "compaction1", "sphere_walls.geo")


def rigid_bottom(deck, ref, rot):
    """Make wall MZ a *RIGID BODY driven through REF and ROT nodes `ref`, `rot` instead of
    all its nodes (text edit of six_walls.py's deck)."""
    with open(deck) as f:
        lines = f.read().split("\n")
    out, travel = [], None
    for line in lines:
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 4 and parts[0] == "NMZ":
            if parts[1] == "3":
                travel = float(parts[3])
            continue
        if line.startswith("*STEP"):
            out += ["*NODE, NSET=NRIGID", f"{ref}, 0.0, 0.0, {-R - 1.0!r}",
                    f"{rot}, 0.0, 0.0, {-R - 2.0!r}",
                    f"*RIGID BODY, NSET=NMZ, REF NODE={ref}, ROT NODE={rot}"]
        out.append(line)
        if line.startswith("*BOUNDARY"):
            out += [f"{ref}, 1, 2, 0.", f"{rot}, 1, 3, 0."]
            out.append("REFTRAVEL")
    text = "\n".join(out).replace("REFTRAVEL", f"{ref}, 3, 3, {travel!r}")
    with open(deck, "w") as f:
        f.write(text)


def strip_frd(src, dst, keep):
    """The .frd cut down by hand to what the grain alone would give: the header lines, the
    node block and the DISP blocks restricted to `keep` (their NUMNOD fixed), nothing else."""
    keep = set(int(k) for k in keep)
    with open(src) as f:
        lines = f.read().split("\n")
    out, k = [], 0
    while k < len(lines):
        line = lines[k]
        if line.startswith("    1C") or line.startswith("    1U") or line.startswith("9999"):
            out.append(line)
            k += 1
            continue
        if line.startswith("    2C") or line.startswith("  100C"):
            block = [line]
            k += 1
            while not lines[k].startswith(" -3"):
                block.append(lines[k])
                k += 1
            block.append(lines[k])
            k += 1
            is_disp = line.startswith("  100C") and block[1].startswith(" -4  DISP")
            if line.startswith("    2C") or is_disp:
                body = [b for b in block[1:] if not b.startswith(" -1")
                        or int(b[3:13]) in keep]
                n = sum(1 for b in body if b.startswith(" -1"))
                head = block[0]
                col = (24, 36) if is_disp else (24, 36)
                head = head[:col[0]] + f"{n:12d}" + head[col[1]:]
                out += [head] + body
            continue
        k += 1   # 3C element block lines, 1P parameters: dropped
    with open(dst, "w") as f:
        f.write("\n".join(out))


def bundle_km(path):
    g = modes_read.grain(path)
    return float(g["K"][0, 0]), float(g["M"][0, 0]), g


def run_modefit(modefit, grain, mesh, frd, out):
    cmd = [modefit, "-i", grain, "--mesh", mesh, "--snapshots", frd, "--method", "single",
           "--normalize", f"point:0,0,{R:g}:-z", "--E", repr(E), "--nu", repr(NU), "-v",
           "-o", out]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = res.stderr.decode("utf-8", "replace")
    if res.returncode != 0:
        raise cf.FemError(f"{' '.join(cmd)}: exit {res.returncode}\n{err}")
    return err


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("lsgen")
    ap.add_argument("modefit")
    ap.add_argument("--workdir")
    a = ap.parse_args()
    missing = cf.tools_missing()
    if missing:
        print(f"check_contact_deck: skipped: {', '.join(missing)} not found")
        return SKIP
    work = a.workdir or tempfile.mkdtemp(prefix="modefit-contact-")
    os.makedirs(work, exist_ok=True)
    ok = True
    try:
        mesh = os.path.join(work, "mesh.inp")
        cf.gmsh_mesh(GEO, mesh, {"octant": 0, "lc_pole": 1.5, "grow": 0.5, "lc_far": 5})
        deck = os.path.join(work, "walls.inp")
        six_walls.main(["deck", "--mesh", mesh, "--deck", deck, "--travel", "0.2",
                        "--increments", "2", "--full-output"])
        ids, xyz, _eids, conn = cf.read_inp_mesh(mesh)
        ref, rot = int(ids.max()) + 100, int(ids.max()) + 101
        rigid_bottom(deck, ref, rot)
        dt = cf.run_ccx("walls", work)
        frd = os.path.join(work, "walls.frd")
        with open(frd) as f:
            kinds = sorted(set(re.findall(r"^ -4  (\w+)", f.read(), re.M)))
        print(f"check_contact_deck: ccx {dt:.1f} s; .frd blocks: {' '.join(kinds)}")
        stripped = os.path.join(work, "stripped.frd")
        strip_frd(frd, stripped, ids)
        grain = os.path.join(work, "grain.ldg")
        subprocess.run([a.lsgen, "sphere", "--radius", f"{R:g}", "--h", "1", "--density",
                        f"{RHO:g}", "-o", grain], check=True)
        full_log = run_modefit(a.modefit, grain, deck, frd, os.path.join(work, "full.ldg"))
        run_modefit(a.modefit, grain, mesh, stripped, os.path.join(work, "stripped.ldg"))
        K1, M1, g1 = bundle_km(os.path.join(work, "full.ldg"))
        K0, M0, g0 = bundle_km(os.path.join(work, "stripped.ldg"))
        for name, got, want in (("K", K1, K0), ("M", M1, M0)):
            rel = abs(got / want - 1.0)
            good = rel <= TOL_SAME
            ok &= good
            print(f"check_contact_deck: {name} full deck + full .frd {got:.15g}, stripped "
                  f"{want:.15g}: {rel:.1e} (tol {TOL_SAME:g}) {'ok' if good else 'FAIL'}")
        # the independent mass integral of the field modefit took (the last DISP block)
        last = cf.read_frd_disp(frd)[-1]
        u = cf.disp_on(last, ids)
        u_pole = -u[cf.nearest_node(xyz, [0.0, 0.0, R])][2]
        M_np = cf.projected_mass(xyz, conn, u / u_pole, RHO)
        rel = abs(M1 / M_np - 1.0)
        good = rel <= TOL_MASS
        ok &= good
        print(f"check_contact_deck: M {M1:.10g} against numpy {M_np:.10g}: {rel:.1e} "
              f"(tol {TOL_MASS:g}) {'ok' if good else 'FAIL'}")
        nwall = 6 * 8
        want_notes = [f"walls.inp: ignored 6 C3D8 elements and {nwall + 2} nodes no tetrahedron",
                      "walls.frd: ignored "]
        for note in want_notes:
            good = note in full_log
            ok &= good
            print(f"check_contact_deck: note '{note}...' {'ok' if good else 'FAIL (missing)'}")
        n_notes = sum(1 for line in full_log.splitlines() if "ignored" in line)
        good = n_notes == 2
        ok &= good
        print(f"check_contact_deck: {n_notes} 'ignored' lines (one per file) "
              f"{'ok' if good else 'FAIL'}")
        if not ok:
            print(full_log, end="")
    except (cf.FemError, OSError, subprocess.CalledProcessError) as e:
        print(f"check_contact_deck: FAIL: {e}")
        ok = False
    finally:
        if not a.workdir and ok:
            shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
