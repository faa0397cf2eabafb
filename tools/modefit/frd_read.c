/* Nodal displacements from a CalculiX .frd results file (femesh.h: frd_read_disp).
 *
 * The ASCII .frd is Fortran fixed-format (CalculiX GraphiX manual, "Result Format"):
 *   "    2C ... FORMAT"     node block, FORMAT in column 74 (0 short, 1 long, 2/3 binary)
 *   "    3C ..."            element block
 *   "  100CL SETNM VALUE NUMNOD TEXT ICTYPE NUMSTP ANALYS FORMAT"  a nodal result block:
 *        VALUE (the time or load factor) in columns 13-24, NUMNOD 25-36, NUMSTP 59-63,
 *        FORMAT 74-75; then " -4  NAME NCOMPS", one " -5  COMPONENT ..." per component
 *        (IEXIST = 1 in columns 34-38 marks one computed on the fly, e.g. ALL, which has
 *        no data), " -1" records: node number in I5 (short) or I10 (long), then E12.5
 *        values; " -3" ends every block.
 *   "9999"                  the end of the file.
 * Columns are sliced, never split on blanks: a negative E12.5 value has no blank before
 * it ("1.00000E-02-7.50000E-04"). Only DISP blocks are read; STRESS, ERROR, CONTACT, ...
 * are passed over. Nodes a DISP block has and the mesh does not (walls, rigid-body
 * reference nodes of a contact model) are passed over too, unless they are the majority.
 * A 2C block is compared with the mesh, node by node, so that a results file of another
 * mesh with the same numbering is caught too. */
#include "femesh.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "femesh_io.h"
#include "ldem/log.h"

#define FRD_VALUE_WIDTH 12
#define FRD_SLICE_MAX 32
/* A node block's coordinates are E12.5: 6 significant digits. Agreement with the mesh
 * is asked to 2e-5 of the mesh's size (its largest |coordinate| or bounding-box
 * diagonal), four times the print rounding. */
#define FRD_COORD_TOL 2e-5

/* ------------------------------------------------------------------ columns -------- */

/* Columns [from, from + width) of the line (0-based), blanks trimmed, into buf. */
static void slice(const char *line, size_t len, size_t from, size_t width, char *buf)
{
    size_t n = 0;
    for (size_t i = from; i < from + width && i < len && n + 1 < FRD_SLICE_MAX; i++)
        buf[n++] = line[i];
    buf[n] = '\0';
    size_t b = 0;
    while (buf[b] == ' ')
        b++;
    while (n > b && buf[n - 1] == ' ')
        buf[--n] = '\0';
    memmove(buf, buf + b, n - b + 1);
}

/* An integer field; blank reads as 0, as in Fortran. */
static int column_long(const char *line, size_t len, size_t from, size_t width, long *v)
{
    char buf[FRD_SLICE_MAX];
    slice(line, len, from, width, buf);
    *v = 0;
    if (!buf[0])
        return 1;
    char *end;
    errno = 0;
    long x = strtol(buf, &end, 10);
    if (errno || *end)
        return 0;
    *v = x;
    return 1;
}

/* A real field; NaN and infinities are parsed (and reported by the caller). */
static int column_real(const char *line, size_t len, size_t from, size_t width, double *v)
{
    char buf[FRD_SLICE_MAX];
    slice(line, len, from, width, buf);
    if (!buf[0])
        return 0;
    char *end;
    double x = strtod(buf, &end);
    if (*end)
        return 0;
    *v = x;
    return 1;
}

/* ----------------------------------------------------------------- the reader -------- */

typedef struct frd_reader {
    fe_lines r;
    const fe_mesh *m;
    long *ids;              /* mesh node numbers, sorted */
    size_t *perm;
    unsigned char *used;    /* nodes some tet uses */
    double coord_tol;

    long select;
    size_t ndisp;           /* DISP blocks seen */
    fe_snapshots *out;
    size_t cap_u, cap_time, cap_step; /* capacities, in snapshots */

    double *vals;           /* the block being read: nnodes * 3 */
    long *seen;             /* line of each node's record in it; 0 = none */

    size_t ignored;         /* most records of nodes not in the mesh in one DISP block */
    long ignored_id;        /* the first such node, for the note */
} frd_reader;

