/* linear.c — the node-penalty law of LS-DEM (Kawamoto et al. 2016; ldem/contact/linear.h):
 * a linear normal spring and an incremental Coulomb-capped shear spring per penetrating node. */
#include "ldem/contact/linear.h"

#include <math.h>

static int check_param(const char *name, const char *what, double v, int zero_ok,
                       ldem_err *err)
{
    if (isfinite(v) && (v > 0.0 || (zero_ok && v == 0.0)))
        return LDEM_OK;
    return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                        "linear contact law: %s = %g is invalid; expected a finite %s %s", name,
                        v, zero_ok ? "number >= 0" : "number > 0", what);
}

int ldem_linear_params_init(ldem_linear_params *p, double kn, double ks, double mu,
                            ldem_err *err)
{
    int rc = check_param("kn", "(normal stiffness per node, force per unit depth)", kn, 0, err);
    if (!rc)
        rc = check_param("ks", "(shear stiffness per node)", ks, 1, err);
    if (!rc)
        rc = check_param("mu", "(friction coefficient)", mu, 1, err);
    if (rc)
        return rc;
    p->kn = kn;
    p->ks = ks;
    p->mu = mu;
    return LDEM_OK;
}

/* The spring carried into the tangent plane of normal n with its length kept: the contact
 * turned, the stretch it stores did not change (LS-DEM's rotation of the shear history). A
 * spring along n itself has no tangential direction left and is dropped. */
static ldem_vec3 into_tangent_plane(ldem_vec3 xi, ldem_vec3 n)
{
    double length = ldem_vec3_norm(xi);
    ldem_vec3 t = ldem_vec3_reject(xi, n);
    double tl = ldem_vec3_norm(t);
    return tl > 0.0 ? ldem_vec3_scale(t, length / tl) : ldem_vec3_zero();
}

static void store(double xi[3], ldem_vec3 v)
{
    xi[0] = v.x;
    xi[1] = v.y;
    xi[2] = v.z;
}

ldem_vec3 ldem_linear_node_force(const ldem_linear_params *p, double depth, ldem_vec3 n,
                                 ldem_vec3 ds, double xi[3], double *dissipated,
                                 ldem_vec3 *fn, ldem_vec3 *ft)
{
    if (!(depth > 0.0)) { /* separated: no force, and the node forgets its spring */
        store(xi, ldem_vec3_zero());
        if (fn)
            *fn = ldem_vec3_zero();
        if (ft)
            *ft = ldem_vec3_zero();
        return ldem_vec3_zero();
    }
    double normal_force = p->kn * depth;
    ldem_vec3 spring = into_tangent_plane(ldem_vec3_make(xi[0], xi[1], xi[2]), n);
    spring = ldem_vec3_add(spring, ldem_vec3_reject(ds, n));
    if (p->ks > 0.0) {
        double cap = p->mu * normal_force;
        double stretch = ldem_vec3_norm(spring);
        if (p->ks * stretch > cap) {
            /* Slip: the spring goes back to the length whose force is μ Fn, and friction
             * works μ Fn over the slipped distance. */
            double capped = cap / p->ks;
            spring = ldem_vec3_scale(spring, capped / stretch);
            if (dissipated)
                *dissipated += cap * (stretch - capped);
        }
    } else {
        spring = ldem_vec3_zero(); /* no shear stiffness: no spring to remember */
    }
    store(xi, spring);
    ldem_vec3 f_normal = ldem_vec3_scale(n, normal_force);  /* pushes j away from i */
    ldem_vec3 f_shear = ldem_vec3_scale(spring, -p->ks);    /* resists j's sliding */
    if (fn)
        *fn = f_normal;
    if (ft)
        *ft = f_shear;
    return ldem_vec3_add(f_normal, f_shear);
}

double ldem_linear_node_energy(const ldem_linear_params *p, double depth, const double xi[3])
{
    double d = depth > 0.0 ? depth : 0.0;
    double s2 = xi[0] * xi[0] + xi[1] * xi[1] + xi[2] * xi[2];
    return 0.5 * p->kn * d * d + 0.5 * p->ks * s2;
}
