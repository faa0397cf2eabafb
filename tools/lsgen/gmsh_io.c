/* lsgen's Gmsh session and surface reader (gmsh_io.h).
 *
 * Gmsh is a C++ library behind a C API that reports failure through `ierr` and keeps its
 * messages in a logger; this file turns that into ldem_err, keeps Gmsh (and the OpenCASCADE
 * libraries under it, which print on stdout regardless of Gmsh's options) off stdout, and
 * undoes the one global Gmsh changes behind our back: the OpenMP thread count. */
#include "gmsh_io.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gmshc.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "gmsh_private.h"
#include "ldem/log.h"
#include "stl_check.h"

static int session_open;
/* Set by lsgen_gmsh_fail: after an error Gmsh 4.8 may stay "busy" (an exception thrown
 * out of gmshOpen leaves its lock set, and every later open answers "I'm busy! Ask me
 * that later...") or hold a half-built model; the quiet scope then restarts it. */
static int gmsh_failed;

static int gmsh_start(ldem_err *err);
static void gmsh_stop(void);

/* ---------------------------------------------------------------- quiet scope -------- */

int lsgen_gmsh_require_session(const char *what, ldem_err *err)
{
    if (session_open)
        return LDEM_OK;
    return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                        "%s: no Gmsh session (call lsgen_gmsh_begin first)", what);
}

int lsgen_gmsh_quiet_enter(lsgen_gmsh_quiet *q, ldem_err *err)
{
    q->saved_stdout = -1;
    q->captured[0] = '\0';
#ifdef _OPENMP
    /* Gmsh runs single-threaded, as it sets itself up to (General.NumThreads = 1): its
     * message logger is not thread-safe, and surfaces meshed in parallel with our thread
     * count corrupt it. */
    q->omp_threads = omp_get_max_threads();
#else
    q->omp_threads = 1;
#endif
    /* What we wrote before must reach the real stdout, not the scratch file. */
    fflush(stdout);
    q->capture = tmpfile();
    if (!q->capture)
        return ldem_err_set(err, LDEM_ERR_IO, NULL, 0,
                            "cannot create a scratch file for Gmsh's terminal output: %s",
                            strerror(errno));
    q->saved_stdout = dup(STDOUT_FILENO);
    if (q->saved_stdout < 0 && errno != EBADF) {
        int e = errno;
        fclose(q->capture);
        q->capture = NULL;
        return ldem_err_set(err, LDEM_ERR_IO, NULL, 0, "cannot save stdout: %s", strerror(e));
    }
    if (q->saved_stdout < 0)
        q->saved_stdout = -2; /* stdout was closed: close it again on leave */
    if (dup2(fileno(q->capture), STDOUT_FILENO) < 0) {
        int e = errno;
        if (q->saved_stdout >= 0)
            close(q->saved_stdout);
        fclose(q->capture);
        q->capture = NULL;
        q->saved_stdout = -1;
        return ldem_err_set(err, LDEM_ERR_IO, NULL, 0, "cannot redirect stdout: %s",
                            strerror(e));
    }
#ifdef _OPENMP
    omp_set_num_threads(1);
#endif
    return LDEM_OK;
}

/* Copy the first line of `text` that has something besides decoration, without terminal
 * colour codes (OpenCASCADE writes "\033[31;1m**** ERR StepFile : ... ****\033[0m"). */
static void first_meaningful_line(const char *text, char *out, size_t cap)
{
    out[0] = '\0';
    const char *p = text;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        size_t n = 0;
        for (size_t i = 0; i < len && n + 1 < cap; i++) {
            unsigned char c = (unsigned char)p[i];
            if (c == 0x1b) { /* skip ESC [ ... letter */
                while (i + 1 < len && !isalpha((unsigned char)p[i + 1]))
                    i++;
                i++;
                continue;
            }
            if (isprint(c))
                out[n++] = (char)c;
        }
        out[n] = '\0';
        /* trim the "****" frame and blanks */
        size_t b = 0;
        while (out[b] == '*' || out[b] == ' ')
            b++;
        while (n > b && (out[n - 1] == '*' || out[n - 1] == ' '))
            out[--n] = '\0';
        memmove(out, out + b, n - b + 1);
        if (out[0])
            return;
        if (!eol)
            return;
        p = eol + 1;
    }
}

