/* lsgen's command line: getopt_long, strict numbers, per-shape option checks. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lsgen_cli.h"
#include "cli.h"
#include "ldem/log.h"
#include "ldem/memory_budget.h"
#include "ldem/version.h"
#include "ldem/vtu.h"

#define PROGRAM "lsgen"
/* Seconds for each Gmsh step: minutes more than any mesh lsgen is meant for needs (a
 * 100k-triangle STL remeshed at 140k triangles takes ~8 s), yet a runaway stops while
 * someone still waits for it. */
#define LSGEN_DEFAULT_TIMEOUT 600.0

static void usage(FILE *out)
{
    fprintf(out,
        "usage: lsgen SHAPE [shape options] [options]\n"
        "       lsgen mesh FILE [options]\n"
        "Turn a grain's geometry into a grain bundle (.ldg): signed-distance level set,\n"
        "surface nodes with normals and area weights, and mass properties, all in the\n"
        "body frame (origin at the centre of mass, axes along principal axes of inertia).\n"
        "\n"
        "Shapes (centred at the origin, axes along x, y, z; exact signed distance):\n"
        "  sphere --radius R\n"
        "  ellipsoid --axes A,B,C             semi-axes\n"
        "  cuboid --size X,Y,Z [--rounding R] edge lengths; edges and corners rounded by R\n"
        "  cylinder --radius R --length L     axis z, flat caps\n"
        "  superquadric --axes A,B,C --eps E1,E2\n"
        "                                     (|x/A|^(2/E2)+|y/B|^(2/E2))^(E2/E1)+|z/C|^(2/E1) = 1\n"
        "  mesh FILE                          STL (ASCII/binary), Gmsh .msh, STEP, IGES, BREP,\n"
        "                                     .geo: anything Gmsh opens\n"
        "\n"
        "Grid and nodes:\n"
        "  --h H                grid spacing (default: smallest extent / 20)\n"
        "  --pad N              grid nodes beyond the bounding box per side (default 3)\n"
        "  --node-spacing S     surface node spacing (default: H)\n"
        "  --feature-angle DEG  mesh input: edges sharper than this stay sharp (default 40)\n"
        "  --mesh-size S        CAD input: element size of the first meshing (default S/2)\n"
        "  --timeout SECONDS    mesh input: time for each Gmsh step (reading or meshing the\n"
        "                       input; remeshing for the nodes), default 600, 0 = none;\n"
        "                       past it Gmsh is stopped and lsgen exits with status 2.\n"
        "                       Gmsh runs in a child process whose memory is limited by\n"
        "                       --max-memory\n"
        "Frame:\n"
        "  --scale S            multiply the input geometry by S (e.g. 1000: a CAD file in m\n"
        "                       for a grain in mm); shapes' dimensions are scaled alike\n"
        "  --translate X,Y,Z    then move it by (X,Y,Z); a shape's centre goes there\n"
        "                       (x -> S x + T before anything else; BODY's centroid is in\n"
        "                       that frame). Both are recorded in META, and modefit moves a\n"
        "                       FEM mesh of the untransformed geometry the same way\n"
        "                       (--h, --node-spacing and --mesh-size are in output units)\n"
        "Body:\n"
        "  --density RHO        mass density; without it BODY's mass and inertia assume 1,\n"
        "                       with a warning (and modefit's mass matrix follows)\n"
        "  --unit NAME          length unit recorded in META (default 1, i.e. unitless)\n"
        "  --name NAME          grain name in META (default: shape or file name)\n"
        "Output:\n"
        "  -o, --output FILE    bundle (default stdout; written atomically)\n"
        "  --vti FILE           level set as VTK ImageData (ParaView)\n"
        "  --vtu FILE           surface nodes and triangles as VTK UnstructuredGrid\n"
        "  --vtk-encoding E     ascii, raw or zlib (default zlib)\n"
        "  --threads N          OpenMP threads (default: all cores)\n"
        "  --max-memory SIZE    refuse a grid (from the extent and --h) that would need more,\n"
        "                       and stop Gmsh past it (512M, 4G, or bytes; default: the\n"
        "                       machine's physical memory)\n"
        "  --progress           progress bars on stderr even when it is not a terminal\n"
        "  -v, --verbose        report sizes and timings; -q, --quiet: errors only\n"
        "  -h, --help, --version\n"
        "\n"
        "Example: lsgen sphere --radius 10 --h 0.5 --vtu sphere.vtu > sphere.ldg\n");
}

