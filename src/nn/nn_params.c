/* nn_params.c - the flat parameter set, initialisers and Adam (see nn.h). */
#include <math.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "nn.h"
#include "util/error.h"
#include "util/grow.h"

ss_params *ss_params_new(void)
{
	return calloc(1, sizeof(ss_params));
}

void ss_params_free(ss_params *p)
{
	if (!p)
		return;
	free(p->w);
	free(p->g);
	free(p);
}

int ss_params_add(size_t *out, ss_params *p, size_t n)
{
	if (n > ((size_t)-1 / sizeof(float)) / 2 - p->n)
		return ss_error_code(SS_ENOMEM, "parameter set too large");
	if (p->n + n > p->cap) {
		size_t cap = ss_grow_cap(p->cap, p->n + n);

		if (ss_grow_to(&p->w, cap, sizeof(*p->w)) || ss_grow_to(&p->g, cap, sizeof(*p->g)))
			return ss_error_code(SS_ENOMEM, "out of memory for %zu parameters", cap);
		p->cap = cap;
	}
	memset(p->w + p->n, 0, n * sizeof(float));
	memset(p->g + p->n, 0, n * sizeof(float));
	*out = p->n;
	p->n += n;
	return 0;
}

void ss_params_zero_grad(ss_params *p)
{
	if (p->n)
		memset(p->g, 0, p->n * sizeof(float));
}

void ss_params_init(float *w, size_t n, enum ss_init how, int fan_in,
		    int fan_out, ss_rng *rng)
{
	float a;

	switch (how) {
	case SS_INIT_ZERO:
		memset(w, 0, n * sizeof(float));
		break;
	case SS_INIT_HE:
		a = sqrtf(2.0f / (float)(fan_in > 0 ? fan_in : 1));
		for (size_t i = 0; i < n; i++)
			w[i] = a * ss_rng_normal(rng);
		break;
	case SS_INIT_XAVIER:
		a = sqrtf(6.0f / (float)(fan_in + fan_out > 0 ? fan_in + fan_out : 1));
		for (size_t i = 0; i < n; i++)
			w[i] = a * (2.0f * ss_rng_uniform(rng) - 1.0f);
		break;
	case SS_INIT_EMBED:
		for (size_t i = 0; i < n; i++)
			w[i] = 0.1f * ss_rng_normal(rng);
		break;
	}
}

struct ss_adam {
	ss_adam_opts o;
	size_t n;
	long long t;
	float *m, *v;
};

ss_adam *ss_adam_new(size_t n, const ss_adam_opts *opts)
{
	static const ss_adam_opts defaults = SS_ADAM_OPTS_INIT;
	ss_adam *a = calloc(1, sizeof(*a));

	if (!a) {
		ss_error_code(SS_ENOMEM, "out of memory for adam state");
		return NULL;
	}
	a->o = opts ? *opts : defaults;
	a->n = n;
	a->m = calloc(n ? n : 1, sizeof(float));
	a->v = calloc(n ? n : 1, sizeof(float));
	if (!a->m || !a->v)
		goto free_adam;
	return a;

free_adam:
	ss_adam_free(a);
	ss_error_code(SS_ENOMEM, "out of memory for adam state of %zu parameters", n);
	return NULL;
}

void ss_adam_free(ss_adam *a)
{
	if (!a)
		return;
	free(a->m);
	free(a->v);
	free(a);
}

void ss_adam_set_lr(ss_adam *a, float lr)
{
	a->o.lr = lr;
}

void ss_adam_tick(ss_adam *a)
{
	a->t++;
}

/*
 * Every step touches every parameter, so this loop is much of an mlp's
 * training time.  Two things keep it fast:
 * - It runs under flush-to-zero (ss_nn_ftz_begin, nn.h).  Under the L2
 *   term Adam shrinks the weights of features few batches see
 *   geometrically towards 0; their moments, and g * g, then fall among the
 *   subnormals.  mlp on all of DPDK, 12 epochs: 38.8 s of user CPU
 *   without, 14.5 s with, the same validation PR-AUC in every epoch.
 * - It is vectorised (GCC's -O2 leaves it scalar; the Makefile's
 *   -fno-math-errno lets it vectorise sqrtf).  Element-wise and without
 *   FMA contraction, so a vectorised run gives the same bits as a scalar
 *   one.
 */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("tree-loop-vectorize", "vect-cost-model=dynamic")))
#endif
void ss_adam_update(ss_adam *a, ss_params *p, size_t from, size_t to)
{
	const float b1 = a->o.beta1, b2 = a->o.beta2, wd = a->o.weight_decay, eps = a->o.eps;
	float *restrict w = p->w, *restrict m = a->m, *restrict v = a->v;
	const float *restrict g = p->g;
	float step, c2;
	unsigned csr;

	/* bias corrections folded into the step size and epsilon */
	step = a->o.lr / (1.0f - (float)pow(b1, (double)a->t));
	c2 = 1.0f / sqrtf(1.0f - (float)pow(b2, (double)a->t));
	if (to > a->n)
		to = a->n;
	csr = ss_nn_ftz_begin();
	for (size_t i = from; i < to; i++) {
		float gi = g[i] + wd * w[i];

		m[i] = b1 * m[i] + (1.0f - b1) * gi;
		v[i] = b2 * v[i] + (1.0f - b2) * gi * gi;
		w[i] -= step * m[i] / (sqrtf(v[i]) * c2 + eps);
	}
	ss_nn_ftz_end(csr);
}

unsigned ss_nn_ftz_begin(void)
{
#if defined(__SSE__)
	unsigned csr = _mm_getcsr();

	_mm_setcsr(csr | 0x8040); /* FTZ (bit 15) and DAZ (bit 6) */
	return csr;
#else
	return 0;
#endif
}

void ss_nn_ftz_end(unsigned saved)
{
#if defined(__SSE__)
	_mm_setcsr(saved);
#else
	(void)saved;
#endif
}

int ss_adam_step(ss_adam *a, ss_params *p)
{
	if (p->n != a->n)
		return ss_error_code(SS_EINVALID, "adam state has %zu parameters, model %zu",
				     a->n, p->n);
	ss_adam_tick(a);
	ss_adam_update(a, p, 0, a->n);
	return 0;
}