static void read_capture(lsgen_gmsh_quiet *q)
{
    char buf[4096];
    rewind(q->capture);
    size_t n = fread(buf, 1, sizeof buf - 1, q->capture);
    buf[n] = '\0';
    first_meaningful_line(buf, q->captured, sizeof q->captured);
}

/* Gmsh quotes the offending bytes of a garbage file: keep its messages one clean line. */
static void make_printable(char *s)
{
    for (; *s; s++)
        if (!isprint((unsigned char)*s))
            *s = '?';
}

/* Pass Gmsh's messages since the last call on to ldem's log, then empty the logger. */
static void forward_gmsh_log(void)
{
    char **lines = NULL;
    size_t n = 0;
    int ierr = 0;
    gmshLoggerGet(&lines, &n, &ierr);
    if (ierr)
        return;
    for (size_t i = 0; i < n; i++) {
        char *s = lines[i];
        make_printable(s);
        if (strncmp(s, "Warning: ", 9) == 0)
            ldem_info("gmsh: warning: %s", s + 9);
        else
            ldem_debug("gmsh: %s", s);
        gmshFree(lines[i]);
    }
    gmshFree(lines);
    gmshLoggerStop(&ierr);
    gmshLoggerStart(&ierr);
}

int lsgen_gmsh_quiet_leave(lsgen_gmsh_quiet *q, int status, ldem_err *err)
{
    /* Gmsh's log and a restart after an error come first, still inside the scope. */
    if (session_open)
        forward_gmsh_log();
    if (session_open && gmsh_failed) {
        gmsh_stop();
        ldem_err restart_err;
        if (gmsh_start(&restart_err) != LDEM_OK)
            ldem_warn("Gmsh could not be restarted after an error: %s", restart_err.msg);
    }
    fflush(stdout);
    if (q->saved_stdout >= 0) {
        dup2(q->saved_stdout, STDOUT_FILENO);
        close(q->saved_stdout);
    } else if (q->saved_stdout == -2) {
        close(STDOUT_FILENO);
    }
    q->saved_stdout = -1;
    if (q->capture) {
        read_capture(q);
        fclose(q->capture);
        q->capture = NULL;
    }
#ifdef _OPENMP
    /* Gmsh sets its thread count (General.NumThreads = 1) as the process default. */
    omp_set_num_threads(q->omp_threads);
#endif
    if (q->captured[0]) {
        if (status != LDEM_OK && err) {
            size_t used = strlen(err->msg);
            snprintf(err->msg + used, sizeof err->msg - used, " (OpenCASCADE: %s)",
                     q->captured);
        } else {
            ldem_debug("gmsh: terminal output: %s", q->captured);
        }
    }
    return status;
}

/* The last "Error: ..." line Gmsh logged during this operation (the logger is emptied at
 * the end of every operation), else Gmsh's last error, else a placeholder. */
int lsgen_gmsh_fail(ldem_err *err, int code, const char *source, const char *what)
{
    char text[LDEM_ERR_MSG_MAX / 2] = "";
    char **lines = NULL;
    size_t n = 0;
    int ierr = 0;
    gmshLoggerGet(&lines, &n, &ierr);
    if (!ierr) {
        for (size_t i = 0; i < n; i++) {
            if (strncmp(lines[i], "Error: ", 7) == 0)
                snprintf(text, sizeof text, "%s", lines[i] + 7);
        }
        for (size_t i = 0; i < n; i++)
            gmshFree(lines[i]);
        gmshFree(lines);
    }
    if (!text[0]) {
        char *last = NULL;
        ierr = 0;
        gmshLoggerGetLastError(&last, &ierr);
        if (!ierr && last)
            snprintf(text, sizeof text, "%s", last);
        gmshFree(last);
    }
    make_printable(text);
    gmsh_failed = 1;
    return ldem_err_set(err, code, source, 0, "%s: %s", what,
                        text[0] ? text : "Gmsh gave no message");
}

