#!/usr/bin/python3
"""The box-compression run at the end of each stage, from demrun's probes and log, one row per
stage, to out/stages.tsv. Measured from the walls alone (an independent route to the probes'
own measurements): the lid stress is the lid's interval-mean force over the box's cross
section, the lateral stress the four side walls' mean normal force over their wetted area
(width x the sample's height, the lid's height above the floor), the porosity 1 - V_s / V
with V_s the grains' volume (spheres' 4/3 pi r^3, the pebble's volume from its bundle) and
V the box below the lid.

Also writes TRACE: the same wall-measured quantities at every probe row from the first
stage with a lid force on (lid stress, porosity, K), for the plot's curves.

usage: stages.py RUNDIR RUNLOG PEBBLE_VOLUME TRACE > stages.tsv"""
import os
import re
import sys

import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy

WIDTH = 40.0             # mm, the box's side walls at +-20 mm
LID_Z0 = 60.0            # mm, the lid's starting height (scene.yaml)
SIDES = ("west", "east", "south", "north")


def read_probes(path):
    with open(path) as f:
        lines = [l for l in f if not l.startswith("#")]
    names = lines[0].rstrip("\n").split("\t")
    data = np.array([[float(v) for v in l.split("\t")] for l in lines[1:]])
    return {n: data[:, k] for k, n in enumerate(names)}


def last_frame(run, part):
    names = sorted(f for f in os.listdir(run + "/frames") if f.startswith(part + "_"))
    reader = vtk.vtkXMLUnstructuredGridReader()
    reader.SetFileName(run + "/frames/" + names[-1])
    reader.Update()
    return reader.GetOutput().GetPointData()


def solid_volume(run, pebble_volume):
    """Spheres' volumes from the last frame's radii; pebbles counted by their ids."""
    radius = vtk_to_numpy(last_frame(run, "spheres").GetArray("radius"))
    pebbles = len(set(vtk_to_numpy(last_frame(run, "surfaces").GetArray("id")).tolist()))
    return float(np.sum(4.0 / 3.0 * np.pi * radius**3)) + pebbles * pebble_volume


def stage_ends(log):
    """(name, step, capped) for every stage that ended, in order."""
    ends = []
    for line in open(log):
        m = re.match(r"demrun: (?:warning: )?stage (\S+) (ended|reached its cap) at step (\d+)", line)
        if m:
            ends.append((m.group(1), int(m.group(3)), m.group(2) != "ended"))
    return ends


def walls_state(p, r, solid):
    """Height, lid and lateral stresses, K and porosity at probe row r."""
    height = LID_Z0 + p["lid.dz"][r]
    sigma_v = p["lid.fz_mean"][r] / WIDTH**2  # the grains push the lid up: +z
    lateral = [abs(p[s + ".fx_mean"][r]) + abs(p[s + ".fy_mean"][r]) for s in SIDES]
    sigma_h = np.mean(lateral) / (WIDTH * height)
    K = sigma_h / sigma_v if sigma_v > 0 else float("nan")
    return height, sigma_v, sigma_h, K, 1.0 - solid / (WIDTH**2 * height)


def main():
    run, log = sys.argv[1], sys.argv[2]
    p = read_probes(run + "/probes.tsv")
    solid = solid_volume(run, float(sys.argv[3]))
    print("stage\tname\tstep\tcapped\theight\tsigma_v\tsigma_h\tK\tporosity\tlid_error"
          + ("\tporosity_probe\tcoordination\tcoordination_nr\tstress_zz\tstress_xx"
             if "porosity" in p else ""))
    for k, (name, step, capped) in enumerate(stage_ends(log)):
        rows = np.nonzero(p["step"] <= step)[0]
        r = rows[-1]
        height, sigma_v, sigma_h, K, porosity = walls_state(p, r, solid)
        target = p["lid.target"][r]
        error = abs(p["lid.fz_mean"][r] - target) / target if target > 0 else float("nan")
        row = [k, name, step, int(capped), height, sigma_v, sigma_h, K, porosity, error]
        if "porosity" in p:
            row += [p["porosity"][r], p["coordination"][r], p["coordination_nr"][r],
                    p["stress_zz"][r], p["stress_xx"][r]]
        print("\t".join(str(v) for v in row))
    with open(sys.argv[4], "w") as f:
        f.write("step\tsigma_v\tK\tporosity" + ("\tcoordination\tcoordination_nr\n" if "porosity" in p else "\n"))
        for r in np.nonzero(p["lid.target"] > 0)[0]:
            height, sigma_v, sigma_h, K, porosity = walls_state(p, r, solid)
            extra = [p["coordination"][r], p["coordination_nr"][r]] if "porosity" in p else []
            f.write("\t".join(str(v) for v in [int(p["step"][r]), sigma_v, K, porosity] + extra) + "\n")


if __name__ == "__main__":
    main()
