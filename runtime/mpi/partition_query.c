/* runtime/mpi/partition_query.c — who owns a point, whose regions a box touches: Zoltan's
 * kept cuts (KEEP_CUTS), asked locally, without communication. */
#include "partition_private.h"

#include <math.h>

static int check_balanced(const ldem_partition *p, const char *call, ldem_err *err)
{
    if (!p->balanced)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "partition: %s before a successful ldem_partition_balance", call);
    return LDEM_OK;
}

static int finite3(ldem_vec3 v)
{
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

int ldem_partition_point_owner(const ldem_partition *p, ldem_vec3 x, int *rank, ldem_err *err)
{
    int st = check_balanced(p, "ldem_partition_point_owner", err);
    if (st != LDEM_OK)
        return st;
    if (!finite3(x))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "partition: point (%g, %g, %g) is not finite", x.x, x.y, x.z);
    double c[3] = {x.x, x.y, x.z};
    int proc = -1;
    int zst = Zoltan_LB_Point_Assign(p->zz, c, &proc);
    if (zst != ZOLTAN_OK || proc < 0 || proc >= p->nranks)
        return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                            "partition: Zoltan_LB_Point_Assign failed (Zoltan status %d)", zst);
    *rank = proc;
    return LDEM_OK;
}

int ldem_partition_box_ranks(const ldem_partition *p, ldem_vec3 lo, ldem_vec3 hi, int *ranks,
                             int *nranks, ldem_err *err)
{
    int st = check_balanced(p, "ldem_partition_box_ranks", err);
    if (st != LDEM_OK)
        return st;
    if (!finite3(lo) || !finite3(hi) || lo.x > hi.x || lo.y > hi.y || lo.z > hi.z)
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "partition: box (%g, %g, %g) to (%g, %g, %g) is not a finite box "
                            "with lo <= hi", lo.x, lo.y, lo.z, hi.x, hi.y, hi.z);
    /* Zoltan writes up to one entry per rank into ranks[]: the header asks for that room. */
    int count = 0;
    int zst = Zoltan_LB_Box_Assign(p->zz, lo.x, lo.y, lo.z, hi.x, hi.y, hi.z, ranks, &count);
    if (zst != ZOLTAN_OK || count < 0 || count > p->nranks)
        return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                            "partition: Zoltan_LB_Box_Assign failed (Zoltan status %d)", zst);
    *nranks = count;
    return LDEM_OK;
}
