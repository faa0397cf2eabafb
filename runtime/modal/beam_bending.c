/* beam_bending.c — Henzel & Karapiperis eq. 51 as an analytic deformation mode
 * (ldem/modes.h): evaluation with its exact gradient, and the MODE descriptor text
 * "beam-bending length=L axis=x deflect=z scale=S t=tx,ty,tz w=wx,wy,wz" (docs/bundle.md).
 * modefit writes the descriptor; demrun evaluates the mode anywhere in the grain from it. */
#include "ldem/modes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANALYTIC_PI 3.14159265358979323846

static const char AXIS_NAMES[3] = {'x', 'y', 'z'};

/* ---- evaluation ---- */

/* [w]× : the matrix of x ↦ w × x, i.e. the gradient of an infinitesimal rotation. */
static void cross_matrix(const double w[3], double W[3][3])
{
    W[0][0] = 0.0;   W[0][1] = -w[2]; W[0][2] = w[1];
    W[1][0] = w[2];  W[1][1] = 0.0;   W[1][2] = -w[0];
    W[2][0] = -w[1]; W[2][1] = w[0];  W[2][2] = 0.0;
}

static void cross(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

void ldem_beam_bending_raw(const ldem_beam_bending *m, const double x[3], double u[3],
                       double grad[3][3])
{
    const int a = m->axis, d = m->deflect;
    const double k = ANALYTIC_PI / m->length;
    const double s = x[a] + 0.5 * m->length; /* 0 and L at the beam's ends */
    const double c = cos(k * s), sn = sin(k * s);
    u[0] = u[1] = u[2] = 0.0;
    u[a] = x[d] * k * c;
    u[d] = -sn;
    if (!grad)
        return;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            grad[i][j] = 0.0;
    grad[a][a] = -x[d] * k * k * sn;
    grad[a][d] = k * c;
    grad[d][a] = -k * c; /* cancels grad[a][d] in the strain: plane sections stay plane */
}

void ldem_beam_bending_eval(const ldem_beam_bending *m, const double x[3], double u[3], double grad[3][3])
{
    double raw[3], graw[3][3], wx[3];
    ldem_beam_bending_raw(m, x, raw, grad ? graw : NULL);
    cross(m->w, x, wx);
    for (int i = 0; i < 3; i++)
        u[i] = m->scale * (raw[i] - m->t[i] - wx[i]);
    if (!grad)
        return;
    double W[3][3];
    cross_matrix(m->w, W);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            grad[i][j] = m->scale * (graw[i][j] - W[i][j]);
}

/* ---- validation ---- */

static int finite3(const double v[3])
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

int ldem_beam_bending_check(const ldem_beam_bending *m, int code, ldem_err *err)
{
    if (!m)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "analytic mode: none given");
    if (m->axis < 0 || m->axis > 2 || m->deflect < 0 || m->deflect > 2)
        return ldem_err_set(err, code, NULL, 0,
                            "analytic mode: axis %d / deflect %d out of range (expected x, y "
                            "or z)",
                            m->axis, m->deflect);
    if (m->axis == m->deflect)
        return ldem_err_set(err, code, NULL, 0,
                            "analytic mode: deflect=%c equals axis=%c (a beam deflects across "
                            "its axis)",
                            AXIS_NAMES[m->deflect], AXIS_NAMES[m->axis]);
    if (!(m->length > 0.0) || !isfinite(m->length))
        return ldem_err_set(err, code, NULL, 0,
                            "analytic mode: length=%g (expected a finite length > 0)",
                            m->length);
    if (!isfinite(m->scale) || !finite3(m->t) || !finite3(m->w))
        return ldem_err_set(err, code, NULL, 0,
                            "analytic mode: scale, t and w must be finite numbers");
    return LDEM_OK;
}

/* ---- descriptor text ---- */

int ldem_beam_bending_describe(const ldem_beam_bending *m, char **text, ldem_err *err)
{
    if (!text)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "beam-bending descriptor: no output given");
    *text = NULL;
    int rc = ldem_beam_bending_check(m, LDEM_ERR_USAGE, err);
    if (rc != LDEM_OK)
        return rc;
    /* %.17g is enough digits for any double to read back to the same bits. */
    static const char fmt[] = "beam-bending length=%.17g axis=%c deflect=%c scale=%.17g "
                              "t=%.17g,%.17g,%.17g w=%.17g,%.17g,%.17g";
    int n = snprintf(NULL, 0, fmt, m->length, AXIS_NAMES[m->axis], AXIS_NAMES[m->deflect],
                     m->scale, m->t[0], m->t[1], m->t[2], m->w[0], m->w[1], m->w[2]);
    if (n < 0)
        return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                            "beam-bending descriptor: formatting failed");
    char *s = malloc((size_t)n + 1);
    if (!s)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                            "beam-bending descriptor: out of memory (%d bytes)", n + 1);
    snprintf(s, (size_t)n + 1, fmt, m->length, AXIS_NAMES[m->axis], AXIS_NAMES[m->deflect],
             m->scale, m->t[0], m->t[1], m->t[2], m->w[0], m->w[1], m->w[2]);
    *text = s;
    return LDEM_OK;
}

/* A token of the descriptor: [p, p + len). Never NUL-terminated; printed with %.*s. */
typedef struct token {
    const char *p;
    int len;
} token;

/* Long enough for any %.17g double; longer tokens are not numbers we wrote. */
enum { NUMBER_MAX = 40, SHOWN_MAX = 40 };

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Next whitespace-separated token after *pos; returns 0 at the end of the text. Lengths
 * are capped so that an enormous token is still reported, not measured forever. */
