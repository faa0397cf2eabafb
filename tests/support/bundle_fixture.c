/* One bundle holding every section type, and exact comparisons with it: see
 * bundle_fixture.h. */
#include "bundle_fixture.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bundle_streams.h"

const unsigned char xtra_payload[] = "opaque\0\x01\xff bytes of a newer tool";

static double *dup_doubles(const double *v, size_t n)
{
    double *d = malloc(n * sizeof *d);
    cr_assert_not_null(d);
    memcpy(d, v, n * sizeof *d);
    return d;
}

void fixture_make(fixture *f, enum ldem_mode_kind kind)
{
    memset(f, 0, sizeof *f);
    ldem_err err;
    ldem_meta_init(&f->meta);
    cr_assert_eq(ldem_meta_set(&f->meta, "name", "sphere-7", &err), 0);
    cr_assert_eq(ldem_meta_set(&f->meta, "length_unit", "mm", &err), 0);
    cr_assert_eq(ldem_meta_set(&f->meta, "producer", "ldg-pack 0.1.0", &err), 0);
    cr_assert_eq(ldem_meta_set(&f->meta, "source.0", "geom/sphere 7.stl", &err), 0);

    ldem_lset *ls = &f->lset;
    ls->dims[0] = 3, ls->dims[1] = 4, ls->dims[2] = 5;
    ls->origin[0] = -1.5, ls->origin[1] = -2.0, ls->origin[2] = 0.1;
    ls->spacing[0] = 0.5, ls->spacing[1] = 0.25, ls->spacing[2] = 1.0 / 3.0;
    ls->phi = malloc(60 * sizeof(float));
    cr_assert_not_null(ls->phi);
    for (int i = 0; i < 60; i++)
        ls->phi[i] = (float)(i - 30) / 7.0f;
    ls->phi[5] = -0.0f;

    /* A tetrahedron. */
    static const double pos[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    const double s3 = 1 / sqrt(3.0);
    const double nrm[12] = {-s3, -s3, -s3, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const double area[4] = {0.5, 0.25, 0.25, 1e-300};
    static const uint32_t tri[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    f->nodes.count = 4;
    f->nodes.position = dup_doubles(pos, 12);
    f->nodes.normal = dup_doubles(nrm, 12);
    f->nodes.area = dup_doubles(area, 4);
    f->nodes.ntriangles = 4;
    f->nodes.triangles = malloc(sizeof tri);
    memcpy(f->nodes.triangles, tri, sizeof tri);

    f->body = (ldem_body){.volume = 4.1887902047863905,
                          .density = 2500,
                          .mass = 10471.975511965976,
                          .inertia = {2, 3, 4.5},
                          .centroid = {0.25, -0.125, 1e-17},
                          .orientation = {0.5, 0.5, -0.5, 0.5}};

    ldem_modes *m = &f->modes;
    m->kind = kind;
    if (kind == LDEM_MODE_SAMPLED) {
        m->count = 2;
        m->nnodes = 4;
        m->node_values = malloc(2 * 4 * 3 * sizeof(double));
        for (int i = 0; i < 24; i++)
            m->node_values[i] = 0.01 * (i + 1) * (i % 2 ? -1 : 1);
        m->grid_dims[0] = 2, m->grid_dims[1] = 3, m->grid_dims[2] = 2;
        m->grid_origin[0] = -1, m->grid_origin[1] = -1.5, m->grid_origin[2] = -1;
        m->grid_spacing[0] = 2, m->grid_spacing[1] = 1.5, m->grid_spacing[2] = 2;
        m->grid_values = malloc(2 * 12 * 3 * sizeof(float));
        for (int i = 0; i < 72; i++)
            m->grid_values[i] = (float)i / 64.0f - 0.5f;
    } else {
        m->count = 1;
        const char *d = "beam-bending length=160 axis=x";
        m->descriptor = malloc(strlen(d) + 1);
        strcpy(m->descriptor, d);
    }

    f->kmat.n = 2;
    f->kmat.a = dup_doubles((const double[]){4, -1, -1, 3}, 4);
    f->mmat.n = 3;
    f->mmat.a = dup_doubles((const double[]){1, 0, 0, 0, 2, 0, 0, 0, 0.5}, 9);

    f->etab.count = 2;
    f->etab.tables = calloc(2, sizeof *f->etab.tables);
    ldem_etab_table *t = f->etab.tables;
    t[0] = (ldem_etab_table){.mode = 0, .interp = LDEM_INTERP_LINEAR, .n = 3};
    t[0].eps = dup_doubles((const double[]){-0.1, 0, 0.1}, 3);
    t[0].energy = dup_doubles((const double[]){0.005, 0, 0.005}, 3);
    t[0].force = dup_doubles((const double[]){-0.1, 0, 0.1}, 3);
    t[1] = (ldem_etab_table){.mode = 1, .interp = LDEM_INTERP_PCHIP, .n = 4};
    t[1].eps = dup_doubles((const double[]){-1, -0.25, 0.5, 2}, 4);
    t[1].energy = dup_doubles((const double[]){1, 0.0625, 0.25, 4}, 4);
    t[1].force = dup_doubles((const double[]){-2, -0.5, 1, 4}, 4);
}

void fixture_free(fixture *f)
{
    ldem_meta_free(&f->meta);
    ldem_lset_free(&f->lset);
    ldem_nodes_free(&f->nodes);
    ldem_modes_free(&f->modes);
    ldem_matrix_free(&f->kmat);
    ldem_matrix_free(&f->mmat);
    ldem_etab_free(&f->etab);
}

static void put_encoded(ldem_bundle *b, const char *tag, uint32_t flags, int rc,
                        unsigned char *data, uint64_t len, const ldem_err *enc_err)
{
    cr_assert_eq(rc, LDEM_OK, "encoding %s: %s", tag, enc_err->msg);
    ldem_err err;
    cr_assert_eq(ldem_bundle_put(b, tag, flags, data, len, &err), LDEM_OK, "%s", err.msg);
}

/* The bundle of a fixture, sections in a fixed order, with the unknown XTRA in the middle. */
void fixture_bundle(const fixture *f, ldem_bundle *b)
{
    ldem_bundle_init(b);
    ldem_err err;
    unsigned char *d;
    uint64_t n;
    int rc;
    rc = ldem_meta_encode(&f->meta, &d, &n, &err);
    put_encoded(b, LDEM_TAG_META, 0, rc, d, n, &err);
    rc = ldem_lset_encode(&f->lset, &d, &n, &err);
    put_encoded(b, LDEM_TAG_LSET, 0, rc, d, n, &err);
    rc = ldem_nodes_encode(&f->nodes, &d, &n, &err);
    put_encoded(b, LDEM_TAG_NODE, 0, rc, d, n, &err);
    cr_assert_eq(ldem_bundle_put_copy(b, "XTRA", XTRA_FLAGS, xtra_payload, sizeof xtra_payload,
                                      &err),
                 LDEM_OK);
    rc = ldem_body_encode(&f->body, &d, &n, &err);
    put_encoded(b, LDEM_TAG_BODY, 0, rc, d, n, &err);
    rc = ldem_modes_encode(&f->modes, &d, &n, &err);
    put_encoded(b, LDEM_TAG_MODE, 0, rc, d, n, &err);
    rc = ldem_matrix_encode(&f->kmat, &d, &n, &err);
    put_encoded(b, LDEM_TAG_KMAT, 0, rc, d, n, &err);
    rc = ldem_matrix_encode(&f->mmat, &d, &n, &err);
    put_encoded(b, LDEM_TAG_MMAT, 0, rc, d, n, &err);
    rc = ldem_etab_encode(&f->etab, &d, &n, &err);
    put_encoded(b, LDEM_TAG_ETAB, 0, rc, d, n, &err);
}

const char *const fixture_tags[] = {"META", "LSET", "NODE", "XTRA", "BODY",
                                    "MODE", "KMAT", "MMAT", "ETAB"};

/* ---- exact comparisons of decoded sections with the fixture ---- */

static void check_meta(const ldem_meta *got, const ldem_meta *want)
{
    cr_assert_eq(got->count, want->count);
    for (size_t i = 0; i < want->count; i++) {
        cr_assert_str_eq(got->keys[i], want->keys[i]);
        cr_assert_str_eq(got->values[i], want->values[i]);
    }
}

static void check_lset(const ldem_lset *got, const ldem_lset *want)
{
    for (int a = 0; a < 3; a++)
        cr_assert_eq(got->dims[a], want->dims[a]);
    assert_same_bytes(got->origin, want->origin, sizeof got->origin, "LSET origins");
    assert_same_bytes(got->spacing, want->spacing, sizeof got->spacing, "LSET spacings");
    assert_same_bytes(got->phi, want->phi, ldem_lset_count(want) * sizeof(float), "LSET phi");
}

static void check_nodes(const ldem_nodes *got, const ldem_nodes *want)
{
    cr_assert_eq(got->count, want->count);
    cr_assert_eq(got->ntriangles, want->ntriangles);
    size_t n = (size_t)want->count;
    assert_same_bytes(got->position, want->position, 3 * n * sizeof(double), "positions");
    assert_same_bytes(got->normal, want->normal, 3 * n * sizeof(double), "normals");
    assert_same_bytes(got->area, want->area, n * sizeof(double), "areas");
    assert_same_bytes(got->triangles, want->triangles,
                      3 * (size_t)want->ntriangles * sizeof(uint32_t), "triangles");
}

static void check_body(const ldem_body *got, const ldem_body *want)
{
    /* Every field is a double: compare the whole struct's values bit for bit. */
    cr_assert_eq(memcmp(&got->volume, &want->volume, sizeof(double)), 0);
    cr_assert_eq(memcmp(&got->density, &want->density, sizeof(double)), 0);
    cr_assert_eq(memcmp(&got->mass, &want->mass, sizeof(double)), 0);
    assert_same_bytes(got->inertia, want->inertia, sizeof got->inertia, "inertia");
    assert_same_bytes(got->centroid, want->centroid, sizeof got->centroid, "centroid");
    assert_same_bytes(got->orientation, want->orientation, sizeof got->orientation,
                      "orientation");
}

static void check_modes(const ldem_modes *got, const ldem_modes *want)
{
    cr_assert_eq(got->count, want->count);
    cr_assert_eq(got->kind, want->kind);
    cr_assert_eq(got->nnodes, want->nnodes);
    size_t nv = (size_t)(want->count * want->nnodes * 3);
    size_t g = (size_t)want->grid_dims[0] * want->grid_dims[1] * want->grid_dims[2];
    for (int a = 0; a < 3; a++)
        cr_assert_eq(got->grid_dims[a], want->grid_dims[a]);
    assert_same_bytes(got->grid_origin, want->grid_origin, sizeof got->grid_origin,
                      "grid origin");
    assert_same_bytes(got->grid_spacing, want->grid_spacing, sizeof got->grid_spacing,
                      "grid spacing");
    cr_assert_eq(got->node_values == NULL, nv == 0);
    cr_assert_eq(got->grid_values == NULL, g == 0);
    assert_same_bytes(got->node_values, want->node_values, nv * sizeof(double), "node values");
    assert_same_bytes(got->grid_values, want->grid_values, want->count * g * 3 * sizeof(float),
                      "grid values");
    if (want->descriptor)
        cr_assert_str_eq(got->descriptor, want->descriptor);
    else
        cr_assert_null(got->descriptor);
}

static void check_matrix(const ldem_matrix *got, const ldem_matrix *want)
{
    cr_assert_eq(got->n, want->n);
    assert_same_bytes(got->a, want->a, (size_t)want->n * want->n * sizeof(double), "entries");
}

static void check_etab(const ldem_etab *got, const ldem_etab *want)
{
    cr_assert_eq(got->count, want->count);
    for (uint32_t i = 0; i < want->count; i++) {
        const ldem_etab_table *g = &got->tables[i], *w = &want->tables[i];
        cr_assert_eq(g->mode, w->mode);
        cr_assert_eq(g->interp, w->interp);
        cr_assert_eq(g->n, w->n);
        assert_same_bytes(g->eps, w->eps, (size_t)w->n * sizeof(double), "eps");
        assert_same_bytes(g->energy, w->energy, (size_t)w->n * sizeof(double), "energy");
        assert_same_bytes(g->force, w->force, (size_t)w->n * sizeof(double), "force");
    }
}

/* Decode every typed section of a read-back bundle and compare it with the fixture. */
void check_typed(const ldem_bundle *b, const fixture *f)
{
    ldem_err err;
    const ldem_section *s;

    ldem_meta meta;
    cr_assert_not_null(s = ldem_bundle_find(b, LDEM_TAG_META));
    cr_assert_eq(ldem_meta_decode(s, "rt", &meta, &err), LDEM_OK, "%s", err.msg);
    check_meta(&meta, &f->meta);
    cr_assert_str_eq(ldem_meta_get(&meta, "source.0"), "geom/sphere 7.stl");
    ldem_meta_free(&meta);

    ldem_lset ls;
    cr_assert_not_null(s = ldem_bundle_find(b, LDEM_TAG_LSET));
    cr_assert_eq(ldem_lset_decode(s, "rt", &ls, &err), LDEM_OK, "%s", err.msg);
    check_lset(&ls, &f->lset);
    cr_assert(signbit(ls.phi[5]), "-0.0 kept its sign");
    ldem_lset_free(&ls);

    ldem_nodes nd;
    cr_assert_not_null(s = ldem_bundle_find(b, LDEM_TAG_NODE));
    cr_assert_eq(ldem_nodes_decode(s, "rt", &nd, &err), LDEM_OK, "%s", err.msg);
    check_nodes(&nd, &f->nodes);
    ldem_nodes_free(&nd);

    ldem_body body;
    cr_assert_not_null(s = ldem_bundle_find(b, LDEM_TAG_BODY));
    cr_assert_eq(ldem_body_decode(s, "rt", &body, &err), LDEM_OK, "%s", err.msg);
    check_body(&body, &f->body);

    ldem_modes modes;
    cr_assert_not_null(s = ldem_bundle_find(b, LDEM_TAG_MODE));
    cr_assert_eq(ldem_modes_decode(s, "rt", &modes, &err), LDEM_OK, "%s", err.msg);
    check_modes(&modes, &f->modes);
    ldem_modes_free(&modes);

    ldem_matrix mat;
    cr_assert_not_null(s = ldem_bundle_find(b, LDEM_TAG_KMAT));
    cr_assert_eq(ldem_matrix_decode(s, "rt", &mat, &err), LDEM_OK, "%s", err.msg);
    check_matrix(&mat, &f->kmat);
    ldem_matrix_free(&mat);
    cr_assert_not_null(s = ldem_bundle_find(b, LDEM_TAG_MMAT));
    cr_assert_eq(ldem_matrix_decode(s, "rt", &mat, &err), LDEM_OK, "%s", err.msg);
    check_matrix(&mat, &f->mmat);
    ldem_matrix_free(&mat);

    ldem_etab et;
    cr_assert_not_null(s = ldem_bundle_find(b, LDEM_TAG_ETAB));
    cr_assert_eq(ldem_etab_decode(s, "rt", &et, &err), LDEM_OK, "%s", err.msg);
    check_etab(&et, &f->etab);
    ldem_etab_free(&et);
}
