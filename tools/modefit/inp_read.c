/* The tetrahedra of an Abaqus/CalculiX input deck (femesh.h: inp_read_mesh).
 *
 * The deck is read as the text it is: keyword lines start with '*' (case-insensitive,
 * "KEY=value" parameters separated by commas), "**" starts a comment, everything else is a
 * data line of the last keyword. *INCLUDE inserts a file where it stands, so an included
 * file's last keyword carries on into the lines after the *INCLUDE, as in Abaqus.
 * Only *NODE and *ELEMENT data matter; other keywords' data lines are passed over. The
 * grain is the tets; a contact model's walls (other volume elements that share no node
 * with them, rigid surfaces) and nodes no tet uses are counted and left out (femesh.h).
 * Nodes and elements are collected first and resolved at the end, because a deck may
 * define its elements before their nodes. */
/* realpath(3), for include loops, is an XSI extension of POSIX.1-2008; the build only
 * asks for the base. */
#if !defined(_XOPEN_SOURCE) || _XOPEN_SOURCE < 700
#undef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#include "femesh.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "femesh_io.h"
#include "ldem/log.h"

#define INP_MAX_DEPTH 16       /* nested *INCLUDEs */
#define INP_MAX_FILES 1000     /* files read in all, against include explosions */
#define INP_MAX_PARAMS 32      /* parameters on one keyword line */
#define INP_FIELD_MAX 128      /* characters in one numeric field */
#define INP_NAME_MAX 64        /* keyword and element type names */
#define INP_SKIPPED_TYPES 8    /* element types named in the "ignored" message */
#define INP_MAX_ELEM_NODES 27  /* C3D27, the largest continuum element */

/* Where something was defined: index into inp_reader.files, 1-based line. */
typedef struct inp_loc {
    size_t file;
    long line;
} inp_loc;

typedef struct inp_node {
    long id;
    double x[3];
    inp_loc loc;
} inp_node;

typedef struct inp_elem {
    long id;
    long node[FE_TET10];
    inp_loc loc;
} inp_elem;

/* A volume element that is not a tet (a C3D8 wall block, ...): kept until the end only to
 * see that it shares no node with the tets. */
typedef struct inp_other {
    long id;
    size_t first;                  /* its nodes: other_nodes[first .. first + n) */
    int n;
    int type;                      /* index into types[], or -1 */
    inp_loc loc;
} inp_other;

/* An element type the grain does not use, and how many elements of it the deck has. */
typedef struct inp_type_count {
    char name[INP_NAME_MAX];
    size_t count;
} inp_type_count;

/* What the data lines belong to: another keyword, *NODE, tets, other volume elements, or
 * elements of lower dimension (surfaces, lines, points) that we only count. */
enum inp_mode { MODE_OTHER, MODE_NODE, MODE_TET, MODE_VOLUME, MODE_SKIP_ELEMENTS };

typedef struct inp_reader {
    char **files;                  /* every file read, as named in messages */
    size_t nfiles, files_cap;
    char *open_real[INP_MAX_DEPTH]; /* canonical paths of the files being read */
    int depth;

    int mode;
    int elem_nodes;                /* nodes per element in MODE_TET and MODE_VOLUME */
    char type[INP_NAME_MAX];       /* element type of the current *ELEMENT */
    long pend[1 + INP_MAX_ELEM_NODES]; /* the element being read: number, then nodes */
    int npend;
    inp_loc pend_loc;

    int order;                     /* 0 until the first tet block */
    char order_type[INP_NAME_MAX];
    inp_loc order_loc;

    inp_node *nodes;
    size_t nnodes, nodes_cap;
    inp_elem *elems;
    size_t nelems, elems_cap;

    inp_other *others;             /* volume elements that are not tets */
    size_t nothers, others_cap;
    long *other_nodes;
    size_t nother_nodes, other_nodes_cap;

    size_t skipped;                /* elements that are not tets, of any type */
    int skip_continues;            /* the last skipped data line ended with a comma */
    inp_type_count types[INP_SKIPPED_TYPES]; /* ... counted by type (the first few) */
    int ntypes;
    int cur_type;                  /* the current *ELEMENT's index in types[], or -1 */
    size_t unused_nodes;           /* nodes no tet uses, left out of the mesh */
} inp_reader;

static int read_file(inp_reader *rd, const char *path, const inp_loc *from, ldem_err *err);

static const char *loc_file(const inp_reader *rd, inp_loc loc)
{
    return loc.file < rd->nfiles ? rd->files[loc.file] : "";
}

/* --------------------------------------------------------------- fields -------- */

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

