/* Round trips of the typed section payloads (ldem/sections.h): every type goes encode ->
 * section -> decode and comes back bit for bit, and the encoded payload has exactly the
 * documented size and field order. Also the in-memory META key/value API. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/bundle.h"
#include "ldem/bytes.h"
#include "ldem/sections.h"
#include "support/section_payloads.h"

#define assert_same_bytes(a, b, n, what)                                                    \
    cr_assert(((n) == 0) || memcmp((a), (b), (n)) == 0, "%s differ", what)

/* ------------------------------------------------------------------------------------ */
/* META                                                                                  */

Test(sections, meta_set_get_replace)
{
    ldem_meta m;
    ldem_meta_init(&m);
    ldem_err err;
    cr_assert_null(ldem_meta_get(&m, "name"));
    cr_assert_eq(ldem_meta_set(&m, "name", "grain 1", &err), 0);
    cr_assert_eq(ldem_meta_set(&m, "length_unit", "mm", &err), 0);
    cr_assert_eq(ldem_meta_set(&m, "empty", "", &err), 0);
    cr_assert_str_eq(ldem_meta_get(&m, "name"), "grain 1");
    cr_assert_str_eq(ldem_meta_get(&m, "empty"), "");
    cr_assert_eq(m.count, 3);
    /* Replace keeps the position and the count. */
    cr_assert_eq(ldem_meta_set(&m, "name", "grain 2 = renamed", &err), 0);
    cr_assert_eq(m.count, 3);
    cr_assert_str_eq(m.keys[0], "name");
    cr_assert_str_eq(ldem_meta_get(&m, "name"), "grain 2 = renamed");
    cr_assert_null(ldem_meta_get(&m, "nam"), "no prefix matches");
    /* Growth past the initial capacity. */
    for (int i = 0; i < 40; i++) {
        char k[16], v[16];
        snprintf(k, sizeof k, "source.%d", i);
        snprintf(v, sizeof v, "f%d.stl", i);
        cr_assert_eq(ldem_meta_set(&m, k, v, &err), 0);
    }
    cr_assert_eq(m.count, 43);
    cr_assert_str_eq(ldem_meta_get(&m, "source.39"), "f39.stl");
    /* Invalid entries are refused and change nothing. */
    cr_assert_eq(ldem_meta_set(&m, "", "x", &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_meta_set(&m, "a b", "x", &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_meta_set(&m, "a=b", "x", &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_meta_set(&m, "name", "two\nlines", &err), LDEM_ERR_USAGE);
    cr_assert_eq(ldem_meta_set(&m, "name", "cr\r", &err), LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "line breaks"), "%s", err.msg);
    cr_assert_eq(m.count, 43);
    cr_assert_str_eq(ldem_meta_get(&m, "name"), "grain 2 = renamed");
    ldem_meta_free(&m);
    cr_assert_eq(m.count, 0);
}

Test(sections, meta_round_trip)
{
    ldem_meta m;
    ldem_meta_init(&m);
    ldem_err err;
    cr_assert_eq(ldem_meta_set(&m, "name", "sphere", &err), 0);
    cr_assert_eq(ldem_meta_set(&m, "producer", "ldg-pack 0.1.0", &err), 0);
    cr_assert_eq(ldem_meta_set(&m, "source", "a=b.stl \xc3\xa9t\xc3\xa9", &err), 0);
    cr_assert_eq(ldem_meta_set(&m, "x-empty_1.2", "", &err), 0);
    unsigned char *d;
    uint64_t n;
    cr_assert_eq(ldem_meta_encode(&m, &d, &n, &err), 0);
    static const char want[] =
        "name=sphere\nproducer=ldg-pack 0.1.0\nsource=a=b.stl \xc3\xa9t\xc3\xa9\nx-empty_1.2=\n";
    cr_assert_eq(n, sizeof want - 1);
    cr_assert_eq(memcmp(d, want, n), 0, "META is plain key=value lines");
    ldem_section s = section_of("META", d, n, -1);
    ldem_meta got;
    cr_assert_eq(ldem_meta_decode(&s, "x", &got, &err), 0, "%s", err.msg);
    cr_assert_eq(got.count, m.count);
    for (size_t i = 0; i < m.count; i++) {
        cr_assert_str_eq(got.keys[i], m.keys[i]);
        cr_assert_str_eq(got.values[i], m.values[i]);
    }
    ldem_meta_free(&got);
    free(d);

    /* An empty META is valid and encodes to nothing. */
    ldem_meta_free(&m);
    cr_assert_eq(ldem_meta_encode(&m, &d, &n, &err), 0);
    cr_assert_eq(n, 0);
    free(d);
    s = section_of("META", NULL, 0, -1);
    cr_assert_eq(ldem_meta_decode(&s, "x", &got, &err), 0);
    cr_assert_eq(got.count, 0);
    ldem_meta_free(&got);
}

/* ------------------------------------------------------------------------------------ */
/* LSET                                                                                  */

static void lset_make(ldem_lset *ls)
{
    ls->dims[0] = 2, ls->dims[1] = 3, ls->dims[2] = 4;
    ls->origin[0] = -0.5, ls->origin[1] = 1e-300, ls->origin[2] = 7;
    ls->spacing[0] = 0.1, ls->spacing[1] = 0.2, ls->spacing[2] = 1e10;
    ls->phi = malloc(24 * sizeof(float));
    for (int i = 0; i < 24; i++)
        ls->phi[i] = (float)(i * i) * 0.37f - 10.0f;
    ls->phi[3] = 1e-45f; /* a subnormal */
    ls->phi[4] = -0.0f;
}

Test(sections, lset_round_trip)
{
    ldem_lset ls;
    lset_make(&ls);
    ldem_err err;
    unsigned char *d;
    uint64_t n;
    cr_assert_eq(ldem_lset_encode(&ls, &d, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 64 + 4 * 24);
    cr_assert_eq(ldem_get_u32le(d), 2u);
    cr_assert_eq(ldem_get_u32le(d + 8), 4u);
    cr_assert_eq(ldem_get_f64le(d + 40), 0.1, "spacing after origin");
    cr_assert_eq(ldem_get_f32le(d + 64 + 4 * 23), ls.phi[23], "x fastest, in order");
    ldem_section s = section_of("LSET", d, n, SECTION_AT);
    ldem_lset got;
    cr_assert_eq(ldem_lset_decode(&s, "x", &got, &err), 0, "%s", err.msg);
    for (int a = 0; a < 3; a++) {
        cr_assert_eq(got.dims[a], ls.dims[a]);
        cr_assert_eq(memcmp(&got.origin[a], &ls.origin[a], 8), 0);
        cr_assert_eq(memcmp(&got.spacing[a], &ls.spacing[a], 8), 0);
    }
    cr_assert_eq(ldem_lset_count(&got), 24);
    cr_assert_eq(memcmp(got.phi, ls.phi, 24 * sizeof(float)), 0);
    cr_assert(signbit(got.phi[4]));
    ldem_lset_free(&got);
    ldem_lset_free(&ls);
    free(d);
}

/* ------------------------------------------------------------------------------------ */
/* NODE                                                                                  */

static void nodes_make(ldem_nodes *n, uint64_t count, uint64_t ntri)
{
    memset(n, 0, sizeof *n);
    n->count = count;
    n->ntriangles = ntri;
    if (count) {
        n->position = malloc(3 * count * sizeof(double));
        n->normal = malloc(3 * count * sizeof(double));
        n->area = malloc(count * sizeof(double));
    }
    for (uint64_t i = 0; i < count; i++) {
        double t = 0.7 * (double)i;
        n->position[3 * i] = cos(t), n->position[3 * i + 1] = sin(t);
        n->position[3 * i + 2] = 0.01 * (double)i;
        double nz = 0.6, r = 0.8;
        n->normal[3 * i] = r * cos(t), n->normal[3 * i + 1] = r * sin(t);
        n->normal[3 * i + 2] = nz;
        n->area[i] = i == 0 ? 0.0 : 1.0 / (double)(i + 1);
    }
    if (ntri) {
        n->triangles = malloc(3 * ntri * sizeof(uint32_t));
        for (uint64_t t = 0; t < 3 * ntri; t++)
            n->triangles[t] = (uint32_t)((t * 7 + t / 3) % count);
    }
}

static void nodes_round_trip(uint64_t count, uint64_t ntri)
{
    ldem_nodes n;
    nodes_make(&n, count, ntri);
    ldem_err err;
    unsigned char *d;
    uint64_t len;
    cr_assert_eq(ldem_nodes_encode(&n, &d, &len, &err), 0, "%s", err.msg);
    cr_assert_eq(len, 16 + 56 * count + 12 * ntri);
    cr_assert_eq(ldem_get_u64le(d), count);
    cr_assert_eq(ldem_get_u64le(d + 8), ntri);
    if (count)
        cr_assert_eq(ldem_get_f64le(d + 16 + 24 * count), n.normal[0], "normals follow");
    ldem_section s = section_of("NODE", d, len, SECTION_AT);
    ldem_nodes got;
    cr_assert_eq(ldem_nodes_decode(&s, "x", &got, &err), 0, "%s", err.msg);
    cr_assert_eq(got.count, count);
    cr_assert_eq(got.ntriangles, ntri);
    size_t c = (size_t)count;
    assert_same_bytes(got.position, n.position, 3 * c * sizeof(double), "positions");
    assert_same_bytes(got.normal, n.normal, 3 * c * sizeof(double), "normals");
    assert_same_bytes(got.area, n.area, c * sizeof(double), "areas");
    assert_same_bytes(got.triangles, n.triangles, 3 * (size_t)ntri * 4, "triangles");
    ldem_nodes_free(&got);
    ldem_nodes_free(&n);
    free(d);
}

Test(sections, nodes_round_trip)
{
    nodes_round_trip(5, 3);
    nodes_round_trip(40, 0);
    nodes_round_trip(0, 0);
}

/* ------------------------------------------------------------------------------------ */
/* BODY                                                                                  */

Test(sections, body_round_trip)
{
    ldem_err err;
    unsigned char *d;
    uint64_t n;
    cr_assert_eq(ldem_body_encode(&good_body, &d, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, 104);
    pbuf raw = {0};
    body_raw(&raw, &good_body);
    cr_assert_eq(raw.n, 104);
    cr_assert_eq(memcmp(d, raw.p, 104), 0, "13 doubles in the documented order");
    pb_free(&raw);
    ldem_section s = section_of("BODY", d, n, SECTION_AT);
    ldem_body got;
    cr_assert_eq(ldem_body_decode(&s, "x", &got, &err), 0, "%s", err.msg);
    cr_assert_eq(memcmp(&got, &good_body, sizeof got), 0, "identical struct");
    free(d);
}

/* ------------------------------------------------------------------------------------ */
/* MODE                                                                                  */

static void modes_round_trip(const ldem_modes *m, uint64_t expected_len)
{
    ldem_err err;
    unsigned char *d;
    uint64_t n;
    cr_assert_eq(ldem_modes_encode(m, &d, &n, &err), 0, "%s", err.msg);
    cr_assert_eq(n, expected_len, "payload %llu bytes, expected %llu", (unsigned long long)n,
                 (unsigned long long)expected_len);
    ldem_section s = section_of("MODE", d, n, SECTION_AT);
    ldem_modes got;
    cr_assert_eq(ldem_modes_decode(&s, "x", &got, &err), 0, "%s", err.msg);
    cr_assert_eq(got.count, m->count);
    cr_assert_eq(got.kind, m->kind);
    cr_assert_eq(got.nnodes, m->nnodes);
    for (int a = 0; a < 3; a++)
        cr_assert_eq(got.grid_dims[a], m->grid_dims[a]);
    cr_assert_eq(memcmp(got.grid_origin, m->grid_origin, sizeof got.grid_origin), 0);
    cr_assert_eq(memcmp(got.grid_spacing, m->grid_spacing, sizeof got.grid_spacing), 0);
    size_t nv = (size_t)(m->count * m->nnodes * 3);
    size_t gv = (size_t)m->count * m->grid_dims[0] * m->grid_dims[1] * m->grid_dims[2] * 3;
    cr_assert_eq(got.node_values == NULL, nv == 0);
    cr_assert_eq(got.grid_values == NULL, gv == 0);
    assert_same_bytes(got.node_values, m->node_values, nv * sizeof(double), "node values");
    assert_same_bytes(got.grid_values, m->grid_values, gv * sizeof(float), "grid values");
    if (m->descriptor)
        cr_assert_str_eq(got.descriptor, m->descriptor);
    else
        cr_assert_null(got.descriptor);
    ldem_modes_free(&got);
    free(d);
}

Test(sections, modes_round_trip_sampled_with_grid)
{
    ldem_modes m = {.count = 3, .kind = LDEM_MODE_SAMPLED, .nnodes = 5,
                    .grid_dims = {2, 3, 4}, .grid_origin = {-1, -2, -3},
                    .grid_spacing = {0.5, 0.25, 0.125}};
    m.node_values = malloc(3 * 5 * 3 * sizeof(double));
    for (int i = 0; i < 45; i++)
        m.node_values[i] = sin(i + 0.5);
    m.grid_values = malloc(3 * 24 * 3 * sizeof(float));
    for (int i = 0; i < 216; i++)
        m.grid_values[i] = (float)cos(i);
    modes_round_trip(&m, 88 + 8 * 45 + 4 * 216);
    /* Sampled on the grid only, and on the nodes only. */
    ldem_modes g = m;
    g.nnodes = 0, g.node_values = NULL;
    modes_round_trip(&g, 88 + 4 * 216);
    ldem_modes nd = m;
    memset(nd.grid_dims, 0, sizeof nd.grid_dims);
    nd.grid_values = NULL;
    modes_round_trip(&nd, 88 + 8 * 45);
    ldem_modes_free(&m);
}

Test(sections, modes_round_trip_analytic)
{
    char desc[] = "beam-bending length=160 axis=x \xce\xb1=1";
    ldem_modes m = {.count = 2, .kind = LDEM_MODE_ANALYTIC, .descriptor = desc};
    modes_round_trip(&m, 88 + strlen(desc));
    /* Analytic modes may carry sampled node values too. */
    double vals[2 * 2 * 3] = {1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6};
    m.nnodes = 2;
    m.node_values = vals;
    modes_round_trip(&m, 88 + 8 * 12 + strlen(desc));
}

/* ------------------------------------------------------------------------------------ */
/* KMAT / MMAT                                                                           */

Test(sections, matrix_round_trip)
{
    for (uint32_t n = 1; n <= 4; n++) {
        ldem_matrix m = {.n = n};
        m.a = malloc((size_t)n * n * sizeof(double));
        for (uint32_t i = 0; i < n * n; i++)
            m.a[i] = (i % (n + 1) == 0 ? 10.0 : -0.1) * (double)(i + 1) / 3.0;
        ldem_err err;
        unsigned char *d;
        uint64_t len;
        cr_assert_eq(ldem_matrix_encode(&m, &d, &len, &err), 0);
        cr_assert_eq(len, 8 + 8 * (uint64_t)n * n);
        cr_assert_eq(ldem_get_u32le(d), n);
        if (n > 1)
            cr_assert_eq(ldem_get_f64le(d + 8 + 8), m.a[1], "row-major");
        const char *tags[2] = {"KMAT", "MMAT"};
        for (int t = 0; t < 2; t++) {
            ldem_section s = section_of(tags[t], d, len, SECTION_AT);
            ldem_matrix got;
            cr_assert_eq(ldem_matrix_decode(&s, "x", &got, &err), 0, "%s", err.msg);
            cr_assert_eq(got.n, n);
            cr_assert_eq(memcmp(got.a, m.a, (size_t)n * n * sizeof(double)), 0);
            ldem_matrix_free(&got);
        }
        free(d);
        ldem_matrix_free(&m);
    }
    ldem_matrix zero = {0};
    ldem_err err;
    unsigned char *d;
    uint64_t len;
    cr_assert_eq(ldem_matrix_encode(&zero, &d, &len, &err), LDEM_ERR_USAGE);
}

/* ------------------------------------------------------------------------------------ */
/* ETAB                                                                                  */

Test(sections, etab_round_trip)
{
    ldem_etab t = {.count = 3};
    t.tables = calloc(3, sizeof *t.tables);
    uint32_t modes[3] = {2, 0, 7};
    uint32_t interps[3] = {LDEM_INTERP_LINEAR, LDEM_INTERP_CUBIC, LDEM_INTERP_PCHIP};
    uint32_t extraps[3] = {LDEM_EXTRAP_QUADRATIC, LDEM_EXTRAP_NONE, LDEM_EXTRAP_LINEAR};
    uint64_t ns[3] = {2, 5, 17};
    uint64_t total = 8;
    for (int i = 0; i < 3; i++) {
        ldem_etab_table *tb = &t.tables[i];
        tb->mode = modes[i], tb->interp = interps[i], tb->n = ns[i];
        tb->extrapolate = extraps[i];
        tb->eps = malloc(ns[i] * sizeof(double));
        tb->energy = malloc(ns[i] * sizeof(double));
        tb->force = malloc(ns[i] * sizeof(double));
        for (uint64_t k = 0; k < ns[i]; k++) {
            double e = -0.5 + 0.1 * (double)k * (double)(k + 1);
            tb->eps[k] = e;
            tb->energy[k] = 0.5 * e * e + 0.1 * e * e * e * e;
            tb->force[k] = e + 0.4 * e * e * e;
        }
        total += 16 + 24 * ns[i];
    }
    ldem_err err;
    unsigned char *d;
    uint64_t len;
    cr_assert_eq(ldem_etab_encode(&t, &d, &len, &err), 0, "%s", err.msg);
    cr_assert_eq(len, total);
    cr_assert_eq(ldem_get_u32le(d), 3u);
    cr_assert_eq(ldem_get_u32le(d + 8), 2u, "first table's mode");
    /* Interpolation in bits 0-7, extrapolation in bits 8-15 of one u32. */
    cr_assert_eq(ldem_get_u32le(d + 12), LDEM_INTERP_LINEAR | LDEM_EXTRAP_QUADRATIC << 8,
                 "first table's interpolation field 0x%x", ldem_get_u32le(d + 12));
    cr_assert_eq(ldem_get_u32le(d + 8 + 16 + 24 * 2 + 4), LDEM_INTERP_CUBIC,
                 "second table's interpolation field");
    cr_assert_eq(ldem_get_u64le(d + 16), 2u, "first table's n");
    ldem_section s = section_of("ETAB", d, len, SECTION_AT);
    ldem_etab got;
    cr_assert_eq(ldem_etab_decode(&s, "x", &got, &err), 0, "%s", err.msg);
    cr_assert_eq(got.count, 3);
    for (int i = 0; i < 3; i++) {
        const ldem_etab_table *g = &got.tables[i], *w = &t.tables[i];
        cr_assert_eq(g->mode, w->mode);
        cr_assert_eq(g->interp, w->interp);
        cr_assert_eq(g->extrapolate, w->extrapolate);
        cr_assert_eq(g->n, w->n);
        size_t bytes = (size_t)w->n * sizeof(double);
        cr_assert_eq(memcmp(g->eps, w->eps, bytes), 0);
        cr_assert_eq(memcmp(g->energy, w->energy, bytes), 0);
        cr_assert_eq(memcmp(g->force, w->force, bytes), 0);
    }
    ldem_etab_free(&got);
    free(d);
    cr_assert_str_eq(ldem_interp_name(LDEM_INTERP_PCHIP), "pchip");
    cr_assert_null(ldem_interp_name(3));
    cr_assert_str_eq(ldem_extrapolate_name(LDEM_EXTRAP_NONE), "none");
    cr_assert_str_eq(ldem_extrapolate_name(LDEM_EXTRAP_LINEAR), "linear");
    cr_assert_str_eq(ldem_extrapolate_name(LDEM_EXTRAP_QUADRATIC), "quadratic");
    cr_assert_null(ldem_extrapolate_name(3));

    /* The encoder refuses what the decoder would refuse. */
    double saved = t.tables[1].eps[2];
    t.tables[1].eps[2] = t.tables[1].eps[1];
    cr_assert_eq(ldem_etab_encode(&t, &d, &len, &err), LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "table 1"), "%s", err.msg);
    t.tables[1].eps[2] = saved;
    cr_assert_eq(ldem_etab_encode(&t, &d, &len, &err), LDEM_OK, "%s", err.msg);
    free(d);
    /* An extrapolation that would not fit its byte, or has no meaning, is refused. */
    const uint32_t bad_extrap[] = {3, 256, 0xffffffffu};
    for (int i = 0; i < 3; i++) {
        t.tables[2].extrapolate = bad_extrap[i];
        cr_assert_eq(ldem_etab_encode(&t, &d, &len, &err), LDEM_ERR_USAGE);
        cr_assert(strstr(err.msg, "table 2: unknown extrapolation"), "%s", err.msg);
    }
    t.tables[2].extrapolate = LDEM_EXTRAP_LINEAR;
    t.tables[2].interp = 256 | LDEM_INTERP_LINEAR;
    cr_assert_eq(ldem_etab_encode(&t, &d, &len, &err), LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "table 2: unknown interpolation"), "%s", err.msg);
    ldem_etab_free(&t);
}

/* ------------------------------------------------------------------------------------ */
/* DAMP                                                                                  */

static void damping_alloc(ldem_damping *d, uint32_t n, uint32_t kind)
{
    memset(d, 0, sizeof *d);
    d->n = n;
    d->kind = kind;
    d->zeta = calloc(n, sizeof(double));
    d->omega = calloc(n, sizeof(double));
    d->c = calloc((size_t)n * n, sizeof(double));
    cr_assert(d->zeta && d->omega && d->c);
    for (uint32_t k = 0; k < n; k++)
        d->omega[k] = 100.0 * (k + 1) + (k == 1 ? 0.0 : 0.5);
}

/* Every kind comes back bit for bit, in the documented layout: u32 n, u32 kind, f64 alpha,
 * f64 beta, f64 zeta[n], f64 omega[n], f64 c[n·n], 24 + 16n + 8n² bytes. */
Test(sections, damping_round_trip)
{
    const uint32_t ns[3] = {1, 3, 4};
    for (uint32_t kind = 0; kind < 3; kind++) {
        uint32_t n = ns[kind];
        ldem_damping d;
        damping_alloc(&d, n, kind);
        if (kind == LDEM_DAMPING_RAYLEIGH)
            d.alpha = 0.25, d.beta = 1.5e-4;
        for (uint32_t k = 0; kind == LDEM_DAMPING_RATIO && k < n; k++)
            d.zeta[k] = 0.01 * k; /* zeta[0] = 0 is allowed */
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = 0; j < n; j++)
                d.c[i * n + j] = kind == LDEM_DAMPING_NONE ? 0.0 : 1.0 / (1.0 + i + j) + (i == j);
        ldem_err err;
        unsigned char *p;
        uint64_t len;
        cr_assert_eq(ldem_damping_encode(&d, &p, &len, &err), LDEM_OK, "%s", err.msg);
        cr_assert_eq(len, 24 + 16 * (uint64_t)n + 8 * (uint64_t)n * n);
        cr_assert_eq(ldem_get_u32le(p), n);
        cr_assert_eq(ldem_get_u32le(p + 4), kind);
        cr_assert_eq(ldem_get_f64le(p + 8), d.alpha);
        cr_assert_eq(ldem_get_f64le(p + 16), d.beta);
        cr_assert_eq(ldem_get_f64le(p + 24 + 8 * (n - 1)), d.zeta[n - 1], "last zeta");
        cr_assert_eq(ldem_get_f64le(p + 24 + 8 * n), d.omega[0], "first omega");
        cr_assert_eq(ldem_get_f64le(p + len - 8), d.c[n * n - 1], "last C entry");
        cr_assert_eq(ldem_get_f64le(p + 24 + 16 * n), d.c[0], "first C entry");
        ldem_section s = section_of("DAMP", p, len, SECTION_AT);
        ldem_damping got;
        cr_assert_eq(ldem_damping_decode(&s, "x", &got, &err), LDEM_OK, "%s", err.msg);
        cr_assert_eq(got.n, n);
        cr_assert_eq(got.kind, kind);
        cr_assert_eq(got.alpha, d.alpha);
        cr_assert_eq(got.beta, d.beta);
        assert_same_bytes(got.zeta, d.zeta, n * sizeof(double), "zeta");
        assert_same_bytes(got.omega, d.omega, n * sizeof(double), "omega");
        assert_same_bytes(got.c, d.c, (size_t)n * n * sizeof(double), "C");
        ldem_damping_free(&got);
        cr_assert_null(got.c);
        free(p);
        ldem_damping_free(&d);
    }
    cr_assert_str_eq(ldem_damping_kind_name(LDEM_DAMPING_NONE), "none");
    cr_assert_str_eq(ldem_damping_kind_name(LDEM_DAMPING_RAYLEIGH), "rayleigh");
    cr_assert_str_eq(ldem_damping_kind_name(LDEM_DAMPING_RATIO), "ratio");
    cr_assert_null(ldem_damping_kind_name(3));
}

/* The encoder refuses what the decoder would refuse (the decoder's cases are in
 * test_sections_rejects.c); the symmetry tolerance is relative to max |c|. */
Test(sections, damping_encoder_checks)
{
    ldem_damping d;
    damping_alloc(&d, 2, LDEM_DAMPING_RAYLEIGH);
    d.alpha = 1e-3;
    d.c[0] = 1e6, d.c[1] = 2.0, d.c[2] = 2.0 + 0.9e-6, d.c[3] = 3e5;
    ldem_err err;
    unsigned char *p;
    uint64_t len;
    cr_assert_eq(ldem_damping_encode(&d, &p, &len, &err), LDEM_OK, "%s", err.msg);
    free(p);
    d.c[2] = 2.0 + 1.1e-6;
    cr_assert_eq(ldem_damping_encode(&d, &p, &len, &err), LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "DAMP") && strstr(err.msg, "not symmetric"), "%s", err.msg);
    d.c[2] = 2.0;
    d.kind = LDEM_DAMPING_RATIO;
    cr_assert_eq(ldem_damping_encode(&d, &p, &len, &err), LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "unless the kind is rayleigh"), "%s", err.msg);
    d.alpha = 0;
    d.zeta[1] = -0.1;
    cr_assert_eq(ldem_damping_encode(&d, &p, &len, &err), LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "zeta[1]"), "%s", err.msg);
    d.zeta[1] = 0.1;
    d.omega[1] = d.omega[0] * (1 - 1e-15);
    cr_assert_eq(ldem_damping_encode(&d, &p, &len, &err), LDEM_ERR_USAGE);
    cr_assert(strstr(err.msg, "ascending"), "%s", err.msg);
    d.omega[1] = d.omega[0]; /* equal frequencies (a symmetric grain) are fine */
    cr_assert_eq(ldem_damping_encode(&d, &p, &len, &err), LDEM_OK, "%s", err.msg);
    free(p);
    d.n = 0;
    cr_assert_eq(ldem_damping_encode(&d, &p, &len, &err), LDEM_ERR_USAGE);
    d.n = 2;
    ldem_damping_free(&d);
}
