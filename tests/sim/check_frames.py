#!/usr/bin/python3
"""check_frames.py DIR -- read back, with VTK's own readers, every frame series that
test_sim_output left under DIR, and check it against the world it was written from.

Each output folder holds expect.json (the frames every series must list, and the series that
must not exist) and state_NNNNNN.json (the world at frame NNNNNN: bodies, shapes, walls,
contacts; doubles in %.17g, so they load exactly). Everything the frames should show is
recomputed here from those states, written independently of runtime/sim/output_frames.c:
rotation matrices from the quaternion formula, omega = R (L / I), posed nodes x + R p,
velocities v + omega x r, contact lines, the grains' bounding box and the wall geometry
(axis-aligned planes as the faces of the box the walls and grains make, other planes as
squares of the documented side on their plane, cylinders as 32-sided
tubes on their radius spanning the box, triangles facing the grains).

The .pvd files are parsed with VTK's XML parser (the one vtkPVDReader uses) and with
ElementTree; every VTK error or warning fails the check. Run with /usr/bin/python3
(python3-vtk9 + numpy).
"""
import json
import math
import os
import sys
import xml.etree.ElementTree as ET

import numpy as np
from vtkmodules.vtkCommonCore import vtkCommand, vtkOutputWindow, vtkStringOutputWindow
from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridReader
from vtkmodules.vtkIOXMLParser import vtkXMLDataParser
from vtkmodules.util.numpy_support import vtk_to_numpy

PARTS = ("spheres", "surfaces", "contacts", "walls")
VTK_VERTEX, VTK_LINE, VTK_TRIANGLE = 1, 3, 5
SIDES = 32
# Posed coordinates and velocities: a few roundings of O(1) values.
TOL = 1e-12

failures = []
vtk_messages = []
checked = {"cases": 0, "frames": 0}


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


out_window = vtkStringOutputWindow()
vtkOutputWindow.SetInstance(out_window)


def on_vtk_message(obj, event, *args):
    vtk_messages.append("%s from %s" % (event, obj.GetClassName()))


for ev in (vtkCommand.ErrorEvent, vtkCommand.WarningEvent):
    out_window.AddObserver(ev, on_vtk_message)


def read_vtu(path):
    reader = vtkXMLUnstructuredGridReader()
    for ev in (vtkCommand.ErrorEvent, vtkCommand.WarningEvent):
        reader.AddObserver(ev, on_vtk_message)
    if not reader.CanReadFile(path):
        fail("%s: vtkXMLUnstructuredGridReader cannot read it" % path)
        return None
    reader.SetFileName(path)
    del vtk_messages[:]
    seen = len(out_window.GetOutput())
    reader.Update()
    text = out_window.GetOutput()[seen:]
    if vtk_messages or text.strip() or reader.GetErrorCode() != 0:
        fail("%s: VTK reported a problem: %s %s" % (path, vtk_messages, text.strip()))
        return None
    return reader.GetOutput()


# ---- small helpers ----

def rotation(q):
    """Body -> world matrix of the unit quaternion (w, x, y, z)."""
    w, x, y, z = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def omega_world(b):
    inertia = np.array(b["inertia"])
    L = np.array(b["L"])
    wb = np.where(inertia > 0, L / np.where(inertia > 0, inertia, 1.0), 0.0)
    return rotation(b["q"]) @ wb


def array(attrs, name, where, ncomp, dtype):
    a = attrs.GetArray(name)
    if a is None:
        fail("%s: no array %r" % (where, name))
        return None
    got = vtk_to_numpy(a)
    if a.GetNumberOfComponents() != ncomp or got.dtype != np.dtype(dtype):
        fail("%s: array %r has %d components of %s, expected %d of %s"
             % (where, name, a.GetNumberOfComponents(), got.dtype, ncomp, dtype))
        return None
    return got.reshape(-1, ncomp) if ncomp > 1 else got


def points_of(g):
    pts = g.GetPoints()
    return vtk_to_numpy(pts.GetData()).reshape(-1, 3) if pts else np.zeros((0, 3))


def cells_of(g):
    """(types, list of node-id arrays) of every cell."""
    n = g.GetNumberOfCells()
    if n == 0:
        return np.zeros(0, np.uint8), []
    types = vtk_to_numpy(g.GetCellTypesArray())
    cells = g.GetCells()
    off = vtk_to_numpy(cells.GetOffsetsArray()).astype(np.int64)
    conn = vtk_to_numpy(cells.GetConnectivityArray()).astype(np.int64)
    return types, [conn[off[k]:off[k + 1]] for k in range(n)]


