"""Decoders for the modal sections of a grain bundle (docs/bundle.md: MODE, KMAT, MMAT,
DAMP), written from the format document for the modefit tests."""
import struct
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import ldg  # noqa: E402


def matrix(payload):
    (n, reserved) = struct.unpack_from("<2I", payload, 0)
    assert reserved == 0
    return np.frombuffer(payload, dtype="<f8", offset=8, count=n * n).reshape(n, n)


def modes(payload):
    m, kind, p = struct.unpack_from("<IIQ", payload, 0)
    dims = struct.unpack_from("<3I", payload, 16)
    origin = np.array(struct.unpack_from("<3d", payload, 32))
    spacing = np.array(struct.unpack_from("<3d", payload, 56))
    (d,) = struct.unpack_from("<Q", payload, 80)
    off = 88
    node_values = np.frombuffer(payload, dtype="<f8", offset=off, count=3 * m * p).reshape(m, p, 3)
    off += 24 * m * p
    ng = dims[0] * dims[1] * dims[2]
    grid = np.frombuffer(payload, dtype="<f4", offset=off, count=3 * m * ng)
    # mode-major, x fastest: [mode, k, j, i, comp]
    grid = grid.reshape(m, dims[2], dims[1], dims[0], 3).astype(np.float64)
    off += 12 * m * ng
    descriptor = payload[off:off + d].decode("utf-8")
    assert off + d == len(payload), "trailing bytes in MODE"
    return {"count": m, "kind": kind, "nodes": node_values, "dims": dims, "origin": origin,
            "spacing": spacing, "grid": grid, "descriptor": descriptor}


def damping(payload):
    n, kind = struct.unpack_from("<2I", payload, 0)
    alpha, beta = struct.unpack_from("<2d", payload, 8)
    arr = np.frombuffer(payload, dtype="<f8", offset=24, count=2 * n + n * n)
    return {"n": n, "kind": kind, "alpha": alpha, "beta": beta, "zeta": arr[:n],
            "omega": arr[n:2 * n], "c": arr[2 * n:].reshape(n, n)}


def grain(path):
    """The first bundle of a file, decoded: dict of numpy-friendly values."""
    b = ldg.read_bundles(path)[0]
    out = {"sections": b}
    if "KMAT" in b:
        out["K"] = matrix(b["KMAT"])
    if "MMAT" in b:
        out["M"] = matrix(b["MMAT"])
    if "MODE" in b:
        out["modes"] = modes(b["MODE"])
    if "DAMP" in b:
        out["damping"] = damping(b["DAMP"])
    if "NODE" in b:
        out["nodes"] = ldg.nodes(b["NODE"])
    if "LSET" in b:
        out["lset"] = ldg.lset(b["LSET"])
    if "BODY" in b:
        out["body"] = ldg.body(b["BODY"])
    if "META" in b:
        out["meta"] = ldg.meta(b["META"])
    return out
