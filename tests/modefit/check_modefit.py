#!/usr/bin/python3
"""Independent checks of modefit's bundles (numpy, from docs/bundle.md and closed forms).

usage: check_modefit.py strain BUNDLE E NU SIZE
       check_modefit.py spectrum SPECTRUM.tsv SNAPSHOTS.npy
       check_modefit.py same BUNDLE_A BUNDLE_B
       check_modefit.py beam BUNDLE E NU L B T RIGID(kept|projected)
       check_modefit.py table SNAPSHOT_TABLE.tsv E NU SIZE
       check_modefit.py orthogonal BUNDLE
       check_modefit.py cubic-sum BUNDLE LOG E NU
       check_modefit.py cubic-copies BUNDLE E NU
       check_modefit.py cubic-pod BUNDLE E NU
       check_modefit.py cubic-table SNAPSHOT_TABLE.tsv E NU
Prints what it compared; exits 1 when a check fails."""
import sys

import numpy as np

from modes_read import grain
import ldg  # noqa: E402  (modes_read puts tests/support on the path)

failures = 0


def check(name, ok, detail):
    global failures
    print(("ok   " if ok else "FAIL ") + name + ": " + detail)
    if not ok:
        failures += 1


def lame(E, nu):
    return E * nu / ((1 + nu) * (1 - 2 * nu)), E / (2 * (1 + nu))


def strain_case(path, E, nu, size):
    """One snapshot u = (c x, 0, 0) on a centred box a×b×c, normalized to u_x(a/2) = 1:
    Φ = (2x/a, 0, 0) exactly (linear fields are in the FE space and carry no rigid part),
    K = (λ+2μ) V (2/a)², M = ρ (2/a)² ∫x² = ρ (2/a)² a³ b c / 12."""
    g = grain(path)
    a, b, c = size
    lam, mu = lame(E, nu)
    rho = g["body"]["density"]
    K_ref = (lam + 2 * mu) * a * b * c * (2 / a) ** 2
    M_ref = rho * (2 / a) ** 2 * a ** 3 * b * c / 12
    K, M = g["K"][0, 0], g["M"][0, 0]
    check("K", abs(K / K_ref - 1) < 1e-9, f"{K:.12g} vs (λ+2μ)V(2/a)² = {K_ref:.12g}")
    check("M", abs(M / M_ref - 1) < 1e-9, f"{M:.12g} vs ρ(2/a)²a³bc/12 = {M_ref:.12g}")
    m = g["modes"]
    x = g["nodes"]["position"]
    want = np.zeros_like(x)
    want[:, 0] = 2 * x[:, 0] / a
    err = np.abs(m["nodes"][0] - want).max()
    check("node values", err < 1e-9, f"max |Φ − (2x/a, 0, 0)| = {err:.2e} over {len(x)} nodes")
    # Grid: inside, Φ = 2x/a; outside, the closest box point's value, 2 clamp(x)/a.
    pts = ldg.grid_points(m)
    want = np.zeros_like(pts)
    want[..., 0] = 2 * np.clip(pts[..., 0], -a / 2, a / 2) / a
    err = np.abs(m["grid"][0] - want).max()
    check("grid values", err < 1e-6, f"max |Φ − (2 clamp(x)/a, 0, 0)| = {err:.2e} (float32) "
          f"over {pts[..., 0].size} grid nodes")
    d = g["damping"]
    w_ref = np.sqrt(K / M)
    check("omega", abs(d["omega"][0] / w_ref - 1) < 1e-12, f"{d['omega'][0]:.12g} vs √(K/M)")
    if d["kind"] == 2:
        C_ref = 2 * d["zeta"][0] * w_ref * M
        check("ratio damping", abs(d["c"][0, 0] / C_ref - 1) < 1e-10,
              f"C = {d['c'][0, 0]:.10g} vs 2ζωM = {C_ref:.10g}")


def table_case(path, E, nu, size):
    """The strain case's snapshot table: u = 1e-3 (x, 0, 0) is exactly 1e-3 a/2 times the
    normalized mode, moves the point (a/2, 0, 0) by 1e-3 a/2, and stores the strain energy
    (λ+2μ) (1e-3)² V / 2; nothing is left over."""
    rows = [l.rstrip("\n").split("\t") for l in open(path) if l[0] != "#"]
    head, vals = rows[0], [float(v) for v in rows[1]]
    col = dict(zip(head, vals))
    a, b, c = size
    lam, mu = lame(E, nu)
    want = {"eps1": 1e-3 * a / 2, "point": 1e-3 * a / 2,
            "energy": 0.5 * (lam + 2 * mu) * 1e-6 * a * b * c}
    for key, ref in want.items():
        check(key, abs(col[key] / ref - 1) < 1e-9, f"{col[key]:.12g} vs {ref:.12g}")
    check("residual", col["residual"] < 1e-9, f"{col['residual']:.2e}")


