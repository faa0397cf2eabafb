#!/usr/bin/python3
"""Closed form of Mindlin & Deresiewicz (1953) section 17 (Kuhn 2011, sec. 4.1, Fig. 8).

The program: two like elastic spheres are pressed together by a normal force N0 (no
tangential force). Then T and N are raised proportionally, dT/dN = b*mu (b = 2), from
(N0, 0) up to N1 = 1.9 N0. Then both are reduced in the same proportion down to N0, passing
1.45 N0. The force path retraces its line, T = b*mu*(N - N0), but the tangential
displacement does not. The result is a hysteresis loop in the (s, T) plane.

Derived here independently in the method-of-dimensionality-reduction (MDR) picture of
jager.md sec. 2-3. Hertz: N(z) = cN z^1.5, and everything scales with d0. Write r = N/N0, so
d = d0 r^(2/3). A level z has N(z) = N0 (z/d0)^1.5. The state is a stack of slopes w(h) on
level intervals. Its tangential force is T = sum w_k (N(z_k) - N(z_{k-1})), and its elastic
shift is s = kappa * sum w_k (z_k - z_{k-1}). No gross sliding occurs on this program, so
s_el is the total s.

Stage 0, normal loading 0 -> N0: stack {w = 0 on (0, d)}, so T = 0 and s = 0.

Stage 1, loading N0 -> N1 with dT/dN = b*mu, b > 1. The move is steeper than mu, so it
slips. The newly touching springs and an annulus of old springs slip, and the stack is
    {w = 0 on (0, z*)},  {w = mu on (z*, d)},
    T = mu (N - N(z*)),        s = mu kappa (d - z*).
Proportionality T = b mu (N - N0) gives N(z*) = N - b (N - N0), i.e. for b = 2
N(z*) = 2 N0 - N. The front z* descends monotonically, since dN(z*)/dN = 1 - b < 0. It would
reach 0 (gross sliding) at N = b N0/(b - 1) = 2 N0. So N1 = 1.9 N0 leaves a stick zone with
N(z*1) = 0.1 N0, and T1 = 1.8 mu N0 = 0.947 mu N1.

Stage 2, reversal N1 -> N0 with dT/dN = b*mu (both decreasing). The top cell is truncated
to the current d. The springs near the top reverse their slip (slope -mu), and a reverse
slip front z** moves down from d1. The frozen front z* = z*1 stays in place:
    {w = 0 on (0, z*)},  {w = +mu on (z*, z**)},  {w = -mu on (z**, d)},
    T = mu [ (N(z**) - N(z*)) - (N - N(z**)) ] = mu (2 N(z**) - N(z*) - N),
    s = mu kappa [ (z** - z*) - (d - z**) ]    = mu kappa (2 z** - z* - d).
Proportionality T = T1 - b mu (N1 - N) = b mu (N - N0) gives
    N(z**) = (T/mu + N(z*) + N)/2,      for b = 2:  N(z**) = (3 N - N1)/2.
At N = N1 this is z** = d1 (continuous), and dN(z**)/dN = (1 + b)/2 > 1, so z** < d.
At N = 1.45 N0, N(z**) = 1.225 N0. At N = N0, N(z**) = 0.55 N0, and T = 0 with
s = mu kappa d0 (2*0.55^(2/3) - 0.1^(2/3) - 1) = 0.1272 mu kappa d0 > 0 (the loop stays open).

When z** would pass z*: the +mu band (z*, z**) closes when N(z**) = N(z*). For b = 2 and
N1 = 1.9 N0 that happens at N = (4 N0 - N1)/3 = 0.7 N0, below this program's end (N0), so
the branch below is documented and implemented but not reached here. Once the band has
closed, the reverse front swallows it and enters the virgin stick zone:
    {w = 0 on (0, z3)},  {w = -mu on (z3, d)},
    T = -mu (N - N(z3)),  s = -mu kappa (d - z3),  N(z3) = N + T/mu,
which joins continuously (z3 = z* at the switch). For b = 2 it gives N(z3) = 3 N - 2 N0. It
ends in reverse gross sliding, N(z3) = 0 (T = -mu N), after which the force-controlled
proportional program is infeasible (it would need |T| > mu N).

Outputs (in --out-dir):
  md17_curve.tsv   ~400 points along the whole program (N, d, s, T, T/(mu N0), s/s_ref),
                   with s_ref = mu kappa d0, the Cattaneo-Mindlin sliding displacement at N0
  md17_path.tsv    the four-step path for `contact-path`: "d sx sy" per state, from (0,0,0),
                   at N = N0, 1.45 N0, 1.9 N0, 1.45 N0, N0 (first state: the normal loading)
  md17_states.tsv  the closed form at those five states (N, d, s, T)
  md17_fine_path.tsv  the curve's states as a path of ~400 small steps
"""
import argparse
import math
import os
import sys

