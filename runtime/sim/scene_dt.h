/* scene_dt.h — the sanity check of a scene's time step against the critical estimates. */
#ifndef LDEM_SIM_SCENE_DT_H
#define LDEM_SIM_SCENE_DT_H

#include "ldem/err.h"
#include "ldem/sim/scene.h"

/* Set w->dt from the scene: `dt: auto` takes safety x the critical step (or the modal limit,
 * whichever is smaller) and logs which grain and law set it; a fixed dt above the critical
 * step t_c or above the modal limit 2/ω_max is an input error unless `time.force_dt: true`
 * (then a warning), and a fixed dt between safety x t_c and t_c is a warning. */
int scene_choose_dt(const ldem_scene *s, ldem_world *w, ldem_err *err);

#endif
