/* Analytic deformation modes (analytic.h): the beam-bending field of Henzel & Karapiperis
 * eq. 51, its descriptor text, its rigid part and its generalized K and M over a level
 * set's interior. */
#include "analytic.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elastic.h"
#include "lsquad.h"

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

void analytic_eval_raw(const analytic_mode *m, const double x[3], double u[3],
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

void analytic_eval(const analytic_mode *m, const double x[3], double u[3], double grad[3][3])
{
    double raw[3], graw[3][3], wx[3];
    analytic_eval_raw(m, x, raw, grad ? graw : NULL);
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

/* The checks a parsed descriptor must also pass; `code` says whose fault a failure is. */
static int check_mode(const analytic_mode *m, int code, ldem_err *err)
{
    if (!m)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "analytic mode: none given");
    if (m->kind != ANALYTIC_BEAM_BENDING)
        return ldem_err_set(err, code, NULL, 0,
                            "analytic mode: unknown kind %d (available: beam-bending)", m->kind);
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

int analytic_describe(const analytic_mode *m, char **text, ldem_err *err)
{
    if (!text)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "analytic_describe: no output given");
    *text = NULL;
    int rc = check_mode(m, LDEM_ERR_USAGE, err);
    if (rc != LDEM_OK)
        return rc;
    /* %.17g is enough digits for any double to read back to the same bits. */
    static const char fmt[] = "beam-bending length=%.17g axis=%c deflect=%c scale=%.17g "
                              "t=%.17g,%.17g,%.17g w=%.17g,%.17g,%.17g";
    int n = snprintf(NULL, 0, fmt, m->length, AXIS_NAMES[m->axis], AXIS_NAMES[m->deflect],
                     m->scale, m->t[0], m->t[1], m->t[2], m->w[0], m->w[1], m->w[2]);
    if (n < 0)
        return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                            "analytic_describe: formatting failed");
    char *s = malloc((size_t)n + 1);
    if (!s)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                            "analytic_describe: out of memory (%d bytes)", n + 1);
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
static int parse_pair(token t, analytic_mode *m, int seen[KEY_COUNT], ldem_err *err)
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

int analytic_parse(const char *text, analytic_mode *m, ldem_err *err)
{
    if (!text || !m)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "analytic_parse: no text or output");
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
    analytic_mode r = {.kind = ANALYTIC_BEAM_BENDING};
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
    int rc = check_mode(&r, LDEM_ERR_INPUT, err);
    if (rc != LDEM_OK)
        return rc;
    *m = r;
    return LDEM_OK;
}

/* ---- integrals over the interior ---- */

/* Moments for the rigid projection, all about the body origin. */
typedef struct rigid_sums {
    const analytic_mode *mode;
    double volume;
    double first[3];       /* ∫ x */
    double second[3][3];   /* ∫ x xᵀ */
    double raw[3];         /* ∫ raw */
    double moment[3];      /* ∫ x × raw */
} rigid_sums;

static void add_rigid_point(void *ctx, const double x[3], double weight)
{
    rigid_sums *s = ctx;
    double u[3], xu[3];
    analytic_eval_raw(s->mode, x, u, NULL);
    cross(x, u, xu);
    s->volume += weight;
    for (int i = 0; i < 3; i++) {
        s->first[i] += weight * x[i];
        s->raw[i] += weight * u[i];
        s->moment[i] += weight * xu[i];
        for (int j = 0; j < 3; j++)
            s->second[i][j] += weight * x[i] * x[j];
    }
}

/* The normal equations of min ∫ |raw − t − w × x|²:
 *   ∫ (raw − t − w × x) = 0       →  V t − [c]× w = ∫ raw
 *   ∫ x × (raw − t − w × x) = 0   →  [c]× t + J w = ∫ x × raw
 * with c = ∫ x and J = ∫ (|x|² I − x xᵀ) (x × (w × x) = (|x|² I − x xᵀ) w). The matrix is
 * symmetric ([c]×ᵀ = −[c]×) and positive definite for any body with volume, so Cholesky. */
