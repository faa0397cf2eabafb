#!/usr/bin/python3
"""lsgen against OpenVDB's mesh-to-level-set on the same meshes and voxel size.

For each SHAPE=STL (shapes with a closed-form distance: sphere, torus), choose the grid
spacing H so that lsgen's grid is GRID nodes along the longest axis with PAD cells of
padding, then run (both timed as whole commands, and by their own timers)

    lsgen mesh STL --h H --pad PAD --vti out/NAME.vti -o out/NAME.ldg -v
    vdb_tool -read STL -mesh2ls voxel=H width=3 -write out/NAME.vdb

read both results back (.vti with VTK, .vdb with pyopenvdb) and compare φ with the exact
signed distance of the analytic shape over the nodes where |φ_exact| < 3H. lsgen stores φ in
the body frame; the BODY section of its bundle maps it back (docs/bundle.md:
x_geometry = centroid + rotate(orientation, x_body)).

Prints a table and writes out/bench.tsv.
"""
import argparse
import os
import re
import struct
import subprocess
import sys
import time

import numpy as np

BAND = 3.0  # |φ_exact| < BAND·H: the band both tools are asked for (vdb_tool width=3)
SIGN_MARGIN = 0.05  # lsgen's signs are checked on every grid node farther than this (in H)


# --------------------------------------------------------------- exact distances ----

def exact_sphere(p, radius):
    return np.sqrt(p[0] ** 2 + p[1] ** 2 + p[2] ** 2) - radius


def exact_torus(p, major, minor):
    """Torus around the z axis through the origin."""
    rho = np.sqrt(p[0] ** 2 + p[1] ** 2)
    return np.sqrt((rho - major) ** 2 + p[2] ** 2) - minor


def exact_for(kind, args):
    if kind == "sphere":
        return lambda p: exact_sphere(p, args.radius)
    if kind == "torus":
        return lambda p: exact_torus(p, args.major, args.minor)
    raise SystemExit(f"bench_lsgen: no exact distance for shape '{kind}' (sphere, torus)")


# ----------------------------------------------------------------------- inputs ----

def stl_triangles(path):
    """(n, 3, 3) vertices of a binary STL (what gmsh -bin writes)."""
    data = open(path, "rb").read()
    n = struct.unpack_from("<I", data, 80)[0]
    if len(data) != 84 + 50 * n:
        raise SystemExit(f"bench_lsgen: {path}: not a binary STL ({len(data)} bytes, {n} "
                         "triangles)")
    rec = np.frombuffer(data, np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)),
                                        ("a", "<u2")]), n, 84)
    return rec["v"].astype(np.float64)