static int truncated(frd_reader *fr, const char *what, long started, ldem_err *err)
{
    return ldem_err_set(err, LDEM_ERR_INPUT, fr->r.path, fr->r.lineno,
                        "the file ends inside the %s block that starts at line %ld: "
                        "truncated? expected its end record (-3)", what, started);
}

static int binary_format(frd_reader *fr, long format, ldem_err *err)
{
    return ldem_err_set(err, LDEM_ERR_INPUT, fr->r.path, fr->r.lineno,
                        "binary .frd data (FORMAT %ld); expected an ASCII .frd (CalculiX "
                        "writes one unless told otherwise)", format);
}

/* The key of a " -N" record line, or 0 if the line is not one. */
static int record_key(const char *s, size_t len)
{
    if (len >= 3 && s[0] == ' ' && s[1] == '-' && isdigit((unsigned char)s[2]) &&
        (len == 3 || !isdigit((unsigned char)s[3])))
        return s[2] - '0';
    return 0;
}

static int is_blank(const char *s)
{
    for (; *s; s++)
        if (!isspace((unsigned char)*s))
            return 0;
    return 1;
}

/* The next line that is not blank; end of file leaves r.line NULL. */
static int next_line(frd_reader *fr, ldem_err *err)
{
    int st;
    while (!(st = fe_lines_next(&fr->r, err)) && fr->r.line && is_blank(fr->r.line))
        ;
    return st;
}

/* A header line "   NNC..." : its number and letter. */
static int header_key(const char *s, long *number, char *code)
{
    const char *p = s;
    while (*p == ' ')
        p++;
    if (!isdigit((unsigned char)*p))
        return 0;
    long n = 0;
    for (; isdigit((unsigned char)*p) && n < 100000; p++)
        n = 10 * n + (*p - '0');
    *number = n;
    *code = *p;
    return 1;
}

/* ------------------------------------------------------------ 2C and 3C -------- */

/* FORMAT of a 2C or 3C header: column 74 (I1). */
static int block_format(frd_reader *fr, long *format, ldem_err *err)
{
    if (!column_long(fr->r.line, fr->r.len, 73, 1, format) || *format < 0 || *format > 3)
        return ldem_err_set(err, LDEM_ERR_INPUT, fr->r.path, fr->r.lineno,
                            "block header without a format indicator (0 or 1) in column 74");
    if (*format >= 2)
        return binary_format(fr, *format, err);
    return LDEM_OK;
}

/* A node record's coordinates against the mesh's. */
static int compare_node(frd_reader *fr, long width, ldem_err *err)
{
    const char *s = fr->r.line;
    size_t len = fr->r.len, at = 3 + (size_t)width;
    long id;
    double x[3];
    if (!column_long(s, len, 3, (size_t)width, &id))
        return ldem_err_set(err, LDEM_ERR_INPUT, fr->r.path, fr->r.lineno,
                            "node number in columns 4-%ld is not an integer", 3 + width);
    for (int k = 0; k < 3; k++) {
        if (!column_real(s, len, at + FRD_VALUE_WIDTH * (size_t)k, FRD_VALUE_WIDTH, &x[k]))
            return ldem_err_set(err, LDEM_ERR_INPUT, fr->r.path, fr->r.lineno,
                                "node %ld: coordinate %d (columns %zu-%zu) is not a number",
                                id, k + 1, at + FRD_VALUE_WIDTH * (size_t)k + 1,
                                at + FRD_VALUE_WIDTH * (size_t)(k + 1));
    }
    long i = fe_node_lookup(fr->ids, fr->perm, fr->m->nnodes, id);
    if (i < 0)
        return LDEM_OK; /* the DISP blocks say whether it matters */
    const double *p = fr->m->xyz + 3 * (size_t)i;
    double d = fmax(fabs(x[0] - p[0]), fmax(fabs(x[1] - p[1]), fabs(x[2] - p[2])));
    if (!(d <= fr->coord_tol))
        return ldem_err_set(err, LDEM_ERR_INPUT, fr->r.path, fr->r.lineno,
                            "node %ld is at (%g, %g, %g) here but at (%g, %g, %g) in the mesh; "
                            "expected the results of this mesh", id, x[0], x[1], x[2], p[0],
                            p[1], p[2]);
    return LDEM_OK;
}

