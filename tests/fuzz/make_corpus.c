/* Regenerates the seed corpus of fuzz_bundle (tests/fuzz/corpus):
 *
 *   make_fuzz_corpus DIR
 *
 * Small bundles (each well under 8 KiB) covering every section type, concatenated bundles,
 * container corruptions (bad magic, version, CRC, truncation, duplicate tag, huge length,
 * bad tag, non-empty end marker) and payloads that pass the container but fail a typed
 * decoder. The output is deterministic, so re-running it leaves the committed files
 * unchanged. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/bundle.h"
#include "ldem/bytes.h"
#include "ldem/energy.h"
#include "ldem/sections.h"

static const char *outdir;

static void die(const char *what, const ldem_err *err)
{
    fprintf(stderr, "make_fuzz_corpus: %s: %s\n", what, err ? err->msg : "failed");
    exit(1);
}

typedef struct blob {
    unsigned char *p;
    size_t n;
} blob;

static void blob_add(blob *b, const void *data, size_t n)
{
    unsigned char *g = realloc(b->p, b->n + n + 1);
    if (!g)
        die("out of memory", NULL);
    b->p = g;
    memcpy(b->p + b->n, data, n);
    b->n += n;
}

static void save(const char *name, const blob *b)
{
    if (b->n > 8192) {
        fprintf(stderr, "make_fuzz_corpus: %s would be %zu bytes (limit 8 KiB)\n", name, b->n);
        exit(1);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(b->p, 1, b->n, fp) != b->n || fclose(fp) != 0) {
        perror(path);
        exit(1);
    }
}

static blob write_bundle(const ldem_bundle *b)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    ldem_err err;
    if (!fp || ldem_bundle_write(fp, "corpus", b, &err))
        die("write", &err);
    fclose(fp);
    blob out = {(unsigned char *)buf, len};
    return out;
}

static void put(ldem_bundle *b, const char *tag, uint32_t flags, int rc, unsigned char *d,
                uint64_t n, const ldem_err *err)
{
    if (rc)
        die(tag, err);
    ldem_err e2;
    if (ldem_bundle_put(b, tag, flags, d, n, &e2))
        die(tag, &e2);
}

static double *doubles(size_t n, double scale)
{
    double *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = scale * (double)(i + 1) * ((i % 3) ? 1 : -1);
    return v;
}

/* ---- one encoder per section type, with small valid contents ---- */

static void add_meta(ldem_bundle *b, const char *name)
{
    ldem_meta m;
    ldem_meta_init(&m);
    ldem_err err;
    if (ldem_meta_set(&m, "name", name, &err) || ldem_meta_set(&m, "unit", "mm", &err) ||
        ldem_meta_set(&m, "producer", "make_fuzz_corpus 1", &err) ||
        ldem_meta_set(&m, "source", "corpus/shape.stl", &err))
        die("meta", &err);
    unsigned char *d;
    uint64_t n;
    int rc = ldem_meta_encode(&m, &d, &n, &err);
    put(b, LDEM_TAG_META, 0, rc, d, n, &err);
    ldem_meta_free(&m);
}

static void add_lset(ldem_bundle *b)
{
    ldem_lset ls = {.dims = {2, 2, 3}, .origin = {-1, -1, -1.5}, .spacing = {2, 2, 1.5}};
    float phi[12];
    for (int i = 0; i < 12; i++)
        phi[i] = (float)i * 0.25f - 1.0f;
    ls.phi = phi;
    ldem_err err;
    unsigned char *d;
    uint64_t n;
    int rc = ldem_lset_encode(&ls, &d, &n, &err);
    put(b, LDEM_TAG_LSET, 0, rc, d, n, &err);
}

