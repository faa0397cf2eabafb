/* Named node sets and element-face surfaces of an Abaqus/CalculiX deck (inp_sets.h).
 *
 * One pass over the deck (the mesh reader has already accepted it, include loops and all;
 * the depth limit here only keeps a pathological deck finite) collects every *NSET and
 * *ELSET, the corner nodes of every C3D4/C3D10 element and the entries of the one *SURFACE
 * asked for; the set is resolved at the end, since a deck may name a set before it
 * defines what the set refers to. */
#include "inp_sets.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "femesh_io.h"

#define SETS_MAX_DEPTH 16
#define SETS_NAME_MAX 96
#define SETS_FIELDS 64

/* A named list of numbers (an *NSET or *ELSET), grown as data lines arrive. */
typedef struct id_list {
    char name[SETS_NAME_MAX];
    long *id;
    size_t n, cap;
} id_list;

/* A *SURFACE entry: an element number or an *ELSET name, and the face 1..4. */
typedef struct surf_entry {
    long elem;                 /* 0 when `elset` names the elements */
    char elset[SETS_NAME_MAX];
    int face;
} surf_entry;

typedef struct tet_corners {
    long id, node[4];
} tet_corners;

enum sets_mode { M_OTHER, M_NSET, M_ELSET, M_TET, M_SURFACE, M_SURFACE_NODES };

typedef struct sets_reader {
    const char *want;          /* the set asked for */
    id_list *nsets, *elsets;
    size_t nnsets, nelsets, nsets_cap, elsets_cap;
    tet_corners *tets;
    size_t ntets, tets_cap;
    surf_entry *surf;
    size_t nsurf, surf_cap;
    int found_surface;         /* 1: *SURFACE TYPE=ELEMENT, 2: TYPE=NODE */
    char surface_nset[SETS_NAME_MAX]; /* TYPE=NODE data go to this hidden list */
    /* the keyword the data lines belong to */
    int mode, generate, tet_nodes, tet_pending;
    id_list *list;             /* M_NSET, M_ELSET, M_SURFACE_NODES */
    id_list *element_elset;    /* *ELEMENT, ELSET=: the elements also join it */
    tet_corners cur;           /* a C3D10 element across continuation lines */
    int cur_fields;
    char names[256];           /* the sets seen, for "unknown set" */
} sets_reader;

static int nomem(ldem_err *err)
{
    return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* Comma-separated fields, trimmed; the count (an empty last field after a trailing comma
 * is dropped and flagged). */
static int split(char *s, char **field, int max, int *trailing)
{
    int n = 0;
    *trailing = 0;
    for (char *p = s;;) {
        char *c = strchr(p, ',');
        if (c)
            *c = '\0';
        if (n < max)
            field[n++] = trim(p);
        if (!c)
            break;
        p = c + 1;
    }
    if (n > 0 && !field[n - 1][0]) {
        n--;
        *trailing = 1;
    }
    return n;
}

static int parse_id(const char *s, long *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (end == s || *trim(end) || errno)
        return 0;
    *v = x;
    return 1;
}

static int push_id(id_list *l, long id, ldem_err *err)
{
    if (!fe_grow((void **)&l->id, &l->cap, l->n + 1, sizeof *l->id))
        return nomem(err);
    l->id[l->n++] = id;
    return LDEM_OK;
}

static void note_name(sets_reader *rd, const char *name)
{
    size_t n = strlen(rd->names);
    if (n + strlen(name) + 3 < sizeof rd->names)
        snprintf(rd->names + n, sizeof rd->names - n, "%s%s", n ? ", " : "", name);
}

/* The list called `name` in *lists (made if new: Abaqus appends to a repeated name). */
static id_list *list_named(id_list **lists, size_t *n, size_t *cap, const char *name,
                           ldem_err *err)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcasecmp((*lists)[i].name, name))
            return &(*lists)[i];
    if (!fe_grow((void **)lists, cap, *n + 1, sizeof **lists)) {
        nomem(err);
        return NULL;
    }
    id_list *l = &(*lists)[(*n)++];
    memset(l, 0, sizeof *l);
    snprintf(l->name, sizeof l->name, "%s", name);
    return l;
}