/* 2C (nodes, compared with the mesh) or 3C (elements, passed over). */
static int geometry_block(frd_reader *fr, int nodes, ldem_err *err)
{
    long format, started = fr->r.lineno;
    int st = block_format(fr, &format, err);
    long width = format ? 10 : 5;
    while (!st) {
        if ((st = next_line(fr, err)))
            return st;
        if (!fr->r.line)
            return truncated(fr, nodes ? "node (2C)" : "element (3C)", started, err);
        int key = record_key(fr->r.line, fr->r.len);
        if (key == 3)
            return LDEM_OK;
        if (nodes && key == 1)
            st = compare_node(fr, width, err);
        else if (nodes || (key != 1 && key != 2))
            st = ldem_err_set(err, LDEM_ERR_INPUT, fr->r.path, fr->r.lineno,
                              "unexpected line in the %s block that starts at line %ld; "
                              "expected %s records or its end (-3)",
                              nodes ? "node (2C)" : "element (3C)", started,
                              nodes ? "-1" : "-1/-2");
    }
    return st;
}

/* ------------------------------------------------------------ result blocks -------- */

typedef struct frd_result {
    long header_line;
    double time;
    long numnod, numstp, width;
    char name[16];
    int ncomp, provided;  /* -5 records, and those with data */
    int disp_order_ok;    /* the provided components are D1 D2 D3, in order */
    size_t records;
    size_t unknown;       /* records of nodes the mesh does not have */
    long unknown_id;      /* the first of them */
    long unknown_line;
    ldem_err err;         /* the first problem with the values (not the layout) */
    int status;
} frd_result;

static int result_header(frd_reader *fr, frd_result *res, ldem_err *err)
{
    const char *s = fr->r.line;
    size_t len = fr->r.len;
    long format;
    res->header_line = fr->r.lineno;
    if (!column_real(s, len, 12, FRD_VALUE_WIDTH, &res->time) || !isfinite(res->time))
        return ldem_err_set(err, LDEM_ERR_INPUT, fr->r.path, fr->r.lineno,
                            "result block header: columns 13-24 (the time) are not a number");
    if (!column_long(s, len, 24, 12, &res->numnod) || !column_long(s, len, 58, 5, &res->numstp))
        return ldem_err_set(err, LDEM_ERR_INPUT, fr->r.path, fr->r.lineno,
                            "result block header: node count (columns 25-36) or step "
                            "(columns 59-63) is not an integer");
    if (!column_long(s, len, 73, 2, &format) || format < 0 || format > 3)
        return ldem_err_set(err, LDEM_ERR_INPUT, fr->r.path, fr->r.lineno,
                            "result block header without a format indicator (0 short, 1 long) "
                            "in columns 74-75");
    if (format >= 2)
        return binary_format(fr, format, err);
    res->width = format ? 10 : 5;
    return LDEM_OK;
}

/* " -4  NAME    NCOMPS IRTYPE" */
static int result_name(frd_reader *fr, frd_result *res, ldem_err *err)
{
    int st = next_line(fr, err);
    if (st)
        return st;
    if (!fr->r.line)
        return truncated(fr, "result", res->header_line, err);
    if (record_key(fr->r.line, fr->r.len) != 4)
        return ldem_err_set(err, LDEM_ERR_INPUT, fr->r.path, fr->r.lineno,
                            "expected the result block's name record (-4) after its header");
    char buf[FRD_SLICE_MAX];
    slice(fr->r.line, fr->r.len, 5, 8, buf);
    snprintf(res->name, sizeof res->name, "%.8s", buf);
    return LDEM_OK;
}

