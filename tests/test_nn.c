/*
 * test_nn.c - the neural-network kit: ss_sgemm against a naive product,
 * finite-difference gradient checks of every layer and of a small MLP end to
 * end, an MLP fitting a separable set, Adam on a quadratic, Adam by ranges
 * (as threads run it) equal to whole steps, Adam's subnormal flush and its
 * vectorised loop against the formula, the flush-to-zero scope, axpy, the arena, the CPU count and
 * the BLAS thread count chosen from it.
 *
 * Gradient checks run in float with eps 1e-3 and double loss sums; the
 * maximal relative error (|a - n| / max(|a|, |n|, 1e-2)) must stay below
 * 1e-2.  Inputs are kept away from ReLU kinks and max-pool ties so that the
 * central differences never straddle a kink.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/nn.h"
#include "util/error.h"

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#define TOL 1e-2

/* ---- helpers ----------------------------------------------------------- */

static void fill_normal(float *v, size_t n, ss_rng *rng, float sd)
{
	for (size_t i = 0; i < n; i++)
		v[i] = sd * ss_rng_normal(rng);
}

/* Normal values pushed at least 0.1 away from zero (ReLU kinks). */
static void fill_away_from_zero(float *v, size_t n, ss_rng *rng)
{
	for (size_t i = 0; i < n; i++) {
		float z = ss_rng_normal(rng);

		v[i] = z >= 0 ? 0.1f + z : z - 0.1f;
	}
}

/* One layer under test: loss = sum_j r[j] * y[j] (or the BCE loss). */
struct single {
	ss_layer *l;
	size_t nw;
	ss_nn_arena *ar;
	uint64_t seed;
	int n;
	const void *in;   /* non-float input (csr, ids); NULL: x of the check */
	const float *r;   /* [n * out_size] */
};

static double single_loss(void *ud, const float *w, float *gw, const float *x, float *gx)
{
	struct single *s = ud;
	size_t ny = (size_t)s->n * ss_layer_out_size(s->l);
	ss_rng rng;
	ss_nn_ctx c = { .w = w, .g = gw, .arena = s->ar, .rng = &rng, .train = 1 };
	const void *in = s->in ? s->in : (const void *)x;
	double loss = 0.0;
	float *y;

	ss_nn_arena_reset(s->ar);
	ss_rng_seed(&rng, s->seed);   /* same dropout mask on every call */
	y = ss_nn_arena_floats(s->ar, ny);
	assert_non_null(y);
	assert_int_equal(ss_layer_forward(s->l, &c, s->n, in, y), 0);
	if (s->l->kind == SS_LAYER_SIGMOID_BCE)
		loss = s->l->loss;
	else
		for (size_t j = 0; j < ny; j++)
			loss += (double)s->r[j] * y[j];
	if (gw) {
		memset(gw, 0, s->nw * sizeof(float));
		if (gx)
			memset(gx, 0, (size_t)s->n * s->l->in * s->l->t * sizeof(float));
		assert_int_equal(ss_layer_backward(s->l, &c, s->n, in, y, s->r, gx), 0);
	}
	return loss;
}

static double check_single_eps(ss_layer *l, ss_params *p, int n, const void *in,
			       float *x, size_t nx, uint64_t seed, float eps)
{
	ss_gradcheck_opts o = SS_GRADCHECK_OPTS_INIT;
	struct single s = { .l = l, .nw = p->n, .seed = seed, .n = n, .in = in };
	size_t ny = (size_t)n * ss_layer_out_size(l);
	float *r = malloc(ny * sizeof(float));
	ss_rng rng;
	double err = -1.0;

	assert_non_null(r);
	ss_rng_seed(&rng, seed + 1);
	fill_normal(r, ny, &rng, 1.0f);
	s.r = r;
	s.ar = ss_nn_arena_new();
	assert_non_null(s.ar);
	o.eps = eps;
	assert_int_equal(ss_nn_gradcheck(&err, single_loss, &s, p->w, p->n, x, nx, &o), 0);
	ss_nn_arena_free(s.ar);
	free(r);
	return err;
}

static double check_single(ss_layer *l, ss_params *p, int n, const void *in,
			   float *x, size_t nx, uint64_t seed)
{
	return check_single_eps(l, p, n, in, x, nx, seed, 1e-3f);
}

/* ---- ss_sgemm ---------------------------------------------------------- */

static void test_sgemm(void **state)
{
	ss_rng rng;
	int M = 5, N = 4, K = 3;
	float A[15], B[12], C[20], ref[20];

	(void)state;
	ss_rng_seed(&rng, 1);
	fill_normal(A, 15, &rng, 1.0f);
	fill_normal(B, 12, &rng, 1.0f);
	for (int ta = 0; ta < 2; ta++)
		for (int tb = 0; tb < 2; tb++) {
			for (int i = 0; i < M * N; i++)
				C[i] = ref[i] = (float)i;
			for (int i = 0; i < M; i++)
				for (int j = 0; j < N; j++) {
					double s = 0;

					for (int k = 0; k < K; k++)
						s += (double)(ta ? A[k * M + i] : A[i * K + k]) *
						     (tb ? B[j * K + k] : B[k * N + j]);
					ref[i * N + j] = (float)(2.0 * s + 0.5 * ref[i * N + j]);
				}
			ss_sgemm(ta, tb, M, N, K, 2.0f, A, B, 0.5f, C);
			for (int i = 0; i < M * N; i++)
				assert_true(fabsf(C[i] - ref[i]) < 1e-4f);
		}
}