/* A finite number, the whole argument, > 0 (or >= 0 when zero_ok). */
static int parse_positive(const char *opt, const char *arg, int zero_ok, double *v)
{
    double x;
    if (cli_number(opt, arg, &x))
        return 2;
    if (zero_ok ? !(x >= 0) : !(x > 0))
        return ldem_usage_error(zero_ok ? "--%s: expected a number >= 0, got '%s'"
                                : "--%s: expected a number > 0, got '%s'",
                        opt, arg);
    *v = x;
    return 0;
}

/* "a,b" or "a,b,c": exactly n positive numbers separated by commas. */
static int parse_list(const char *opt, const char *arg, int n, double *v)
{
    char buf[256];
    if (strlen(arg) >= sizeof buf)
        return ldem_usage_error("--%s: argument too long: '%.40s...'", opt, arg);
    strcpy(buf, arg);
    char *save = NULL, *tok = strtok_r(buf, ",", &save);
    int k = 0;
    for (; tok && k < n; tok = strtok_r(NULL, ",", &save), k++)
        if (parse_positive(opt, tok, 0, &v[k]))
            return 2;
    if (k != n || tok) {
        return ldem_usage_error("--%s: expected %d comma-separated numbers, got '%s'", opt, n, arg);
    }
    return 0;
}

static int parse_count(const char *opt, const char *arg, long max, long *v)
{
    char *end;
    errno = 0;
    long x = strtol(arg, &end, 10);
    if (end == arg || *end != '\0' || errno || x < 0 || x > max) {
        char range[64];
        snprintf(range, sizeof range, "an integer in [0, %ld]", max);
        fprintf(stderr, PROGRAM ": error: --%s: expected %s, got '%s'\n", opt, range, arg);
        return 2;
    }
    *v = x;
    return 0;
}

/* "x,y,z": exactly three finite numbers of any sign. */
static int parse_vector(const char *opt, const char *arg, double v[3])
{
    const char *p = arg;
    for (int k = 0; k < 3; k++) {
        char *end;
        errno = 0;
        v[k] = strtod(p, &end);
        if (end == p || errno == ERANGE || !isfinite(v[k]) || (k < 2 ? *end != ',' : *end))
            return ldem_usage_error("--%s: expected X,Y,Z (three numbers), got '%s'", opt, arg);
        p = end + 1;
    }
    return 0;
}

/* Which shape options were given, to check them against the shape afterwards. */
typedef struct shape_args {
    int radius, axes, size, rounding, length, eps;
    double radius_v, axes_v[3], size_v[3], rounding_v, length_v, eps_v[2];
} shape_args;

static int kind_from_name(const char *s)
{
    for (int k = 0; k < LSGEN_SHAPE_KINDS; k++)
        if (strcmp(s, lsgen_shape_name(k)) == 0)
            return k;
    return -1;
}

/* Each shape's required and allowed options; builds o->shape. */
static int build_shape(lsgen_options *o, const shape_args *a)
{
    const char *name = lsgen_shape_name(o->shape.kind);
    int allowed_radius = 0, allowed_axes = 0, allowed_size = 0, allowed_length = 0,
        allowed_eps = 0;
    lsgen_shape *s = &o->shape;
    switch (s->kind) {
    case LSGEN_SPHERE:
        allowed_radius = 1;
        if (!a->radius)
            return ldem_usage_error("%s needs --radius R", name);
        s->semi[0] = s->semi[1] = s->semi[2] = a->radius_v;
        break;
    case LSGEN_ELLIPSOID:
        allowed_axes = 1;
        if (!a->axes)
            return ldem_usage_error("%s needs --axes A,B,C (semi-axes)", name);
        memcpy(s->semi, a->axes_v, sizeof s->semi);
        break;
    case LSGEN_CUBOID:
        allowed_size = 1;
        if (!a->size)
            return ldem_usage_error("%s needs --size X,Y,Z (edge lengths)", name);
        for (int d = 0; d < 3; d++)
            s->semi[d] = 0.5 * a->size_v[d];
        s->rounding = a->rounding ? a->rounding_v : 0.0;
        break;
    case LSGEN_CYLINDER:
        allowed_radius = allowed_length = 1;
        if (!a->radius || !a->length)
            return ldem_usage_error("%s needs --radius R and --length L", name);
        s->semi[0] = s->semi[1] = a->radius_v;
        s->semi[2] = 0.5 * a->length_v;
        break;
    case LSGEN_SUPERQUADRIC:
        allowed_axes = allowed_eps = 1;
        if (!a->axes || !a->eps)
            return ldem_usage_error("%s needs --axes A,B,C and --eps E1,E2", name);
        memcpy(s->semi, a->axes_v, sizeof s->semi);
        s->eps[0] = a->eps_v[0];
        s->eps[1] = a->eps_v[1];
        break;
    }
    /* --scale makes the shape that much larger: every length, rounding included. */
    for (int d = 0; d < 3; d++)
        s->semi[d] *= o->scale;
    s->rounding *= o->scale;
    const struct { int given, allowed; const char *opt; } checks[] = {
        {a->radius, allowed_radius, "--radius"}, {a->axes, allowed_axes, "--axes"},
        {a->size, allowed_size, "--size"},       {a->rounding, allowed_size, "--rounding"},
        {a->length, allowed_length, "--length"}, {a->eps, allowed_eps, "--eps"}};
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
        if (checks[i].given && !checks[i].allowed)
            return ldem_usage_error("%s does not apply to a %s; see --help", checks[i].opt, name);
    ldem_err err;
    ldem_err_clear(&err);
    if (lsgen_shape_validate(s, &err)) {
        fprintf(stderr, PROGRAM ": error: %s: %s\n", name, err.msg);
        return 2;
    }
    return 0;
}

