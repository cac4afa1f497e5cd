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

/* Check every stride-th coordinate of v against the analytic gradient ga. */
static double check_vector(ss_nn_lossfn f, void *ud, float *w, float *x,
			   float *v, size_t n, const float *ga,
			   const ss_gradcheck_opts *o)
{
	size_t stride = 1;
	double worst = 0.0;

	if (o->max_coords && n > o->max_coords)
		stride = (n + o->max_coords - 1) / o->max_coords;
	for (size_t i = 0; i < n; i += stride) {
		float saved = v[i];
		double lp, lm, num, e;

		v[i] = saved + o->eps;
		lp = f(ud, w, NULL, x, NULL);
		v[i] = saved - o->eps;
		lm = f(ud, w, NULL, x, NULL);
		v[i] = saved;
		/* divide by the step actually taken after float rounding */
		num = (lp - lm) / ((double)(saved + o->eps) - (double)(saved - o->eps));
		e = rel_err(ga[i], num, o->floor);
		if (e > worst)
			worst = e;
	}
	return worst;
}

int ss_nn_gradcheck(double *out, ss_nn_lossfn f, void *ud, float *w,
		    size_t nw, float *x, size_t nx,
		    const ss_gradcheck_opts *opts)
{
	static const ss_gradcheck_opts defaults = SS_GRADCHECK_OPTS_INIT;
	const ss_gradcheck_opts *o = opts ? opts : &defaults;
	float *gw = calloc(nw ? nw : 1, sizeof(float));
	float *gx = calloc(nx ? nx : 1, sizeof(float));
	double ew, ex = 0.0;
	int rc = 0;

	if (!gw || !gx) {
		rc = ss_error_code(SS_ENOMEM, "out of memory for gradient check");
		goto free_grads;
	}
	f(ud, w, gw, x, nx ? gx : NULL);
	ew = check_vector(f, ud, w, x, w, nw, gw, o);
	if (nx)
		ex = check_vector(f, ud, w, x, x, nx, gx, o);
	*out = ew > ex ? ew : ex;

free_grads:
	free(gw);
	free(gx);
	return rc;
}