/* ------------------------------------------------------------------ session -------- */

int lsgen_gmsh_set_number(const char *name, double value, ldem_err *err)
{
    int ierr = 0;
    gmshOptionSetNumber(name, value, &ierr);
    if (ierr)
        return lsgen_gmsh_fail(err, LDEM_ERR_INTERNAL, NULL, name);
    return LDEM_OK;
}

/* Gmsh proper, without the quiet scope around it. */
static int gmsh_start(ldem_err *err)
{
    int ierr = 0;
    /* No configuration files: a user's ~/.gmshrc must not change what lsgen produces. */
    gmshInitialize(0, NULL, 0, &ierr);
    if (ierr)
        return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0, "Gmsh failed to initialise");
    int st = lsgen_gmsh_set_number("General.Terminal", 0, err);
    if (!st) /* errors, warnings and info; not Gmsh's status/progress chatter */
        st = lsgen_gmsh_set_number("General.Verbosity", 4, err);
    /* Single-threaded Gmsh (see lsgen_gmsh_quiet_enter), also for a caller's own calls. */
    if (!st)
        st = lsgen_gmsh_set_number("General.NumThreads", 1, err);
    if (!st)
        st = lsgen_gmsh_set_number("Mesh.MaxNumThreads1D", 1, err);
    if (!st)
        st = lsgen_gmsh_set_number("Mesh.MaxNumThreads2D", 1, err);
    if (!st)
        st = lsgen_gmsh_set_number("Mesh.MaxNumThreads3D", 1, err);
    if (!st) {
        gmshLoggerStart(&ierr);
        if (ierr)
            st = ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0, "Gmsh's logger did not start");
    }
    if (st)
        gmshFinalize(&ierr);
    session_open = st == LDEM_OK;
    gmsh_failed = 0;
    return st;
}

static void gmsh_stop(void)
{
    int ierr = 0;
    gmshLoggerStop(&ierr);
    gmshFinalize(&ierr);
    session_open = 0;
}

int lsgen_gmsh_begin(ldem_err *err)
{
    if (session_open)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "a Gmsh session is already open (lsgen_gmsh_end closes it)");
    lsgen_gmsh_quiet q;
    int st = lsgen_gmsh_quiet_enter(&q, err);
    if (st)
        return st;
    st = gmsh_start(err);
    return lsgen_gmsh_quiet_leave(&q, st, err);
}

void lsgen_gmsh_end(void)
{
    if (!session_open)
        return;
    lsgen_gmsh_quiet q;
    int quiet = lsgen_gmsh_quiet_enter(&q, NULL) == LDEM_OK;
    gmsh_stop();
    if (quiet)
        lsgen_gmsh_quiet_leave(&q, LDEM_OK, NULL);
}

/* -------------------------------------------------------------- triangles -------- */

typedef struct tag_index {
    size_t tag;
    size_t index;
} tag_index;

static int cmp_tag(const void *a, const void *b)
{
    size_t x = ((const tag_index *)a)->tag, y = ((const tag_index *)b)->tag;
    return (x > y) - (x < y);
}

/* Gmsh's nodes, and a tag → row lookup (tags are unique but not necessarily dense). */
typedef struct node_table {
    double *xyz; /* Gmsh-owned, 3 per node */
    size_t n;
    tag_index *by_tag;
} node_table;

static void node_table_free(node_table *t)
{
    gmshFree(t->xyz);
    free(t->by_tag);
    t->xyz = NULL;
    t->by_tag = NULL;
}