enum {
    OPT_RADIUS = 256, OPT_AXES, OPT_SIZE, OPT_ROUNDING, OPT_LENGTH, OPT_EPS, OPT_H, OPT_PAD,
    OPT_NODE_SPACING, OPT_FEATURE, OPT_MESH_SIZE, OPT_TIMEOUT, OPT_DENSITY, OPT_UNIT, OPT_NAME,
    OPT_VTI, OPT_VTU, OPT_ENCODING, OPT_THREADS, OPT_PROGRESS, OPT_MAX_MEMORY, OPT_VERSION,
    OPT_SCALE, OPT_TRANSLATE
};

int lsgen_parse_args(int argc, char **argv, lsgen_options *o)
{
    static const struct option longs[] = {
        {"radius", required_argument, NULL, OPT_RADIUS},
        {"axes", required_argument, NULL, OPT_AXES},
        {"size", required_argument, NULL, OPT_SIZE},
        {"rounding", required_argument, NULL, OPT_ROUNDING},
        {"length", required_argument, NULL, OPT_LENGTH},
        {"eps", required_argument, NULL, OPT_EPS},
        {"h", required_argument, NULL, OPT_H},
        {"pad", required_argument, NULL, OPT_PAD},
        {"node-spacing", required_argument, NULL, OPT_NODE_SPACING},
        {"feature-angle", required_argument, NULL, OPT_FEATURE},
        {"mesh-size", required_argument, NULL, OPT_MESH_SIZE},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"density", required_argument, NULL, OPT_DENSITY},
        {"scale", required_argument, NULL, OPT_SCALE},
        {"translate", required_argument, NULL, OPT_TRANSLATE},
        {"unit", required_argument, NULL, OPT_UNIT},
        {"name", required_argument, NULL, OPT_NAME},
        {"output", required_argument, NULL, 'o'},
        {"vti", required_argument, NULL, OPT_VTI},
        {"vtu", required_argument, NULL, OPT_VTU},
        {"vtk-encoding", required_argument, NULL, OPT_ENCODING},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"progress", no_argument, NULL, OPT_PROGRESS},
        {"max-memory", required_argument, NULL, OPT_MAX_MEMORY},
        {"verbose", no_argument, NULL, 'v'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    o->pad = 3;
    o->feature_angle = 40.0;
    o->timeout = LSGEN_DEFAULT_TIMEOUT;
    o->density = 1.0;
    o->scale = 1.0;
    o->unit = "1";
    o->output = "-";
    o->encoding = LDEM_VTK_ZLIB;
    shape_args a;
    memset(&a, 0, sizeof a);
    long count;
    int c, rc = 0;
    opterr = 0; /* our own messages, in the house format */
    while (!rc && (c = getopt_long(argc, argv, ":o:vqh", longs, NULL)) != -1) {
        switch (c) {
        case OPT_RADIUS: a.radius = 1; rc = parse_positive("radius", optarg, 0, &a.radius_v); break;
        case OPT_AXES: a.axes = 1; rc = parse_list("axes", optarg, 3, a.axes_v); break;
        case OPT_SIZE: a.size = 1; rc = parse_list("size", optarg, 3, a.size_v); break;
        case OPT_ROUNDING:
            a.rounding = 1;
            rc = parse_positive("rounding", optarg, 1, &a.rounding_v);
            break;
        case OPT_LENGTH: a.length = 1; rc = parse_positive("length", optarg, 0, &a.length_v); break;
        case OPT_EPS: a.eps = 1; rc = parse_list("eps", optarg, 2, a.eps_v); break;
        case OPT_H: rc = parse_positive("h", optarg, 0, &o->h); break;
        case OPT_MAX_MEMORY:
            if (ldem_memory_parse_size(optarg, &o->max_memory))
                rc = ldem_usage_error("--max-memory: '%s' is not a size (bytes, or 512M, 4G)", optarg);
            break;
        case OPT_PAD:
            rc = parse_count("pad", optarg, 1000, &count);
            o->pad = (unsigned)count;
            break;
        case OPT_NODE_SPACING: rc = parse_positive("node-spacing", optarg, 0, &o->node_spacing); break;
        case OPT_FEATURE:
            rc = parse_positive("feature-angle", optarg, 0, &o->feature_angle);
            if (!rc && o->feature_angle > 180.0)
                rc = ldem_usage_error("--feature-angle: expected degrees in (0, 180], got '%s'", optarg);
            break;
        case OPT_MESH_SIZE: rc = parse_positive("mesh-size", optarg, 0, &o->mesh_size); break;
        case OPT_TIMEOUT: rc = parse_positive("timeout", optarg, 1, &o->timeout); break;
        case OPT_DENSITY:
            o->density_given = 1;
            rc = parse_positive("density", optarg, 0, &o->density);
            break;
        case OPT_SCALE:
            o->transformed = 1;
            rc = parse_positive("scale", optarg, 0, &o->scale);
            break;
        case OPT_TRANSLATE:
            o->transformed = 1;
            rc = parse_vector("translate", optarg, o->translate);
            break;
        case OPT_UNIT: o->unit = optarg; break;
        case OPT_NAME: o->name = optarg; break;
        case 'o': o->output = optarg; break;
        case OPT_VTI: o->vti = optarg; break;
        case OPT_VTU: o->vtu = optarg; break;
        case OPT_ENCODING: {
            ldem_err err;
            ldem_err_clear(&err);
            if (ldem_vtk_encoding_parse(optarg, &o->encoding, &err))
                rc = ldem_usage_error("--vtk-encoding: %s", err.msg);
            break;
        }
        case OPT_THREADS:
            rc = parse_count("threads", optarg, 4096, &count);
            o->threads = (int)count;
            break;
        case OPT_PROGRESS: o->progress = 1; break;
        case 'v': o->verbosity++; break;
        case 'q': o->verbosity--; break;
        case 'h': usage(stdout); return -1;
        case OPT_VERSION: printf(PROGRAM " %s\n", LDEM_VERSION); return -1;
        case ':': rc = ldem_usage_error("%s needs a value; try --help", argv[optind - 1]); break;
        default: rc = ldem_usage_error("unknown option '%s'; try --help", argv[optind - 1]); break;
        }
    }
    if (rc)
        return 2;
    if (optind >= argc)
        return ldem_usage_error("no shape given: expected sphere, ellipsoid, cuboid, cylinder, "
                    "superquadric or mesh FILE; try --help");
    const char *what = argv[optind++];
    if (strcmp(what, "mesh") == 0) {
        if (optind >= argc)
            return ldem_usage_error("mesh needs a FILE (STL, .msh, STEP, IGES, ...)");
        o->is_mesh = 1;
        o->mesh_path = argv[optind++];
        if (a.radius || a.axes || a.size || a.rounding || a.length || a.eps)
            return ldem_usage_error("shape options (--radius, --axes, --size, ...) do not apply to mesh "
                        "input");
    } else {
        o->shape.kind = kind_from_name(what);
        if (o->shape.kind < 0)
            return ldem_usage_error("unknown shape '%s'; expected sphere, ellipsoid, cuboid, cylinder, "
                        "superquadric or mesh FILE", what);
        if (build_shape(o, &a))
            return 2;
    }
    if (optind < argc)
        return ldem_usage_error("unexpected argument '%s'; try --help", argv[optind]);
    o->command_line = cli_join_args(argc, argv);
    if (!o->command_line)
        return ldem_usage_error("out of memory");
    return 0;
}

void lsgen_options_free(lsgen_options *o)
{
    free((char *)o->command_line);
    o->command_line = NULL;
}
