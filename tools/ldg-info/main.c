/* ldg-info: list a grain bundle's sections and their key facts, like h5ls.
 *
 *   ldg-info [--json] [-q] [FILE...]     (no FILE or "-": standard input)
 *
 * Every known section is fully decoded and validated, so ldg-info doubles as a checker
 * for Makefiles: exit 0 when every bundle is sound, 2 with a one-line error otherwise. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "describe.h"
#include "facts.h"
#include "ldem/bundle.h"
#include "ldem/err.h"
#include "ldem/infile.h"
#include "ldem/sections.h"
#include "ldem/version.h"

static const char *program = "ldg-info";

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s [options] [FILE...]\n"
            "List the sections of ldem grain bundles (.ldg) with their key facts and check\n"
            "that every section is intact. Reads standard input when no FILE (or '-') is given.\n"
            "\n"
            "  --json         one JSON document on stdout, for scripts\n"
            "  -q, --quiet    print nothing; only check (exit status tells)\n"
            "  -h, --help     this help\n"
            "  --version      print the version\n"
            "\n"
            "Exit status: 0 all bundles sound, 2 bad input (one-line error on stderr),\n"
            "1 internal failure.\n",
            program);
}

typedef struct options {
    int json;
    int quiet;
} options;

/* Decode a known section and describe it; unknown tags are listed as carried through. */
static int describe_section(const ldem_section *s, const char *source, facts *f, ldem_err *err)
{
    if (strcmp(s->tag, LDEM_TAG_META) == 0)
        return describe_meta(s, source, f, err);
    if (strcmp(s->tag, LDEM_TAG_LSET) == 0)
        return describe_lset(s, source, f, err);
    if (strcmp(s->tag, LDEM_TAG_NODE) == 0)
        return describe_nodes(s, source, f, err);
    if (strcmp(s->tag, LDEM_TAG_BODY) == 0)
        return describe_body(s, source, f, err);
    if (strcmp(s->tag, LDEM_TAG_MODE) == 0)
        return describe_modes(s, source, f, err);
    if (strcmp(s->tag, LDEM_TAG_KMAT) == 0 || strcmp(s->tag, LDEM_TAG_MMAT) == 0)
        return describe_matrix(s, source, f, err);
    if (strcmp(s->tag, LDEM_TAG_ETAB) == 0)
        return describe_etab(s, source, f, err);
    if (strcmp(s->tag, LDEM_TAG_DAMP) == 0)
        return describe_damping(s, source, f, err);
    facts_str(f, "note", "unknown section, carried through");
    return LDEM_OK;
}

/* All bundles of one stream. */
static int list_stream(FILE *fp, const char *name, facts *f, ldem_err *err)
{
    ldem_bundle_reader *r;
    int rc = ldem_bundle_reader_open(&r, fp, name, err);
    if (rc)
        return rc;
    facts_begin_file(f, name);
    for (unsigned index = 1;; index++) {
        int have = 0;
        uint32_t version = 0;
        int64_t at = ldem_bundle_reader_offset(r);
        rc = ldem_bundle_reader_next(r, &have, &version, err);
        if (rc)
            break;
        if (!have) {
            if (index == 1)
                rc = ldem_err_set(err, LDEM_ERR_INPUT, name, 0, "empty stream: no bundle");
            break;
        }
        facts_begin_bundle(f, index, at, version);
        for (;;) {
            ldem_section s;
            int end = 0;
            rc = ldem_bundle_reader_section(r, &s, &end, err);
            if (rc || end)
                break;
            facts_begin_section(f, s.tag, s.offset, s.flags, s.length);
            rc = describe_section(&s, name, f, err);
            facts_end_section(f);
            ldem_section_free(&s);
            if (rc)
                break;
        }
        facts_end_bundle(f, ldem_bundle_reader_offset(r) - at);
        if (rc)
            break;
    }
    facts_end_file(f);
    ldem_bundle_reader_close(r);
    return rc;
}

static int list_path(const char *path, facts *f, ldem_err *err)
{
    ldem_infile in;
    int rc = ldem_infile_open(&in, path, err);
    if (rc)
        return rc;
    rc = list_stream(in.fp, in.name, f, err);
    ldem_infile_close(&in);
    return rc;
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longs[] = {
        {"json", no_argument, NULL, 'j'},   {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},   {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "qh", longs, NULL)) != -1) {
        switch (c) {
        case 'j': o->json = 1; break;
        case 'q': o->quiet = 1; break;
        case 'h': usage(stdout); exit(0);
        case 'V': printf("%s %s\n", program, LDEM_VERSION); exit(0);
        default:
            fprintf(stderr, "%s: error: unknown option; try --help\n", program);
            return 2;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    options o = {0, 0};
    if (parse_options(argc, argv, &o))
        return 2;
    /* JSON is buffered and printed only when every input is sound, so scripts never get
     * half a document; the text listing streams, showing what was intact before an error. */
    facts f;
    if (facts_open(&f, o.quiet ? FACTS_NONE : o.json ? FACTS_JSON : FACTS_TEXT, stdout)) {
        fprintf(stderr, "%s: error: out of memory\n", program);
        return 1;
    }
    ldem_err err;
    ldem_err_clear(&err);
    int rc = LDEM_OK;
    if (optind >= argc)
        rc = list_path("-", &f, &err);
    for (int i = optind; i < argc && !rc; i++)
        rc = list_path(argv[i], &f, &err);
    facts_close(&f, rc == LDEM_OK);
    if (rc) {
        ldem_err_print(&err, program, stderr);
        return ldem_err_exit_code(&err);
    }
    return 0;
}
