/* lsgen's command line: what the user asked for, parsed and checked, and the outputs. */
#ifndef LSGEN_CLI_H
#define LSGEN_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "shape.h"
#include "ldem/err.h"
#include "ldem/sections.h"

typedef struct lsgen_options {
    int is_mesh;             /* 1: geometry from a file (mesh_path); 0: analytic `shape` */
    const char *mesh_path;
    lsgen_shape shape;
    double h;                /* grid spacing; 0 = default (smallest extent / 20) */
    unsigned pad;            /* grid nodes beyond the bounding box on each side */
    double node_spacing;     /* 0 = default (h) */
    double feature_angle;    /* degrees, mesh remeshing */
    double mesh_size;        /* CAD meshing size; 0 = default (node spacing / 2) */
    double timeout;          /* seconds for each Gmsh step; 0 = none */
    double density;
    int density_given;       /* 0: density is the default 1 (warned, META lsgen.density) */
    double scale;            /* --scale (1) and --translate (0): the input geometry x is */
    double translate[3];     /*   taken as scale·x + translate before anything else */
    int transformed;         /* 1: either was given (recorded in META for modefit) */
    const char *unit, *name;
    const char *output, *vti, *vtu;
    int encoding;            /* enum ldem_vtk_encoding */
    int threads;             /* 0 = OpenMP's default */
    uint64_t max_memory;     /* --max-memory bytes; 0 = the machine's physical memory */
    int progress;
    int verbosity;           /* -v minus -q */
    const char *command_line;/* argv joined, recorded in META */
} lsgen_options;

/* Parse argv. Returns 0 to run, -1 after printing --help/--version (exit 0), or 2 after
 * printing a one-line usage error. */
int lsgen_parse_args(int argc, char **argv, lsgen_options *o);
void lsgen_options_free(lsgen_options *o);

/* What lsgen computed for one grain, in the body frame. */
typedef struct lsgen_result {
    ldem_meta meta;
    ldem_lset lset;
    ldem_nodes nodes;
    ldem_body body;
} lsgen_result;

void lsgen_result_free(lsgen_result *r);

/* Write the bundle (META LSET NODE BODY) and the requested previews. Every file is written
 * to a temporary name and renamed, so each output is whole or absent. */
int lsgen_write_outputs(const lsgen_options *o, const lsgen_result *r, ldem_err *err);

#endif