/* " -5  D1          1    2    1    0" : name, MENU, ICTYPE, ICIND1, ICIND2, IEXIST. */
static int result_component(frd_reader *fr, frd_result *res, ldem_err *err)
{
    const char *s = fr->r.line;
    size_t len = fr->r.len;
    long icind1, iexist;
    if (!column_long(s, len, 23, 5, &icind1) || !column_long(s, len, 33, 5, &iexist))
        return ldem_err_set(err, LDEM_ERR_INPUT, fr->r.path, fr->r.lineno,
                            "component record (-5) with a non-integer in columns 24-38");
    res->ncomp++;
    if (iexist == 1)
        return LDEM_OK; /* computed by the viewer (ALL), no data */
    res->provided++;
    if (res->provided <= 3 && icind1 != res->provided)
        res->disp_order_ok = 0;
    return LDEM_OK;
}

/* Record a problem with the values at the current line; the first one is kept. */
static void value_problem(frd_reader *fr, frd_result *res, const char *fmt, ...)
    LDEM_PRINTF(3, 4);

static void value_problem(frd_reader *fr, frd_result *res, const char *fmt, ...)
{
    if (res->status)
        return;
    va_list ap;
    va_start(ap, fmt);
    res->status = ldem_err_vset(&res->err, LDEM_ERR_INPUT, fr->r.path, fr->r.lineno, -1, fmt,
                                ap);
    va_end(ap);
}

static int disp_record(frd_reader *fr, frd_result *res, ldem_err *err)
{
    const char *s = fr->r.line;
    size_t len = fr->r.len, w = (size_t)res->width, at = 3 + w;
    long id;
    double u[3];
    if (res->provided != 3 || !res->disp_order_ok)
        return ldem_err_set(err, LDEM_ERR_INPUT, fr->r.path, res->header_line,
                            "DISP block with %d components given; expected D1, D2, D3",
                            res->provided);
    if (len < at + 3 * FRD_VALUE_WIDTH)
        return ldem_err_set(err, LDEM_ERR_INPUT, fr->r.path, fr->r.lineno,
                            "record of %zu characters; expected %zu (%s format: node number "
                            "in columns 4-%zu, then three 12-column values): truncated?",
                            len, at + 3 * FRD_VALUE_WIDTH, w == 10 ? "long" : "short", at);
    if (!column_long(s, len, 3, w, &id))
        return ldem_err_set(err, LDEM_ERR_INPUT, fr->r.path, fr->r.lineno,
                            "node number in columns 4-%zu is not an integer", at);
    for (int k = 0; k < 3; k++) {
        size_t from = at + FRD_VALUE_WIDTH * (size_t)k;
        if (!column_real(s, len, from, FRD_VALUE_WIDTH, &u[k])) {
            char buf[FRD_SLICE_MAX];
            slice(s, len, from, FRD_VALUE_WIDTH, buf);
            return ldem_err_set(err, LDEM_ERR_INPUT, fr->r.path, fr->r.lineno,
                                "node %ld: '%s' in columns %zu-%zu is not a number", id, buf,
                                from + 1, from + FRD_VALUE_WIDTH);
        }
    }
    res->records++;
    long i = fe_node_lookup(fr->ids, fr->perm, fr->m->nnodes, id);
    if (i < 0) { /* a wall's or rigid body's node, unless most are (disp_complete) */
        if (res->unknown++ == 0) {
            res->unknown_id = id;
            res->unknown_line = fr->r.lineno;
        }
        return LDEM_OK;
    }
    if (fr->seen[i]) {
        value_problem(fr, res, "node %ld appears again in this DISP block (first at line %ld)",
                      id, fr->seen[i]);
        return LDEM_OK;
    }
    fr->seen[i] = fr->r.lineno;
    for (int k = 0; k < 3; k++) {
        if (!isfinite(u[k]))
            value_problem(fr, res, "node %ld: displacement component %d is not a finite "
                                   "number (NaN or infinite)", id, k + 1);
        fr->vals[3 * (size_t)i + (size_t)k] = u[k];
    }
    return LDEM_OK;
}