static int node_table_load(node_table *t, ldem_err *err)
{
    size_t *tags = NULL, ntags = 0, ncoord = 0, npar = 0;
    double *par = NULL;
    int ierr = 0;
    t->xyz = NULL;
    t->by_tag = NULL;
    gmshModelMeshGetNodes(&tags, &ntags, &t->xyz, &ncoord, &par, &npar, -1, -1, 0, 0, &ierr);
    gmshFree(par);
    if (ierr) {
        gmshFree(tags);
        return lsgen_gmsh_fail(err, LDEM_ERR_INTERNAL, NULL, "reading Gmsh's nodes");
    }
    t->n = ntags;
    t->by_tag = malloc((ntags ? ntags : 1) * sizeof *t->by_tag);
    if (!t->by_tag) {
        gmshFree(tags);
        node_table_free(t);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for %zu nodes", ntags);
    }
    for (size_t i = 0; i < ntags; i++)
        t->by_tag[i] = (tag_index){tags[i], i};
    gmshFree(tags);
    qsort(t->by_tag, ntags, sizeof *t->by_tag, cmp_tag);
    return LDEM_OK;
}

static int node_row(const node_table *t, size_t tag, size_t *row)
{
    tag_index key = {tag, 0};
    const tag_index *hit = bsearch(&key, t->by_tag, t->n, sizeof key, cmp_tag);
    if (!hit)
        return 0;
    *row = hit->index;
    return 1;
}

/* A growing list of triangles as rows of the node table, with their patch. */
typedef struct tri_list {
    size_t *v; /* 3 per triangle */
    uint32_t *patch;
    size_t n, cap;
} tri_list;

static int tri_list_push(tri_list *l, size_t a, size_t b, size_t c, uint32_t patch)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 1024;
        size_t *v = realloc(l->v, 3 * cap * sizeof *v);
        if (!v)
            return 0;
        l->v = v;
        uint32_t *p = realloc(l->patch, cap * sizeof *p);
        if (!p)
            return 0;
        l->patch = p;
        l->cap = cap;
    }
    l->v[3 * l->n] = a;
    l->v[3 * l->n + 1] = b;
    l->v[3 * l->n + 2] = c;
    l->patch[l->n++] = patch;
    return 1;
}

/* Append the elements of one type on one entity: triangles as they are, quadrangles
 * (a b c d) as (a b c) + (a c d); only corner nodes, which Gmsh lists first. */
static int append_elements(const node_table *nodes, int type, int corners, int entity,
                           uint32_t patch, tri_list *l, ldem_err *err)
{
    size_t *etags = NULL, ne = 0, *ntags = NULL, nn = 0;
    int ierr = 0;
    gmshModelMeshGetElementsByType(type, &etags, &ne, &ntags, &nn, entity, 0, 1, &ierr);
    gmshFree(etags);
    if (ierr) {
        gmshFree(ntags);
        return lsgen_gmsh_fail(err, LDEM_ERR_INTERNAL, NULL, "reading Gmsh's elements");
    }
    int st = LDEM_OK;
    size_t per = ne ? nn / ne : 0;
    for (size_t e = 0; e < ne && !st; e++) {
        size_t r[4];
        for (int k = 0; k < corners; k++) {
            if (!node_row(nodes, ntags[e * per + (size_t)k], &r[k])) {
                st = ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                                  "Gmsh element refers to node %zu, which Gmsh does not list",
                                  ntags[e * per + (size_t)k]);
                break;
            }
        }
        if (st)
            break;
        int ok = tri_list_push(l, r[0], r[1], r[2], patch);
        if (ok && corners == 4)
            ok = tri_list_push(l, r[0], r[2], r[3], patch);
        if (!ok)
            st = ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for triangles");
    }
    gmshFree(ntags);
    return st;
}

