/* modefit's command line: getopt_long, strict numbers, and the checks that tie options
 * together (FEM inputs or an analytic mode, never both; what each method accepts). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modefit_cli.h"
#include "cli.h"
#include "ldem/log.h"
#include "ldem/version.h"

#define PROGRAM "modefit"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: modefit --mesh MESH --snapshots RESULTS --E E --nu NU [options] < grain.ldg > out.ldg\n"
        "       modefit --analytic beam-bending --length L --axis x --E E --nu NU [options]\n"
        "       modefit --mesh MESH --eigen N --E E --nu NU [options] < grain.ldg > out.ldg\n"
        "       modefit --mesh MESH --contact-modes K --E E --nu NU [options] < grain.ldg > out.ldg\n"
        "Build a grain's deformation modes, their generalized stiffness K and mass M and the\n"
        "modal damping, and add them to its bundle (MODE, KMAT, MMAT, DAMP). The FEM model must\n"
        "be in the frame lsgen was given the geometry in (or say how: --mesh-scale).\n"
        "\n"
        "FEM snapshots:\n"
        "  --mesh FILE          volume mesh: CalculiX/Abaqus deck (.inp: *NODE, *ELEMENT C3D4\n"
        "                       or C3D10) or Gmsh .msh\n"
        "  --snapshots FILE     CalculiX .frd (DISP blocks) or .msh with NodeData views\n"
        "                       (a .msh may be both mesh and snapshots)\n"
        "  --step all|last|N    which results (default all)\n"
        "  --method M           pod (default), single (the largest snapshot, Henzel 4.2)\n"
        "                       or difference (u_k - u_k-1, pruned and orthonormalized)\n"
        "  --modes N            keep N modes (pod, difference)\n"
        "  --energy F           pod: keep the modes capturing this fraction (default 0.9999)\n"
        "  --single-index N     single: use snapshot N (1-based) instead of the largest\n"
        "  --prune TOL          difference: drop modes below TOL of their norm (default 1e-3)\n"
        "  --inner euclidean|mass   POD inner product (default euclidean)\n"
        );
    fprintf(out,
        "  --cubic sum|copies   symmetrize each snapshot u under the axis permutations\n"
        "                       P in {I, C, C^2}, C (x,y,z) -> (y,z,x), about the FEM frame's\n"
        "                       origin: u_P(x) = P u(P^T x) (a two-plate z-compaction then\n"
        "                       also compacts along y and x). Each u_P is kept exact on its\n"
        "                       rotated mesh: values are summed over P term by term (P^T x\n"
        "                       located in the mesh), K and M integrate each pair of terms on\n"
        "                       the mesh with one of them interpolated there.\n"
        "                       sum: each snapshot becomes u_I + u_C + u_C2 (six walls, one\n"
        "                       mode); copies: each becomes the three u_P, so --method single\n"
        "                       gives three modes (along z, y, x), each normalized at the\n"
        "                       --normalize point and axis rotated by its P, and POD sees all\n"
        "                       of them. -v reports where the rotated mesh nodes fell and,\n"
        "                       for sum, the mode at the mesh's six poles\n"
        );
    fprintf(out,
        "Modefit's own FE analyses (sparse K and M on the mesh, CHOLMOD, ARPACK):\n"
        "  --eigen N            the N lowest elastic free-free vibration modes (the six\n"
        "                       rigid ones found and skipped), M-orthonormal: K = omega^2,\n"
        "                       M = 1 unless --normalize rescales them\n"
        "  --contact-modes K    snapshots: the static responses to K pairs of opposite\n"
        "                       Hertz pressure patches (unit force each, balanced by\n"
        "                       inertia relief), along the grain's three principal axes, then\n"
        "                       a Fibonacci lattice of directions; then --method as for FEM\n"
        "                       snapshots (pod by default)\n"
        "  --patch-radius A     contact patch radius (default 0.2 of the volume-equivalent\n"
        "                       radius)\n"
        "  Without --mesh, Gmsh meshes the bundle's surface triangles (remeshed, then 10-node\n"
        "  tets by Delaunay):\n"
        "  --mesh-size H        element size (default 0.3 of the volume-equivalent radius)\n"
        "Analytic modes:\n"
        "  --analytic beam-bending --length L --axis x|y|z [--deflect x|y|z]\n"
        "                       Henzel eq. 51 along the grain's body axes (as lsgen wrote\n"
        "                       them), integrated over the level set's interior\n"
        "  --depth D            interior quadrature: cut cells split 2^D per axis (default 3)\n"
        );
    fprintf(out,
        "Material and basis:\n"
        "  --E MODULUS, --nu RATIO   isotropic linear elasticity (required)\n"
        "  --density RHO        mass density (default: the bundle's BODY density)\n"
        "  --keep-rigid         keep rigid-body motion in the modes (default: projected out)\n"
        "  --orthogonalize      energy-orthogonal modes (K v = lambda M v)\n"
        "  --normalize point:X,Y,Z:C   scale each mode so that its displacement at X (FEM\n"
        "                       frame), component C (x|y|z|-x|-y|-z), is 1\n"
        "  --normalize mean:SET:C   ... so that the area-weighted mean of component C over\n"
        "                       SET is 1: a *SURFACE (TYPE=ELEMENT, faces S1..S4) of the\n"
        "                       --mesh deck, an *NSET, or a .msh's physical group (the\n"
        "                       boundary faces whose corner nodes are all in it)\n"
        "  --normalize-after-rigid  measure the normalization on the mode with rigid motion\n"
        "                       removed (as the runtime moves it); default: on the FEM\n"
        "                       field under the model's own supports, rigid motion included\n"
        "FEM frame (modefit checks that the mesh is the grain; exit 2 if it is not):\n"
        "  --mesh-scale S, --mesh-translate X,Y,Z   the FEM file's frame in lsgen's input\n"
        "                       frame: x -> S x + (X,Y,Z), displacements x S (default 1 and\n"
        "                       0). A grain made with lsgen --scale/--translate has the same\n"
        "                       map applied on top, from its META (-v says so)\n"
        "  --allow-mismatch     a mesh that does not fit the level set (boundary nodes off\n"
        "                       by more than max(1.5 cells, 1%% of the size), volume 10%%,\n"
        "                       centre) is a warning instead of an error\n"
        "  --damping rayleigh:A,B | ratio:Z[,Z...]   modal damping stored in DAMP\n"
        "Reports:\n"
        "  --spectrum FILE      singular values and captured energy (TSV)\n"
        "  --spectrum-png FILE  the same as a gnuplot plot\n"
        "  --snapshot-table FILE  per snapshot: modal coordinates, strain energy, residual\n"
        "Other:\n"
        "  -i, --input FILE     bundle to extend (default stdin)\n"
        "  -o, --output FILE    extended bundle (default stdout; written atomically)\n"
        "  --threads N          OpenMP threads for sampling (default: all cores); the\n"
        "                       output is the same bytes for any N and any\n"
        "                       OPENBLAS_NUM_THREADS (BLAS runs on one thread). Other CPUs\n"
        "                       may differ in the last bits unless OPENBLAS_CORETYPE pins\n"
        "                       OpenBLAS's kernels (README, modefit)\n"
        "  -v, --verbose        print K, M, frequencies, mismatch; -q, --quiet: errors only\n"
        "  -h, --help, --version\n");
}

static int parse_positive(const char *opt, const char *arg, double *v)
{
    if (cli_number(opt, arg, v))
        return 2;
    if (!(*v > 0))
        return ldem_usage_error("--%s: expected a number > 0, got '%s'", opt, arg);
    return 0;
}

static int parse_long(const char *opt, const char *arg, long min, long max, long *v)
{
    char *end;
    errno = 0;
    long x = strtol(arg, &end, 10);
    if (end == arg || *end != '\0' || errno || x < min || x > max)
        return ldem_usage_error("--%s: expected an integer in [%ld, %ld], got '%s'", opt, min, max, arg);
    *v = x;
    return 0;
}

static int axis_of(const char *s)
{
    if (!strcmp(s, "x"))
        return 0;
    if (!strcmp(s, "y"))
        return 1;
    if (!strcmp(s, "z"))
        return 2;
    return -1;
}

/* "a,b,c" into exactly n numbers (any sign). */
static int parse_numbers(const char *opt, const char *arg, size_t n, double *v)
{
    size_t k = 0;
    const char *p = arg;
    while (k < n) {
        char *end;
        errno = 0;
        v[k] = strtod(p, &end);
        if (end == p || errno == ERANGE || !isfinite(v[k]))
            break;
        k++;
        if (*end == ',' && k < n)
            p = end + 1;
        else {
            p = end;
            break;
        }
    }
    if (k != n || *p != '\0')
        return ldem_usage_error("--%s: expected %zu comma-separated numbers, got '%s'", opt, n, arg);
    return 0;
}

