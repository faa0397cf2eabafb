/* ldg-info's output: one description of the facts, rendered as text or JSON. */
#ifndef LDG_INFO_FACTS_H
#define LDG_INFO_FACTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum facts_mode { FACTS_NONE, FACTS_TEXT, FACTS_JSON };

typedef struct facts {
    int mode;
    FILE *final;     /* where the output ends up */
    FILE *out;       /* where it is written now (a memory stream for JSON) */
    const char *file; /* current input, for text headings */
    char *buffer;
    size_t buffer_size;
    int nfiles, nbundles, nsections, nfacts;
} facts;

int facts_open(facts *f, int mode, FILE *final);
/* JSON is released to `final` only when `ok`. */
void facts_close(facts *f, int ok);

void facts_begin_file(facts *f, const char *name);
void facts_end_file(facts *f);
void facts_begin_bundle(facts *f, unsigned index, int64_t offset, uint32_t version);
void facts_end_bundle(facts *f, int64_t bytes);
void facts_begin_section(facts *f, const char *tag, int64_t offset, uint32_t flags,
                         uint64_t length);
void facts_end_section(facts *f);

void facts_str(facts *f, const char *key, const char *value);
void facts_num(facts *f, const char *key, double value);
void facts_count(facts *f, const char *key, uint64_t value);
void facts_vec(facts *f, const char *key, const double *v, size_t n);
void facts_counts(facts *f, const char *key, const uint32_t *v, size_t n);

#endif