static void test_rng(void)
{
	ss_rng a, b;
	double sum = 0, sq = 0;

	ss_rng_seed(&a, 7);
	ss_rng_seed(&b, 7);
	for (int i = 0; i < 100; i++)
		assert_true(ss_rng_next(&a) == ss_rng_next(&b));
	for (int i = 0; i < 20000; i++) {
		float z = ss_rng_normal(&a), u = ss_rng_uniform(&a);

		assert_true(u >= 0.0f && u < 1.0f);
		assert_true(ss_rng_below(&a, 10) < 10);
		sum += z;
		sq += (double)z * z;
	}
	assert_true(fabs(sum / 20000) < 0.05);
	assert_true(fabs(sq / 20000 - 1.0) < 0.05);
}

static void test_rng_stream(void **state)
{
	(void)state;
	test_rng();
}

/* ---- gradient checks per layer ----------------------------------------- */

static void test_grad_dense(void **state)
{
	ss_params *p = ss_params_new();
	ss_rng rng;
	ss_layer l;
	float x[4 * 7];
	double err;

	(void)state;
	ss_rng_seed(&rng, 2);
	assert_int_equal(ss_layer_dense(&l, p, &rng, 7, 5, SS_INIT_XAVIER), 0);
	assert_int_equal(p->n, 7 * 5 + 5);
	fill_normal(p->w + l.b_off, 5, &rng, 0.5f);
	fill_normal(x, 28, &rng, 1.0f);
	err = check_single(&l, p, 4, NULL, x, 28, 3);
	print_message("dense max rel err %.2e\n", err);
	assert_true(err < TOL);

	/* backward adds: two calls give twice the gradients */
	{
		ss_nn_arena *ar = ss_nn_arena_new();
		ss_nn_ctx c = { .w = p->w, .g = p->g, .arena = ar };
		float y[20], dy[20], dx[28] = { 0 }, g1[40], dx1[28];

		fill_normal(dy, 20, &rng, 1.0f);
		ss_params_zero_grad(p);
		assert_int_equal(ss_layer_forward(&l, &c, 4, x, y), 0);
		assert_int_equal(ss_layer_backward(&l, &c, 4, x, y, dy, dx), 0);
		memcpy(g1, p->g, sizeof(g1));
		memcpy(dx1, dx, sizeof(dx1));
		assert_int_equal(ss_layer_backward(&l, &c, 4, x, y, dy, dx), 0);
		for (int i = 0; i < 40; i++)
			assert_true(fabsf(p->g[i] - 2 * g1[i]) <= 1e-5f * (1 + fabsf(g1[i])));
		for (int i = 0; i < 28; i++)
			assert_true(fabsf(dx[i] - 2 * dx1[i]) <= 1e-5f * (1 + fabsf(dx1[i])));
		ss_nn_arena_free(ar);
	}
	ss_params_free(p);
}

/* The checker must see a wrong gradient: d/dw of sum w^3 reported as 2w^2. */
static double wrong_cube(void *ud, const float *w, float *gw, const float *x, float *gx)
{
	double l = 0;

	(void)ud;
	(void)x;
	(void)gx;
	for (int i = 0; i < 5; i++) {
		l += (double)w[i] * w[i] * w[i];
		if (gw)
			gw[i] = (i == 3 ? 2.0f : 3.0f) * w[i] * w[i];
	}
	return l;
}

static void test_gradcheck_catches_errors(void **state)
{
	float w[5] = { 0.5f, -1.0f, 2.0f, 1.5f, -0.7f };
	double err;

	(void)state;
	assert_int_equal(ss_nn_gradcheck(&err, wrong_cube, NULL, w, 5, NULL, 0, NULL), 0);
	assert_true(err > 0.3);
	assert_true(w[3] == 1.5f);   /* restored */
}

static void test_grad_sparse_dense(void **state)
{
	ss_params *p = ss_params_new();
	ss_rng rng;
	ss_layer l;
	/* three rows, one empty, a repeated index in the last */
	size_t row[] = { 0, 3, 3, 7 };
	int32_t idx[] = { 0, 5, 19, 2, 5, 11, 2 };
	float val[] = { 1.0f, 0.5f, -2.0f, 1.5f, 1.0f, 0.25f, -0.5f };
	ss_csr x = { 3, row, idx, val };
	float g_before;
	double err;

	(void)state;
	ss_rng_seed(&rng, 4);
	assert_int_equal(ss_layer_sparse_dense(&l, p, &rng, 20, 6, SS_INIT_HE), 0);
	fill_normal(p->w + l.b_off, 6, &rng, 0.5f);
	err = check_single(&l, p, 3, &x, NULL, 0, 5);
	print_message("sparse dense max rel err %.2e\n", err);
	assert_true(err < TOL);

	/* backward leaves the columns of unused features alone */
	{
		ss_nn_arena *ar = ss_nn_arena_new();
		ss_nn_ctx c = { .w = p->w, .g = p->g, .arena = ar };
		float y[18], dy[18];

		for (int i = 0; i < 18; i++)
			dy[i] = 1.0f;
		ss_params_zero_grad(p);
		g_before = p->g[l.w_off + 3];
		assert_int_equal(ss_layer_forward(&l, &c, 3, &x, y), 0);
		assert_int_equal(ss_layer_backward(&l, &c, 3, &x, y, dy, NULL), 0);
		for (int o = 0; o < 6; o++) {
			assert_true(p->g[l.w_off + o * 20 + 3] == g_before);
			assert_true(p->g[l.w_off + o * 20 + 5] != 0.0f);
		}
		/* out-of-range index is an error, not a crash */
		idx[0] = 20;
		assert_int_equal(ss_layer_forward(&l, &c, 3, &x, y), SS_EINVALID);
		idx[0] = 0;
		ss_nn_arena_free(ar);
	}
	ss_params_free(p);
}

