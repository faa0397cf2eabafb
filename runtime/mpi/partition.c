/* runtime/mpi/partition.c — the partition object and the balance: Zoltan's geometric
 * partitioners (RCB, HSFC) over the caller's arrays, through Zoltan's query callbacks. */
#include "partition_private.h"

#include "ldem/memory_budget.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A uint64 global id travels as two Zoltan id words (low word first): Debian's Zoltan is
 * built with 32-bit ids (UNSIGNED_INT_GLOBAL_IDS), and 4 billion bodies is a limit a
 * distributed run may meet. */
_Static_assert(sizeof(ZOLTAN_ID_TYPE) == 4, "Zoltan built with 32-bit ids expected");
#define GID_WORDS 2

/* What the callbacks see: the arrays of one balance call. */
struct balance_input {
    int n;
    const uint64_t *gid;
    const ldem_vec3 *x;
    const double *weight;
};

static int num_obj(void *data, int *ierr)
{
    *ierr = ZOLTAN_OK;
    return ((const struct balance_input *)data)->n;
}

static void obj_list(void *data, int num_gid, int num_lid, ZOLTAN_ID_PTR gids,
                     ZOLTAN_ID_PTR lids, int wdim, float *wgts, int *ierr)
{
    const struct balance_input *in = data;
    if (num_gid != GID_WORDS || num_lid != 1 || wdim != (in->weight ? 1 : 0)) {
        *ierr = ZOLTAN_FATAL;
        return;
    }
    for (int i = 0; i < in->n; i++) {
        gids[GID_WORDS * i] = (ZOLTAN_ID_TYPE)(in->gid[i] & 0xffffffffu);
        gids[GID_WORDS * i + 1] = (ZOLTAN_ID_TYPE)(in->gid[i] >> 32);
        lids[i] = (ZOLTAN_ID_TYPE)i;  /* the local id is the index in the caller's arrays */
        if (in->weight)
            wgts[i] = (float)in->weight[i];  /* checked to fit a float before */
    }
    *ierr = ZOLTAN_OK;
}

static int num_geom(void *data, int *ierr)
{
    (void)data;
    *ierr = ZOLTAN_OK;
    return 3;
}

static void geom_multi(void *data, int num_gid, int num_lid, int num_obj_, ZOLTAN_ID_PTR gids,
                       ZOLTAN_ID_PTR lids, int num_dim, double *geom, int *ierr)
{
    const struct balance_input *in = data;
    (void)num_gid;
    (void)gids;
    if (num_lid != 1 || num_dim != 3) {
        *ierr = ZOLTAN_FATAL;
        return;
    }
    for (int k = 0; k < num_obj_; k++) {
        ZOLTAN_ID_TYPE i = lids[k];
        if (i >= (ZOLTAN_ID_TYPE)in->n) {
            *ierr = ZOLTAN_FATAL;
            return;
        }
        geom[3 * k] = in->x[i].x;
        geom[3 * k + 1] = in->x[i].y;
        geom[3 * k + 2] = in->x[i].z;
    }
    *ierr = ZOLTAN_OK;
}

const char *ldem_partition_method_name(enum ldem_partition_method method)
{
    switch (method) {
    case LDEM_PARTITION_RCB: return "RCB";
    case LDEM_PARTITION_HSFC: return "HSFC";
    }
    return NULL;
}

int ldem_partition_nranks(const ldem_partition *p)
{
    return p->nranks;
}

int ldem__partition_agree(MPI_Comm comm, int status, ldem_err *err)
{
    int worst = status;
    if (MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0, "MPI_Allreduce failed");
    if (worst != LDEM_OK && status == LDEM_OK)
        return ldem_err_set(err, worst, NULL, 0, "partition: failed on another rank (%s)",
                            ldem_status_name(worst));
    return worst;
}

/* Zoltan_Initialize sets up Zoltan's own state once per process; later calls are not
 * needed. It is the caller's MPI_Init that counts (Zoltan would call MPI_Init itself when
 * MPI is not initialized, which we refuse before getting here). */
static int zoltan_initialized;

static int set_param(struct Zoltan_Struct *zz, const char *name, const char *value,
                     ldem_err *err)
{
    /* ZOLTAN_WARN here means an unknown name or value: our mistake, not the caller's. */
    if (Zoltan_Set_Param(zz, name, value) != ZOLTAN_OK)
        return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                            "partition: Zoltan refused parameter %s = %s", name, value);
    return LDEM_OK;
}

