/* tests/mpi/test_partition.c — libldem-mpi's partition (ldem/mpi/partition.h) on the 4096
 * spheres of data/packings/packing_4096.tsv, run under mpirun on 1, 2 and 3 ranks.
 *
 * A plain program, not Criterion: Criterion forks a process per test, and an MPI process
 * does not survive a fork. Every check is made on every rank at the same point, and the
 * ranks agree on the outcome (MPI_Allreduce), so a failure on one rank fails all of them and
 * none is left waiting in a collective call.
 *
 * usage: mpirun -np N test_partition PACKING.tsv
 * Rank 0 prints one line per case (method, initial distribution, imbalance, times). */
#include "ldem/mpi/partition.h"
#include "ldem/tsv.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nranks;
static int failures;  /* on this rank, since the last agreement */

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "test_partition: rank %d: ", rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    failures++;
}

/* Did any rank fail? Collective. */
static int any_failed(void)
{
    int mine = failures > 0, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "test_partition: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* The packing, as every rank reads it, and this rank's share. */
struct bodies {
    size_t n;
    uint64_t *gid;
    ldem_vec3 *x;
    double *w;
};

static void bodies_free(struct bodies *b)
{
    free(b->gid);
    free(b->x);
    free(b->w);
    memset(b, 0, sizeof *b);
}

/* Ids use both 32-bit words of the uint64 (the partition passes them to Zoltan as two). */
static uint64_t gid_of(double id)
{
    uint64_t i = (uint64_t)id;
    return (i << 32) | (0xffffffffu - (uint32_t)i);
}

static int load_packing(const char *path, struct bodies *all)
{
    ldem_table t = {0};
    ldem_err err;
    ldem_err_clear(&err);
    if (ldem_tsv_read_path(path, &t, &err) != LDEM_OK) {
        ldem_err_print(&err, "test_partition", stderr);
        return -1;
    }
    long cid = ldem_table_column(&t, "id"), cx = ldem_table_column(&t, "x"),
         cy = ldem_table_column(&t, "y"), cz = ldem_table_column(&t, "z");
    if (cid < 0 || cx < 0 || cy < 0 || cz < 0) {
        fprintf(stderr, "test_partition: %s: expected columns id, x, y, z\n", path);
        ldem_table_free(&t);
        return -1;
    }
    all->n = t.nrows;
    all->gid = xcalloc(t.nrows, sizeof *all->gid);
    all->x = xcalloc(t.nrows, sizeof *all->x);
    all->w = xcalloc(t.nrows, sizeof *all->w);
    for (size_t i = 0; i < t.nrows; i++) {
        const double *row = t.values + i * t.ncols;
        all->gid[i] = gid_of(row[cid]);
        all->x[i] = ldem_vec3_make(row[cx], row[cy], row[cz]);
        all->w[i] = i % 7 == 0 ? 5.0 : 1.0;  /* every 7th body does five times the work */
    }
    ldem_table_free(&t);
    return 0;
}

enum distribution { ALL_ON_ROOT, BLOCKS };
static const char *const distribution_name[] = {"all-on-rank-0", "blocks"};

static void take_share(const struct bodies *all, enum distribution d, struct bodies *mine)
{
    size_t lo = 0, hi = 0;
    if (d == ALL_ON_ROOT) {
        hi = rank == 0 ? all->n : 0;
    } else {
        lo = all->n * (size_t)rank / (size_t)nranks;
        hi = all->n * (size_t)(rank + 1) / (size_t)nranks;
    }
    mine->n = hi - lo;
    mine->gid = xcalloc(mine->n, sizeof *mine->gid);
    mine->x = xcalloc(mine->n, sizeof *mine->x);
    mine->w = xcalloc(mine->n, sizeof *mine->w);
    memcpy(mine->gid, all->gid + lo, mine->n * sizeof *mine->gid);
    memcpy(mine->x, all->x + lo, mine->n * sizeof *mine->x);
    memcpy(mine->w, all->w + lo, mine->n * sizeof *mine->w);
}

/* Every rank's bodies with their new owners, on every rank: the brute-force side. */
struct gathered {
    size_t n;
    uint64_t *gid;
    ldem_vec3 *x;
    double *w;
    int *owner;
};

static void gathered_free(struct gathered *g)
{
    free(g->gid);
    free(g->x);
    free(g->w);
    free(g->owner);
    memset(g, 0, sizeof *g);
}

static void gather_all(const struct bodies *mine, const int *owner, struct gathered *g)
{
    int n = (int)mine->n;
    int *counts = xcalloc((size_t)nranks, sizeof *counts);
    int *displs = xcalloc((size_t)nranks, sizeof *displs);
    int *counts3 = xcalloc((size_t)nranks, sizeof *counts3);
    int *displs3 = xcalloc((size_t)nranks, sizeof *displs3);
    MPI_Allgather(&n, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    size_t total = 0;
    for (int r = 0; r < nranks; r++) {
        displs[r] = (int)total;
        counts3[r] = 3 * counts[r];
        displs3[r] = 3 * displs[r];
        total += (size_t)counts[r];
    }
    g->n = total;
    g->gid = xcalloc(total, sizeof *g->gid);
    g->x = xcalloc(total, sizeof *g->x);
    g->w = xcalloc(total, sizeof *g->w);
    g->owner = xcalloc(total, sizeof *g->owner);
    MPI_Allgatherv(mine->gid, n, MPI_UINT64_T, g->gid, counts, displs, MPI_UINT64_T,
                   MPI_COMM_WORLD);
    MPI_Allgatherv(mine->x, 3 * n, MPI_DOUBLE, g->x, counts3, displs3, MPI_DOUBLE,
                   MPI_COMM_WORLD);
    MPI_Allgatherv(mine->w, n, MPI_DOUBLE, g->w, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Allgatherv(owner, n, MPI_INT, g->owner, counts, displs, MPI_INT, MPI_COMM_WORLD);
    free(counts);
    free(displs);
    free(counts3);
    free(displs3);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Every body of the packing has exactly one owner, a valid rank. */
static void check_ownership(const struct bodies *all, const struct gathered *g)
{
    if (g->n != all->n) {
        fail("%zu bodies after partitioning, expected %zu", g->n, all->n);
        return;
    }
    uint64_t *want = xcalloc(all->n, sizeof *want), *got = xcalloc(g->n, sizeof *got);
    memcpy(want, all->gid, all->n * sizeof *want);
    memcpy(got, g->gid, g->n * sizeof *got);
    qsort(want, all->n, sizeof *want, cmp_u64);
    qsort(got, g->n, sizeof *got, cmp_u64);
    for (size_t i = 0; i < g->n; i++) {
        if (got[i] != want[i]) {
            fail("body ids differ after partitioning: %" PRIu64 " vs %" PRIu64, got[i], want[i]);
            break;
        }
        if (i > 0 && got[i] == got[i - 1]) {
            fail("body %" PRIu64 " listed twice", got[i]);
            break;
        }
    }
    for (size_t i = 0; i < g->n; i++)
        if (g->owner[i] < 0 || g->owner[i] >= nranks) {
            fail("body %" PRIu64 " has owner %d of %d ranks", g->gid[i], g->owner[i], nranks);
            break;
        }
    free(want);
    free(got);
}

/* The imbalance three ways: the library before migration (owner lists), the library after
 * migration (each rank's own bodies, owner NULL), and by hand from the gathered lists. */
static double check_imbalance(const ldem_partition *p, const struct bodies *mine,
                              const int *owner, const struct gathered *g)
{
    ldem_err err;
    double before = -1, after = -1;
    if (ldem_partition_imbalance(p, mine->n, mine->w, owner, &before, &err) != LDEM_OK)
        fail("imbalance (owner lists): %s", err.msg);
    size_t m = 0;
    double *w = xcalloc(g->n, sizeof *w);
    for (size_t i = 0; i < g->n; i++)
        if (g->owner[i] == rank)
            w[m++] = g->w[i];
    if (ldem_partition_imbalance(p, m, w, NULL, &after, &err) != LDEM_OK)
        fail("imbalance (after migration): %s", err.msg);
    free(w);
    double *load = xcalloc((size_t)nranks, sizeof *load), sum = 0, max = 0;
    for (size_t i = 0; i < g->n; i++)
        load[g->owner[i]] += g->w[i];
    for (int r = 0; r < nranks; r++) {
        sum += load[r];
        max = load[r] > max ? load[r] : max;
    }
    free(load);
    double want = max / (sum / nranks);
    if (!(fabs(before - want) <= 1e-12 * want) || !(fabs(after - want) <= 1e-12 * want))
        fail("imbalance %.15g (owner lists) and %.15g (after migration), expected %.15g",
             before, after, want);
    return want;
}

/* Each body's point owner is the rank the balance gave it. */
static void check_point_owner(const ldem_partition *p, const struct bodies *mine,
                              const int *owner)
{
    ldem_err err;
    for (size_t i = 0; i < mine->n; i++) {
        int r = -1;
        if (ldem_partition_point_owner(p, mine->x[i], &r, &err) != LDEM_OK) {
            fail("point_owner: %s", err.msg);
            return;
        }
        if (r != owner[i]) {
            fail("body %" PRIu64 ": point_owner says rank %d, the balance rank %d", mine->gid[i],
                 r, owner[i]);
            return;
        }
    }
}

/* The same pseudo-random boxes on every rank (one seed). */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static double rng_unit(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static int contains(const int *ranks, int n, int r)
{
    for (int k = 0; k < n; k++)
        if (ranks[k] == r)
            return 1;
    return 0;
}

/* box_ranks contains the owner of every body inside the box (brute force over all bodies),
 * for random boxes and for the zero-size box at each local body. */
static void check_boxes(const ldem_partition *p, const struct bodies *mine, const int *owner,
                        const struct gathered *g, int nboxes)
{
    ldem_err err;
    ldem_vec3 lo = g->x[0], hi = g->x[0];
    for (size_t i = 1; i < g->n; i++) {
        lo = ldem_vec3_make(fmin(lo.x, g->x[i].x), fmin(lo.y, g->x[i].y), fmin(lo.z, g->x[i].z));
        hi = ldem_vec3_make(fmax(hi.x, g->x[i].x), fmax(hi.y, g->x[i].y), fmax(hi.z, g->x[i].z));
    }
    ldem_vec3 span = ldem_vec3_sub(hi, lo);
    int *ranks = xcalloc((size_t)nranks, sizeof *ranks);
    for (int b = 0; b < nboxes; b++) {
        double c[3], h[3], s[3] = {span.x, span.y, span.z}, l0[3] = {lo.x, lo.y, lo.z};
        for (int k = 0; k < 3; k++) {
            c[k] = l0[k] - 0.1 * s[k] + 1.2 * s[k] * rng_unit();
            h[k] = 0.25 * s[k] * rng_unit() * rng_unit();  /* mostly small, as ghost boxes are */
        }
        ldem_vec3 blo = ldem_vec3_make(c[0] - h[0], c[1] - h[1], c[2] - h[2]);
        ldem_vec3 bhi = ldem_vec3_make(c[0] + h[0], c[1] + h[1], c[2] + h[2]);
        int nr = -1;
        if (ldem_partition_box_ranks(p, blo, bhi, ranks, &nr, &err) != LDEM_OK) {
            fail("box_ranks: %s", err.msg);
            break;
        }
        for (int k = 0; k < nr; k++)
            if (ranks[k] < 0 || ranks[k] >= nranks || contains(ranks, k, ranks[k]))
                fail("box %d: box_ranks lists rank %d wrongly or twice", b, ranks[k]);
        for (size_t i = 0; i < g->n; i++) {
            ldem_vec3 x = g->x[i];
            if (x.x >= blo.x && x.x <= bhi.x && x.y >= blo.y && x.y <= bhi.y && x.z >= blo.z &&
                x.z <= bhi.z && !contains(ranks, nr, g->owner[i])) {
                fail("box %d: body %" PRIu64 " inside belongs to rank %d, not in box_ranks", b,
                     g->gid[i], g->owner[i]);
                break;
            }
        }
        if (failures)
            break;
    }
    for (size_t i = 0; i < mine->n && !failures; i++) {
        int nr = -1;
        if (ldem_partition_box_ranks(p, mine->x[i], mine->x[i], ranks, &nr, &err) != LDEM_OK)
            fail("box_ranks (point box): %s", err.msg);
        else if (!contains(ranks, nr, owner[i]))
            fail("body %" PRIu64 ": its zero-size box misses its owner %d", mine->gid[i],
                 owner[i]);
    }
    free(ranks);
}

/* One method on one initial distribution: balance, then every check. */
static void run_case(const struct bodies *all, enum ldem_partition_method method,
                     enum distribution d)
{
    struct bodies mine = {0};
    take_share(all, d, &mine);
    int *owner = xcalloc(mine.n, sizeof *owner), *again = xcalloc(mine.n, sizeof *again);
    ldem_partition *p = NULL, *q = NULL;
    struct gathered g = {0};
    ldem_err err;
    ldem_err_clear(&err);
    double t0 = MPI_Wtime();
    if (ldem_partition_create(MPI_COMM_WORLD, method, &p, &err) != LDEM_OK)
        fail("create: %s", err.msg);
    else if (ldem_partition_balance(p, mine.n, mine.gid, mine.x, mine.w, owner, &err) != LDEM_OK)
        fail("balance: %s", err.msg);
    double t_balance = MPI_Wtime() - t0;
    if (any_failed())
        goto done;

    gather_all(&mine, owner, &g);
    check_ownership(all, &g);
    double imbalance = check_imbalance(p, &mine, owner, &g);
    if (method == LDEM_PARTITION_RCB && !(imbalance <= 1.1))
        fail("RCB imbalance %.4f > 1.1", imbalance);
    if (method == LDEM_PARTITION_HSFC && !(imbalance <= 1.2))
        fail("HSFC imbalance %.4f > 1.2", imbalance);
    t0 = MPI_Wtime();
    check_point_owner(p, &mine, owner);
    double t_points = MPI_Wtime() - t0;
    t0 = MPI_Wtime();
    int nboxes = 300;
    check_boxes(p, &mine, owner, &g, nboxes);
    double t_boxes = MPI_Wtime() - t0;

    /* Determinism: a new partition given the same input assigns every body alike. The same
     * partition balanced again starts from its kept cuts (RCB_REUSE), which may move a cut
     * across a tie: few bodies may change rank, at most 1 %. */
    if (ldem_partition_create(MPI_COMM_WORLD, method, &q, &err) != LDEM_OK ||
        ldem_partition_balance(q, mine.n, mine.gid, mine.x, mine.w, again, &err) != LDEM_OK)
        fail("second partition: %s", err.msg);
    else if (mine.n && memcmp(owner, again, mine.n * sizeof *owner) != 0)
        fail("the same input twice gave different assignments (new partition)");
    long moved_here = 0, moved = 0;
    if (ldem_partition_balance(p, mine.n, mine.gid, mine.x, mine.w, again, &err) != LDEM_OK)
        fail("rebalance: %s", err.msg);
    for (size_t i = 0; i < mine.n; i++)
        moved_here += owner[i] != again[i];
    MPI_Allreduce(&moved_here, &moved, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (moved * 100 > (long)all->n)
        fail("rebalancing the same input moved %ld of %zu bodies", moved, all->n);

    if (rank == 0)
        printf("%-4s %-13s np=%d: imbalance %.4f, balance %.1f ms, %zu point queries %.1f ms, "
               "%d+%zu box queries %.1f ms, rebalance moved %ld\n",
               ldem_partition_method_name(method), distribution_name[d], nranks, imbalance,
               1e3 * t_balance, mine.n, 1e3 * t_points, nboxes, mine.n, 1e3 * t_boxes, moved);
done:
    gathered_free(&g);
    ldem_partition_free(q);
    ldem_partition_free(p);
    free(owner);
    free(again);
    bodies_free(&mine);
}

/* Misuse: queries before a balance, and bad input on one rank only, which must fail the
 * balance on every rank rather than leave the others waiting inside Zoltan. */
static void run_misuse(const struct bodies *all)
{
    struct bodies mine = {0};
    take_share(all, BLOCKS, &mine);
    int *owner = xcalloc(mine.n, sizeof *owner), r = -1, nr = -1;
    int *ranks = xcalloc((size_t)nranks, sizeof *ranks);
    ldem_partition *p = NULL;
    ldem_err err;
    if (ldem_partition_create(MPI_COMM_WORLD, LDEM_PARTITION_RCB, &p, &err) != LDEM_OK) {
        fail("create: %s", err.msg);
        goto done;
    }
    if (ldem_partition_point_owner(p, all->x[0], &r, &err) != LDEM_ERR_USAGE ||
        ldem_partition_box_ranks(p, all->x[0], all->x[0], ranks, &nr, &err) != LDEM_ERR_USAGE)
        fail("queries before a balance were not refused as usage errors");
    if (rank == nranks - 1 && mine.n > 0)
        mine.w[0] = -1.0;
    int st = ldem_partition_balance(p, mine.n, mine.gid, mine.x, mine.w, owner, &err);
    if (st == LDEM_OK)
        fail("a negative weight on rank %d was accepted", nranks - 1);
    else if (rank == nranks - 1 && (st != LDEM_ERR_INPUT || !strstr(err.msg, "weight")))
        fail("negative weight: status %d, message '%s'", st, err.msg);
    if (ldem_partition_point_owner(p, all->x[0], &r, &err) != LDEM_ERR_USAGE)
        fail("a query after a failed balance was not refused");
    ldem_vec3 nan = ldem_vec3_make(NAN, 0, 0);
    if (mine.n > 0)
        mine.w[0] = 1.0;
    if (ldem_partition_balance(p, mine.n, mine.gid, mine.x, mine.w, owner, &err) != LDEM_OK)
        fail("balance after a failed one: %s", err.msg);
    else if (ldem_partition_point_owner(p, nan, &r, &err) != LDEM_ERR_INPUT)
        fail("a NaN point was not refused");
done:
    ldem_partition_free(p);
    free(owner);
    free(ranks);
    bodies_free(&mine);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np N test_partition PACKING.tsv\n");
        MPI_Finalize();
        return 2;
    }
    struct bodies all = {0};
    if (load_packing(argv[1], &all) != 0)
        failures++;
    int status = 0;
    if (any_failed()) {
        status = 1;
        goto out;
    }
    static const enum ldem_partition_method methods[] = {LDEM_PARTITION_RCB,
                                                         LDEM_PARTITION_HSFC};
    for (size_t m = 0; m < 2; m++)
        for (int d = ALL_ON_ROOT; d <= BLOCKS; d++) {
            run_case(&all, methods[m], (enum distribution)d);
            if (any_failed()) {
                status = 1;
                failures = 0;
            }
        }
    run_misuse(&all);
    if (any_failed())
        status = 1;
    if (rank == 0)
        printf("test_partition: %s on %d rank%s\n", status ? "FAILED" : "all checks passed",
               nranks, nranks == 1 ? "" : "s");
out:
    bodies_free(&all);
    MPI_Finalize();
    return status;
}
