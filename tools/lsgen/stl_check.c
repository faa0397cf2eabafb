/* STL validation before Gmsh reads the file.
 *
 * Gmsh 4.8's reader (GModelIO_Mesh.cpp, readSTL) decides ASCII when the first line starts
 * with "solid" or "SOLID" and then reads *line by line with a fixed layout*: one statement
 * per line, lines cut at 255 bytes, keywords not checked, vertices by sscanf; anything else
 * (or an ASCII pass that found no vertex) is read as binary. A file that does not fit that
 * layout is misread silently, so this check enforces it:
 *
 *   ASCII  line 1 starts with "solid"/"SOLID" in column 1; then per facet exactly the lines
 *          facet normal nx ny nz / outer loop / vertex x y z (three times) / endloop /
 *          endfacet; then "endsolid [name]", optionally followed by another solid (whose
 *          "solid" and the "endsolid" before it must start in column 1, as Gmsh only
 *          recognises them there). Keywords match case-insensitively, indentation is free,
 *          lines are at most 254 characters, blank lines are allowed only at the end, and
 *          every solid has at least one facet (Gmsh refuses an empty one). A missing final
 *          "endsolid" is accepted with a warning (it is how a truncated file ends, but Gmsh
 *          reads the facets before it correctly). Normals must be numbers but may be NaN:
 *          Gmsh ignores them. Vertex coordinates must be finite.
 *   binary 80-byte header, u32 little-endian count n, n records of 50 bytes (normal, three
 *          vertices as float32, u16 attribute). The file must be 84 + 50 n bytes; fewer is a
 *          truncated file, more is an error from 84 extra bytes on (Gmsh would read them as
 *          another solid) and a warning below. Counts above 10^8 are refused: Gmsh takes
 *          them for a byte-swapped file.
 *
 * Which one: a file is binary when it does not start with "solid"/"SOLID", or when it does
 * but its size is exactly 84 + 50 n (many exporters write "solid" into binary headers), or
 * its first kilobyte holds a NUL or several other control characters (looks_binary).
 */
#include "stl_check.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "ldem/infile.h"
#include "ldem/log.h"

#define STL_HEADER_BYTES 84
#define STL_RECORD_BYTES 50
#define STL_SNIFF_BYTES 1024
#define GMSH_MAX_LINE 254            /* fgets(buf, 256) keeps 255 bytes including '\n' */
#define GMSH_MAX_UNSWAPPED 100000000 /* Gmsh byte-swaps larger counts */
#define RECORDS_PER_READ 4096

/* ---------------------------------------------------------------- helpers */

static int starts_with_solid(const unsigned char *p, size_t n)
{
    return n >= 5 && (memcmp(p, "solid", 5) == 0 || memcmp(p, "SOLID", 5) == 0);
}

/* Bytes a text file never holds: NUL and control characters other than white space. */
static int is_binary_byte(unsigned char c)
{
    return (c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r') || c == 0x7f;
}

static int has_binary_bytes(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (is_binary_byte(p[i]))
            return 1;
    return 0;
}

/* Binary data rather than text with a stray control character: a NUL (the triangle count
 * of a binary STL below 2^24 has one, and so do most float32 coordinates) or several
 * control bytes. A text file that fails this test gets its error at the exact line. */
static int looks_binary(const unsigned char *p, size_t n)
{
    size_t controls = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == 0)
            return 1;
        controls += is_binary_byte(p[i]);
    }
    return controls >= 4;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float le_float(const unsigned char *p)
{
    uint32_t u = le32(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* A token for a message: at most 40 characters, non-printable bytes as '?'. */
static const char *printable(const char *s, size_t n, char out[48])
{
    size_t k = n < 40 ? n : 40;
    for (size_t i = 0; i < k; i++) {
        unsigned char c = (unsigned char)s[i];
        out[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    if (n > k) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = '\0';
    return out;
}

/* ---------------------------------------------------------------- binary */

static int check_binary_size(const char *path, long long size, uint32_t n, int solid_header,
                             ldem_err *err)
{
    const char *note = solid_header ? " (the header starts with 'solid', but the file holds "
                                      "binary data, so it was read as binary STL)"
                                    : "";
    if (size < STL_HEADER_BYTES)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "truncated binary STL: %lld bytes, but the header alone is %d "
                            "bytes%s",
                            size, STL_HEADER_BYTES, note);
    long long expected = STL_HEADER_BYTES + (long long)STL_RECORD_BYTES * n;
    if (size < expected)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "truncated binary STL: header declares %lu triangles (%lld bytes) "
                            "but the file has %lld bytes%s",
                            (unsigned long)n, expected, size, note);
    if (size - expected >= STL_HEADER_BYTES)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "binary STL has %lld bytes after the %lu triangles its header "
                            "declares (expected %lld bytes in all); Gmsh would read them as "
                            "another solid%s",
                            size - expected, (unsigned long)n, expected, note);
    if (size > expected)
        ldem_warn("%s: ignoring %lld bytes after the %lu triangles of the binary STL", path,
                  size - expected, (unsigned long)n);
    if (n == 0)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "binary STL with no triangles; expected a closed surface");
    if (n > GMSH_MAX_UNSWAPPED)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "binary STL with %lu triangles; Gmsh reads counts above %d as a "
                            "byte-swapped file",
                            (unsigned long)n, GMSH_MAX_UNSWAPPED);
    return LDEM_OK;
}

