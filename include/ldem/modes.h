/* ldem/modes.h — the deformation modes of one grain shape at run time (design layer 3,
 * "modes"; Henzel & Karapiperis §2–3).
 *
 * A modeset is built once per shape from the bundle's MODE, KMAT, MMAT and, when present,
 * ETAB and DAMP sections. It answers, in the grain's body frame:
 *   - Φα at the surface nodes (the bundle's node values, exact) and anywhere else (the
 *     analytic descriptor evaluated exactly, or the MODE grid field sampled trilinearly);
 *   - the modal displacement u(p) = Σα εα Φα(p) and its gradient J = ∂u/∂p (the level-set
 *     remap needs both: φ(p) = φ0(p − u(p)), ∇φ = (I − J)ᵀ ∇φ0);
 *   - the internal generalized force F_int(ε) and elastic energy U(ε): Kε and ½εᵀKε for
 *     linear modes; for a mode α with an ETAB table, the table's F_α(εα) and U_α(εα) replace
 *     the diagonal term Kαα εα (and ½Kαα εα²), the off-diagonal Kαβ couplings staying linear:
 *       U(ε) = Σα U_α(εα) + ½ Σ_{α≠β} Kαβ εα εβ   (mode α tabulated), so F_int = ∂U/∂ε exactly;
 *   - M⁻¹ (Cholesky of M), the damping matrix C, and ω_max, the largest natural angular
 *     frequency of M ε̈ + K_t ε = 0 with K_t the stiffest tangent (an ETAB mode contributes
 *     the largest dF/dε over its table, its extrapolation included) — the modal time-step
 *     limit dt ≤ β_d/ω_max of §3.3.
 * Everything is a pure function of the modeset and its arguments; no allocation after build.
 */
#ifndef LDEM_MODES_H
#define LDEM_MODES_H

#include "ldem/export.h"

#include <stddef.h>
#include <stdint.h>

#include "ldem/energy.h"
#include "ldem/blocks.h"
#include "ldem/err.h"
#include "ldem/quat.h"
#include "ldem/sections.h"
#include "ldem/vec3.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How Φ is evaluated away from the surface nodes. */
enum ldem_mode_field {
    LDEM_MODE_FIELD_NONE = 0,      /* node values only: no remap possible (build fails for a
                                    * modeset that must deform a level set) */
    LDEM_MODE_FIELD_GRID = 1,      /* the MODE grid field, trilinear (float32 storage) */
    LDEM_MODE_FIELD_ANALYTIC = 2   /* the analytic descriptor, exact */
};

/* Henzel eq. 51, as the MODE descriptor "beam-bending length=L axis=A deflect=D scale=S
 * t=tx,ty,tz w=wx,wy,wz" states it (docs/bundle.md): Φ(x) = S (raw(x) − t − w × x),
 * s = x_A + L/2, raw_A = x_D (π/L) cos(πs/L), raw_D = −sin(πs/L). */
typedef struct ldem_beam_bending {
    double length;
    int axis, deflect;     /* 0, 1, 2 = x, y, z; distinct */
    double scale;
    double t[3], w[3];
} ldem_beam_bending;

/* Parse / print a beam-bending descriptor (shared with modefit). Parse errors are
 * LDEM_ERR_INPUT naming the key; *m is untouched on failure. */
LDEM_API int ldem_beam_bending_parse(const char *text, ldem_beam_bending *m, ldem_err *err);
LDEM_API int ldem_beam_bending_describe(const ldem_beam_bending *m, char **text, ldem_err *err);
/* The checks every descriptor passes (axes x, y or z and distinct, length > 0, all numbers
 * finite); a failure carries `code` (LDEM_ERR_INPUT for read data, LDEM_ERR_USAGE for a
 * caller's struct). */
LDEM_API int ldem_beam_bending_check(const ldem_beam_bending *m, int code, ldem_err *err);
/* Raw field (no rigid removal, no scale) and the stored Φ; grad[i][j] = ∂u_i/∂x_j (may be
 * NULL). */
LDEM_API void ldem_beam_bending_raw(const ldem_beam_bending *m, const double x[3], double u[3],
                                    double grad[3][3]);
LDEM_API void ldem_beam_bending_eval(const ldem_beam_bending *m, const double x[3], double u[3],
                                     double grad[3][3]);

