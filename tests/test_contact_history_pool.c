/* Unit tests of the shared history-cell pool (ldem/contact/history.h): push/pop/clear
 * bookkeeping and free-list reuse, growth far beyond the initial capacity, compaction of
 * several stacks (values, order and contiguity preserved, heads rewritten, memory released,
 * misuse refused), the cell size, that contacts sharing one pool do not disturb each
 * other, and that the two cells a Jäger contact holds keep its one-for-one steps off the
 * pool. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ldem/contact/history.h"
#include "ldem/contact/jager.h"
#include "support/contact_fixture.h"

/* Push a cell with distinguishable contents; the force slot (if any) carries 2z. */
static uint32_t push_val(ldem_history_pool *pool, uint32_t below, double z, double w0, double w1)
{
    uint32_t i = ldem_history_push(pool, below);
    cr_assert_neq(i, 0u, "push failed");
    cr_assert_lt(i, pool->capacity);
    pool->cell[i].base = z;
    pool->cell[i].w[0] = w0;
    pool->cell[i].w[1] = w1;
    if (pool->cache_force)
        pool->force[i] = 2 * z;
    return i;
}

static uint32_t stack_len(const ldem_history_pool *pool, uint32_t top)
{
    uint32_t n = 0;
    for (uint32_t i = top; i; i = pool->next[i])
        cr_assert_leq(++n, pool->live, "chain longer than the live count (cycle?)");
    return n;
}

Test(history_pool, cell_size)
{
    ldem_history_pool a, b;
    cf_pool(&a, 10, false);
    cf_pool(&b, 10, true);
    cr_assert_eq(ldem_history_pool_bytes_per_cell(&a), 29u);
    cr_assert_eq(ldem_history_pool_bytes_per_cell(&b), 37u);
    cr_assert_eq(sizeof(ldem_history_cell), 24u, "{base, wx, wy} must be three packed doubles");
    cr_assert_null(a.force);
    cr_assert_not_null(b.force);
    ldem_history_pool_free(&a);
    ldem_history_pool_free(&b);
}

Test(history_pool, push_pop_clear_bookkeeping)
{
    ldem_history_pool pool;
    cf_pool(&pool, 4, false);
    cr_assert_geq(pool.capacity, 5u, "room for 4 cells plus the unused slot 0");
    cr_assert(pool.live == 0 && pool.peak == 0);

    uint32_t a = push_val(&pool, 0, 1.0, 0.1, 0.2);
    cr_assert(a != 0 && pool.next[a] == 0 && pool.live == 1 && pool.peak == 1);
    uint32_t b = push_val(&pool, a, 2.0, 0.3, 0.4);
    cr_assert(b != a && pool.next[b] == a && pool.live == 2 && pool.peak == 2);

    /* Pop returns the cell below and puts the top at the head of the free list. */
    cr_assert_eq(ldem_history_pop(&pool, b), a);
    cr_assert(pool.live == 1 && pool.peak == 2 && pool.free_head == b);
    /* The next push reuses it (LIFO free list): no growth, same slot. */
    uint32_t cap = pool.capacity;
    uint32_t c = push_val(&pool, a, 3.0, 0.5, 0.6);
    cr_assert_eq(c, b, "a freed cell must be reused first");
    cr_assert_eq(pool.capacity, cap);
    cr_assert(pool.cell[a].base == 1.0 && pool.cell[a].w[0] == 0.1 && pool.cell[a].w[1] == 0.2,
              "the cell below must be untouched");
    cr_assert_eq(ldem_history_pop(&pool, c), a);
    cr_assert_eq(ldem_history_pop(&pool, a), 0u);
    cr_assert(pool.live == 0 && pool.peak == 2);

    /* Two interleaved stacks, one cleared as a whole. */
    uint32_t s1 = 0, s2 = 0;
    for (int i = 0; i < 3; i++) {
        s1 = push_val(&pool, s1, i, 1, 0);
        s2 = push_val(&pool, s2, 10 + i, 2, 0);
    }
    cr_assert(pool.live == 6 && pool.peak == 6);
    cr_assert(stack_len(&pool, s1) == 3 && stack_len(&pool, s2) == 3);
    ldem_history_clear(&pool, s1);
    cr_assert_eq(pool.live, 3u);
    cr_assert_eq(stack_len(&pool, s2), 3u);
    for (uint32_t i = s2, k = 3; i; i = pool.next[i])
        cr_assert_eq(pool.cell[i].base, 10.0 + --k, "the other stack must be intact");
    ldem_history_clear(&pool, 0); /* clearing an empty stack is a no-op */
    cr_assert_eq(pool.live, 3u);
    /* The three cleared cells are reused before the pool grows. */
    cap = pool.capacity;
    uint32_t s3 = 0;
    for (int i = 0; i < 3; i++)
        s3 = push_val(&pool, s3, 20 + i, 3, 0);
    cr_assert_eq(pool.capacity, cap, "cleared cells must be reused before growing");
    ldem_history_clear(&pool, s2);
    ldem_history_clear(&pool, s3);
    cr_assert_eq(pool.live, 0u);
    ldem_history_pool_free(&pool);
}

