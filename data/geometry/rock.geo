// A faceted "rock": an ellipsoid (semi-axes 6, 4, 3) cut by a tilted slab, so that it has
// curved faces, two flat faces with sharp edges, and principal axes that are not the
// axes it is drawn in. lsgen meshes it with Gmsh on the fly (`lsgen mesh rock.geo`).
SetFactory("OpenCASCADE");
Sphere(1) = {0, 0, 0, 1};
Dilate {{0, 0, 0}, {6, 4, 3}} { Volume{1}; }
Box(2) = {-7, -5, -2.2, 14, 10, 4.4};
Rotate {{1, 1, 0}, {0, 0, 0}, 0.35} { Volume{2}; }
BooleanIntersection(3) = { Volume{1}; Delete; }{ Volume{2}; Delete; };
Translate {1.5, -0.5, 2} { Volume{3}; }