import numpy as np


class MD17:
    """Mindlin-Deresiewicz sec. 17 program for one pair; all functions take r = N/N0."""

    def __init__(self, E, nu, mu, R1, R2, d0, n1_ratio, slope):
        if not slope > 1.0:
            raise ValueError("this closed form assumes dT/dN = slope*mu with slope > 1 (slip on loading)")
        if not 1.0 < n1_ratio < slope / (slope - 1.0):
            raise ValueError("N1/N0 must lie in (1, slope/(slope-1)): beyond it the loading reaches gross sliding")
        self.E, self.nu, self.mu, self.R1, self.R2, self.d0 = E, nu, mu, R1, R2, d0
        self.rstar = R1 * R2 / (R1 + R2)
        self.estar = E / (2.0 * (1.0 - nu * nu))
        self.gstar = E / ((1.0 + nu) * (2.0 - nu))
        self.kappa = (2.0 - nu) / (2.0 * (1.0 - nu))
        self.cn = 4.0 / 3.0 * self.estar * math.sqrt(self.rstar)
        self.N0 = self.cn * d0 ** 1.5
        self.r1 = n1_ratio
        self.b = slope
        self.s_ref = mu * self.kappa * d0
        # Frozen stick-zone front after loading (as a force ratio N(z*)/N0).
        self.rz1 = self.r1 - self.b * (self.r1 - 1.0)
        # Where the +mu band closes on the way down (N(z**) = N(z*)): solve
        # (T/mu + N(z*) + N)/2 = N(z*) with T = b mu (N - N0)  ->  r (b + 1) = b + rz1.
        self.r_close = (self.b + self.rz1) / (self.b + 1.0)
        # Reverse gross sliding: N(z3) = N + T/mu = 0  ->  r (1 + b) = b.
        self.r_gross_rev = self.b / (1.0 + self.b)

    def level(self, r):
        """Approach (level) at which the Hertz force is r*N0 (exact d0 for r = 1)."""
        return 0.0 if r <= 0 else self.d0 * r ** (2.0 / 3.0)

    def T(self, r):
        """Proportional force path (same line up and down)."""
        return self.b * self.mu * self.N0 * (r - 1.0)

    def loading(self, r):
        """Stage 1 (1 <= r <= r1): returns d, s, T, level of z*."""
        rz = r - self.b * (r - 1.0)               # N(z*)/N0
        d, zs = self.level(r), self.level(rz)
        s = self.mu * self.kappa * (d - zs)
        T = self.mu * self.N0 * (r - rz)          # = mu (N - N(z*)) = b mu (N - N0)
        return d, s, T, zs

    def reversal(self, r):
        """Stage 2 (r <= r1, decreasing): returns d, s, T, z*, z** (z** = nan past the switch)."""
        d = self.level(r)
        zs = self.level(self.rz1)
        Tm = self.b * (r - 1.0)                   # T/(mu N0)
        if r >= self.r_close:
            rzz = 0.5 * (Tm + self.rz1 + r)       # N(z**)/N0
            zz = self.level(rzz)
            s = self.mu * self.kappa * (2.0 * zz - zs - d)
            T = self.mu * self.N0 * (2.0 * rzz - self.rz1 - r)
            return d, s, T, zs, zz
        if r < self.r_gross_rev:
            raise ValueError("N/N0 = %g is below reverse gross sliding (%g)" % (r, self.r_gross_rev))
        rz3 = r + Tm                              # N(z3)/N0 (the +mu band is swallowed)
        z3 = self.level(rz3)
        s = -self.mu * self.kappa * (d - z3)
        T = -self.mu * self.N0 * (r - rz3)
        return d, s, T, z3, float("nan")


