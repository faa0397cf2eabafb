/* law_linear.c — Kawamoto's LS-DEM node penalty (ldem/contact/linear.h) as a contact law
 * (ldem/contact/laws.h). Its per-node springs live in the contact record (ldem_node_spring),
 * its state proper is empty. */
#include "ldem/contact/laws.h"
#include "ldem/contact/linear.h"

#include <math.h>

/* Nodes a grain is assumed to rest on for the critical step: the estimate is the period of
 * its mass on that many node springs (docs/scene.md, `dt: auto`). */
#define NODES_ASSUMED 8.0

static const ldem_law_param PARAMS[] = {
    [LDEM_LINEAR_P_KN] = {"kn", "normal stiffness per node, > 0", NAN, 0.0, INFINITY, 1, 0,
                          NULL, 0},
    [LDEM_LINEAR_P_KS] = {"ks", "shear stiffness per node, >= 0", NAN, 0.0, INFINITY, 0, 0,
                          NULL, 0},
};

static ldem_linear_params params_of(const ldem_pair_law *law)
{
    return (ldem_linear_params){law->p[LDEM_LINEAR_P_KN], law->p[LDEM_LINEAR_P_KS], law->mu};
}

static ldem_vec3 node_force(const ldem_pair_law *law, double depth, ldem_vec3 n, ldem_vec3 du,
                            double xi[3], double *dissipated, ldem_vec3 *fn, ldem_vec3 *ft)
{
    ldem_linear_params lp = params_of(law);
    return ldem_linear_node_force(&lp, depth, n, du, xi, dissipated, fn, ft);
}

static double node_energy(const ldem_pair_law *law, double depth)
{
    return 0.5 * law->p[LDEM_LINEAR_P_KN] * depth * depth;
}

static double spring_energy(const ldem_pair_law *law, const double xi[3])
{
    return 0.5 * law->p[LDEM_LINEAR_P_KS] * (xi[0] * xi[0] + xi[1] * xi[1] + xi[2] * xi[2]);
}

static double node_stiffness(const ldem_pair_law *law)
{
    return law->p[LDEM_LINEAR_P_KN];
}

/* Half the period of the mass on NODES_ASSUMED node springs, over π: 2 √(m / (n kn)). */
static double critical_time(const ldem_pair_law *law, const ldem_law_grain *g, int *by_mass)
{
    *by_mass = 1;
    return 2.0 * sqrt(g->mass / (NODES_ASSUMED * law->p[LDEM_LINEAR_P_KN]));
}

const ldem_law_ops ldem_law_linear = {
    .name = "linear",
    .id = LDEM_LAW_LINEAR,
    .kind = LDEM_LAW_NODES,
    .flags = LDEM_LAW_FRICTION,
    .params = PARAMS,
    .nparams = sizeof PARAMS / sizeof *PARAMS,
    .state_size = 0,
    .node_force = node_force,
    .node_energy = node_energy,
    .spring_energy = spring_energy,
    .node_stiffness = node_stiffness,
    .critical_time = critical_time,
};
