/* A world shared out between MPI ranks (ldem/mpi/world_comm.h) steps to the same bits as the
 * same world on one process: run under mpirun -np 1, 2, 3, every rank also steps its own
 * undistributed copy of the scene (the reference, ldem's one-process step) and compares,
 * every `every` steps, the probe row (energies, dissipation, wall work, contacts, stress,
 * strain, servo indicators) byte for byte, and at the end every body's position, velocity,
 * orientation, angular momentum, force and torque, every wall's force and displacement, the
 * cell, and every contact this rank owns (forces, frame, overlap) against the reference's.
 * The two pool-capacity columns (history_bytes, history_cells) describe memory, which ranks
 * duplicate at their faces: they are left out (docs/mpi.md). A plain program: Criterion
 * forks, which MPI does not survive.
 * With --rebalance X the ranks rebalance whenever the most loaded one carries more than X
 * times the mean (X = 1: at almost every list rebuild), so contacts move between ranks with
 * their Jäger histories many times; the test then also fails if no block ever moved.
 * usage: test_world SCENE STEPS EVERY [--rebalance X] [KEY=VALUE ...] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/mpi/world_comm.h"
#include "ldem/sim/scene.h"
#include "ldem/sim/step.h"

static int rank, nranks, failures;

static void check(int ok, const char *what, unsigned long long step)
{
    if (!ok && failures++ < 10)
        fprintf(stderr, "test_world: rank %d of %d, step %llu: %s differs from one process\n",
                rank, nranks, step, what);
}

static void die(const char *what, const ldem_err *err)
{
    fprintf(stderr, "test_world: rank %d: %s: %s\n", rank, what, err->msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static void build(const char *path, size_t nset, const char *const *sets, ldem_scene *s,
                  ldem_world *w)
{
    ldem_err err;
    ldem_err_clear(&err);
    ldem_scene_init(s);
    ldem_world_init(w);
    if (ldem_scene_load(s, path, nset, sets, &err) || ldem_scene_build(s, w, &err))
        die(path, &err);
    w->threads = 1;
}

static void compare_rows(const ldem_world *a, const ldem_world *ref)
{
    ldem_probe_row ra, rr;
    ldem_world_measure(a, &ra);
    ldem_world_measure(ref, &rr);
    ra.history_bytes = rr.history_bytes = 0;
    ra.history_cells = rr.history_cells = 0;
    check(memcmp(&ra, &rr, sizeof ra) == 0, "the probe row", (unsigned long long)a->step);
}

#define SAME(field, n) (memcmp(a->field, ref->field, (n) * sizeof *a->field) == 0)

static void compare_state(const ldem_world *a, const ldem_world *ref)
{
    unsigned long long step = (unsigned long long)a->step;
    size_t n = a->bodies.count;
    check(SAME(bodies.x, n) && SAME(bodies.v, n), "a position or velocity", step);
    check(SAME(bodies.q, n) && SAME(bodies.L, n), "an orientation or angular momentum", step);
    check(SAME(bodies.force, n) && SAME(bodies.torque, n), "a force or torque", step);
    for (size_t k = 0; k < a->nwalls; k++)
        check(memcmp(&a->walls[k].force, &ref->walls[k].force, sizeof a->walls[k].force) == 0 &&
                  memcmp(&a->walls[k].disp, &ref->walls[k].disp, sizeof a->walls[k].disp) == 0,
              "a wall's force or displacement", step);
    check(memcmp(&a->cell.h, &ref->cell.h, sizeof a->cell.h) == 0 &&
              memcmp(&a->stress, &ref->stress, sizeof a->stress) == 0,
          "the cell or its stress", step);
    /* every contact of an owned body, in both sorted lists */
    size_t q = 0, owned = 0;
    for (size_t k = 0; k < a->ncontacts; k++) {
        const ldem_contact *c = &a->contacts[k];
        int mine = !(a->bodies.flags[c->i] & LDEM_BODY_GHOST) ||
                   (!(c->j & LDEM_WALL_BIT) && !(a->bodies.flags[c->j] & LDEM_BODY_GHOST));
        if (!mine)
            continue;
        owned++;
        while (q < ref->ncontacts && (ref->contacts[q].i < c->i ||
                                      (ref->contacts[q].i == c->i && ref->contacts[q].j < c->j)))
            q++;
        int found = q < ref->ncontacts && ref->contacts[q].i == c->i && ref->contacts[q].j == c->j;
        check(found, "the candidate list", step);
        if (!found)
            continue;
        const ldem_contact *d = &ref->contacts[q];
        check(memcmp(&c->fn, &d->fn, sizeof c->fn) == 0 && memcmp(&c->ft, &d->ft, sizeof c->ft) == 0 &&
                  memcmp(&c->frame, &d->frame, sizeof c->frame) == 0 &&
                  memcmp(&c->overlap, &d->overlap, sizeof c->overlap) == 0,
              "a contact's force, frame or overlap", step);
    }
    /* and every reference pair with an owned body is on this rank */
    size_t want = 0;
    for (size_t k = 0; k < ref->ncontacts; k++) {
        const ldem_contact *d = &ref->contacts[k];
        want += !(a->bodies.flags[d->i] & LDEM_BODY_GHOST) ||
                (!(d->j & LDEM_WALL_BIT) && !(a->bodies.flags[d->j] & LDEM_BODY_GHOST));
    }
    check(owned == want, "the number of pairs with an owned body", step);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc < 4) {
        if (rank == 0)
            fprintf(stderr, "usage: test_world SCENE STEPS EVERY [--rebalance X] [KEY=VALUE ...]\n");
        MPI_Finalize();
        return 2;
    }
    long steps = atol(argv[2]), every = atol(argv[3]);
    int first_set = 4;
    double rebalance = -1.0;
    if (argc >= 6 && !strcmp(argv[4], "--rebalance"))
        rebalance = atof(argv[5]), first_set = 6;
    size_t nset = (size_t)(argc - first_set);
    const char *const *sets = (const char *const *)argv + first_set;
    ldem_scene sa, sr;
    ldem_world a, ref;
    build(argv[1], nset, sets, &sa, &a);
    build(argv[1], nset, sets, &sr, &ref);
    ldem_err err;
    ldem_err_clear(&err);
    ldem_mpi_world *m = NULL;
    if (ldem_mpi_world_attach(MPI_COMM_WORLD, LDEM_PARTITION_RCB, &a, &m, &err))
        die("attach", &err);
    if (rebalance >= 0.0)
        ldem_mpi_world_set_rebalance(m, rebalance);
    if (ldem_world_prepare(&a, &err))
        die("prepare (distributed)", &err);
    if (ldem_world_prepare(&ref, &err))
        die("prepare (one process)", &err);
    compare_rows(&a, &ref);
    for (long k = 1; k <= steps; k++) {
        if (ldem_world_step(&a, &err))
            die("step (distributed)", &err);
        if (ldem_world_step(&ref, &err))
            die("step (one process)", &err);
        if (k % every == 0 || k == steps)
            compare_rows(&a, &ref);
    }
    compare_state(&a, &ref);
    unsigned long long owned = ldem_mpi_world_owned(m), contacts = a.ncontacts, all = 0;
    unsigned long long sum_contacts = 0;
    MPI_Reduce(&owned, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&contacts, &sum_contacts, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_world: %s on %d ranks, %ld steps: %llu bodies owned once each of %zu; "
               "%llu candidate pairs over the ranks against %zu on one process (%.2fx): %s\n",
               argv[1], nranks, steps, all, ref.bodies.count, sum_contacts, ref.ncontacts,
               ref.ncontacts ? (double)sum_contacts / (double)ref.ncontacts : 0.0,
               total ? "DIFFERENT" : "the same bits as one process");
    if (rank == 0 && all != ref.bodies.count)
        total++;
    ldem_mpi_balance bal = ldem_mpi_world_balance(m);
    if (rank == 0)
        printf("test_world: rebalancing: %llu looks, %llu partitions, %llu blocks moved, "
               "%.3g MB of contacts sent, last imbalance %.3f\n",
               (unsigned long long)bal.checks, (unsigned long long)bal.rebalances,
               (unsigned long long)bal.blocks_moved, 1e-6 * (double)bal.bytes_moved,
               bal.imbalance);
    if (rank == 0 && rebalance >= 0.0 && rebalance <= 1.0 && nranks > 1 && !bal.blocks_moved) {
        fprintf(stderr, "test_world: --rebalance %g moved no block: nothing was tested\n",
                rebalance);
        total++;
    }
    ldem_mpi_world_detach(m, &a);
    ldem_world_free(&a);
    ldem_world_free(&ref);
    ldem_scene_free(&sa);
    ldem_scene_free(&sr);
    MPI_Finalize();
    return total ? 1 : 0;
}
