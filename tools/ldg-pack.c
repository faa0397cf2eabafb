/* ldg-pack: build or extend a grain bundle from plain files.
 *
 *   ldg-pack [-i IN.ldg] [-o OUT.ldg] [--meta KEY=VALUE]... [--nodes N.tsv [--triangles T.tsv]]
 *            [--section TAG=FILE]...
 *
 * For hand-made grains, tests and data exchange: surface nodes from a TSV
 * (x y z nx ny nz area), triangles from a TSV (three 0-based node indices), META entries
 * from the command line, and any section's raw payload from a file. Without -i it starts
 * a new bundle; with -i it adds to (or replaces sections of) the bundle read, so
 * `ldg-pack -i a.ldg -o b.ldg` alone rewrites a bundle unchanged. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "section_check.h"
#include "ldem/bundle.h"
#include "ldem/infile.h"
#include "ldem/outfile.h"
#include "ldem/sections.h"
#include "ldem/tsv.h"
#include "ldem/version.h"

static const char *program = "ldg-pack";

/* Node normals from text are rounded; renormalize within this, refuse beyond it. */
#define NORMAL_TOLERANCE 1e-3

typedef struct options {
    const char *input, *output, *nodes, *triangles;
    int nmeta, nraw;
    char **meta, **raw;
} options;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s [options]\n"
            "Build a grain bundle (.ldg) from plain files, or add sections to one.\n"
            "\n"
            "  -i, --input FILE        start from this bundle ('-' = stdin); default: empty\n"
            "  -o, --output FILE       write here (default: stdout); written atomically\n"
            "  --meta KEY=VALUE        set a META entry (repeatable)\n"
            "  --nodes FILE            NODE section from a table: x y z nx ny nz area\n"
            "  --triangles FILE        surface triangles: i j k (0-based node indices)\n"
            "  --section TAG=FILE      a section with FILE's bytes as payload (repeatable)\n"
            "  -h, --help, --version\n",
            program);
}

static int read_nodes(const char *path, ldem_nodes *nd, ldem_err *err)
{
    ldem_table t;
    int rc = ldem_tsv_read_path(path, &t, err);
    if (!rc)
        rc = ldem_table_expect_columns(&t, path, 7, "x y z nx ny nz area", err);
    if (rc)
        return rc;
    nd->count = t.nrows;
    nd->position = malloc(3 * t.nrows * sizeof(double));
    nd->normal = malloc(3 * t.nrows * sizeof(double));
    nd->area = malloc(t.nrows * sizeof(double));
    if (!nd->position || !nd->normal || !nd->area)
        rc = ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory");
    for (size_t i = 0; !rc && i < t.nrows; i++) {
        const double *row = t.values + 7 * i;
        double len = sqrt(row[3] * row[3] + row[4] * row[4] + row[5] * row[5]);
        if (fabs(len - 1) > NORMAL_TOLERANCE)
            rc = ldem_err_set(err, LDEM_ERR_INPUT, path, t.lines[i],
                              "normal (%g, %g, %g) has length %g, expected 1", row[3], row[4],
                              row[5], len);
        else if (row[6] < 0)
            rc = ldem_err_set(err, LDEM_ERR_INPUT, path, t.lines[i],
                              "area weight %g is negative", row[6]);
        for (int a = 0; !rc && a < 3; a++) {
            nd->position[3 * i + a] = row[a];
            nd->normal[3 * i + a] = row[3 + a] / len;
        }
        nd->area[i] = row[6];
    }
    ldem_table_free(&t);
    return rc;
}

