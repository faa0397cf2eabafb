/* The TSV table reader: headers, comments, and FILE:LINE errors that point at the field. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "ldem/tsv.h"

static int read_text(const char *text, ldem_table *t, ldem_err *err)
{
    FILE *fp = fmemopen((void *)text, strlen(text), "r");
    cr_assert_not_null(fp);
    int rc = ldem_tsv_read(fp, "t.tsv", t, err);
    fclose(fp);
    return rc;
}

Test(tsv, header_comments_and_values)
{
    ldem_table t;
    ldem_err err;
    const char *text = "# a comment\n\ndelta\tsx sy\n0 0 0\n# mid comment\n1e-3\t-2.5\t7\n";
    cr_assert_eq(read_text(text, &t, &err), LDEM_OK, "%s", err.msg);
    cr_assert_eq(t.ncols, 3);
    cr_assert_eq(t.nrows, 2);
    cr_assert_str_eq(t.names[1], "sx");
    cr_assert_eq(ldem_table_column(&t, "sy"), 2);
    cr_assert_eq(ldem_table_column(&t, "nope"), -1);
    cr_assert_eq(t.values[3], 1e-3);
    cr_assert_eq(t.values[4], -2.5);
    cr_assert_eq(t.lines[0], 4);
    cr_assert_eq(t.lines[1], 6);
    ldem_table_free(&t);
}

Test(tsv, no_header_when_numeric)
{
    ldem_table t;
    ldem_err err;
    cr_assert_eq(read_text("1 2\n3 4\n", &t, &err), LDEM_OK);
    cr_assert_null(t.names);
    cr_assert_eq(t.nrows, 2);
    cr_assert_eq(t.values[3], 4.0);
    ldem_table_free(&t);
}

Test(tsv, errors_name_line_and_column)
{
    ldem_table t;
    ldem_err err;
    cr_assert_eq(read_text("a b\n1 2\n3 x\n", &t, &err), LDEM_ERR_INPUT);
    cr_assert_str_eq(err.file, "t.tsv");
    cr_assert_eq(err.line, 3);
    cr_assert(strstr(err.msg, "column 2: 'x' is not a number"), "%s", err.msg);
    cr_assert_eq(read_text("1 2\n3\n", &t, &err), LDEM_ERR_INPUT);
    cr_assert_eq(err.line, 2);
    cr_assert(strstr(err.msg, "1 columns, but the table has 2"), "%s", err.msg);
    cr_assert_eq(read_text("1 nan\n", &t, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "not a finite number"), "%s", err.msg);
    cr_assert_eq(read_text("# only a comment\n", &t, &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "no data rows"), "%s", err.msg);
    cr_assert_eq(read_text("1 2\n3 4\n", &t, &err), LDEM_OK);
    cr_assert_eq(ldem_table_expect_columns(&t, "t.tsv", 3, "x y z", &err), LDEM_ERR_INPUT);
    cr_assert(strstr(err.msg, "expected 3 columns (x y z), found 2"), "%s", err.msg);
    ldem_table_free(&t);
}

Test(tsv, embedded_nul_is_an_error)
{
    static const char text[] = "1 2\n3\0 4\n";
    ldem_table t;
    ldem_err err;
    FILE *fp = fmemopen((void *)text, sizeof text - 1, "r");
    cr_assert_eq(ldem_tsv_read(fp, "t.tsv", &t, &err), LDEM_ERR_INPUT);
    fclose(fp);
    cr_assert_eq(err.line, 2);
    cr_assert(strstr(err.msg, "NUL"), "%s", err.msg);
}
