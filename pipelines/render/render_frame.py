#!/usr/bin/python3
"""Render a demrun output folder's last frame to a PNG with VTK: spheres at their true size,
level-set grains' surfaces, plane walls as the box faces walls.vtu draws (translucent), and
contact forces as tubes between the grains' centres, their radius and colour the normal force.

VTK renders offscreen only with an X server: run it under xvfb-run (Debian's xvfb), as the
pipelines do: xvfb-run -a render_frame.py OUTDIR PNG. Why VTK and not ParaView's pvbatch:
Debian 12's python3-paraview conflicts with python3-vtk9, which the VTK read-back tests use;
this needs only python3-vtk9 and xvfb.

usage: render_frame.py OUTDIR PNG [--size WxH] [--title TEXT] [--view iso|front]"""
import argparse
import os
import sys

import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy


def fail(msg):
    sys.exit(f"render_frame: error: {msg}")


def last_frame(out, part):
    folder = os.path.join(out, "frames")
    names = sorted(f for f in os.listdir(folder) if f.startswith(part + "_") and f.endswith(".vtu"))
    if not names:
        return None
    reader = vtk.vtkXMLUnstructuredGridReader()
    reader.SetFileName(os.path.join(folder, names[-1]))
    reader.Update()
    return reader.GetOutput()


def spheres_actor(grid):
    """One sphere per point, of the point's radius: a unit sphere glyph scaled by `radius`
    (ParaView's Glyph filter uses a sphere of radius 0.5, hence its factor 2)."""
    grid.GetPointData().SetActiveScalars("radius")
    source = vtk.vtkSphereSource()
    source.SetRadius(1.0)
    source.SetThetaResolution(24)
    source.SetPhiResolution(16)
    glyph = vtk.vtkGlyph3D()
    glyph.SetInputData(grid)
    glyph.SetSourceConnection(source.GetOutputPort())
    glyph.SetScaleModeToScaleByScalar()
    glyph.SetScaleFactor(1.0)
    glyph.SetColorModeToColorByScale()
    glyph.OrientOff()
    glyph.Update()
    # true size: the glyphs' extent along z (the sphere source's poles lie on it) is the
    # centres' extent widened by each end's radius
    x = vtk_to_numpy(grid.GetPoints().GetData())
    r = vtk_to_numpy(grid.GetPointData().GetArray("radius"))
    want = (np.min(x[:, 2] - r), np.max(x[:, 2] + r))
    got = glyph.GetOutput().GetBounds()[4:6]
    # (the glyphs are float32: agreement to its rounding)
    if not np.allclose(got, want, rtol=0, atol=1e-6 * max(1.0, np.max(np.abs(want)))):
        fail(f"sphere glyphs span z {got}, the spheres {want}: not drawn at their size")
    mapper = vtk.vtkPolyDataMapper()
    mapper.SetInputConnection(glyph.GetOutputPort())
    mapper.ScalarVisibilityOff()
    actor = vtk.vtkActor()
    actor.SetMapper(mapper)
    actor.GetProperty().SetColor(0.80, 0.72, 0.58)
    return actor


def surface_actor(grid, colour, opacity=1.0):
    geometry = vtk.vtkGeometryFilter()
    geometry.SetInputData(grid)
    mapper = vtk.vtkPolyDataMapper()
    mapper.SetInputConnection(geometry.GetOutputPort())
    mapper.ScalarVisibilityOff()
    actor = vtk.vtkActor()
    actor.SetMapper(mapper)
    actor.GetProperty().SetColor(*colour)
    actor.GetProperty().SetOpacity(opacity)
    return actor


