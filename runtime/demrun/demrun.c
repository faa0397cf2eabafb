/* demrun — the DEM runtime: a scene file and grain bundles in; VTU frames, a probes table and
 * checkpoints out. */
#include "demrun.h"
#include "ldem/log.h"

int main(int argc, char **argv)
{
    ldem_log_set_program("demrun");
    demrun_options o;
    int status = demrun_parse_args(argc, argv, &o);
    if (status < 0)
        status = demrun_run(&o);
    demrun_options_free(&o);
    return status;
}
