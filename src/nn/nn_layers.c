/*
 * nn_layers.c - forward and backward passes of the layers in nn.h.
 *
 * Products go through ss_sgemm(); the sparse layer and the embedding are
 * gathers and scatters, so their backward passes only touch the weights of
 * indices that occur in the batch.
 */
#include <math.h>
#include <string.h>

#include "nn.h"
#include "util/error.h"

static void layer_zero(ss_layer *out, enum ss_layer_kind kind, int in, int nout)
{
	memset(out, 0, sizeof(*out));
	out->kind = kind;
	out->in = in;
	out->out = nout;
	out->t = 1;
	out->width = 1;
}

/* Append weights [nout][fan] plus an optional bias [nout]. */
static int add_weights(ss_layer *l, ss_params *p, ss_rng *rng, size_t nw,
		       int fan_in, int fan_out, int bias, enum ss_init how)
{
	int rc = ss_params_add(&l->w_off, p, nw);

	if (rc < 0)
		return rc;
	ss_params_init(p->w + l->w_off, nw, how, fan_in, fan_out, rng);
	if (bias)
		return ss_params_add(&l->b_off, p, (size_t)l->out);
	return 0;
}

int ss_layer_dense(ss_layer *out, ss_params *p, ss_rng *rng, int in,
		   int nout, enum ss_init how)
{
	if (in <= 0 || nout <= 0)
		return ss_error_code(SS_EINVALID, "dense layer %d -> %d has no size", in, nout);
	layer_zero(out, SS_LAYER_DENSE, in, nout);
	return add_weights(out, p, rng, (size_t)in * nout, in, nout, 1, how);
}

int ss_layer_sparse_dense(ss_layer *out, ss_params *p, ss_rng *rng, int in,
			  int nout, enum ss_init how)
{
	int fan;

	if (in <= 0 || nout <= 0)
		return ss_error_code(SS_EINVALID, "sparse layer %d -> %d has no size", in, nout);
	layer_zero(out, SS_LAYER_SPARSE_DENSE, in, nout);
	/* a row has a few hundred non-zeros, not in: scaling by the full
	 * width would start every unit near zero */
	fan = in < 256 ? in : 256;
	return add_weights(out, p, rng, (size_t)in * nout, fan, nout, 1, how);
}

int ss_layer_embed(ss_layer *out, ss_params *p, ss_rng *rng, int vocab,
		   int dim, int t)
{
	if (vocab <= 0 || dim <= 0 || t <= 0)
		return ss_error_code(SS_EINVALID, "embedding %d x %d over %d steps has no size",
				     vocab, dim, t);
	layer_zero(out, SS_LAYER_EMBED, vocab, dim);
	out->t = t;
	return add_weights(out, p, rng, (size_t)vocab * dim, dim, dim, 0, SS_INIT_EMBED);
}

int ss_layer_conv1d(ss_layer *out, ss_params *p, ss_rng *rng, int in,
		    int nout, int t, int width, enum ss_init how)
{
	if (in <= 0 || nout <= 0 || width <= 0 || t < width)
		return ss_error_code(SS_EINVALID,
				     "conv1d %d -> %d of width %d over %d steps has no size",
				     in, nout, width, t);
	layer_zero(out, SS_LAYER_CONV1D, in, nout);
	out->t = t;
	out->width = width;
	return add_weights(out, p, rng, (size_t)nout * width * in, width * in, nout, 1, how);
}

void ss_layer_relu(ss_layer *out, int in)
{
	layer_zero(out, SS_LAYER_RELU, in, in);
}

void ss_layer_dropout(ss_layer *out, int in, float rate)
{
	layer_zero(out, SS_LAYER_DROPOUT, in, in);
	out->rate = rate;
}

void ss_layer_maxpool(ss_layer *out, int in, int t)
{
	layer_zero(out, SS_LAYER_MAXPOOL, in, in);
	out->t = t;
}

void ss_layer_sigmoid_bce(ss_layer *out)
{
	layer_zero(out, SS_LAYER_SIGMOID_BCE, 1, 1);
}

