/* Small hand-built worlds for the simulation-layer unit tests (no scene file involved).
 *
 *   ldem_world w; wf_world(&w, 1, LDEM_LAW_HERTZ_JAGER);   one material "glass"
 *   wf_add_sphere(&w, pos, radius, velocity);               returns the body index
 *   wf_add_ls_sphere_shape(&w, R, h, subdiv);              a level-set sphere shape
 *   wf_add_ls_body(&w, shape, pos, q, velocity);
 *   wf_add_plane(&w, point, normal);
 *   wf_add_ls_box_shape(&w, a, h);                         a level-set cube, corner nodes
 *   wf_give_affine_mode(&w, shape, A, K, M, NULL);         one mode Φ(x) = A x (issue 7)
 *   wf_make_deformable(&w, body, eps);                     after every body exists
 *   wf_patch_section(path, out, tag, patch);               a bundle with one section changed
 *
 * Every call asserts success (Criterion cr_assert), so a test reads as its scenario. */
#ifndef LDEM_TEST_WORLD_FIXTURE_H
#define LDEM_TEST_WORLD_FIXTURE_H

#include <stdint.h>

#include "../support/law_states.h"
#include "ldem/bundle.h"
#include "ldem/sim/world.h"

/* Material "glass": E 70e9, nu 0.25, density 2500, friction 0.3, one pair law `law`
 * (beta 0; linear law kn = ks = 1e6). Pools initialized, dt 1e-7. */
void wf_world(ldem_world *w, int law);

/* Append an analytic sphere body of material 0 (mass and inertia from the density). */
uint32_t wf_add_sphere(ldem_world *w, ldem_vec3 x, double radius, ldem_vec3 v);

/* Append a level-set shape: signed distance of a sphere of radius R sampled on a grid of
 * spacing h covering [−R−3h, R+3h]³, surface nodes of an icosphere subdivided `subdiv` times
 * (20·4^subdiv triangles) projected on the sphere, area weights = a third of the adjacent
 * triangle areas. Returns the shape index. */
uint32_t wf_add_ls_sphere_shape(ldem_world *w, double R, double h, int subdiv);

/* Append a level-set body of `shape` (mass from volume × density; inertia from the shape). */
uint32_t wf_add_ls_body(ldem_world *w, uint32_t shape, ldem_vec3 x, ldem_quat q, ldem_vec3 v);

/* Append a fixed plane wall of material 0. Returns the wall index. */
uint32_t wf_add_plane(ldem_world *w, ldem_vec3 point, ldem_vec3 normal);

/* Append a level-set cube of half side `a` (body frame [−a, a]³): its signed distance
 * sampled on a grid of spacing h covering [−a−3h, a+3h]³, and only the 8 corners as surface
 * nodes (area weight 3a² each), so that nothing touching a face away from its edges meets a
 * node of the cube. Near a face's centre φ is exactly linear (e.g. z − a), which trilinear
 * interpolation reproduces exactly when a and h are dyadic (no float32 rounding either).
 * Returns the shape index. */
uint32_t wf_add_ls_box_shape(ldem_world *w, double a, double h);

/* Give shape s one affine deformation mode Φ(x) = A x (A row-major, meant symmetric and
 * traceless: over a body centred at the origin such a field has no rigid part): node values
 * A X_k at the shape's nodes, the field A x on the shape's LSET grid (trilinear interpolation
 * is exact for it, up to float32 storage), KMAT (k), MMAT (m), and the ETAB table `table`
 * for mode 0 if not NULL (the modeset copies it). No damping. Replaces the shape's modes. */
void wf_give_affine_mode(ldem_world *w, uint32_t s, const double A[3][3], double k, double m,
                         const ldem_etab_table *table);

/* Flag body b deformable, rebuild the world's modal state (ldem_world_modal_init) keeping
 * the amplitudes of bodies that were already deformable (rates restart at zero), and set
 * b's amplitude to eps. Returns b's first modal DOF. Call after every body exists. */
uint32_t wf_make_deformable(ldem_world *w, uint32_t b, double eps);

/* Copy the bundle (a checkpoint) at `path` to `out` with section `tag` passed through `patch`
 * (which may change its bytes or its length). */
void wf_patch_section(const char *path, const char *out, const char *tag,
                      void (*patch)(ldem_section *));

#endif