typedef struct ldem_modeset {
    uint32_t n;                /* modes, ≥ 1 */
    uint64_t nnodes;           /* surface nodes (the NODE count) */
    double *node_values;       /* nnodes × n × 3, node-major (ldem_modes_node_value): Φα at
                                * node k (body frame); a node's modes share cache lines */
    double *node_max;          /* n: max_k |Φα(node k)| (bounds how far a grain grows) */
    double *field_max;         /* n: max |Φα| over the grid field (bounds the remap's pull
                                * back anywhere); INFINITY without a grid field */

    int field;                 /* enum ldem_mode_field */
    uint32_t dims[3];          /* grid field */
    double origin[3], spacing[3];
    float *grid;               /* (nx·ny·nz) × n × 3, point-major (x fastest), so a query
                                * finds all modes of a corner together */
    /* Local bounds for the remap's pull back: the grid cells in blocks of
     * LDEM_MODES_BLOCK_CELLS per axis, and for each block the smallest and largest Φα,i
     * over its grid points (its faces included), block-major:
     * block_lo[(b × n + α) × 3 + i]. */
    uint32_t block_dims[3];
    double block_scale[3];     /* 1 / (spacing × LDEM_MODES_BLOCK_CELLS) */
    float *block_lo, *block_hi;
    /* The same over each block and its 26 neighbours: where an iterated pull back can
     * evaluate u, starting from a point in the block (ldem_modes_block_range_near). */
    float *near_lo, *near_hi;
    /* Fixed-point steps of the pull back (ldem_modes_pull_back), ≥ 1; 1 after build. */
    uint32_t pullback;
    ldem_beam_bending *analytic;   /* n descriptors (field == ANALYTIC) */

    double *M, *K, *C;         /* n × n, row-major, symmetric */
    double *M_chol;            /* lower Cholesky factor of M, row-major */
    ldem_energy_curve *curves; /* n; curves[a].n == 0: mode a is linear */
    double omega_max;          /* > 0 */
} ldem_modeset;

/* Build from the bundle's sections. `modes`, `K`, `M` are required and must agree in n;
 * `etab` and `damp` may be NULL (no damping: C = 0). `nnodes` is the NODE count: sampled
 * modes must carry node values for exactly those nodes; analytic modes without node values
 * get them evaluated at `node_positions` (3 × nnodes, body frame; may be NULL otherwise).
 * Errors (LDEM_ERR_INPUT, naming the section): sizes that disagree, M not positive
 * definite, K not symmetric, an ETAB table for a mode that does not exist, an analytic
 * descriptor that does not parse. */
LDEM_API int ldem_modeset_build(const ldem_modes *modes, const ldem_matrix *K, const ldem_matrix *M,
                                const ldem_etab *etab, const ldem_damping *damp, uint64_t nnodes,
                                const double *node_positions, ldem_modeset *out, ldem_err *err);
LDEM_API void ldem_modeset_free(ldem_modeset *m);

/* Replace C: Rayleigh C = αM + βK, or a damping ratio ζ on every mode,
 * C = M Ψ diag(2ζωk) Ψᵀ M with (ωk², Ψ) the eigenpairs of (K, M), Ψᵀ M Ψ = I (K is the
 * linear KMAT, also for tabulated modes). */
LDEM_API int ldem_modeset_set_rayleigh(ldem_modeset *m, double alpha, double beta, ldem_err *err);
LDEM_API int ldem_modeset_set_ratio(ldem_modeset *m, double zeta, ldem_err *err);

/* Φα(p) for every α (phi: n vectors) and, if grad is not NULL, ∂Φα/∂p (n matrices,
 * m[i][j] = ∂Φ_i/∂p_j). Returns 1 when p is inside the field's domain; a grid field is
 * clamped to its box outside (and returns 0); analytic fields are defined everywhere. */
LDEM_API int ldem_modes_eval(const ldem_modeset *m, ldem_vec3 p, ldem_vec3 *phi, ldem_mat3 *grad);

/* u(p) = Σ εα Φα(p) and, if J is not NULL, J = ∂u/∂p. Same return as ldem_modes_eval. */
LDEM_API int ldem_modes_displacement(const ldem_modeset *m, const double *eps, ldem_vec3 p,
                                     ldem_vec3 *u, ldem_mat3 *J);

/* Grid cells per block edge of block_max: small enough that a block near a contact does not
 * see the far side's displacements, large enough that the table stays in cache. */
#define LDEM_MODES_BLOCK_CELLS 4u

/* Per-axis bounds b_i ≥ |u_i(p)| = |Σα εα Φα,i(p)| at p: Σα |εα| × the largest |Φα,i| in
 * the block of grid cells holding p (trilinear interpolation stays within its corners, and
 * outside the box the field is its boundary cell's). Zero without a field (u is zero
 * there), INFINITY for an analytic field. */
LDEM_API ldem_vec3 ldem_modes_displacement_bound(const ldem_modeset *m, const double *eps,
                                                 ldem_vec3 p);

/* The same in two halves, for callers that query many nearby points with one ε: the block
 * holding p (grid fields only), and the bound over a block. A point within rounding of a
 * block face may get the block on the other side, whose bound then differs from the true
 * one by rounding of the far corners' weights (≈ 1e-16 of max|Φ|): callers add a margin. */