/* Every vertex coordinate of every record finite (normals are ignored, as Gmsh does). */
static int check_binary_records(FILE *f, const char *path, uint32_t n, ldem_err *err)
{
    unsigned char *buf = malloc((size_t)RECORDS_PER_READ * STL_RECORD_BYTES);
    if (!buf)
        return ldem_err_set(err, LDEM_ERR_NOMEM, path, 0, "out of memory reading the STL");
    int rc = LDEM_OK;
    if (fseek(f, STL_HEADER_BYTES, SEEK_SET) != 0)
        rc = ldem_err_set(err, LDEM_ERR_IO, path, 0, "cannot seek: %s", strerror(errno));
    for (uint32_t first = 0; rc == LDEM_OK && first < n; first += RECORDS_PER_READ) {
        size_t count = n - first < RECORDS_PER_READ ? n - first : RECORDS_PER_READ;
        if (fread(buf, STL_RECORD_BYTES, count, f) != count) {
            rc = ldem_err_set(err, LDEM_ERR_IO, path, 0, "read failed at triangle %lu: %s",
                              (unsigned long)first,
                              ferror(f) ? strerror(errno) : "file shrank while being read");
            break;
        }
        for (size_t i = 0; i < count && rc == LDEM_OK; i++)
            for (int c = 0; c < 9; c++) {
                size_t at = i * STL_RECORD_BYTES + 12 + 4 * (size_t)c;
                float x = le_float(buf + at);
                if (isfinite(x))
                    continue;
                long long offset =
                    STL_HEADER_BYTES + (long long)STL_RECORD_BYTES * (first + i) + 12 + 4 * c;
                rc = ldem_err_set_offset(err, LDEM_ERR_INPUT, path, offset,
                                         "triangle %lu: vertex %d has a non-finite coordinate "
                                         "(%g); expected finite numbers",
                                         (unsigned long)(first + i), c / 3 + 1, (double)x);
                break;
            }
    }
    free(buf);
    return rc;
}

static int check_binary(FILE *f, const char *path, long long size, const unsigned char *head,
                        size_t nhead, size_t *ntriangles, ldem_err *err)
{
    uint32_t n = nhead >= STL_HEADER_BYTES ? le32(head + 80) : 0;
    int rc = check_binary_size(path, size, n, starts_with_solid(head, nhead), err);
    if (!rc)
        rc = check_binary_records(f, path, n, err);
    if (!rc)
        *ntriangles = n;
    return rc;
}

/* ---------------------------------------------------------------- ASCII */

enum ascii_state {
    EXPECT_SOLID,
    EXPECT_FACET_OR_END,
    EXPECT_OUTER_LOOP,
    EXPECT_VERTEX,
    EXPECT_ENDLOOP,
    EXPECT_ENDFACET,
    AFTER_ENDSOLID
};

#define MAX_TOKENS 8

typedef struct line_tokens {
    size_t count; /* all tokens on the line (may exceed MAX_TOKENS) */
    const char *s[MAX_TOKENS];
    size_t len[MAX_TOKENS];
} line_tokens;

typedef struct ascii_parser {
    const char *path;
    ldem_err *err;
    enum ascii_state state;
    int vertices;           /* in the current facet */
    size_t triangles;       /* complete facets */
    size_t solid_facets;    /* facets of the current solid */
    long solid_line;        /* where the current solid began */
    long indented_endsolid; /* line of an "endsolid" not in column 1, or 0 */
    long blank_line;        /* first blank line not yet followed by the end, or 0 */
} ascii_parser;

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static void tokenize(const char *line, size_t n, line_tokens *t)
{
    t->count = 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && is_space(line[i]))
            i++;
        if (i == n)
            break;
        size_t start = i;
        while (i < n && !is_space(line[i]))
            i++;
        if (t->count < MAX_TOKENS) {
            t->s[t->count] = line + start;
            t->len[t->count] = i - start;
        }
        t->count++;
    }
}