def orthogonal_case(path):
    """--orthogonalize: K and M diagonal (energy-orthogonal modes), and DAMP's ω² = K_kk/M_kk."""
    g = grain(path)
    K, M = g["K"], g["M"]
    for name, A in (("K", K), ("M", M)):
        off = np.abs(A - np.diag(np.diag(A))).max() / np.abs(np.diag(A)).max()
        check(name + " diagonal", off < 1e-9, f"largest off-diagonal / diagonal {off:.2e}")
    w = np.sort(np.sqrt(np.diag(K) / np.diag(M)))
    err = np.abs(g["damping"]["omega"] - w).max() / w.max()
    check("omega", err < 1e-9, f"DAMP omega vs sqrt(K_kk / M_kk): {err:.2e} over {len(w)} modes")


def spectrum_case(tsv, npy):
    """With rigid motion kept and the Euclidean product, POD's singular values are those of
    the nodal snapshot matrix: numpy's SVD is the independent reference."""
    snaps = np.load(npy)
    U = snaps.reshape(len(snaps), -1)
    s_ref = np.linalg.svd(U, compute_uv=False)
    rows = [l.split("\t") for l in open(tsv) if l[0].isdigit()]
    s = np.array([float(r[1]) for r in rows])
    cum = np.array([float(r[3]) for r in rows])
    kept = sum(int(r[4]) for r in rows)
    err = np.abs(s - s_ref).max() / s_ref[0]
    check("singular values", len(s) == len(s_ref) and err < 1e-9,
          f"{len(s)} values, max |σ − σ_numpy| / σ_0 = {err:.2e}")
    e_ref = np.cumsum(s_ref ** 2) / np.sum(s_ref ** 2)
    err = np.abs(cum - e_ref).max()
    check("captured energy", err < 1e-12, f"max |cumulative − numpy| = {err:.2e}")
    check("kept", kept == 3, f"{kept} modes kept (3 fields)")


def same_case(a, b):
    """Rigid motion added to every snapshot must not change anything modefit stores."""
    ga, gb = grain(a), grain(b)
    for key in ("K", "M"):
        err = np.abs(ga[key] - gb[key]).max() / np.abs(ga[key]).max()
        check(key + " unchanged", err < 1e-9, f"max relative difference {err:.2e}")
    na, nb = ga["modes"]["nodes"], gb["modes"]["nodes"]
    err = np.abs(na - nb).max() / np.abs(na).max()
    check("modes unchanged", na.shape == nb.shape and err < 1e-8,
          f"{na.shape[0]} modes, max relative difference {err:.2e}")


def beam_case(path, E, nu, L, b, t, rigid):
    """Henzel eq. 51 on a cuboid L×b×t: only E_xx = −z(π/L)² sin(πs/L) is non-zero, so
    K = (λ+2μ)(π/L)⁴ (L/2) b t³/12; M = ρ[(π/L)² b t³ L/24 + b t L/2] raw, and with the
    mean deflection 2/π removed M = ρ[(π/L)² b t³ L/24 + b t L (1/2 − 4/π²)]."""
    g = grain(path)
    lam, mu = lame(E, nu)
    rho = g["body"]["density"]
    k = np.pi / L
    K_ref = (lam + 2 * mu) * k ** 4 * (L / 2) * b * t ** 3 / 12
    bend = k ** 2 * b * t ** 3 * L / 24
    M_ref = rho * (bend + b * t * L * (0.5 if rigid == "kept" else 0.5 - 4 / np.pi ** 2))
    K, M = g["K"][0, 0], g["M"][0, 0]
    tol = 5e-3
    check("K", abs(K / K_ref - 1) < tol, f"{K:.8g} vs closed form {K_ref:.8g} "
          f"({K / K_ref - 1:+.2e}, tolerance {tol})")
    check("M", abs(M / M_ref - 1) < tol, f"{M:.8g} vs closed form {M_ref:.8g} "
          f"({M / M_ref - 1:+.2e}, tolerance {tol})")
    m = g["modes"]
    check("analytic kind", m["kind"] == 1 and m["descriptor"].startswith("beam-bending"),
          f"kind {m['kind']}, descriptor '{m['descriptor']}'")
    x = g["nodes"]["position"]
    s = x[:, 0] + L / 2
    shift = 0.0 if rigid == "kept" else 2 / np.pi
    want = np.stack([x[:, 2] * k * np.cos(k * s), 0 * s, -np.sin(k * s) + shift], axis=1)
    err = np.abs(m["nodes"][0] - want).max()
    check("node values", err < 2e-3, f"max |Φ − eq. 51{' − rigid' if shift else ''}| = {err:.2e}")