/* From an empty pool to 10^6 cells in one stack (Kuhn's Fortran aborts at its fixed
 * capacity), contents intact across every reallocation, then two stacks growing together. */
static void grow_to_a_million(bool cache)
{
    const uint32_t n = 1000000;
    ldem_history_pool pool;
    cf_pool(&pool, 0, cache);
    uint32_t top = 0;
    for (uint32_t i = 0; i < n; i++)
        top = push_val(&pool, top, (double)i, -(double)i, 0.5 * i);
    cr_assert_eq(pool.live, n);
    cr_assert_eq(pool.peak, n);
    cr_assert_geq(pool.capacity, n + 1);
    uint32_t k = n;
    for (uint32_t i = top; i; i = pool.next[i]) {
        --k;
        cr_assert(pool.cell[i].base == k && pool.cell[i].w[0] == -(double)k &&
                      pool.cell[i].w[1] == 0.5 * k,
                  "cell %u holds the wrong values", k);
        if (cache)
            cr_assert_eq(pool.force[i], 2.0 * k);
    }
    cr_assert_eq(k, 0u, "chain must hold all %u cells", n);
    ldem_history_clear(&pool, top);
    cr_assert_eq(pool.live, 0u);
    cr_assert_eq(pool.peak, n, "peak must remember the largest live count");
    cr_assert(ldem_history_pool_should_compact(&pool), "an empty 1e6-cell pool should compact");
    ldem_err err;
    uint32_t dummy = 0;
    cr_assert_eq(ldem_history_pool_compact(&pool, &dummy, 0, sizeof dummy, &err), LDEM_OK, "%s",
                 err.msg);
    cr_assert_lt(pool.capacity, n / 4, "compacting an empty pool must release the memory");
    /* Still usable: two stacks grow together past the shrunk capacity. */
    uint32_t a = 0, b = 0;
    for (uint32_t i = 0; i < 50000; i++) {
        a = push_val(&pool, a, i, 1, 0);
        b = push_val(&pool, b, i, 2, 0);
    }
    cr_assert_eq(stack_len(&pool, a) + stack_len(&pool, b), pool.live);
    cr_assert_eq(pool.live, 100000u);
    ldem_history_pool_free(&pool);
}

Test(history_pool, grows_to_a_million_cells)
{
    grow_to_a_million(false);
}

Test(history_pool, grows_to_a_million_cells_with_force_cache)
{
    grow_to_a_million(true);
}

/* A contact record as a DEM would hold it: the head sits inside a larger struct. */
typedef struct rec {
    double other;
    uint32_t top;
    uint32_t len;
    char tag;
} rec;

#define NREC 6
#define MAXLEN 4000

typedef struct snapshot {
    uint32_t len[NREC];
    ldem_history_cell cells[NREC][MAXLEN];
    double force[NREC][MAXLEN];
} snapshot;

static void take(const ldem_history_pool *pool, const rec *r, snapshot *s)
{
    for (int k = 0; k < NREC; k++) {
        uint32_t n = 0;
        for (uint32_t i = r[k].top; i; i = pool->next[i]) {
            cr_assert_lt(n, MAXLEN);
            s->cells[k][n] = pool->cell[i];
            s->force[k][n] = pool->cache_force ? pool->force[i] : 0;
            n++;
        }
        s->len[k] = n;
    }
}

/* Build NREC interleaved stacks with random pushes and pops, plus a large garbage stack that
 * is cleared so that most of the pool is free. */
static void build_stacks(ldem_history_pool *pool, rec *r, uint64_t seed)
{
    cf_rng rng;
    cf_rng_seed(&rng, seed);
    for (int k = 0; k < NREC; k++)
        r[k] = (rec){.other = 100.0 + k, .top = 0, .len = 0, .tag = (char)('a' + k)};
    uint32_t garbage = 0;
    for (int round = 0; round < 2500; round++) {
        for (int k = 0; k < NREC; k++) {
            if (k == 3)
                continue; /* one contact stays empty (head 0) */
            if (cf_rng_uniform(&rng) < 0.7 || r[k].len == 0) {
                r[k].top =
                    push_val(pool, r[k].top, round + 0.1 * k, cf_rng_sym(&rng), cf_rng_sym(&rng));
                r[k].len++;
            } else {
                r[k].top = ldem_history_pop(pool, r[k].top);
                r[k].len--;
            }
            for (int g = 0; g < 20; g++)
                garbage = push_val(pool, garbage, -1, 0, 0);
        }
    }
    ldem_history_clear(pool, garbage);
}