def run_timed(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        raise SystemExit(f"bench_lsgen: failed (exit {p.returncode}): {' '.join(cmd)}")
    return seconds, p.stdout, p.stderr


# ------------------------------------------------------------------------ lsgen ----

def bundle_body(path):
    """centroid (3,) and rotation matrix (3, 3) of the first bundle's BODY section."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89LDG\r\n\x1a\n":
        raise SystemExit(f"bench_lsgen: {path}: not a grain bundle")
    off = 16
    while off + 16 <= len(data):
        tag = data[off:off + 4]
        (length,) = struct.unpack_from("<Q", data, off + 8)
        if tag == b"BODY":
            body = struct.unpack_from("<13d", data, off + 16)
            c = np.array(body[6:9])
            w, x, y, z = body[9:13]
            rot = np.array([
                [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
            return c, rot
        if tag == b"ENDB":
            break
        off += 16 + length + 4
    raise SystemExit(f"bench_lsgen: {path}: no BODY section")


def band_errors(phi, ex, h):
    """max |φ − exact| / H over |φ_exact| < w·H for w = 1 and BAND, and the node count."""
    d = np.abs(phi - ex) / h
    inner = np.abs(ex) < h
    band = np.abs(ex) < BAND * h
    return dict(err1=float(d[inner].max()), err=float(d[band].max()), nodes=int(band.sum()))


def lsgen_errors(vti, ldg, exact, h):
    """band_errors, grid dims, and the number of nodes anywhere on the grid whose sign is
    wrong though |φ_exact| > SIGN_MARGIN·H (closer, the mesh's own chordal deviation from
    the analytic surface, ~0.01 H here, decides the sign)."""
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy
    r = vtk.vtkXMLImageDataReader()
    r.SetFileName(vti)
    r.Update()
    img = r.GetOutput()
    dims = img.GetDimensions()
    if dims[0] * dims[1] * dims[2] == 0:
        raise SystemExit(f"bench_lsgen: {vti}: VTK read no image")
    pd = img.GetPointData()
    arr = pd.GetArray("phi") or pd.GetArray(0)
    phi = vtk_to_numpy(arr).astype(np.float64).reshape(dims[2], dims[1], dims[0])
    o, s = img.GetOrigin(), img.GetSpacing()
    z, y, x = np.meshgrid(*(o[a] + s[a] * np.arange(dims[a]) for a in (2, 1, 0)),
                          indexing="ij")
    c, rot = bundle_body(ldg)
    body = np.stack([x, y, z])
    geom = c.reshape(3, 1, 1, 1) + np.einsum("ab,bijk->aijk", rot, body)
    ex = exact(geom)
    sure = np.abs(ex) > SIGN_MARGIN * h
    wrong_sign = int(np.count_nonzero((np.sign(phi) != np.sign(ex)) & sure))
    return band_errors(phi, ex, h), dims, wrong_sign


# ------------------------------------------------------------------------- vdb ----

def vdb_errors(path, exact, h):
    """The same over the VDB's voxels (active or not) around its narrow band; also how many
    band nodes VDB left inactive (background ±width·H)."""
    import pyopenvdb as vdb
    grids, _ = vdb.readAll(path)
    g = grids[0]
    lo, hi = g.evalActiveVoxelBoundingBox()
    lo = tuple(v - 2 for v in lo)
    hi = tuple(v + 2 for v in hi)
    shape = tuple(b - a + 1 for a, b in zip(lo, hi))
    phi = np.zeros(shape, np.float32)
    g.copyToArray(phi, ijk=lo)
    active = np.zeros(shape, bool)
    acc = g.getConstAccessor()
    vs = g.transform.voxelSize()
    org = g.transform.indexToWorld((0, 0, 0))
    axes = [org[a] + vs[a] * np.arange(lo[a], hi[a] + 1) for a in range(3)]
    p = np.meshgrid(*axes, indexing="ij")  # pyopenvdb arrays are indexed [x][y][z]
    ex = exact(p)
    band = np.abs(ex) < BAND * h
    for i, j, k in zip(*np.nonzero(band)):
        active[i, j, k] = acc.isValueOn((int(i) + lo[0], int(j) + lo[1], int(k) + lo[2]))
    inactive = int(np.count_nonzero(band & ~active))
    return band_errors(phi.astype(np.float64), ex, h), inactive


def vdb_tool_seconds(text):
    """vdb_tool's own timer, on stderr: "Mesh -> SDF ... completed in 917.353 milliseconds"
    or "... completed in 3 seconds and 564.027 milliseconds (3564.027ms)"."""
    m = re.search(r"Mesh -> SDF \.\.\. completed in (.*)", text)
    if not m:
        return float("nan")
    line = m.group(1)
    for pattern, scale in ((r"\(([0-9.]+)ms\)", 1e-3), (r"^([0-9.]+) milliseconds", 1e-3),
                           (r"^([0-9.]+) seconds", 1.0)):
        t = re.search(pattern, line)
        if t:
            return float(t.group(1)) * scale
    return float("nan")


# ------------------------------------------------------------------------ main ----

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("shapes", nargs="+", metavar="KIND=STL")
    ap.add_argument("--lsgen", required=True)
    ap.add_argument("--vdb-tool", default="vdb_tool")
    ap.add_argument("--out", default="out")
    ap.add_argument("--grid", type=int, default=128)
    ap.add_argument("--pad", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3, help="runs per tool; times are the best")
    ap.add_argument("--radius", type=float, default=10.0, help="sphere")
    ap.add_argument("--major", type=float, default=10.0, help="torus")
    ap.add_argument("--minor", type=float, default=3.0, help="torus")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    rows = []
    for spec in args.shapes:
        kind, stl = spec.split("=", 1)
        exact = exact_for(kind, args)
        tris = stl_triangles(stl)
        ext = tris.reshape(-1, 3).max(axis=0) - tris.reshape(-1, 3).min(axis=0)
        # lsgen's grid spans the box plus pad cells each side: GRID nodes along the longest
        # axis. A hair larger than the ratio, so that rounding cannot add a node.
        h = float(ext.max()) / (args.grid - 1 - 2 * args.pad) * (1 + 1e-12)
        vti = os.path.join(args.out, f"{kind}.vti")
        ldg = os.path.join(args.out, f"{kind}.ldg")
        vdbf = os.path.join(args.out, f"{kind}.vdb")

        # Best of REPEAT, the two tools alternating so that both see the same machine load.
        t_ls = t_ls_all = t_vdb = t_vdb_all = float("inf")
        for _ in range(args.repeat):
            t_all, _, err_text = run_timed([args.lsgen, "mesh", stl, "--h", repr(h), "--pad",
                                            str(args.pad), "--vti", vti, "-o", ldg, "-v"])
            m = re.search(r"time: level set ([0-9.eE+-]+) s", err_text)
            if not m:
                sys.stderr.write(err_text)
                raise SystemExit("bench_lsgen: lsgen -v printed no 'time: level set S s' line")
            t_ls, t_ls_all = min(t_ls, float(m.group(1))), min(t_ls_all, t_all)

            t_all, out_text, err_text = run_timed(
                [args.vdb_tool, "-read", stl, "-mesh2ls", f"voxel={h!r}", f"width={BAND:g}",
                 "-write", vdbf])
            t_vdb, t_vdb_all = min(t_vdb, vdb_tool_seconds(out_text + err_text)), min(t_vdb_all,
                                                                                     t_all)

        e_ls, dims, wrong = lsgen_errors(vti, ldg, exact, h)
        e_vdb, inactive = vdb_errors(vdbf, exact, h)
        rows.append(dict(shape=kind, triangles=len(tris),
                         grid="x".join(str(d) for d in dims), h=h,
                         lsgen_s=t_ls, vdb_s=t_vdb, ratio=t_ls / t_vdb,
                         lsgen_cmd_s=t_ls_all, vdb_cmd_s=t_vdb_all,
                         lsgen_err_h=e_ls["err"], vdb_err_h=e_vdb["err"],
                         lsgen_err1_h=e_ls["err1"], vdb_err1_h=e_vdb["err1"],
                         lsgen_band_nodes=e_ls["nodes"], vdb_band_nodes=e_vdb["nodes"],
                         lsgen_wrong_signs=wrong, vdb_band_inactive=inactive))

    threads = os.environ.get("OMP_NUM_THREADS", str(os.cpu_count()))
    print(f"lsgen vs OpenVDB mesh-to-level-set: band |phi_exact| < {BAND:g} H, "
          f"{os.cpu_count()} CPUs, OMP_NUM_THREADS={threads}")
    print(f"times: best of {args.repeat}, level set only (whole command in parentheses); "
          "errors: max |phi - exact| "
          f"in units of H over |phi_exact| < {BAND:g} H (< 1 H in parentheses)")
    head = (f"{'shape':<8}{'triangles':>10}  {'grid':<12}{'lsgen s':>16}{'vdb_tool s':>18}"
            f"{'lsgen/vdb':>10}{'err lsgen':>20}{'err vdb':>20}")
    print(head)
    print("-" * len(head))
    for r in rows:
        print(f"{r['shape']:<8}{r['triangles']:>10}  {r['grid']:<12}"
              f"{r['lsgen_s']:>7.3f} ({r['lsgen_cmd_s']:>6.2f}){r['vdb_s']:>9.3f} "
              f"({r['vdb_cmd_s']:>6.2f}){r['ratio']:>10.2f}"
              f"{r['lsgen_err_h']:>10.2e} ({r['lsgen_err1_h']:.2e})"
              f"{r['vdb_err_h']:>10.2e} ({r['vdb_err1_h']:.2e})")
    for r in rows:
        print(f"{r['shape']}: lsgen nodes of wrong sign (|phi_exact| > {SIGN_MARGIN:g} H, "
              f"whole grid): {r['lsgen_wrong_signs']}; vdb band nodes left inactive: "
              f"{r['vdb_band_inactive']} of {r['vdb_band_nodes']}")
    tsv = os.path.join(args.out, "bench.tsv")
    with open(tsv, "w") as f:
        keys = list(rows[0].keys())
        f.write("\t".join(keys) + "\n")
        for r in rows:
            f.write("\t".join(f"{r[k]:.6g}" if isinstance(r[k], float) else str(r[k])
                              for k in keys) + "\n")
    print(f"wrote {tsv}")


if __name__ == "__main__":
    main()