/* Split `line` in place at commas outside double quotes. Returns the number of fields,
 * or max + 1 if there are more; *trailing is set when the line ends with a comma (its
 * empty last field is then not counted). */
static int split_fields(char *line, char **field, int max, int *trailing)
{
    int n = 0, quoted = 0;
    char *start = line;
    *trailing = 0;
    for (char *p = line;; p++) {
        if (*p == '"') {
            quoted = !quoted;
            continue;
        }
        if ((*p != ',' || quoted) && *p != '\0')
            continue;
        int end = *p == '\0';
        *p = '\0';
        char *f = trim(start);
        if (end && n > 0 && !f[0]) { /* "a, b," : the comma says the row goes on */
            *trailing = 1;
            return n;
        }
        if (n == max)
            return max + 1;
        field[n++] = f;
        if (end)
            return n;
        start = p + 1;
    }
}

static int parse_long(const char *s, long *v)
{
    if (!*s)
        return 0;
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (errno || *end)
        return 0;
    *v = x;
    return 1;
}

/* A finite real; Fortran's D exponent (1.5D-3) is accepted. */
static int parse_real(const char *s, double *v)
{
    char buf[INP_FIELD_MAX];
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof buf)
        return 0;
    for (size_t i = 0; i <= n; i++)
        buf[i] = (s[i] == 'd' || s[i] == 'D') ? 'e' : s[i];
    char *end;
    double x = strtod(buf, &end);
    if (*end || !isfinite(x))
        return 0;
    *v = x;
    return 1;
}

/* -------------------------------------------------------------- keywords -------- */

typedef struct inp_keyword {
    char name[INP_NAME_MAX];         /* upper case, single spaces */
    int nparams;
    char key[INP_MAX_PARAMS][INP_NAME_MAX];
    char *value[INP_MAX_PARAMS];     /* into the line; "" when the parameter has none */
} inp_keyword;

/* Upper case, runs of blanks as one space, at most cap - 1 characters. */
static void normalize_name(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    int blank = 0;
    for (; *s && n + 1 < cap; s++) {
        if (*s == ' ' || *s == '\t') {
            blank = 1;
            continue;
        }
        if (blank && n > 0 && n + 2 < cap)
            out[n++] = ' ';
        blank = 0;
        out[n++] = (char)toupper((unsigned char)*s);
    }
    out[n] = '\0';
}

static char *unquote(char *s)
{
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
        s[n - 1] = '\0';
        return s + 1;
    }
    return s;
}

/* `s` points at the '*' of a keyword line (modified in place). */
static int parse_keyword(char *s, inp_keyword *kw, const char *file, long line, ldem_err *err)
{
    char *field[INP_MAX_PARAMS + 2];
    int trailing;
    int n = split_fields(s + 1, field, INP_MAX_PARAMS + 1, &trailing);
    if (n > INP_MAX_PARAMS + 1)
        return ldem_err_set(err, LDEM_ERR_INPUT, file, line,
                            "more than %d parameters on one keyword line", INP_MAX_PARAMS);
    normalize_name(field[0], kw->name, sizeof kw->name);
    kw->nparams = 0;
    for (int i = 1; i < n; i++) {
        char *eq = strchr(field[i], '=');
        char *value = "";
        if (eq) {
            *eq = '\0';
            value = unquote(trim(eq + 1));
        }
        char key[INP_NAME_MAX];
        normalize_name(field[i], key, sizeof key);
        if (!key[0])
            continue;
        memcpy(kw->key[kw->nparams], key, sizeof key);
        kw->value[kw->nparams++] = value;
    }
    return LDEM_OK;
}

static const char *param(const inp_keyword *kw, const char *key)
{
    for (int i = 0; i < kw->nparams; i++)
        if (strcmp(kw->key[i], key) == 0)
            return kw->value[i];
    return NULL;
}

/* ---------------------------------------------------------- element types -------- */

/* 4 or 10 for the tetrahedra (C3D4, C3D10 and their Abaqus variants: hybrid H, modified
 * M, thermally coupled T, incompatible I, which share the node layout), else 0. */
static int tet_nodes_of(const char *type)
{
    const char *rest;
    int n;
    if (strncmp(type, "C3D10", 5) == 0) {
        rest = type + 5;
        n = FE_TET10;
    } else if (strncmp(type, "C3D4", 4) == 0) {
        rest = type + 4;
        n = FE_TET4;
    } else {
        return 0;
    }
    for (; *rest; rest++)
        if (!strchr("HMTI", *rest))
            return 0;
    return n;
}