def contacts_actor(grid, scale):
    """Tubes along the contacts' lines, radius and colour by the normal force."""
    data = grid.GetCellData()
    if grid.GetNumberOfCells() == 0 or data.GetArray("fn") is None:
        return None, None
    fn = np.abs(vtk_to_numpy(data.GetArray("fn")))
    to_points = vtk.vtkCellDataToPointData()
    to_points.SetInputData(grid)
    to_points.Update()
    out = to_points.GetOutput()
    out.GetPointData().SetActiveScalars("fn")
    geometry = vtk.vtkGeometryFilter()
    geometry.SetInputData(out)
    tubes = vtk.vtkTubeFilter()
    tubes.SetInputConnection(geometry.GetOutputPort())
    tubes.SetVaryRadiusToVaryRadiusByAbsoluteScalar()
    fmax = float(fn.max()) if fn.max() > 0 else 1.0
    tubes.SetRadius(0.02 * scale)
    tubes.SetRadiusFactor(10.0)
    tubes.SetNumberOfSides(10)
    # absolute scalars: rescale fn so that the largest force gets 0.2 x the scale
    array = out.GetPointData().GetArray("fn")
    for k in range(array.GetNumberOfTuples()):
        array.SetValue(k, 0.02 * scale + 0.18 * scale * abs(array.GetValue(k)) / fmax)
    mapper = vtk.vtkPolyDataMapper()
    mapper.SetInputConnection(tubes.GetOutputPort())
    mapper.SetScalarRange(0.02 * scale, 0.2 * scale)
    lut = vtk.vtkLookupTable()
    lut.SetHueRange(0.66, 0.0)
    lut.Build()
    mapper.SetLookupTable(lut)
    actor = vtk.vtkActor()
    actor.SetMapper(mapper)
    bar_lut = vtk.vtkLookupTable()
    bar_lut.SetHueRange(0.66, 0.0)
    bar_lut.SetTableRange(0.0, fmax)
    bar_lut.Build()
    bar = vtk.vtkScalarBarActor()
    bar.SetLookupTable(bar_lut)
    bar.SetTitle("normal force")
    bar.SetNumberOfLabels(4)
    bar.SetWidth(0.08)
    bar.SetHeight(0.5)
    bar.SetPosition(0.9, 0.25)
    return actor, bar


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("png")
    ap.add_argument("--size", default="1200x900")
    ap.add_argument("--title", default="")
    ap.add_argument("--view", choices=("iso", "front"), default="iso")
    a = ap.parse_args()
    if not os.path.isdir(os.path.join(a.outdir, "frames")):
        fail(f"{a.outdir}: no frames/ folder (a demrun output folder with output.frames.every > 0)")
    try:
        w, h = (int(v) for v in a.size.split("x"))
    except ValueError:
        fail(f"--size: expected WxH, got '{a.size}'")
    renderer = vtk.vtkRenderer()
    renderer.SetBackground(1.0, 1.0, 1.0)
    spheres, surfaces = last_frame(a.outdir, "spheres"), last_frame(a.outdir, "surfaces")
    walls, contacts = last_frame(a.outdir, "walls"), last_frame(a.outdir, "contacts")
    if spheres is None and surfaces is None:
        fail(f"{a.outdir}/frames: no spheres or surfaces frame")
    scale = 1.0
    if spheres is not None and spheres.GetNumberOfPoints():
        scale = float(np.median(vtk_to_numpy(spheres.GetPointData().GetArray("radius"))))
        renderer.AddActor(spheres_actor(spheres))
    if surfaces is not None and surfaces.GetNumberOfPoints():
        renderer.AddActor(surface_actor(surfaces, (0.55, 0.60, 0.68)))
    if walls is not None and walls.GetNumberOfPoints():
        renderer.AddActor(surface_actor(walls, (0.6, 0.6, 0.6), 0.12))
    if contacts is not None:
        tubes, bar = contacts_actor(contacts, scale)
        if tubes is not None:
            renderer.AddActor(tubes)
            renderer.AddActor2D(bar)
    if a.title:
        text = vtk.vtkTextActor()
        text.SetInput(a.title)
        text.GetTextProperty().SetColor(0, 0, 0)
        text.GetTextProperty().SetFontSize(20)
        text.SetPosition(10, h - 34)
        renderer.AddActor2D(text)
    camera = renderer.GetActiveCamera()
    camera.SetViewUp(0, 0, 1)
    camera.SetPosition((1.0, -1.6, 0.9) if a.view == "iso" else (0.0, -1.0, 0.0))
    camera.SetFocalPoint(0, 0, 0)
    renderer.ResetCamera()
    camera.Zoom(1.15)
    window = vtk.vtkRenderWindow()
    window.SetOffScreenRendering(1)
    window.AddRenderer(renderer)
    window.SetSize(w, h)
    window.Render()
    grab = vtk.vtkWindowToImageFilter()
    grab.SetInput(window)
    grab.Update()
    image = grab.GetOutput()
    pixels = vtk_to_numpy(image.GetPointData().GetScalars())
    if pixels.std() < 1.0:
        fail("the rendered image is blank")
    writer = vtk.vtkPNGWriter()
    writer.SetFileName(a.png + ".tmp")
    writer.SetInputData(image)
    writer.Write()
    os.replace(a.png + ".tmp", a.png)
    print(f"render_frame: {a.png} ({w}x{h}) from {a.outdir}")


if __name__ == "__main__":
    main()
