#!/usr/bin/python3
"""A grid of panels, one per deformation mode of one or more bundles: the grain's surface (the
bundle's NODE triangles, body frame) warped by the mode's node values (MODE) and coloured by
the displacement's magnitude relative to the mode's largest. The warp is scaled so that the
largest displacement is --warp of the grain's extent. Eigenmodes are labelled with their
omega (DAMP's natural frequencies, else sqrt(K_aa/M_aa)), other modes with the label given.

VTK renders offscreen only with an X server: run it under xvfb-run (as pipelines/render does).

usage: rock_modes_png.py PNG LABEL=BUNDLE [LABEL=BUNDLE ...] [--cols N] [--warp F] [--omega-unit U] [--title T]"""
import argparse
import os
import sys
from pathlib import Path

import numpy as np
import vtk
from vtk.util.numpy_support import numpy_to_vtk, numpy_to_vtkIdTypeArray, vtk_to_numpy

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "modefit"))
import modes_read  # noqa: E402


def fail(msg):
    sys.exit(f"rock_modes_png: error: {msg}")


def panels(label, path, unit):
    g = modes_read.grain(path)
    for key in ("nodes", "modes", "K", "M"):
        if key not in g:
            fail(f"{path}: no {key} section (a bundle from modefit is needed)")
    x = g["nodes"]["position"]
    tri = g["nodes"]["triangles"]
    phi = g["modes"]["nodes"]
    omega = np.sqrt(np.diag(g["K"]) / np.diag(g["M"]))
    out = []
    for a in range(phi.shape[0]):
        out.append((f"{label} {a + 1}: omega = {omega[a]:.5g}{unit}", x, tri, phi[a]))
    return out


def polydata(x, tri, u, warp):
    mag = np.linalg.norm(u, axis=1)
    peak = mag.max()
    if not np.isfinite(peak):
        fail("a mode has non-finite node values")
    scale = warp * np.ptp(x, axis=0).max() / peak if peak > 0 else 0.0
    pts = vtk.vtkPoints()
    pts.SetData(numpy_to_vtk(np.ascontiguousarray(x + scale * u), deep=True))
    cells = np.hstack([np.full((len(tri), 1), 3), tri.astype(np.int64)]).ravel()
    ca = vtk.vtkCellArray()
    ca.SetCells(len(tri), numpy_to_vtkIdTypeArray(np.ascontiguousarray(cells), deep=True))
    pd = vtk.vtkPolyData()
    pd.SetPoints(pts)
    pd.SetPolys(ca)
    pd.GetPointData().SetScalars(numpy_to_vtk(np.ascontiguousarray(mag / peak if peak > 0 else mag), deep=True))
    return pd


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("png")
    ap.add_argument("bundles", nargs="+", help="LABEL=BUNDLE")
    ap.add_argument("--cols", type=int, default=3)
    ap.add_argument("--warp", type=float, default=0.12)
    ap.add_argument("--panel", default="420x340")
    ap.add_argument("--title", default="")
    ap.add_argument("--omega-unit", default="", help="appended to the omega labels")
    a = ap.parse_args()
    items = []
    for spec in a.bundles:
        label, sep, path = spec.partition("=")
        if not sep or not path:
            fail(f"'{spec}': expected LABEL=BUNDLE")
        if not os.path.isfile(path):
            fail(f"{path}: no such bundle")
        items += panels(label, path, (" " + a.omega_unit) if a.omega_unit else "")
    pw, ph = (int(v) for v in a.panel.split("x"))
    cols = min(a.cols, len(items))
    rows = (len(items) + cols - 1) // cols
    top = 40 if a.title else 0
    w, h = cols * pw, rows * ph + top
    window = vtk.vtkRenderWindow()
    window.SetOffScreenRendering(1)
    window.SetSize(w, h)
    lut = vtk.vtkLookupTable()
    lut.SetHueRange(0.66, 0.0)
    lut.SetTableRange(0.0, 1.0)
    lut.Build()
    for k, (text, x, tri, u) in enumerate(items):
        r, c = divmod(k, cols)
        ren = vtk.vtkRenderer()
        ren.SetBackground(1, 1, 1)
        ren.SetViewport(c * pw / w, (h - top - (r + 1) * ph) / h, (c + 1) * pw / w, (h - top - r * ph) / h)
        # the undeformed surface as a faint wireframe
        ref = vtk.vtkPolyDataMapper()
        ref.SetInputData(polydata(x, tri, np.zeros_like(u), 0.0))
        ref.ScalarVisibilityOff()
        ra = vtk.vtkActor()
        ra.SetMapper(ref)
        ra.GetProperty().SetRepresentationToWireframe()
        ra.GetProperty().SetColor(0.75, 0.75, 0.75)
        ra.GetProperty().SetOpacity(0.25)
        ren.AddActor(ra)
        mapper = vtk.vtkPolyDataMapper()
        mapper.SetInputData(polydata(x, tri, u, a.warp))
        mapper.SetLookupTable(lut)
        mapper.SetScalarRange(0.0, 1.0)
        actor = vtk.vtkActor()
        actor.SetMapper(mapper)
        ren.AddActor(actor)
        label = vtk.vtkTextActor()
        label.SetInput(text)
        label.GetTextProperty().SetColor(0, 0, 0)
        label.GetTextProperty().SetFontSize(16)
        label.SetPosition(8, ph - 26)
        ren.AddActor2D(label)
        cam = ren.GetActiveCamera()
        cam.SetViewUp(0, 0, 1)
        cam.SetPosition(1.0, -1.6, 0.9)
        cam.SetFocalPoint(0, 0, 0)
        ren.ResetCamera()
        cam.Zoom(1.25)
        window.AddRenderer(ren)
    if a.title:
        ren = vtk.vtkRenderer()
        ren.SetBackground(1, 1, 1)
        ren.SetViewport(0, (h - top) / h, 1, 1)
        t = vtk.vtkTextActor()
        t.SetInput(a.title)
        t.GetTextProperty().SetColor(0, 0, 0)
        t.GetTextProperty().SetFontSize(18)
        t.SetPosition(10, 10)
        ren.AddActor2D(t)
        window.AddRenderer(ren)
    window.Render()
    grab = vtk.vtkWindowToImageFilter()
    grab.SetInput(window)
    grab.Update()
    image = grab.GetOutput()
    if vtk_to_numpy(image.GetPointData().GetScalars()).std() < 1.0:
        fail("the rendered image is blank")
    writer = vtk.vtkPNGWriter()
    writer.SetFileName(a.png + ".tmp")
    writer.SetInputData(image)
    writer.Write()
    os.replace(a.png + ".tmp", a.png)
    print(f"rock_modes_png: {a.png} ({w}x{h}, {len(items)} modes)")


if __name__ == "__main__":
    main()