static int token_is(const line_tokens *t, size_t i, const char *word)
{
    return i < t->count && i < MAX_TOKENS && t->len[i] == strlen(word) &&
           strncasecmp(t->s[i], word, t->len[i]) == 0;
}

/* The whole token is a number (strtod accepts what Gmsh's sscanf("%lf") accepts). */
static int parse_number(const line_tokens *t, size_t i, double *x)
{
    char buf[64];
    if (i >= t->count || i >= MAX_TOKENS || t->len[i] >= sizeof buf)
        return 0;
    memcpy(buf, t->s[i], t->len[i]);
    buf[t->len[i]] = '\0';
    char *end;
    *x = strtod(buf, &end);
    return end != buf && *end == '\0';
}

static int syntax_error(const ascii_parser *p, long line, const char *fmt, ...) LDEM_PRINTF(3, 4);

static int syntax_error(const ascii_parser *p, long line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ldem_err_vset(p->err, LDEM_ERR_INPUT, p->path, line, -1, fmt, ap);
    va_end(ap);
    return LDEM_ERR_INPUT;
}

/* "found 'x'" or "found the end of the line", for messages. */
static const char *found(const line_tokens *t, size_t i, char buf[64])
{
    char tok[48];
    if (i >= t->count || i >= MAX_TOKENS)
        return "the end of the line";
    snprintf(buf, 64, "'%s'", printable(t->s[i], t->len[i], tok));
    return buf;
}

static int expect_line_end(const ascii_parser *p, long line, const line_tokens *t, size_t n,
                           const char *after)
{
    char buf[64];
    if (t->count > n)
        return syntax_error(p, line,
                            "unexpected %s after %s; Gmsh reads one statement per "
                            "line",
                            found(t, n, buf), after);
    return LDEM_OK;
}

/* "facet normal nx ny nz": the normal must be numbers; Gmsh ignores its values. */
static int parse_facet(ascii_parser *p, long line, const line_tokens *t)
{
    char buf[64];
    if (!token_is(t, 1, "normal"))
        return syntax_error(p, line, "expected 'normal' after 'facet', found %s", found(t, 1, buf));
    for (size_t i = 2; i < 5; i++) {
        double x;
        if (!parse_number(t, i, &x))
            return syntax_error(p, line, "expected three numbers after 'facet normal', found %s",
                                found(t, i, buf));
    }
    p->state = EXPECT_OUTER_LOOP;
    return expect_line_end(p, line, t, 5, "the facet normal");
}

static int parse_vertex(ascii_parser *p, long line, const line_tokens *t)
{
    char buf[64], tok[48];
    if (token_is(t, 0, "endloop"))
        return syntax_error(p, line,
                            "facet has %d vertices; expected 3 'vertex' lines before "
                            "'endloop'",
                            p->vertices);
    if (!token_is(t, 0, "vertex"))
        return syntax_error(p, line, "expected 'vertex', found %s", found(t, 0, buf));
    for (size_t i = 1; i < 4; i++) {
        double x;
        if (!parse_number(t, i, &x))
            return syntax_error(p, line, "expected three numbers after 'vertex', found %s",
                                found(t, i, buf));
        if (!isfinite(x))
            return syntax_error(p, line,
                                "vertex coordinate '%s' is not finite; expected a "
                                "finite number",
                                printable(t->s[i], t->len[i], tok));
    }
    if (++p->vertices == 3)
        p->state = EXPECT_ENDLOOP;
    return expect_line_end(p, line, t, 4, "the vertex coordinates");
}

static int parse_endsolid(ascii_parser *p, long line, const char *raw)
{
    if (p->solid_facets == 0)
        return syntax_error(p, line,
                            "the solid begun at line %ld has no facets; Gmsh refuses "
                            "an empty solid",
                            p->solid_line);
    /* Gmsh recognises "endsolid" only in column 1; elsewhere it is harmless at the very end
     * but misaligns the reader if another solid follows (checked there). */
    p->indented_endsolid =
        strncmp(raw, "endsolid", 8) == 0 || strncmp(raw, "ENDSOLID", 8) == 0 ? 0 : line;
    p->state = AFTER_ENDSOLID;
    return LDEM_OK;
}

