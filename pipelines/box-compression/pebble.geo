// The box-compression pipeline's level-set grain: data/geometry/rock.geo at half size, an
// ellipsoid (semi-axes 3, 2, 1.5 mm) cut by a tilted slab: curved faces, two flat faces with
// sharp edges and principal axes that are not the drawing's, about the spheres' size.
SetFactory("OpenCASCADE");
Sphere(1) = {0, 0, 0, 1};
Dilate {{0, 0, 0}, {3, 2, 1.5}} { Volume{1}; }
Box(2) = {-3.5, -2.5, -1.1, 7, 5, 2.2};
Rotate {{1, 1, 0}, {0, 0, 0}, 0.35} { Volume{2}; }
BooleanIntersection(3) = { Volume{1}; Delete; }{ Volume{2}; Delete; };