/* All triangles and quadrangles of one 2-D entity; other 2-D elements are counted. */
static int append_entity(const node_table *nodes, int entity, uint32_t patch, tri_list *l,
                         size_t *skipped, ldem_err *err)
{
    int *types = NULL;
    size_t ntypes = 0;
    int ierr = 0;
    gmshModelMeshGetElementTypes(&types, &ntypes, 2, entity, &ierr);
    if (ierr)
        return lsgen_gmsh_fail(err, LDEM_ERR_INTERNAL, NULL, "reading Gmsh's element types");
    int st = LDEM_OK;
    for (size_t i = 0; i < ntypes && !st; i++) {
        char *name = NULL;
        double *local = NULL;
        size_t nlocal = 0;
        int dim = 0, order = 0, nnodes = 0, corners = 0;
        gmshModelMeshGetElementProperties(types[i], &name, &dim, &order, &nnodes, &local,
                                          &nlocal, &corners, &ierr);
        gmshFree(name);
        gmshFree(local);
        if (ierr) {
            st = lsgen_gmsh_fail(err, LDEM_ERR_INTERNAL, NULL, "reading Gmsh's element kinds");
        } else if (corners == 3 || corners == 4) {
            st = append_elements(nodes, types[i], corners, entity, patch, l, err);
        } else {
            size_t *etags = NULL, ne = 0, *ntags = NULL, nn = 0;
            gmshModelMeshGetElementsByType(types[i], &etags, &ne, &ntags, &nn, entity, 0, 1,
                                           &ierr);
            gmshFree(etags);
            gmshFree(ntags);
            *skipped += ne;
        }
    }
    gmshFree(types);
    return st;
}

typedef struct keyed_vertex {
    double x, y, z;
    size_t row;
} keyed_vertex;

static int cmp_xyz(const void *a, const void *b)
{
    const keyed_vertex *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    if (p->y != q->y)
        return p->y < q->y ? -1 : 1;
    if (p->z != q->z)
        return p->z < q->z ? -1 : 1;
    return 0;
}

/* The used rows, sorted by coordinates so that identical points are neighbours; each
 * distinct point becomes one output vertex. */
static int weld_into(const node_table *nodes, const tri_list *l, ldem_trimesh *out,
                     ldem_err *err)
{
    size_t *new_of_row = malloc((nodes->n ? nodes->n : 1) * sizeof *new_of_row);
    keyed_vertex *kv = malloc((nodes->n ? nodes->n : 1) * sizeof *kv);
    if (!new_of_row || !kv) {
        free(new_of_row);
        free(kv);
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory welding vertices");
    }
    for (size_t i = 0; i < nodes->n; i++)
        new_of_row[i] = SIZE_MAX;
    size_t nused = 0;
    for (size_t i = 0; i < 3 * l->n; i++) {
        size_t r = l->v[i];
        if (new_of_row[r] == SIZE_MAX) {
            new_of_row[r] = 0;
            const double *p = nodes->xyz + 3 * r;
            kv[nused++] = (keyed_vertex){p[0], p[1], p[2], r};
        }
    }
    qsort(kv, nused, sizeof *kv, cmp_xyz);
    size_t ndistinct = 0;
    for (size_t i = 0; i < nused; i++) {
        if (i == 0 || cmp_xyz(&kv[i - 1], &kv[i]) != 0)
            kv[ndistinct++] = kv[i];
        new_of_row[kv[i].row] = ndistinct - 1;
    }
    int st = ldem_trimesh_alloc(out, ndistinct, l->n, err);
    if (!st) {
        for (size_t i = 0; i < ndistinct; i++) {
            out->xyz[3 * i] = kv[i].x;
            out->xyz[3 * i + 1] = kv[i].y;
            out->xyz[3 * i + 2] = kv[i].z;
        }
        for (size_t i = 0; i < 3 * l->n; i++)
            out->tri[i] = (uint32_t)new_of_row[l->v[i]];
    }
    free(kv);
    free(new_of_row);
    return st;
}