static int begin_solid(ascii_parser *p, long line, const char *raw, size_t n)
{
    char buf[64], tok[48];
    if (!starts_with_solid((const unsigned char *)raw, n)) {
        line_tokens t;
        tokenize(raw, n, &t);
        if (token_is(&t, 0, "solid"))
            return syntax_error(p, line,
                                "'%s' must start in column 1 and be spelled 'solid' "
                                "or 'SOLID' (Gmsh's STL reader)",
                                printable(t.s[0], t.len[0], tok));
        return syntax_error(p, line,
                            "expected 'solid' or the end of the file after "
                            "'endsolid', found %s",
                            found(&t, 0, buf));
    }
    if (p->indented_endsolid)
        return syntax_error(p, p->indented_endsolid,
                            "'endsolid' must start in column 1 when "
                            "another solid follows (Gmsh's STL reader)");
    p->solid_line = line;
    p->solid_facets = 0;
    p->state = EXPECT_FACET_OR_END;
    return LDEM_OK;
}

/* One non-blank line in the current state. */
static int parse_line(ascii_parser *p, long line, const char *raw, size_t n)
{
    char buf[64];
    line_tokens t;
    tokenize(raw, n, &t);
    switch (p->state) {
    case EXPECT_SOLID:
    case AFTER_ENDSOLID: return begin_solid(p, line, raw, n);
    case EXPECT_FACET_OR_END:
        if (token_is(&t, 0, "facet"))
            return parse_facet(p, line, &t);
        if (token_is(&t, 0, "endsolid"))
            return parse_endsolid(p, line, raw);
        return syntax_error(p, line, "expected 'facet normal' or 'endsolid', found %s",
                            found(&t, 0, buf));
    case EXPECT_OUTER_LOOP:
        if (!token_is(&t, 0, "outer") || !token_is(&t, 1, "loop"))
            return syntax_error(p, line, "expected 'outer loop', found %s",
                                found(&t, token_is(&t, 0, "outer") ? 1 : 0, buf));
        p->state = EXPECT_VERTEX;
        p->vertices = 0;
        return expect_line_end(p, line, &t, 2, "'outer loop'");
    case EXPECT_VERTEX: return parse_vertex(p, line, &t);
    case EXPECT_ENDLOOP:
        if (token_is(&t, 0, "vertex"))
            return syntax_error(p, line,
                                "facet has more than 3 vertices; STL facets are "
                                "triangles");
        if (!token_is(&t, 0, "endloop"))
            return syntax_error(p, line, "expected 'endloop', found %s", found(&t, 0, buf));
        p->state = EXPECT_ENDFACET;
        return expect_line_end(p, line, &t, 1, "'endloop'");
    case EXPECT_ENDFACET:
        if (!token_is(&t, 0, "endfacet"))
            return syntax_error(p, line, "expected 'endfacet', found %s", found(&t, 0, buf));
        p->triangles++;
        p->solid_facets++;
        p->state = EXPECT_FACET_OR_END;
        return expect_line_end(p, line, &t, 1, "'endfacet'");
    }
    return LDEM_OK;
}

static const char *expected_at_end(enum ascii_state s)
{
    switch (s) {
    case EXPECT_OUTER_LOOP: return "'outer loop'";
    case EXPECT_VERTEX: return "'vertex'";
    case EXPECT_ENDLOOP: return "'endloop'";
    case EXPECT_ENDFACET: return "'endfacet'";
    default: return "'endsolid'";
    }
}

/* Byte-level checks Gmsh's line reader needs, then the grammar. raw[0..n) is the line
 * without its '\n'. */
static int check_ascii_line(ascii_parser *p, long line, const char *raw, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (is_binary_byte((unsigned char)raw[i]))
            return syntax_error(p, line, "byte 0x%02x in an ASCII STL; expected text",
                                (unsigned)(unsigned char)raw[i]);
    size_t i = 0;
    while (i < n && is_space(raw[i]))
        i++;
    if (i == n) {
        /* Harmless at the end of the file only: Gmsh would take it for a statement. */
        if (!p->blank_line)
            p->blank_line = line;
        return LDEM_OK;
    }
    if (p->blank_line)
        return syntax_error(p, p->blank_line,
                            "blank line inside the STL; Gmsh's reader "
                            "expects exactly one statement per line");
    return parse_line(p, line, raw, n);
}

/* The next line into buf (without '\n'), at most GMSH_MAX_LINE bytes kept: returns 1 and
 * sets *too_long when the line is longer (the rest is not read), 0 at the end of the file.
 * Bounded, so a huge file without newlines costs no memory. */