/* Nodes per element of the other continuum 3-D types (C3D8, C3D20R, DC3D8, C3D6, SC8R, ...:
 * the number after C3D or SC), else 0. A contact model's rigid walls are often such
 * blocks; they are ignored when they share no node with the tets (build_mesh), since an
 * element that does would be part of the grain, and dropping it would lose volume. */
static int volume_nodes_of(const char *type)
{
    const char *p = strstr(type, "C3D");
    if (p && isdigit((unsigned char)p[3]))
        p += 3;
    else if (strncmp(type, "SC", 2) == 0 && isdigit((unsigned char)type[2]))
        p = type + 2;
    else
        return 0;
    long n = 0;
    for (; isdigit((unsigned char)*p) && n <= INP_MAX_ELEM_NODES; p++)
        n = 10 * n + (*p - '0');
    return (int)n;
}

/* The index of `type` in the counts of ignored types (added if there is room), or -1. */
static int note_skipped_type(inp_reader *rd, const char *type)
{
    for (int i = 0; i < rd->ntypes; i++)
        if (strcmp(rd->types[i].name, type) == 0)
            return i;
    if (rd->ntypes >= INP_SKIPPED_TYPES)
        return -1;
    snprintf(rd->types[rd->ntypes].name, INP_NAME_MAX, "%s", type);
    rd->types[rd->ntypes].count = 0;
    return rd->ntypes++;
}

static void count_skipped(inp_reader *rd)
{
    rd->skipped++;
    if (rd->cur_type >= 0)
        rd->types[rd->cur_type].count++;
}

/* -------------------------------------------------------------- keyword lines -------- */

/* A keyword (or the end of the deck) while an element's node list is incomplete. */
static int incomplete_element(const inp_reader *rd, ldem_err *err)
{
    return ldem_err_set(err, LDEM_ERR_INPUT, loc_file(rd, rd->pend_loc), rd->pend_loc.line,
                        "element %ld has %d of its %d nodes (type %s); expected the rest on "
                        "continuation lines",
                        rd->pend[0], rd->npend - 1, rd->elem_nodes, rd->type);
}

/* The path of an INPUT= file: relative to the directory of the file naming it. */
static char *join_relative(const char *including, const char *name)
{
    const char *slash = strrchr(including, '/');
    size_t dir = (name[0] == '/' || !slash) ? 0 : (size_t)(slash - including) + 1;
    size_t n = strlen(name);
    char *p = malloc(dir + n + 1);
    if (!p)
        return NULL;
    memcpy(p, including, dir);
    memcpy(p + dir, name, n + 1);
    return p;
}

static int read_input_param(inp_reader *rd, const char *value, inp_loc here, ldem_err *err)
{
    const char *file = loc_file(rd, here);
    if (!value[0])
        return ldem_err_set(err, LDEM_ERR_INPUT, file, here.line,
                            "INPUT= without a file name");
    char *path = join_relative(file, value);
    if (!path)
        return ldem_err_set(err, LDEM_ERR_NOMEM, file, here.line, "out of memory");
    int st = read_file(rd, path, &here, err);
    free(path);
    return st;
}

static int element_keyword(inp_reader *rd, const inp_keyword *kw, inp_loc here,
                           ldem_err *err)
{
    const char *file = loc_file(rd, here);
    const char *type_param = param(kw, "TYPE");
    if (!type_param || !type_param[0])
        return ldem_err_set(err, LDEM_ERR_INPUT, file, here.line,
                            "*ELEMENT without TYPE=; expected e.g. TYPE=C3D10");
    char type[INP_NAME_MAX];
    normalize_name(type_param, type, sizeof type);
    int n = tet_nodes_of(type);
    if (n) {
        if (rd->order && rd->order != n)
            return ldem_err_set(err, LDEM_ERR_INPUT, file, here.line,
                                "%s elements in a mesh of %s elements (%s:%ld); expected one "
                                "kind of tetrahedron, all 4-node or all 10-node",
                                type, rd->order_type, loc_file(rd, rd->order_loc),
                                rd->order_loc.line);
        if (!rd->order) {
            rd->order = n;
            rd->order_loc = here;
            memcpy(rd->order_type, type, sizeof type);
        }
        rd->mode = MODE_TET;
        rd->elem_nodes = n;
    } else if ((n = volume_nodes_of(type)) != 0) {
        if (n < FE_TET4 || n > INP_MAX_ELEM_NODES)
            return ldem_err_set(err, LDEM_ERR_INPUT, file, here.line,
                                "element type %s is not supported; expected tetrahedra (C3D4 "
                                "or C3D10), or other volume elements of 4 to %d nodes that "
                                "share no node with them", type, INP_MAX_ELEM_NODES);
        rd->cur_type = note_skipped_type(rd, type);
        rd->mode = MODE_VOLUME;
        rd->elem_nodes = n;
    } else {
        rd->cur_type = note_skipped_type(rd, type);
        rd->mode = MODE_SKIP_ELEMENTS;
        rd->skip_continues = 0;
    }
    memcpy(rd->type, type, sizeof type);
    const char *input = param(kw, "INPUT");
    if (input)
        return read_input_param(rd, input, here, err);
    return LDEM_OK;
}

