#!/usr/bin/python3
"""Extract the y = 0 slice of a level set (.vti) and the surface nodes near it (.vtu),
both read with VTK's own readers, as gnuplot tables.

usage: slice.py LEVELSET.vti NODES.vtu SLICE.tsv NODES.tsv"""
import sys

import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy


def read(reader, path):
    reader.SetFileName(path)
    reader.Update()
    if reader.GetErrorCode():
        raise SystemExit(f"slice.py: error: VTK could not read {path}")
    return reader.GetOutput()


def main(vti, vtu, slice_out, nodes_out):
    img = read(vtk.vtkXMLImageDataReader(), vti)
    nx, ny, nz = img.GetDimensions()
    ox, oy, oz = img.GetOrigin()
    hx, hy, hz = img.GetSpacing()
    phi = vtk_to_numpy(img.GetPointData().GetArray("phi")).reshape(nz, ny, nx)
    # The grid plane nearest the centre of mass across the middle principal axis (y = 0):
    # it shows both the curved sides and the flat cuts.
    j = int(round(-oy / hy))
    y = oy + j * hy
    with open(slice_out, "w") as f:
        f.write(f"# x z phi  (level-set slice at y = {y:g})\n")
        for k in range(nz):            # gnuplot wants blank lines between scan rows
            for i in range(nx):
                f.write(f"{ox + i * hx:.6g}\t{oz + k * hz:.6g}\t{phi[k, j, i]:.6g}\n")
            f.write("\n")
    grid = read(vtk.vtkXMLUnstructuredGridReader(), vtu)
    pts = vtk_to_numpy(grid.GetPoints().GetData())
    near = np.abs(pts[:, 1] - y) < 0.5 * hy
    np.savetxt(nodes_out, pts[near][:, [0, 2]], fmt="%.6g", delimiter="\t",
               header=f"x z  (surface nodes within h/2 of y = {y:g})")
    print(f"slice.py: y = {y:g}: phi in [{phi[:, j].min():.3g}, {phi[:, j].max():.3g}], "
          f"{near.sum()} of {len(pts)} nodes near the plane")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    main(*sys.argv[1:])
