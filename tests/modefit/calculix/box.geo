// A box L x B x H centred at the origin, axes along x, y, z: the frame in which
// `lsgen cuboid --size L,B,H` is given its geometry. Nodes are forced at the centres of the
// end faces x = -L/2 and x = +L/2 (supports, loads and --normalize points).
//   gmsh box.geo -3 -order 2 -format inp -setnumber L 100 -setnumber lc 2.5 -o box.inp
SetFactory("OpenCASCADE");
DefineConstant[ L = 100, B = 10, H = 10, lc = 2.5 ];
Box(1) = {-L/2, -B/2, -H/2, L, B, H};
// OpenCASCADE numbers a box's faces x-, x+, y-, y+, z-, z+.
p1 = newp; Point(p1) = {-L/2, 0, 0, lc};
p2 = newp; Point(p2) = {L/2, 0, 0, lc};
Point{p1} In Surface{1};
Point{p2} In Surface{2};
Physical Volume("solid") = {1};   // only the tets are written
Mesh.CharacteristicLengthMax = lc;
Mesh.ElementOrder = 2;
