"""Small helpers around Gmsh and CalculiX for modefit's real-FEM checks and pipelines.

Everything here is written from the file formats (Abaqus/CalculiX deck, CalculiX .frd and
.dat), independently of modefit's C readers, so that a check comparing the two compares
modefit against the format rather than against itself. numpy only (no scipy)."""
import os
import re
import resource
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# C3D10 edge (midside) nodes, 0-based, CalculiX/Abaqus order: node k+4 sits on edge EDGES[k].
C3D10_EDGES = ((0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3))
# Tetrahedron faces by corner nodes (0-based), CalculiX face numbers 1..4 (outward normals
# for a positively oriented tet): F1 1-2-3, F2 1-4-2, F3 2-4-3, F4 3-4-1.
TET_FACES = ((0, 1, 2), (0, 3, 1), (1, 3, 2), (2, 3, 0))


class FemError(RuntimeError):
    pass


def tools_missing():
    """Names of the external programs a CalculiX run needs that are not on PATH."""
    return [p for p in ("gmsh", "ccx") if shutil.which(p) is None]


def run(cmd, cwd=None, stdin=None, stdout=None, env=None, quiet=True):
    """Runs a command, raising FemError with its stderr tail when it fails; returns seconds."""
    t0 = time.monotonic()
    res = subprocess.run(cmd, cwd=cwd, stdin=stdin, stdout=stdout if stdout else subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env)
    dt = time.monotonic() - t0
    if res.returncode != 0:
        tail = res.stderr.decode("utf-8", "replace")[-3000:]
        if not stdout and res.stdout:
            tail = res.stdout.decode("utf-8", "replace")[-3000:] + tail
        raise FemError(f"{' '.join(map(str, cmd))}: exit {res.returncode}\n{tail}")
    if not quiet and res.stderr:
        print(res.stderr.decode("utf-8", "replace"), end="")
    return dt


def gmsh_mesh(geo, out, params=None, order=2, cwd=None):
    """Meshes a .geo in 3-D with Gmsh (order 1 or 2) into `out` (.inp or .msh by extension)."""
    cmd = ["gmsh", geo, "-3", "-order", str(order), "-o", out]
    if out.endswith(".inp"):
        cmd += ["-format", "inp"]
    for key, value in (params or {}).items():
        cmd += ["-setnumber", key, repr(float(value))]
    return run(cmd, cwd=cwd)


# ---------------------------------------------------------------- .inp (mesh only)

def read_inp_mesh(path):
    """*NODE and the C3D4/C3D10 *ELEMENT blocks of a deck (no *INCLUDE: Gmsh writes none).
    Returns (node_ids, xyz, elem_ids, conn) with conn as 0-based row indices into xyz."""
    ids, xyz, eids, conn = [], [], [], []
    mode, nper, pending = None, 0, []
    with open(path) as f:
        for raw in f:
            line = raw.strip()
            if not line or line.startswith("**"):
                continue
            if line.startswith("*"):
                key = line.upper().replace(" ", "")
                mode = None
                if key.startswith("*NODE") and not key.startswith("*NODEPRINT") \
                        and not key.startswith("*NODEFILE"):
                    mode = "node"
                elif key.startswith("*ELEMENT"):
                    m = re.search(r"TYPE=(\w+)", key)
                    etype = m.group(1) if m else ""
                    if etype in ("C3D4", "C3D10"):
                        mode, nper = "elem", int(etype[3:])
                    else:
                        mode = "skip"
                continue
            fields = [v for v in line.split(",") if v.strip()]
            if mode == "node":
                ids.append(int(fields[0]))
                xyz.append([float(v) for v in fields[1:4]])
            elif mode == "elem":
                pending += [int(v) for v in fields]
                if len(pending) >= nper + 1:
                    eids.append(pending[0])
                    conn.append(pending[1:nper + 1])
                    pending = []
    ids = np.array(ids, dtype=np.int64)
    xyz = np.array(xyz, dtype=float)
    index = {nid: k for k, nid in enumerate(ids)}
    conn = np.array([[index[n] for n in c] for c in conn], dtype=np.int64)
    return ids, xyz, np.array(eids, dtype=np.int64), conn


def tet_volumes(xyz, conn):
    a, b, c, d = (xyz[conn[:, k]] for k in range(4))
    return np.einsum("ij,ij->i", np.cross(b - a, c - a), d - a) / 6.0


def boundary_faces(xyz, conn, on_plane):
    """Element faces whose three corner nodes all satisfy on_plane(points) -> bool array.
    Returns a list of (element row, CalculiX face number 1..4, corner rows, midside rows)."""
    flags = on_plane(xyz)
    out = []
    for e, c in enumerate(conn):
        for fnum, face in enumerate(TET_FACES, start=1):
            corners = [c[i] for i in face]
            if all(flags[i] for i in corners):
                mids = []
                if len(c) == 10:
                    for k, (i, j) in enumerate(C3D10_EDGES):
                        if i in face and j in face:
                            mids.append(c[4 + k])
                out.append((e, fnum, corners, mids))
    return out


