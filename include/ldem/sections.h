/* ldem/sections.h — typed payloads of the grain-bundle sections (layouts: docs/bundle.md).
 *
 * Each section type is a plain struct with encode (struct → payload bytes) and decode
 * (payload → struct, fully validated) functions; decoders report what is wrong with the
 * section's tag and the byte offset in the stream. Geometry is in the grain's body frame
 * (origin at the centre of mass, axes along the principal axes of inertia) unless noted.
 * All sizes in the payloads are little-endian; doubles are IEEE binary64, level-set values
 * binary32 (halves the memory of the largest section).
 */
#ifndef LDEM_SECTIONS_H
#define LDEM_SECTIONS_H

#include "ldem/export.h"

#include <stdint.h>

#include "ldem/bundle.h"
#include "ldem/err.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LDEM_TAG_META "META"
#define LDEM_TAG_LSET "LSET"
#define LDEM_TAG_NODE "NODE"
#define LDEM_TAG_BODY "BODY"
#define LDEM_TAG_MODE "MODE"
#define LDEM_TAG_KMAT "KMAT"
#define LDEM_TAG_MMAT "MMAT"
#define LDEM_TAG_ETAB "ETAB"
#define LDEM_TAG_DAMP "DAMP"

/* ---- META: "key=value\n" lines (UTF-8). Keys [A-Za-z0-9_.-]+, unique; values one line. */
typedef struct ldem_meta {
    size_t count, capacity;
    char **keys;
    char **values;
} ldem_meta;

LDEM_API void ldem_meta_init(ldem_meta *m);
LDEM_API void ldem_meta_free(ldem_meta *m);
LDEM_API const char *ldem_meta_get(const ldem_meta *m, const char *key);
/* Set or replace; validates key and value. */
LDEM_API int ldem_meta_set(ldem_meta *m, const char *key, const char *value, ldem_err *err);
LDEM_API int ldem_meta_encode(const ldem_meta *m, unsigned char **data, uint64_t *len,
                              ldem_err *err);
LDEM_API int ldem_meta_decode(const ldem_section *s, const char *source, ldem_meta *m,
                              ldem_err *err);

/* ---- LSET: signed distance φ (negative inside) on a regular grid, x fastest. */
typedef struct ldem_lset {
    uint32_t dims[3];     /* grid nodes per axis, each >= 2 */
    double origin[3];     /* position of node (0,0,0) */
    double spacing[3];    /* > 0 */
    float *phi;           /* dims[0]*dims[1]*dims[2] values, index i + nx*(j + ny*k) */
} ldem_lset;

LDEM_API void ldem_lset_free(ldem_lset *ls);
LDEM_API uint64_t ldem_lset_count(const ldem_lset *ls);
LDEM_API int ldem_lset_encode(const ldem_lset *ls, unsigned char **data, uint64_t *len,
                              ldem_err *err);
LDEM_API int ldem_lset_decode(const ldem_section *s, const char *source, ldem_lset *ls,
                              ldem_err *err);

/* ---- NODE: surface nodes with outward normals and area weights, and the surface
 * triangles connecting them (for drawing the grain). */
typedef struct ldem_nodes {
    uint64_t count;
    double *position;     /* 3*count */
    double *normal;       /* 3*count, unit */
    double *area;         /* count, >= 0 */
    uint64_t ntriangles;
    uint32_t *triangles;  /* 3*ntriangles node indices, counter-clockwise seen from outside */
} ldem_nodes;

LDEM_API void ldem_nodes_free(ldem_nodes *n);
LDEM_API int ldem_nodes_encode(const ldem_nodes *n, unsigned char **data, uint64_t *len,
                               ldem_err *err);
LDEM_API int ldem_nodes_decode(const ldem_section *s, const char *source, ldem_nodes *n,
                               ldem_err *err);

/* ---- BODY: mass properties and the geometry → body frame transform:
 *   x_geometry = centroid + rotate(orientation, x_body). */
typedef struct ldem_body {
    double volume;
    double density;
    double mass;
    double inertia[3];      /* principal moments about the centre of mass */
    double centroid[3];     /* centre of mass in the geometry (input) frame */
    double orientation[4];  /* unit quaternion (w, x, y, z): body axes in the geometry frame */
} ldem_body;

LDEM_API int ldem_body_encode(const ldem_body *b, unsigned char **data, uint64_t *len,
                              ldem_err *err);
LDEM_API int ldem_body_decode(const ldem_section *s, const char *source, ldem_body *b,
                              ldem_err *err);

/* ---- MODE: deformation modes Φα. Sampled modes carry vector values at the surface nodes
 * (same order as NODE) and, optionally, a vector field on a regular grid for level-set
 * remap; analytic modes carry a text descriptor (e.g. "beam-bending length=160 axis=x"),
 * and may carry sampled values too. */