static void test_grad_relu(void **state)
{
	ss_params *p = ss_params_new();
	ss_rng rng;
	ss_layer l;
	float x[3 * 10];
	double err;

	(void)state;
	ss_rng_seed(&rng, 6);
	ss_layer_relu(&l, 10);
	fill_away_from_zero(x, 30, &rng);
	err = check_single(&l, p, 3, NULL, x, 30, 7);
	print_message("relu max rel err %.2e\n", err);
	assert_true(err < TOL);
	ss_params_free(p);
}

static void test_grad_dropout(void **state)
{
	ss_params *p = ss_params_new();
	ss_rng rng;
	ss_layer l;
	float x[4 * 8], y1[32], y2[32];
	ss_nn_arena *ar = ss_nn_arena_new();
	ss_nn_ctx c = { .arena = ar, .rng = &rng, .train = 1 };
	int zeros = 0;
	double err;

	(void)state;
	ss_rng_seed(&rng, 8);
	ss_layer_dropout(&l, 8, 0.5f);
	fill_normal(x, 32, &rng, 1.0f);
	err = check_single(&l, p, 4, NULL, x, 32, 9);
	print_message("dropout max rel err %.2e\n", err);
	assert_true(err < TOL);

	/* deterministic given the seed; inverted scaling; identity at test */
	ss_rng_seed(&rng, 10);
	assert_int_equal(ss_layer_forward(&l, &c, 4, x, y1), 0);
	ss_rng_seed(&rng, 10);
	assert_int_equal(ss_layer_forward(&l, &c, 4, x, y2), 0);
	assert_memory_equal(y1, y2, sizeof(y1));
	for (int i = 0; i < 32; i++) {
		if (y1[i] == 0.0f)
			zeros++;
		else
			assert_true(fabsf(y1[i] - 2.0f * x[i]) < 1e-6f);
	}
	assert_true(zeros > 4 && zeros < 28);
	c.train = 0;
	assert_int_equal(ss_layer_forward(&l, &c, 4, x, y1), 0);
	assert_memory_equal(y1, x, sizeof(y1));
	ss_nn_arena_free(ar);
	ss_params_free(p);
}

static void test_grad_sigmoid_bce(void **state)
{
	ss_params *p = ss_params_new();
	ss_rng rng;
	ss_layer l;
	float x[6], t[6] = { 1, 0, 1, 0, 1, 0 }, wt[6] = { 3, 1, 3, 1, 3, 1 };
	float prob[6];
	double err, ref = 0;

	(void)state;
	ss_rng_seed(&rng, 11);
	ss_layer_sigmoid_bce(&l);
	fill_normal(x, 6, &rng, 2.0f);
	l.target = t;
	l.weight = wt;
	err = check_single(&l, p, 6, NULL, x, 6, 12);
	print_message("sigmoid+bce max rel err %.2e\n", err);
	assert_true(err < TOL);

	/* the loss is the weighted mean of -t log p - (1 - t) log(1 - p) */
	{
		ss_nn_arena *ar = ss_nn_arena_new();
		ss_nn_ctx c = { .w = p->w, .arena = ar };

		assert_int_equal(ss_layer_forward(&l, &c, 6, x, prob), 0);
		for (int i = 0; i < 6; i++) {
			double pi = 1.0 / (1.0 + exp(-(double)x[i]));

			assert_true(fabs(prob[i] - pi) < 1e-6);
			ref += wt[i] * -(t[i] * log(pi) + (1 - t[i]) * log(1 - pi));
		}
		assert_true(fabs(l.loss - ref / 6) < 1e-6);
		/* extreme logits stay finite */
		x[0] = 200.0f;
		x[1] = -200.0f;
		t[0] = 0;
		assert_int_equal(ss_layer_forward(&l, &c, 6, x, prob), 0);
		assert_true(isfinite(l.loss) && l.loss > 90.0);
		ss_nn_arena_free(ar);
	}
	ss_params_free(p);
}

static void test_grad_embed(void **state)
{
	ss_params *p = ss_params_new();
	ss_rng rng;
	ss_layer l;
	int32_t ids[2 * 5] = { 0, 3, 3, -1, 6, 2, 1, 6, -1, -1 };
	double err;

	(void)state;
	ss_rng_seed(&rng, 13);
	assert_int_equal(ss_layer_embed(&l, p, &rng, 7, 4, 5), 0);
	err = check_single(&l, p, 2, ids, NULL, 0, 14);
	print_message("embedding max rel err %.2e\n", err);
	assert_true(err < TOL);

	{
		ss_nn_arena *ar = ss_nn_arena_new();
		ss_nn_ctx c = { .w = p->w, .arena = ar };
		float y[2 * 5 * 4];

		assert_int_equal(ss_layer_forward(&l, &c, 2, ids, y), 0);
		assert_memory_equal(y + 4, p->w + l.w_off + 3 * 4, 4 * sizeof(float));
		for (int j = 0; j < 4; j++)
			assert_true(y[3 * 4 + j] == 0.0f);   /* padding */
		ids[0] = 7;
		assert_int_equal(ss_layer_forward(&l, &c, 2, ids, y), SS_EINVALID);
		ss_nn_arena_free(ar);
	}
	ss_params_free(p);
}