def face_area_vector(xyz, corners):
    a, b, c = (xyz[i] for i in corners)
    return 0.5 * np.cross(b - a, c - a)


def consistent_traction_loads(xyz, faces, traction):
    """Consistent nodal forces of a uniform traction (force per area, 3-vector) on the given
    faces. Quadratic triangles: the corners get nothing, each midside node a third of the
    face's force; linear triangles: a third to each corner. Returns {row: force 3-vector}."""
    loads = {}
    traction = np.asarray(traction, dtype=float)
    for _e, _f, corners, mids in faces:
        area = np.linalg.norm(face_area_vector(xyz, corners))
        share = mids if mids else corners
        for n in share:
            loads[n] = loads.get(n, 0.0) + traction * area / 3.0
    return loads


def nearest_node(xyz, point, tol=1e-6):
    d = np.linalg.norm(xyz - np.asarray(point, dtype=float), axis=1)
    k = int(np.argmin(d))
    if d[k] > tol:
        raise FemError(f"no mesh node at {point} (nearest {xyz[k]}, distance {d[k]:.3g})")
    return k


# ---------------------------------------------------------------- C3D10 mass integrals
# An independent numpy integration of the mass inner product on the quadratic tets, for
# checking modefit's M: isoparametric C3D10 shape functions and a collapsed (Duffy)
# Gauss-Legendre rule, exact to degree 2n-1 on straight-sided tets.

def collapsed_gauss(n=4):
    """Points (q×3) and weights (sum 1/6) on the unit tet (0,0,0),(1,0,0),(0,1,0),(0,0,1)."""
    t, w = np.polynomial.legendre.leggauss(n)
    t, w = 0.5 * (t + 1.0), 0.5 * w
    u, v, s = np.meshgrid(t, t, t, indexing="ij")
    wu, wv, ws = np.meshgrid(w, w, w, indexing="ij")
    xi, eta, zeta = u, v * (1.0 - u), s * (1.0 - u) * (1.0 - v)
    weight = wu * wv * ws * (1.0 - u) ** 2 * (1.0 - v)
    return np.stack([xi.ravel(), eta.ravel(), zeta.ravel()], axis=1), weight.ravel()