/* Keywords that make or move nodes and elements from others: reading past them would
 * quietly lose part of the mesh. */
static int is_generator(const char *name)
{
    static const char *const GEN[] = {"NGEN", "NFILL", "NCOPY", "NMAP", "ELGEN", "ELCOPY"};
    for (size_t i = 0; i < sizeof GEN / sizeof *GEN; i++)
        if (strcmp(name, GEN[i]) == 0)
            return 1;
    return 0;
}

/* A keyword line ends the data of the previous keyword -- except *INCLUDE, which is
 * replaced by the file's lines ("*NODE" then "*INCLUDE, INPUT=nodes.inp" holding only
 * data lines is common). */
static int keyword_line(inp_reader *rd, char *s, inp_loc here, ldem_err *err)
{
    const char *file = loc_file(rd, here);
    inp_keyword kw;
    int st = parse_keyword(s, &kw, file, here.line, err);
    if (st)
        return st;
    if (strcmp(kw.name, "INCLUDE") == 0) {
        const char *input = param(&kw, "INPUT");
        if (!input)
            return ldem_err_set(err, LDEM_ERR_INPUT, file, here.line,
                                "*INCLUDE without INPUT=; expected *INCLUDE, INPUT=file.inp");
        return read_input_param(rd, input, here, err);
    }
    if (rd->npend > 0)
        return incomplete_element(rd, err);
    rd->mode = MODE_OTHER;
    if (is_generator(kw.name))
        return ldem_err_set(err, LDEM_ERR_INPUT, file, here.line,
                            "*%s is not supported (nodes or elements it makes would be "
                            "missing); expected every node in *NODE and every element in "
                            "*ELEMENT lines", kw.name);
    if (strcmp(kw.name, "ELEMENT") == 0)
        return element_keyword(rd, &kw, here, err);
    if (strcmp(kw.name, "NODE") == 0) {
        const char *system = param(&kw, "SYSTEM");
        if (system && strcmp(system, "R") != 0 && strcmp(system, "r") != 0)
            return ldem_err_set(err, LDEM_ERR_INPUT, file, here.line,
                                "*NODE, SYSTEM=%s is not supported; expected rectangular "
                                "coordinates (SYSTEM=R)", system);
        rd->mode = MODE_NODE;
        const char *input = param(&kw, "INPUT");
        return input ? read_input_param(rd, input, here, err) : LDEM_OK;
    }
    return LDEM_OK;
}

/* ------------------------------------------------------------------ data lines -------- */

#define INP_NODE_FIELDS 7 /* number, x, y, z, and an optional normal Abaqus allows */

static int node_line(inp_reader *rd, char *s, inp_loc here, ldem_err *err)
{
    const char *file = loc_file(rd, here);
    char *field[INP_NODE_FIELDS + 1];
    int trailing;
    int n = split_fields(s, field, INP_NODE_FIELDS, &trailing);
    if (n > INP_NODE_FIELDS)
        return ldem_err_set(err, LDEM_ERR_INPUT, file, here.line,
                            "*NODE line with more than %d fields; expected: number, x, y, z",
                            INP_NODE_FIELDS);
    inp_node node = {.loc = here};
    if (!parse_long(field[0], &node.id) || node.id <= 0)
        return ldem_err_set(err, LDEM_ERR_INPUT, file, here.line,
                            "'%.40s' is not a node number; expected a positive integer",
                            field[0]);
    if (n < 2)
        return ldem_err_set(err, LDEM_ERR_INPUT, file, here.line,
                            "node %ld has no coordinates; expected: number, x, y, z", node.id);
    for (int k = 0; k < 3 && k + 1 < n; k++) {
        /* Abaqus takes a blank coordinate as zero */
        if (field[k + 1][0] && !parse_real(field[k + 1], &node.x[k]))
            return ldem_err_set(err, LDEM_ERR_INPUT, file, here.line,
                                "node %ld: coordinate '%.40s' is not a finite number",
                                node.id, field[k + 1]);
    }
    if (!fe_grow((void **)&rd->nodes, &rd->nodes_cap, rd->nnodes + 1, sizeof *rd->nodes))
        return ldem_err_set(err, LDEM_ERR_NOMEM, file, here.line, "out of memory for nodes");
    rd->nodes[rd->nnodes++] = node;
    return LDEM_OK;
}