static void compact_several(bool cache)
{
    ldem_history_pool pool;
    cf_pool(&pool, 64, cache);
    rec r[NREC];
    build_stacks(&pool, r, 0x1234 + cache);
    uint32_t live = pool.live, cap = pool.capacity, total = 0;
    for (int k = 0; k < NREC; k++)
        total += r[k].len;
    cr_assert_eq(live, total);
    cr_assert_lt(4 * live, cap, "the garbage must leave most of the pool free");
    cr_assert(ldem_history_pool_should_compact(&pool));
    static snapshot before, after;
    take(&pool, r, &before);

    ldem_err err;
    cr_assert_eq(ldem_history_pool_compact(&pool, &r[0].top, NREC, sizeof(rec), &err), LDEM_OK,
                 "%s", err.msg);
    cr_assert_eq(pool.live, live);
    cr_assert_lt(pool.capacity, cap / 2, "capacity %u must shrink from %u", pool.capacity, cap);
    cr_assert_geq(pool.capacity, live + 1);
    cr_assert(!ldem_history_pool_should_compact(&pool), "a compacted pool is mostly live");
    take(&pool, r, &after);
    /* Same values in the same order; the rest of each record untouched. */
    for (int k = 0; k < NREC; k++) {
        cr_assert_eq(after.len[k], before.len[k]);
        cr_assert(
            memcmp(after.cells[k], before.cells[k], before.len[k] * sizeof(ldem_history_cell)) == 0,
            "stack %d changed", k);
        cr_assert(memcmp(after.force[k], before.force[k], before.len[k] * sizeof(double)) == 0,
                  "cached forces of stack %d changed", k);
        cr_assert(r[k].other == 100.0 + k && r[k].tag == 'a' + k && r[k].len == before.len[k],
                  "compaction must only rewrite the head field");
    }
    cr_assert_eq(r[3].top, 0u, "an empty contact stays empty");
    /* Live cells moved to the front, each stack contiguous and top first. */
    static unsigned char seen[1u << 20];
    memset(seen, 0, sizeof seen);
    for (int k = 0; k < NREC; k++) {
        for (uint32_t i = r[k].top; i; i = pool.next[i]) {
            cr_assert(i >= 1 && i <= live, "live cell %u not in the front block", i);
            cr_assert(!seen[i]);
            seen[i] = 1;
            cr_assert(pool.next[i] == 0 || pool.next[i] == i + 1,
                      "stack %d not contiguous top first at %u", k, i);
        }
    }
    /* The free list is consistent: new cells never land on live ones. */
    uint32_t fresh = 0;
    for (int i = 0; i < 30000; i++)
        fresh = push_val(&pool, fresh, 1e6 + i, 7, 7);
    take(&pool, r, &after);
    for (int k = 0; k < NREC; k++)
        cr_assert(
            memcmp(after.cells[k], before.cells[k], before.len[k] * sizeof(ldem_history_cell)) == 0,
            "pushing after compaction overwrote stack %d", k);
    uint32_t k = 30000;
    for (uint32_t i = fresh; i; i = pool.next[i])
        cr_assert_eq(pool.cell[i].base, 1e6 + --k);
    cr_assert_eq(k, 0u);
    cr_assert_eq(pool.live, live + 30000);
    ldem_history_pool_free(&pool);
}

Test(history_pool, compaction_of_several_contacts)
{
    compact_several(false);
}

Test(history_pool, compaction_with_force_cache)
{
    compact_several(true);
}

/* Misuse: a live cell outside the listed stacks, or a stack listed twice, is refused with
 * LDEM_ERR_USAGE and the pool left unchanged. */
