/* measure.c — coordination, fabric, force statistics, and a boxed sample's solid fraction and
 * stress (ldem/sim/measure.h).
 */
#include "ldem/sim/measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

int ldem_walls_box(const ldem_world *w, ldem_vec3 *lo, ldem_vec3 *hi)
{
    double l[3] = {-INFINITY, -INFINITY, -INFINITY}, h[3] = {INFINITY, INFINITY, INFINITY};
    int seen[3][2] = {{0}};
    for (size_t k = 0; k < w->nwalls; k++) {
        const ldem_wall *wl = &w->walls[k];
        if (wl->kind != LDEM_WALL_PLANE)
            return 0;
        double n[3] = {wl->normal.x, wl->normal.y, wl->normal.z};
        ldem_vec3 p = ldem_vec3_add(wl->origin, wl->disp);
        double pa[3] = {p.x, p.y, p.z};
        int axis = -1;
        for (int a = 0; a < 3; a++)
            if (fabs(fabs(n[a]) - 1.0) < 1e-12)
                axis = a;
        if (axis < 0)
            return 0;
        int up = n[axis] > 0.0; /* grains above it: a lower bound */
        if (seen[axis][up])
            return 0;
        seen[axis][up] = 1;
        if (up)
            l[axis] = pa[axis];
        else
            h[axis] = pa[axis];
    }
    for (int a = 0; a < 3; a++)
        if (!seen[a][0] || !seen[a][1] || !(h[a] > l[a]))
            return 0;
    *lo = ldem_vec3_make(l[0], l[1], l[2]);
    *hi = ldem_vec3_make(h[0], h[1], h[2]);
    return 1;
}

/* Volume of a sphere's cap beyond a plane at distance d < r from its centre. */
static double cap(double r, double d)
{
    double hh = r - d;
    return hh <= 0.0 ? 0.0 : hh >= 2.0 * r ? 4.0 / 3.0 * PI * r * r * r
                                           : PI * hh * hh * (3.0 * r - hh) / 3.0;
}

/* Rattler removal: counts[i] holds each grain's contacts (grains and walls); grains below
 * the threshold are removed with their grain contacts, until none is. */
static void find_rattlers(const ldem_world *w, unsigned *counts, unsigned char *rattler)
{
    const ldem_bodies *b = &w->bodies;
    int changed = 1;
    while (changed) {
        changed = 0;
        for (size_t i = 0; i < b->count; i++)
            if (!rattler[i] && !(b->flags[i] & LDEM_BODY_FIXED) &&
                counts[i] < LDEM_RATTLER_CONTACTS) {
                rattler[i] = 1;
                changed = 1;
                for (size_t k = 0; k < w->ncontacts; k++) {
                    const ldem_contact *c = &w->contacts[k];
                    if (!ldem_contact_touching(c) || (c->j & LDEM_WALL_BIT))
                        continue;
                    if (c->i == i && !rattler[c->j])
                        counts[c->j]--;
                    else if (c->j == i && !rattler[c->i])
                        counts[c->i]--;
                }
            }
    }
}