size_t ss_layer_out_size(const ss_layer *l)
{
	switch (l->kind) {
	case SS_LAYER_EMBED:
		return (size_t)l->t * l->out;
	case SS_LAYER_CONV1D:
		return (size_t)(l->t - l->width + 1) * l->out;
	default:
		return (size_t)l->out;
	}
}

/* ---- dense ------------------------------------------------------------- */

/* Every row of y[n][m] = b: the product then adds with beta 1, which
 * saves both BLAS clearing C and a second pass adding the bias. */
static void fill_bias(float *y, const float *b, int n, int m)
{
	for (int i = 0; i < n; i++)
		memcpy(y + (size_t)i * m, b, (size_t)m * sizeof(float));
}

static void sum_bias_grad(float *gb, const float *dy, int n, int m)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < m; j++)
			gb[j] += dy[(size_t)i * m + j];
}

static int dense_forward(const ss_layer *l, const ss_nn_ctx *c, int n,
			 const float *x, float *y)
{
	/* y[n][out] = x[n][in] * W[out][in]^T + b */
	fill_bias(y, c->w + l->b_off, n, l->out);
	ss_sgemm(0, 1, n, l->out, l->in, 1.0f, x, c->w + l->w_off, 1.0f, y);
	return 0;
}

static int dense_backward(const ss_layer *l, const ss_nn_ctx *c, int n,
			  const float *x, const float *dy, float *dx)
{
	if (c->g) {
		/* dW[out][in] += dy^T * x */
		ss_sgemm(1, 0, l->out, l->in, n, 1.0f, dy, x, 1.0f, c->g + l->w_off);
		sum_bias_grad(c->g + l->b_off, dy, n, l->out);
	}
	if (dx)  /* dx[n][in] += dy[n][out] * W[out][in] */
		ss_sgemm(0, 0, n, l->in, l->out, 1.0f, dy, c->w + l->w_off, 1.0f, dx);
	return 0;
}

/* ---- dense over sparse rows -------------------------------------------- */

static int sparse_forward(const ss_layer *l, const ss_nn_ctx *c, int n,
			  const ss_csr *x, float *y)
{
	const float *w = c->w + l->w_off, *b = c->w + l->b_off;
	size_t end = x->row[n];

	if (x->n != n)
		return ss_error_code(SS_EINVALID, "sparse batch has %d rows, expected %d", x->n, n);
	for (size_t k = x->row[0]; k < end; k++)
		if (x->idx[k] < 0 || x->idx[k] >= l->in)
			return ss_error_code(SS_EINVALID, "sparse feature %d out of range 0..%d",
					     (int)x->idx[k], l->in - 1);
	/* one weight row at a time: the gathers of a whole batch then stay
	 * inside one [in] row that fits in cache */
	for (int o = 0; o < l->out; o++) {
		const float *wo = w + (size_t)o * l->in;

		for (int i = 0; i < n; i++) {
			float s = b[o];

			for (size_t k = x->row[i]; k < x->row[i + 1]; k++)
				s += x->val[k] * wo[x->idx[k]];
			y[(size_t)i * l->out + o] = s;
		}
	}
	return 0;
}

static int sparse_backward(const ss_layer *l, const ss_nn_ctx *c, int n,
			   const ss_csr *x, const float *dy, float *dx)
{
	if (dx)
		return ss_error_code(SS_EINVALID, "sparse input has no gradient");
	if (!c->g)
		return 0;
	for (int o = 0; o < l->out; o++) {
		float *go = c->g + l->w_off + (size_t)o * l->in;
		float *gb = c->g + l->b_off + o;

		for (int i = 0; i < n; i++) {
			float d = dy[(size_t)i * l->out + o];

			if (d == 0.0f)
				continue;
			*gb += d;
			for (size_t k = x->row[i]; k < x->row[i + 1]; k++)
				go[x->idx[k]] += d * x->val[k];
		}
	}
	return 0;
}

/* ---- element-wise ------------------------------------------------------ */

