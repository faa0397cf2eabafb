/* Candidate pairs in a periodic cell (ldem/sim/broadphase.h): ghost images of the bodies
 * near the faces, the plain cell-list search over bodies and ghosts, and each pair mapped
 * back to its two bodies with the image that joins them.
 *
 * Why ghosts rather than a wrapping grid: the plain search stays the one tested piece of
 * code, the cell may be any parallelepiped, and the list is rebuilt only when bodies moved
 * half a skin, so the extra bodies (a shell one reach thick: a third more for 4096 grains)
 * cost little. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "broadphase_internal.h"
#include "ldem/sim/cell.h"

/* Ghost shells are this much thicker than the reach, so that round-off in the fractional
 * coordinates can never leave out a ghost that a pair needs. */
#define SHELL_MARGIN (1.0 + 1.0 / 1024.0)

struct ldem_broadphase_ghosts {
    size_t capacity;          /* bodies + ghosts */
    ldem_vec3 *x;             /* bodies, then ghosts */
    double *r;
    uint32_t *owner;          /* ghosts: the body they copy (indexed like x) */
    int8_t *shift;            /* ghosts: m, 3 each (indexed like x) */
    size_t found_capacity;
    struct found { uint64_t key; int8_t image[3]; } *found;
    ldem_broadphase inner;    /* the plain search over bodies and ghosts */
};

void ldem__broadphase_ghosts_free(struct ldem_broadphase_ghosts *g)
{
    if (!g)
        return;
    free(g->x);
    free(g->r);
    free(g->owner);
    free(g->shift);
    free(g->found);
    ldem_broadphase_free(&g->inner);
    free(g);
}

static int reserve_ghosts(struct ldem_broadphase_ghosts *g, size_t need)
{
    if (need <= g->capacity)
        return 0;
    size_t cap = g->capacity ? g->capacity : 64;
    while (cap < need)
        cap *= 2;
    if (ldem__broadphase_resize((void **)&g->x, cap, sizeof *g->x) ||
        ldem__broadphase_resize((void **)&g->r, cap, sizeof *g->r) ||
        ldem__broadphase_resize((void **)&g->owner, cap, sizeof *g->owner) ||
        ldem__broadphase_resize((void **)&g->shift, 3 * cap, sizeof *g->shift))
        return -1;
    g->capacity = cap;
    return 0;
}

/* Append the ghosts of body i: every m ≠ 0 whose components each point toward a face
 * closer than the shell (fractional thickness f per direction). */
static int add_ghosts(struct ldem_broadphase_ghosts *g, size_t *count, const ldem_cell *cell,
                      uint32_t i, ldem_vec3 x, double r, const double f[3])
{
    ldem_vec3 s = ldem_cell_fractional(cell, x);
    double sc[3] = {s.x, s.y, s.z};
    int lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = sc[k] >= 1.0 - f[k] ? -1 : 0; /* near the upper face: an image one cell down */
        hi[k] = sc[k] < f[k] ? 1 : 0;         /* near the lower face: an image one cell up */
    }
    for (int a = lo[0]; a <= hi[0]; a++)
        for (int b = lo[1]; b <= hi[1]; b++)
            for (int c = lo[2]; c <= hi[2]; c++) {
                if (!a && !b && !c)
                    continue;
                if (reserve_ghosts(g, *count + 1))
                    return -1;
                int32_t m[3] = {a, b, c};
                size_t k = *count;
                g->x[k] = ldem_vec3_add(x, ldem_cell_offset(&cell->h, m));
                g->r[k] = r;
                g->owner[k] = i;
                g->shift[3 * k] = (int8_t)a;
                g->shift[3 * k + 1] = (int8_t)b;
                g->shift[3 * k + 2] = (int8_t)c;
                (*count)++;
            }
    return 0;
}

static int cmp_found(const void *a, const void *b)
{
    uint64_t u = ((const struct found *)a)->key, v = ((const struct found *)b)->key;
    return (u > v) - (u < v);
}