def self_check(m):
    """Consistency of the branches: continuity at r1 and at the band closing, and T equal to
    the proportional line on every branch (the stack sums and the force line must agree)."""
    worst = 0.0
    for r in np.linspace(1.0, m.r1, 50):
        _, _, T, _ = m.loading(r)
        worst = max(worst, abs(T - m.T(r)) / (m.mu * m.N0))
    for r in np.linspace(m.r1, m.r_gross_rev + 1e-9, 80):
        _, _, T, _, _ = m.reversal(r)
        worst = max(worst, abs(T - m.T(r)) / (m.mu * m.N0))
    dl, sl, _, _ = m.loading(m.r1)
    dr, sr, _, _, _ = m.reversal(m.r1)
    worst = max(worst, abs(sl - sr) / m.s_ref, abs(dl - dr) / m.d0)
    if worst > 1e-12:
        sys.exit("md17_closed_form: error: self-check: branches disagree by %.3g" % worst)
    # s is continuous where the +mu band closes (finite slope: a jump of 2e-9 r is tiny).
    eps = 1e-9
    _, sa, _, _, _ = m.reversal(m.r_close + eps)
    _, sb, _, _, _ = m.reversal(m.r_close - eps)
    if abs(sa - sb) / m.s_ref > 1e-6:
        sys.exit("md17_closed_form: error: self-check: s jumps where z** meets z*")


