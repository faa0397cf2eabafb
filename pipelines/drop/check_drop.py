#!/usr/bin/python3
"""Check the drop demo's results: every frame reads back with VTK, the grains ended inside the
box (sphere centres and every rock surface point), they have nearly come to rest (kinetic
energy, and at least 80 % of them touching a grain or a wall in the last frame), and the
energy balance of the probes held throughout. Exit 1 with the reason otherwise.

usage: check_drop.py OUTDIR"""
import os
import sys
import xml.etree.ElementTree as ET

import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy

BOX = 17.0          # the side walls are at +-17 mm, the floor at z = 0
SPHERE_R = 2.0
BALANCE = 0.02      # |energy balance error| at every probe row
REST = 0.05         # final kinetic energy / peak kinetic energy
RESTING = 0.8       # grains touching something (a grain or a wall) in the last frame


def fail(msg):
    sys.exit(f"check_drop: {msg}")


def read_vtu(path):
    reader = vtk.vtkXMLUnstructuredGridReader()
    errors = []
    reader.AddObserver("ErrorEvent", lambda o, e: errors.append(e))
    reader.AddObserver("WarningEvent", lambda o, e: errors.append(e))
    reader.SetFileName(path)
    reader.Update()
    if errors:
        fail(f"{path}: VTK reported {errors}")
    return reader.GetOutput()


def frames(out, part):
    root = ET.parse(os.path.join(out, part + ".pvd")).getroot()
    return [os.path.join(out, d.get("file")) for d in root.iter("DataSet")]


def main():
    out = sys.argv[1]
    parts = {p: frames(out, p) for p in ("spheres", "surfaces", "contacts", "walls")}
    counts = {len(v) for v in parts.values()}
    if len(counts) != 1 or 0 in counts:
        fail(f"the .pvd series differ in length or are empty: {[len(v) for v in parts.values()]}")
    for files in parts.values():
        for f in files:
            read_vtu(f)
    spheres = read_vtu(parts["spheres"][-1])
    x = vtk_to_numpy(spheres.GetPoints().GetData())
    if len(x) != 32:
        fail(f"{len(x)} spheres in the last frame, expected 32")
    if (x[:, 2] < 0.9 * SPHERE_R).any() or (np.abs(x[:, :2]) > BOX - 0.9 * SPHERE_R).any():
        fail(f"a sphere left the box: {x[(x[:, 2] < 0.9 * SPHERE_R)]}")
    surf = read_vtu(parts["surfaces"][-1])
    p = vtk_to_numpy(surf.GetPoints().GetData())
    ids = vtk_to_numpy(surf.GetPointData().GetArray("id"))
    if len(set(ids.tolist())) != 4:
        fail(f"{len(set(ids.tolist()))} rocks in the last frame, expected 4")
    if p[:, 2].min() < -0.3 or np.abs(p[:, :2]).max() > BOX + 0.3:
        fail(f"a rock went through a wall: z min {p[:, 2].min():.3f}, |x|,|y| max "
             f"{np.abs(p[:, :2]).max():.3f}")
    with open(os.path.join(out, "probes.tsv")) as f:
        lines = [l for l in f if not l.startswith("#")]
    names = lines[0].rstrip("\n").split("\t")
    table = np.array([[float(v) for v in l.split("\t")] for l in lines[1:]])
    col = {n: table[:, k] for k, n in enumerate(names)}
    worst = np.abs(col["balance_error"]).max()
    if worst > BALANCE:
        fail(f"energy balance error reached {worst:.3g} (limit {BALANCE})")
    rest = col["kinetic"][-1] / col["kinetic"].max()
    if rest > REST:
        fail(f"not settling: final kinetic energy {rest:.3g} of its peak (limit {REST})")
    contacts = read_vtu(parts["contacts"][-1]).GetCellData()
    i = vtk_to_numpy(contacts.GetArray("i")).tolist()
    j = vtk_to_numpy(contacts.GetArray("j")).tolist()
    touching = len(set(i) | {k for k in j if k >= 0})  # j < 0: a wall
    if touching < RESTING * 36:
        fail(f"only {touching} of 36 grains touch something at the end (limit {RESTING:.0%})")
    print(f"check_drop: ok: {len(parts['spheres'])} frames per part read by VTK; 32 spheres and "
          f"4 rocks inside the box, {touching} of 36 touching something at the end; final "
          f"kinetic energy {rest:.2g} of peak; "
          f"worst balance error {worst:.2g}; {int(col['contacts'][-1])} contacts, mean Jager "
          f"history {col['mean_history'][-1]:.1f}")


if __name__ == "__main__":
    main()
