/* chain_floor: a lower bound on the time of the exact Jäger law on one contact.
 *
 * A history replayed through one contact is a serial computation: the slip front of a step is
 * the root of a quadratic whose coefficients come from the slope and base level of the cell
 * the previous step pushed, so every slipping step waits for the square root and division of
 * the one before. chain_floor_record() runs the exact law once (untimed) and keeps, for every
 * step, only what the stack contributes that does not depend on that chain: the slope of the
 * segment the front lands in, and the displacement and force of the older segments the step
 * swallows, summed. chain_floor_replay() then recomputes each step's arithmetic from those
 * constants and its own previous step: the Hertz force at the new top, the carried vector,
 * the root, the new slip slope (by the cheapest exact form, one division), the Hertz force at
 * the front and T. No stack, no pool, no search for the landing segment, no step-kind tests.
 *
 * Any implementation of the exact law computes at least this, in this order, so its time per
 * update bounds the law's own from below on this machine. chain_floor_check() confirms that
 * the replay reproduces the law's slip levels, slopes and forces.
 */
#ifndef BENCH_CHAIN_FLOOR_H
#define BENCH_CHAIN_FLOOR_H

#include <stddef.h>
#include <stdint.h>

#include "ldem/contact/jager.h"

enum chain_kind {
    CHAIN_PUSH,  /* elastic loading: a new cell of slope c/Δd, nothing slips */
    CHAIN_ROOT,  /* the slip front lands inside a segment: root, new slip cell */
    CHAIN_COPY,  /* anything else (first touch, gross sliding, retrace): the law's result */
};

/* Where a CHAIN_ROOT step's front lands, counted from the old top (the replay's own cell). */
enum chain_landing {
    LAND_TOP,   /* in the old top segment */
    LAND_NEXT,  /* in the segment just below it, whose top is the old top's base */
    LAND_DEEP,  /* deeper: the segments in between are swallowed whole */
};

typedef struct chain_step {
    double d1;         /* approach after the step */
    double c[2];       /* tangential move / κ */
    /* CHAIN_ROOT: */
    double z_l, n_l;   /* top level of the landing segment in this step and N there (LAND_TOP,
                        * LAND_DEEP; for LAND_NEXT they follow from the old top's base) */
    double w_l[2];     /* slope of the landing segment (LAND_NEXT, LAND_DEEP) */
    double a_l;        /* μ² − |w_l|² */
    double w1[2];      /* slope of the segment below the old top (LAND_NEXT, LAND_DEEP) */
    double b1, n_b1;   /* its base level and N there (LAND_DEEP) */
    double o[2];       /* ∫ w dz over the older segments swallowed or cut (LAND_DEEP) */
    double p[2];       /* ∫ w dN over the same */
    uint32_t kind;     /* enum chain_kind */
    uint32_t landing;  /* enum chain_landing */
} chain_step;

/* The law's state after a step, for CHAIN_COPY and for the check. */
typedef struct chain_outcome {
    double w[2], base, n_base, t[2];
} chain_outcome;

typedef struct chain_floor {
    size_t n;
    chain_step *step;
    chain_outcome *law;
    double mu, cn;
    size_t counts[3]; /* steps of each kind */
} chain_floor;

/* Run the exact law (p, beta 0, no force cache) over the history (d1 and ds per step) from
 * the unloaded state and record the chain's constants. Returns 0, or -1 if out of memory or
 * the law failed. */
int chain_floor_record(chain_floor *f, const ldem_jager_params *p, size_t n, const double *d,
                       const double (*ds)[2]);

/* Recompute the history; returns a checksum (Σ Tx). With out != NULL, stores each step's
 * state there (untimed use). */
double chain_floor_replay(const chain_floor *f, chain_outcome *out);

/* Largest deviation of the replay from the law: slip levels over d1, slip slopes over μ (on
 * CHAIN_ROOT steps), and T over μN (all steps). Returns 0, or -1 if out of memory. */
int chain_floor_check(const chain_floor *f, double *dz, double *dw, double *dt);

void chain_floor_free(chain_floor *f);

#endif
