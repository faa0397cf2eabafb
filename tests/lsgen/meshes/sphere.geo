// A sphere of radius R centred at the origin, meshed with triangles of size about h.
// gmsh sphere.geo -2 -format stl -setnumber R 10 -setnumber h 0.38 -o sphere.stl
// (h = 0.38 gives about 20k triangles at R = 10; h = 0.17 about 100k.)
SetFactory("OpenCASCADE");
DefineConstant[ R = 10, h = 0.38 ];
Sphere(1) = {0, 0, 0, R};
Mesh.MeshSizeMin = h;
Mesh.MeshSizeMax = h;
Mesh.MeshSizeFromCurvature = 0;
Mesh.Algorithm = 6;