static int read_triangles(const char *path, ldem_nodes *nd, ldem_err *err)
{
    ldem_table t;
    int rc = ldem_tsv_read_path(path, &t, err);
    if (!rc)
        rc = ldem_table_expect_columns(&t, path, 3, "i j k", err);
    if (rc)
        return rc;
    nd->ntriangles = t.nrows;
    nd->triangles = malloc(3 * t.nrows * sizeof(uint32_t));
    if (!nd->triangles)
        rc = ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory");
    for (size_t k = 0; !rc && k < 3 * t.nrows; k++) {
        double v = t.values[k];
        if (v != floor(v) || v < 0 || v >= (double)nd->count)
            rc = ldem_err_set(err, LDEM_ERR_INPUT, path, t.lines[k / 3],
                              "column %zu: %g is not a node index (0 to %llu)", k % 3 + 1, v,
                              (unsigned long long)nd->count - 1);
        else
            nd->triangles[k] = (uint32_t)v;
    }
    ldem_table_free(&t);
    return rc;
}

static int add_nodes(ldem_bundle *b, const options *o, ldem_err *err)
{
    ldem_nodes nd = {0};
    int rc = read_nodes(o->nodes, &nd, err);
    if (!rc && o->triangles)
        rc = read_triangles(o->triangles, &nd, err);
    unsigned char *data = NULL;
    uint64_t len = 0;
    if (!rc)
        rc = ldem_nodes_encode(&nd, &data, &len, err);
    if (!rc)
        rc = ldem_bundle_put(b, LDEM_TAG_NODE, 0, data, len, err);
    ldem_nodes_free(&nd);
    return rc;
}

static int add_meta(ldem_bundle *b, const options *o, ldem_err *err)
{
    ldem_meta m;
    ldem_meta_init(&m);
    const ldem_section *old = ldem_bundle_find(b, LDEM_TAG_META);
    int rc = old ? ldem_meta_decode(old, o->input, &m, err) : LDEM_OK;
    for (int i = 0; !rc && i < o->nmeta; i++) {
        char *eq = strchr(o->meta[i], '=');
        if (!eq) {
            rc = ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "--meta %s: expected KEY=VALUE",
                              o->meta[i]);
            break;
        }
        *eq = '\0';
        rc = ldem_meta_set(&m, o->meta[i], eq + 1, err);
        *eq = '=';
    }
    unsigned char *data = NULL;
    uint64_t len = 0;
    if (!rc)
        rc = ldem_meta_encode(&m, &data, &len, err);
    if (!rc)
        rc = ldem_bundle_put(b, LDEM_TAG_META, 0, data, len, err);
    ldem_meta_free(&m);
    return rc;
}

static int add_raw(ldem_bundle *b, const char *spec, ldem_err *err)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq - spec != 4)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "--section %s: expected TAG=FILE with a four-character TAG", spec);
    char tag[5];
    memcpy(tag, spec, 4);
    tag[4] = '\0';
    if (!ldem_tag_is_valid(tag))
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "--section %s: '%s' is not a valid tag (four printable characters)",
                            spec, tag);
    const char *path = eq + 1;
    ldem_infile in;
    int rc = ldem_infile_open(&in, path, err);
    if (rc)
        return rc;
    FILE *fp = in.fp;
    unsigned char *data = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? 2 * cap : 65536;
            unsigned char *g = realloc(data, cap);
            if (!g) {
                rc = ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory");
                break;
            }
            data = g;
        }
        size_t got = fread(data + len, 1, cap - len, fp);
        len += got;
        if (got == 0)
            break;
    }
    if (!rc && ferror(fp))
        rc = ldem_err_set(err, LDEM_ERR_IO, path, 0, "read error");
    ldem_infile_close(&in);
    if (rc) {
        free(data);
        return rc;
    }
    /* Checked before it is put: a payload its own reader refuses must never be written. */
    ldem_section sec = {.flags = 0, .length = len, .data = data, .offset = -1};
    memcpy(sec.tag, tag, sizeof tag);
    rc = section_check(&sec, path, err);
    if (rc) {
        free(data);
        return rc;
    }
    return ldem_bundle_put(b, tag, 0, data, len, err);
}