/* A volume element that is not a tet: its nodes, for build_mesh's check. */
static int finish_other(inp_reader *rd, ldem_err *err)
{
    size_t n = (size_t)rd->elem_nodes;
    if (!fe_grow((void **)&rd->others, &rd->others_cap, rd->nothers + 1, sizeof *rd->others) ||
        !fe_grow((void **)&rd->other_nodes, &rd->other_nodes_cap, rd->nother_nodes + n,
                 sizeof *rd->other_nodes))
        return ldem_err_set(err, LDEM_ERR_NOMEM, loc_file(rd, rd->pend_loc),
                            rd->pend_loc.line, "out of memory for elements");
    rd->others[rd->nothers++] = (inp_other){rd->pend[0], rd->nother_nodes, (int)n,
                                            rd->cur_type, rd->pend_loc};
    memcpy(rd->other_nodes + rd->nother_nodes, rd->pend + 1, n * sizeof *rd->other_nodes);
    rd->nother_nodes += n;
    count_skipped(rd);
    rd->npend = 0;
    return LDEM_OK;
}

static int finish_element(inp_reader *rd, ldem_err *err)
{
    if (rd->mode == MODE_VOLUME)
        return finish_other(rd, err);
    if (!fe_grow((void **)&rd->elems, &rd->elems_cap, rd->nelems + 1, sizeof *rd->elems))
        return ldem_err_set(err, LDEM_ERR_NOMEM, loc_file(rd, rd->pend_loc),
                            rd->pend_loc.line, "out of memory for elements");
    inp_elem *e = &rd->elems[rd->nelems++];
    memset(e, 0, sizeof *e);
    e->id = rd->pend[0];
    memcpy(e->node, rd->pend + 1, (size_t)rd->elem_nodes * sizeof *e->node);
    e->loc = rd->pend_loc;
    rd->npend = 0;
    return LDEM_OK;
}

/* One line of an element's number and nodes; a line that leaves the list short goes on
 * to the next data line (with or without the trailing comma some writers put there). */
static int element_line(inp_reader *rd, char *s, inp_loc here, ldem_err *err)
{
    const char *file = loc_file(rd, here);
    char *field[1 + INP_MAX_ELEM_NODES + 1];
    int trailing;
    int need = 1 + rd->elem_nodes;
    int n = split_fields(s, field, 1 + INP_MAX_ELEM_NODES, &trailing);
    if (rd->npend == 0)
        rd->pend_loc = here;
    if (n > need - rd->npend) {
        if (rd->npend == 0)
            return ldem_err_set(err, LDEM_ERR_INPUT, file, here.line,
                                "more than %d numbers on a %s element line; expected the "
                                "element number and %d nodes", need, rd->type, rd->elem_nodes);
        return ldem_err_set(err, LDEM_ERR_INPUT, file, here.line,
                            "element %ld has more than %d nodes (type %s)", rd->pend[0],
                            rd->elem_nodes, rd->type);
    }
    for (int i = 0; i < n; i++) {
        long v;
        if (!parse_long(field[i], &v) || v <= 0)
            return ldem_err_set(err, LDEM_ERR_INPUT, file, here.line,
                                "'%.40s' is not a valid %s number; expected a positive integer",
                                field[i], rd->npend == 0 ? "element" : "node");
        rd->pend[rd->npend++] = v;
    }
    if (rd->npend == need)
        return finish_element(rd, err);
    return LDEM_OK;
}

/* Data of elements we do not use: count them (continuation lines are not elements). */
static void skipped_line(inp_reader *rd, const char *s)
{
    if (!rd->skip_continues)
        count_skipped(rd);
    size_t n = strlen(s);
    rd->skip_continues = n > 0 && s[n - 1] == ',';
}

static int one_line(inp_reader *rd, char *line, inp_loc here, ldem_err *err)
{
    char *s = line;
    while (*s == ' ' || *s == '\t')
        s++;
    if (s[0] == '*' && s[1] == '*')
        return LDEM_OK;
    if (s[0] == '*')
        return keyword_line(rd, s, here, err);
    s = trim(s);
    if (!s[0])
        return LDEM_OK;
    switch (rd->mode) {
    case MODE_NODE:
        return node_line(rd, s, here, err);
    case MODE_TET:
    case MODE_VOLUME:
        return element_line(rd, s, here, err);
    case MODE_SKIP_ELEMENTS:
        skipped_line(rd, s);
        return LDEM_OK;
    default:
        return LDEM_OK;
    }
}