/* At the block's end: every node a tet uses has a value, and as many records as the
 * header promised. */
static void disp_complete(frd_reader *fr, frd_result *res)
{
    if (res->status)
        return;
    /* A contact model's .frd also holds its walls' and reference nodes: fewer than the
     * grain's. When they are the majority, the file is another mesh's results. */
    if (res->unknown > res->records - res->unknown) {
        res->status = ldem_err_set(&res->err, LDEM_ERR_INPUT, fr->r.path, res->unknown_line,
                                   "node %ld is not in the mesh, nor are %zu of the %zu nodes "
                                   "of DISP block %zu; expected the results of this mesh",
                                   res->unknown_id, res->unknown - 1, res->records, fr->ndisp);
        return;
    }
    if (res->numnod > 0 && (size_t)res->numnod != res->records) {
        res->status = ldem_err_set(&res->err, LDEM_ERR_INPUT, fr->r.path, res->header_line,
                                   "DISP block header says %ld nodes, but %zu records follow",
                                   res->numnod, res->records);
        return;
    }
    for (size_t k = 0; k < fr->m->nnodes; k++) {
        size_t i = fr->perm[k]; /* by ascending number: the first missing is the lowest */
        if (fr->used[i] && !fr->seen[i]) {
            res->status = ldem_err_set(&res->err, LDEM_ERR_INPUT, fr->r.path,
                                       res->header_line,
                                       "DISP block %zu has no value for node %ld, which the "
                                       "mesh's tets use; expected the results of this mesh "
                                       "(all nodes)", fr->ndisp, fr->ids[k]);
            return;
        }
    }
}

static int store_snapshot(frd_reader *fr, const frd_result *res, ldem_err *err)
{
    fe_snapshots *s = fr->out;
    size_t n3 = 3 * fr->m->nnodes;
    size_t slot = fr->select == 0 ? s->count : 0;
    if (!fe_grow((void **)&s->time, &fr->cap_time, slot + 1, sizeof *s->time) ||
        !fe_grow((void **)&s->step, &fr->cap_step, slot + 1, sizeof *s->step))
        return ldem_err_set(err, LDEM_ERR_NOMEM, fr->r.path, 0, "out of memory for snapshots");
    size_t cap = fr->cap_u;
    if (slot + 1 > cap) {
        size_t want = cap ? 2 * cap : 4;
        if (n3 && want > (size_t)-1 / sizeof(double) / n3)
            return ldem_err_set(err, LDEM_ERR_NOMEM, fr->r.path, 0, "too many snapshots");
        double *u = realloc(s->u, want * n3 * sizeof *u);
        if (!u)
            return ldem_err_set(err, LDEM_ERR_NOMEM, fr->r.path, 0,
                                "out of memory for snapshots");
        s->u = u;
        fr->cap_u = want;
    }
    memcpy(s->u + slot * n3, fr->vals, n3 * sizeof *fr->vals);
    s->time[slot] = res->time;
    s->step[slot] = res->numstp;
    s->count = slot + 1;
    return LDEM_OK;
}

static int zero_everywhere(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] != 0.0)
            return 0;
    return 1;
}

/* A DISP block that select keeps: its problems are errors now (for the last one, only
 * if it stays the last). */
