#!/usr/bin/python3
"""Write cubic27's demrun scene: 27 spheres of the cubic compaction mode in a 3x3x3 cubic
packing, just touching, inside six walls that move inwards.

"Just touching" as the contacts see it: a wall meets a sphere's surface nodes, which near a
pole lie g = R - max(node coordinate) inside the tangent plane, so a wall touches at
(R - g) from the centre; two spheres meet where one's nodes reach the other's trilinear
level set, which near the poles lies about 0.006 inside the sphere (the interpolation of
a curved phi), so the spacing is found here by bisection on the bundle's own LSET and
NODE sections. Starting with every contact closed spares the loading the impacts of
spheres crossing gaps, and u_w is the travel from the touching packing. Each wall travels
3 (eps_max - g): three spheres compacted as far as compaction1's sphere (walls from R to
R - eps_max), which keeps every eps inside the force table.

usage: make_scene.py BUNDLE.ldg --radius R [--duration T] [--start T0] [--safety S]
                     [--contact-damping ZETA] [--modal-damping ZETA] > scene.yaml"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "support"))
import ldg  # noqa: E402

EPS_MAX = 0.16          # the end of Appendix B's table
WALLS = [("xm", 0, 1), ("xp", 0, -1), ("ym", 1, 1), ("yp", 1, -1), ("zm", 2, 1), ("zp", 2, -1)]


def touching(path):
    """The surface nodes' reach along the axes (a wall touches there) and the spacing at
    which two spheres on one axis touch (the largest at which a node of one is inside the
    other's trilinear level set); the same on every axis (checked)."""
    b = ldg.read_bundles(path)[0]
    body = ldg.body(b["BODY"])
    if np.abs(body["centroid"]).max() > 1e-12 or np.abs(body["orientation"] - [1, 0, 0, 0]).max() > 1e-12:
        sys.exit(f"make_scene: {path}: body frame is not the bundle's (centroid, orientation)")
    ls, nodes = ldg.lset(b["LSET"]), ldg.nodes(b["NODE"])["position"]
    reach = nodes.max(axis=0)
    spacing = []
    for axis in range(3):
        e = np.eye(3)[axis]
        cap = nodes[nodes @ e > 0.5 * reach[axis]]
        lo, hi = reach[axis], 4 * reach[axis]      # touching lies between
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            if ldg.trilinear(ls, cap - mid * e)[0].min() < 0.0:
                lo = mid
            else:
                hi = mid
        spacing.append(0.5 * (lo + hi))
    if np.ptp(reach) > 1e-9 or np.ptp(spacing) > 1e-9:
        sys.exit(f"make_scene: {path}: not cubic: reach {reach}, spacing {spacing}")
    return reach[0], spacing[0]


def ramp(travel, duration, start, knots=64):
    """A smooth start (constant acceleration over `start`), then constant speed so that
    the wall has moved `travel` at `duration`. demrun interpolates a ramp linearly, so the
    wall's speed steps at every knot, by v/knots; the spheres take each step as an impact
    (with 4 knots the last step, v/8, kicked the walls' force to twice its value)."""
    v = travel / (duration - start / 2)
    pts = [(t, v * t * t / (2 * start)) for t in (start * k / knots for k in range(knots + 1))]
    return pts + [(duration, travel)]


def fmt(x):
    return f"{x:.10g}" if x else "0"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bundle")
    ap.add_argument("--radius", type=float, required=True)
    ap.add_argument("--duration", type=float, default=150.0)
    ap.add_argument("--start", type=float, default=40.0)
    ap.add_argument("--safety", type=float, default=0.05)
    ap.add_argument("--contact-damping", type=float, default=0.3)
    ap.add_argument("--modal-damping", type=float, default=0.1)
    a = ap.parse_args()
    reach, spacing = touching(a.bundle)
    gap = a.radius - reach
    wall = spacing + reach
    travel = 3 * (EPS_MAX - gap)
    pts = ramp(travel, a.duration, a.start)

    print(f"""# cubic27, written by make_scene.py: Henzel & Karapiperis §4.2 (Fig. 6, App. C). 27
# spheres of radius {a.radius:g} with the cubic compaction mode and Appendix B's table as ETAB,
# in a 3x3x3 cubic packing just touching as the contacts see it (spacing {spacing:.8g},
# walls at +-{wall:.8g}; g = {gap:.6g}), compressed by six walls each travelling
# 3 (eps_max - g) = {travel:.6g} (three spheres compacted like compaction1's).
threads: 1
# safety {a.safety:g}: dt auto weighs the contacts against a sphere's rigid mass, but they also
# act on the much lighter modal mass (MMAT 172 against 4189), two of them at a sphere-sphere
# contact (compaction1 needs 0.07 with walls only); at 0.2 the contacts chatter.
time: {{dt: auto, safety: {a.safety:g}, modal_safety: 0.2, duration: {a.duration:g}}}
# No global damping: it drags every moving sphere (0.05 put the walls' force 1.8 % high at
# u = u_max/4); the contacts' own damping stops the ringing instead.
materials:
  # The contact law only (frictionless Hertz), E well above the modal stiffness (2.5e6: the
  # overlaps stay below 1 % of the travel, as in compaction1); density 1
  # = modefit's, so the rigid and the modal mass are those of one body.
  stiff: {{E: 2.5e6, nu: 0.3, density: 1, friction: 0}}
# Normal damping ratio {a.contact_damping:g} (0.3: a restitution of 0.42): without it the rigid
# spheres ring on their contacts and the walls' force swings by +-4 % at u = u_max/4; it acts on the change of
# the overlaps only, which the quasi-static loading hardly has.
contacts:
  - {{between: ['*', '*'], model: frictionless, damping: {a.contact_damping:g}}}
shapes:
  sphere6:
    bundle: {a.bundle}
    # Modal damping ratio {a.modal_damping:g} on KMAT's 26670: C eps_dot puts each grain's force
    # 0.3 % above the table at u = u_max/4 (0.9 % with 0.3); the contacts damp the rest.
    # pullback 2: the one-step remap reads a sphere's pole as moved by eps (1 - eps/R) at a
    # sphere-sphere contact (1.4 % short at eps_max, docs/deformable.md); 2 steps, 0.04 %.
    modes: {{levelset: remap, pullback: 2, damping: {{ratio: {a.modal_damping:g}}}}}
grains:
  - lattice: {{shape: sphere6, origin: [{-spacing:.10g}, {-spacing:.10g}, {-spacing:.10g}], spacing: {spacing:.10g}, count: [3, 3, 3]}}
# Smooth start over t = {a.start:g}, then constant speed to the end at t = {a.duration:g}.
walls:""")
    for name, axis, sign in WALLS:
        point = [0.0, 0.0, 0.0]
        point[axis] = -sign * wall
        normal = [0, 0, 0]
        normal[axis] = sign
        steps = []
        for t, s in pts:
            d = [0.0, 0.0, 0.0]
            d[axis] = sign * s
            steps.append(f"[{t:g}, {', '.join(fmt(x) for x in d)}]")
        print(f"  - {{name: {name}, plane: {{point: [{', '.join(fmt(x) for x in point)}], "
              f"normal: [{', '.join(str(n) for n in normal)}]}},\n"
              f"     ramp: [{', '.join(steps)}]}}")
    print("""output:
  dir: out
  frames: {every: 12000, encoding: zlib, contacts: true}
  probes: {every: 20, modes: true}""")


if __name__ == "__main__":
    main()