static const char *param(char **field, int n, const char *key)
{
    size_t k = strlen(key);
    for (int i = 1; i < n; i++)
        if (!strncasecmp(field[i], key, k)) {
            const char *v = field[i] + k;
            while (*v == ' ')
                v++;
            if (!*v)
                return "";
            if (*v == '=') {
                v++;
                while (*v == ' ')
                    v++;
                return v;
            }
        }
    return NULL;
}

static int keyword_is(const char *kw, const char *name)
{
    return !strcasecmp(kw, name);
}

static int tet_type(const char *type)
{
    if (!type)
        return 0;
    if (!strncasecmp(type, "C3D10", 5))
        return 10;
    if (!strncasecmp(type, "C3D4", 4))
        return 4;
    return 0;
}

static int start_keyword(sets_reader *rd, char *line, const char *file, long lineno,
                         ldem_err *err)
{
    char *field[SETS_FIELDS];
    int trailing;
    int n = split(line + 1, field, SETS_FIELDS, &trailing);
    rd->mode = M_OTHER;
    rd->generate = 0;
    rd->element_elset = NULL;
    rd->tet_pending = 0;
    const char *kw = field[0];
    if (keyword_is(kw, "NSET") || keyword_is(kw, "ELSET")) {
        int nodes = keyword_is(kw, "NSET");
        const char *name = param(field, n, nodes ? "NSET" : "ELSET");
        if (!name || !*name)
            return ldem_err_set(err, LDEM_ERR_INPUT, file, lineno, "*%s without %s=",
                                nodes ? "NSET" : "ELSET", nodes ? "NSET" : "ELSET");
        size_t before = rd->nnsets;
        rd->list = nodes ? list_named(&rd->nsets, &rd->nnsets, &rd->nsets_cap, name, err)
                         : list_named(&rd->elsets, &rd->nelsets, &rd->elsets_cap, name, err);
        if (!rd->list)
            return LDEM_ERR_NOMEM;
        if (nodes && rd->nnsets > before) /* a repeated *NSET appends: named once */
            note_name(rd, name);
        rd->mode = nodes ? M_NSET : M_ELSET;
        rd->generate = param(field, n, "GENERATE") != NULL;
    } else if (keyword_is(kw, "ELEMENT")) {
        rd->tet_nodes = tet_type(param(field, n, "TYPE"));
        if (rd->tet_nodes) {
            rd->mode = M_TET;
            const char *elset = param(field, n, "ELSET");
            if (elset && *elset) {
                rd->element_elset =
                    list_named(&rd->elsets, &rd->nelsets, &rd->elsets_cap, elset, err);
                if (!rd->element_elset)
                    return LDEM_ERR_NOMEM;
            }
        }
    } else if (keyword_is(kw, "SURFACE")) {
        const char *name = param(field, n, "NAME");
        const char *type = param(field, n, "TYPE");
        if (name && *name)
            note_name(rd, name);
        if (name && !strcasecmp(name, rd->want)) {
            int by_node = type && !strcasecmp(type, "NODE");
            rd->found_surface = by_node ? 2 : 1;
            if (by_node) {
                snprintf(rd->surface_nset, sizeof rd->surface_nset, " surface %s", name);
                rd->list = list_named(&rd->nsets, &rd->nnsets, &rd->nsets_cap,
                                      rd->surface_nset, err);
                if (!rd->list)
                    return LDEM_ERR_NOMEM;
                rd->mode = M_SURFACE_NODES;
            } else if (type && *type && strcasecmp(type, "ELEMENT")) {
                return ldem_err_set(err, LDEM_ERR_INPUT, file, lineno,
                                    "*SURFACE %s: TYPE=%s; --normalize mean reads TYPE=ELEMENT "
                                    "or TYPE=NODE", name, type);
            } else {
                rd->mode = M_SURFACE;
            }
        }
    }
    return LDEM_OK;
}