int lsgen_gmsh_collect_triangles(ldem_trimesh *out, uint32_t **patch, size_t *skipped,
                                 ldem_err *err)
{
    *skipped = 0;
    if (patch)
        *patch = NULL;
    node_table nodes;
    int st = node_table_load(&nodes, err);
    if (st)
        return st;
    int *dimtags = NULL;
    size_t ndimtags = 0;
    int ierr = 0;
    gmshModelGetEntities(&dimtags, &ndimtags, 2, &ierr);
    if (ierr) {
        node_table_free(&nodes);
        return lsgen_gmsh_fail(err, LDEM_ERR_INTERNAL, NULL, "listing Gmsh's surfaces");
    }
    tri_list l = {0};
    for (size_t i = 0; i + 1 < ndimtags && !st; i += 2)
        st = append_entity(&nodes, dimtags[i + 1], (uint32_t)(i / 2), &l, skipped, err);
    gmshFree(dimtags);
    if (!st)
        st = weld_into(&nodes, &l, out, err);
    node_table_free(&nodes);
    free(l.v);
    if (!st && patch) {
        *patch = l.patch;
        l.patch = NULL;
    }
    free(l.patch);
    return st;
}

/* ------------------------------------------------------------------- reading -------- */

static int has_suffix(const char *path, const char *suffix)
{
    size_t n = strlen(path), k = strlen(suffix);
    return n >= k && strcasecmp(path + n - k, suffix) == 0;
}

/* Gmsh says nothing useful about a missing file (it "reads" nothing and succeeds), and
 * a wrong path is the user's to fix (LDEM_ERR_INPUT, exit 2, like every ldem input); and
 * an empty file is the commonest broken input: check both before Gmsh sees the file. */
static int check_file(const char *path, ldem_err *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0, "cannot open: %s", strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "is a directory; expected a surface mesh or CAD file");
    FILE *f = fopen(path, "rb");
    if (!f)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0, "cannot open: %s", strerror(errno));
    int c = fgetc(f);
    int read_error = ferror(f);
    fclose(f);
    if (read_error)
        return ldem_err_set(err, LDEM_ERR_IO, path, 0, "cannot read: %s", strerror(errno));
    if (c == EOF)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "empty file; expected a surface mesh (STL, .msh) or CAD file");
    return LDEM_OK;
}

static int count_element_types(int dim, size_t *n, ldem_err *err)
{
    int *types = NULL;
    int ierr = 0;
    *n = 0;
    gmshModelMeshGetElementTypes(&types, n, dim, -1, &ierr);
    gmshFree(types);
    if (ierr)
        return lsgen_gmsh_fail(err, LDEM_ERR_INTERNAL, NULL, "reading Gmsh's element types");
    return LDEM_OK;
}

#define CAD_CELLS_ACROSS 80.0

/* A model with surfaces but no mesh at all is CAD (STEP, IGES, BREP, .geo): mesh its
 * surfaces at `mesh_size`. A volume mesh without its boundary is refused: meshing would
 * silently replace the user's mesh. */
static int mesh_if_cad(const char *path, double mesh_size, ldem_err *err)
{
    size_t n2, n3, n1;
    int st = count_element_types(2, &n2, err);
    if (st || n2 > 0)
        return st;
    int *dimtags = NULL;
    size_t nsurf = 0;
    int ierr = 0;
    gmshModelGetEntities(&dimtags, &nsurf, 2, &ierr);
    gmshFree(dimtags);
    if (ierr)
        return lsgen_gmsh_fail(err, LDEM_ERR_INTERNAL, path, "listing Gmsh's surfaces");
    if (nsurf == 0)
        return LDEM_OK; /* nothing to mesh: the caller reports "no surface triangles" */
    if ((st = count_element_types(3, &n3, err)) || (st = count_element_types(1, &n1, err)))
        return st;
    if (n3 > 0)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "has a volume mesh but no surface elements; export its boundary "
                            "triangles (e.g. Gmsh: Mesh.SaveAll=0 with a physical surface)");
    if (!(mesh_size > 0) || !isfinite(mesh_size)) {
        /* No size given: resolve the thinnest extent with CAD_CELLS_ACROSS elements, fine
         * enough that the mesh's chordal error stays well below lsgen's default grid
         * spacing (thinnest extent / 20). */
        double lo[3], hi[3];
        gmshModelGetBoundingBox(-1, -1, &lo[0], &lo[1], &lo[2], &hi[0], &hi[1], &hi[2], &ierr);
        if (ierr)
            return lsgen_gmsh_fail(err, LDEM_ERR_INTERNAL, path, "bounding box of the model");
        double thin = fmin(hi[0] - lo[0], fmin(hi[1] - lo[1], hi[2] - lo[2]));
        if (!(thin > 0) || !isfinite(thin))
            return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                                "CAD geometry with a flat or empty bounding box");
        mesh_size = thin / CAD_CELLS_ACROSS;
    }
    ldem_debug("%s: meshing %zu CAD surfaces at size %g", path, nsurf / 2, mesh_size);
    if ((st = lsgen_gmsh_set_number("Mesh.MeshSizeMin", mesh_size, err)) ||
        (st = lsgen_gmsh_set_number("Mesh.MeshSizeMax", mesh_size, err)) ||
        (st = lsgen_gmsh_set_number("Mesh.ElementOrder", 1, err)))
        return st;
    gmshModelMeshGenerate(2, &ierr);
    if (ierr)
        return lsgen_gmsh_fail(err, LDEM_ERR_INPUT, path, "Gmsh could not mesh its surfaces");
    return LDEM_OK;
}