static void test_grad_conv1d(void **state)
{
	(void)state;
	for (int width = 1; width <= 3; width++) {
		ss_params *p = ss_params_new();
		ss_rng rng;
		ss_layer l;
		float x[3 * 6 * 4];
		double err;

		ss_rng_seed(&rng, 15 + width);
		assert_int_equal(ss_layer_conv1d(&l, p, &rng, 4, 5, 6, width, SS_INIT_HE), 0);
		assert_int_equal(ss_layer_out_size(&l), (size_t)(6 - width + 1) * 5);
		fill_normal(p->w + l.b_off, 5, &rng, 0.5f);
		fill_normal(x, sizeof(x) / sizeof(x[0]), &rng, 1.0f);
		/* a conv weight feeds every output step, so float rounding of
		 * 18 outputs lands in each difference; the layer is linear in
		 * w and x, so a larger step costs no truncation error */
		err = check_single_eps(&l, p, 3, NULL, x, sizeof(x) / sizeof(x[0]), 20, 1e-2f);
		print_message("conv1d width %d max rel err %.2e\n", width, err);
		assert_true(err < TOL);
		ss_params_free(p);
	}
}

static void test_conv1d_values(void **state)
{
	ss_params *p = ss_params_new();
	ss_nn_arena *ar = ss_nn_arena_new();
	ss_rng rng;
	ss_layer l;
	float x[2 * 4 * 3], y[2 * 3 * 2];

	(void)state;
	ss_rng_seed(&rng, 21);
	assert_int_equal(ss_layer_conv1d(&l, p, &rng, 3, 2, 4, 2, SS_INIT_HE), 0);
	fill_normal(p->w + l.b_off, 2, &rng, 1.0f);
	fill_normal(x, 24, &rng, 1.0f);
	{
		ss_nn_ctx c = { .w = p->w, .arena = ar };

		assert_int_equal(ss_layer_forward(&l, &c, 2, x, y), 0);
	}
	/* against the definition: y[i][s][o] = b[o] + sum_j,c W[o][j*in+c] x[i][s+j][c] */
	for (int i = 0; i < 2; i++)
		for (int s = 0; s < 3; s++)
			for (int o = 0; o < 2; o++) {
				double v = p->w[l.b_off + o];

				for (int j = 0; j < 2; j++)
					for (int ch = 0; ch < 3; ch++)
						v += (double)p->w[l.w_off + o * 6 + j * 3 + ch] *
						     x[(i * 4 + s + j) * 3 + ch];
				assert_true(fabs(y[(i * 3 + s) * 2 + o] - v) < 1e-5);
			}
	ss_nn_arena_free(ar);
	ss_params_free(p);
}

static void test_grad_maxpool(void **state)
{
	ss_params *p = ss_params_new();
	ss_rng rng;
	ss_layer l;
	float x[3 * 5 * 4];
	int len[3] = { 5, 2, 0 };
	double err;

	(void)state;
	ss_rng_seed(&rng, 22);
	ss_layer_maxpool(&l, 4, 5);
	/* distinct values 0.1 apart: no ties within eps */
	for (int i = 0; i < 60; i++)
		x[i] = 0.1f * (float)i - 3.0f;
	for (int i = 59; i > 0; i--) {
		int j = (int)ss_rng_below(&rng, (uint32_t)i + 1);
		float tmp = x[i];

		x[i] = x[j];
		x[j] = tmp;
	}
	err = check_single(&l, p, 3, NULL, x, 60, 23);
	print_message("maxpool max rel err %.2e\n", err);
	assert_true(err < TOL);

	l.len = len;
	err = check_single(&l, p, 3, NULL, x, 60, 24);
	print_message("maxpool with lengths max rel err %.2e\n", err);
	assert_true(err < TOL);
	{
		ss_nn_arena *ar = ss_nn_arena_new();
		ss_nn_ctx c = { .arena = ar };
		float y[12];

		assert_int_equal(ss_layer_forward(&l, &c, 3, x, y), 0);
		for (int j = 0; j < 4; j++) {
			float m = x[20 + j] > x[24 + j] ? x[20 + j] : x[24 + j];

			assert_true(y[4 + j] == m);
			assert_int_equal(l.argmax[4 + j], x[20 + j] > x[24 + j] ? 0 : 1);
			assert_true(y[8 + j] == 0.0f);
			assert_int_equal(l.argmax[8 + j], -1);
		}
		ss_nn_arena_free(ar);
	}
	ss_params_free(p);
}

static void test_concat(void **state)
{
	float a[2 * 2] = { 1, 2, 3, 4 }, b[2 * 3] = { 5, 6, 7, 8, 9, 10 };
	float y[10], da[4] = { 0 }, db[6] = { 0 };
	const float *xs[2] = { a, b };
	float *dxs[2] = { da, db };
	int dims[2] = { 2, 3 };
	float expect[10] = { 1, 2, 5, 6, 7, 3, 4, 8, 9, 10 };

	(void)state;
	ss_nn_concat_forward(y, 2, 2, xs, dims);
	assert_memory_equal(y, expect, sizeof(y));
	ss_nn_concat_backward(dxs, 2, 2, dims, y);
	ss_nn_concat_backward(dxs, 2, 2, dims, y);
	for (int i = 0; i < 4; i++)
		assert_true(da[i] == 2 * a[i]);
	for (int i = 0; i < 6; i++)
		assert_true(db[i] == 2 * b[i]);
}

/* ---- a small MLP: sparse dense -> relu -> dropout -> dense -> bce ------- */

struct mlp {
	ss_params *p;
	ss_layer l1, relu, drop, l2, loss;
	ss_nn_arena *ar;
	ss_rng rng;
	uint64_t seed;      /* dropout stream, reseeded per call when fixed */
	int fixed_seed;
	int hidden;
};