static void add_nodes(ldem_bundle *b)
{
    const double s3 = 1 / sqrt(3.0);
    double pos[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    double nrm[12] = {-s3, -s3, -s3, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    double area[4] = {0.5, 0.25, 0.25, 0.125};
    uint32_t tri[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    ldem_nodes nd = {.count = 4, .position = pos, .normal = nrm, .area = area,
                     .ntriangles = 4, .triangles = tri};
    ldem_err err;
    unsigned char *d;
    uint64_t n;
    int rc = ldem_nodes_encode(&nd, &d, &n, &err);
    put(b, LDEM_TAG_NODE, 0, rc, d, n, &err);
}

static void add_body(ldem_bundle *b)
{
    ldem_body body = {.volume = 4.18879, .density = 2500, .mass = 10471.975,
                      .inertia = {2, 3, 4}, .centroid = {0.5, -0.25, 0},
                      .orientation = {0.5, 0.5, 0.5, 0.5}};
    ldem_err err;
    unsigned char *d;
    uint64_t n;
    int rc = ldem_body_encode(&body, &d, &n, &err);
    put(b, LDEM_TAG_BODY, 0, rc, d, n, &err);
}

static void add_modes(ldem_bundle *b, int analytic)
{
    ldem_modes m;
    memset(&m, 0, sizeof m);
    if (analytic) {
        m.count = 1;
        m.kind = LDEM_MODE_ANALYTIC;
        m.descriptor = "beam-bending length=160 axis=x";
    } else {
        m.count = 2;
        m.kind = LDEM_MODE_SAMPLED;
        m.nnodes = 4;
        m.node_values = doubles(2 * 4 * 3, 0.01);
        m.grid_dims[0] = m.grid_dims[1] = m.grid_dims[2] = 2;
        m.grid_origin[0] = m.grid_origin[1] = m.grid_origin[2] = -1;
        m.grid_spacing[0] = m.grid_spacing[1] = m.grid_spacing[2] = 2;
        m.grid_values = malloc(2 * 8 * 3 * sizeof(float));
        for (int i = 0; i < 48; i++)
            m.grid_values[i] = (float)i / 32.0f;
    }
    ldem_err err;
    unsigned char *d;
    uint64_t n;
    int rc = ldem_modes_encode(&m, &d, &n, &err);
    put(b, LDEM_TAG_MODE, 0, rc, d, n, &err);
    if (!analytic) {
        free(m.node_values);
        free(m.grid_values);
    }
}

static void add_matrix(ldem_bundle *b, const char *tag, double diag)
{
    double a[4] = {diag, -0.5, -0.5, 2 * diag};
    ldem_matrix m = {.n = 2, .a = a};
    ldem_err err;
    unsigned char *d;
    uint64_t n;
    int rc = ldem_matrix_encode(&m, &d, &n, &err);
    put(b, tag, 0, rc, d, n, &err);
}

static void add_etab(ldem_bundle *b)
{
    double e0[3] = {-0.1, 0, 0.1}, u0[3] = {0.005, 0, 0.005}, f0[3] = {-0.1, 0, 0.1};
    double e1[4] = {-1, -0.25, 0.5, 2}, u1[4] = {1, 0.0625, 0.25, 4}, f1[4] = {-2, -0.5, 1, 4};
    /* Consistent energies (U = ∫F with U(0) = 0; PCHIP is exact for linear F), so the fuzz
     * target's energy evaluation gets past ldem_energy_prepare. */
    ldem_etab_table t[2] = {
        {.mode = 0, .interp = LDEM_INTERP_LINEAR, .extrapolate = LDEM_EXTRAP_NONE, .n = 3,
         .eps = e0, .energy = u0, .force = f0},
        {.mode = 1, .interp = LDEM_INTERP_PCHIP, .extrapolate = LDEM_EXTRAP_QUADRATIC, .n = 4,
         .eps = e1, .energy = u1, .force = f1}};
    ldem_etab et = {.count = 2, .tables = t};
    ldem_err err;
    unsigned char *d;
    uint64_t n;
    int rc = ldem_etab_encode(&et, &d, &n, &err);
    put(b, LDEM_TAG_ETAB, 0, rc, d, n, &err);
}

/* A cubic-spline table with linear extrapolation: F = ε + ε³ sampled, U from the library. */
static void add_etab_cubic(ldem_bundle *b)
{
    double e[5] = {0, 0.25, 0.5, 1, 1.5}, f[5], u[5];
    for (int k = 0; k < 5; k++)
        f[k] = e[k] + e[k] * e[k] * e[k];
    ldem_err err;
    if (ldem_energy_integrate(e, f, 5, LDEM_INTERP_CUBIC, u, &err))
        die("energy", &err);
    ldem_etab_table t = {.mode = 0, .interp = LDEM_INTERP_CUBIC,
                         .extrapolate = LDEM_EXTRAP_LINEAR, .n = 5, .eps = e, .energy = u,
                         .force = f};
    ldem_etab et = {.count = 1, .tables = &t};
    unsigned char *d;
    uint64_t n;
    int rc = ldem_etab_encode(&et, &d, &n, &err);
    put(b, LDEM_TAG_ETAB, 0, rc, d, n, &err);
}

/* Modal damping of 2 modes: ratio (in the full bundles) or Rayleigh. */
static void add_damp_kind(ldem_bundle *b, uint32_t kind)
{
    double zeta[2] = {0.02, 0.05}, omega[2] = {12.5, 40};
    double c[4] = {0.5, 0.125, 0.125, 4};
    ldem_damping dm = {.n = 2, .kind = kind, .zeta = zeta, .omega = omega, .c = c};
    if (kind == LDEM_DAMPING_RAYLEIGH) {
        dm.alpha = 0.25;
        dm.beta = 1e-3;
        zeta[0] = zeta[1] = 0;
    }
    ldem_err err;
    unsigned char *d;
    uint64_t n;
    int rc = ldem_damping_encode(&dm, &d, &n, &err);
    put(b, LDEM_TAG_DAMP, 0, rc, d, n, &err);
}

static void add_damp(ldem_bundle *b)
{
    add_damp_kind(b, LDEM_DAMPING_RATIO);
}

static void add_damp_rayleigh(ldem_bundle *b)
{
    add_damp_kind(b, LDEM_DAMPING_RAYLEIGH);
}

static void add_xtra(ldem_bundle *b)
{
    ldem_err err;
    if (ldem_bundle_put_copy(b, "XTRA", 0x5, "opaque\0\x01\xff", 9, &err))
        die("XTRA", &err);
}

static void full_bundle(ldem_bundle *b, int analytic)
{
    ldem_bundle_init(b);
    add_meta(b, analytic ? "beam" : "tetra");
    add_lset(b);
    add_nodes(b);
    add_xtra(b);
    add_body(b);
    add_modes(b, analytic);
    add_matrix(b, LDEM_TAG_KMAT, 4);
    add_matrix(b, LDEM_TAG_MMAT, 1);
    add_etab(b);
    add_damp(b);
}

static void save_bundle(const char *name, const ldem_bundle *b)
{
    blob s = write_bundle(b);
    save(name, &s);
    free(s.p);
}

/* A bundle with one section whose (valid) payload is patched after encoding; the writer
 * then computes a correct CRC, so only the typed decoder can object. */
typedef void (*patch_fn)(unsigned char *p, uint64_t n);

static void save_patched(const char *name, void (*add)(ldem_bundle *), const char *tag,
                         patch_fn patch)
{
    ldem_bundle b;
    ldem_bundle_init(&b);
    add(&b);
    ldem_section *s = &b.sections[0];
    if (strcmp(s->tag, tag))
        die("patched section not first", NULL);
    patch(s->data, s->length);
    save_bundle(name, &b);
    ldem_bundle_free(&b);
}

static void patch_lset_dims(unsigned char *p, uint64_t n)
{
    (void)n; /* 968973220 * 49477 * 384773 = 2^64 + 4 */
    ldem_put_u32le(p, 968973220u);
    ldem_put_u32le(p + 4, 49477u);
    ldem_put_u32le(p + 8, 384773u);
}

static void patch_node_triangle(unsigned char *p, uint64_t n)
{
    ldem_put_u32le(p + n - 4, 4); /* node 4 of 4 */
}

static void patch_body_inertia(unsigned char *p, uint64_t n)
{
    (void)n;
    ldem_put_f64le(p + 24, 10); /* 10 > 3 + 4 */
}

static void patch_mode_kind(unsigned char *p, uint64_t n)
{
    (void)n;
    ldem_put_u32le(p + 4, 7);
}

static void patch_mode_grid_wrap(unsigned char *p, uint64_t n)
{
    (void)n; /* grid points wrap to 4 */
    ldem_put_u32le(p + 16, 968973220u);
    ldem_put_u32le(p + 20, 49477u);
    ldem_put_u32le(p + 24, 384773u);
}

static void patch_kmat_nan(unsigned char *p, uint64_t n)
{
    (void)n;
    ldem_put_f64le(p + 16, NAN);
}

static void patch_etab_eps(unsigned char *p, uint64_t n)
{
    (void)n;
    ldem_put_f64le(p + 8 + 16 + 8, -0.1); /* table 0: eps[1] == eps[0] */
}

static void patch_etab_reserved_bits(unsigned char *p, uint64_t n)
{
    (void)n; /* table 0's interpolation field: bit 16 is reserved */
    ldem_put_u32le(p + 8 + 4, LDEM_INTERP_LINEAR | 1u << 16);
}

static void patch_etab_extrapolation(unsigned char *p, uint64_t n)
{
    (void)n; /* extrapolation 3 is unknown */
    ldem_put_u32le(p + 8 + 4, LDEM_INTERP_LINEAR | 3u << 8);
}

static void patch_etab_energy(unsigned char *p, uint64_t n)
{
    (void)n; /* table 0's U(ε_2) off by 1e-3: decodes, but ldem_energy_prepare refuses it */
    ldem_put_f64le(p + 8 + 16 + 3 * 8 + 2 * 8, 0.005 + 1e-3);
}

static void patch_damp_asymmetric(unsigned char *p, uint64_t n)
{
    (void)n; /* c[1][0] */
    ldem_put_f64le(p + 24 + 16 * 2 + 2 * 8, 0.25);
}

static void patch_damp_huge_n(unsigned char *p, uint64_t n)
{
    (void)n;
    ldem_put_u32le(p, 0xffffffffu);
}

static void patch_damp_descending(unsigned char *p, uint64_t n)
{
    (void)n; /* omega[1] < omega[0] */
    ldem_put_f64le(p + 24 + 2 * 8 + 8, 1.0);
}

static void patch_meta_newline(unsigned char *p, uint64_t n)
{
    p[n - 1] = ' ';
}

static void add_meta_only(ldem_bundle *b)
{
    add_meta(b, "x");
}

static void add_mode_sampled(ldem_bundle *b)
{
    add_modes(b, 0);
}

static void add_kmat(ldem_bundle *b)
{
    add_matrix(b, LDEM_TAG_KMAT, 3);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    outdir = argv[1];
    ldem_bundle b;

    /* One section type per file, then everything together. */
    void (*singles[])(ldem_bundle *) = {add_meta_only, add_lset, add_nodes, add_body,
                                        add_mode_sampled, add_kmat, add_etab, add_xtra,
                                        add_etab_cubic, add_damp, add_damp_rayleigh};
    const char *single_names[] = {"meta.ldg", "lset.ldg", "node.ldg", "body.ldg",
                                  "mode_sampled.ldg", "kmat.ldg", "etab.ldg", "xtra.ldg",
                                  "etab_cubic.ldg", "damp_ratio.ldg", "damp_rayleigh.ldg"};
    for (size_t i = 0; i < sizeof singles / sizeof singles[0]; i++) {
        ldem_bundle_init(&b);
        singles[i](&b);
        save_bundle(single_names[i], &b);
        ldem_bundle_free(&b);
    }
    ldem_bundle_init(&b);
    add_modes(&b, 1);
    save_bundle("mode_analytic.ldg", &b);
    ldem_bundle_free(&b);
    ldem_bundle_init(&b);
    add_matrix(&b, LDEM_TAG_MMAT, 1);
    save_bundle("mmat.ldg", &b);
    ldem_bundle_free(&b);
    ldem_bundle_init(&b);
    save_bundle("empty_bundle.ldg", &b);

    full_bundle(&b, 0);
    blob full = write_bundle(&b);
    save("full_sampled.ldg", &full);
    ldem_bundle_free(&b);
    full_bundle(&b, 1);
    blob full_analytic = write_bundle(&b);
    save("full_analytic.ldg", &full_analytic);
    ldem_bundle_free(&b);

    /* Concatenated: full, empty, analytic-mode bundle. */
    ldem_bundle_init(&b);
    blob empty = write_bundle(&b);
    ldem_bundle_init(&b);
    add_meta(&b, "third");
    add_modes(&b, 1);
    blob third = write_bundle(&b);
    ldem_bundle_free(&b);
    blob cat = {0};
    blob_add(&cat, full.p, full.n);
    blob_add(&cat, empty.p, empty.n);
    blob_add(&cat, third.p, third.n);
    save("concat3.ldg", &cat);
    /* ... and the same cut inside the third bundle. */
    blob cut = {cat.p, full.n + empty.n + third.n / 2};
    save("bad_concat_truncated.ldg", &cut);
    free(cat.p);

    /* Container corruptions of the full bundle. Offsets: header 16, META section first. */
    blob c = {0};
    blob_add(&c, full.p, full.n);
    c.p[16 + 16 + 3] ^= 0x04; /* a bit of META's payload */
    save("bad_crc_payload.ldg", &c);
    c.p[16 + 16 + 3] ^= 0x04;
    c.p[16 + 4] ^= 0x01; /* META's flags */
    save("bad_crc_flags.ldg", &c);
    c.p[16 + 4] ^= 0x01;
    c.p[1] = 'X';
    save("bad_magic.ldg", &c);
    c.p[1] = 'L';
    ldem_put_u32le(c.p + 8, 2);
    save("bad_version.ldg", &c);
    ldem_put_u32le(c.p + 8, 1);
    ldem_put_u64le(c.p + 16 + 8, UINT64_C(1) << 35);
    save("bad_huge_length.ldg", &c);
    ldem_put_u64le(c.p + 16 + 8, ldem_get_u64le(full.p + 16 + 8));
    memcpy(c.p + 16, "ME\x01" "A", 4);
    save("bad_tag.ldg", &c);
    memcpy(c.p + 16, "META", 4);
    ldem_put_u64le(c.p + c.n - 20 + 8, 4); /* end marker claiming 4 bytes */
    save("bad_end_marker.ldg", &c);
    ldem_put_u64le(c.p + c.n - 20 + 8, 0);
    c.n = full.n * 2 / 3;
    save("bad_truncated.ldg", &c);
    free(c.p);

    /* A duplicate META: a section's CRC does not depend on where it stands, so a verbatim
     * copy of the META section (with its CRC) inserted before the end marker is valid
     * except for being a duplicate. */
    uint64_t meta_len = ldem_get_u64le(full.p + 16 + 8);
    size_t meta_bytes = 16 + (size_t)meta_len + 4;
    blob d = {0};
    blob_add(&d, full.p, full.n - 20);
    blob_add(&d, full.p + 16, meta_bytes);
    blob_add(&d, full.p + full.n - 20, 20);
    save("bad_duplicate.ldg", &d);
    free(d.p);

    /* Valid containers, invalid payloads. */
    save_patched("bad_lset_dims_wrap.ldg", add_lset, LDEM_TAG_LSET, patch_lset_dims);
    save_patched("bad_node_triangle.ldg", add_nodes, LDEM_TAG_NODE, patch_node_triangle);
    save_patched("bad_body_inertia.ldg", add_body, LDEM_TAG_BODY, patch_body_inertia);
    save_patched("bad_mode_kind.ldg", add_mode_sampled, LDEM_TAG_MODE, patch_mode_kind);
    save_patched("bad_mode_grid_wrap.ldg", add_mode_sampled, LDEM_TAG_MODE,
                 patch_mode_grid_wrap);
    save_patched("bad_kmat_nan.ldg", add_kmat, LDEM_TAG_KMAT, patch_kmat_nan);
    save_patched("bad_etab_eps.ldg", add_etab, LDEM_TAG_ETAB, patch_etab_eps);
    save_patched("bad_meta_newline.ldg", add_meta_only, LDEM_TAG_META, patch_meta_newline);
    save_patched("bad_etab_reserved_bits.ldg", add_etab, LDEM_TAG_ETAB,
                 patch_etab_reserved_bits);
    save_patched("bad_etab_extrapolation.ldg", add_etab, LDEM_TAG_ETAB,
                 patch_etab_extrapolation);
    save_patched("etab_inconsistent_energy.ldg", add_etab, LDEM_TAG_ETAB, patch_etab_energy);
    save_patched("bad_damp_asymmetric.ldg", add_damp, LDEM_TAG_DAMP, patch_damp_asymmetric);
    save_patched("bad_damp_huge_n.ldg", add_damp, LDEM_TAG_DAMP, patch_damp_huge_n);
    save_patched("bad_damp_descending.ldg", add_damp_rayleigh, LDEM_TAG_DAMP,
                 patch_damp_descending);

    free(full.p);
    free(full_analytic.p);
    free(empty.p);
    free(third.p);
    return 0;
}