static int solve_rigid(const rigid_sums *s, double t[3], double w[3], ldem_err *err)
{
    double C[3][3];
    cross_matrix(s->first, C);
    double trace = s->second[0][0] + s->second[1][1] + s->second[2][2];
    double A[36] = {0}, b[6];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            A[6 * i + j] = i == j ? s->volume : 0.0;
            A[6 * i + 3 + j] = -C[i][j];
            A[6 * (3 + i) + j] = C[i][j];
            A[6 * (3 + i) + 3 + j] = (i == j ? trace : 0.0) - s->second[i][j];
        }
        b[i] = s->raw[i];
        b[3 + i] = s->moment[i];
    }
    lapack_int info = LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', 6, 1, A, 6, b, 1);
    if (info != 0)
        return ldem_err_set(err, info > 0 ? LDEM_ERR_INPUT : LDEM_ERR_INTERNAL, NULL, 0,
                            "analytic mode: the interior's moments do not determine a rigid "
                            "motion (LAPACKE_dposv info %d; is the body flat or empty?)",
                            (int)info);
    for (int i = 0; i < 3; i++) {
        t[i] = b[i];
        w[i] = b[3 + i];
    }
    return LDEM_OK;
}

int analytic_remove_rigid(analytic_mode *m, const ldem_lset *ls, int depth, ldem_err *err)
{
    int rc = check_mode(m, LDEM_ERR_USAGE, err);
    if (rc != LDEM_OK)
        return rc;
    rigid_sums s = {.mode = m};
    rc = lsquad_interior(ls, depth, add_rigid_point, &s, err);
    if (rc != LDEM_OK)
        return rc;
    if (!(s.volume > 0.0))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "analytic mode: the level set has no interior (no φ < 0) to "
                            "project the rigid motion over");
    double t[3], w[3];
    rc = solve_rigid(&s, t, w, err);
    if (rc != LDEM_OK)
        return rc;
    memcpy(m->t, t, sizeof t);
    memcpy(m->w, w, sizeof w);
    return LDEM_OK;
}

typedef struct energy_sums {
    const analytic_mode *mode;
    double lambda, mu;
    double strain_energy;  /* ∫ (C:E):E */
    double square;         /* ∫ Φ·Φ */
    double volume;
} energy_sums;

static void add_energy_point(void *ctx, const double x[3], double weight)
{
    energy_sums *s = ctx;
    double u[3], G[3][3], Es[3][3];
    analytic_eval(s->mode, x, u, G);
    /* C before C23 does not convert double (*)[3] to const double (*)[3] implicitly. */
    elastic_strain((const double(*)[3])G, Es);
    const double(*strain)[3] = (const double(*)[3])Es;
    s->strain_energy += weight * elastic_bilinear(s->lambda, s->mu, strain, strain);
    s->square += weight * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    s->volume += weight;
}

int analytic_mass_stiffness(const analytic_mode *m, const ldem_lset *ls, int depth, double E,
                            double nu, double rho, double *K, double *M, double *volume,
                            ldem_err *err)
{
    int rc = check_mode(m, LDEM_ERR_USAGE, err);
    if (rc != LDEM_OK)
        return rc;
    if (!(E > 0.0) || !isfinite(E) || !(nu > -1.0 && nu < 0.5) || !(rho > 0.0) ||
        !isfinite(rho))
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "analytic mode: E=%g nu=%g rho=%g (expected E > 0, -1 < nu < 0.5, "
                            "rho > 0, all finite)",
                            E, nu, rho);
    energy_sums s = {.mode = m};
    elastic_lame(E, nu, &s.lambda, &s.mu);
    rc = lsquad_interior(ls, depth, add_energy_point, &s, err);
    if (rc != LDEM_OK)
        return rc;
    if (K)
        *K = s.strain_energy;
    if (M)
        *M = rho * s.square;
    if (volume)
        *volume = s.volume;
    return LDEM_OK;
}
