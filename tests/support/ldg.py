"""A minimal, independent reader of ldem grain bundles (docs/bundle.md) for test scripts.

Written from the format document, not from the C reader, so a test that compares the two
checks the writer against the specification rather than against itself."""
import struct
import zlib

import numpy as np

MAGIC = b"\x89LDG\r\n\x1a\n"


def read_bundles(path):
    """All bundles in the file, each a dict tag -> payload bytes (CRCs verified)."""
    data = open(path, "rb").read()
    pos, bundles = 0, []
    while pos < len(data):
        if data[pos:pos + 8] != MAGIC:
            raise ValueError(f"{path}: byte {pos}: bad magic")
        version, flags = struct.unpack_from("<II", data, pos + 8)
        if version != 1 or flags != 0:
            raise ValueError(f"{path}: unsupported version {version} / flags {flags}")
        pos += 16
        sections = {}
        while True:
            tag = data[pos:pos + 4].decode("ascii")
            _flags, length = struct.unpack_from("<IQ", data, pos + 4)
            payload = data[pos + 16:pos + 16 + length]
            (crc,) = struct.unpack_from("<I", data, pos + 16 + length)
            if zlib.crc32(data[pos:pos + 16 + length]) != crc:
                raise ValueError(f"{path}: section {tag}: CRC mismatch")
            pos += 20 + length
            if tag == "ENDB":
                break
            sections[tag] = payload
        bundles.append(sections)
    return bundles


def meta(payload):
    out = {}
    for line in payload.decode("utf-8").splitlines():
        key, _, value = line.partition("=")
        out[key] = value
    return out


def lset(payload):
    nx, ny, nz, reserved = struct.unpack_from("<4I", payload, 0)
    origin = np.array(struct.unpack_from("<3d", payload, 16))
    spacing = np.array(struct.unpack_from("<3d", payload, 40))
    phi = np.frombuffer(payload, dtype="<f4", offset=64, count=nx * ny * nz)
    # index i + nx*(j + ny*k): reshape to [k, j, i]
    return {"dims": (nx, ny, nz), "origin": origin, "spacing": spacing,
            "phi": phi.reshape(nz, ny, nx).astype(np.float64)}


def nodes(payload):
    n, t = struct.unpack_from("<2Q", payload, 0)
    off = 16
    pos = np.frombuffer(payload, "<f8", 3 * n, off).reshape(n, 3)
    off += 24 * n
    nrm = np.frombuffer(payload, "<f8", 3 * n, off).reshape(n, 3)
    off += 24 * n
    area = np.frombuffer(payload, "<f8", n, off)
    off += 8 * n
    tri = np.frombuffer(payload, "<u4", 3 * t, off).reshape(t, 3)
    return {"position": pos, "normal": nrm, "area": area, "triangles": tri}


def body(payload):
    v = struct.unpack_from("<13d", payload, 0)
    return {"volume": v[0], "density": v[1], "mass": v[2], "inertia": np.array(v[3:6]),
            "centroid": np.array(v[6:9]), "orientation": np.array(v[9:13])}


def quat_matrix(q):
    """Rotation matrix of unit quaternion (w, x, y, z): body axes in the geometry frame."""
    w, x, y, z = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def grid_points(ls):
    """Body-frame coordinates of every grid node, shaped [k, j, i, 3]."""
    nx, ny, nz = ls["dims"]
    o, h = ls["origin"], ls["spacing"]
    z, y, x = np.meshgrid(o[2] + h[2] * np.arange(nz), o[1] + h[1] * np.arange(ny),
                          o[0] + h[0] * np.arange(nx), indexing="ij")
    return np.stack([x, y, z], axis=-1)


def trilinear(ls, p):
    """φ and its gradient at points p (n×3) by trilinear interpolation (points inside)."""
    o, h = ls["origin"], ls["spacing"]
    phi = ls["phi"]
    nx, ny, nz = ls["dims"]
    u = (p - o) / h
    c = np.clip(np.floor(u).astype(int), 0, np.array([nx, ny, nz]) - 2)
    f = u - c
    val = np.zeros(len(p))
    grad = np.zeros((len(p), 3))
    for dk in (0, 1):
        for dj in (0, 1):
            for di in (0, 1):
                v = phi[c[:, 2] + dk, c[:, 1] + dj, c[:, 0] + di]
                wx = f[:, 0] if di else 1 - f[:, 0]
                wy = f[:, 1] if dj else 1 - f[:, 1]
                wz = f[:, 2] if dk else 1 - f[:, 2]
                val += v * wx * wy * wz
                grad[:, 0] += v * (1 if di else -1) * wy * wz / h[0]
                grad[:, 1] += v * wx * (1 if dj else -1) * wz / h[1]
                grad[:, 2] += v * wx * wy * (1 if dk else -1) / h[2]
    return val, grad


# ---- ETAB (energyfit) ----
INTERP_NAMES = ("linear", "cubic", "pchip")
EXTRAPOLATE_NAMES = ("none", "linear", "quadratic")


def etab(payload):
    """Nonlinear modal energy tables: a list of dicts with mode, interp and extrapolate
    (names), eps, energy, force (arrays). The table's u32 interpolation field holds the
    kind in bits 0-7 and the extrapolation beyond the table in bits 8-15."""
    count, reserved = struct.unpack_from("<2I", payload, 0)
    if count < 1 or reserved != 0:
        raise ValueError(f"ETAB: count {count}, reserved {reserved}")
    off, tables = 8, []
    for _ in range(count):
        mode, field, n = struct.unpack_from("<IIQ", payload, off)
        off += 16
        if n < 2 or off + 24 * n > len(payload):
            raise ValueError(f"ETAB: table of mode {mode}: {n} samples do not fit")
        if field >> 16 or (field & 0xFF) >= len(INTERP_NAMES) \
                or (field >> 8) & 0xFF >= len(EXTRAPOLATE_NAMES):
            raise ValueError(f"ETAB: table of mode {mode}: interpolation field {field:#x}")
        arrays = []
        for _a in range(3):
            arrays.append(np.frombuffer(payload, "<f8", n, off).copy())
            off += 8 * n
        if not np.all(np.diff(arrays[0]) > 0):
            raise ValueError(f"ETAB: table of mode {mode}: eps not strictly increasing")
        tables.append({"mode": mode, "interp": INTERP_NAMES[field & 0xFF],
                       "extrapolate": EXTRAPOLATE_NAMES[(field >> 8) & 0xFF],
                       "eps": arrays[0], "energy": arrays[1], "force": arrays[2]})
    if off != len(payload):
        raise ValueError(f"ETAB: {len(payload) - off} bytes after the last table")
    return tables


def etab_by_mode(payload):
    """The ETAB tables keyed by mode index."""
    return {t["mode"]: t for t in etab(payload)}
