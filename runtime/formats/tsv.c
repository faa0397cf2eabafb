#include "ldem/tsv.h"

#include "ldem/infile.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

void ldem_table_free(ldem_table *t)
{
    for (size_t c = 0; t->names && c < t->ncols; c++)
        free(t->names[c]);
    free(t->names);
    free(t->values);
    free(t->lines);
    memset(t, 0, sizeof *t);
}

static int parse_number(const char *field, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(field, &end);
    return end != field && *end == '\0';
}

/* Split a line in place on tabs and spaces; returns the field count. */
static size_t split(char *line, char ***fields, size_t *capacity, int *nomem)
{
    size_t n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            *p++ = '\0';
        if (!*p)
            return n;
        if (n == *capacity) {
            size_t cap = *capacity ? 2 * *capacity : 16;
            char **g = realloc(*fields, cap * sizeof *g);
            if (!g) {
                *nomem = 1;
                return n;
            }
            *fields = g;
            *capacity = cap;
        }
        (*fields)[n++] = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
            p++;
    }
}

static int take_header(ldem_table *t, char **fields, size_t n, ldem_err *err)
{
    t->names = calloc(n, sizeof *t->names);
    if (!t->names)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
    t->ncols = n;
    for (size_t c = 0; c < n; c++) {
        t->names[c] = malloc(strlen(fields[c]) + 1);
        if (!t->names[c])
            return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory");
        strcpy(t->names[c], fields[c]);
    }
    return LDEM_OK;
}

static int add_row(ldem_table *t, size_t *row_capacity, char **fields, const char *name,
                   long lineno, ldem_err *err)
{
    if (t->nrows == *row_capacity) {
        size_t cap = *row_capacity ? 2 * *row_capacity : 64;
        double *v = realloc(t->values, cap * t->ncols * sizeof *v);
        if (v)
            t->values = v;
        long *l = v ? realloc(t->lines, cap * sizeof *l) : NULL;
        if (!l)
            return ldem_err_set(err, LDEM_ERR_NOMEM, name, lineno, "out of memory");
        t->lines = l;
        *row_capacity = cap;
    }
    double *row = t->values + t->nrows * t->ncols;
    for (size_t c = 0; c < t->ncols; c++) {
        if (!parse_number(fields[c], &row[c]))
            return ldem_err_set(err, LDEM_ERR_INPUT, name, lineno,
                                "column %zu: '%s' is not a number", c + 1, fields[c]);
        if (!isfinite(row[c]))
            return ldem_err_set(err, LDEM_ERR_INPUT, name, lineno,
                                "column %zu: '%s' is not a finite number", c + 1, fields[c]);
    }
    t->lines[t->nrows++] = lineno;
    return LDEM_OK;
}

int ldem_tsv_read(FILE *fp, const char *name, ldem_table *t, ldem_err *err)
{
    memset(t, 0, sizeof *t);
    char *line = NULL, **fields = NULL;
    size_t line_capacity = 0, field_capacity = 0, row_capacity = 0;
    long lineno = 0;
    int rc = LDEM_OK, have_shape = 0;
    ssize_t got;
    while (!rc && (got = getline(&line, &line_capacity, fp)) >= 0) {
        lineno++;
        /* getline keeps embedded NULs, which would silently hide the rest of the line. */
        if ((size_t)got != strlen(line)) {
            rc = ldem_err_set(err, LDEM_ERR_INPUT, name, lineno,
                              "line contains a NUL byte: not a text table");
            break;
        }
        int nomem = 0;
        size_t n = split(line, &fields, &field_capacity, &nomem);
        if (nomem) {
            rc = ldem_err_set(err, LDEM_ERR_NOMEM, name, lineno, "out of memory");
            break;
        }
        if (n == 0 || fields[0][0] == '#')
            continue;
        if (!have_shape) {
            have_shape = 1;
            double dummy;
            int numeric = 0;
            for (size_t c = 0; c < n; c++)
                numeric += parse_number(fields[c], &dummy);
            if (numeric == 0) {
                rc = take_header(t, fields, n, err);
                continue;
            }
            t->ncols = n;
        }
        if (n != t->ncols)
            rc = ldem_err_set(err, LDEM_ERR_INPUT, name, lineno,
                              "%zu columns, but the table has %zu", n, t->ncols);
        else
            rc = add_row(t, &row_capacity, fields, name, lineno, err);
    }
    if (!rc && ferror(fp))
        rc = ldem_err_set(err, LDEM_ERR_IO, name, lineno, "read error: %s", strerror(errno));
    if (!rc && t->nrows == 0)
        rc = ldem_err_set(err, LDEM_ERR_INPUT, name, lineno ? lineno : 1,
                          "no data rows in the table");
    free(line);
    free(fields);
    if (rc)
        ldem_table_free(t);
    return rc;
}

int ldem_tsv_read_path(const char *path, ldem_table *t, ldem_err *err)
{
    ldem_infile in;
    memset(t, 0, sizeof *t);
    int rc = ldem_infile_open(&in, path, err);
    if (rc)
        return rc;
    rc = ldem_tsv_read(in.fp, in.name, t, err);
    ldem_infile_close(&in);
    return rc;
}

int ldem_table_expect_columns(const ldem_table *t, const char *name, size_t ncols,
                              const char *columns, ldem_err *err)
{
    if (t->ncols != ncols)
        return ldem_err_set(err, LDEM_ERR_INPUT, name, t->nrows ? t->lines[0] : 1,
                            "expected %zu columns (%s), found %zu", ncols, columns, t->ncols);
    return LDEM_OK;
}

long ldem_table_column(const ldem_table *t, const char *column)
{
    for (size_t c = 0; t->names && c < t->ncols; c++)
        if (strcmp(t->names[c], column) == 0)
            return (long)c;
    return -1;
}