void ldem_packing_measure(const ldem_world *w, ldem_packing_measures *m)
{
    memset(m, 0, sizeof *m);
    const ldem_bodies *b = &w->bodies;
    unsigned *grain = calloc(b->count ? b->count : 1, sizeof *grain);
    unsigned *all = calloc(b->count ? b->count : 1, sizeof *all);
    unsigned char *rattler = calloc(b->count ? b->count : 1, 1);
    if (!grain || !all || !rattler) {
        free(grain), free(all), free(rattler);
        m->coordination = NAN;
        return;
    }
    size_t contacts = 0;
    double fsum = 0.0, f2 = 0.0;
    double fab[6] = {0};
    for (size_t k = 0; k < w->ncontacts; k++) {
        const ldem_contact *c = &w->contacts[k];
        if (!ldem_contact_touching(c))
            continue;
        all[c->i]++;
        if (c->j & LDEM_WALL_BIT)
            continue;
        all[c->j]++, grain[c->i]++, grain[c->j]++;
        contacts++;
        double f = ldem_vec3_norm(c->fn);
        fsum += f, f2 += f * f;
        m->fn_max = f > m->fn_max ? f : m->fn_max;
        ldem_vec3 n = c->normal;
        fab[0] += n.x * n.x, fab[1] += n.y * n.y, fab[2] += n.z * n.z;
        fab[3] += n.x * n.y, fab[4] += n.y * n.z, fab[5] += n.z * n.x;
    }
    size_t nfree = 0, n0 = 0, n1 = 0;
    for (size_t i = 0; i < b->count; i++) {
        if (b->flags[i] & LDEM_BODY_FIXED)
            continue;
        nfree++;
        n0 += grain[i] == 0;
        n1 += grain[i] == 1;
    }
    m->coordination = nfree ? 2.0 * (double)contacts / (double)nfree : 0.0;
    double denominator = (double)nfree - (double)n0 - (double)n1;
    m->mech_coordination = denominator > 0.0 ? (2.0 * (double)contacts - (double)n1) / denominator
                                             : 0.0;
    if (contacts) {
        for (int a = 0; a < 6; a++)
            m->fabric[a] = fab[a] / (double)contacts;
        m->fn_mean = fsum / (double)contacts;
        double var = f2 / (double)contacts - m->fn_mean * m->fn_mean;
        m->fn_std = var > 0.0 ? sqrt(var) : 0.0;
    }
    find_rattlers(w, all, rattler);
    size_t kept = 0, kept_contacts = 0;
    for (size_t i = 0; i < b->count; i++)
        kept += !(b->flags[i] & LDEM_BODY_FIXED) && !rattler[i];
    for (size_t k = 0; k < w->ncontacts; k++) {
        const ldem_contact *c = &w->contacts[k];
        kept_contacts += ldem_contact_touching(c) && !(c->j & LDEM_WALL_BIT) && !rattler[c->i] &&
                         !rattler[c->j];
    }
    m->coordination_nr = kept ? 2.0 * (double)kept_contacts / (double)kept : 0.0;
    m->rattlers = nfree ? (double)(nfree - kept) / (double)nfree : 0.0;

    ldem_vec3 lo, hi;
    m->in_box = !w->cell.periodic && ldem_walls_box(w, &lo, &hi);
    if (m->in_box) {
        m->box_volume = (hi.x - lo.x) * (hi.y - lo.y) * (hi.z - lo.z);
        double solid = 0.0;
        for (size_t i = 0; i < b->count; i++) {
            double v = b->mass[i] / w->materials[b->material[i]].density;
            if (b->kind[i] == LDEM_SHAPE_SPHERE) {
                /* caps beyond each wall: exact unless two walls cut the same sphere's corner
                 * (their common part, third order in the overlaps, is counted twice) */
                double r = b->radius[i];
                ldem_vec3 x = b->x[i];
                v -= cap(r, x.x - lo.x) + cap(r, hi.x - x.x) + cap(r, x.y - lo.y) +
                     cap(r, hi.y - x.y) + cap(r, x.z - lo.z) + cap(r, hi.z - x.z);
            }
            solid += v;
        }
        m->solid_fraction = solid / m->box_volume;
        double s[3][3] = {{0}};
        for (size_t k = 0; k < w->ncontacts; k++) {
            const ldem_contact *c = &w->contacts[k];
            if (!ldem_contact_touching(c))
                continue;
            ldem_vec3 f = ldem_vec3_add(c->fn, c->ft); /* on j, or on the wall */
            ldem_vec3 l = (c->j & LDEM_WALL_BIT) ? ldem_vec3_sub(c->point, b->x[c->i])
                                                 : ldem_vec3_sub(b->x[c->j], b->x[c->i]);
            double fa[3] = {f.x, f.y, f.z}, la[3] = {l.x, l.y, l.z};
            for (int a = 0; a < 3; a++)
                for (int bb = 0; bb < 3; bb++)
                    s[a][bb] += la[a] * fa[bb];
        }
        double v = m->box_volume;
        m->stress[0] = s[0][0] / v, m->stress[1] = s[1][1] / v, m->stress[2] = s[2][2] / v;
        m->stress[3] = 0.5 * (s[0][1] + s[1][0]) / v;
        m->stress[4] = 0.5 * (s[1][2] + s[2][1]) / v;
        m->stress[5] = 0.5 * (s[2][0] + s[0][2]) / v;
    }
    free(grain), free(all), free(rattler);
}
