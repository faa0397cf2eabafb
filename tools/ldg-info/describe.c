#include "describe.h"

#include <math.h>
#include <stdio.h>

#include "ldem/sections.h"

int describe_meta(const ldem_section *s, const char *source, facts *f, ldem_err *err)
{
    ldem_meta m;
    int rc = ldem_meta_decode(s, source, &m, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < m.count; i++)
        facts_str(f, m.keys[i], m.values[i]);
    ldem_meta_free(&m);
    return LDEM_OK;
}

int describe_lset(const ldem_section *s, const char *source, facts *f, ldem_err *err)
{
    ldem_lset ls;
    int rc = ldem_lset_decode(s, source, &ls, err);
    if (rc)
        return rc;
    uint64_t n = ldem_lset_count(&ls), inside = 0;
    double lo = INFINITY, hi = -INFINITY, far[3];
    for (uint64_t i = 0; i < n; i++) {
        lo = fmin(lo, ls.phi[i]);
        hi = fmax(hi, ls.phi[i]);
        inside += ls.phi[i] < 0;
    }
    for (int a = 0; a < 3; a++)
        far[a] = ls.origin[a] + (ls.dims[a] - 1) * ls.spacing[a];
    facts_counts(f, "dims", ls.dims, 3);
    facts_vec(f, "origin", ls.origin, 3);
    facts_vec(f, "spacing", ls.spacing, 3);
    facts_vec(f, "far_corner", far, 3);
    facts_num(f, "phi_min", lo);
    facts_num(f, "phi_max", hi);
    facts_count(f, "inside_nodes", inside);
    ldem_lset_free(&ls);
    return LDEM_OK;
}

int describe_nodes(const ldem_section *s, const char *source, facts *f, ldem_err *err)
{
    ldem_nodes nd;
    int rc = ldem_nodes_decode(s, source, &nd, err);
    if (rc)
        return rc;
    double area = 0, lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY,
                                                                       -INFINITY};
    for (uint64_t i = 0; i < nd.count; i++) {
        area += nd.area[i];
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], nd.position[3 * i + a]);
            hi[a] = fmax(hi[a], nd.position[3 * i + a]);
        }
    }
    facts_count(f, "nodes", nd.count);
    facts_count(f, "triangles", nd.ntriangles);
    facts_num(f, "area", area);
    if (nd.count) {
        facts_vec(f, "bbox_min", lo, 3);
        facts_vec(f, "bbox_max", hi, 3);
    }
    ldem_nodes_free(&nd);
    return LDEM_OK;
}

int describe_body(const ldem_section *s, const char *source, facts *f, ldem_err *err)
{
    ldem_body b;
    int rc = ldem_body_decode(s, source, &b, err);
    if (rc)
        return rc;
    facts_num(f, "volume", b.volume);
    facts_num(f, "density", b.density);
    facts_num(f, "mass", b.mass);
    facts_vec(f, "inertia", b.inertia, 3);
    facts_vec(f, "centroid", b.centroid, 3);
    facts_vec(f, "orientation", b.orientation, 4);
    return LDEM_OK;
}

int describe_modes(const ldem_section *s, const char *source, facts *f, ldem_err *err)
{
    ldem_modes m;
    int rc = ldem_modes_decode(s, source, &m, err);
    if (rc)
        return rc;
    facts_count(f, "modes", m.count);
    facts_str(f, "kind", m.kind == LDEM_MODE_ANALYTIC ? "analytic" : "sampled");
    facts_count(f, "nodes", m.nnodes);
    if (m.grid_values)
        facts_counts(f, "grid", m.grid_dims, 3);
    if (m.descriptor)
        facts_str(f, "descriptor", m.descriptor);
    ldem_modes_free(&m);
    return LDEM_OK;
}

int describe_matrix(const ldem_section *s, const char *source, facts *f, ldem_err *err)
{
    ldem_matrix m;
    int rc = ldem_matrix_decode(s, source, &m, err);
    if (rc)
        return rc;
    /* Generalized K and M must be symmetric; show how far off the stored one is. */
    double biggest = 0, asym = 0;
    for (uint32_t i = 0; i < m.n; i++)
        for (uint32_t j = 0; j < m.n; j++) {
            biggest = fmax(biggest, fabs(m.a[i * m.n + j]));
            asym = fmax(asym, fabs(m.a[i * m.n + j] - m.a[j * m.n + i]));
        }
    facts_count(f, "n", m.n);
    double diag[8];
    uint32_t shown = m.n < 8 ? m.n : 8;
    for (uint32_t i = 0; i < shown; i++)
        diag[i] = m.a[i * m.n + i];
    facts_vec(f, shown < m.n ? "diagonal_first8" : "diagonal", diag, shown);
    facts_num(f, "asymmetry", biggest > 0 ? asym / biggest : 0);
    ldem_matrix_free(&m);
    return LDEM_OK;
}

int describe_etab(const ldem_section *s, const char *source, facts *f, ldem_err *err)
{
    ldem_etab t;
    int rc = ldem_etab_decode(s, source, &t, err);
    if (rc)
        return rc;
    facts_count(f, "tables", t.count);
    for (uint32_t i = 0; i < t.count; i++) {
        const ldem_etab_table *tb = &t.tables[i];
        char key[48];
        double range[2] = {tb->eps[0], tb->eps[tb->n - 1]};
        snprintf(key, sizeof key, "mode%u_interp", tb->mode);
        facts_str(f, key, ldem_interp_name(tb->interp));
        snprintf(key, sizeof key, "mode%u_extrapolate", tb->mode);
        facts_str(f, key, ldem_extrapolate_name(tb->extrapolate));
        snprintf(key, sizeof key, "mode%u_samples", tb->mode);
        facts_count(f, key, tb->n);
        snprintf(key, sizeof key, "mode%u_eps_range", tb->mode);
        facts_vec(f, key, range, 2);
    }
    ldem_etab_free(&t);
    return LDEM_OK;
}

/* Up to the first 8 values of a per-mode list, keyed `name` or `name_first8`. */
static void facts_first8(facts *f, const char *name, const double *v, uint32_t n)
{
    char key[48];
    uint32_t shown = n < 8 ? n : 8;
    snprintf(key, sizeof key, shown < n ? "%s_first8" : "%s", name);
    facts_vec(f, key, v, shown);
}

int describe_damping(const ldem_section *s, const char *source, facts *f, ldem_err *err)
{
    ldem_damping d;
    int rc = ldem_damping_decode(s, source, &d, err);
    if (rc)
        return rc;
    facts_count(f, "n", d.n);
    facts_str(f, "kind", ldem_damping_kind_name(d.kind));
    if (d.kind == LDEM_DAMPING_RAYLEIGH) {
        facts_num(f, "alpha", d.alpha);
        facts_num(f, "beta", d.beta);
    } else if (d.kind == LDEM_DAMPING_RATIO) {
        facts_first8(f, "zeta", d.zeta, d.n);
    }
    facts_first8(f, "omega", d.omega, d.n);
    ldem_damping_free(&d);
    return LDEM_OK;
}
