/* Small hand-built worlds for the simulation-layer unit tests (no scene file involved).
 *
 *   ldem_world w; wf_world(&w, 1, LDEM_LAW_HERTZ_JAGER);   one material "glass"
 *   wf_add_sphere(&w, pos, radius, velocity);               returns the body index
 *   wf_add_ls_sphere_shape(&w, R, h, subdiv);              a level-set sphere shape
 *   wf_add_ls_body(&w, shape, pos, q, velocity);
 *   wf_add_plane(&w, point, normal);
 *
 * Every call asserts success (Criterion cr_assert), so a test reads as its scenario. */
#ifndef LDEM_TEST_WORLD_FIXTURE_H
#define LDEM_TEST_WORLD_FIXTURE_H

#include <stdint.h>

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

#endif