/* The parameters every balance uses; OBJ_WEIGHT_DIM is set per call. */
static int configure(ldem_partition *p, ldem_err *err)
{
    /* DEBUG_LEVEL first: at Zoltan's default level (1) it prints its parameters and timings
     * on rank 0, and a library never prints (docs/design.md, "Errors"). */
    static const char *const params[][2] = {
        {"DEBUG_LEVEL", "0"},
        {"NUM_GID_ENTRIES", "2"},
        {"NUM_LID_ENTRIES", "1"},
        /* the new rank of every local object, not only of those that move */
        {"RETURN_LISTS", "PARTITION ASSIGNMENTS"},
        /* keep the regions for Point_Assign and Box_Assign (ghost ranks) */
        {"KEEP_CUTS", "1"},
        /* the same input gives the same cuts, whatever the message timing */
        {"DETERMINISTIC", "1"},
    };
    int st = LDEM_OK;
    for (size_t i = 0; st == LDEM_OK && i < sizeof params / sizeof params[0]; i++)
        st = set_param(p->zz, params[i][0], params[i][1], err);
    if (st == LDEM_OK)
        st = set_param(p->zz, "LB_METHOD", ldem_partition_method_name(p->method), err);
    /* RCB starts from the previous cuts: bodies move little between rebalances, so the
     * regions do too, and few bodies change rank. */
    if (st == LDEM_OK && p->method == LDEM_PARTITION_RCB)
        st = set_param(p->zz, "RCB_REUSE", "1", err);
    /* The callbacks' data is set per balance (the caller's arrays of that call). */
    if (st == LDEM_OK && (Zoltan_Set_Num_Obj_Fn(p->zz, num_obj, NULL) != ZOLTAN_OK ||
                          Zoltan_Set_Obj_List_Fn(p->zz, obj_list, NULL) != ZOLTAN_OK ||
                          Zoltan_Set_Num_Geom_Fn(p->zz, num_geom, NULL) != ZOLTAN_OK ||
                          Zoltan_Set_Geom_Multi_Fn(p->zz, geom_multi, NULL) != ZOLTAN_OK))
        st = ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                          "partition: Zoltan refused a query function");
    return st;
}

int ldem_partition_create(MPI_Comm comm, enum ldem_partition_method method,
                          ldem_partition **out, ldem_err *err)
{
    *out = NULL;
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "partition: MPI is not initialized (call MPI_Init first)");
    /* The method is the same on every rank in any correct program; a wrong one is refused
     * before the first collective call, so on every rank alike. */
    if (!ldem_partition_method_name(method))
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0, "partition: unknown method %d",
                            (int)method);
    if (!zoltan_initialized) {
        float version;
        if (Zoltan_Initialize(0, NULL, &version) != ZOLTAN_OK)
            return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                                "partition: Zoltan_Initialize failed");
        zoltan_initialized = 1;
    }
    ldem_partition *p = calloc(1, sizeof *p);
    int st = p ? LDEM_OK : ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "partition: out of memory");
    st = ldem__partition_agree(comm, st, err);
    if (st != LDEM_OK) {
        free(p);
        return st;
    }
    p->method = method;
    p->comm = MPI_COMM_NULL;
    if (MPI_Comm_dup(comm, &p->comm) != MPI_SUCCESS) {
        free(p);
        return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0, "partition: MPI_Comm_dup failed");
    }
    MPI_Comm_rank(p->comm, &p->rank);
    MPI_Comm_size(p->comm, &p->nranks);
    p->zz = Zoltan_Create(p->comm);
    st = p->zz ? LDEM_OK
               : ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "partition: Zoltan_Create failed");
    if (st == LDEM_OK)
        st = configure(p, err);
    st = ldem__partition_agree(p->comm, st, err);
    if (st != LDEM_OK) {
        ldem_partition_free(p);
        return st;
    }
    *out = p;
    return LDEM_OK;
}

void ldem_partition_free(ldem_partition *p)
{
    if (!p)
        return;
    if (p->zz)
        Zoltan_Destroy(&p->zz);
    if (p->comm != MPI_COMM_NULL)
        MPI_Comm_free(&p->comm);
    free(p);
}

/* This rank's arguments, checked before any collective call. */
static int check_input(const ldem_partition *p, size_t n, const uint64_t *gid,
                       const ldem_vec3 *x, const double *weight, const int *new_owner,
                       ldem_err *err)
{
    if (n > (size_t)INT_MAX)
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "partition: %zu bodies on rank %d (Zoltan counts in int: at most %d)",
                            n, p->rank, INT_MAX);
    if (n > 0 && (!gid || !x || !new_owner))
        return ldem_err_set(err, LDEM_ERR_USAGE, NULL, 0,
                            "partition: gid, x and new_owner must not be NULL");
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i].x) || !isfinite(x[i].y) || !isfinite(x[i].z))
            return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                "partition: body %llu has a non-finite position",
                                (unsigned long long)gid[i]);
        /* Zoltan takes weights as floats */
        if (weight && !(weight[i] >= 0.0 && weight[i] <= FLT_MAX))
            return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                                "partition: body %llu has weight %g (expected 0 to %g)",
                                (unsigned long long)gid[i], weight[i], (double)FLT_MAX);
    }
    return LDEM_OK;
}