static int next_token(const char **pos, token *t)
{
    const char *p = *pos;
    while (is_space(*p))
        p++;
    if (!*p)
        return 0;
    const char *start = p;
    while (*p && !is_space(*p))
        p++;
    t->p = start;
    t->len = p - start > 4096 ? 4096 : (int)(p - start);
    *pos = p;
    return 1;
}

static int token_is(token t, const char *word)
{
    size_t n = strlen(word);
    return (size_t)t.len == n && memcmp(t.p, word, n) == 0;
}

static int shown(int len)
{
    return len > SHOWN_MAX ? SHOWN_MAX : len;
}

/* One finite number occupying exactly [p, p + len). */
static int parse_number(const char *p, int len, const char *key, double *out, ldem_err *err)
{
    char buf[NUMBER_MAX + 1];
    if (len <= 0 || len > NUMBER_MAX)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "analytic mode descriptor: %s: bad number '%.*s' (expected a "
                            "finite decimal number)",
                            key, shown(len), p);
    memcpy(buf, p, (size_t)len);
    buf[len] = '\0';
    char *end;
    /* errno is not consulted: strtod flags subnormal results (which %.17g writes and
     * which read back exactly) as ERANGE too; overflow shows as a non-finite value. */
    double v = strtod(buf, &end);
    if (end != buf + len || !isfinite(v))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "analytic mode descriptor: %s: bad number '%s' (expected a finite "
                            "decimal number)",
                            key, buf);
    *out = v;
    return LDEM_OK;
}

/* "a,b,c" into v[3]. */
static int parse_vector(const char *p, int len, const char *key, double v[3], ldem_err *err)
{
    const char *end = p + len;
    for (int c = 0; c < 3; c++) {
        const char *q = p;
        while (q < end && *q != ',')
            q++;
        if ((c < 2) != (q < end))
            return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                "analytic mode descriptor: %s: '%.*s' is not three "
                                "comma-separated numbers",
                                key, shown(len), p);
        int rc = parse_number(p, (int)(q - p), key, &v[c], err);
        if (rc != LDEM_OK)
            return rc;
        p = q + 1;
    }
    return LDEM_OK;
}

static int parse_axis(const char *p, int len, const char *key, int *axis, ldem_err *err)
{
    if (len == 1)
        for (int a = 0; a < 3; a++)
            if (p[0] == AXIS_NAMES[a]) {
                *axis = a;
                return LDEM_OK;
            }
    return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                        "analytic mode descriptor: %s: '%.*s' is not an axis (expected x, y "
                        "or z)",
                        key, shown(len), p);
}

enum { KEY_LENGTH, KEY_AXIS, KEY_DEFLECT, KEY_SCALE, KEY_T, KEY_W, KEY_COUNT };
static const char *const KEY_NAMES[KEY_COUNT] = {"length", "axis", "deflect",
                                                 "scale",  "t",    "w"};

/* One "key=value" token into the mode; seen[] catches duplicates. */
static int parse_pair(token t, ldem_beam_bending *m, int seen[KEY_COUNT], ldem_err *err)
{
    const char *eq = memchr(t.p, '=', (size_t)t.len);
    if (!eq)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "analytic mode descriptor: '%.*s' is not key=value",
                            shown(t.len), t.p);
    token key = {t.p, (int)(eq - t.p)};
    const char *v = eq + 1;
    int vlen = t.len - key.len - 1;
    int which = -1;
    for (int q = 0; q < KEY_COUNT; q++)
        if (token_is(key, KEY_NAMES[q]))
            which = q;
    if (which < 0)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "analytic mode descriptor: unknown key '%.*s' (expected length, "
                            "axis, deflect, scale, t, w)",
                            shown(key.len), key.p);
    if (seen[which]++)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "analytic mode descriptor: duplicate key '%s'", KEY_NAMES[which]);
    const char *name = KEY_NAMES[which];
    switch (which) {
    case KEY_LENGTH: return parse_number(v, vlen, name, &m->length, err);
    case KEY_AXIS: return parse_axis(v, vlen, name, &m->axis, err);
    case KEY_DEFLECT: return parse_axis(v, vlen, name, &m->deflect, err);
    case KEY_SCALE: return parse_number(v, vlen, name, &m->scale, err);
    case KEY_T: return parse_vector(v, vlen, name, m->t, err);
    default: return parse_vector(v, vlen, name, m->w, err);
    }
}

int ldem_beam_bending_parse(const char *text, ldem_beam_bending *m, ldem_err *err)
{
    if (!text || !m)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "beam-bending descriptor: no text or output");
    const char *pos = text;
    token t;
    if (!next_token(&pos, &t))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "analytic mode descriptor is empty (expected e.g. 'beam-bending "
                            "length=L axis=x deflect=z scale=S t=tx,ty,tz w=wx,wy,wz')");
    if (!token_is(t, "beam-bending"))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "analytic mode descriptor: unknown kind '%.*s' (available: "
                            "beam-bending)",
                            shown(t.len), t.p);
    ldem_beam_bending r = {.length = 0.0};
    int seen[KEY_COUNT] = {0};
    while (next_token(&pos, &t)) {
        int rc = parse_pair(t, &r, seen, err);
        if (rc != LDEM_OK)
            return rc;
    }
    for (int q = 0; q < KEY_COUNT; q++)
        if (!seen[q])
            return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                "analytic mode descriptor: missing key '%s' (beam-bending "
                                "needs length, axis, deflect, scale, t and w)",
                                KEY_NAMES[q]);
    int rc = ldem_beam_bending_check(&r, LDEM_ERR_INPUT, err);
    if (rc != LDEM_OK)
        return rc;
    *m = r;
    return LDEM_OK;
}