/* C one of x y z -x -y -z (+x ... too) into a signed unit axis; -1 if not. */
static int parse_component(const char *c, double dir[3])
{
    double sign = 1.0;
    if (*c == '-') {
        sign = -1.0;
        c++;
    } else if (*c == '+') {
        c++;
    }
    int ax = axis_of(c);
    if (ax < 0)
        return -1;
    for (int d = 0; d < 3; d++)
        dir[d] = d == ax ? sign : 0.0;
    return 0;
}

/* point:X,Y,Z:C, or mean:NAME:C (NAME an *NSET or *SURFACE of the deck), C one of
 * x y z -x -y -z. */
static int parse_normalize(const char *arg, modefit_options *o)
{
    const char *usage_text = "--normalize: expected point:X,Y,Z:C or mean:NSET_OR_SURFACE:C "
                             "with C in x|y|z|-x|-y|-z, got '%s'";
    int mean = !strncmp(arg, "mean:", 5);
    if (!mean && strncmp(arg, "point:", 6) != 0)
        return ldem_usage_error(usage_text, arg);
    /* The body after the kind's colon (found, not offset: GCC's -O2 with ASan took the
     * constant offset for a read past an empty string, -Wstringop-overread). */
    const char *body = strchr(arg, ':') + 1;
    const char *colon = strrchr(body, ':');
    if (!colon || colon == body || strlen(arg) >= sizeof o->norm_text)
        return ldem_usage_error(usage_text, arg);
    size_t n = (size_t)(colon - body);
    if (parse_component(colon + 1, o->norm_dir))
        return ldem_usage_error(usage_text, arg);
    if (mean) {
        if (n >= sizeof o->norm_set)
            return ldem_usage_error("--normalize: set name too long in '%s'", arg);
        memcpy(o->norm_set, body, n);
        o->norm_set[n] = '\0';
        o->normalize = NORM_MEAN;
    } else {
        char buf[128];
        memcpy(buf, body, n);
        buf[n] = '\0';
        if (parse_numbers("normalize", buf, 3, o->norm_point))
            return 2;
        o->normalize = NORM_POINT;
    }
    snprintf(o->norm_text, sizeof o->norm_text, "%s", arg);
    return 0;
}