static int mlp_init(struct mlp *m, int nfeat, int hidden, float drop, uint64_t seed)
{
	memset(m, 0, sizeof(*m));
	m->p = ss_params_new();
	m->ar = ss_nn_arena_new();
	m->hidden = hidden;
	ss_rng_seed(&m->rng, seed);
	assert_int_equal(ss_layer_sparse_dense(&m->l1, m->p, &m->rng, nfeat, hidden,
					       SS_INIT_HE), 0);
	ss_layer_relu(&m->relu, hidden);
	ss_layer_dropout(&m->drop, hidden, drop);
	assert_int_equal(ss_layer_dense(&m->l2, m->p, &m->rng, hidden, 1, SS_INIT_XAVIER), 0);
	ss_layer_sigmoid_bce(&m->loss);
	return 0;
}

static void mlp_free(struct mlp *m)
{
	ss_nn_arena_free(m->ar);
	ss_params_free(m->p);
}

/* Forward (and backward when g): returns the loss; prob[n] optional. */
static double mlp_pass(struct mlp *m, const float *w, float *g, int train,
		       const ss_csr *x, const float *t, const float *wt, float *prob)
{
	int n = x->n, h = m->hidden;
	ss_nn_ctx c = { .w = w, .g = g, .arena = m->ar, .rng = &m->rng, .train = train };
	float *h1, *h2, *h3, *z, *pr, *dz, *dh3, *dh2, *dh1;

	ss_nn_arena_reset(m->ar);
	if (m->fixed_seed)
		ss_rng_seed(&m->rng, m->seed);
	h1 = ss_nn_arena_floats(m->ar, (size_t)n * h);
	h2 = ss_nn_arena_floats(m->ar, (size_t)n * h);
	h3 = ss_nn_arena_floats(m->ar, (size_t)n * h);
	z = ss_nn_arena_floats(m->ar, n);
	pr = prob ? prob : ss_nn_arena_floats(m->ar, n);
	assert_true(h1 && h2 && h3 && z && pr);
	assert_int_equal(ss_layer_forward(&m->l1, &c, n, x, h1), 0);
	assert_int_equal(ss_layer_forward(&m->relu, &c, n, h1, h2), 0);
	assert_int_equal(ss_layer_forward(&m->drop, &c, n, h2, h3), 0);
	assert_int_equal(ss_layer_forward(&m->l2, &c, n, h3, z), 0);
	m->loss.target = t;
	m->loss.weight = wt;
	assert_int_equal(ss_layer_forward(&m->loss, &c, n, z, pr), 0);
	if (!g)
		return m->loss.loss;
	dz = ss_nn_arena_zeros(m->ar, n);
	dh3 = ss_nn_arena_zeros(m->ar, (size_t)n * h);
	dh2 = ss_nn_arena_zeros(m->ar, (size_t)n * h);
	dh1 = ss_nn_arena_zeros(m->ar, (size_t)n * h);
	assert_true(dz && dh3 && dh2 && dh1);
	assert_int_equal(ss_layer_backward(&m->loss, &c, n, z, pr, NULL, dz), 0);
	assert_int_equal(ss_layer_backward(&m->l2, &c, n, h3, z, dz, dh3), 0);
	assert_int_equal(ss_layer_backward(&m->drop, &c, n, h2, h3, dh3, dh2), 0);
	assert_int_equal(ss_layer_backward(&m->relu, &c, n, h1, h2, dh2, dh1), 0);
	assert_int_equal(ss_layer_backward(&m->l1, &c, n, x, h1, dh1, NULL), 0);
	return m->loss.loss;
}

struct mlp_check {
	struct mlp *m;
	const ss_csr *x;
	const float *t, *wt;
};

static double mlp_loss(void *ud, const float *w, float *gw, const float *x, float *gx)
{
	struct mlp_check *mc = ud;

	(void)x;
	(void)gx;
	if (gw)
		memset(gw, 0, mc->m->p->n * sizeof(float));
	return mlp_pass(mc->m, w, gw, 1, mc->x, mc->t, mc->wt, NULL);
}

static void test_grad_mlp(void **state)
{
	struct mlp m;
	size_t row[] = { 0, 3, 5, 9, 10 };
	int32_t idx[] = { 1, 4, 7, 0, 4, 2, 3, 8, 9, 5 };
	float val[] = { 1, 1, 0.5f, 2, -1, 1, 1, 1, 0.3f, 1.2f };
	ss_csr x = { 4, row, idx, val };
	float t[] = { 1, 0, 0, 1 }, wt[] = { 2.5f, 1, 1, 2.5f };
	struct mlp_check mc = { &m, &x, t, wt };
	double err;

	(void)state;
	mlp_init(&m, 10, 8, 0.25f, 30);
	m.fixed_seed = 1;
	m.seed = 31;
	assert_int_equal(ss_nn_gradcheck(&err, mlp_loss, &mc, m.p->w, m.p->n, NULL, 0, NULL), 0);
	print_message("2-layer mlp (sparse->relu->dropout->dense->bce) max rel err %.2e\n", err);
	assert_true(err < TOL);
	mlp_free(&m);
}