/* ------------------------------------------------------------------------ files -------- */

static int add_file_name(inp_reader *rd, const char *path, size_t *index, ldem_err *err)
{
    if (rd->nfiles >= INP_MAX_FILES)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "more than %d files read through *INCLUDE", INP_MAX_FILES);
    char *copy = strdup(path);
    if (!copy || !fe_grow((void **)&rd->files, &rd->files_cap, rd->nfiles + 1,
                          sizeof *rd->files)) {
        free(copy);
        return ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory");
    }
    *index = rd->nfiles;
    rd->files[rd->nfiles++] = copy;
    return LDEM_OK;
}

/* Why `path` cannot be read as part of the deck: it is missing, or it is being read
 * already (an include loop), or the nesting is too deep. */
static int check_include(inp_reader *rd, const char *path, const char *real,
                         const inp_loc *from, ldem_err *err)
{
    const char *ffile = from ? loc_file(rd, *from) : path;
    long fline = from ? from->line : 0;
    if (!real && from)
        return ldem_err_set(err, LDEM_ERR_INPUT, ffile, fline,
                            "cannot open included file %s: %s", path, strerror(errno));
    if (!real)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0, "cannot open: %s", strerror(errno));
    for (int i = 0; i < rd->depth; i++) {
        if (strcmp(rd->open_real[i], real) == 0)
            return ldem_err_set(err, LDEM_ERR_INPUT, ffile, fline,
                                "include loop: %s is already being read (it includes "
                                "itself through %d level%s of INPUT=)",
                                path, rd->depth - i, rd->depth - i == 1 ? "" : "s");
    }
    if (rd->depth >= INP_MAX_DEPTH)
        return ldem_err_set(err, LDEM_ERR_INPUT, ffile, fline,
                            "*INCLUDE nested deeper than %d files", INP_MAX_DEPTH);
    return LDEM_OK;
}

static int read_file(inp_reader *rd, const char *path, const inp_loc *from, ldem_err *err)
{
    errno = 0;
    char *real = realpath(path, NULL);
    int st = check_include(rd, path, real, from, err);
    if (st) {
        free(real);
        return st;
    }
    size_t index = 0;
    fe_lines r;
    if ((st = add_file_name(rd, path, &index, err))) {
        free(real);
        return st;
    }
    if ((st = fe_lines_open(&r, path, err))) {
        if (st == LDEM_ERR_INPUT && from && err) { /* say where it was included from */
            char why[LDEM_ERR_MSG_MAX];
            memcpy(why, err->msg, sizeof why);
            st = ldem_err_set(err, LDEM_ERR_INPUT, loc_file(rd, *from), from->line,
                              "included file %s: %s", path, why);
        }
        free(real);
        return st;
    }
    r.path = rd->files[index];
    rd->open_real[rd->depth++] = real;
    while (!(st = fe_lines_next(&r, err)) && r.line) {
        inp_loc here = {index, r.lineno};
        if ((st = one_line(rd, r.line, here, err)))
            break;
    }
    rd->depth--;
    free(real);
    fe_lines_close(&r);
    return st;
}

/* --------------------------------------------------------------- the mesh -------- */

typedef struct id_pos {
    long id;
    size_t pos;
} id_pos;

static int cmp_id_pos(const void *a, const void *b)
{
    const id_pos *p = a, *q = b;
    if (p->id != q->id)
        return p->id < q->id ? -1 : 1;
    return (p->pos > q->pos) - (p->pos < q->pos);
}

/* Node numbers sorted (for lookups), and no number defined twice. */
static int sort_nodes(const inp_reader *rd, long *ids, size_t *perm, ldem_err *err)
{
    id_pos *tmp = malloc((rd->nnodes ? rd->nnodes : 1) * sizeof *tmp);
    if (!tmp)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for %zu nodes",
                            rd->nnodes);
    for (size_t i = 0; i < rd->nnodes; i++)
        tmp[i] = (id_pos){rd->nodes[i].id, i};
    qsort(tmp, rd->nnodes, sizeof *tmp, cmp_id_pos);
    int st = LDEM_OK;
    for (size_t i = 0; i < rd->nnodes && !st; i++) {
        if (i > 0 && tmp[i].id == tmp[i - 1].id) {
            const inp_node *first = &rd->nodes[tmp[i - 1].pos], *again = &rd->nodes[tmp[i].pos];
            st = ldem_err_set(err, LDEM_ERR_INPUT, loc_file(rd, again->loc), again->loc.line,
                              "node %ld is defined again (first at %s:%ld); expected unique "
                              "node numbers", again->id, loc_file(rd, first->loc),
                              first->loc.line);
        }
        ids[i] = tmp[i].id;
        perm[i] = tmp[i].pos;
    }
    free(tmp);
    return st;
}

