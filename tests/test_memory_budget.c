/* ldem/memory_budget.h: size strings, saturating estimates, the refusal line. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "ldem/memory_budget.h"

Test(memory_budget, parses_sizes)
{
    uint64_t b = 0;
    cr_assert_eq(ldem_memory_parse_size("1073741824", &b), 0);
    cr_assert_eq(b, 1073741824u);
    cr_assert_eq(ldem_memory_parse_size("512M", &b), 0);
    cr_assert_eq(b, 512u << 20);
    cr_assert_eq(ldem_memory_parse_size("4G", &b), 0);
    cr_assert_eq(b, UINT64_C(4) << 30);
    cr_assert_eq(ldem_memory_parse_size("4GiB", &b), 0);
    cr_assert_eq(b, UINT64_C(4) << 30);
    cr_assert_eq(ldem_memory_parse_size("16k", &b), 0);
    cr_assert_eq(b, 16u << 10);
    cr_assert_eq(ldem_memory_parse_size("2T", &b), 0);
    cr_assert_eq(b, UINT64_C(2) << 40);
    cr_assert_eq(ldem_memory_parse_size("100B", &b), 0);
    cr_assert_eq(b, 100u);
    static const char *const bad[] = {"", "0", "G", "-1G", " 1G", "1.5G", "1Q", "1GG",
                                      "1 G", "99999999999999999999", "16777216T"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert_eq(ldem_memory_parse_size(bad[i], &b), -1, "'%s' accepted", bad[i]);
}

Test(memory_budget, estimates_saturate)
{
    /* 464^3 grains times a kilobyte fits; 2^40 × 2^40 does not wrap to 0 */
    cr_assert_eq(ldem_memory_mul(UINT64_C(1) << 40, UINT64_C(1) << 40), UINT64_MAX);
    cr_assert_eq(ldem_memory_mul(UINT64_C(1) << 40, UINT64_C(1) << 20), UINT64_C(1) << 60);
    cr_assert_eq(ldem_memory_mul(0, UINT64_MAX), 0u);
    cr_assert_eq(ldem_memory_add(UINT64_MAX - 1, 2), UINT64_MAX);
    cr_assert_eq(ldem_memory_from_double(1e30), UINT64_MAX);
    cr_assert_eq(ldem_memory_from_double(0.0 / 0.0), UINT64_MAX);
    cr_assert_eq(ldem_memory_from_double(1024.5), 1025u);
    cr_assert_eq(ldem_memory_mul(ldem_memory_mul(UINT64_MAX, 3), 0), 0u);
}

Test(memory_budget, machine_memory_is_the_default)
{
    uint64_t machine = ldem_memory_machine_bytes();
    cr_assert_gt(machine, UINT64_C(1) << 26, "a machine with less than 64 MiB?");
    cr_assert_eq(ldem_memory_limit(0), machine);
    cr_assert_eq(ldem_memory_limit(12345), 12345u);
}

Test(memory_budget, refusal_names_key_and_estimate)
{
    ldem_err err;
    ldem_err_clear(&err);
    cr_assert_eq(ldem_memory_check(UINT64_C(1) << 30, UINT64_C(1) << 30, "s.yaml", 3, "k", &err),
                 LDEM_OK);
    cr_assert_eq(ldem_memory_check(UINT64_C(1) << 30, (UINT64_C(1) << 30) + 1, "s.yaml", 9,
                                   "grains.0.lattice.count", &err),
                 LDEM_ERR_INPUT);
    cr_assert_str_eq(err.file, "s.yaml");
    cr_assert_eq(err.line, 9);
    cr_assert_str_eq(err.msg, "grains.0.lattice.count needs ~1 GiB (limit 1 GiB; see "
                              "--max-memory)");
    cr_assert_eq(ldem_err_exit_code(&err), 2);
    cr_assert_eq(ldem_memory_check(64u << 20, UINT64_C(15) << 32, NULL, 0, "--h", &err),
                 LDEM_ERR_INPUT);
    cr_assert_str_eq(err.msg, "--h needs ~60 GiB (limit 64 MiB; see --max-memory)");
    cr_assert_eq(ldem_memory_check(1, UINT64_MAX, NULL, 0, "--h", &err), LDEM_ERR_INPUT);
    cr_assert_str_eq(err.msg, "--h needs more than 16 EiB (limit 1 B; see --max-memory)");
}
