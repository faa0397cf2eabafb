/* Shared by the fuzz targets whose parsers take a path rather than bytes (scenes, checkpoints,
 * STL, .inp, .frd): each input is written to a file in a private temporary folder first.
 * Also the error-status check every target makes. */
#ifndef LDEM_FUZZ_COMMON_H
#define LDEM_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ldem/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define fuzz_require(cond)                                                                   \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "%s: property violated: %s (line %d)\n", __FILE__, #cond,        \
                    __LINE__);                                                               \
            abort();                                                                         \
        }                                                                                    \
    } while (0)

/* The folder (created on first use, removed with its files at exit; logging is quieted to
 * errors at the same time, so a fuzzing run is not slowed by warnings). */
const char *fuzz_dir(void);

/* Write `size` bytes to fuzz_dir()/name and return the path (static storage, valid until
 * the next call). Aborts if the file cannot be written: the target would test nothing. */
const char *fuzz_write(const char *name, const uint8_t *data, size_t size);

/* A failed call must say why, with a status an input can cause. (FUZZ_VERBOSE set in the
 * environment: print the error, to see how far each seed gets.) */
void fuzz_check_error(int rc, const ldem_err *err);

#endif