int ldem_broadphase_pairs_periodic(ldem_broadphase *bp, size_t n, const ldem_vec3 *x,
                                   const double *r, double skin, const ldem_cell *cell,
                                   ldem_err *err)
{
    bp->npairs = 0;
    bp->nghosts = 0;
    double rmax = 0.0;
    for (size_t i = 0; i < n; i++)
        rmax = r[i] > rmax ? r[i] : rmax;
    double reach = (rmax + rmax) + skin;
    static const char axis[] = "abc";
    double f[3];
    for (int k = 0; k < 3; k++) {
        double width = ldem_cell_width(&cell->h, k);
        if (!(width > 2.0 * reach * SHELL_MARGIN) && n > 0)
            return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                "periodic cell: its width across edge %c is %g, less than twice "
                                "the interaction reach 2 r_max + skin = %g (a grain could touch "
                                "two images of another): enlarge the cell",
                                axis[k], width, reach);
        f[k] = reach * SHELL_MARGIN / width;
    }
    if (!bp->ghosts && !(bp->ghosts = calloc(1, sizeof *bp->ghosts)))
        goto nomem;
    struct ldem_broadphase_ghosts *g = bp->ghosts;
    if (reserve_ghosts(g, n + 1))
        goto nomem;
    memcpy(g->x, x, n * sizeof *x);
    memcpy(g->r, r, n * sizeof *r);
    size_t count = n;
    for (size_t i = 0; i < n; i++)
        if (add_ghosts(g, &count, cell, (uint32_t)i, x[i], r[i], f))
            goto nomem;
    bp->nghosts = count - n;
    int rc = ldem_broadphase_pairs(&g->inner, count, g->x, g->r, skin, err);
    if (rc)
        return rc;
    /* Keep pairs with at least one real body: real–real as they are, real–ghost mapped to
     * (min, max) with the image seen from the smaller index. */
    size_t npairs = g->inner.npairs;
    if (ldem__broadphase_reserve((void **)&g->found, &g->found_capacity, npairs, sizeof *g->found))
        goto nomem;
    size_t kept = 0;
    for (size_t p = 0; p < npairs; p++) {
        uint32_t a = ldem_pair_i(g->inner.pairs[p]), b = ldem_pair_j(g->inner.pairs[p]);
        if (a >= n)
            continue; /* two ghosts: their bodies meet as a real pair or a real–ghost pair */
        struct found *out = &g->found[kept];
        if (b < n) {
            out->key = ldem_pair_key(a, b);
            memset(out->image, 0, sizeof out->image);
        } else {
            uint32_t o = g->owner[b];
            const int8_t *m = &g->shift[3 * (size_t)b];
            if (o == a)
                continue; /* cannot happen in a cell wider than twice the reach */
            int sign = a < o ? 1 : -1;
            out->key = a < o ? ldem_pair_key(a, o) : ldem_pair_key(o, a);
            for (int k = 0; k < 3; k++)
                out->image[k] = (int8_t)(sign * m[k]);
        }
        kept++;
    }
    /* A pair across a face is found from both sides (a with b's ghost, b with a's): sort and
     * keep one. The inner list is sorted by extended index, so this order is deterministic. */
    if (kept > 1) /* g->found is NULL while no pair has ever been found */
        qsort(g->found, kept, sizeof *g->found, cmp_found);
    if (ldem__broadphase_reserve((void **)&bp->pairs, &bp->pairs_capacity, kept,
                                 sizeof *bp->pairs) ||
        ldem__broadphase_reserve((void **)&bp->image, &bp->image_capacity, 3 * kept,
                                 sizeof *bp->image))
        goto nomem;
    size_t m = 0;
    for (size_t p = 0; p < kept; p++) {
        if (m && bp->pairs[m - 1] == g->found[p].key)
            continue;
        bp->pairs[m] = g->found[p].key;
        memcpy(&bp->image[3 * m], g->found[p].image, 3);
        m++;
    }
    bp->npairs = m;
    bp->ncells = g->inner.ncells;
    bp->hashed = g->inner.hashed;
    return LDEM_OK;
nomem:
    bp->npairs = 0;
    return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0,
                        "out of memory in the periodic broad phase (%zu bodies)", n);
}
