/* narrowphase.c — contact geometry of analytic shapes (sphere–sphere, sphere–wall) and the
 * hit list the level-set queries fill (ldem/sim/narrowphase.h). */
#include "ldem/sim/narrowphase.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/sim/world.h"

void ldem_hits_free(ldem_hits *h)
{
    free(h->hit);
    h->hit = NULL;
    h->count = h->capacity = 0;
}

int ldem_hits_reserve(ldem_hits *h, size_t n, ldem_err *err)
{
    if (n <= h->capacity)
        return LDEM_OK;
    /* Doubling keeps the amortized cost per hit constant in the hot node loop. */
    size_t cap = h->capacity ? h->capacity : 64;
    while (cap < n) {
        if (cap > SIZE_MAX / 2 / sizeof *h->hit)
            return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                                "contact node hits: %zu hits do not fit in memory", n);
        cap *= 2;
    }
    ldem_node_hit *grown = realloc(h->hit, cap * sizeof *grown);
    if (!grown)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                            "contact node hits: out of memory growing the list to %zu", cap);
    h->hit = grown;
    h->capacity = cap;
    return LDEM_OK;
}

static void patch_clear(ldem_patch *out)
{
    memset(out, 0, sizeof *out);
}

/* A unit vector perpendicular to the unit vector a (deterministic: a × the coordinate axis
 * least aligned with a). */
static ldem_vec3 any_perpendicular(ldem_vec3 a)
{
    double ax = fabs(a.x), ay = fabs(a.y), az = fabs(a.z);
    ldem_vec3 e = ax <= ay && ax <= az ? ldem_vec3_make(1.0, 0.0, 0.0)
                  : ay <= az           ? ldem_vec3_make(0.0, 1.0, 0.0)
                                       : ldem_vec3_make(0.0, 0.0, 1.0);
    return ldem_vec3_normalize(ldem_vec3_cross(a, e));
}

static void sphere_plane(ldem_vec3 x, double r, const ldem_wall_geom *w, ldem_patch *out)
{
    double s = ldem_vec3_dot(ldem_vec3_sub(x, w->point), w->normal);
    out->overlap = r - s;
    out->normal = ldem_vec3_neg(w->normal);
    /* Halfway between the sphere's lowest point (x − r n) and its foot on the plane (x − s n). */
    out->point = ldem_vec3_axpy(-0.5 * (r + s), w->normal, x);
    out->r1 = r;
    out->r2 = INFINITY;
}

/* Relative curvatures of a sphere (radius r) on a cylinder (radius R; concave when the
 * sphere is inside): 1/r along the axis, 1/r ± 1/R around it. Hertz's equivalent radius of
 * such an elliptic contact is the inverse of their geometric mean. */
void ldem_cylinder_radii(double r, double R, int inside, double *r1, double *r2)
{
    if (!inside) {
        /* R* = 1/√((1/r + 1/R)/r) with r1 = r: 1/r2 = 1/R* − 1/r = (√(1 + r/R) − 1)/r,
         * rationalized so no cancellation for R ≫ r (then r2 → 2R, R* → r). */
        *r1 = r;
        *r2 = R * (1.0 + sqrt(1.0 + r / R));
        return;
    }
    /* A drum: R* = 1/√((1/r − 1/R)/r) > r, which no positive r2 can give with r1 = r (the
     * concave wall would need r2 < 0, and the Hertz laws accept positive radii only). So the
     * whole R* goes into r1 and the wall counts as flat. A sphere as large as the drum has
     * no finite R*: cap at 100 r (the cap the level-set patch uses, reached at r/R = 1 − 1e-4). */
    double c = (1.0 - r / R);
    double rstar = c > 1e-4 ? r / sqrt(c) : 100.0 * r;
    *r1 = rstar;
    *r2 = INFINITY;
}

static void sphere_cylinder(ldem_vec3 x, double r, const ldem_wall_geom *w, ldem_patch *out)
{
    ldem_vec3 radial = ldem_vec3_reject(ldem_vec3_sub(x, w->point), w->normal);
    double rho = ldem_vec3_norm(radial);
    /* On the axis every radial direction is equally right; take a fixed one. */
    ldem_vec3 e = rho > 0.0 ? ldem_vec3_scale(radial, 1.0 / rho) : any_perpendicular(w->normal);
    double R = w->radius;
    if (w->inside) {
        out->overlap = r + rho - R;
        out->normal = e; /* outward, toward the drum's wall */
        /* Halfway between the sphere's outermost point (ρ + r) and the wall (R). */
        out->point = ldem_vec3_axpy(0.5 * (r + R - rho), e, x);
    } else {
        out->overlap = R + r - rho;
        out->normal = ldem_vec3_neg(e); /* inward, toward the rod's axis */
        /* Halfway between the sphere's innermost point (ρ − r) and the rod's surface (R). */
        out->point = ldem_vec3_axpy(-0.5 * (r + rho - R), e, x);
    }
    ldem_cylinder_radii(r, R, w->inside, &out->r1, &out->r2);
}

void ldem_sphere_wall(ldem_vec3 x, double r, const ldem_wall_geom *w, ldem_patch *out)
{
    patch_clear(out);
    if (w->kind == LDEM_WALL_CYLINDER)
        sphere_cylinder(x, r, w, out);
    else
        sphere_plane(x, r, w, out);
}