enum ldem_mode_kind { LDEM_MODE_SAMPLED = 0, LDEM_MODE_ANALYTIC = 1 };

typedef struct ldem_modes {
    uint32_t count;            /* number of modes */
    uint32_t kind;             /* enum ldem_mode_kind */
    uint64_t nnodes;           /* surface nodes sampled (0 if none) */
    double *node_values;       /* count × nnodes × 3, mode-major */
    uint32_t grid_dims[3];     /* all 0 when there is no grid field */
    double grid_origin[3];
    double grid_spacing[3];
    float *grid_values;        /* count × (nx·ny·nz) × 3, x fastest within a mode */
    char *descriptor;          /* NUL-terminated, NULL if none */
} ldem_modes;

LDEM_API void ldem_modes_free(ldem_modes *m);
LDEM_API int ldem_modes_encode(const ldem_modes *m, unsigned char **data, uint64_t *len,
                               ldem_err *err);
LDEM_API int ldem_modes_decode(const ldem_section *s, const char *source, ldem_modes *m,
                               ldem_err *err);

/* ---- KMAT / MMAT: generalized stiffness and mass, n × n, row-major. */
typedef struct ldem_matrix {
    uint32_t n;
    double *a;
} ldem_matrix;

LDEM_API void ldem_matrix_free(ldem_matrix *m);
LDEM_API int ldem_matrix_encode(const ldem_matrix *m, unsigned char **data, uint64_t *len,
                                ldem_err *err);
LDEM_API int ldem_matrix_decode(const ldem_section *s, const char *source, ldem_matrix *m,
                                ldem_err *err);

/* ---- ETAB: nonlinear modal energy tables, one per mode: samples ε → U(ε), F(ε). */
enum ldem_interp {
    LDEM_INTERP_LINEAR = 0,   /* piecewise linear in F; U integrated consistently */
    LDEM_INTERP_CUBIC = 1,    /* natural cubic spline */
    LDEM_INTERP_PCHIP = 2     /* monotone piecewise cubic Hermite */
};

/* Beyond the table's range (stored in bits 8-15 of the interpolation field). */
enum ldem_extrapolate {
    LDEM_EXTRAP_NONE = 0,       /* evaluating outside the table is an error */
    LDEM_EXTRAP_LINEAR = 1,     /* F continues linearly (U quadratic) */
    LDEM_EXTRAP_QUADRATIC = 2   /* F continues quadratically */
};

typedef struct ldem_etab_table {
    uint32_t mode;            /* index into the MODE section */
    uint32_t interp;          /* enum ldem_interp */
    uint32_t extrapolate;     /* enum ldem_extrapolate */
    uint64_t n;               /* samples, >= 2 */
    double *eps;              /* strictly increasing */
    double *energy;           /* U(ε) */
    double *force;            /* F(ε) = dU/dε */
} ldem_etab_table;

typedef struct ldem_etab {
    uint32_t count;
    ldem_etab_table *tables;
} ldem_etab;

LDEM_API void ldem_etab_free(ldem_etab *t);
LDEM_API int ldem_etab_encode(const ldem_etab *t, unsigned char **data, uint64_t *len,
                              ldem_err *err);
LDEM_API int ldem_etab_decode(const ldem_section *s, const char *source, ldem_etab *t,
                              ldem_err *err);
LDEM_API const char *ldem_interp_name(uint32_t interp);
LDEM_API const char *ldem_extrapolate_name(uint32_t extrapolate);

/* ---- DAMP: modal damping and natural frequencies that go with KMAT/MMAT. */
enum ldem_damping_kind {
    LDEM_DAMPING_NONE = 0,
    LDEM_DAMPING_RAYLEIGH = 1,   /* C = alpha M + beta K */
    LDEM_DAMPING_RATIO = 2       /* ratio zeta[k] on each energy-orthogonal mode */
};

typedef struct ldem_damping {
    uint32_t n;          /* number of modes (as KMAT/MMAT) */
    uint32_t kind;       /* enum ldem_damping_kind */
    double alpha, beta;  /* Rayleigh coefficients (0 unless Rayleigh) */
    double *zeta;        /* n ratios (0 unless ratio) */
    double *omega;       /* n natural angular frequencies sqrt(eig(K, M)), ascending, > 0 */
    double *c;           /* n*n damping matrix C, row-major, symmetric */
} ldem_damping;

LDEM_API void ldem_damping_free(ldem_damping *d);
LDEM_API int ldem_damping_encode(const ldem_damping *d, unsigned char **data, uint64_t *len,
                                 ldem_err *err);
LDEM_API int ldem_damping_decode(const ldem_section *s, const char *source, ldem_damping *d,
                                 ldem_err *err);
LDEM_API const char *ldem_damping_kind_name(uint32_t kind);

#ifdef __cplusplus
}
#endif
#endif
