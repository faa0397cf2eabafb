/* Exact global sums over MPI ranks (ldem/mpi/reduce.h), run under mpirun -np 1, 2, 3: the
 * terms of a sum spread over the ranks in two different ways give, after the allreduce, the
 * same bits as the whole sum added on one rank (which is what a one-rank run computes), on
 * every rank. For contrast it reports whether MPI_Allreduce of the ranks' plain double sums
 * reproduces the one-rank plain sum (it need not, and usually does not). A plain program:
 * Criterion forks, which MPI does not survive. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/mpi/reduce.h"

enum { NTERMS = 200000, NSUMS = 3 };

static int rank, nranks, failures;

static void fail(const char *what, double got, double want)
{
    fprintf(stderr, "test_reduce: rank %d of %d: %s: %a, want %a\n", rank, nranks, what, got,
            want);
    failures++;
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Term k of sum q: signed 53-bit integers scaled over 2^±60, the same on every rank. */
static double term(int q, uint64_t k)
{
    uint64_t z = (k + 1) * 0x9e3779b97f4a7c15u + (uint64_t)q * 0xbf58476d1ce4e5b9u;
    z ^= z >> 31;
    z *= 0x94d049bb133111ebu;
    z ^= z >> 29;
    double m = (double)(int64_t)(z >> 11) * ((z & 1) ? -1.0 : 1.0);
    int e = (int)((z >> 3) % 121) - 60;
    if (q == 2)
        e = (int)((z >> 3) % 5); /* similar magnitudes, random signs: deep cancellation */
    return ldexp(m, e);
}

/* The ranks' share of the terms: round robin (mine_robin) or contiguous blocks. */
static int mine(uint64_t k, int blocks)
{
    if (!blocks)
        return (int)(k % (uint64_t)nranks) == rank;
    uint64_t per = (NTERMS + (uint64_t)nranks - 1) / (uint64_t)nranks;
    return (int)(k / per) == rank;
}

int main(void)
{
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    double want[NSUMS], plain_one_rank[NSUMS];
    for (int q = 0; q < NSUMS; q++) {
        ldem_xsum all;
        ldem_xsum_clear(&all);
        double plain = 0.0;
        for (uint64_t k = 0; k < NTERMS; k++) {
            ldem_xsum_add(&all, term(q, k));
            plain += term(q, k);
        }
        want[q] = ldem_xsum_round(&all);
        plain_one_rank[q] = plain;
    }
    for (int blocks = 0; blocks < 2; blocks++) {
        ldem_xsum part[NSUMS];
        double plain[NSUMS];
        for (int q = 0; q < NSUMS; q++) {
            ldem_xsum_clear(&part[q]);
            plain[q] = 0.0;
            for (uint64_t k = 0; k < NTERMS; k++)
                if (mine(k, blocks)) {
                    ldem_xsum_add(&part[q], term(q, k));
                    plain[q] += term(q, k);
                }
        }
        ldem_err err;
        ldem_err_clear(&err);
        if (ldem_mpi_xsum_allreduce(MPI_COMM_WORLD, part, NSUMS, &err) != LDEM_OK) {
            fprintf(stderr, "test_reduce: %s\n", err.msg);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        double plain_all[NSUMS];
        MPI_Allreduce(plain, plain_all, NSUMS, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int q = 0; q < NSUMS; q++) {
            double got = ldem_xsum_round(&part[q]);
            if (!same_bits(got, want[q]))
                fail(blocks ? "blocks" : "round robin", got, want[q]);
            if (rank == 0)
                printf("sum %d (%s): exact %a; plain MPI_SUM %s the one-rank plain sum "
                       "(%.3g relative)\n",
                       q, blocks ? "blocks" : "round robin", got,
                       same_bits(plain_all[q], plain_one_rank[q]) ? "equals" : "differs from",
                       fabs(plain_all[q] - plain_one_rank[q]) / fabs(want[q]));
        }
    }
    /* an empty share on some ranks, and nothing at all */
    ldem_xsum none;
    ldem_xsum_clear(&none);
    if (rank == 0)
        ldem_xsum_add(&none, -0.75);
    ldem_err err;
    ldem_err_clear(&err);
    ldem_mpi_xsum_allreduce(MPI_COMM_WORLD, &none, 1, &err);
    if (!same_bits(ldem_xsum_round(&none), -0.75))
        fail("one term on rank 0", ldem_xsum_round(&none), -0.75);
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_reduce: %d ranks, %d sums of %d terms, two distributions: %s\n", nranks,
               NSUMS, NTERMS, total ? "FAILED" : "all the same bits as one rank");
    MPI_Finalize();
    return total ? 1 : 0;
}
