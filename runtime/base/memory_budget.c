/* Memory limits for input-sized allocations (ldem/memory_budget.h). */
#include "ldem/memory_budget.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

int ldem_memory_parse_size(const char *text, uint64_t *bytes)
{
    if (!text || !isdigit((unsigned char)text[0]))
        return -1;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(text, &end, 10);
    if (errno == ERANGE)
        return -1;
    static const char *const units[] = {"", "K", "M", "G", "T"};
    int shift = -1;
    for (int u = 0; u < 5; u++) {
        size_t len = strlen(units[u]);
        if (strncasecmp(end, units[u], len) != 0)
            continue;
        const char *rest = end + len;
        /* "K", "KB", "KiB" (any case) all mean 1024 bytes; plain "B" means bytes */
        if (*rest == '\0' || (u > 0 && (strcasecmp(rest, "B") == 0 ||
                                        strcasecmp(rest, "iB") == 0)) ||
            (u == 0 && strcasecmp(rest, "B") == 0)) {
            shift = 10 * u;
            break;
        }
    }
    if (shift < 0 || n == 0)
        return -1;
    if (shift && n > (UINT64_MAX >> shift))
        return -1;
    *bytes = (uint64_t)n << shift;
    return 0;
}

uint64_t ldem_memory_machine_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return UINT64_MAX;
    return ldem_memory_mul((uint64_t)pages, (uint64_t)page);
}

uint64_t ldem_memory_limit(uint64_t limit)
{
    return limit ? limit : ldem_memory_machine_bytes();
}

uint64_t ldem_memory_mul(uint64_t a, uint64_t b)
{
    if (a && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

uint64_t ldem_memory_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t ldem_memory_from_double(double bytes)
{
    if (!(bytes >= 0.0))
        return isnan(bytes) ? UINT64_MAX : 0;
    /* 2^64 is exact in double; anything at or above it saturates */
    if (bytes >= 18446744073709551616.0)
        return UINT64_MAX;
    return (uint64_t)ceil(bytes);
}

const char *ldem_memory_format(uint64_t bytes, char *buf, size_t size)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes == UINT64_MAX) {
        snprintf(buf, size, "more than 16 EiB");
        return buf;
    }
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, size, u ? "%.3g %s" : "%.0f %s", v, units[u]);
    return buf;
}

int ldem_memory_check(uint64_t limit, uint64_t estimate, const char *file, long line,
                      const char *key, ldem_err *err)
{
    uint64_t cap = ldem_memory_limit(limit);
    if (estimate <= cap)
        return LDEM_OK;
    char need[32], have[32];
    return ldem_err_set(err, LDEM_ERR_INPUT, file, line,
                        "%s needs %s%s (limit %s; see --max-memory)", key,
                        estimate == UINT64_MAX ? "" : "~",
                        ldem_memory_format(estimate, need, sizeof need),
                        ldem_memory_format(cap, have, sizeof have));
}