Test(history_pool, compaction_refuses_inconsistent_heads)
{
    ldem_history_pool pool;
    cf_pool(&pool, 64, false);
    rec r[NREC];
    build_stacks(&pool, r, 99);
    static snapshot before, after;
    take(&pool, r, &before);
    uint32_t cap = pool.capacity, live = pool.live, fh = pool.free_head;
    uint32_t heads[NREC];
    for (int k = 0; k < NREC; k++)
        heads[k] = r[k].top;
    ldem_err err;

    /* Stack 5 left out: its cells are live but belong to no listed stack. */
    ldem_err_clear(&err);
    cr_assert_eq(ldem_history_pool_compact(&pool, heads, NREC - 1, sizeof(uint32_t), &err),
                 LDEM_ERR_USAGE);
    cr_assert_eq(err.code, LDEM_ERR_USAGE);
    /* Stack 0 listed twice (in place of stack 5). */
    uint32_t dup[NREC];
    memcpy(dup, heads, sizeof dup);
    dup[5] = heads[0];
    cr_assert_eq(ldem_history_pool_compact(&pool, dup, NREC, sizeof(uint32_t), &err),
                 LDEM_ERR_USAGE);
    cr_assert_eq(
        memcmp(dup, (uint32_t[NREC]){heads[0], heads[1], heads[2], heads[3], heads[4], heads[0]},
               sizeof dup),
        0, "refused compaction must not rewrite heads");
    for (int k = 0; k < NREC; k++)
        cr_assert_eq(heads[k], r[k].top, "refused compaction must not rewrite heads");
    cr_assert(pool.capacity == cap && pool.live == live && pool.free_head == fh,
              "refused compaction must leave the pool unchanged");
    take(&pool, r, &after);
    for (int k = 0; k < NREC; k++)
        cr_assert(memcmp(after.cells[k], before.cells[k],
                         before.len[k] * sizeof(ldem_history_cell)) == 0);
    /* And the complete list still works. */
    cr_assert_eq(ldem_history_pool_compact(&pool, heads, NREC, sizeof(uint32_t), &err), LDEM_OK,
                 "%s", err.msg);
    ldem_history_pool_free(&pool);
}

/* ---- Contacts sharing one pool ----
 * The Jäger step only follows its own chain, so two contacts interleaved in one pool (their
 * cells mixed, indices reused through the free list, compactions in between) must produce
 * bit-identical forces to each contact run alone in its own pool. */

#define NSTATES 400

typedef struct hist {
    double d[NSTATES], s[NSTATES][2];
} hist;

static void make_hist(hist *h, uint64_t seed, double d_ref, double s_ref)
{
    cf_rng rng;
    cf_rng_seed(&rng, seed);
    double d = d_ref, s[2] = {0, 0};
    for (int i = 0; i < NSTATES; i++) {
        cf_random_state(&rng, d_ref, s_ref, false, &d, s);
        h->d[i] = d;
        h->s[i][0] = s[0];
        h->s[i][1] = s[1];
    }
}

typedef struct result {
    double n, t[2];
    uint32_t len;
} result;

static void run_alone(const ldem_jager_params *p, const hist *h, bool cache, result *out)
{
    ldem_history_pool pool;
    cf_pool(&pool, 16, cache);
    ldem_jager_contact c;
    ldem_jager_contact_init(&c);
    for (int i = 0; i < NSTATES; i++) {
        cr_assert_eq(ldem_jager_move_to(p, &pool, &c, h->d[i], h->s[i]), LDEM_OK);
        out[i] = (result){c.n, {c.t[0], c.t[1]}, c.length};
    }
    ldem_jager_release(&pool, &c);
    ldem_history_pool_free(&pool);
}

