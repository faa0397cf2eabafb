// A torus around the z axis, major radius R, minor radius r, centred at the origin,
// meshed with triangles of size about h.
// gmsh torus.geo -2 -format stl -setnumber h 0.36 -o torus.stl
SetFactory("OpenCASCADE");
DefineConstant[ R = 10, r = 3, h = 0.36 ];
Torus(1) = {0, 0, 0, R, r};
Mesh.MeshSizeMin = h;
Mesh.MeshSizeMax = h;
Mesh.MeshSizeFromCurvature = 0;
Mesh.Algorithm = 6;
