/* ldem/memory_budget.h — refuse, before allocating, what an input would make too large.
 *
 * A few bytes of input can ask for terabytes: a lattice count, a sample count, a grid
 * spacing. Rather than let malloc fail (or the kernel kill the process) half way through,
 * every allocation an input sizes is estimated first and checked here against a limit, and
 * the error names the input key that asked for it:
 *
 *   demrun: error: scene.yaml:9: grains.0.lattice.count needs ~93.1 GiB (limit 15.5 GiB;
 *   see --max-memory)
 *
 * The limit is the tool's --max-memory (ldem_memory_parse_size), or by default the machine's
 * physical memory (ldem_memory_machine_bytes). Physical memory, not /proc/meminfo's
 * MemAvailable: what is free changes from one moment to the next, and a limit that depends on
 * what else runs would make the same command succeed or fail at random; physical memory
 * refuses exactly what can never fit. Estimates are in uint64_t and saturate at UINT64_MAX
 * (ldem_memory_mul, ldem_memory_add), so products of hostile counts never wrap to small
 * numbers. */
#ifndef LDEM_MEMORY_BUDGET_H
#define LDEM_MEMORY_BUDGET_H

#include "ldem/export.h"

#include <stddef.h>
#include <stdint.h>

#include "ldem/err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parse a size: a whole number of bytes, optionally followed by K, M, G or T (powers of
 * 1024; "KiB", "MB", "GiB"... are accepted alike, also lower case). "512M", "4G",
 * "1073741824". Returns 0, or -1 when the text is not such a size or is 0 or overflows. */
LDEM_API int ldem_memory_parse_size(const char *text, uint64_t *bytes);

/* The machine's physical memory in bytes (sysconf pages × page size); UINT64_MAX when the
 * system does not say. */
LDEM_API uint64_t ldem_memory_machine_bytes(void);

/* `limit`, or the machine's memory when limit is 0 (the "not given" value). */
LDEM_API uint64_t ldem_memory_limit(uint64_t limit);

/* Saturating arithmetic for estimates: UINT64_MAX stands for "more than anything". */
LDEM_API uint64_t ldem_memory_mul(uint64_t a, uint64_t b);
LDEM_API uint64_t ldem_memory_add(uint64_t a, uint64_t b);
/* A non-negative double (a count computed in floating point) as bytes, saturating;
 * NaN counts as UINT64_MAX. */
LDEM_API uint64_t ldem_memory_from_double(double bytes);

/* Check `estimate` bytes against `limit` (0: the machine's memory). Within it: LDEM_OK.
 * Over it: LDEM_ERR_INPUT, with "<key> needs ~N GiB (limit M GiB; see --max-memory)" at
 * file:line in `err` (file may be NULL, line 0). */
LDEM_API int ldem_memory_check(uint64_t limit, uint64_t estimate, const char *file, long line,
                               const char *key, ldem_err *err);

/* "93.1 GiB", "512 MiB", "12 KiB", "100 B" into buf: the unit that keeps 1 to 1023. */
LDEM_API const char *ldem_memory_format(uint64_t bytes, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