/* Data of *NSET and *ELSET: numbers, names of sets of the same kind, or GENERATE a, b[, c]. */
static int list_data(sets_reader *rd, char **field, int n, const char *file, long lineno,
                     ldem_err *err)
{
    if (rd->generate) {
        long a, b, c = 1;
        if (n < 2 || n > 3 || !parse_id(field[0], &a) || !parse_id(field[1], &b) ||
            (n == 3 && !parse_id(field[2], &c)) || c <= 0 || b < a)
            return ldem_err_set(err, LDEM_ERR_INPUT, file, lineno,
                                "GENERATE: expected first, last[, step] with first <= last "
                                "and step > 0");
        if ((b - a) / c > 100000000L)
            return ldem_err_set(err, LDEM_ERR_INPUT, file, lineno, "GENERATE: range too long");
        for (long v = a; v <= b; v += c)
            if (push_id(rd->list, v, err))
                return LDEM_ERR_NOMEM;
        return LDEM_OK;
    }
    int nodes = rd->mode != M_ELSET;
    for (int i = 0; i < n; i++) {
        long v;
        if (!field[i][0])
            continue;
        if (parse_id(field[i], &v)) {
            if (push_id(rd->list, v, err))
                return LDEM_ERR_NOMEM;
            continue;
        }
        id_list *all = nodes ? rd->nsets : rd->elsets;
        size_t count = nodes ? rd->nnsets : rd->nelsets;
        const id_list *other = NULL;
        for (size_t k = 0; k < count; k++)
            if (!strcasecmp(all[k].name, field[i]) && &all[k] != rd->list)
                other = &all[k];
        if (!other)
            return ldem_err_set(err, LDEM_ERR_INPUT, file, lineno,
                                "'%s' is neither a number nor a %s defined before", field[i],
                                nodes ? "*NSET" : "*ELSET");
        for (size_t k = 0; k < other->n; k++)
            if (push_id(rd->list, other->id[k], err))
                return LDEM_ERR_NOMEM;
    }
    return LDEM_OK;
}

static int tet_data(sets_reader *rd, char **field, int n, int trailing, ldem_err *err)
{
    for (int i = 0; i < n; i++) {
        long v;
        if (!parse_id(field[i], &v))
            continue; /* inp_read.c judged the deck; this reader only takes numbers */
        if (rd->cur_fields == 0)
            rd->cur.id = v;
        else if (rd->cur_fields <= 4)
            rd->cur.node[rd->cur_fields - 1] = v;
        rd->cur_fields++;
    }
    if (trailing || rd->cur_fields < 1 + rd->tet_nodes)
        return LDEM_OK; /* continued on the next line */
    rd->cur_fields = 0;
    if (!fe_grow((void **)&rd->tets, &rd->tets_cap, rd->ntets + 1, sizeof *rd->tets))
        return nomem(err);
    rd->tets[rd->ntets++] = rd->cur;
    return rd->element_elset ? push_id(rd->element_elset, rd->cur.id, err) : LDEM_OK;
}

static int surface_data(sets_reader *rd, char **field, int n, const char *file, long lineno,
                        ldem_err *err)
{
    if (n < 2)
        return ldem_err_set(err, LDEM_ERR_INPUT, file, lineno,
                            "*SURFACE data: expected ELEMENT_OR_ELSET, Sn");
    surf_entry e;
    memset(&e, 0, sizeof e);
    const char *f = field[1];
    if ((f[0] != 'S' && f[0] != 's') || f[1] < '1' || f[1] > '4' || f[2])
        return ldem_err_set(err, LDEM_ERR_INPUT, file, lineno,
                            "*SURFACE face '%s': a tetrahedron has faces S1 to S4", f);
    e.face = f[1] - '0';
    if (!parse_id(field[0], &e.elem))
        snprintf(e.elset, sizeof e.elset, "%s", field[0]);
    if (!fe_grow((void **)&rd->surf, &rd->surf_cap, rd->nsurf + 1, sizeof *rd->surf))
        return nomem(err);
    rd->surf[rd->nsurf++] = e;
    return LDEM_OK;
}