static int parse_damping(const char *arg, modefit_options *o)
{
    if (!strncmp(arg, "rayleigh:", 9)) {
        if (parse_numbers("damping", arg + 9, 2, o->rayleigh))
            return 2;
        if (o->rayleigh[0] < 0 || o->rayleigh[1] < 0)
            return ldem_usage_error("--damping: Rayleigh coefficients must be >= 0, got '%s'", arg + 9);
        o->damping = LDEM_DAMPING_RAYLEIGH;
        return 0;
    }
    if (!strncmp(arg, "ratio:", 6)) {
        const char *list = arg + 6;
        size_t n = 1;
        for (const char *p = list; *p; p++)
            n += *p == ',';
        free(o->zeta);
        o->zeta = malloc(n * sizeof *o->zeta);
        if (!o->zeta)
            return ldem_usage_error("out of memory");
        if (parse_numbers("damping", list, n, o->zeta))
            return 2;
        for (size_t k = 0; k < n; k++)
            if (!(o->zeta[k] >= 0))
                return ldem_usage_error("--damping: damping ratios must be >= 0, got '%s'", list);
        o->nzeta = n;
        o->damping = LDEM_DAMPING_RATIO;
        return 0;
    }
    return ldem_usage_error("--damping: expected rayleigh:A,B or ratio:Z[,Z...], got '%s'", arg);
}