static int check_element_numbers(const inp_reader *rd, ldem_err *err)
{
    id_pos *tmp = malloc((rd->nelems ? rd->nelems : 1) * sizeof *tmp);
    if (!tmp)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for %zu elements",
                            rd->nelems);
    for (size_t i = 0; i < rd->nelems; i++)
        tmp[i] = (id_pos){rd->elems[i].id, i};
    qsort(tmp, rd->nelems, sizeof *tmp, cmp_id_pos);
    int st = LDEM_OK;
    for (size_t i = 1; i < rd->nelems && !st; i++) {
        if (tmp[i].id == tmp[i - 1].id) {
            const inp_elem *first = &rd->elems[tmp[i - 1].pos], *again = &rd->elems[tmp[i].pos];
            st = ldem_err_set(err, LDEM_ERR_INPUT, loc_file(rd, again->loc), again->loc.line,
                              "element %ld is defined again (first at %s:%ld); expected unique "
                              "element numbers", again->id, loc_file(rd, first->loc),
                              first->loc.line);
        }
    }
    free(tmp);
    return st;
}

/* Tets' node numbers to indices into rd->nodes (m->tet, compacted later). */
static int resolve_elements(const inp_reader *rd, const long *ids, const size_t *perm,
                            fe_mesh *m, ldem_err *err)
{
    size_t k = (size_t)rd->order;
    for (size_t e = 0; e < rd->nelems; e++) {
        const inp_elem *el = &rd->elems[e];
        for (size_t j = 0; j < k; j++) {
            long i = fe_node_lookup(ids, perm, rd->nnodes, el->node[j]);
            if (i < 0)
                return ldem_err_set(err, LDEM_ERR_INPUT, loc_file(rd, el->loc), el->loc.line,
                                    "element %ld refers to node %ld, which no *NODE line "
                                    "defines", el->id, el->node[j]);
            m->tet[k * e + j] = (size_t)i;
        }
    }
    return LDEM_OK;
}

/* A volume element that is not a tet is ignored (a wall block of a contact model) only
 * when it shares no node with the tets: one that does belongs to the grain, and a grain
 * of mixed element types is refused rather than read without part of its volume. */
static int check_others(const inp_reader *rd, const long *ids, const size_t *perm,
                        const unsigned char *used, ldem_err *err)
{
    for (size_t e = 0; e < rd->nothers; e++) {
        const inp_other *o = &rd->others[e];
        for (int j = 0; j < o->n; j++) {
            long i = fe_node_lookup(ids, perm, rd->nnodes, rd->other_nodes[o->first + (size_t)j]);
            if (i >= 0 && used[i])
                return ldem_err_set(err, LDEM_ERR_INPUT, loc_file(rd, o->loc), o->loc.line,
                                    "element %ld (%s) shares node %ld with the tetrahedra: "
                                    "a grain of mixed element types is not supported; "
                                    "expected C3D4 or C3D10 only (other volume elements, "
                                    "such as rigid wall blocks, must not share its nodes)",
                                    o->id, o->type >= 0 ? rd->types[o->type].name
                                                                       : "not a tet",
                                    rd->other_nodes[o->first + (size_t)j]);
        }
    }
    return LDEM_OK;
}

/* Keep only the nodes some tet uses, in file order: the others (walls, rigid-body
 * reference nodes, surface-only nodes) are not the grain's, and would otherwise stretch
 * the mesh's extent and enter the cubic copies' node maps. */
static int compact_nodes(inp_reader *rd, const unsigned char *used, fe_mesh *m, ldem_err *err)
{
    size_t nn = rd->nnodes, k = (size_t)rd->order, kept = 0;
    size_t *to = malloc((nn ? nn : 1) * sizeof *to);
    if (!to)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for %zu nodes", nn);
    for (size_t i = 0; i < nn; i++) {
        if (!used[i])
            continue;
        to[i] = kept;
        m->node_id[kept] = rd->nodes[i].id;
        memcpy(m->xyz + 3 * kept, rd->nodes[i].x, sizeof rd->nodes[i].x);
        kept++;
    }
    for (size_t j = 0; j < k * rd->nelems; j++)
        m->tet[j] = to[m->tet[j]];
    free(to);
    m->nnodes = kept;
    rd->unused_nodes = nn - kept;
    return LDEM_OK;
}