static int open_and_collect(const char *path, double mesh_size, ldem_trimesh *out,
                            size_t *skipped, ldem_err *err)
{
    int ierr = 0;
    gmshClear(&ierr);
    if (ierr)
        return lsgen_gmsh_fail(err, LDEM_ERR_INTERNAL, NULL, "Gmsh could not clear its model");
    gmshOpen(path, &ierr);
    if (ierr)
        return lsgen_gmsh_fail(err, LDEM_ERR_INPUT, path, "Gmsh could not read it");
    int st = mesh_if_cad(path, mesh_size, err);
    if (!st)
        st = lsgen_gmsh_collect_triangles(out, NULL, skipped, err);
    return st;
}

int lsgen_gmsh_read_precheck(const char *path, ldem_err *err)
{
    int st = check_file(path, err);
    if (!st && has_suffix(path, ".stl")) {
        size_t nstl = 0;
        st = lsgen_stl_check(path, &nstl, err);
    }
    return st;
}

int lsgen_gmsh_read_raw(const char *path, double mesh_size, ldem_trimesh *out,
                        size_t *skipped, ldem_err *err)
{
    int st = lsgen_gmsh_require_session("lsgen_gmsh_read_surface", err);
    if (st)
        return st;
    lsgen_gmsh_quiet q;
    if ((st = lsgen_gmsh_quiet_enter(&q, err)))
        return st;
    *skipped = 0;
    st = open_and_collect(path, mesh_size, out, skipped, err);
    st = lsgen_gmsh_quiet_leave(&q, st, err);
    if (st)
        ldem_trimesh_free(out);
    return st;
}

int lsgen_gmsh_read_finish(const char *path, ldem_trimesh *out, size_t skipped,
                           ldem_err *err)
{
    if (out->ntris == 0) {
        ldem_trimesh_free(out);
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "no surface triangles (expected an STL, a .msh with 2-D elements, "
                            "or CAD geometry with surfaces)");
    }
    if (skipped)
        ldem_warn("%s: %zu surface elements that are neither triangles nor quadrangles "
                  "were ignored", path, skipped);
    ldem_debug("%s: %zu vertices, %zu triangles", path, out->nverts, out->ntris);
    return LDEM_OK;
}

int lsgen_gmsh_read_surface(const char *path, double mesh_size, ldem_trimesh *out,
                            ldem_err *err)
{
    int st = lsgen_gmsh_require_session("lsgen_gmsh_read_surface", err);
    if (!st)
        st = lsgen_gmsh_read_precheck(path, err);
    size_t skipped = 0;
    if (!st)
        st = lsgen_gmsh_read_raw(path, mesh_size, out, &skipped, err);
    if (!st)
        st = lsgen_gmsh_read_finish(path, out, skipped, err);
    return st;
}