static void test_mlp_fits_separable(void **state)
{
	enum { NF = 500, NEX = 200, NNZ = 8, BATCH = 32 };
	static size_t row[NEX + 1];
	static int32_t idx[NEX * NNZ];
	static float val[NEX * NNZ], t[NEX], wt[NEX], prob[NEX], hidden_w[NF];
	ss_rng rng;
	struct mlp m;
	ss_adam_opts ao = SS_ADAM_OPTS_INIT;
	ss_adam *adam;
	int nex = 0, npos = 0, correct = 0;
	double first = -1, last = 0;

	(void)state;
	ss_rng_seed(&rng, 40);
	fill_normal(hidden_w, NF, &rng, 1.0f);
	/* examples labelled by a hidden linear rule, with a margin */
	row[0] = 0;
	while (nex < NEX) {
		size_t base = row[nex];
		double score = 0;

		for (int k = 0; k < NNZ; k++) {
			idx[base + k] = (int32_t)ss_rng_below(&rng, NF);
			val[base + k] = 1.0f;
			score += hidden_w[idx[base + k]];
		}
		if (fabs(score) < 1.0)
			continue;
		t[nex] = score > 0;
		npos += score > 0;
		row[nex + 1] = base + NNZ;
		nex++;
	}
	/* class weights: the rarer class counts more */
	for (int i = 0; i < NEX; i++)
		wt[i] = t[i] ? (float)NEX / (2.0f * npos) : (float)NEX / (2.0f * (NEX - npos));

	mlp_init(&m, NF, 32, 0.5f, 41);
	ao.lr = 1e-2f;
	ao.weight_decay = 1e-5f;
	adam = ss_adam_new(m.p->n, &ao);
	assert_non_null(adam);
	for (int epoch = 0; epoch < 60; epoch++) {
		double sum = 0;

		for (int b = 0; b < NEX; b += BATCH) {
			int n = NEX - b < BATCH ? NEX - b : BATCH;
			size_t brow[BATCH + 1];
			ss_csr xb = { n, brow, idx, val };

			/* a CSR view of rows b..b+n-1 */
			for (int i = 0; i <= n; i++)
				brow[i] = row[b + i];
			ss_params_zero_grad(m.p);
			sum += mlp_pass(&m, m.p->w, m.p->g, 1, &xb, t + b, wt + b, NULL) * n;
			assert_int_equal(ss_adam_step(adam, m.p), 0);
		}
		if (first < 0)
			first = sum / NEX;
		last = sum / NEX;
	}
	{
		ss_csr xa = { NEX, row, idx, val };

		mlp_pass(&m, m.p->w, NULL, 0, &xa, t, NULL, prob);
	}
	for (int i = 0; i < NEX; i++)
		correct += (prob[i] > 0.5f) == (t[i] > 0.5f);
	print_message("mlp fit: loss %.4f -> %.4f, train accuracy %d/%d\n", first, last,
		      correct, NEX);
	assert_int_equal(correct, NEX);
	assert_true(last < first / 4);
	ss_adam_free(adam);
	mlp_free(&m);
}

/* ---- Adam -------------------------------------------------------------- */

static double quad(const ss_params *p, const float *a, const float *c, float *g)
{
	double l = 0;

	for (size_t i = 0; i < p->n; i++) {
		double d = p->w[i] - c[i];

		l += a[i] * d * d;
		if (g)
			g[i] = (float)(2 * a[i] * d);
	}
	return l;
}

static void test_adam_quadratic(void **state)
{
	ss_params *p = ss_params_new();
	float a[10], c[10];
	ss_adam_opts ao = SS_ADAM_OPTS_INIT;
	ss_adam *adam;
	ss_rng rng;
	size_t off;
	double l0, l;

	(void)state;
	ss_rng_seed(&rng, 50);
	assert_int_equal(ss_params_add(&off, p, 10), 0);
	for (int i = 0; i < 10; i++) {
		a[i] = 0.1f + ss_rng_uniform(&rng) * 10.0f;   /* badly conditioned */
		c[i] = ss_rng_normal(&rng) * 3.0f;
	}
	ao.lr = 0.05f;
	adam = ss_adam_new(p->n, &ao);
	l0 = quad(p, a, c, NULL);
	for (int s = 0; s < 1000; s++) {
		double before = quad(p, a, c, p->g);

		assert_int_equal(ss_adam_step(adam, p), 0);
		if (s < 20)   /* early steps are monotone on a convex bowl */
			assert_true(quad(p, a, c, NULL) < before);
	}
	l = quad(p, a, c, NULL);
	print_message("adam on a quadratic: %.4f -> %.2e\n", l0, l);
	assert_true(l < 1e-3 * l0);

	/* weight decay alone pulls weights towards zero */
	ss_adam_free(adam);
	ao.weight_decay = 0.1f;
	adam = ss_adam_new(p->n, &ao);
	ss_params_zero_grad(p);
	for (int i = 0; i < 10; i++)
		p->w[i] = 1.0f;
	for (int s = 0; s < 10; s++)
		assert_int_equal(ss_adam_step(adam, p), 0);
	for (int i = 0; i < 10; i++)
		assert_true(p->w[i] < 0.9f);
	/* a mismatched parameter count is refused */
	assert_int_equal(ss_params_add(&off, p, 1), 0);
	assert_int_equal(ss_adam_step(adam, p), SS_EINVALID);
	ss_adam_free(adam);
	ss_params_free(p);
}

/* Updates by ranges (as threads do them) equal whole steps, bit for bit;
 * axpy adds a * x. */
static void test_adam_ranges_and_axpy(void **state)
{
	ss_params *p = ss_params_new(), *q = ss_params_new();
	ss_adam_opts ao = SS_ADAM_OPTS_INIT;
	ss_adam *a1, *a2;
	float y[37], x[37];
	ss_rng rng;
	size_t off;

	(void)state;
	ss_rng_seed(&rng, 51);
	assert_int_equal(ss_params_add(&off, p, 101), 0);
	assert_int_equal(ss_params_add(&off, q, 101), 0);
	ao.weight_decay = 1e-2f;
	a1 = ss_adam_new(p->n, &ao);
	a2 = ss_adam_new(q->n, &ao);
	assert_non_null(a1);
	assert_non_null(a2);
	for (size_t i = 0; i < p->n; i++)
		q->w[i] = p->w[i] = ss_rng_normal(&rng);
	for (int s = 0; s < 5; s++) {
		for (size_t i = 0; i < p->n; i++)
			q->g[i] = p->g[i] = ss_rng_normal(&rng);
		assert_int_equal(ss_adam_step(a1, p), 0);
		ss_adam_tick(a2);
		ss_adam_update(a2, q, 60, 101);
		ss_adam_update(a2, q, 0, 13);
		ss_adam_update(a2, q, 13, 60);
		assert_memory_equal(p->w, q->w, p->n * sizeof(float));
	}
	for (int i = 0; i < 37; i++) {
		y[i] = (float)i;
		x[i] = (float)(2 * i + 1);
	}
	ss_nn_axpy(y, x, 0.5f, 37);
	for (int i = 0; i < 37; i++)
		assert_true(y[i] == (float)i + 0.5f * (float)(2 * i + 1));
	ss_adam_free(a1);
	ss_adam_free(a2);
	ss_params_free(p);
	ss_params_free(q);
}

