// The elastic sphere of Henzel & Karapiperis §4.2 for six walls: radius R at the origin,
// refined around its six poles (+-R on each axis), where the walls press on it.
// octant = 1: only x, y, z >= 0 (three symmetry planes, three walls: 1/8 of the work);
// octant = 0: the full sphere.
//   gmsh sphere_walls.geo -3 -order 2 -format inp -setnumber lc_pole 0.1 -o mesh.inp
SetFactory("OpenCASCADE");
DefineConstant[
  R = 10,          // radius
  lc_pole = 0.2,   // element size at a pole
  grow = 0.25,     // size growth per unit distance from the nearest pole
  lc_far = 3.0,    // largest element size
  octant = 1
];
// The contact radius at wall travel d is a = sqrt(R d): 0.32 at d = 0.01, 1.26 at 0.16.
// The full sphere is built from its eight octants (made conforming by Coherence), so that
// the six poles and the centre are geometry vertices and therefore mesh nodes (the deck's
// supports and pole prints need them), and the mesh has the symmetry planes as faces.
For i In {0 : (octant ? 0 : 7)}
  sx = (i % 2) ? -1 : 1;
  sy = (Floor(i / 2) % 2) ? -1 : 1;
  sz = (Floor(i / 4) % 2) ? -1 : 1;
  s = newv; Sphere(s) = {0, 0, 0, R};
  b = newv; Box(b) = {0, 0, 0, sx * 2 * R, sy * 2 * R, sz * 2 * R};
  BooleanIntersection{ Volume{s}; Delete; }{ Volume{b}; Delete; }
EndFor
If (!octant)
  Coherence;
EndIf
Physical Volume("sphere") = Volume{:};
p1 = newp; Point(p1) = {R, 0, 0};
p2 = newp; Point(p2) = {0, R, 0};
p3 = newp; Point(p3) = {0, 0, R};
p4 = newp; Point(p4) = {-R, 0, 0};
p5 = newp; Point(p5) = {0, -R, 0};
p6 = newp; Point(p6) = {0, 0, -R};
Field[1] = Distance;
If (octant)
  Field[1].PointsList = {p1, p2, p3};
Else
  Field[1].PointsList = {p1, p2, p3, p4, p5, p6};
EndIf
Field[2] = MathEval;
Field[2].F = Sprintf("min(%g, %g + %g * F1)", lc_far, lc_pole, grow);
Background Field = 2;
Mesh.CharacteristicLengthFromPoints = 0;
Mesh.CharacteristicLengthExtendFromBoundary = 0;
Mesh.CharacteristicLengthMax = lc_far;
Mesh.ElementOrder = 2;
Mesh.SecondOrderLinear = 0;   // midside nodes on the sphere: the faces are curved
Mesh.Optimize = 1;