# ---- --cubic on the cube [-1,1]^3 (mesh cells 3,4,5: not symmetric under the rotations) ----
# P_p = C^p with C v = (v_y, v_z, v_x); copy p of a z-field acts along C^p e_z: z, y, x.
COPY_AXIS = (2, 1, 0)
CUBE_V = 8.0


def body_frame(g):
    """Body-frame node positions → geometry frame, and geometry vectors → body frame."""
    R = ldg.quat_matrix(g["body"]["orientation"])
    c = g["body"]["centroid"]
    return (lambda xb: c + xb @ R.T), (lambda v: v @ R)


def cubic_sum_case(path, log, E, nu):
    """u = -1e-3 (0, 0, z): Σ_P P u(Pᵀx) = -1e-3 x (Σ_p P e_z ⊗ P e_z = I), exact for a linear
    field on any mesh; normalized at (0,0,1) along -z: Φ = -x, no rigid part (the cube is
    centred). K = ∫ ε:C:ε with ε = -I: (9λ + 6μ) V; M = ρ ∫ |x|² = ρ V (3 · 1/3)."""
    g = grain(path)
    lam, mu = lame(E, nu)
    rho = g["body"]["density"]
    K, M = g["K"], g["M"]
    check("one mode", K.shape == (1, 1), f"KMAT {K.shape}")
    K_ref, M_ref = (9 * lam + 6 * mu) * CUBE_V, rho * CUBE_V
    check("K", abs(K[0, 0] / K_ref - 1) < 1e-9, f"{K[0, 0]:.12g} vs (9λ+6μ)V = {K_ref:.12g}")
    check("M", abs(M[0, 0] / M_ref - 1) < 1e-9, f"{M[0, 0]:.12g} vs ρV = {M_ref:.12g}")
    to_geom, to_body = body_frame(g)
    xb = g["nodes"]["position"]
    want = to_body(-to_geom(xb))
    err = np.abs(g["modes"]["nodes"][0] - want).max()
    check("node values", err < 1e-12, f"max |Φ + x| = {err:.2e} over {len(xb)} nodes")
    m = g["modes"]
    pts = ldg.grid_points(m).reshape(-1, 3)
    want = to_body(-np.clip(to_geom(pts), -1, 1)).reshape(m["grid"][0].shape)
    err = np.abs(m["grid"][0] - want).max()
    check("grid values", err < 1e-6, f"max |Φ + clamp(x)| = {err:.2e} (float32; outside the "
          f"cube each rotated term takes its closest boundary point)")
    poles = [float(l.split("inward ")[1].split(" ")[0]) for l in open(log)
             if "--cubic sum, mode 1, pole" in l]
    err = max(abs(v - 1) for v in poles) if poles else np.inf
    check("six poles (-v)", len(poles) == 6 and err < 1e-12,
          f"{len(poles)} poles printed, max |inward - 1| = {err:.2e}")


def quadratic_copies_reference(E, nu, rho):
    """Copies of u = -(0, 0, z + z²) (normalized at the rotated poles: scale 1/2) on the cube:
    mode p = -(x_a + x_a² - 1/3)/2 e_a, a = COPY_AXIS[p], once the mean (rigid translation) is
    removed (no rotation part: ∫ x_b f(x_a) = 0). ε = -(1 + 2 x_a)/2 e_a ⊗ e_a:
    K_pp = (λ+2μ) ∫(1+2x)²/4 = (λ+2μ) 14/3, K_pq = λ ∫(1+2x_a)(1+2x_b)/4 = 2λ;
    M_pp = ρ ∫(x + x² - 1/3)²/4 = ρ 38/45, M_pq = 0 (orthogonal components)."""
    lam, mu = lame(E, nu)
    K = np.full((3, 3), 2 * lam)
    np.fill_diagonal(K, (lam + 2 * mu) * 14 / 3)
    return K, rho * 38 / 45 * np.eye(3)


