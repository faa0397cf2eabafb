/* BODY: mass properties. Layout: f64 volume, density, mass, inertia[3], centroid[3],
 * orientation[4] (w, x, y, z) — 13 doubles, 104 bytes. */
#include <math.h>
#include <string.h>

#include "ldem/sections.h"
#include "payload.h"

#define BODY_DOUBLES 13
_Static_assert(BODY_DOUBLES * 8 == 104 && sizeof(((ldem_body *)0)->inertia) == 3 * sizeof(double) &&
                   sizeof(((ldem_body *)0)->centroid) == 3 * sizeof(double) &&
                   sizeof(((ldem_body *)0)->orientation) == 4 * sizeof(double),
               "flatten's memcpys: BODY's 13 doubles, 104 bytes");
/* Principal moments of a real body obey the triangle inequality I_a <= I_b + I_c;
 * allow round-off for thin bodies (where equality holds exactly). */
#define TRIANGLE_TOLERANCE 1e-9
#define UNIT_TOLERANCE 1e-9

static void flatten(const ldem_body *b, double v[BODY_DOUBLES])
{
    v[0] = b->volume;
    v[1] = b->density;
    v[2] = b->mass;
    memcpy(v + 3, b->inertia, 3 * sizeof(double));
    memcpy(v + 6, b->centroid, 3 * sizeof(double));
    memcpy(v + 9, b->orientation, 4 * sizeof(double));
}

/* Why these mass properties cannot belong to a real body, or NULL. */
static const char *check_body(const ldem_body *b)
{
    double v[BODY_DOUBLES];
    flatten(b, v);
    if (first_nonfinite_f64(v, BODY_DOUBLES) < BODY_DOUBLES)
        return "a value is not finite";
    if (!(b->volume > 0) || !(b->density > 0) || !(b->mass > 0))
        return "volume, density and mass must be positive";
    const double *I = b->inertia;
    for (int a = 0; a < 3; a++) {
        if (!(I[a] > 0))
            return "principal moments of inertia must be positive";
        if (I[a] > (I[(a + 1) % 3] + I[(a + 2) % 3]) * (1 + TRIANGLE_TOLERANCE))
            return "principal moments violate the triangle inequality I1 <= I2 + I3";
    }
    const double *q = b->orientation;
    if (fabs(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] - 1) > UNIT_TOLERANCE)
        return "orientation is not a unit quaternion";
    return NULL;
}

int ldem_body_encode(const ldem_body *b, unsigned char **data, uint64_t *len, ldem_err *err)
{
    const char *why = check_body(b);
    if (why)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "BODY: %s", why);
    double v[BODY_DOUBLES];
    flatten(b, v);
    payload_buffer buf;
    int rc = buffer_init(&buf, 8 * BODY_DOUBLES, err);
    if (rc)
        return rc;
    buffer_f64_array(&buf, v, BODY_DOUBLES);
    return buffer_finish(&buf, data, len, err);
}

int ldem_body_decode(const ldem_section *s, const char *source, ldem_body *b, ldem_err *err)
{
    memset(b, 0, sizeof *b);
    payload_cursor c;
    cursor_init(&c, s, source, err);
    double v[BODY_DOUBLES];
    int rc = LDEM_OK;
    for (int i = 0; i < BODY_DOUBLES && !rc; i++)
        rc = cursor_f64(&c, &v[i]);
    if (!rc)
        rc = cursor_finish(&c);
    if (rc)
        return rc;
    b->volume = v[0];
    b->density = v[1];
    b->mass = v[2];
    memcpy(b->inertia, v + 3, 3 * sizeof(double));
    memcpy(b->centroid, v + 6, 3 * sizeof(double));
    memcpy(b->orientation, v + 9, 4 * sizeof(double));
    const char *why = check_body(b);
    return why ? cursor_fail(&c, "%s", why) : LDEM_OK;
}