enum {
    OPT_MESH = 256, OPT_SNAPSHOTS, OPT_STEP, OPT_METHOD, OPT_MODES, OPT_ENERGY,
    OPT_SINGLE_INDEX, OPT_PRUNE, OPT_INNER, OPT_ANALYTIC, OPT_LENGTH, OPT_AXIS, OPT_DEFLECT,
    OPT_DEPTH, OPT_E, OPT_NU, OPT_DENSITY, OPT_KEEP_RIGID, OPT_ORTHOGONALIZE, OPT_NORMALIZE,
    OPT_DAMPING, OPT_SPECTRUM, OPT_SPECTRUM_PNG, OPT_SNAPSHOT_TABLE, OPT_THREADS, OPT_VERSION,
    OPT_CUBIC, OPT_EIGEN, OPT_CONTACT, OPT_PATCH_RADIUS, OPT_MESH_SIZE, OPT_ALLOW_MISMATCH,
    OPT_MESH_SCALE, OPT_MESH_TRANSLATE, OPT_NORMALIZE_AFTER_RIGID
};

static const struct option long_options[] = {
    {"mesh", required_argument, NULL, OPT_MESH},
    {"allow-mismatch", no_argument, NULL, OPT_ALLOW_MISMATCH},
    {"mesh-scale", required_argument, NULL, OPT_MESH_SCALE},
    {"mesh-translate", required_argument, NULL, OPT_MESH_TRANSLATE},
    {"normalize-after-rigid", no_argument, NULL, OPT_NORMALIZE_AFTER_RIGID},
    {"snapshots", required_argument, NULL, OPT_SNAPSHOTS},
    {"step", required_argument, NULL, OPT_STEP},
    {"method", required_argument, NULL, OPT_METHOD},
    {"modes", required_argument, NULL, OPT_MODES},
    {"energy", required_argument, NULL, OPT_ENERGY},
    {"single-index", required_argument, NULL, OPT_SINGLE_INDEX},
    {"prune", required_argument, NULL, OPT_PRUNE},
    {"inner", required_argument, NULL, OPT_INNER},
    {"cubic", required_argument, NULL, OPT_CUBIC},
    {"eigen", required_argument, NULL, OPT_EIGEN},
    {"contact-modes", required_argument, NULL, OPT_CONTACT},
    {"patch-radius", required_argument, NULL, OPT_PATCH_RADIUS},
    {"mesh-size", required_argument, NULL, OPT_MESH_SIZE},
    {"analytic", required_argument, NULL, OPT_ANALYTIC},
    {"length", required_argument, NULL, OPT_LENGTH},
    {"axis", required_argument, NULL, OPT_AXIS},
    {"deflect", required_argument, NULL, OPT_DEFLECT},
    {"depth", required_argument, NULL, OPT_DEPTH},
    {"E", required_argument, NULL, OPT_E},
    {"nu", required_argument, NULL, OPT_NU},
    {"density", required_argument, NULL, OPT_DENSITY},
    {"keep-rigid", no_argument, NULL, OPT_KEEP_RIGID},
    {"orthogonalize", no_argument, NULL, OPT_ORTHOGONALIZE},
    {"normalize", required_argument, NULL, OPT_NORMALIZE},
    {"damping", required_argument, NULL, OPT_DAMPING},
    {"spectrum", required_argument, NULL, OPT_SPECTRUM},
    {"spectrum-png", required_argument, NULL, OPT_SPECTRUM_PNG},
    {"snapshot-table", required_argument, NULL, OPT_SNAPSHOT_TABLE},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"input", required_argument, NULL, 'i'},
    {"output", required_argument, NULL, 'o'},
    {"verbose", no_argument, NULL, 'v'},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

/* Which options were given, for the cross-checks. */
typedef struct seen {
    int modes, energy, single_index, prune, inner, step, method, length, axis, deflect, depth,
        E, nu, cubic, patch_radius, mesh_size, frame;
} seen;