static int one_line(sets_reader *rd, char *line, const char *file, long lineno, int depth,
                    ldem_err *err);

static int read_deck(sets_reader *rd, const char *path, int depth, ldem_err *err)
{
    if (depth > SETS_MAX_DEPTH)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "*INCLUDE nested deeper than %d files", SETS_MAX_DEPTH);
    fe_lines r;
    int rc = fe_lines_open(&r, path, err);
    while (!rc && !(rc = fe_lines_next(&r, err)) && r.line)
        rc = one_line(rd, r.line, path, r.lineno, depth, err);
    fe_lines_close(&r);
    return rc;
}

static int include(sets_reader *rd, char *line, const char *file, long lineno, int depth,
                   ldem_err *err)
{
    char *field[SETS_FIELDS];
    int trailing;
    int n = split(line + 1, field, SETS_FIELDS, &trailing);
    const char *input = param(field, n, "INPUT");
    if (!input || !*input)
        return ldem_err_set(err, LDEM_ERR_INPUT, file, lineno, "*INCLUDE without INPUT=");
    char name[4096];
    size_t len = strlen(input);
    if (len >= 2 && input[0] == '"' && input[len - 1] == '"')
        snprintf(name, sizeof name, "%.*s", (int)(len - 2), input + 1);
    else
        snprintf(name, sizeof name, "%s", input);
    char path[8192];
    const char *slash = strrchr(file, '/');
    if (name[0] == '/' || !slash)
        snprintf(path, sizeof path, "%s", name);
    else
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - file), file, name);
    return read_deck(rd, path, depth + 1, err);
}

static int one_line(sets_reader *rd, char *line, const char *file, long lineno, int depth,
                    ldem_err *err)
{
    char *s = trim(line);
    if (!*s || (s[0] == '*' && s[1] == '*'))
        return LDEM_OK;
    if (s[0] == '*') {
        if (!strncasecmp(s + 1, "INCLUDE", 7))
            return include(rd, s, file, lineno, depth, err);
        return start_keyword(rd, s, file, lineno, err);
    }
    char *field[SETS_FIELDS];
    int trailing;
    int n = split(s, field, SETS_FIELDS, &trailing);
    switch (rd->mode) {
    case M_NSET:
    case M_ELSET:
    case M_SURFACE_NODES:
        return list_data(rd, field, n, file, lineno, err);
    case M_TET:
        return tet_data(rd, field, n, trailing, err);
    case M_SURFACE:
        return surface_data(rd, field, n, file, lineno, err);
    default:
        return LDEM_OK;
    }
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static int cmp_tet(const void *a, const void *b)
{
    return cmp_long(&((const tet_corners *)a)->id, &((const tet_corners *)b)->id);
}

/* Corner nodes of face f (1..4) of a tetrahedron with corners c (Abaqus face order). */
static void face_corners(const long c[4], int f, long out[3])
{
    static const int face[4][3] = {{0, 1, 2}, {0, 3, 1}, {1, 3, 2}, {2, 3, 0}};
    for (int k = 0; k < 3; k++)
        out[k] = c[face[f - 1][k]];
}

static int add_face(sets_reader *rd, inp_set *set, size_t *cap, long elem, int f,
                    const char *path, ldem_err *err)
{
    tet_corners key = {.id = elem};
    /* (no tets: rd->tets may be NULL, which bsearch must not see) */
    const tet_corners *t =
        rd->ntets ? bsearch(&key, rd->tets, rd->ntets, sizeof *rd->tets, cmp_tet) : NULL;
    if (!t)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "*SURFACE %s: element %ld is not a C3D4/C3D10 tetrahedron of the "
                            "deck", rd->want, elem);
    if (!fe_grow((void **)&set->nodes, cap, 3 * (set->count + 1), sizeof *set->nodes))
        return nomem(err);
    face_corners(t->node, f, set->nodes + 3 * set->count);
    set->count++;
    return LDEM_OK;
}