def c3d10_shape(p):
    """C3D10 shape functions (q×10) and their derivatives (q×10×3) at unit-tet points; node
    order 1-4 corners (barycentric L1 = 1-xi-eta-zeta, L2 = xi, L3 = eta, L4 = zeta), then
    the edge nodes of C3D10_EDGES."""
    xi, eta, zeta = p[:, 0], p[:, 1], p[:, 2]
    L = np.stack([1.0 - xi - eta - zeta, xi, eta, zeta], axis=1)
    dL = np.array([[-1.0, -1.0, -1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    N = np.zeros((len(p), 10))
    dN = np.zeros((len(p), 10, 3))
    for i in range(4):
        N[:, i] = L[:, i] * (2.0 * L[:, i] - 1.0)
        dN[:, i, :] = (4.0 * L[:, i] - 1.0)[:, None] * dL[i]
    for k, (i, j) in enumerate(C3D10_EDGES):
        N[:, 4 + k] = 4.0 * L[:, i] * L[:, j]
        dN[:, 4 + k, :] = 4.0 * (L[:, j][:, None] * dL[i] + L[:, i][:, None] * dL[j])
    return N, dN


def mass_gram(xyz, conn, fields, rho=1.0, n=4):
    """G[a, b] = rho * integral f_a . f_b dV over the C3D10 mesh, for nodal fields f (each
    nnodes × 3), interpolated with the elements' own shape functions."""
    if conn.shape[1] != 10:
        raise FemError("mass_gram: C3D10 meshes only")
    pts, wts = collapsed_gauss(n)
    N, dN = c3d10_shape(pts)
    X = xyz[conn]                                          # e × 10 × 3
    J = np.einsum("qka,ekb->eqab", dN, X)                  # d x_b / d xi_a
    det = np.linalg.det(J)
    if det.min() <= 0:
        raise FemError("mass_gram: an element with a non-positive Jacobian")
    dV = det * wts[None, :]
    vals = [np.einsum("qk,ekc->eqc", N, f[conn]) for f in fields]
    G = np.empty((len(fields), len(fields)))
    for a in range(len(fields)):
        for b in range(a, len(fields)):
            G[a, b] = G[b, a] = rho * np.sum(dV * np.einsum("eqc,eqc->eq", vals[a], vals[b]))
    return G


def rigid_nodal_fields(xyz):
    """The six rigid motions at the nodes: translations, rotations about the origin."""
    out = [np.tile(e, (len(xyz), 1)) for e in np.eye(3)]
    return out + [np.cross(e, xyz) for e in np.eye(3)]


def projected_mass(xyz, conn, field, rho=1.0):
    """rho * integral |f - P f|^2, P the mass-weighted projection on rigid motions."""
    G = mass_gram(xyz, conn, [field] + rigid_nodal_fields(xyz), rho)
    g, Grr = G[0, 1:], G[1:, 1:]
    return G[0, 0] - g @ np.linalg.solve(Grr, g)


# ---------------------------------------------------------------- deck writing

def nset_lines(name, node_ids):
    lines = [f"*NSET, NSET={name}"]
    ids = [int(n) for n in node_ids]
    for k in range(0, len(ids), 12):
        lines.append(", ".join(str(n) for n in ids[k:k + 12]) + ",")
    return lines


def write_deck(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def run_ccx(job, cwd):
    """Runs `ccx -i job` in cwd; returns wall seconds. A run whose .dat/.frd is missing or
    whose output says the job did not finish is an error."""
    # One thread unless the caller asks for more (the machines running this are shared).
    env = dict(os.environ)
    threads = env.get("CCX_THREADS", "1")
    env["OMP_NUM_THREADS"] = threads
    env["CCX_NPROC_EQUATION_SOLVER"] = threads
    t0 = time.monotonic()
    res = subprocess.run(["ccx", "-i", job], cwd=cwd, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, env=env)
    dt = time.monotonic() - t0
    log = res.stdout.decode("utf-8", "replace")
    with open(os.path.join(cwd, job + ".log"), "w") as f:
        f.write(log)
    if res.returncode != 0 or "*ERROR" in log or "Job finished" not in log:
        raise FemError(f"ccx -i {job} (in {cwd}) failed (exit {res.returncode}):\n{log[-3000:]}")
    return dt


# ---------------------------------------------------------------- .frd and .dat

def read_frd_disp(path):
    """Every DISP block of a CalculiX .frd: a list of dicts {step, time, ids, u (n×3)}.
    Fixed-width records (never split on spaces: negative numbers run together):
    ' -1' + node number (I10) + three E12.5 values."""
    blocks, cur, time_value, step = [], None, 0.0, 0
    with open(path) as f:
        for line in f:
            if line.startswith("  100C"):
                # '  100CL  101 1.000000000  NNODES ...': the step time in columns 13-24
                time_value = float(line[12:24])
                cur = None
            elif line.startswith(" -4  DISP"):
                step += 1    # the ordinal of the DISP block, 1-based
                cur = {"step": step, "time": time_value, "ids": [], "u": []}
            elif cur is not None and line.startswith(" -1"):
                cur["ids"].append(int(line[3:13]))
                cur["u"].append([float(line[13 + 12 * i:25 + 12 * i]) for i in range(3)])
            elif cur is not None and line.startswith(" -3"):
                cur["ids"] = np.array(cur["ids"], dtype=np.int64)
                cur["u"] = np.array(cur["u"], dtype=float)
                blocks.append(cur)
                cur = None
    return blocks


def disp_on(block, node_ids):
    """The block's displacements at node_ids (in that order)."""
    index = {nid: k for k, nid in enumerate(block["ids"])}
    return block["u"][[index[int(n)] for n in node_ids]]


_DAT_HEADER = re.compile(r"^\s*(.*?)\s+for set\s+(\S+)\s+and time\s+(\S+)", re.I)


def read_dat(path):
    """Blocks of a CalculiX .dat: list of (title, set, time, rows) where rows are lists of
    floats (the node or element number first, unless the block holds totals)."""
    blocks, cur = [], None
    with open(path) as f:
        for line in f:
            m = _DAT_HEADER.match(line)
            if m:
                cur = (m.group(1).strip(), m.group(2).upper(), float(m.group(3)), [])
                blocks.append(cur)
                continue
            if cur is not None and line.strip():
                try:
                    cur[3].append([float(v) for v in line.split()])
                except ValueError:
                    cur = None
    return blocks


def dat_series(path, title_start, set_name):
    """(times, rows) of every .dat block whose title starts with title_start for set_name;
    each block's rows summed (a totals block has one row without a number)."""
    times, values = [], []
    for title, sname, t, rows in read_dat(path):
        if title.lower().startswith(title_start.lower()) and sname == set_name.upper():
            arr = np.array(rows, dtype=float)
            if arr.ndim == 2 and arr.shape[1] in (2, 4, 7):   # numbered rows
                arr = arr[:, 1:]
            times.append(t)
            values.append(arr.sum(axis=0))
    return np.array(times), np.array(values)


def main(argv):
    """`ccx_fem.py ccx DIR JOB`: run CalculiX on DIR/JOB.inp, print and record
    (DIR/JOB.time: wall seconds, then CPU seconds) the times; exit 1 with the log's tail
    when the run fails. The CPU time is what a run costs on a machine shared with others,
    where the wall time also counts the waiting."""
    if len(argv) != 4 or argv[1] != "ccx":
        print("usage: ccx_fem.py ccx DIR JOB", file=sys.stderr)
        return 2
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        dt = run_ccx(argv[3], argv[2])
    except FemError as e:
        print(f"ccx_fem.py: error: {e}", file=sys.stderr)
        return 1
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with open(os.path.join(argv[2], argv[3] + ".time"), "w") as f:
        f.write(f"{dt:.2f}\t{cpu:.2f}\n")
    print(f"ccx -i {argv[3]}: {dt:.1f} s, CPU {cpu:.1f} s (log: "
          f"{os.path.join(argv[2], argv[3] + '.log')})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
