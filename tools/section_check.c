#include "section_check.h"

#include <string.h>

#include "ldem/sections.h"

/* Each decoder fills its struct and the matching free releases it; only the verdict stays. */
#define DECODE_AND_FREE(type, decode, release)                                                   \
    do {                                                                                         \
        type v;                                                                                  \
        memset(&v, 0, sizeof v);                                                                 \
        int rc = decode(s, source, &v, err);                                                     \
        if (rc == LDEM_OK)                                                                       \
            release(&v);                                                                         \
        return rc;                                                                               \
    } while (0)

static void body_release(ldem_body *b)
{
    (void)b; /* fixed-size: nothing to free */
}

int section_check(const ldem_section *s, const char *source, ldem_err *err)
{
    if (!strcmp(s->tag, LDEM_TAG_META))
        DECODE_AND_FREE(ldem_meta, ldem_meta_decode, ldem_meta_free);
    if (!strcmp(s->tag, LDEM_TAG_LSET))
        DECODE_AND_FREE(ldem_lset, ldem_lset_decode, ldem_lset_free);
    if (!strcmp(s->tag, LDEM_TAG_NODE))
        DECODE_AND_FREE(ldem_nodes, ldem_nodes_decode, ldem_nodes_free);
    if (!strcmp(s->tag, LDEM_TAG_BODY))
        DECODE_AND_FREE(ldem_body, ldem_body_decode, body_release);
    if (!strcmp(s->tag, LDEM_TAG_MODE))
        DECODE_AND_FREE(ldem_modes, ldem_modes_decode, ldem_modes_free);
    if (!strcmp(s->tag, LDEM_TAG_KMAT) || !strcmp(s->tag, LDEM_TAG_MMAT))
        DECODE_AND_FREE(ldem_matrix, ldem_matrix_decode, ldem_matrix_free);
    if (!strcmp(s->tag, LDEM_TAG_ETAB))
        DECODE_AND_FREE(ldem_etab, ldem_etab_decode, ldem_etab_free);
    if (!strcmp(s->tag, LDEM_TAG_DAMP))
        DECODE_AND_FREE(ldem_damping, ldem_damping_decode, ldem_damping_free);
    return LDEM_OK;
}