static int handle(int c, const char *arg, modefit_options *o, seen *s)
{
    long v;
    switch (c) {
    case OPT_MESH: o->mesh_path = arg; return 0;
    case OPT_SNAPSHOTS: o->snap_path = arg; return 0;
    case OPT_STEP:
        s->step = 1;
        if (!strcmp(arg, "all"))
            o->step = 0;
        else if (!strcmp(arg, "last"))
            o->step = -1;
        else if (parse_long("step", arg, 1, 1000000000L, &o->step))
            return 2;
        return 0;
    case OPT_METHOD:
        s->method = 1;
        if (!strcmp(arg, "pod"))
            o->method = METHOD_POD;
        else if (!strcmp(arg, "single"))
            o->method = METHOD_SINGLE;
        else if (!strcmp(arg, "difference"))
            o->method = METHOD_DIFFERENCE;
        else
            return ldem_usage_error("--method: expected pod, single or difference, got '%s'", arg);
        return 0;
    case OPT_MODES: s->modes = 1; return parse_long("modes", arg, 1, 100000, &o->modes);
    case OPT_ENERGY:
        s->energy = 1;
        if (parse_positive("energy", arg, &o->energy))
            return 2;
        if (o->energy > 1)
            return ldem_usage_error("--energy: expected a fraction in (0, 1], got '%s'", arg);
        return 0;
    case OPT_SINGLE_INDEX:
        s->single_index = 1;
        return parse_long("single-index", arg, 1, 1000000000L, &o->single_index);
    case OPT_PRUNE:
        s->prune = 1;
        if (parse_positive("prune", arg, &o->prune))
            return 2;
        if (o->prune >= 1)
            return ldem_usage_error("--prune: expected a fraction in (0, 1), got '%s'", arg);
        return 0;
    case OPT_INNER:
        s->inner = 1;
        if (!strcmp(arg, "euclidean"))
            o->inner = INNER_EUCLIDEAN;
        else if (!strcmp(arg, "mass"))
            o->inner = INNER_MASS;
        else
            return ldem_usage_error("--inner: expected euclidean or mass, got '%s'", arg);
        return 0;
    case OPT_CUBIC:
        s->cubic = 1;
        if (!strcmp(arg, "sum"))
            o->cubic = CUBIC_SUM;
        else if (!strcmp(arg, "copies"))
            o->cubic = CUBIC_COPIES;
        else
            return ldem_usage_error("--cubic: expected sum or copies, got '%s'", arg);
        return 0;
    case OPT_EIGEN: return parse_long("eigen", arg, 1, 10000, &o->eigen);
    case OPT_CONTACT: return parse_long("contact-modes", arg, 1, 10000, &o->contact);
    case OPT_PATCH_RADIUS:
        s->patch_radius = 1;
        return parse_positive("patch-radius", arg, &o->patch_radius);
    case OPT_MESH_SIZE:
        s->mesh_size = 1;
        return parse_positive("mesh-size", arg, &o->mesh_size);
    case OPT_ANALYTIC:
        if (strcmp(arg, "beam-bending") != 0)
            return ldem_usage_error("--analytic: unknown mode '%s' (available: beam-bending)", arg);
        o->analytic = ANALYTIC_BEAM_BENDING;
        return 0;
    case OPT_LENGTH: s->length = 1; return parse_positive("length", arg, &o->length);
    case OPT_AXIS:
    case OPT_DEFLECT: {
        int ax = axis_of(arg);
        if (ax < 0)
            return ldem_usage_error("--%s: expected x, y or z, got '%s'", c == OPT_AXIS ? "axis" : "deflect",
                        arg);
        if (c == OPT_AXIS) {
            s->axis = 1;
            o->axis = ax;
        } else {
            s->deflect = 1;
            o->deflect = ax;
        }
        return 0;
    }
    case OPT_DEPTH:
        s->depth = 1;
        if (parse_long("depth", arg, 0, 6, &v))
            return 2;
        o->depth = (int)v;
        return 0;
    case OPT_E: s->E = 1; return parse_positive("E", arg, &o->E);
    case OPT_NU:
        s->nu = 1;
        if (cli_number("nu", arg, &o->nu))
            return 2;
        if (!(o->nu > -1 && o->nu < 0.5))
            return ldem_usage_error("--nu: Poisson's ratio must lie in (-1, 0.5), got '%s'", arg);
        return 0;
    case OPT_DENSITY: return parse_positive("density", arg, &o->density);
    case OPT_KEEP_RIGID: o->keep_rigid = 1; return 0;
    case OPT_ORTHOGONALIZE: o->orthogonalize = 1; return 0;
    case OPT_NORMALIZE: return parse_normalize(arg, o);
    case OPT_NORMALIZE_AFTER_RIGID: o->normalize_after_rigid = 1; return 0;
    case OPT_ALLOW_MISMATCH: s->frame = 1; o->allow_mismatch = 1; return 0;
    case OPT_MESH_SCALE: s->frame = 1; return parse_positive("mesh-scale", arg, &o->mesh_scale);
    case OPT_MESH_TRANSLATE:
        s->frame = 1;
        return parse_numbers("mesh-translate", arg, 3, o->mesh_translate);
    case OPT_DAMPING: return parse_damping(arg, o);
    case OPT_SPECTRUM: o->spectrum = arg; return 0;
    case OPT_SPECTRUM_PNG: o->spectrum_png = arg; return 0;
    case OPT_SNAPSHOT_TABLE: o->snapshot_table = arg; return 0;
    case OPT_THREADS:
        if (parse_long("threads", arg, 1, 4096, &v))
            return 2;
        o->threads = (int)v;
        return 0;
    case 'i': o->input = arg; return 0;
    case 'o': o->output = arg; return 0;
    case 'v': o->verbosity++; return 0;
    case 'q': o->verbosity--; return 0;
    default: return ldem_usage_error("unknown option (see modefit --help)");
    }
}

