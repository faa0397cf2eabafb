/* The bundle fixture of the round-trip tests: one bundle holding every section type (and
 * an unknown section, which must be carried through untouched), and exact, bit-for-bit
 * comparisons of decoded sections with it. */
#ifndef LDEM_TESTS_BUNDLE_FIXTURE_H
#define LDEM_TESTS_BUNDLE_FIXTURE_H

#include <stdint.h>

#include "ldem/bundle.h"
#include "ldem/sections.h"

/* The unknown section's payload (31 bytes and the string's final NUL) and flags. */
extern const unsigned char xtra_payload[32];
#define XTRA_FLAGS 0x5u

typedef struct fixture {
    ldem_meta meta;
    ldem_lset lset;
    ldem_nodes nodes;
    ldem_body body;
    ldem_modes modes;
    ldem_matrix kmat, mmat;
    ldem_etab etab;
} fixture;

/* Fill every section of the fixture; `kind` chooses sampled or analytic modes. */
void fixture_make(fixture *f, enum ldem_mode_kind kind);
void fixture_free(fixture *f);

/* The bundle of a fixture, sections in a fixed order, with the unknown XTRA in the middle. */
void fixture_bundle(const fixture *f, ldem_bundle *b);

/* The tags of fixture_bundle, in order. */
#define NFIXTURE_TAGS 9
extern const char *const fixture_tags[NFIXTURE_TAGS];

/* Decode every typed section of a read-back bundle and compare it with the fixture. */
void check_typed(const ldem_bundle *b, const fixture *f);

#endif