def exact(where, got, want):
    want = np.asarray(want)
    if got is None:
        return
    if got.shape != want.shape or not np.array_equal(got, want):
        fail("%s: %r, expected %r" % (where, got.ravel()[:9], want.ravel()[:9]))


def close(where, got, want, tol):
    want = np.asarray(want, dtype=np.float64)
    if got is None:
        return
    if got.shape != want.shape:
        fail("%s: shape %s, expected %s" % (where, got.shape, want.shape))
        return
    err = np.max(np.abs(got - want)) if got.size else 0.0
    if not err <= tol:
        fail("%s: off by %.3g (tolerance %.3g)" % (where, err, tol))


def counts(where, g, npoints, ncells):
    if g.GetNumberOfPoints() != npoints or g.GetNumberOfCells() != ncells:
        fail("%s: %d points %d cells, expected %d and %d"
             % (where, g.GetNumberOfPoints(), g.GetNumberOfCells(), npoints, ncells))
        return False
    return True


# ---- the four parts ----

def check_spheres(where, g, state):
    idx = [i for i, b in enumerate(state["bodies"]) if b["kind"] == 0]
    bodies = [state["bodies"][i] for i in idx]
    n = len(idx)
    if not counts(where, g, n, n):
        return
    types, cells = cells_of(g)
    exact(where + " cell types", types, np.full(n, VTK_VERTEX, np.uint8))
    exact(where + " vertices", np.array([c[0] for c in cells] if cells else [], np.int64),
          np.arange(n))
    exact(where + " centres", points_of(g), np.array([b["x"] for b in bodies]).reshape(-1, 3))
    pd = g.GetPointData()
    exact(where + " radius", array(pd, "radius", where, 1, np.float64),
          np.array([b["radius"] for b in bodies]))
    exact(where + " velocity", array(pd, "velocity", where, 3, np.float64),
          np.array([b["v"] for b in bodies]).reshape(-1, 3))
    close(where + " omega", array(pd, "omega", where, 3, np.float64),
          np.array([omega_world(b) for b in bodies]).reshape(-1, 3), TOL)
    exact(where + " id", array(pd, "id", where, 1, np.int32),
          np.array([b["id"] for b in bodies], np.int32))


def check_surfaces(where, g, state):
    pts, vel, ids, tris = [], [], [], []
    base = 0
    for b in state["bodies"]:
        if b["kind"] != 1:
            continue
        shape = state["shapes"][b["shape"]]
        nodes = np.array(shape["nodes"]).reshape(-1, 3)
        r = nodes @ rotation(b["q"]).T
        pts.append(np.array(b["x"]) + r)
        vel.append(np.array(b["v"]) + np.cross(omega_world(b), r))
        ids.append(np.full(len(nodes), b["id"], np.int32))
        tris.append(np.array(shape["triangles"], np.int64).reshape(-1, 3) + base)
        base += len(nodes)
    pts, vel = np.concatenate(pts), np.concatenate(vel)
    ids, tris = np.concatenate(ids), np.concatenate(tris)
    if not counts(where, g, len(pts), len(tris)):
        return
    types, cells = cells_of(g)
    exact(where + " cell types", types, np.full(len(tris), VTK_TRIANGLE, np.uint8))
    exact(where + " triangles", np.array(cells), tris)
    close(where + " posed nodes", points_of(g), pts, TOL)
    pd = g.GetPointData()
    close(where + " velocity", array(pd, "velocity", where, 3, np.float64), vel, TOL)
    exact(where + " id", array(pd, "id", where, 1, np.int32), ids)


