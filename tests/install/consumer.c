/* Built outside the source tree against an installed libldem, found with pkg-config:
 * proves the installed headers, libraries and ldem.pc are complete. */
#include <ldem/bundle.h>
#include <ldem/quat.h>
#include <ldem/sections.h>
#include <ldem/version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    ldem_meta m;
    ldem_meta_init(&m);
    ldem_err err;
    unsigned char *payload = NULL;
    uint64_t len = 0;
    ldem_bundle b;
    ldem_bundle_init(&b);
    if (ldem_meta_set(&m, "name", "consumer", &err) || ldem_meta_encode(&m, &payload, &len, &err) ||
        ldem_bundle_put(&b, LDEM_TAG_META, 0, payload, len, &err)) {
        ldem_err_print(&err, "consumer", stderr);
        return 1;
    }
    char *buf = NULL;
    size_t size = 0;
    FILE *fp = open_memstream(&buf, &size);
    int rc = ldem_bundle_write(fp, "memory", &b, &err);
    fclose(fp);
    /* Read it back through the installed reader and decoder. */
    ldem_bundle back;
    ldem_meta m2;
    ldem_meta_init(&m2);
    ldem_bundle_init(&back);
    ldem_bundle_reader *r = NULL;
    int have = 0;
    fp = fmemopen(buf, size, "rb");
    if (!rc)
        rc = ldem_bundle_reader_open(&r, fp, "memory", &err);
    if (!rc)
        rc = ldem_bundle_read(r, &back, &have, &err);
    const ldem_section *meta = rc ? NULL : ldem_bundle_find(&back, LDEM_TAG_META);
    if (!rc && meta)
        rc = ldem_meta_decode(meta, "memory", &m2, &err);
    const char *name = rc ? NULL : ldem_meta_get(&m2, "name");
    ldem_quat q = ldem_quat_increment(ldem_quat_identity(), ldem_vec3_make(0, 0, 1e-3),
                                      LDEM_QUAT_RENORM_EXACT);
    double norm = ldem_quat_norm(q); /* exact renormalization: unit to round-off */
    int ok = !rc && have && name && strcmp(name, "consumer") == 0 &&
             size == 16 + 16 + len + 4 + 20 && norm > 1 - 1e-15 && norm < 1 + 1e-15;
    if (rc)
        ldem_err_print(&err, "consumer", stderr);
    printf("ldem %s: %zu-byte bundle written and read back (META name=%s), |q| = %.17g: %s\n",
           LDEM_VERSION, size, name ? name : "?", norm, ok ? "ok" : "FAILED");
    ldem_bundle_reader_close(r);
    fclose(fp);
    ldem_bundle_free(&back);
    ldem_bundle_free(&b);
    ldem_meta_free(&m2);
    ldem_meta_free(&m);
    free(buf);
    return ok ? 0 : 1;
}