static int dropout_forward(ss_layer *l, const ss_nn_ctx *c, int n,
			   const float *x, float *y)
{
	size_t m = (size_t)n * l->in;
	float keep;

	l->mask = NULL;
	if (!c->train || l->rate <= 0.0f) {
		if (y != x)
			memmove(y, x, m * sizeof(float));
		return 0;
	}
	if (l->rate >= 1.0f || !c->rng)
		return ss_error_code(SS_EINVALID, "dropout rate %g needs rate < 1 and an rng",
				     (double)l->rate);
	l->mask = ss_nn_arena_floats(c->arena, m);
	if (!l->mask)
		return SS_ENOMEM;
	/* inverted dropout: prediction needs no rescaling */
	keep = 1.0f / (1.0f - l->rate);
	for (size_t i = 0; i < m; i++) {
		l->mask[i] = ss_rng_uniform(c->rng) < l->rate ? 0.0f : keep;
		y[i] = x[i] * l->mask[i];
	}
	return 0;
}

static double log1pexp_neg_abs(double z)
{
	return log1p(exp(-fabs(z)));
}

static int bce_forward(ss_layer *l, int n, const float *x, float *y)
{
	double loss = 0.0;

	for (int i = 0; i < n; i++) {
		double z = x[i];

		y[i] = (float)(1.0 / (1.0 + exp(-z)));
		if (l->target) {
			/* -t log p - (1 - t) log(1 - p), stable for any z */
			double li = (z > 0 ? z : 0) - z * l->target[i] + log1pexp_neg_abs(z);

			loss += (l->weight ? l->weight[i] : 1.0) * li;
		}
	}
	l->loss = n ? loss / n : 0.0;
	return 0;
}

static int bce_backward(const ss_layer *l, int n, const float *x, float *dx)
{
	if (!l->target)
		return ss_error_code(SS_EINVALID, "loss layer has no targets");
	if (!dx)
		return 0;
	for (int i = 0; i < n; i++) {
		double p = 1.0 / (1.0 + exp(-(double)x[i]));
		double w = l->weight ? l->weight[i] : 1.0;

		dx[i] += (float)(w * (p - l->target[i]) / n);
	}
	return 0;
}

/* ---- embedding --------------------------------------------------------- */

static int embed_forward(const ss_layer *l, const ss_nn_ctx *c, int n,
			 const int32_t *x, float *y)
{
	const float *w = c->w + l->w_off;
	size_t steps = (size_t)n * l->t, d = (size_t)l->out;

	for (size_t s = 0; s < steps; s++) {
		int32_t id = x[s];

		if (id >= l->in)
			return ss_error_code(SS_EINVALID, "token id %d out of vocabulary of %d",
					     (int)id, l->in);
		if (id < 0)
			memset(y + s * d, 0, d * sizeof(float));
		else
			memcpy(y + s * d, w + (size_t)id * d, d * sizeof(float));
	}
	return 0;
}

static int embed_backward(const ss_layer *l, const ss_nn_ctx *c, int n,
			  const int32_t *x, const float *dy, float *dx)
{
	size_t steps = (size_t)n * l->t, d = (size_t)l->out;

	if (dx)
		return ss_error_code(SS_EINVALID, "token ids have no gradient");
	if (!c->g)
		return 0;
	for (size_t s = 0; s < steps; s++) {
		float *g;

		if (x[s] < 0 || x[s] >= l->in)
			continue;
		g = c->g + l->w_off + (size_t)x[s] * d;
		for (size_t j = 0; j < d; j++)
			g[j] += dy[s * d + j];
	}
	return 0;
}

/* ---- conv1d over time -------------------------------------------------- */

static int conv_forward(ss_layer *l, const ss_nn_ctx *c, int n,
			const float *x, float *y)
{
	int to = l->t - l->width + 1;
	size_t rows = (size_t)n * to, k = (size_t)l->width * l->in;

	if (l->width == 1) {
		/* a width-1 window is the input row itself */
		l->cols = x;
	} else {
		float *cols = ss_nn_arena_floats(c->arena, rows * k);

		if (!cols)
			return SS_ENOMEM;
		/* the window of step s is width consecutive input steps: one
		 * contiguous run of width * in floats */
		for (int i = 0; i < n; i++)
			for (int s = 0; s < to; s++)
				memcpy(cols + ((size_t)i * to + s) * k,
				       x + ((size_t)i * l->t + s) * l->in, k * sizeof(float));
		l->cols = cols;
	}
	/* y[rows][out] = cols[rows][k] * W[out][k]^T + b */
	fill_bias(y, c->w + l->b_off, (int)rows, l->out);
	ss_sgemm(0, 1, (int)rows, l->out, (int)k, 1.0f, l->cols, c->w + l->w_off, 1.0f, y);
	return 0;
}