static int disp_block_done(frd_reader *fr, frd_result *res, int *pending, ldem_err *pend_err,
                           ldem_err *err)
{
    int wanted = fr->select <= 0 || (size_t)fr->select == fr->ndisp;
    if (!wanted)
        return LDEM_OK;
    disp_complete(fr, res);
    if (!res->status && zero_everywhere(fr->vals, 3 * fr->m->nnodes))
        res->status = ldem_err_set(&res->err, LDEM_ERR_INPUT, fr->r.path, res->header_line,
                                   "snapshot %zu is zero everywhere (DISP block at step %ld, "
                                   "time %g); expected a deformed state",
                                   fr->ndisp, res->numstp, res->time);
    if (!res->status && res->unknown > fr->ignored) {
        if (fr->ignored == 0)
            fr->ignored_id = res->unknown_id;
        fr->ignored = res->unknown;
    }
    if (fr->select == -1) {
        *pending = res->status;
        if (res->status) {
            *pend_err = res->err;
            return LDEM_OK;
        }
    } else if (res->status) {
        if (err)
            *err = res->err;
        return res->status;
    }
    return store_snapshot(fr, res, err);
}

static int result_block(frd_reader *fr, int *pending, ldem_err *pend_err, ldem_err *err)
{
    frd_result res;
    memset(&res, 0, sizeof res);
    res.disp_order_ok = 1;
    int st = result_header(fr, &res, err);
    if (!st)
        st = result_name(fr, &res, err);
    if (st)
        return st;
    int disp = strcmp(res.name, "DISP") == 0;
    if (disp) {
        fr->ndisp++;
        memset(fr->vals, 0, 3 * fr->m->nnodes * sizeof *fr->vals);
        memset(fr->seen, 0, fr->m->nnodes * sizeof *fr->seen);
    }
    int wanted = fr->select <= 0 || (size_t)fr->select == fr->ndisp;
    for (;;) {
        if ((st = next_line(fr, err)))
            return st;
        if (!fr->r.line)
            return truncated(fr, disp ? "DISP" : "result", res.header_line, err);
        int key = record_key(fr->r.line, fr->r.len);
        if (key == 3)
            break;
        if (key == 5) {
            if ((st = result_component(fr, &res, err)))
                return st;
        } else if (key == 1 && disp && wanted) {
            if ((st = disp_record(fr, &res, err)))
                return st;
        } else if (key == 2 && disp) {
            return ldem_err_set(err, LDEM_ERR_INPUT, fr->r.path, fr->r.lineno,
                                "continuation record (-2) in a DISP block; expected one -1 "
                                "record per node with three values");
        } else if (key != 1 && key != 2 && key != 6) {
            return ldem_err_set(err, LDEM_ERR_INPUT, fr->r.path, fr->r.lineno,
                                "unexpected line in the result block that starts at line %ld; "
                                "expected -5, -1 or -2 records or its end (-3)",
                                res.header_line);
        }
    }
    if (disp)
        return disp_block_done(fr, &res, pending, pend_err, err);
    return LDEM_OK;
}

/* ------------------------------------------------------------------ the file -------- */

static int read_blocks(frd_reader *fr, ldem_err *err)
{
    int pending = LDEM_OK, ended = 0, st;
    ldem_err pend_err;
    memset(&pend_err, 0, sizeof pend_err);
    while (!(st = next_line(fr, err)) && fr->r.line) {
        long number;
        char code;
        if (!header_key(fr->r.line, &number, &code)) {
            int key = record_key(fr->r.line, fr->r.len);
            if (key)
                return ldem_err_set(err, LDEM_ERR_INPUT, fr->r.path, fr->r.lineno,
                                    "a -%d record outside a block; expected a block header",
                                    key);
            return ldem_err_set(err, LDEM_ERR_INPUT, fr->r.path, fr->r.lineno,
                                "unexpected line; expected an .frd record (block headers 2C, "
                                "3C, 100CL, or 9999)");
        }
        if (number == 9999) {
            ended = 1;
            break;
        }
        if (number == 2 && code == 'C')
            st = geometry_block(fr, 1, err);
        else if (number == 3 && code == 'C')
            st = geometry_block(fr, 0, err);
        else if (number == 100 && code == 'C')
            st = result_block(fr, &pending, &pend_err, err);
        /* else: a one-line record (1C model header, 1U user text, 1P parameters) */
        if (st)
            return st;
    }
    if (st)
        return st;
    if (!ended && fr->ndisp > 0)
        ldem_warn("%s: ends without its end record (9999): the run may have stopped early; "
                  "using the %zu complete DISP blocks", fr->r.path, fr->ndisp);
    if (fr->ndisp == 0)
        return ldem_err_set(err, LDEM_ERR_INPUT, fr->r.path, 0,
                            "no DISP block; expected nodal displacements (CalculiX: *NODE "
                            "FILE with U in every step)");
    if (fr->select > 0 && (size_t)fr->select > fr->ndisp)
        return ldem_err_set(err, LDEM_ERR_INPUT, fr->r.path, 0,
                            "DISP block %ld asked for, but the file has %zu", fr->select,
                            fr->ndisp);
    if (pending) {
        if (err)
            *err = pend_err;
        return pending;
    }
    return LDEM_OK;
}