Test(history_pool, contacts_sharing_a_pool_do_not_interact)
{
    ldem_jager_params p;
    cf_params(&CF_GLASS, 0.0, false, &p);
    cf_consts k = cf_consts_of(&CF_GLASS);
    const double d_ref = 1e-6, s_ref = cf_smax(&k, d_ref);
    static hist ha, hb;
    make_hist(&ha, 11, d_ref, s_ref);
    make_hist(&hb, 22, d_ref, s_ref);
    static result ra[NSTATES], rb[NSTATES], rc[NSTATES];
    run_alone(&p, &ha, false, ra);
    run_alone(&p, &hb, false, rb);

    for (int variant = 0; variant < 2; variant++) { /* 1: compact every 50 states */
        ldem_history_pool pool;
        cf_pool(&pool, 16, false);
        ldem_jager_contact c[2];
        ldem_jager_contact_init(&c[0]);
        ldem_jager_contact_init(&c[1]);
        for (int i = 0; i < NSTATES; i++) {
            cr_assert_eq(ldem_jager_move_to(&p, &pool, &c[0], ha.d[i], ha.s[i]), LDEM_OK);
            cr_assert_eq(ldem_jager_move_to(&p, &pool, &c[1], hb.d[i], hb.s[i]), LDEM_OK);
            cr_assert(c[0].n == ra[i].n && c[0].t[0] == ra[i].t[0] && c[0].t[1] == ra[i].t[1] &&
                          c[0].length == ra[i].len,
                      "state %d: contact A differs from its solo run", i);
            cr_assert(c[1].n == rb[i].n && c[1].t[0] == rb[i].t[0] && c[1].t[1] == rb[i].t[1] &&
                          c[1].length == rb[i].len,
                      "state %d: contact B differs from its solo run", i);
            /* every cell is in the pool or held by its contact, none twice */
            cr_assert_eq(pool.live + c[0].nheld + c[1].nheld, c[0].length + c[1].length);
            if (variant == 1 && i % 50 == 49) {
                ldem_err err;
                cr_assert_eq(ldem_history_pool_compact(&pool, &c[0].top, 2,
                                                       sizeof(ldem_jager_contact), &err),
                             LDEM_OK, "%s", err.msg);
            }
        }
        ldem_jager_release(&pool, &c[0]);
        ldem_jager_release(&pool, &c[1]);
        cr_assert_eq(pool.live, 0u);
        ldem_history_pool_free(&pool);
    }

    /* Kuhn's cached N(z) per cell against recomputing it: the same forces to round-off. */
    run_alone(&p, &ha, true, rc);
    double worst = 0;
    for (int i = 0; i < NSTATES; i++) {
        double mun = p.mu * fmax(ra[i].n, 1e-300);
        if (ra[i].n > 0)
            worst = fmax(worst, hypot(rc[i].t[0] - ra[i].t[0], rc[i].t[1] - ra[i].t[1]) / mun);
        cr_assert_eq(rc[i].len, ra[i].len);
    }
    cr_log_info("force cache vs recomputed N(z): max |dT| %.2g muN", worst);
    cr_assert_leq(worst, 1e-13, "cached vs recomputed N: %g muN", worst);
}

/* The two top cells a Jäger contact holds itself (ldem/contact/jager.h). Cattaneo loading at
 * constant d after a normal loading in small steps: each tangential step swallows the slip
 * cell on top and lands its front in the elastic cell below, then pushes a new slip cell. Such
 * a step (one cell popped, one pushed) must leave the pool untouched, which is what keeps a
 * DEM step off the pool's scattered memory; and when the front crosses into a pooled cell, that
 * cell moves up, so that the next steps find both again. */
Test(history_pool, held_cells_keep_one_for_one_steps_off_the_pool)
{
    ldem_jager_params p;
    cf_params(&CF_GLASS, 0.0, false, &p);
    p.full_history = true; /* the 40 equal legs below would merge into one */
    ldem_history_pool pool;
    cf_pool(&pool, 16, false);
    ldem_jager_contact c;
    ldem_jager_contact_init(&c);
    const double d = 1e-6;
    const int normal_steps = 40;
    for (int i = 1; i <= normal_steps; i++) /* 40 elastic cells of slope 0 */
        cr_assert_eq(ldem_jager_move_to(&p, &pool, &c, d * i / normal_steps,
                                        (double[2]){0, 0}), LDEM_OK);
    cr_assert_eq(c.length, (uint32_t)normal_steps);
    cr_assert_eq(c.nheld, 2u);
    cr_assert_eq(pool.live, (uint32_t)normal_steps - 2);

    /* Tangential steps up to half the sliding distance, in 400 pieces along x. */
    const double s_slide = p.mu * p.pair.kappa * d, ds = 0.5 * s_slide / 400;
    uint32_t quiet = 0, moved_up = 0;
    for (int i = 1; i <= 400; i++) {
        uint32_t len0 = c.length, live0 = pool.live, free0 = pool.free_head, nheld0 = c.nheld;
        cr_assert_eq(ldem_jager_move_to(&p, &pool, &c, d, (double[2]){ds * i, 0}), LDEM_OK);
        cf_check_stack(&p, &pool, &c, 1e-12);
        cr_assert_eq(pool.live + c.nheld, c.length, "state %d: cells lost or doubled", i);
        if (i > 1 && c.length == len0 && nheld0 == 2) {
            cr_assert(pool.live == live0 && pool.free_head == free0,
                      "state %d: a one-for-one step touched the pool", i);
            quiet++;
        }
        if (c.length < len0 && c.nheld == 2 && nheld0 == 2)
            moved_up++; /* the front crossed into a pooled cell, which moved up */
    }
    cr_log_info("%u one-for-one steps off the pool, %u crossings into pooled cells", quiet,
                moved_up);
    cr_assert_geq(quiet, 200u, "only %u of 400 steps were one-for-one", quiet);
    cr_assert_geq(moved_up, 5u, "the front crossed into pooled cells only %u times", moved_up);
    ldem_jager_release(&pool, &c);
    cr_assert_eq(pool.live, 0u);
    ldem_history_pool_free(&pool);
}