static int read_line(FILE *f, char buf[GMSH_MAX_LINE + 1], size_t *len, int *too_long)
{
    size_t n = 0;
    int c;
    *too_long = 0;
    while ((c = getc(f)) != EOF && c != '\n') {
        if (n == GMSH_MAX_LINE) {
            *too_long = 1;
            break;
        }
        buf[n++] = (char)c;
    }
    *len = n;
    return c != EOF || n > 0;
}

static int check_ascii(FILE *f, const char *path, size_t *ntriangles, ldem_err *err)
{
    if (fseek(f, 0, SEEK_SET) != 0)
        return ldem_err_set(err, LDEM_ERR_IO, path, 0, "cannot seek: %s", strerror(errno));
    ascii_parser p = {path, err, EXPECT_SOLID, 0, 0, 0, 1, 0, 0};
    char buf[GMSH_MAX_LINE + 1];
    size_t n;
    int too_long;
    long line = 0;
    int rc = LDEM_OK;
    while (rc == LDEM_OK && read_line(f, buf, &n, &too_long)) {
        line++;
        if (too_long)
            rc = syntax_error(&p, line,
                              "line is longer than %d characters; Gmsh's STL reader "
                              "splits longer lines",
                              GMSH_MAX_LINE);
        else
            rc = check_ascii_line(&p, line, buf, n);
    }
    if (rc == LDEM_OK && ferror(f))
        rc = ldem_err_set(err, LDEM_ERR_IO, path, line, "read failed: %s", strerror(errno));
    if (rc)
        return rc;

    switch (p.state) {
    case AFTER_ENDSOLID: break;
    case EXPECT_FACET_OR_END:
        if (p.triangles == 0)
            break; /* reported below */
        ldem_warn("%s: no 'endsolid' at the end of the file (truncated?); using the %zu "
                  "complete facets",
                  path, p.triangles);
        break;
    default:
        return syntax_error(&p, line,
                            "the file ends inside a facet (expected %s); it is "
                            "truncated",
                            expected_at_end(p.state));
    }
    if (p.triangles == 0)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "ASCII STL with no facets; expected a closed surface");
    *ntriangles = p.triangles;
    return LDEM_OK;
}

/* ---------------------------------------------------------------- entry */

/* Text that clearly wants to be ASCII STL but that Gmsh would read as binary. */
static int misplaced_solid(const unsigned char *head, size_t n)
{
    size_t i = 0;
    while (i < n && is_space((char)head[i]))
        i++;
    return !has_binary_bytes(head, n) && n - i >= 5 &&
           strncasecmp((const char *)head + i, "solid", 5) == 0;
}

static int check_open_file(FILE *f, const char *path, size_t *ntriangles, ldem_err *err)
{
    struct stat st;
    if (fstat(fileno(f), &st) != 0)
        return ldem_err_set(err, LDEM_ERR_IO, path, 0, "cannot stat: %s", strerror(errno));
    if (S_ISDIR(st.st_mode))
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0, "is a directory; expected an STL file");
    if (!S_ISREG(st.st_mode))
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "not a regular file; Gmsh reads STL from a file path, not a pipe");
    long long size = (long long)st.st_size;
    if (size == 0)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0,
                            "empty file; expected an ASCII ('solid ...') or binary STL");

    unsigned char head[STL_SNIFF_BYTES];
    size_t nhead = fread(head, 1, sizeof head, f);
    if (nhead == 0 && ferror(f))
        return ldem_err_set(err, LDEM_ERR_IO, path, 0, "read failed: %s", strerror(errno));

    if (!starts_with_solid(head, nhead)) {
        if (misplaced_solid(head, nhead))
            return ldem_err_set(err, LDEM_ERR_INPUT, path, 1,
                                "ASCII STL must start with 'solid' (or 'SOLID') in column 1; "
                                "Gmsh reads anything else as binary");
        return check_binary(f, path, size, head, nhead, ntriangles, err);
    }
    int size_fits_binary = nhead >= STL_HEADER_BYTES &&
                           size == STL_HEADER_BYTES + (long long)STL_RECORD_BYTES * le32(head + 80);
    if (size_fits_binary || looks_binary(head, nhead))
        return check_binary(f, path, size, head, nhead, ntriangles, err);
    return check_ascii(f, path, ntriangles, err);
}

int lsgen_stl_check(const char *path, size_t *ntriangles, ldem_err *err)
{
    FILE *f = ldem_fopen_input(path);
    if (!f)
        return ldem_err_set(err, LDEM_ERR_INPUT, path, 0, "cannot open: %s", strerror(errno));
    size_t n = 0;
    int rc = check_open_file(f, path, &n, err);
    fclose(f);
    if (rc == LDEM_OK && ntriangles)
        *ntriangles = n;
    return rc;
}