/* The largest |coordinate| or the bounding-box diagonal, whichever is larger. */
static double mesh_scale(const fe_mesh *m)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    double big = 0.0;
    for (size_t i = 0; i < m->nnodes; i++) {
        for (int k = 0; k < 3; k++) {
            double x = m->xyz[3 * i + (size_t)k];
            lo[k] = fmin(lo[k], x);
            hi[k] = fmax(hi[k], x);
            big = fmax(big, fabs(x));
        }
    }
    if (m->nnodes == 0)
        return 0.0;
    double d = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                    (hi[2] - lo[2]) * (hi[2] - lo[2]));
    return fmax(big, d);
}

static int reader_setup(frd_reader *fr, const char *path, const fe_mesh *m, ldem_err *err)
{
    fr->m = m;
    int st = fe_node_sort(m, path, &fr->ids, &fr->perm, err);
    if (st)
        return st;
    size_t n = m->nnodes ? m->nnodes : 1;
    fr->used = fe_used_nodes(m);
    fr->vals = malloc(3 * n * sizeof *fr->vals);
    fr->seen = malloc(n * sizeof *fr->seen);
    if (!fr->used || !fr->vals || !fr->seen)
        return ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory for %zu nodes",
                            m->nnodes);
    fr->coord_tol = FRD_COORD_TOL * mesh_scale(m);
    return fe_lines_open(&fr->r, path, err);
}

static void reader_free(frd_reader *fr)
{
    fe_lines_close(&fr->r);
    free(fr->ids);
    free(fr->perm);
    free(fr->used);
    free(fr->vals);
    free(fr->seen);
}

int frd_read_disp(const char *path, const fe_mesh *m, long select, fe_snapshots *s,
                  ldem_err *err)
{
    memset(s, 0, sizeof *s);
    if (select < -1)
        return ldem_err_set(err, LDEM_ERR_USAGE, path, 0,
                            "select %ld; expected 0 (all DISP blocks), k > 0, or -1 (the last)",
                            select);
    if (m->nnodes == 0 || !m->xyz || !m->node_id)
        return ldem_err_set(err, LDEM_ERR_USAGE, path, 0, "frd_read_disp needs a mesh");
    frd_reader fr;
    memset(&fr, 0, sizeof fr);
    fr.select = select;
    fr.out = s;
    int st = reader_setup(&fr, path, m, err);
    if (!st)
        st = read_blocks(&fr, err);
    if (!st) {
        s->nnodes = m->nnodes;
        if (fr.ignored)
            ldem_info("%s: ignored %zu nodes of the DISP blocks that are not the mesh's "
                      "(walls, rigid-body nodes; node %ld first)", path, fr.ignored,
                      fr.ignored_id);
        ldem_debug("%s: %zu DISP blocks, %zu snapshots kept", path, fr.ndisp, s->count);
    }
    reader_free(&fr);
    if (st)
        fe_snapshots_free(s);
    return st;
}
