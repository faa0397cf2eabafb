/* output_packing.c — the grains' last positions as a placement table (ldem/sim/output.h),
 * which a scene's `grains: - file:` entry reads back: a prepared packing handed from one
 * run to the next (a frictionless compaction to a frictional test, say, which a checkpoint
 * cannot carry since it refuses a change of law).
 *
 * Rows go in input order (bodies.id), whatever `order` says, so the file lists the grains
 * as the scene that made them did. In a periodic cell every centre is wrapped into the cell
 * (the run only wraps them at neighbour-list builds). Doubles are %.17g: strtod reads them
 * back bit for bit.
 */
#include "ldem/sim/output.h"

#include <inttypes.h>
#include <stdlib.h>

#include "ldem/outfile.h"

static int orthogonal(const ldem_mat3 *h)
{
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            if (a != b && h->m[a][b] != 0.0)
                return 0;
    return 1;
}

static void put_cell(FILE *fp, const ldem_cell *c)
{
    const ldem_mat3 *h = &c->h;
    if (orthogonal(h)) {
        double lo[3], hi[3];
        const double centre[3] = {c->centre.x, c->centre.y, c->centre.z};
        for (int k = 0; k < 3; k++) {
            lo[k] = centre[k] - 0.5 * h->m[k][k];
            hi[k] = lo[k] + h->m[k][k];
        }
        fprintf(fp, "# box_lo %.17g %.17g %.17g\n", lo[0], lo[1], lo[2]);
        fprintf(fp, "# box_hi %.17g %.17g %.17g\n", hi[0], hi[1], hi[2]);
        return;
    }
    fputs("# cell_vectors", fp);
    for (int col = 0; col < 3; col++)
        for (int row = 0; row < 3; row++)
            fprintf(fp, " %.17g", h->m[row][col]);
    fprintf(fp, "\n# cell_centre %.17g %.17g %.17g\n", c->centre.x, c->centre.y, c->centre.z);
}

/* Body i's centre, wrapped into the cell when there is one. */
static ldem_vec3 centre_of(const ldem_world *w, size_t i)
{
    ldem_vec3 x = w->bodies.x[i];
    if (!w->cell.periodic)
        return x;
    int32_t m[3];
    ldem_cell_wrap_shift(&w->cell, x, m);
    if (!m[0] && !m[1] && !m[2])
        return x;
    return ldem_vec3_sub(x, ldem_cell_offset(&w->cell.h, m));
}

int ldem_packing_write(const char *path, const ldem_world *w, ldem_err *err)
{
    const ldem_bodies *b = &w->bodies;
    for (size_t i = 0; i < b->count; i++)
        if (b->kind[i] != LDEM_SHAPE_SPHERE)
            return ldem_err_set(err, LDEM_ERR_USAGE, path, 0,
                                "a packing holds spheres only; grain %" PRIu32
                                " is a level-set grain",
                                b->id[i]);
    /* body index by input index */
    size_t *body = malloc((b->count ? b->count : 1) * sizeof *body);
    if (!body)
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "out of memory for the packing");
    for (size_t i = 0; i < b->count; i++)
        body[i] = SIZE_MAX;
    for (size_t i = 0; i < b->count; i++)
        if (b->id[i] < b->count)
            body[b->id[i]] = i;
    for (size_t k = 0; k < b->count; k++)
        if (body[k] == SIZE_MAX) {
            free(body);
            return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                                "the grains' input indices are not a permutation");
        }
    ldem_outfile of;
    int rc = ldem_outfile_open(&of, path, err);
    if (rc) {
        free(body);
        return rc;
    }
    fprintf(of.fp, "# demrun packing: %zu spheres at step %" PRIu64 ", t = %.17g\n", b->count,
            w->step, w->t);
    if (w->cell.periodic)
        put_cell(of.fp, &w->cell);
    fputs("id\tx\ty\tz\tradius\n", of.fp);
    for (size_t k = 0; k < b->count; k++) {
        size_t i = body[k];
        ldem_vec3 x = centre_of(w, i);
        fprintf(of.fp, "%zu\t%.17g\t%.17g\t%.17g\t%.17g\n", k, x.x, x.y, x.z, b->radius[i]);
    }
    free(body);
    return ldem_outfile_commit(&of, err);
}
