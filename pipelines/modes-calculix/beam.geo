// A slender beam L x B x H for three-point bending, centred at the origin (the frame of
// `lsgen cuboid --size L,B,H`), made of two halves joined at x = 0 so that the mesh has a
// line of nodes across the top at mid-span (the load line) and a node at the centre of the
// mid-span section (where the mode is normalized).
//   gmsh beam.geo -3 -order 2 -format inp -setnumber L 160 -setnumber lc 1 -o beam_mesh.inp
SetFactory("OpenCASCADE");
DefineConstant[ L = 160, B = 4, H = 4, lc = 1.0 ];
Box(1) = {-L/2, -B/2, -H/2, L/2, B, H};
Box(2) = {0, -B/2, -H/2, L/2, B, H};
BooleanFragments{ Volume{1}; Delete; }{ Volume{2}; Delete; }
// The shared face x = 0, found by its bounding box; its centre becomes a node.
mid() = Surface In BoundingBox{-1e-6 * L, -B, -H, 1e-6 * L, B, H};
pc = newp; Point(pc) = {0, 0, 0, lc};
Point{pc} In Surface{mid(0)};
Physical Volume("solid") = Volume{:};
Mesh.CharacteristicLengthMax = lc;
Mesh.ElementOrder = 2;