/* Each tet checked, named where the deck defines it. */
static int check_tets(const inp_reader *rd, const fe_mesh *m, ldem_err *err)
{
    char why[LDEM_ERR_MSG_MAX - 64];
    for (size_t e = 0; e < rd->nelems; e++) {
        if (fe_tet_defect(m, e, why, sizeof why))
            return ldem_err_set(err, LDEM_ERR_INPUT, loc_file(rd, rd->elems[e].loc),
                                rd->elems[e].loc.line, "element %ld: %s", rd->elems[e].id,
                                why);
    }
    return LDEM_OK;
}

static int build_mesh(inp_reader *rd, const char *path, fe_mesh *m, ldem_err *err)
{
    if (rd->nelems == 0)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "no C3D4 or C3D10 elements (%zu elements of other types "
                            "ignored); expected a tetrahedral volume mesh", rd->skipped);
    size_t nn = rd->nnodes, k = (size_t)rd->order;
    m->ntets = rd->nelems;
    m->order = rd->order;
    m->xyz = malloc((nn ? 3 * nn : 1) * sizeof *m->xyz);
    m->node_id = malloc((nn ? nn : 1) * sizeof *m->node_id);
    m->tet = malloc(k * rd->nelems * sizeof *m->tet);
    long *ids = malloc((nn ? nn : 1) * sizeof *ids);
    size_t *perm = malloc((nn ? nn : 1) * sizeof *perm);
    unsigned char *used = calloc(nn ? nn : 1, 1);
    int st = LDEM_OK;
    if (!m->xyz || !m->node_id || !m->tet || !ids || !perm || !used)
        st = ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory for the mesh");
    if (!st)
        st = sort_nodes(rd, ids, perm, err);
    if (!st)
        st = check_element_numbers(rd, err);
    if (!st)
        st = resolve_elements(rd, ids, perm, m, err);
    if (!st) {
        for (size_t j = 0; j < k * rd->nelems; j++)
            used[m->tet[j]] = 1;
        st = check_others(rd, ids, perm, used, err);
    }
    if (!st)
        st = compact_nodes(rd, used, m, err);
    free(ids);
    free(perm);
    free(used);
    if (!st)
        st = check_tets(rd, m, err);
    if (!st)
        st = fe_mesh_check(m, path, err);
    return st;
}

static void reader_free(inp_reader *rd)
{
    for (size_t i = 0; i < rd->nfiles; i++)
        free(rd->files[i]);
    free(rd->files);
    free(rd->nodes);
    free(rd->elems);
    free(rd->others);
    free(rd->other_nodes);
}

/* One line for everything that is not the grain's: "deck.inp: ignored 6 C3D8 and 1200 CPS6
 * elements and 48 nodes no tetrahedron uses". */
static void log_ignored(const inp_reader *rd, const char *path)
{
    if ((!rd->skipped && !rd->unused_nodes) || !ldem_log_enabled(LDEM_LOG_INFO))
        return;
    char list[INP_SKIPPED_TYPES * (INP_NAME_MAX + 32) + 64] = "";
    size_t used = 0, named = 0;
    for (int i = 0; i < rd->ntypes; i++) {
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%zu %s",
                                 i == 0 ? "" : (i + 1 == rd->ntypes && named + rd->types[i].count
                                                == rd->skipped) ? " and " : ", ",
                                 rd->types[i].count, rd->types[i].name);
        named += rd->types[i].count;
    }
    if (named < rd->skipped)
        snprintf(list + used, sizeof list - used, "%s%zu of other types", used ? " and " : "",
                 rd->skipped - named);
    if (rd->skipped && rd->unused_nodes)
        ldem_info("%s: ignored %s elements and %zu nodes no tetrahedron uses (not the "
                  "grain's)", path, list, rd->unused_nodes);
    else if (rd->skipped)
        ldem_info("%s: ignored %s elements (not the grain's)", path, list);
    else
        ldem_info("%s: ignored %zu nodes no tetrahedron uses (not the grain's)", path,
                  rd->unused_nodes);
}

int inp_read_mesh(const char *path, fe_mesh *m, ldem_err *err)
{
    memset(m, 0, sizeof *m);
    inp_reader rd;
    memset(&rd, 0, sizeof rd);
    int st = read_file(&rd, path, NULL, err);
    if (!st && rd.npend > 0)
        st = incomplete_element(&rd, err);
    if (!st)
        st = build_mesh(&rd, path, m, err);
    if (!st) {
        log_ignored(&rd, path);
        ldem_debug("%s: %zu nodes, %zu %s tetrahedra", path, m->nnodes, m->ntets,
                   rd.order_type);
    }
    reader_free(&rd);
    if (st)
        fe_mesh_free(m);
    return st;
}
