/* nn_gradcheck.c - analytic against central-difference gradients (nn.h). */
#include <math.h>
#include <stdlib.h>

#include "nn.h"
#include "util/error.h"

static double rel_err(double a, double num, double floor)
{
	double d = fabs(a) > fabs(num) ? fabs(a) : fabs(num);

	if (d < floor)
		d = floor;
	return fabs(a - num) / d;
}

/* Check every stride-th coordinate of v against the analytic gradient ga;
 * base is the index of v[0] in the combined (w, x) numbering, l0 the loss
 * at the unperturbed point. */
static void check_vector(ss_gradcheck_result *r, ss_nn_lossfn f, void *ud, float *w,
			 float *x, float *v, size_t n, const float *ga, size_t base,
			 double l0, const ss_gradcheck_opts *o)
{
	size_t stride = 1;

	if (o->max_coords && n > o->max_coords)
		stride = (n + o->max_coords - 1) / o->max_coords;
	for (size_t i = 0; i < n; i += stride) {
		float saved = v[i];
		double lp, lm, hp, hm, num, e;

		v[i] = saved + o->eps;
		lp = f(ud, w, NULL, x, NULL);
		v[i] = saved - o->eps;
		lm = f(ud, w, NULL, x, NULL);
		v[i] = saved;
		/* divide by the steps actually taken after float rounding */
		hp = (double)(saved + o->eps) - saved;
		hm = saved - (double)(saved - o->eps);
		num = (lp - lm) / (hp + hm);
		/* a switch within eps on one side bends one one-sided slope; the
		 * central difference is then off by half their gap, while a
		 * smooth loss only separates them by eps * curvature */
		if (o->kink_tol > 0.0 &&
		    rel_err((lp - l0) / hp, (l0 - lm) / hm, o->floor) > o->kink_tol) {
			r->kinks++;
			continue;
		}
		e = rel_err(ga[i], num, o->floor);
		r->checked++;
		if (e > r->max_rel_err) {
			r->max_rel_err = e;
			r->worst = base + i;
		}
	}
}

int ss_nn_gradcheck_full(ss_gradcheck_result *out, ss_nn_lossfn f, void *ud,
			 float *w, size_t nw, float *x, size_t nx,
			 const ss_gradcheck_opts *opts)
{
	static const ss_gradcheck_opts defaults = SS_GRADCHECK_OPTS_INIT;
	const ss_gradcheck_opts *o = opts ? opts : &defaults;
	float *gw = calloc(nw ? nw : 1, sizeof(float));
	float *gx = calloc(nx ? nx : 1, sizeof(float));
	ss_gradcheck_result r = { 0.0, 0, 0, 0 };
	double l0;
	int rc = 0;

	if (!gw || !gx) {
		rc = ss_error_code(SS_ENOMEM, "out of memory for gradient check");
		goto free_grads;
	}
	l0 = f(ud, w, gw, x, nx ? gx : NULL);
	check_vector(&r, f, ud, w, x, w, nw, gw, 0, l0, o);
	if (nx)
		check_vector(&r, f, ud, w, x, x, nx, gx, nw, l0, o);
	*out = r;

free_grads:
	free(gw);
	free(gx);
	return rc;
}

int ss_nn_gradcheck(double *out, ss_nn_lossfn f, void *ud, float *w,
		    size_t nw, float *x, size_t nx,
		    const ss_gradcheck_opts *opts)
{
	ss_gradcheck_result r;
	int rc = ss_nn_gradcheck_full(&r, f, ud, w, nw, x, nx, opts);

	if (!rc)
		*out = r.max_rel_err;
	return rc;
}