/*
 * Adam's vectorised loop gives the textbook formula element by element
 * (compared within 1e-6 relative: the same float operations in the same
 * order, so it is exact on x86-64, but no test should hang on that), a
 * result below FLT_MIN is flushed to 0 on x86 (FTZ/DAZ), and the caller's
 * MXCSR is the same after the step.
 */
static void test_adam_formula_and_subnormals(void **state)
{
	ss_params *p = ss_params_new();
	ss_adam_opts ao = SS_ADAM_OPTS_INIT;
	float w0[1003], m[1003] = { 0 }, v[1003] = { 0 };
	ss_adam *a;
	ss_rng rng;
	size_t off, n = 1003;

	(void)state;
	ss_rng_seed(&rng, 52);
	assert_int_equal(ss_params_add(&off, p, n), 0);
	ao.weight_decay = 3e-3f;
	a = ss_adam_new(n, &ao);
	assert_non_null(a);
	for (size_t i = 0; i < n; i++)
		w0[i] = p->w[i] = ss_rng_normal(&rng);
	for (int t = 1; t <= 3; t++) {
		float step = ao.lr / (1.0f - (float)pow(ao.beta1, t));
		float c2 = 1.0f / sqrtf(1.0f - (float)pow(ao.beta2, t));

		for (size_t i = 0; i < n; i++)
			p->g[i] = ss_rng_normal(&rng);
		for (size_t i = 0; i < n; i++) {
			float gi = p->g[i] + ao.weight_decay * w0[i];

			m[i] = ao.beta1 * m[i] + (1.0f - ao.beta1) * gi;
			v[i] = ao.beta2 * v[i] + (1.0f - ao.beta2) * gi * gi;
			w0[i] -= step * m[i] / (sqrtf(v[i]) * c2 + ao.eps);
		}
#if defined(__SSE__)
		unsigned csr = _mm_getcsr();
#endif
		assert_int_equal(ss_adam_step(a, p), 0);
#if defined(__SSE__)
		assert_int_equal(_mm_getcsr(), csr);
#endif
		for (size_t i = 0; i < n; i++)
			assert_true(fabsf(p->w[i] - w0[i]) <= 1e-6f * fabsf(w0[i]));
	}
	ss_adam_free(a);

	/* first step: w - lr * g / (|g| + eps): 1.5 FLT_MIN - FLT_MIN is
	 * subnormal, flushed to 0 on x86 */
	ao = (ss_adam_opts)SS_ADAM_OPTS_INIT;
	ao.lr = FLT_MIN;
	a = ss_adam_new(n, &ao);
	for (size_t i = 0; i < n; i++) {
		p->w[i] = 1.5f * FLT_MIN;
		p->g[i] = 1.0f;
	}
	assert_int_equal(ss_adam_step(a, p), 0);
	for (size_t i = 0; i < n; i++) {
#if defined(__SSE__)
		assert_true(p->w[i] == 0.0f);
#else
		assert_true(p->w[i] < 1.5f * FLT_MIN);
#endif
	}
	ss_adam_free(a);
	ss_params_free(p);
}

/* ss_nn_ftz_begin flushes subnormal results in this thread (x86) and
 * ss_nn_ftz_end puts the caller's state back. */
static void test_ftz_scope(void **state)
{
	volatile float tiny = FLT_MIN, half = 0.5f;
	unsigned saved;

	(void)state;
	assert_true(tiny * half > 0.0f);       /* a subnormal, kept */
	saved = ss_nn_ftz_begin();
#if defined(__SSE__)
	assert_true(tiny * half == 0.0f);      /* flushed */
#endif
	ss_nn_ftz_end(saved);
	assert_true(tiny * half > 0.0f);
#if defined(__SSE__)
	assert_int_equal(_mm_getcsr(), saved);
#endif
}

/* ---- arena ------------------------------------------------------------- */

static void test_arena_grows_once(void **state)
{
	ss_nn_arena *a = ss_nn_arena_new();
	size_t cap;

	(void)state;
	assert_int_equal(ss_nn_arena_capacity(a), 0);
	for (int batch = 0; batch < 3; batch++) {
		float *x, *y;

		ss_nn_arena_reset(a);
		x = ss_nn_arena_zeros(a, 1000);
		y = ss_nn_arena_floats(a, 3000);
		assert_non_null(x);
		assert_non_null(y);
		assert_true(((uintptr_t)x & 63) == 0 && ((uintptr_t)y & 63) == 0);
		assert_true(y >= x + 1000 || x >= y + 3000);
		for (int i = 0; i < 1000; i++)
			assert_true(x[i] == 0.0f);
		y[2999] = 1.0f;
	}
	ss_nn_arena_reset(a);
	cap = ss_nn_arena_capacity(a);
	assert_true(cap >= 4000 * sizeof(float));
	/* same shape again: no growth; a smaller batch: no shrink */
	ss_nn_arena_floats(a, 1000);
	ss_nn_arena_floats(a, 3000);
	ss_nn_arena_reset(a);
	assert_int_equal(ss_nn_arena_capacity(a), cap);
	ss_nn_arena_floats(a, 10);
	ss_nn_arena_reset(a);
	assert_int_equal(ss_nn_arena_capacity(a), cap);
	/* a larger shape grows it once */
	ss_nn_arena_floats(a, 8000);
	ss_nn_arena_reset(a);
	assert_true(ss_nn_arena_capacity(a) >= 8000 * sizeof(float));
	ss_nn_arena_free(a);
	ss_nn_arena_free(NULL);
	ss_params_free(NULL);
	ss_adam_free(NULL);
}