static int resolve_surface(sets_reader *rd, const char *path, inp_set *set, ldem_err *err)
{
    if (rd->ntets)
        qsort(rd->tets, rd->ntets, sizeof *rd->tets, cmp_tet);
    set->kind = INP_SET_FACES;
    size_t cap = 0;
    for (size_t i = 0; i < rd->nsurf; i++) {
        const surf_entry *e = &rd->surf[i];
        int rc = LDEM_OK;
        if (e->elem) {
            rc = add_face(rd, set, &cap, e->elem, e->face, path, err);
        } else {
            const id_list *l = NULL;
            for (size_t k = 0; k < rd->nelsets; k++)
                if (!strcasecmp(rd->elsets[k].name, e->elset))
                    l = &rd->elsets[k];
            if (!l)
                return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                                    "*SURFACE %s: no *ELSET %s in the deck", rd->want,
                                    e->elset);
            for (size_t k = 0; k < l->n && !rc; k++)
                rc = add_face(rd, set, &cap, l->id[k], e->face, path, err);
        }
        if (rc)
            return rc;
    }
    if (!set->count)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0, "*SURFACE %s has no faces", rd->want);
    return LDEM_OK;
}

static int resolve_nodes(const id_list *l, const char *path, inp_set *set, ldem_err *err)
{
    set->kind = INP_SET_NODES;
    set->nodes = malloc((l->n ? l->n : 1) * sizeof *set->nodes);
    if (!set->nodes)
        return nomem(err);
    if (l->n) { /* an empty list may have no array at all */
        memcpy(set->nodes, l->id, l->n * sizeof *set->nodes);
        qsort(set->nodes, l->n, sizeof *set->nodes, cmp_long);
    }
    size_t m = 0;
    for (size_t i = 0; i < l->n; i++)
        if (!m || set->nodes[m - 1] != set->nodes[i])
            set->nodes[m++] = set->nodes[i];
    set->count = m;
    if (!m)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0, "*NSET %s is empty", l->name);
    return LDEM_OK;
}

static void reader_free(sets_reader *rd)
{
    for (size_t i = 0; i < rd->nnsets; i++)
        free(rd->nsets[i].id);
    for (size_t i = 0; i < rd->nelsets; i++)
        free(rd->elsets[i].id);
    free(rd->nsets);
    free(rd->elsets);
    free(rd->tets);
    free(rd->surf);
}

int inp_read_set(const char *path, const char *name, inp_set *set, ldem_err *err)
{
    memset(set, 0, sizeof *set);
    sets_reader rd;
    memset(&rd, 0, sizeof rd);
    rd.want = name;
    int rc = read_deck(&rd, path, 0, err);
    if (!rc) {
        const id_list *nset = NULL;
        const char *key = rd.found_surface == 2 ? rd.surface_nset : name;
        for (size_t i = 0; i < rd.nnsets; i++)
            if (!strcasecmp(rd.nsets[i].name, key))
                nset = &rd.nsets[i];
        if (rd.found_surface == 1)
            rc = resolve_surface(&rd, path, set, err);
        else if (nset)
            rc = resolve_nodes(nset, path, set, err);
        else
            rc = ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                              "no *NSET or *SURFACE named %s in the deck (it has: %s)", name,
                              rd.names[0] ? rd.names : "none");
    }
    reader_free(&rd);
    if (rc)
        inp_set_free(set);
    return rc;
}

void inp_set_free(inp_set *set)
{
    free(set->nodes);
    memset(set, 0, sizeof *set);
}