def check_contacts(where, g, state):
    touch = [c for c in state["contacts"] if c["overlap"] > 0]
    n = len(touch)
    if not counts(where, g, 2 * n, n):
        return
    types, cells = cells_of(g)
    exact(where + " cell types", types, np.full(n, VTK_LINE, np.uint8))
    ends = []
    for c in touch:
        ends.append(state["bodies"][c["i"]]["x"])
        ends.append(c["point"] if c["wall"] else state["bodies"][c["j"]]["x"])
    got = points_of(g)
    if n:
        exact(where + " lines", got[np.array(cells).reshape(-1)], np.array(ends))
    cd = g.GetCellData()
    fn = np.array([c["fn"] for c in touch]).reshape(-1, 3)
    ft = np.array([c["ft"] for c in touch]).reshape(-1, 3)
    exact(where + " normal_force", array(cd, "normal_force", where, 3, np.float64), fn)
    exact(where + " tangential_force", array(cd, "tangential_force", where, 3, np.float64), ft)
    norms = lambda v: np.array([math.sqrt(sum(x * x for x in row)) for row in v])
    close(where + " fn", array(cd, "fn", where, 1, np.float64), norms(fn),
          1e-15 * max(1.0, np.max(norms(fn), initial=0.0)))
    close(where + " ft", array(cd, "ft", where, 1, np.float64), norms(ft),
          1e-15 * max(1.0, np.max(norms(ft), initial=0.0)))
    exact(where + " overlap", array(cd, "overlap", where, 1, np.float64),
          np.array([c["overlap"] for c in touch]))
    exact(where + " history_length", array(cd, "history_length", where, 1, np.int32),
          np.array([c["length"] if c["jager"] else 0 for c in touch], np.int32))
    bodies = state["bodies"]
    exact(where + " i", array(cd, "i", where, 1, np.int32),
          np.array([bodies[c["i"]]["id"] for c in touch], np.int32))
    exact(where + " j", array(cd, "j", where, 1, np.int32),
          np.array([-1 - c["j"] if c["wall"] else bodies[c["j"]]["id"] for c in touch],
                   np.int32))


def grains_box(state):
    x = np.array([b["x"] for b in state["bodies"]])
    r = np.array([b["radius"] for b in state["bodies"]])
    lo, hi = np.min(x - r[:, None], axis=0), np.max(x + r[:, None], axis=0)
    size = max(1.5 * np.max(hi - lo), 4.0 * np.max(r))
    return lo, hi, size


def tri_normal(p):
    return 0.5 * np.cross(p[1] - p[0], p[2] - p[0])   # area-weighted


def aligned_axis(n):
    for a in range(3):
        if abs(abs(n[a]) - 1.0) < 1e-12:
            return a
    return -1


def wall_spans(walls, box):
    """Per axis, the span axis-aligned plane walls are drawn over: the walls facing along it
    where there are, else the grains' box with a quarter of its extent (or of size/1.5) to
    spare."""
    lo, hi, size = box
    slo = [lo[a] - 0.25 * max(size / 1.5, hi[a] - lo[a]) for a in range(3)]
    shi = [hi[a] + 0.25 * max(size / 1.5, hi[a] - lo[a]) for a in range(3)]
    for w in walls:
        a = aligned_axis(w["normal"]) if w["kind"] == 0 else -1
        if a < 0:
            continue
        p = np.array(w["origin"]) + np.array(w["disp"])
        if w["normal"][a] > 0:
            slo[a] = p[a]
        else:
            shi[a] = p[a]
    return slo, shi


def check_box_face(where, wall, pts, tris, spans):
    """An axis-aligned plane wall: the rectangle of the other two axes' spans at its place."""
    n = np.array(wall["normal"])
    a = aligned_axis(n)
    b, c = (a + 1) % 3, (a + 2) % 3
    slo, shi = spans
    p0 = np.array(wall["origin"]) + np.array(wall["disp"])
    scale = max(1.0, np.max(np.abs(p0)), max(abs(v) for v in slo + shi))
    want = []
    for ub, uc in ((slo[b], slo[c]), (shi[b], slo[c]), (shi[b], shi[c]), (slo[b], shi[c])):
        q = np.zeros(3)
        q[a], q[b], q[c] = p0[a], ub, uc
        want.append(q)
    got = sorted(map(tuple, pts))
    close(where + " box-face corners", np.array(got), np.array(sorted(map(tuple, want))),
          TOL * scale)
    normals = [tri_normal(pts[t]) for t in tris]
    if not all(np.dot(v, n) > 0 for v in normals):
        fail("%s: a triangle faces away from the grains" % where)
    close(where + " area", np.array(sum(np.dot(v, n) for v in normals)),
          (shi[b] - slo[b]) * (shi[c] - slo[c]), TOL * scale * scale)


