/* placeholder: deformable grains in the world (issue 7), written next */
#include <criterion/criterion.h>

Test(sim_modal, placeholder) { cr_assert(1); }