static int check_method(const modefit_options *o, const seen *s);

/* --eigen and --contact-modes: modefit solves on the mesh itself. */
static int cross_check_solve(modefit_options *o, const seen *s)
{
    const char *what = o->eigen ? "--eigen" : "--contact-modes";
    if (o->eigen && o->contact)
        return ldem_usage_error("give --eigen or --contact-modes, not both (run modefit twice)");
    if (o->snap_path)
        return ldem_usage_error("%s computes its own fields on the mesh: drop --snapshots", what);
    if (o->mesh_path && s->mesh_size)
        return ldem_usage_error("--mesh-size sizes the mesh Gmsh makes without --mesh: drop one");
    if (s->step || s->cubic)
        return ldem_usage_error("--step and --cubic apply to FEM snapshots read from a file");
    if (o->eigen) {
        if (s->method || s->modes || s->energy || s->single_index || s->prune || s->inner ||
            s->patch_radius)
            return ldem_usage_error("--eigen N makes N modes: drop --method, --modes, --energy, "
                                    "--single-index, --prune, --inner and --patch-radius");
        if (o->spectrum || o->spectrum_png || o->snapshot_table)
            return ldem_usage_error("--spectrum, --spectrum-png and --snapshot-table report "
                                    "snapshots; --eigen has none (-v prints the frequencies)");
        return 0;
    }
    return check_method(o, s);
}

/* --normalize, the mesh's frame and what they need, for every kind of FEM modes. */
static int cross_check_normalize(const modefit_options *o, const seen *s)
{
    if (o->normalize_after_rigid && !o->normalize)
        return ldem_usage_error("--normalize-after-rigid goes with --normalize");
    if (o->normalize_after_rigid && o->keep_rigid)
        return ldem_usage_error("--normalize-after-rigid: with --keep-rigid no rigid motion is "
                                "removed; drop one of them");
    if (o->analytic)
        return 0;
    if (s->frame && !o->mesh_path)
        return ldem_usage_error("--mesh-scale, --mesh-translate and --allow-mismatch apply to a "
                                "FEM mesh given with --mesh");
    if (o->normalize == NORM_MEAN && !o->mesh_path)
        return ldem_usage_error("--normalize mean:%s: the set comes from --mesh (a deck's *NSET "
                                "or *SURFACE, a .msh's physical group); without --mesh use "
                                "point:X,Y,Z:C", o->norm_set);
    if (o->normalize == NORM_MEAN && o->cubic)
        return ldem_usage_error("--normalize mean: does not combine with --cubic (the set is "
                                "not rotated with the copies; use point:X,Y,Z:C)");
    return 0;
}