static int load_input(ldem_bundle *b, const char *path, ldem_err *err)
{
    ldem_infile in;
    int rc = ldem_infile_open(&in, path, err);
    if (rc)
        return rc;
    const char *name = in.name;
    ldem_bundle_reader *r = NULL;
    int have = 0, more = 0;
    rc = ldem_bundle_reader_open(&r, in.fp, name, err);
    if (!rc)
        rc = ldem_bundle_read(r, b, &have, err);
    if (!rc && !have)
        rc = ldem_err_set(err, LDEM_ERR_INPUT, name, 0, "empty stream: no bundle");
    uint32_t version;
    if (!rc && (rc = ldem_bundle_reader_next(r, &more, &version, err)) == LDEM_OK && more)
        rc = ldem_err_set_offset(err, LDEM_ERR_INPUT, name, ldem_bundle_reader_offset(r) - 16,
                                 "a second bundle follows; ldg-pack edits one bundle at a time");
    ldem_bundle_reader_close(r);
    ldem_infile_close(&in);
    return rc;
}

static int append_arg(char ***list, int *n, char *arg)
{
    char **g = realloc(*list, (size_t)(*n + 1) * sizeof *g);
    if (!g)
        return 1;
    g[(*n)++] = arg;
    *list = g;
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longs[] = {
        {"input", required_argument, NULL, 'i'},   {"output", required_argument, NULL, 'o'},
        {"meta", required_argument, NULL, 'm'},    {"nodes", required_argument, NULL, 'n'},
        {"triangles", required_argument, NULL, 't'}, {"section", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},          {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    int c, bad = 0;
    while (!bad && (c = getopt_long(argc, argv, "i:o:h", longs, NULL)) != -1) {
        switch (c) {
        case 'i': o->input = optarg; break;
        case 'o': o->output = optarg; break;
        case 'n': o->nodes = optarg; break;
        case 't': o->triangles = optarg; break;
        case 'm': bad = append_arg(&o->meta, &o->nmeta, optarg); break;
        case 's': bad = append_arg(&o->raw, &o->nraw, optarg); break;
        case 'h': usage(stdout); exit(0);
        case 'V': printf("%s %s\n", program, LDEM_VERSION); exit(0);
        default: bad = 1;
        }
    }
    if (!bad && optind < argc) {
        fprintf(stderr, "%s: error: unexpected argument '%s'; try --help\n", program, argv[optind]);
        return 1;
    }
    if (!bad && o->triangles && !o->nodes) {
        fprintf(stderr, "%s: error: --triangles needs --nodes\n", program);
        return 1;
    }
    if (bad)
        fprintf(stderr, "%s: error: bad usage; try --help\n", program);
    return bad;
}

int main(int argc, char **argv)
{
    options o = {0};
    o.output = "-";
    if (parse_options(argc, argv, &o)) {
        free(o.meta);
        free(o.raw);
        return 2;
    }
    ldem_err err;
    ldem_err_clear(&err);
    ldem_bundle b;
    ldem_bundle_init(&b);
    int rc = o.input ? load_input(&b, o.input, &err) : LDEM_OK;
    if (!rc && o.nmeta)
        rc = add_meta(&b, &o, &err);
    if (!rc && o.nodes)
        rc = add_nodes(&b, &o, &err);
    for (int i = 0; !rc && i < o.nraw; i++)
        rc = add_raw(&b, o.raw[i], &err);
    ldem_outfile out;
    if (!rc)
        rc = ldem_outfile_open(&out, o.output, &err);
    if (!rc) {
        const char *name = strcmp(o.output, "-") == 0 ? "<stdout>" : o.output;
        rc = ldem_bundle_write(out.fp, name, &b, &err);
        if (rc)
            ldem_outfile_abort(&out);
        else
            rc = ldem_outfile_commit(&out, &err);
    }
    ldem_bundle_free(&b);
    free(o.meta);
    free(o.raw);
    if (rc) {
        ldem_err_print(&err, program, stderr);
        return ldem_err_exit_code(&err);
    }
    return 0;
}