def cubic_copies_case(path, E, nu):
    g = grain(path)
    K_ref, M_ref = quadratic_copies_reference(E, nu, g["body"]["density"])
    K, M = g["K"], g["M"]
    check("three modes", K.shape == (3, 3), f"KMAT {K.shape}")
    err = np.abs(K - K_ref).max() / K_ref.max()
    check("K", err < 1e-9, f"max |K - K_ref| / max K_ref = {err:.2e}: diagonal "
          f"{np.diag(K)} vs {K_ref[0, 0]:.10g}, off-diagonal {K[0, 1]:.10g} {K[0, 2]:.10g} "
          f"{K[1, 2]:.10g} vs 2λ = {K_ref[0, 1]:.10g}")
    err = np.abs(M - M_ref).max() / M_ref.max()
    check("M", err < 1e-9, f"max |M - M_ref| / max M_ref = {err:.2e} (ρ 38/45 = "
          f"{M_ref[0, 0]:.10g}, off-diagonal 0)")
    to_geom, to_body = body_frame(g)
    x = to_geom(g["nodes"]["position"])
    worst = 0.0
    for p, a in enumerate(COPY_AXIS):
        want = np.zeros_like(x)
        want[:, a] = -(x[:, a] + x[:, a] ** 2 - 1 / 3) / 2
        worst = max(worst, np.abs(g["modes"]["nodes"][p] - to_body(want)).max())
    check("node values", worst < 1e-9, f"max |Φ_p + (x_a + x_a² - 1/3)/2 e_a| = {worst:.2e} "
          f"(tet10 reproduces the quadratic copies)")


def cubic_pod_case(path, E, nu):
    """POD of the three copies, unnormalized: another basis of the same span, so the
    generalized eigenvalues of (K, M) are those of the closed-form pair."""
    g = grain(path)
    K_ref, M_ref = quadratic_copies_reference(E, nu, g["body"]["density"])
    lam = np.sort(np.linalg.eigvals(np.linalg.solve(g["M"], g["K"])).real)
    ref = np.sort(np.linalg.eigvals(np.linalg.solve(M_ref, K_ref)).real)
    err = np.abs(lam - ref).max() / ref.max() if len(lam) == 3 else np.inf
    check("POD span", err < 1e-9, f"{len(lam)} modes; eig(M⁻¹K) {lam} vs {ref}: {err:.2e}")


def cubic_table_case(path, E, nu):
    """The copies' snapshot table: each copy is 2e-3 times its normalized mode (eps one-hot),
    moves its rotated pole inwards by 2e-3, stores (λ+2μ)(56/3)(1e-3)²/2, no residual."""
    rows = [l.rstrip("\n").split("\t") for l in open(path) if l[0] != "#"]
    head = rows[0]
    lam, mu = lame(E, nu)
    energy = 0.5 * (lam + 2 * mu) * 56 / 3 * 1e-6
    check("three rows", len(rows) == 4, f"{len(rows) - 1} snapshot rows")
    for r in rows[1:]:
        col = dict(zip(head, (float(v) for v in r)))
        i = int(col["snapshot"]) - 1
        eps = np.array([col[f"eps{k + 1}"] for k in range(3)])
        want = np.where(np.arange(3) == i, 2e-3, 0.0)
        check(f"copy {i + 1} eps", np.abs(eps - want).max() < 1e-12, f"{eps} vs {want}")
        check(f"copy {i + 1} point", abs(col["point"] - 2e-3) < 1e-14, f"{col['point']:.12g}")
        check(f"copy {i + 1} energy", abs(col["energy"] / energy - 1) < 1e-9,
              f"{col['energy']:.12g} vs {energy:.12g}")
        check(f"copy {i + 1} residual", col["residual"] < 1e-9, f"{col['residual']:.2e}")


def main():
    case = sys.argv[1]
    if case == "strain":
        strain_case(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]),
                    [float(v) for v in sys.argv[5].split(",")])
    elif case == "table":
        table_case(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]),
                   [float(v) for v in sys.argv[5].split(",")])
    elif case == "orthogonal":
        orthogonal_case(sys.argv[2])
    elif case == "spectrum":
        spectrum_case(sys.argv[2], sys.argv[3])
    elif case == "same":
        same_case(sys.argv[2], sys.argv[3])
    elif case == "beam":
        beam_case(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]),
                  float(sys.argv[6]), float(sys.argv[7]), sys.argv[8])
    elif case == "cubic-sum":
        cubic_sum_case(sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5]))
    elif case in ("cubic-copies", "cubic-pod", "cubic-table"):
        fn = {"cubic-copies": cubic_copies_case, "cubic-pod": cubic_pod_case,
              "cubic-table": cubic_table_case}[case]
        fn(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]))
    else:
        sys.exit("unknown case " + case)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
