// The elastic sphere of Henzel & Karapiperis §4.2: radius R, centred at the origin (the
// frame `lsgen sphere --radius R` uses), with a node forced at the centre (a support) and
// the mesh refined around the poles (0, 0, +-R), where the rigid planes press on it.
//   gmsh sphere.geo -3 -order 2 -format inp -setnumber lc_pole 0.3 -o sphere_mesh.inp
SetFactory("OpenCASCADE");
DefineConstant[
  R = 10,          // radius
  lc_pole = 0.3,   // element size at a pole
  grow = 0.2,      // size growth per unit distance from the nearer pole
  lc_far = 3.0     // largest element size
];
// The contact radius is a = sqrt(R d) per contact: ~0.7 at the first increments, ~2.8 at
// the last (d = 0.8 for R = 10); lc_pole + grow * a keeps a few quadratic elements across.
Sphere(1) = {0, 0, 0, R};
pc = newp; Point(pc) = {0, 0, 0, lc_far};
Point{pc} In Volume{1};
Physical Volume("sphere") = {1};

pn = newp; Point(pn) = {0, 0, R};
ps = newp; Point(ps) = {0, 0, -R};
Field[1] = Distance;
Field[1].PointsList = {pn, ps};
Field[2] = MathEval;
Field[2].F = Sprintf("min(%g, %g + %g * F1)", lc_far, lc_pole, grow);
Background Field = 2;
Mesh.CharacteristicLengthFromPoints = 0;
Mesh.CharacteristicLengthExtendFromBoundary = 0;
Mesh.CharacteristicLengthMax = lc_far;
Mesh.ElementOrder = 2;
Mesh.SecondOrderLinear = 0;   // midside nodes on the sphere: the faces are curved
Mesh.Optimize = 1;
