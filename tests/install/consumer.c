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
    ldem_quat q = ldem_quat_increment(ldem_quat_identity(), ldem_vec3_make(0, 0, 1e-3),
                                      LDEM_QUAT_RENORM_EXACT);
    printf("ldem %s: wrote a %zu-byte bundle, |q| = %.17g\n", LDEM_VERSION, size,
           ldem_quat_norm(q));
    ldem_bundle_free(&b);
    ldem_meta_free(&m);
    free(buf);
    return rc != 0 || size != 16 + 16 + len + 4 + 20;
}
