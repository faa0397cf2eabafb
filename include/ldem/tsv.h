/* ldem/tsv.h — numeric tables in text (TSV or whitespace-separated), the lingua franca of
 * the pipelines: paths for contact-path, energy tables, node lists, probe output.
 *
 * Lines starting with '#' and blank lines are ignored. The first remaining line is a header
 * of column names when none of its fields is a number. Every row must have the same number
 * of columns and every field must be a finite number. Errors point at FILE:LINE and the
 * column, e.g. "nodes.tsv:12: column 4: 'x' is not a number".
 */
#ifndef LDEM_TSV_H
#define LDEM_TSV_H

#include "ldem/export.h"

#include <stddef.h>
#include <stdio.h>

#include "ldem/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ldem_table {
    size_t nrows, ncols;
    double *values;   /* nrows × ncols, row-major */
    long *lines;      /* source line of each row, for later validation messages */
    char **names;     /* ncols column names from the header, or NULL */
} ldem_table;

LDEM_API void ldem_table_free(ldem_table *t);
LDEM_API int ldem_tsv_read(FILE *fp, const char *name, ldem_table *t, ldem_err *err);
/* "-" reads standard input. */
LDEM_API int ldem_tsv_read_path(const char *path, ldem_table *t, ldem_err *err);
/* Require exactly `ncols` columns (message names what the columns should be). */
LDEM_API int ldem_table_expect_columns(const ldem_table *t, const char *name, size_t ncols,
                                       const char *columns, ldem_err *err);
/* Index of a named column, or -1. */
LDEM_API long ldem_table_column(const ldem_table *t, const char *column);

#ifdef __cplusplus
}
#endif
#endif