static int zoltan_status(int zst, const char *call, ldem_err *err)
{
    switch (zst) {
    case ZOLTAN_OK:
    case ZOLTAN_WARN:  /* e.g. the imbalance tolerance not met: the result is still valid */
        return LDEM_OK;
    case ZOLTAN_MEMERR:
        return ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "partition: %s ran out of memory",
                            call);
    default:
        return ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                            "partition: %s failed (Zoltan status %d)", call, zst);
    }
}

int ldem_partition_balance(ldem_partition *p, size_t n, const uint64_t *gid,
                           const ldem_vec3 *x, const double *weight, int *new_owner,
                           ldem_err *err)
{
    int st = check_input(p, n, gid, x, weight, new_owner, err);
    /* Weights on some ranks and not on others would make the ranks disagree on
     * OBJ_WEIGHT_DIM: weigh everywhere when any rank gives weights. Every rank makes this
     * call, whatever its input was, or the collectives that follow would pair wrongly. */
    int local_w = weight != NULL, any_w = local_w;
    if (MPI_Allreduce(&local_w, &any_w, 1, MPI_INT, MPI_MAX, p->comm) != MPI_SUCCESS &&
        st == LDEM_OK)
        st = ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0, "MPI_Allreduce failed");
    double *ones = NULL;
    if (st == LDEM_OK && any_w && !weight && n > 0) {
        st = ldem_memory_check(0, ldem_memory_mul(n, sizeof *ones), NULL, 0, "partition weights",
                               err);
        if (st == LDEM_OK && !(ones = malloc(n * sizeof *ones)))
            st = ldem_err_set(err, LDEM_ERR_NOMEM, NULL, 0, "partition: out of memory");
        for (size_t i = 0; st == LDEM_OK && i < n; i++)
            ones[i] = 1.0;
    }
    if (st == LDEM_OK)
        st = set_param(p->zz, "OBJ_WEIGHT_DIM", any_w ? "1" : "0", err);
    st = ldem__partition_agree(p->comm, st, err);
    if (st != LDEM_OK) {
        free(ones);
        return st;
    }

    struct balance_input in = {(int)n, gid, x, weight ? weight : ones};
    Zoltan_Set_Num_Obj_Fn(p->zz, num_obj, &in);
    Zoltan_Set_Obj_List_Fn(p->zz, obj_list, &in);
    Zoltan_Set_Geom_Multi_Fn(p->zz, geom_multi, &in);

    int changes, ngid, nlid, nimp, nexp;
    ZOLTAN_ID_PTR imp_gid = NULL, imp_lid = NULL, exp_gid = NULL, exp_lid = NULL;
    int *imp_proc = NULL, *imp_part = NULL, *exp_proc = NULL, *exp_part = NULL;
    p->balanced = 0;
    int zst = Zoltan_LB_Partition(p->zz, &changes, &ngid, &nlid, &nimp, &imp_gid, &imp_lid,
                                  &imp_proc, &imp_part, &nexp, &exp_gid, &exp_lid, &exp_proc,
                                  &exp_part);
    st = zoltan_status(zst, "Zoltan_LB_Partition", err);

    /* Bodies not listed stay where they are (what an export list means); with partition
     * assignments every body is listed. */
    for (size_t i = 0; st == LDEM_OK && i < n; i++)
        new_owner[i] = p->rank;
    for (int k = 0; st == LDEM_OK && k < nexp; k++) {
        ZOLTAN_ID_TYPE i = exp_lid[k];
        if (nlid != 1 || i >= (ZOLTAN_ID_TYPE)n || exp_proc[k] < 0 || exp_proc[k] >= p->nranks)
            st = ldem_err_set(err, LDEM_ERR_INTERNAL, NULL, 0,
                              "partition: Zoltan returned an invalid assignment");
        else
            new_owner[i] = exp_proc[k];
    }
    Zoltan_LB_Free_Part(&imp_gid, &imp_lid, &imp_proc, &imp_part);
    Zoltan_LB_Free_Part(&exp_gid, &exp_lid, &exp_proc, &exp_part);

    /* The callbacks must not outlive the caller's arrays. */
    Zoltan_Set_Num_Obj_Fn(p->zz, num_obj, NULL);
    Zoltan_Set_Obj_List_Fn(p->zz, obj_list, NULL);
    Zoltan_Set_Geom_Multi_Fn(p->zz, geom_multi, NULL);
    free(ones);

    st = ldem__partition_agree(p->comm, st, err);
    p->balanced = st == LDEM_OK;
    return st;
}