static int conv_backward(const ss_layer *l, const ss_nn_ctx *c, int n,
			 const float *x, const float *dy, float *dx)
{
	int to = l->t - l->width + 1;
	size_t rows = (size_t)n * to, k = (size_t)l->width * l->in;
	float *dcols;

	if (!l->cols || (l->width == 1 && l->cols != x))
		return ss_error_code(SS_EINVALID, "conv1d backward without its forward");
	if (c->g) {
		ss_sgemm(1, 0, l->out, (int)k, (int)rows, 1.0f, dy, l->cols, 1.0f,
			 c->g + l->w_off);
		sum_bias_grad(c->g + l->b_off, dy, (int)rows, l->out);
	}
	if (!dx)
		return 0;
	if (l->width == 1) {
		ss_sgemm(0, 0, (int)rows, (int)k, l->out, 1.0f, dy, c->w + l->w_off, 1.0f, dx);
		return 0;
	}
	dcols = ss_nn_arena_floats(c->arena, rows * k);
	if (!dcols)
		return SS_ENOMEM;
	ss_sgemm(0, 0, (int)rows, (int)k, l->out, 1.0f, dy, c->w + l->w_off, 0.0f, dcols);
	/* col2im: overlapping windows add up */
	for (int i = 0; i < n; i++)
		for (int s = 0; s < to; s++) {
			const float *src = dcols + ((size_t)i * to + s) * k;
			float *dst = dx + ((size_t)i * l->t + s) * l->in;

			for (size_t j = 0; j < k; j++)
				dst[j] += src[j];
		}
	return 0;
}

/* ---- max over time ----------------------------------------------------- */

static int maxpool_forward(ss_layer *l, const ss_nn_ctx *c, int n,
			   const float *x, float *y)
{
	int d = l->in;

	l->argmax = ss_nn_arena_alloc(c->arena, (size_t)n * d * sizeof(int));
	if (!l->argmax)
		return SS_ENOMEM;
	for (int i = 0; i < n; i++) {
		int len = l->len ? l->len[i] : l->t;
		const float *xi = x + (size_t)i * l->t * d;
		float *yi = y + (size_t)i * d;
		int *am = l->argmax + (size_t)i * d;

		if (len > l->t)
			len = l->t;
		if (len <= 0) {
			/* an empty sequence contributes nothing, not -inf */
			memset(yi, 0, d * sizeof(float));
			for (int j = 0; j < d; j++)
				am[j] = -1;
			continue;
		}
		memcpy(yi, xi, d * sizeof(float));
		for (int j = 0; j < d; j++)
			am[j] = 0;
		/* branch-free so that the compiler can vectorise it */
		for (int s = 1; s < len; s++) {
			const float *xs = xi + (size_t)s * d;

			for (int j = 0; j < d; j++) {
				int gt = xs[j] > yi[j];

				am[j] = gt ? s : am[j];
				yi[j] = gt ? xs[j] : yi[j];
			}
		}
	}
	return 0;
}

static int maxpool_backward(const ss_layer *l, int n, const float *dy, float *dx)
{
	int d = l->in;

	if (!l->argmax)
		return ss_error_code(SS_EINVALID, "maxpool backward without its forward");
	if (!dx)
		return 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < d; j++) {
			int s = l->argmax[(size_t)i * d + j];

			if (s >= 0)
				dx[((size_t)i * l->t + s) * d + j] += dy[(size_t)i * d + j];
		}
	return 0;
}

/* ---- dispatch ---------------------------------------------------------- */