def check_plane(where, wall, pts, tris, box, spans=None):
    lo, hi, size = box
    n = np.array(wall["normal"])
    if spans is not None and aligned_axis(n) >= 0 and len(pts) == 4:
        a = aligned_axis(n)
        b, c = (a + 1) % 3, (a + 2) % 3
        if spans[1][b] > spans[0][b] and spans[1][c] > spans[0][c]:
            check_box_face(where, wall, pts, tris, spans)
            return
    p0 = np.array(wall["origin"]) + np.array(wall["disp"])
    mid = 0.5 * (lo + hi)
    centre = mid - np.dot(mid - p0, n) * n
    scale = max(1.0, size, np.max(np.abs(p0)))
    if len(pts) != 4 or len(tris) != 2:
        fail("%s: %d points %d triangles, expected 4 and 2" % (where, len(pts), len(tris)))
        return
    close(where + " on the plane", (pts - p0) @ n, np.zeros(4), TOL * scale)
    close(where + " centred", np.mean(pts, axis=0), centre, TOL * scale)
    d = sorted(np.linalg.norm(pts[a] - pts[b]) for a in range(4) for b in range(a + 1, 4))
    close(where + " square sides and diagonals", np.array(d),
          np.array([size] * 4 + [size * math.sqrt(2)] * 2), TOL * scale)
    normals = [tri_normal(pts[t]) for t in tris]
    if not all(np.dot(a, n) > 0 for a in normals):
        fail("%s: a triangle faces away from the grains" % where)
    close(where + " area", np.array(sum(np.dot(a, n) for a in normals)), size * size,
          TOL * scale * scale)


def check_cylinder(where, wall, pts, tris, box):
    lo, hi, _ = box
    a = np.array(wall["normal"])
    p0 = np.array(wall["origin"]) + np.array(wall["disp"])
    R = wall["radius"]
    corners = np.array([[hi[0] if k & 1 else lo[0], hi[1] if k & 2 else lo[1],
                         hi[2] if k & 4 else lo[2]] for k in range(8)])
    s = (corners - p0) @ a
    s0, s1 = np.min(s), np.max(s)
    scale = max(1.0, R, abs(s0), abs(s1), np.max(np.abs(p0)))
    if len(pts) != 2 * SIDES or len(tris) != 2 * SIDES:
        fail("%s: %d points %d triangles, expected %d each"
             % (where, len(pts), len(tris), 2 * SIDES))
        return
    axial = (pts - p0) @ a
    radial = pts - p0 - np.outer(axial, a)
    close(where + " radius", np.linalg.norm(radial, axis=1), np.full(len(pts), R), TOL * scale)
    ends = np.sort(axial)
    close(where + " span", ends, np.array([s0] * SIDES + [s1] * SIDES), TOL * scale)
    # Equal sides: every ring's consecutive angles differ by 2 pi / SIDES.
    e1 = radial[0] / np.linalg.norm(radial[0])
    e2 = np.cross(a, e1)
    for ring in (axial < 0.5 * (s0 + s1), axial >= 0.5 * (s0 + s1)):
        ang = np.sort(np.arctan2(radial[ring] @ e2, radial[ring] @ e1) % (2 * math.pi))
        steps = np.diff(np.concatenate((ang, [ang[0] + 2 * math.pi])))
        close(where + " sides", steps, np.full(SIDES, 2 * math.pi / SIDES), 1e-9)
    # The tube's lateral area, and every triangle facing the grains (inward for a drum).
    area = 0.0
    for t in tris:
        nrm = tri_normal(pts[t])
        c = np.mean(pts[t], axis=0)
        out = c - p0 - np.dot(c - p0, a) * a
        facing = np.dot(nrm, out) * (-1 if wall["inside"] else 1)
        if not facing > 0:
            fail("%s: a triangle faces away from the grains" % where)
            break
        area += np.linalg.norm(nrm)
    chord = 2 * R * math.sin(math.pi / SIDES)
    close(where + " area", np.array(area), SIDES * chord * (s1 - s0), TOL * scale * scale)