def mdr_springs(m, path, springs, substeps):
    """Independent check: the collinear MDR spring bed (jager.md sec. 2) driven along the
    displacement path [(d, s), ...] from (0, 0), each interval cut into `substeps` straight
    pieces. Springs at x in (0, a_max) (midpoints; the bed is symmetric), level z = x^2/R*,
    tangential displacement u with |u| <= mu kappa (d - z); T = 2 G* sum u dx. A spring that
    touches inside a piece takes the part of the move after its touch (straight path).
    Returns T after every path point."""
    dmax = max(d for d, _ in path)
    amax = math.sqrt(m.rstar * dmax) * (1.0 + 1e-12)
    dx = amax / springs
    x = (np.arange(springs) + 0.5) * dx
    z = x * x / m.rstar
    u = np.zeros(springs)
    dp, sp = 0.0, 0.0          # the current state
    out = []
    for d1, s1 in path:
        d0, s0 = dp, sp
        for k in range(1, substeps + 1):
            dn = d0 + (d1 - d0) * k / substeps if k < substeps else d1
            sn = s0 + (s1 - s0) * k / substeps if k < substeps else s1
            dd, ds = dn - dp, sn - sp
            old = z < dp
            u[old] += ds
            if dd > 0:
                new = (~old) & (z < dn)
                u[new] = ds * (dn - z[new]) / dd
            u[z >= dn] = 0.0
            bound = m.mu * m.kappa * np.maximum(dn - z, 0.0)
            np.clip(u, -bound, bound, out=u)
            dp, sp = dn, sn
        out.append(2.0 * m.gstar * dx * u.sum())
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--E", type=float, default=70e9)
    ap.add_argument("--nu", type=float, default=0.25)
    ap.add_argument("--mu", type=float, default=0.3)
    ap.add_argument("--R1", type=float, default=5e-3)
    ap.add_argument("--R2", type=float, default=3e-3)
    ap.add_argument("--d0", type=float, default=1e-6, help="approach giving N0")
    ap.add_argument("--n1", type=float, default=1.9, help="N1/N0")
    ap.add_argument("--slope", type=float, default=2.0, help="dT/dN in units of mu")
    ap.add_argument("--points", type=int, default=400)
    ap.add_argument("--out-dir", default="out")
    ap.add_argument("--mdr-springs", type=int, default=20000,
                    help="check the closed form against an MDR spring bed of this many springs "
                         "(0: skip)")
    a = ap.parse_args()

    m = MD17(a.E, a.nu, a.mu, a.R1, a.R2, a.d0, a.n1, a.slope)
    self_check(m)
    os.makedirs(a.out_dir, exist_ok=True)
    g = "%.17g"
    case = ("# MD sec.17: E=%g nu=%g mu=%g R1=%g R2=%g d0=%g N0=%.17g N1=%g N0 dT/dN=%g mu; "
            "s_ref = mu kappa d0 = %.17g\n" % (a.E, a.nu, a.mu, a.R1, a.R2, a.d0, m.N0, a.n1,
                                               a.slope, m.s_ref))

    # (a) the fine curve: 10 % of the points on the normal loading, the rest split
    # between the loading and the reversal.
    n0 = max(2, a.points // 10)
    n1 = (a.points - n0) // 2
    n2 = a.points - n0 - n1
    rows = []
    for r in np.linspace(0.0, 1.0, n0):
        rows.append((0, r * m.N0, m.level(r), 0.0, 0.0))
    for r in np.linspace(1.0, m.r1, n1 + 1)[1:]:
        d, s, T, _ = m.loading(r)
        rows.append((1, r * m.N0, d, s, T))
    for r in np.linspace(m.r1, 1.0, n2 + 1)[1:]:
        d, s, T, _, _ = m.reversal(r)
        rows.append((2, r * m.N0, d, s, T))
    with open(os.path.join(a.out_dir, "md17_curve.tsv"), "w") as f:
        f.write(case)
        f.write("# stage\tN\td\ts\tT\tT_over_muN0\ts_over_sref\n")
        for st, N, d, s, T in rows:
            f.write(("%d\t" + "\t".join([g] * 6) + "\n")
                    % (st, N, d, s, T, T / (m.mu * m.N0), s / m.s_ref))

    # The same program as a path of ~400 small steps (the curve's states), to drive the laws
    # along the whole curve.
    with open(os.path.join(a.out_dir, "md17_fine_path.tsv"), "w") as f:
        for _, _, d, s, _ in rows:
            f.write((g + "\t" + g + "\t0\n") % (d, s))

    # (b) the four-step path (five states: the normal loading, then 2 up, 2 down) and (c) the
    # closed form at its states.
    rmid = 0.5 * (1.0 + m.r1)
    states = [("normal", 1.0, m.level(1.0), 0.0, 0.0)]
    for r in (rmid, m.r1):
        d, s, T, _ = m.loading(r)
        states.append(("load", r, d, s, T))
    for r in (rmid, 1.0):
        d, s, T, _, _ = m.reversal(r)
        states.append(("reverse", r, d, s, T))
    with open(os.path.join(a.out_dir, "md17_path.tsv"), "w") as f:
        for _, _, d, s, _ in states:
            f.write((g + "\t" + g + "\t0\n") % (d, s))
    title = ("E = %g GPa, \u03bd = %g, \u03bc = %g, R1 = %g mm, R2 = %g mm, N0 = N(d0 = %g \u03bcm)"
             " = %.4g N, N1 = %g N0" % (a.E / 1e9, a.nu, a.mu, a.R1 * 1e3, a.R2 * 1e3, a.d0 * 1e6,
                                        m.N0, a.n1))
    with open(os.path.join(a.out_dir, "md17_states.tsv"), "w", encoding="utf-8") as f:
        f.write(case)
        f.write("# title: " + title + "\n")
        f.write("# s_ref: %.17g\n# muN0: %.17g\n" % (m.s_ref, m.mu * m.N0))
        f.write("# state\tstage\tN_over_N0\tN\td\ts\tT_cf\tT_over_muN0\ts_over_sref\n")
        for i, (st, r, d, s, T) in enumerate(states, 1):
            f.write(("%d\t%s\t" + "\t".join([g] * 7) + "\n")
                    % (i, st, r, r * m.N0, d, s, T, T / (m.mu * m.N0), s / m.s_ref))

    # Independent check of the derivation: the MDR spring bed driven along the same paths,
    # one straight piece between successive points (the straight pieces land exactly on the
    # closed form at every point, as the Jager steps do; what remains is grid error).
    if a.mdr_springs > 0:
        fine = [(d, s) for _, _, d, s, _ in rows[1:]]
        Tm = mdr_springs(m, fine, a.mdr_springs, 1)
        e_fine = max(abs(t1 - r[4]) for t1, r in zip(Tm, rows[1:])) / (m.mu * m.N0)
        Tm = mdr_springs(m, [(d, s) for _, _, d, s, _ in states], a.mdr_springs, 1)
        e_four = max(abs(t1 - st[4]) for t1, st in zip(Tm, states)) / (m.mu * m.N0)
        # The branch past the band closing (not on this program): continue the reversal
        # below N0 to just above reverse gross sliding, through r_close.
        r_end = m.r_gross_rev + 0.25 * (m.r_close - m.r_gross_rev)
        ext = [(1, r) for r in np.linspace(1.0, m.r1, 60)[1:]]
        ext += [(2, r) for r in np.linspace(m.r1, r_end, 120)[1:]]
        ref = [m.loading(r)[:3] if st == 1 else m.reversal(r)[:3] for st, r in ext]
        Tm = mdr_springs(m, [(m.d0, 0.0)] + [(d, s) for d, s, _ in ref], a.mdr_springs, 1)[1:]
        e_ext = max(abs(t1 - r[2]) for t1, r in zip(Tm, ref)) / (m.mu * m.N0)
        print("md17_closed_form: closed form vs MDR bed of %d springs: max |dT|/(mu N0) = %.2e "
              "(fine curve), %.2e (four steps), %.2e (reversal continued to %.3f N0, past z** = z* "
              "at %.3f N0)" % (a.mdr_springs, e_fine, e_four, e_ext, r_end, m.r_close))
        if max(e_fine, e_four, e_ext) > 1e-6:
            sys.exit("md17_closed_form: error: the closed form and the MDR spring bed disagree "
                     "by more than 1e-6 mu N0")


if __name__ == "__main__":
    main()
