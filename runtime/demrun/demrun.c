/* demrun — the DEM runtime: a scene file and grain bundles in; VTU frames, a probes table and
 * checkpoints out. */
#include "demrun.h"
#include "ldem/log.h"

int main(int argc, char **argv)
{
    ldem_log_set_program("demrun");
    /* under mpirun with several ranks: demrun-mpi, or a clear refusal */
    int launched = demrun_exec_mpi_if_launched(argv);
    if (launched >= 0)
        return launched;
    demrun_options o;
    int status = demrun_parse_args(argc, argv, &o);
    if (status < 0)
        status = demrun_run(&o);
    demrun_options_free(&o);
    return status;
}