def check_walls(where, g, state):
    walls = state["walls"]
    npts = sum(2 * SIDES if w["kind"] == 1 else 4 for w in walls)
    ntri = sum(2 * SIDES if w["kind"] == 1 else 2 for w in walls)
    if not counts(where, g, npts, ntri):
        return
    types, cells = cells_of(g)
    exact(where + " cell types", types, np.full(ntri, VTK_TRIANGLE, np.uint8))
    cd = g.GetCellData()
    ids = array(cd, "id", where, 1, np.int32)
    force = array(cd, "force", where, 3, np.float64)
    if ids is None or force is None:
        return
    box = grains_box(state)
    pts = points_of(g)
    for k, wall in enumerate(walls):
        mine = np.nonzero(ids == k)[0]
        exact("%s wall %d force" % (where, k), force[mine],
              np.tile(np.array(wall["force"]), (len(mine), 1)))
        used = np.unique(np.concatenate([cells[c] for c in mine])) if len(mine) else []
        local = {int(p): q for q, p in enumerate(used)}
        tris = [np.array([local[int(p)] for p in cells[c]]) for c in mine]
        if wall["kind"] == 1:
            check_cylinder("%s wall %d" % (where, k), wall, pts[np.array(used, np.int64)], tris,
                           box)
        else:
            check_plane("%s wall %d" % (where, k), wall, pts[np.array(used, np.int64)], tris,
                        box, wall_spans(walls, box))


CHECKS = {"spheres": check_spheres, "surfaces": check_surfaces, "contacts": check_contacts,
          "walls": check_walls}


# ---- series ----

def pvd_entries(path):
    """(time, file) of every DataSet, through VTK's XML parser and through ElementTree."""
    parser = vtkXMLDataParser()
    parser.AddObserver(vtkCommand.ErrorEvent, on_vtk_message)
    parser.SetFileName(path)
    del vtk_messages[:]
    if not parser.Parse() or vtk_messages:
        fail("%s: VTK's XML parser rejected it: %s" % (path, vtk_messages))
        return None
    root = parser.GetRootElement()
    if root.GetName() != "VTKFile" or root.GetAttribute("type") != "Collection":
        fail("%s: root is not <VTKFile type=\"Collection\">" % path)
        return None
    coll = root.FindNestedElementWithName("Collection")
    got = [(float(e.GetAttribute("timestep")), e.GetAttribute("file"))
           for e in (coll.GetNestedElement(i) for i in range(coll.GetNumberOfNestedElements()))]
    et = [(float(e.get("timestep")), e.get("file"))
          for e in ET.parse(path).getroot().iter("DataSet")]
    if et != got:
        fail("%s: ElementTree reads %r, VTK %r" % (path, et, got))
    return got


def check_case(folder):
    with open(os.path.join(folder, "expect.json")) as f:
        expect = json.load(f)
    states = {}
    for part in expect["absent"]:
        if os.path.exists(os.path.join(folder, part + ".pvd")):
            fail("%s/%s.pvd exists; this world has no %s" % (folder, part, part))
    for part, frames in expect["series"].items():
        path = os.path.join(folder, part + ".pvd")
        got = pvd_entries(path)
        if got is None:
            continue
        want = [(fr["time"], fr["file"]) for fr in frames]
        if got != want:
            fail("%s: lists %r, expected %r" % (path, got, want))
            continue
        for fr in frames:
            if os.path.isabs(fr["file"]):
                fail("%s: absolute path %r" % (path, fr["file"]))
            target = os.path.join(folder, fr["file"])
            g = read_vtu(target)
            if g is None:
                continue
            if fr["state"] not in states:
                with open(os.path.join(folder, fr["state"])) as f:
                    states[fr["state"]] = json.load(f)
            state = states[fr["state"]]
            if state["t"] != fr["time"]:
                fail("%s: state time %r, series time %r" % (target, state["t"], fr["time"]))
            CHECKS[part](os.path.relpath(target), g, state)
            checked["frames"] += 1
    checked["cases"] += 1


def main():
    if len(sys.argv) != 2:
        print("usage: check_frames.py DIR", file=sys.stderr)
        return 2
    for root, _, files in sorted(os.walk(sys.argv[1])):
        if "expect.json" in files:
            check_case(root)
    if checked["cases"] == 0:
        fail("no expect.json under %s: did test_sim_output run with LDEM_SIM_OUTPUT_KEEP?"
             % sys.argv[1])
    if failures:
        print("check_frames: %d failure(s)" % len(failures), file=sys.stderr)
        return 1
    print("check_frames: ok (%d output folders, %d frame files)"
          % (checked["cases"], checked["frames"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
