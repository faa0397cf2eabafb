#!/usr/bin/python3
"""vtk_readback.py DIR -- read every file vtk_samples wrote into DIR with VTK's own XML
readers and compare it with DIR/manifest.json, exactly.

VTK readers report problems through vtkOutputWindow and ErrorEvent/WarningEvent but never
raise, and a failed read can still return a partial dataset; so every VTK error or warning
(from any object) fails this test. Run with /usr/bin/python3 (python3-vtk9 + numpy).
"""
import json
import os
import sys

import numpy as np
from vtkmodules.vtkCommonCore import vtkCommand, vtkOutputWindow, vtkStringOutputWindow
from vtkmodules.vtkIOXML import (vtkXMLImageDataReader, vtkXMLUnstructuredGridReader)
from vtkmodules.vtkIOXMLParser import vtkXMLDataParser
from vtkmodules.util.numpy_support import vtk_to_numpy

failures = []
vtk_messages = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


# Route every VTK message into a string window (none may appear) and observe it too.
out_window = vtkStringOutputWindow()
vtkOutputWindow.SetInstance(out_window)


def on_vtk_message(obj, event, *args):
    vtk_messages.append("%s from %s" % (event, obj.GetClassName()))


for ev in (vtkCommand.ErrorEvent, vtkCommand.WarningEvent):
    out_window.AddObserver(ev, on_vtk_message)


def vtk_read(reader_cls, path):
    reader = reader_cls()
    for ev in (vtkCommand.ErrorEvent, vtkCommand.WarningEvent):
        reader.AddObserver(ev, on_vtk_message)
    if not reader.CanReadFile(path):
        fail("%s: %s cannot read it" % (path, reader_cls.__name__))
        return None
    reader.SetFileName(path)
    del vtk_messages[:]
    seen = len(out_window.GetOutput())  # the window only accumulates
    reader.Update()
    text = out_window.GetOutput()[seen:]
    if vtk_messages or text.strip() or reader.GetErrorCode() != 0:
        fail("%s: VTK reported a problem: %s %s (error code %d)"
             % (path, vtk_messages, text.strip(), reader.GetErrorCode()))
        return None
    return reader.GetOutput()


def same_values(got, want):
    """Bit-exact equality, except that any NaN matches any NaN (ascii drops NaN signs)."""
    if got.shape != want.shape:
        return False
    if want.dtype.kind == "f":
        both_nan = np.isnan(got) & np.isnan(want)
        ibits = {4: np.uint32, 8: np.uint64}[want.dtype.itemsize]
        return bool(np.all(both_nan | (got.view(ibits) == want.view(ibits))))
    return bool(np.array_equal(got, want))


def first_mismatch(got, want):
    g, w = got.reshape(-1), want.reshape(-1)
    for i in range(min(len(g), len(w))):
        if not same_values(g[i:i + 1], w[i:i + 1]):
            return "value %d: got %r, expected %r" % (i, g[i], w[i])
    return "shape %s, expected %s" % (got.shape, want.shape)


def load(base, rel, dtype, shape, byte_order):
    bo = "<" if byte_order == "little" else ">"
    a = np.fromfile(os.path.join(base, rel), dtype=np.dtype(dtype).newbyteorder(bo))
    return a.astype(np.dtype(dtype).newbyteorder("="), copy=False).reshape(shape)


def compare(where, got, want):
    if got.dtype != want.dtype:
        fail("%s: VTK type %s, expected %s" % (where, got.dtype, want.dtype))
    elif not same_values(got, want):
        fail("%s: %s" % (where, first_mismatch(got, want)))


def check_arrays(where, attrs, specs, ntuples, base, bo):
    names = [attrs.GetArrayName(i) for i in range(attrs.GetNumberOfArrays())]
    want_names = [s["name"] for s in specs]
    if names != want_names:
        fail("%s: arrays %r, expected %r" % (where, names, want_names))
    for s in specs:
        arr = attrs.GetArray(s["name"])
        if arr is None:
            continue
        label = "%s array %r" % (where, s["name"])
        if arr.GetNumberOfComponents() != s["ncomp"]:
            fail("%s: %d components, expected %d"
                 % (label, arr.GetNumberOfComponents(), s["ncomp"]))
            continue
        want = load(base, s["bin"], s["dtype"], (ntuples, s["ncomp"]), bo)
        got = vtk_to_numpy(arr).reshape(-1, s["ncomp"])
        compare(label, got, want)


def appended_header(path):
    """First UInt64 of the first appended payload: its block count for zlib files."""
    with open(path, "rb") as f:
        data = f.read()
    start = data.index(b'<AppendedData encoding="raw">')
    start = data.index(b"_", start) + 1
    return int.from_bytes(data[start:start + 8], "little")


