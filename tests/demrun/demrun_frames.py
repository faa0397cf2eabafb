"""Reading demrun's outputs back for the checkers: .pvd series and VTU frames with VTK's own
reader, probes.tsv with numpy, and the rigid pose and velocity of each level-set grain
recovered from its posed surface (run with /usr/bin/python3: numpy and python3-vtk9)."""
import os
import xml.etree.ElementTree as ET

import numpy as np
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOXML import vtkXMLUnstructuredGridReader


def read_pvd(path):
    """[(time, absolute file path)] of a .pvd series, in file order."""
    root = ET.parse(path).getroot()
    base = os.path.dirname(path)
    return [(float(d.get("timestep")), os.path.join(base, d.get("file")))
            for d in root.iter("DataSet")]


def read_vtu(path):
    """(points (n, 3), {point array name: values}) of one .vtu file."""
    r = vtkXMLUnstructuredGridReader()
    r.SetFileName(path)
    r.Update()
    g = r.GetOutput()
    if g is None or g.GetNumberOfPoints() < 0:
        raise RuntimeError(f"{path}: VTK could not read it")
    pts = g.GetPoints()
    points = vtk_to_numpy(pts.GetData()).astype(float) if pts is not None else np.zeros((0, 3))
    pd = g.GetPointData()
    arrays = {pd.GetArrayName(k): vtk_to_numpy(pd.GetArray(k))
              for k in range(pd.GetNumberOfArrays())}
    return points, arrays


def read_probes(path):
    """{column name: numpy array} of a probes table (comment lines skipped)."""
    with open(path) as f:
        lines = [ln for ln in f if not ln.startswith("#") and ln.strip()]
    names = lines[0].split()
    rows = np.array([[float(v) for v in ln.split()] for ln in lines[1:]])
    rows = rows.reshape(len(lines) - 1, len(names))
    return {name: rows[:, k] for k, name in enumerate(names)}


def sphere_states(run_dir):
    """Analytic spheres: times (nf,), centres (nf, n, 3), velocities, omegas, ordered by id."""
    times, xs, vs, ws = [], [], [], []
    for t, path in read_pvd(os.path.join(run_dir, "spheres.pvd")):
        p, a = read_vtu(path)
        order = np.argsort(a["id"])
        times.append(t)
        xs.append(p[order])
        vs.append(a["velocity"][order])
        ws.append(a["omega"][order])
    return np.array(times), np.array(xs), np.array(vs), np.array(ws)


def kabsch(body, world):
    """Rotation R and translation c with world ≈ R body + c (least squares), and the largest
    residual."""
    cb, cw = body.mean(axis=0), world.mean(axis=0)
    h = (body - cb).T @ (world - cw)
    u, _, vt = np.linalg.svd(h)
    d = np.sign(np.linalg.det(vt.T @ u.T))
    rot = vt.T @ np.diag([1.0, 1.0, d]) @ u.T
    c = cw - rot @ cb
    resid = np.abs(body @ rot.T + c - world).max()
    return rot, c, resid


def rigid_velocity(r, vel):
    """v and ω with vel ≈ v + ω × r at each point (least squares), and the largest residual."""
    n = len(r)
    a = np.zeros((3 * n, 6))
    a[0::3, 0] = a[1::3, 1] = a[2::3, 2] = 1.0
    # ω × r = (ωy rz − ωz ry, ωz rx − ωx rz, ωx ry − ωy rx)
    a[0::3, 4], a[0::3, 5] = r[:, 2], -r[:, 1]
    a[1::3, 3], a[1::3, 5] = -r[:, 2], r[:, 0]
    a[2::3, 3], a[2::3, 4] = r[:, 1], -r[:, 0]
    sol, *_ = np.linalg.lstsq(a, vel.reshape(-1), rcond=None)
    resid = np.abs(a @ sol - vel.reshape(-1)).max()
    return sol[:3], sol[3:], resid


def surface_states(run_dir, body_nodes):
    """Level-set grains from their posed surfaces. body_nodes(g, points) gives grain g's
    surface nodes in its body frame (in the order the frames list them), given its points in
    the first frame. Returns times, centres, rotation matrices (body → world), velocities,
    omegas (ordered by grain id) and the largest pose and relative velocity residuals (a rigid
    body fits exactly)."""
    series = read_pvd(os.path.join(run_dir, "surfaces.pvd"))
    ids = None
    body = {}
    times, xs, rots, vs, ws = [], [], [], [], []
    pose_resid = vel_resid = 0.0
    for t, path in series:
        p, a = read_vtu(path)
        gid = a["id"]
        if ids is None:
            ids = np.unique(gid)
            body = {g: body_nodes(g, p[gid == g]) for g in ids}
        xf, rf, vf, wf = [], [], [], []
        for g in ids:
            pg, vg = p[gid == g], a["velocity"][gid == g]
            rot, c, res = kabsch(body[g], pg)
            pose_resid = max(pose_resid, res)
            v, w, res = rigid_velocity(pg - c, vg)
            vel_resid = max(vel_resid, res / max(1e-300, np.abs(vg).max()))
            xf.append(c)
            rf.append(rot)
            vf.append(v)
            wf.append(w)
        times.append(t)
        xs.append(xf)
        rots.append(rf)
        vs.append(vf)
        ws.append(wf)
    return (np.array(times), np.array(xs), np.array(rots), np.array(vs), np.array(ws),
            pose_resid, vel_resid)