/* Options that only make sense together. */
static int cross_check(modefit_options *o, const seen *s)
{
    if (!s->E || !s->nu)
        return ldem_usage_error("--E and --nu are required (isotropic linear elasticity of the grain)");
    if (o->analytic) {
        if (o->mesh_path || o->snap_path)
            return ldem_usage_error("--analytic builds its mode from a formula: drop --mesh/--snapshots");
        if (s->method || s->modes || s->energy || s->single_index || s->prune || s->inner ||
            s->step || s->cubic)
            return ldem_usage_error("--method, --modes, --energy, --single-index, --prune, --inner, "
                        "--step and --cubic apply to FEM snapshots, not to --analytic");
        if (!s->length || !s->axis)
            return ldem_usage_error("--analytic beam-bending needs --length L and --axis x|y|z");
        if (!s->deflect)
            o->deflect = o->axis == 2 ? 0 : 2;
        if (o->deflect == o->axis)
            return ldem_usage_error("--deflect must differ from --axis");
        if (o->spectrum || o->spectrum_png || o->snapshot_table)
            return ldem_usage_error("--spectrum, --spectrum-png and --snapshot-table need FEM snapshots");
        if (s->frame)
            return ldem_usage_error("--mesh-scale, --mesh-translate and --allow-mismatch apply "
                                    "to a FEM mesh, not to --analytic");
        if (o->normalize == NORM_MEAN)
            return ldem_usage_error("--normalize mean: needs the FEM deck's sets; an analytic "
                                    "mode has none (use point:X,Y,Z:C)");
        return cross_check_normalize(o, s);
    }
    if (s->length || s->axis || s->deflect || s->depth)
        return ldem_usage_error("--length, --axis, --deflect and --depth go with --analytic");
    if (o->eigen || o->contact) {
        int rc = cross_check_solve(o, s);
        return rc ? rc : cross_check_normalize(o, s);
    }
    if (s->patch_radius || s->mesh_size)
        return ldem_usage_error("--patch-radius and --mesh-size go with --contact-modes or --eigen");
    if (!o->snap_path) {
        if (o->mesh_path && strstr(o->mesh_path, ".msh"))
            o->snap_path = o->mesh_path;
        else
            return ldem_usage_error("no modes to build: give --mesh and --snapshots, or --analytic");
    }
    if (!o->mesh_path) {
        if (strstr(o->snap_path, ".frd"))
            return ldem_usage_error("--snapshots %s: a .frd needs --mesh (the .inp deck it came from)",
                        o->snap_path);
        o->mesh_path = o->snap_path;
    }
    int rc = check_method(o, s);
    return rc ? rc : cross_check_normalize(o, s);
}

/* What each --method accepts. */
static int check_method(const modefit_options *o, const seen *s)
{
    if (o->method != METHOD_POD && (s->energy || s->inner))
        return ldem_usage_error("--energy and --inner apply to --method pod");
    if (o->method != METHOD_SINGLE && s->single_index)
        return ldem_usage_error("--single-index applies to --method single");
    if (o->method != METHOD_DIFFERENCE && s->prune)
        return ldem_usage_error("--prune applies to --method difference");
    if (o->method == METHOD_SINGLE && s->modes)
        return ldem_usage_error("--method single makes one mode: drop --modes");
    if (o->method == METHOD_POD && s->modes && s->energy)
        return ldem_usage_error("give --modes or --energy, not both");
    return 0;
}

int modefit_parse_args(int argc, char **argv, modefit_options *o)
{
    memset(o, 0, sizeof *o);
    o->input = "-";
    o->output = "-";
    o->energy = 0.9999;
    o->prune = 1e-3;
    o->depth = 3;
    o->deflect = -1;
    o->mesh_scale = 1.0;
    seen s;
    memset(&s, 0, sizeof s);
    opterr = 0;
    int c, st = 0;
    optind = 1;
    while (!st && (c = getopt_long(argc, argv, ":i:o:vqh", long_options, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return -1;
        }
        if (c == OPT_VERSION) {
            printf("modefit (ldem) %s\n", LDEM_VERSION);
            return -1;
        }
        if (c == '?')
            return ldem_usage_error("unknown option '%s' (see modefit --help)", argv[optind - 1]);
        if (c == ':')
            return ldem_usage_error("option '%s' needs a value", argv[optind - 1]);
        st = handle(c, optarg, o, &s);
    }
    if (st)
        return st;
    if (optind < argc)
        return ldem_usage_error("unexpected argument '%s' (the bundle comes on stdin or with -i)",
                    argv[optind]);
    st = cross_check(o, &s);
    if (st)
        return st;
    o->command_line = cli_join_args(argc, argv);
    if (!o->command_line)
        return ldem_usage_error("out of memory");
    return 0;
}

void modefit_options_free(modefit_options *o)
{
    free(o->zeta);
    free(o->command_line);
    o->zeta = NULL;
    o->command_line = NULL;
}
