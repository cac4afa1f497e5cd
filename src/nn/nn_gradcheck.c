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

/* Central difference of f along coordinate v[i] with step eps. */
static double central(ss_nn_lossfn f, void *ud, float *w, float *x, float *v, size_t i,
		      float eps)
{
	float saved = v[i];
	double lp, lm;

	v[i] = saved + eps;
	lp = f(ud, w, NULL, x, NULL);
	v[i] = saved - eps;
	lm = f(ud, w, NULL, x, NULL);
	v[i] = saved;
	/* divide by the step actually taken after float rounding */
	return (lp - lm) / ((double)(saved + eps) - (double)(saved - eps));
}

/* Check every stride-th coordinate of v against the analytic gradient ga;
 * base is the index of v[0] in the combined (w, x) numbering. */
static void check_vector(ss_gradcheck_result *r, ss_nn_lossfn f, void *ud, float *w,
			 float *x, float *v, size_t n, const float *ga, size_t base,
			 const ss_gradcheck_opts *o)
{
	size_t stride = 1;

	if (o->max_coords && n > o->max_coords)
		stride = (n + o->max_coords - 1) / o->max_coords;
	for (size_t i = 0; i < n; i += stride) {
		double num = central(f, ud, w, x, v, i, o->eps), e;

		if (o->kink_tol > 0.0) {
			double half = central(f, ud, w, x, v, i, o->eps / 2);

			if (rel_err(num, half, o->floor) > o->kink_tol) {
				r->kinks++;
				continue;
			}
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
	int rc = 0;

	if (!gw || !gx) {
		rc = ss_error_code(SS_ENOMEM, "out of memory for gradient check");
		goto free_grads;
	}
	f(ud, w, gw, x, nx ? gx : NULL);
	check_vector(&r, f, ud, w, x, w, nw, gw, 0, o);
	if (nx)
		check_vector(&r, f, ud, w, x, x, nx, gx, nw, o);
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