def check_vtu(base, path, d, bo):
    g = vtk_read(vtkXMLUnstructuredGridReader, path)
    if g is None:
        return
    where = os.path.relpath(path, base)
    if g.GetNumberOfPoints() != d["npoints"] or g.GetNumberOfCells() != d["ncells"]:
        fail("%s: %d points %d cells, expected %d and %d" % (
            where, g.GetNumberOfPoints(), g.GetNumberOfCells(), d["npoints"], d["ncells"]))
        return
    # VTK leaves empty parts of a grid as None rather than as empty arrays.
    def numpy_or_empty(arr, dtype):
        return vtk_to_numpy(arr) if arr is not None else np.zeros(0, dtype)

    pts = g.GetPoints()
    compare(where + " points",
            numpy_or_empty(pts.GetData() if pts else None, np.float64).reshape(-1, 3),
            load(base, d["points"], "float64", (d["npoints"], 3), bo))
    compare(where + " cell types", numpy_or_empty(g.GetCellTypesArray(), np.uint8),
            load(base, d["types"], "uint8", (d["ncells"],), bo))
    cells = g.GetCells()
    want_off = load(base, d["offsets"], "int64", (d["ncells"],), bo)
    nconn = int(want_off[-1]) if len(want_off) else 0
    want_conn = load(base, d["connectivity"], "int64", (nconn,), bo)
    if cells is None:
        if d["ncells"]:
            fail(where + ": VTK has no cells")
    else:
        # VTK 9 keeps ncells+1 offsets with a leading 0; the file holds the end offsets.
        got_off = numpy_or_empty(cells.GetOffsetsArray(), np.int64).astype(np.int64)
        if not (d["ncells"] == 0 and len(got_off) <= 1):
            compare(where + " offsets", got_off,
                    np.concatenate(([0], want_off)).astype(np.int64))
        compare(where + " connectivity",
                numpy_or_empty(cells.GetConnectivityArray(), np.int64).astype(np.int64),
                want_conn)
    check_arrays(where + " point data", g.GetPointData(), d["point_data"], d["npoints"],
                 base, bo)
    check_arrays(where + " cell data", g.GetCellData(), d["cell_data"], d["ncells"], base, bo)
    if "min_zlib_blocks" in d:
        nblocks = appended_header(path)
        if nblocks < d["min_zlib_blocks"]:
            fail("%s: first zlib payload has %d blocks, expected >= %d"
                 % (where, nblocks, d["min_zlib_blocks"]))


def check_vti(base, path, d, bo):
    img = vtk_read(vtkXMLImageDataReader, path)
    if img is None:
        return
    where = os.path.relpath(path, base)
    for what, got, want in (("dimensions", img.GetDimensions(), d["dims"]),
                            ("origin", img.GetOrigin(), d["origin"]),
                            ("spacing", img.GetSpacing(), d["spacing"])):
        if list(got) != list(want):
            fail("%s: %s %r, expected %r" % (where, what, list(got), list(want)))
            return
    npts = d["dims"][0] * d["dims"][1] * d["dims"][2]
    ncells = img.GetNumberOfCells()
    check_arrays(where + " point data", img.GetPointData(), d["point_data"], npts, base, bo)
    check_arrays(where + " cell data", img.GetCellData(), d["cell_data"], ncells, base, bo)
    # Independent of the writer's loop order: phi at VTK's own point coordinates must be
    # the sphere's signed distance (float32 rounding only).
    phi = img.GetPointData().GetArray("phi")
    if phi is not None:
        pts = np.array([img.GetPoint(i) for i in range(npts)])
        dist = np.linalg.norm(pts - np.array(d["sphere_center"]), axis=1) - d["sphere_radius"]
        err = np.max(np.abs(vtk_to_numpy(phi).astype(np.float64) - dist))
        if not err < 1e-6:
            fail("%s: phi differs from the sphere distance by %g" % (where, err))


def check_pvd(base, path, d, by_file, bo):
    where = os.path.relpath(path, base)
    parser = vtkXMLDataParser()
    parser.AddObserver(vtkCommand.ErrorEvent, on_vtk_message)
    parser.SetFileName(path)
    del vtk_messages[:]
    if not parser.Parse() or vtk_messages:
        fail("%s: VTK's XML parser rejected it: %s" % (where, vtk_messages))
        return
    root = parser.GetRootElement()
    if root.GetName() != "VTKFile" or root.GetAttribute("type") != "Collection":
        fail("%s: root is not <VTKFile type=\"Collection\">" % where)
        return
    coll = root.FindNestedElementWithName("Collection")
    entries = [coll.GetNestedElement(i) for i in range(coll.GetNumberOfNestedElements())]
    if len(entries) != len(d["frames"]):
        fail("%s: %d datasets, expected %d" % (where, len(entries), len(d["frames"])))
        return
    for e, f in zip(entries, d["frames"]):
        t, file = float(e.GetAttribute("timestep")), e.GetAttribute("file")
        if t != f["time"] or file != f["file"]:
            fail("%s: entry (%r, %r), expected (%r, %r)" % (where, t, file, f["time"], f["file"]))
            continue
        if os.path.isabs(file):
            fail("%s: absolute path %r" % (where, file))
        target = os.path.join(os.path.dirname(path), file)
        check_vtu(base, target, by_file[f["dataset"]], bo)


def main():
    if len(sys.argv) != 2:
        print("usage: vtk_readback.py DIR", file=sys.stderr)
        return 2
    base = sys.argv[1]
    with open(os.path.join(base, "manifest.json")) as f:
        manifest = json.load(f)
    bo = manifest["byte_order"]
    by_file = {d["file"]: d for d in manifest["datasets"]}
    counts = {}
    for d in manifest["datasets"]:
        path = os.path.join(base, d["file"])
        counts[d["kind"]] = counts.get(d["kind"], 0) + 1
        if d["kind"] == "vtu":
            check_vtu(base, path, d, bo)
        elif d["kind"] == "vti":
            check_vti(base, path, d, bo)
        elif d["kind"] == "pvd":
            check_pvd(base, path, d, by_file, bo)
        else:
            fail("manifest: unknown kind %r" % d["kind"])
    if failures:
        print("vtk_readback: %d failure(s)" % len(failures), file=sys.stderr)
        return 1
    print("vtk_readback: ok (%s)" % ", ".join("%d %s" % (n, k) for k, n in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