static inline size_t ldem_modes_block_of(const ldem_modeset *m, ldem_vec3 p)
{
    return ldem_block_index(m->origin, m->block_scale, m->block_dims, p);
}
LDEM_API ldem_vec3 ldem_modes_block_bound(const ldem_modeset *m, const double *eps, size_t block);
/* The range of each u_i = Σα εα Φα,i over a block: lo_i ≤ u_i(p) ≤ hi_i for p in it. */
LDEM_API void ldem_modes_block_range(const ldem_modeset *m, const double *eps, size_t block,
                                     ldem_vec3 *lo, ldem_vec3 *hi);

/* The same over the block and its 26 neighbours (grid fields only), with the block's edge
 * lengths: when every |u_i| over that range stays below edge[i], the points an iterated
 * pull back visits from a point of the block lie in the range's blocks. */
LDEM_API void ldem_modes_block_range_near(const ldem_modeset *m, const double *eps, size_t block,
                                          ldem_vec3 *lo, ldem_vec3 *hi, ldem_vec3 *edge);

/* The range of each u_i over every point where the pull back (m->pullback steps) from a
 * point of `block` evaluates u: the block's own range after one step, its neighbours'
 * when iterated. Returns 0, with no range, when an iterated pull back can leave the
 * neighbours (some |u_i| reaches the block edge): only the field-wide bound holds then. */
LDEM_API int ldem_modes_pull_back_range(const ldem_modeset *m, const double *eps, size_t block,
                                        ldem_vec3 *lo, ldem_vec3 *hi);

/* The reference point X of body-frame point p, X + u(X) = p: m->pullback fixed-point steps
 * X ← p − u(X) from X = p. One step is Henzel's X = p − u(p) (§3.1.3), off by O(|u| |∇u|);
 * each further step multiplies the error by about |∇u| (the map contracts for |∇u| < 1).
 * If J is not NULL it gets ∂u/∂p at the last point where u was evaluated (p itself after
 * one step). */
LDEM_API ldem_vec3 ldem_modes_pull_back(const ldem_modeset *m, const double *eps, ldem_vec3 p,
                                        ldem_mat3 *J);

/* Node k's modal displacement Σ εα Φα(node k), from the node values. */
LDEM_API ldem_vec3 ldem_modes_node_displacement(const ldem_modeset *m, const double *eps,
                                                uint64_t k);

/* out[3k..3k+2] = ref[3k..3k+2] + Σ εα Φα(node k) for every node (body frame). */
LDEM_API void ldem_modes_deform_nodes(const ldem_modeset *m, const double *eps, const double *ref,
                                      double *out);

/* Φα at node k (3 values). The bundle's MODE section is mode-major; the modeset keeps them
 * node-major because the narrow phase deforms scattered nodes one at a time. */
static inline const double *ldem_modes_node_value(const ldem_modeset *m, uint32_t a, uint64_t k)
{
    return m->node_values + 3 * ((size_t)k * m->n + a);
}

/* ref + Σα εα values[3α..3α+2] (n modes), the arithmetic of every deformed node: copies of
 * the node values kept elsewhere (node clusters) give the same bits through it. */
static inline ldem_vec3 ldem_modes_deform_point(const double *ref, const double *values,
                                                const double *eps, uint32_t n)
{
    double p[3] = {ref[0], ref[1], ref[2]};
    for (uint32_t a = 0; a < n; a++) {
        double e = eps[a];
        if (e == 0.0)
            continue;
        const double *v = values + 3 * a;
        p[0] += e * v[0];
        p[1] += e * v[1];
        p[2] += e * v[2];
    }
    return ldem_vec3_make(p[0], p[1], p[2]);
}

/* Node k of ldem_modes_deform_nodes alone (which loops over it): the narrow phase deforms
 * only the nodes it visits. */
static inline ldem_vec3 ldem_modes_deformed_node(const ldem_modeset *m, const double *eps,
                                                 const double *ref, uint64_t k)
{
    return ldem_modes_deform_point(ref + 3 * k, ldem_modes_node_value(m, 0, k), eps, m->n);
}

/* Internal force F_int(ε) (n values, may be NULL) and elastic energy U(ε) (may be NULL).
 * Fails (LDEM_ERR_INPUT with the mode, ε and the table's range in err) when a tabulated
 * mode leaves a table that forbids extrapolation. */
LDEM_API int ldem_modes_internal(const ldem_modeset *m, const double *eps, double *f_int, double *U,
                                 ldem_err *err);

/* a = M⁻¹ f (n values; a may alias f). */
LDEM_API void ldem_modes_solve_mass(const ldem_modeset *m, const double *f, double *a);

/* ½ ε̇ᵀ M ε̇. */
LDEM_API double ldem_modes_kinetic(const ldem_modeset *m, const double *rate);

#ifdef __cplusplus
}
#endif
#endif
