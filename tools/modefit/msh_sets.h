/* Gmsh physical groups as node sets (msh_sets.c), beside the deck's sets (inp_sets.h). */
#ifndef MODEFIT_MSH_SETS_H
#define MODEFIT_MSH_SETS_H

#include "inp_sets.h"

/* The nodes of every physical group of the .msh at `path` named `name` (case-insensitive),
 * as an INP_SET_NODES set of Gmsh node tags. No such group: LDEM_ERR_INPUT listing the
 * file's group names. Uses the caller's Gmsh session if one is open. */
int msh_read_group(const char *path, const char *name, inp_set *set, ldem_err *err);

#endif