/* ---- CPUs and BLAS threads --------------------------------------------- */

static void test_cpu_quota_parse(void **state)
{
	(void)state;
	assert_int_equal(ss_nn_cpu_quota_parse("max 100000\n"), 0);
	assert_int_equal(ss_nn_cpu_quota_parse("200000 100000\n"), 2);
	assert_int_equal(ss_nn_cpu_quota_parse("150000 100000"), 2);   /* 1.5 CPUs: 2 threads */
	assert_int_equal(ss_nn_cpu_quota_parse("100000 100000"), 1);
	assert_int_equal(ss_nn_cpu_quota_parse("5000 100000"), 1);
	assert_int_equal(ss_nn_cpu_quota_parse("200000 0"), 0);
	assert_int_equal(ss_nn_cpu_quota_parse("-1 100000"), 0);
	assert_int_equal(ss_nn_cpu_quota_parse("garbage"), 0);
	assert_int_equal(ss_nn_cpu_quota_parse(""), 0);
	assert_int_equal(ss_nn_cpu_quota_parse(NULL), 0);
}

static void test_blas_threads_choose(void **state)
{
	(void)state;
	/* nothing set: the CPUs, within 1..64 */
	assert_int_equal(ss_nn_blas_threads_choose(NULL, NULL, 2), 2);
	assert_int_equal(ss_nn_blas_threads_choose(NULL, NULL, 1), 1);
	assert_int_equal(ss_nn_blas_threads_choose(NULL, NULL, 0), 1);
	assert_int_equal(ss_nn_blas_threads_choose(NULL, NULL, 200), SS_NN_MAX_BLAS_THREADS);
	/* ours wins, as given, even above the CPUs */
	assert_int_equal(ss_nn_blas_threads_choose("1", "4", 2), 1);
	assert_int_equal(ss_nn_blas_threads_choose("3", NULL, 2), 3);
	assert_int_equal(ss_nn_blas_threads_choose("64", NULL, 2), 64);
	/* a bad value of ours is reported, not guessed around */
	assert_int_equal(ss_nn_blas_threads_choose("0", NULL, 2), -1);
	assert_int_equal(ss_nn_blas_threads_choose("65", NULL, 2), -1);
	assert_int_equal(ss_nn_blas_threads_choose("2x", NULL, 2), -1);
	assert_int_equal(ss_nn_blas_threads_choose("-1", NULL, 2), -1);
	/* empty is unset */
	assert_int_equal(ss_nn_blas_threads_choose("", NULL, 2), 2);
	/* OpenBLAS's own variable: kept, at most the CPUs, as OpenBLAS does */
	assert_int_equal(ss_nn_blas_threads_choose(NULL, "1", 2), 1);
	assert_int_equal(ss_nn_blas_threads_choose("", "1", 2), 1);
	assert_int_equal(ss_nn_blas_threads_choose(NULL, "8", 2), 2);
	assert_int_equal(ss_nn_blas_threads_choose(NULL, "junk", 2), 2);
	assert_int_equal(ss_nn_blas_threads_choose(NULL, "0", 2), 2);
}

/* The CPU count follows the affinity mask: pinned to one CPU, one. */
static void test_cpus_follow_affinity(void **state)
{
	cpu_set_t old, one;
	int n, first = -1;

	(void)state;
	n = ss_nn_cpus();
	assert_true(n >= 1);
	assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
	assert_true(n <= CPU_COUNT(&old));
	for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, &old))
			first = c;
	assert_true(first >= 0);
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		print_message("SKIP: cannot set the affinity mask\n");
		return;
	}
	assert_int_equal(ss_nn_cpus(), 1);
	assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
	assert_int_equal(ss_nn_cpus(), n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sgemm),
		cmocka_unit_test(test_rng_stream),
		cmocka_unit_test(test_gradcheck_catches_errors),
		cmocka_unit_test(test_grad_dense),
		cmocka_unit_test(test_grad_sparse_dense),
		cmocka_unit_test(test_grad_relu),
		cmocka_unit_test(test_grad_dropout),
		cmocka_unit_test(test_grad_sigmoid_bce),
		cmocka_unit_test(test_grad_embed),
		cmocka_unit_test(test_grad_conv1d),
		cmocka_unit_test(test_conv1d_values),
		cmocka_unit_test(test_grad_maxpool),
		cmocka_unit_test(test_concat),
		cmocka_unit_test(test_grad_mlp),
		cmocka_unit_test(test_mlp_fits_separable),
		cmocka_unit_test(test_adam_quadratic),
		cmocka_unit_test(test_adam_ranges_and_axpy),
		cmocka_unit_test(test_adam_formula_and_subnormals),
		cmocka_unit_test(test_ftz_scope),
		cmocka_unit_test(test_arena_grows_once),
		cmocka_unit_test(test_cpu_quota_parse),
		cmocka_unit_test(test_blas_threads_choose),
		cmocka_unit_test(test_cpus_follow_affinity),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
