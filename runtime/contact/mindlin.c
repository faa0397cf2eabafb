/* The incremental "modified Mindlin" tangential law (ldem/contact/mindlin.h). */
#include "ldem/contact/mindlin.h"

#include <math.h>
#include <string.h>

int ldem_mindlin_params_init(ldem_mindlin_params *p, const ldem_elastic_pair *pair, double mu,
                             ldem_err *err)
{
    if (!(isfinite(mu) && mu > 0))
        return ldem_err_set(err, LDEM_ERR_INPUT, NULL, 0,
                            "friction coefficient mu must be positive and finite (got %g)", mu);
    p->pair = *pair;
    p->mu = mu;
    return LDEM_OK;
}

void ldem_mindlin_contact_init(ldem_mindlin_contact *c)
{
    memset(c, 0, sizeof *c);
}

static void separate(ldem_mindlin_contact *c, double d1)
{
    c->d = d1;
    c->xi[0] = c->xi[1] = 0;
    c->a = 0;
    c->n = 0;
    c->t[0] = c->t[1] = 0;
}

static void mindlin_step(const ldem_mindlin_params *p, ldem_mindlin_contact *c, double d1,
                         double dx, double dy)
{
    if (!(d1 > 0)) {
        /* The spring's energy is lost when the contact opens. */
        c->dissipated += ldem_mindlin_stored_energy(p, c);
        separate(c, d1);
        return;
    }
    if (!(c->d > 0)) { /* first touch inside the step */
        double f = d1 / (d1 - c->d);
        dx *= f;
        dy *= f;
    }
    /* One square root serves both the contact radius and the Hertz force. */
    double root = sqrt(d1), a = p->pair.sqrt_rstar * root, kt = 2 * p->pair.gstar * a;
    double n = p->pair.cn * d1 * root;
    if (a < c->a) { /* normal unloading: the spring shrinks with the contact */
        double before = ldem_mindlin_stored_energy(p, c);
        double r = a / c->a;
        c->xi[0] *= r;
        c->xi[1] *= r;
        /* Energy of the spring at the new stiffness after rescaling, ½ k_t |ξ|². */
        double after = 0.5 * kt * (c->xi[0] * c->xi[0] + c->xi[1] * c->xi[1]);
        if (before > after)
            c->dissipated += before - after;
    }
    c->xi[0] += dx;
    c->xi[1] += dy;
    double tx = kt * c->xi[0], ty = kt * c->xi[1];
    double t2 = tx * tx + ty * ty, cap = p->mu * n;
    if (t2 > cap * cap) { /* Coulomb: slide back onto the cone, dissipating μN times the slip */
        double t = sqrt(t2), r = cap / t;
        c->dissipated += cap * (t - cap) / kt;
        tx *= r;
        ty *= r;
        c->xi[0] = tx / kt;
        c->xi[1] = ty / kt;
    }
    c->d = d1;
    c->a = a;
    c->n = n;
    c->t[0] = tx;
    c->t[1] = ty;
}

void ldem_mindlin_step(const ldem_mindlin_params *p, ldem_mindlin_contact *c, double d1,
                       const double ds[2])
{
    c->s[0] += ds[0];
    c->s[1] += ds[1];
    mindlin_step(p, c, d1, ds[0], ds[1]);
}

void ldem_mindlin_move_to(const ldem_mindlin_params *p, ldem_mindlin_contact *c, double d1,
                          const double s1[2])
{
    double dx = s1[0] - c->s[0], dy = s1[1] - c->s[1];
    c->s[0] = s1[0];
    c->s[1] = s1[1];
    mindlin_step(p, c, d1, dx, dy);
}

double ldem_mindlin_stored_energy(const ldem_mindlin_params *p, const ldem_mindlin_contact *c)
{
    if (!(c->a > 0))
        return 0;
    double kt = 2 * p->pair.gstar * c->a;
    return 0.5 * kt * (c->xi[0] * c->xi[0] + c->xi[1] * c->xi[1]);
}