int ss_layer_forward(ss_layer *l, const ss_nn_ctx *c, int n, const void *x,
		     float *y)
{
	size_t m = (size_t)n * l->in;

	if (n < 0)
		return ss_error_code(SS_EINVALID, "negative batch size %d", n);
	switch (l->kind) {
	case SS_LAYER_DENSE:
		return dense_forward(l, c, n, x, y);
	case SS_LAYER_SPARSE_DENSE:
		return sparse_forward(l, c, n, x, y);
	case SS_LAYER_RELU:
		for (size_t i = 0; i < m; i++) {
			float v = ((const float *)x)[i];

			y[i] = v > 0.0f ? v : 0.0f;
		}
		return 0;
	case SS_LAYER_DROPOUT:
		return dropout_forward(l, c, n, x, y);
	case SS_LAYER_SIGMOID_BCE:
		return bce_forward(l, n, x, y);
	case SS_LAYER_EMBED:
		return embed_forward(l, c, n, x, y);
	case SS_LAYER_CONV1D:
		return conv_forward(l, c, n, x, y);
	case SS_LAYER_MAXPOOL:
		return maxpool_forward(l, c, n, x, y);
	}
	return ss_error_code(SS_EINVALID, "unknown layer kind %d", (int)l->kind);
}

int ss_layer_backward(ss_layer *l, const ss_nn_ctx *c, int n, const void *x,
		      const float *y, const float *dy, float *dx)
{
	size_t m = (size_t)n * l->in;

	if (n < 0)
		return ss_error_code(SS_EINVALID, "negative batch size %d", n);
	switch (l->kind) {
	case SS_LAYER_DENSE:
		return dense_backward(l, c, n, x, dy, dx);
	case SS_LAYER_SPARSE_DENSE:
		return sparse_backward(l, c, n, x, dy, dx);
	case SS_LAYER_RELU:
		if (dx)
			for (size_t i = 0; i < m; i++)
				if (y[i] > 0.0f)
					dx[i] += dy[i];
		return 0;
	case SS_LAYER_DROPOUT:
		if (dx)
			for (size_t i = 0; i < m; i++)
				dx[i] += l->mask ? dy[i] * l->mask[i] : dy[i];
		return 0;
	case SS_LAYER_SIGMOID_BCE:
		return bce_backward(l, n, x, dx);
	case SS_LAYER_EMBED:
		return embed_backward(l, c, n, x, dy, dx);
	case SS_LAYER_CONV1D:
		return conv_backward(l, c, n, x, dy, dx);
	case SS_LAYER_MAXPOOL:
		return maxpool_backward(l, n, dy, dx);
	}
	return ss_error_code(SS_EINVALID, "unknown layer kind %d", (int)l->kind);
}

void ss_nn_concat_forward(float *y, int n, int k, const float *const *x,
			  const int *dims)
{
	size_t total = 0;

	for (int j = 0; j < k; j++)
		total += (size_t)dims[j];
	for (int i = 0; i < n; i++) {
		float *yi = y + (size_t)i * total;

		for (int j = 0; j < k; j++) {
			memcpy(yi, x[j] + (size_t)i * dims[j], (size_t)dims[j] * sizeof(float));
			yi += dims[j];
		}
	}
}

void ss_nn_concat_backward(float *const *dx, int n, int k, const int *dims,
			   const float *dy)
{
	size_t total = 0;

	for (int j = 0; j < k; j++)
		total += (size_t)dims[j];
	for (int i = 0; i < n; i++) {
		const float *dyi = dy + (size_t)i * total;

		for (int j = 0; j < k; j++) {
			if (dx[j])
				for (int q = 0; q < dims[j]; q++)
					dx[j][(size_t)i * dims[j] + q] += dyi[q];
			dyi += dims[j];
		}
	}
}

/* GCC 12's -O2 ("very cheap" cost model) leaves loops of unknown trip
 * count scalar; PatchNet's conv backward is made of these axpys */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("tree-loop-vectorize", "vect-cost-model=dynamic")))
#endif
void ss_nn_axpy(float *restrict y, const float *restrict x, float a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] += a * x[i];
}
