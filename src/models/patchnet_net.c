/*
 * patchnet_net.c - the PatchNet network: padded token ids in, compacted
 * sequences through embeddings, convolutions and max-pools, probabilities,
 * gradients and max-pool explanations out (see patchnet_net.h).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "models/impl.h"
#include "models/patchnet_net.h"
#include "nn/nn.h"
#include "util/error.h"
#include "util/grow.h"

#define MAX_WORKERS 64
#define MAX_POOLED 8

/* conv widths 1 and 2 over [rows][t][in] -> max over time -> ReLU,
 * the two widths concatenated: [rows][2 * filters].
 *
 * Ragged: only the valid windows of each row are convolved (packed one
 * row after the other), not the padded steps up to t, and the max is
 * taken per row over its own windows.  Backward uses that only the
 * winning window of each (row, filter) has a gradient: the weight and
 * input gradients are rows * filters axpys of width * in floats instead
 * of products over every window.  Padding was most of the work: batches
 * pad messages to their longest (up to 512 tokens) and lines to theirs. */
struct cblock {
	ss_layer conv[2], pool[2];   /* conv: weights; pool: argmax for explain */
	/* per batch */
	int rows, t;
	const float *x;
	int *len[2];        /* windows per row and width */
	int *off[2];        /* first packed window of each row */
	float *cols[2];     /* packed windows [windows][width * in] */
	float *cy[2];       /* conv outputs of the packed windows [windows][filters] */
	float *py[2];       /* pooled, before ReLU [rows][filters] */
	float *out;         /* [rows][2 * filters] */
};

/* One side's code in a batch, compacted: only present lines and hunks. */
struct side {
	int nl, tl;             /* present lines, tokens per line row */
	int32_t *line_ids;      /* [nl][tl] */
	int *line_n;            /* [nl] tokens */
	int *line_row;          /* [nl] hunk row * lmax + line slot */
	float *line_e;          /* [nl][tl][embed] */
	int nh, lmax;           /* present hunks, line slots per hunk row */
	int *hunk_n;            /* [nh] lines */
	int *hunk_where;        /* [nh][3] example (batch index), file, hunk */
	int *hunk_line;         /* [nh][lmax] line index in the batch */
	float *hunk_x;          /* [nh][lmax][2F] */
	int hmax;               /* hunk slots per example */
	int *side_n;            /* [n] hunks */
	int *side_row;          /* [n][hmax] hunk row */
	float *side_x;          /* [n][hmax][2F] */
	float *side_y;          /* [n][2F] */
};

struct worker {
	ss_layer msg_emb, code_emb;
	struct cblock msg, line[2], hunk[2];
	ss_layer side_pool[2];
	ss_layer fc1, relu1, drop, fc2, loss;
	ss_layer fx, fxr, fxd;  /* feature branch (cfg.features > 0) */
	ss_layer lw;            /* wide path: features -> logit (cfg.wide) */
	ss_layer ls;            /* skip path: feature units -> logit (cfg.skip) */
	ss_layer hd;            /* dropout on the head's input */
	ss_nn_arena *arena;
	ss_rng rng;
	float *g;               /* worker 0: the params' g */
	/* per batch */
	const ss_patchnet_batch *b;
	int first, n, train;
	float *weight;          /* [n] example weights, scaled to the batch */
	int tm;
	int32_t *msg_ids;       /* [n][tm] */
	int *msg_n;
	float *msg_e;
	struct side s[2];
	float *feat, *h1, *h1r, *h1d, *z, *prob;
	float *featd;           /* feat after the head's input dropout, or feat */
	ss_csr fcsr;            /* the batch's features, rows first .. first + n */
	float *fx_y, *fx_r;     /* [n][feat_hidden] before and after ReLU */
	float *fx_d;            /* after dropout: the head's input */
	double loss_val;
};

/* Idle scoring workers: predict and explain reuse their arenas, which
 * keeps a warm batch free of mallocs and page faults. */
struct pool {
	pthread_mutex_t lock;
	struct worker *idle[MAX_POOLED];
	int n;
};

struct ss_patchnet_net {
	ss_patchnet_config cfg;
	struct pool *pool;
	ss_params *p;
	ss_adam *adam;
	long long step;
	int nworkers;
	int g_clean;            /* the workers' g (all but worker 0's) are zero */
	struct worker w[MAX_WORKERS];
};

/* ---- batches ----------------------------------------------------------- */

static size_t code_slots(const ss_patchnet_batch *b)
{
	return (size_t)b->files * b->hunks * b->lines * b->tokens;
}

int ss_patchnet_batch_new(ss_patchnet_batch **out, const ss_patchnet_config *cfg, int cap)
{
	ss_patchnet_batch *b;

	*out = NULL;
	if (cap <= 0 || cfg->msg_len <= 0 || cfg->files <= 0 || cfg->hunks <= 0 ||
	    cfg->lines <= 0 || cfg->tokens <= 0)
		return ss_error_code(SS_EINVALID, "patchnet batch caps must be positive");
	b = calloc(1, sizeof(*b));
	if (!b)
		return ss_error_code(SS_ENOMEM, "out of memory for a patchnet batch");
	b->cap = cap;
	b->msg_len = cfg->msg_len;
	b->files = cfg->files;
	b->hunks = cfg->hunks;
	b->lines = cfg->lines;
	b->tokens = cfg->tokens;
	b->msg = malloc((size_t)cap * b->msg_len * sizeof(int32_t));
	b->code[0] = malloc((size_t)cap * code_slots(b) * sizeof(int32_t));
	b->code[1] = malloc((size_t)cap * code_slots(b) * sizeof(int32_t));
	b->label = malloc((size_t)cap * sizeof(float));
	b->weight = malloc((size_t)cap * sizeof(float));
	b->feat_off = calloc((size_t)cap, sizeof(size_t));
	b->feat_n = calloc((size_t)cap, sizeof(uint32_t));
	if (!b->msg || !b->code[0] || !b->code[1] || !b->label || !b->weight || !b->feat_off ||
	    !b->feat_n)
		goto free_batch;
	ss_patchnet_batch_clear(b);
	*out = b;
	return 0;

free_batch:
	ss_patchnet_batch_free(b);
	return ss_error_code(SS_ENOMEM, "out of memory for a patchnet batch of %d", cap);
}

void ss_patchnet_batch_free(ss_patchnet_batch *b)
{
	if (!b)
		return;
	free(b->msg);
	free(b->code[0]);
	free(b->code[1]);
	free(b->label);
	free(b->weight);
	free(b->feat_off);
	free(b->feat_n);
	free(b->feat_idx);
	free(b->feat_val);
	free(b);
}

void ss_patchnet_batch_clear(ss_patchnet_batch *b)
{
	size_t nm = (size_t)b->cap * b->msg_len, nc = (size_t)b->cap * code_slots(b);

	b->n = 0;
	for (size_t i = 0; i < nm; i++)
		b->msg[i] = -1;
	for (size_t i = 0; i < nc; i++)
		b->code[0][i] = b->code[1][i] = -1;
	for (int i = 0; i < b->cap; i++) {
		b->label[i] = 0.0f;
		b->weight[i] = 1.0f;
		b->feat_n[i] = 0;
	}
	b->feat_used = 0;
}

int ss_patchnet_batch_features(ss_patchnet_batch *b, int i, const int32_t *idx,
			       const float *val, size_t n)
{
	if (b->feat_used + n > b->feat_cap) {
		size_t cap = ss_grow_cap(b->feat_cap, b->feat_used + n);

		if (ss_grow_to(&b->feat_idx, cap, sizeof(*b->feat_idx)) ||
		    ss_grow_to(&b->feat_val, cap, sizeof(*b->feat_val)))
			return ss_error_code(SS_ENOMEM, "out of memory for patchnet features");
		b->feat_cap = cap;
	}
	memcpy(b->feat_idx + b->feat_used, idx, n * sizeof(*idx));
	memcpy(b->feat_val + b->feat_used, val, n * sizeof(*val));
	b->feat_off[i] = b->feat_used;
	b->feat_n[i] = (uint32_t)n;
	b->feat_used += n;
	return 0;
}

int32_t *ss_patchnet_batch_msg(ss_patchnet_batch *b, int i)
{
	return b->msg + (size_t)i * b->msg_len;
}

static size_t line_offset(const ss_patchnet_batch *b, int i, int file, int hunk, int line)
{
	return (((size_t)i * b->files + file) * b->hunks + hunk) * b->lines * b->tokens +
	       (size_t)line * b->tokens;
}

int32_t *ss_patchnet_batch_line(ss_patchnet_batch *b, int i, int side, int file,
				int hunk, int line)
{
	return b->code[side] + line_offset(b, i, file, hunk, line);
}

/* Leading ids that are tokens. */
static int leading(const int32_t *ids, int cap)
{
	int n = 0;

	while (n < cap && ids[n] >= 0)
		n++;
	return n;
}

/* ---- conv block -------------------------------------------------------- */

static int cblock_init(struct cblock *cb, ss_params *p, ss_rng *rng, int in, int filters)
{
	int rc;

	for (int w = 0; w < 2; w++) {
		if ((rc = ss_layer_conv1d(&cb->conv[w], p, rng, in, filters, w + 1, w + 1,
					  SS_INIT_HE)))
			return rc;
		ss_layer_maxpool(&cb->pool[w], filters, 1);
	}
	return 0;
}

/* x [rows][t][in] with len[rows] valid steps; t >= 2 */
static int cblock_forward(struct cblock *cb, const ss_nn_ctx *c, int rows, int t,
			  const float *x, const int *len)
{
	int f = cb->conv[0].out, in = cb->conv[0].in;

	cb->rows = rows;
	cb->t = t;
	cb->x = x;
	cb->out = ss_nn_arena_floats(c->arena, (size_t)rows * 2 * f);
	if (!cb->out)
		return SS_ENOMEM;
	for (int w = 0; w < 2; w++) {
		const ss_layer *cv = &cb->conv[w];
		size_t k = (size_t)(w + 1) * in, np = 0;
		int *am;

		cb->len[w] = ss_nn_arena_alloc(c->arena, (size_t)rows * sizeof(int));
		cb->off[w] = ss_nn_arena_alloc(c->arena, (size_t)rows * sizeof(int));
		cb->py[w] = ss_nn_arena_floats(c->arena, (size_t)rows * f);
		am = ss_nn_arena_alloc(c->arena, (size_t)rows * f * sizeof(int));
		if (!cb->len[w] || !cb->off[w] || !cb->py[w] || !am)
			return SS_ENOMEM;
		cb->pool[w].argmax = am;
		for (int r = 0; r < rows; r++) {
			/* a row shorter than the window still has one (padded)
			 * window; t >= 2 keeps it inside the row */
			int l = len[r] < t ? len[r] : t;

			cb->len[w][r] = l > w ? l - w : l > 0;
			cb->off[w][r] = (int)np;
			np += (size_t)cb->len[w][r];
		}
		cb->cols[w] = ss_nn_arena_floats(c->arena, (np ? np : 1) * k);
		cb->cy[w] = ss_nn_arena_floats(c->arena, (np ? np : 1) * f);
		if (!cb->cols[w] || !cb->cy[w])
			return SS_ENOMEM;
		/* window s of row r is width consecutive steps: k floats from
		 * step s, so a row's windows of width 1 are one run */
		for (int r = 0; r < rows; r++) {
			const float *xr = x + (size_t)r * t * in;
			float *dst = cb->cols[w] + (size_t)cb->off[w][r] * k;

			if (!w)
				memcpy(dst, xr, (size_t)cb->len[w][r] * k * sizeof(float));
			else
				for (int q = 0; q < cb->len[w][r]; q++)
					memcpy(dst + (size_t)q * k, xr + (size_t)q * in,
					       k * sizeof(float));
		}
		for (size_t q = 0; q < np; q++)
			memcpy(cb->cy[w] + q * f, c->w + cv->b_off, (size_t)f * sizeof(float));
		ss_sgemm(0, 1, (int)np, f, (int)k, 1.0f, cb->cols[w], c->w + cv->w_off, 1.0f,
			 cb->cy[w]);
		for (int r = 0; r < rows; r++) {
			const float *yr = cb->cy[w] + (size_t)cb->off[w][r] * f;
			float *py = cb->py[w] + (size_t)r * f;
			int *ar = am + (size_t)r * f;

			if (!cb->len[w][r]) {
				/* an empty row contributes nothing, not -inf */
				for (int j = 0; j < f; j++) {
					py[j] = 0.0f;
					ar[j] = -1;
				}
				continue;
			}
			for (int j = 0; j < f; j++) {
				py[j] = yr[j];
				ar[j] = 0;
			}
			/* branch-free so that the compiler can vectorise it */
			for (int q = 1; q < cb->len[w][r]; q++) {
				const float *ys = yr + (size_t)q * f;

				for (int j = 0; j < f; j++) {
					int gt = ys[j] > py[j];

					py[j] = gt ? ys[j] : py[j];
					ar[j] = gt ? q : ar[j];
				}
			}
			for (int j = 0; j < f; j++)
				cb->out[(size_t)r * 2 * f + w * f + j] = py[j] > 0.0f ? py[j] : 0.0f;
		}
	}
	return 0;
}

/* dout [rows][2F] -> adds into dx [rows][t][in] (may be NULL) and, when
 * c->g is set, the conv gradients */
static int cblock_backward(struct cblock *cb, const ss_nn_ctx *c, const float *dout, float *dx)
{
	int f = cb->conv[0].out, in = cb->conv[0].in, rows = cb->rows;

	for (int w = 0; w < 2; w++) {
		const ss_layer *cv = &cb->conv[w];
		const float *wt = c->w + cv->w_off;
		float *gw = c->g ? c->g + cv->w_off : NULL, *gb = c->g ? c->g + cv->b_off : NULL;
		const int *am = cb->pool[w].argmax;
		size_t k = (size_t)(w + 1) * in;

		for (int r = 0; r < rows; r++)
			for (int j = 0; j < f; j++) {
				size_t o = (size_t)r * 2 * f + w * f + j;
				float d = cb->out[o] > 0.0f ? dout[o] : 0.0f;
				int q = am[(size_t)r * f + j];
				const float *col, *wj;

				if (q < 0 || d == 0.0f)
					continue;
				col = cb->cols[w] + ((size_t)cb->off[w][r] + q) * k;
				wj = wt + (size_t)j * k;
				if (gw) {
					ss_nn_axpy(gw + (size_t)j * k, col, d, k);
					gb[j] += d;
				}
				if (dx)
					ss_nn_axpy(dx + ((size_t)r * cb->t + q) * in, wj, d, k);
			}
	}
	return 0;
}

/* ---- the network ------------------------------------------------------- */

/* Width of the head's input: message, removed, added [, features]. */
static int head_in(const ss_patchnet_config *cfg)
{
	return 6 * cfg->filters + (cfg->features > 0 ? cfg->feat_hidden : 0);
}

/* Must follow build() (test_patchnet compares the two). */
double ss_patchnet_net_nparams(const ss_patchnet_config *cfg)
{
	double e = cfg->embed, f = cfg->filters, f2 = 2.0 * f, n;
	/* conv widths 1 and 2 over in channels, with biases */
#define CBLOCK(in) (f * (1.0 * (in)) + f + f * (2.0 * (in)) + f)

	n = ((double)cfg->msg_vocab + cfg->code_vocab) * e + CBLOCK(e) +
	    2.0 * (CBLOCK(e) + CBLOCK(f2));
#undef CBLOCK
	if (cfg->features > 0) {
		n += (double)cfg->features * cfg->feat_hidden + cfg->feat_hidden;
		if (cfg->wide)
			n += (double)cfg->features + 1.0;
		if (cfg->skip)
			n += (double)cfg->feat_hidden + 1.0;
	}
	n += ((double)6 * cfg->filters + (cfg->features > 0 ? cfg->feat_hidden : 0)) *
		     cfg->hidden + cfg->hidden;
	n += (double)cfg->hidden + 1.0;
	return n;
}

static int build(ss_patchnet_net *net)
{
	const ss_patchnet_config *cfg = &net->cfg;
	struct worker *w = &net->w[0];
	int f2 = 2 * cfg->filters;
	ss_rng rng;
	int rc;

	ss_rng_seed(&rng, cfg->seed);
	if ((rc = ss_layer_embed(&w->msg_emb, net->p, &rng, cfg->msg_vocab, cfg->embed, 1)) ||
	    (rc = ss_layer_embed(&w->code_emb, net->p, &rng, cfg->code_vocab, cfg->embed, 1)) ||
	    (rc = cblock_init(&w->msg, net->p, &rng, cfg->embed, cfg->filters)))
		return rc;
	for (int s = 0; s < 2; s++) {
		if ((rc = cblock_init(&w->line[s], net->p, &rng, cfg->embed, cfg->filters)) ||
		    (rc = cblock_init(&w->hunk[s], net->p, &rng, f2, cfg->filters)))
			return rc;
		ss_layer_maxpool(&w->side_pool[s], f2, 1);
	}
	if (cfg->features > 0) {
		if ((rc = ss_layer_sparse_dense(&w->fx, net->p, &rng, cfg->features,
						cfg->feat_hidden, SS_INIT_HE)))
			return rc;
		ss_layer_relu(&w->fxr, cfg->feat_hidden);
		ss_layer_dropout(&w->fxd, cfg->feat_hidden, cfg->feat_dropout);
	}
	if ((rc = ss_layer_dense(&w->fc1, net->p, &rng, head_in(cfg), cfg->hidden, SS_INIT_HE)))
		return rc;
	ss_layer_dropout(&w->hd, head_in(cfg), cfg->head_dropout);
	ss_layer_relu(&w->relu1, cfg->hidden);
	ss_layer_dropout(&w->drop, cfg->hidden, cfg->dropout);
	if ((rc = ss_layer_dense(&w->fc2, net->p, &rng, cfg->hidden, 1, SS_INIT_XAVIER)))
		return rc;
	if (cfg->features > 0 && cfg->wide &&
	    (rc = ss_layer_sparse_dense(&w->lw, net->p, &rng, cfg->features, 1, SS_INIT_ZERO)))
		return rc;
	/* last: files of nets without it keep their layout */
	if (cfg->features > 0 && cfg->skip &&
	    (rc = ss_layer_dense(&w->ls, net->p, &rng, cfg->feat_hidden, 1, SS_INIT_XAVIER)))
		return rc;
	ss_layer_sigmoid_bce(&w->loss);
	return 0;
}

int ss_patchnet_net_new(ss_patchnet_net **out, const ss_patchnet_config *cfg)
{
	ss_patchnet_net *net;
	ss_adam_opts ao = SS_ADAM_OPTS_INIT;
	int rc;

	*out = NULL;
	if (cfg->msg_vocab <= 0 || cfg->code_vocab <= 0 || cfg->embed <= 0 ||
	    cfg->filters <= 0 || cfg->hidden <= 0 || cfg->msg_len <= 0 || cfg->files <= 0 ||
	    cfg->hunks <= 0 || cfg->lines <= 0 || cfg->tokens <= 0 || cfg->features < 0 ||
	    (cfg->features > 0 && cfg->feat_hidden <= 0))
		return ss_error_code(SS_EINVALID, "patchnet sizes must be positive");
	if (cfg->dropout < 0.0f || cfg->dropout >= 1.0f)
		return ss_error_code(SS_EINVALID, "patchnet dropout %g not in [0, 1)",
				     (double)cfg->dropout);
	net = calloc(1, sizeof(*net));
	if (!net)
		return ss_error_code(SS_ENOMEM, "out of memory for a patchnet");
	net->cfg = *cfg;
	net->nworkers = cfg->threads < 1 ? 1 : cfg->threads > MAX_WORKERS ? MAX_WORKERS :
			cfg->threads;
	if (!cfg->data_parallel)
		net->nworkers = 1;
	net->pool = calloc(1, sizeof(*net->pool));
	if (!net->pool) {
		rc = ss_error_code(SS_ENOMEM, "out of memory for a patchnet");
		goto free_net;
	}
	pthread_mutex_init(&net->pool->lock, NULL);
	net->p = ss_params_new();
	if (!net->p) {
		rc = ss_error_code(SS_ENOMEM, "out of memory for a patchnet");
		goto free_net;
	}
	if ((rc = build(net)))
		goto free_net;
	ao.lr = cfg->lr;
	ao.weight_decay = cfg->weight_decay;
	net->adam = ss_adam_new(net->p->n, &ao);
	if (!net->adam) {
		rc = SS_ENOMEM;
		goto free_net;
	}
	for (int t = 0; t < net->nworkers; t++) {
		struct worker *w = &net->w[t];

		if (t) {
			/* same layers (offsets), own state */
			*w = net->w[0];
			w->arena = NULL;
			w->g = calloc(net->p->n, sizeof(float));
			if (!w->g) {
				rc = ss_error_code(SS_ENOMEM, "out of memory for worker gradients");
				goto free_net;
			}
		}
		w->arena = ss_nn_arena_new();
		if (!w->arena) {
			rc = SS_ENOMEM;
			goto free_net;
		}
	}
	*out = net;
	return 0;

free_net:
	ss_patchnet_net_free(net);
	return rc;
}

int ss_patchnet_net_warm_start(ss_patchnet_net *net, const float *w1, const float *b1,
			       const float *wo, float bo)
{
	const ss_patchnet_config *cfg = &net->cfg;
	const struct worker *w = &net->w[0];
	float *p = net->p->w;

	if (cfg->features <= 0 || !cfg->skip)
		return ss_error_code(SS_EINVALID, "patchnet has no feature branch to warm-start");
	memcpy(p + w->fx.w_off, w1, (size_t)cfg->feat_hidden * cfg->features * sizeof(*p));
	memcpy(p + w->fx.b_off, b1, (size_t)cfg->feat_hidden * sizeof(*p));
	memcpy(p + w->ls.w_off, wo, (size_t)cfg->feat_hidden * sizeof(*p));
	p[w->ls.b_off] = bo;
	/* the head starts silent: its output weights are zero, and the ones
	 * below it start learning as soon as these have moved */
	memset(p + w->fc2.w_off, 0, (size_t)cfg->hidden * sizeof(*p));
	p[w->fc2.b_off] = 0.0f;
	return 0;
}

void ss_patchnet_net_free(ss_patchnet_net *net)
{
	if (!net)
		return;
	for (int t = 0; t < net->nworkers; t++) {
		ss_nn_arena_free(net->w[t].arena);
		if (t)
			free(net->w[t].g);
	}
	if (net->pool) {
		for (int i = 0; i < net->pool->n; i++) {
			ss_nn_arena_free(net->pool->idle[i]->arena);
			free(net->pool->idle[i]);
		}
		pthread_mutex_destroy(&net->pool->lock);
		free(net->pool);
	}
	ss_adam_free(net->adam);
	ss_params_free(net->p);
	free(net);
}

const ss_patchnet_config *ss_patchnet_net_config(const ss_patchnet_net *net)
{
	return &net->cfg;
}

ss_params *ss_patchnet_net_params(ss_patchnet_net *net)
{
	return net->p;
}

static ss_nn_ctx worker_ctx(const ss_patchnet_net *net, struct worker *w, float *g)
{
	ss_nn_ctx c = { .w = net->p->w, .g = g, .arena = w->arena, .rng = &w->rng,
			.train = w->train };

	return c;
}

#define ALLOC_INTS(ar, n) ((int *)ss_nn_arena_alloc((ar), (size_t)(n) * sizeof(int)))

/* Compact side s of examples [first, first + n) of b into w->s[s]. */
static int compact_side(struct worker *w, const ss_patchnet_batch *b, int s)
{
	struct side *sd = &w->s[s];
	ss_nn_arena *ar = w->arena;
	int nl = 0, nh = 0, tl = 2, lmax = 2, hmax = 1, li = 0, hr = 0;

	for (int i = 0; i < w->n; i++) {
		int hunks = 0;

		for (int f = 0; f < b->files; f++)
			for (int h = 0; h < b->hunks; h++) {
				int lines = 0;

				for (int l = 0; l < b->lines; l++) {
					const int32_t *ids = b->code[s] +
						line_offset(b, w->first + i, f, h, l);
					int len = leading(ids, b->tokens);

					if (len) {
						lines++;
						tl = len > tl ? len : tl;
					}
				}
				if (lines) {
					nl += lines;
					nh++;
					hunks++;
					lmax = lines > lmax ? lines : lmax;
				}
			}
		hmax = hunks > hmax ? hunks : hmax;
	}
	sd->nl = nl;
	sd->tl = tl;
	sd->nh = nh;
	sd->lmax = lmax;
	sd->hmax = hmax;
	sd->line_ids = ss_nn_arena_alloc(ar, (size_t)nl * tl * sizeof(int32_t));
	sd->line_n = ALLOC_INTS(ar, nl);
	sd->line_row = ALLOC_INTS(ar, nl);
	sd->hunk_n = ALLOC_INTS(ar, nh);
	sd->hunk_where = ALLOC_INTS(ar, (size_t)nh * 3);
	sd->hunk_line = ALLOC_INTS(ar, (size_t)nh * lmax);
	sd->side_n = ALLOC_INTS(ar, w->n);
	sd->side_row = ALLOC_INTS(ar, (size_t)w->n * hmax);
	if (!sd->line_ids || !sd->line_n || !sd->line_row || !sd->hunk_n || !sd->hunk_where ||
	    !sd->hunk_line || !sd->side_n || !sd->side_row)
		return SS_ENOMEM;
	for (size_t k = 0; k < (size_t)nl * tl; k++)
		sd->line_ids[k] = -1;
	for (int i = 0; i < w->n; i++) {
		sd->side_n[i] = 0;
		for (int f = 0; f < b->files; f++)
			for (int h = 0; h < b->hunks; h++) {
				int k = 0;

				for (int l = 0; l < b->lines; l++) {
					const int32_t *ids = b->code[s] +
						line_offset(b, w->first + i, f, h, l);
					int len = leading(ids, b->tokens);

					if (!len)
						continue;
					memcpy(sd->line_ids + (size_t)li * tl, ids, len * sizeof(int32_t));
					sd->line_n[li] = len;
					sd->line_row[li] = hr * lmax + k;
					sd->hunk_line[hr * lmax + k] = l;
					li++;
					k++;
				}
				if (!k)
					continue;
				sd->hunk_n[hr] = k;
				sd->hunk_where[hr * 3] = i;
				sd->hunk_where[hr * 3 + 1] = f;
				sd->hunk_where[hr * 3 + 2] = h;
				sd->side_row[i * hmax + sd->side_n[i]++] = hr;
				hr++;
			}
	}
	return 0;
}

static int side_forward(struct worker *w, const ss_nn_ctx *c, const ss_patchnet_batch *b,
			int s, int f2)
{
	struct side *sd = &w->s[s];
	int e = w->code_emb.out, rc;

	if ((rc = compact_side(w, b, s)))
		return rc;
	sd->line_e = ss_nn_arena_floats(w->arena, (size_t)sd->nl * sd->tl * e);
	sd->hunk_x = ss_nn_arena_zeros(w->arena, (size_t)sd->nh * sd->lmax * f2);
	sd->side_x = ss_nn_arena_zeros(w->arena, (size_t)w->n * sd->hmax * f2);
	sd->side_y = ss_nn_arena_floats(w->arena, (size_t)w->n * f2);
	if (!sd->line_e || !sd->hunk_x || !sd->side_x || !sd->side_y)
		return SS_ENOMEM;
	w->code_emb.t = sd->tl;
	if ((rc = ss_layer_forward(&w->code_emb, c, sd->nl, sd->line_ids, sd->line_e)) ||
	    (rc = cblock_forward(&w->line[s], c, sd->nl, sd->tl, sd->line_e, sd->line_n)))
		return rc;
	for (int li = 0; li < sd->nl; li++)
		memcpy(sd->hunk_x + (size_t)sd->line_row[li] * f2,
		       w->line[s].out + (size_t)li * f2, f2 * sizeof(float));
	if ((rc = cblock_forward(&w->hunk[s], c, sd->nh, sd->lmax, sd->hunk_x, sd->hunk_n)))
		return rc;
	for (int i = 0; i < w->n; i++)
		for (int k = 0; k < sd->side_n[i]; k++)
			memcpy(sd->side_x + ((size_t)i * sd->hmax + k) * f2,
			       w->hunk[s].out + (size_t)sd->side_row[i * sd->hmax + k] * f2,
			       f2 * sizeof(float));
	w->side_pool[s].t = sd->hmax;
	w->side_pool[s].len = sd->side_n;
	return ss_layer_forward(&w->side_pool[s], c, w->n, sd->side_x, sd->side_y);
}

/* Forward over examples [first, first + n) of b; wscale scales the example
 * weights so that the losses of a batch's shares add up to its loss. */
/* The batch's features of rows first .. first + n as a CSR in the arena,
 * through the branch's dense layer and ReLU. */
static int features_forward(struct worker *w, const ss_nn_ctx *c, const ss_patchnet_batch *b,
			    const ss_patchnet_config *cfg)
{
	size_t *row = ss_nn_arena_alloc(w->arena, (size_t)(w->n + 1) * sizeof(*row));
	size_t nnz = 0;
	int32_t *idx;
	float *val;
	int rc;

	if (!row)
		return SS_ENOMEM;
	for (int i = 0; i < w->n; i++)
		nnz += b->feat_n[w->first + i];
	idx = ss_nn_arena_alloc(w->arena, (nnz ? nnz : 1) * sizeof(*idx));
	val = ss_nn_arena_floats(w->arena, nnz ? nnz : 1);
	w->fx_y = ss_nn_arena_floats(w->arena, (size_t)w->n * cfg->feat_hidden);
	w->fx_r = ss_nn_arena_floats(w->arena, (size_t)w->n * cfg->feat_hidden);
	w->fx_d = ss_nn_arena_floats(w->arena, (size_t)w->n * cfg->feat_hidden);
	if (!idx || !val || !w->fx_y || !w->fx_r || !w->fx_d)
		return SS_ENOMEM;
	row[0] = 0;
	for (int i = 0; i < w->n; i++) {
		size_t off = b->feat_off[w->first + i], k = b->feat_n[w->first + i];

		memcpy(idx + row[i], b->feat_idx + off, k * sizeof(*idx));
		memcpy(val + row[i], b->feat_val + off, k * sizeof(*val));
		row[i + 1] = row[i] + k;
	}
	w->fcsr = (ss_csr){ w->n, row, idx, val };
	if ((rc = ss_layer_forward(&w->fx, c, w->n, &w->fcsr, w->fx_y)))
		return rc;
	if ((rc = ss_layer_forward(&w->fxr, c, w->n, w->fx_y, w->fx_r)))
		return rc;
	return ss_layer_forward(&w->fxd, c, w->n, w->fx_r, w->fx_d);
}

static int worker_forward(const ss_patchnet_net *net, struct worker *w,
			  const ss_patchnet_batch *b, int first, int n, int train,
			  float wscale)
{
	const ss_patchnet_config *cfg = &net->cfg;
	int f2 = 2 * cfg->filters, e = cfg->embed, hid = cfg->hidden;
	ss_nn_ctx c;
	const float *parts[4];
	int dims[4] = { f2, f2, f2, cfg->feat_hidden };
	int nparts = cfg->features > 0 ? 4 : 3, hin = head_in(cfg);
	int rc;

	ss_nn_arena_reset(w->arena);
	w->b = b;
	w->first = first;
	w->n = n;
	w->train = train;
	c = worker_ctx(net, w, w->g);

	/* message */
	w->msg_n = ALLOC_INTS(w->arena, n);
	w->weight = ss_nn_arena_floats(w->arena, n);
	if (!w->msg_n || !w->weight)
		return SS_ENOMEM;
	w->tm = 2;
	for (int i = 0; i < n; i++) {
		w->msg_n[i] = leading(b->msg + (size_t)(first + i) * b->msg_len, b->msg_len);
		w->tm = w->msg_n[i] > w->tm ? w->msg_n[i] : w->tm;
		w->weight[i] = b->weight[first + i] * wscale;
	}
	w->msg_ids = ss_nn_arena_alloc(w->arena, (size_t)n * w->tm * sizeof(int32_t));
	w->msg_e = ss_nn_arena_floats(w->arena, (size_t)n * w->tm * e);
	if (!w->msg_ids || !w->msg_e)
		return SS_ENOMEM;
	for (int i = 0; i < n; i++) {
		int32_t *dst = w->msg_ids + (size_t)i * w->tm;

		memcpy(dst, b->msg + (size_t)(first + i) * b->msg_len, w->msg_n[i] * sizeof(int32_t));
		for (int k = w->msg_n[i]; k < w->tm; k++)
			dst[k] = -1;
	}
	w->msg_emb.t = w->tm;
	if ((rc = ss_layer_forward(&w->msg_emb, &c, n, w->msg_ids, w->msg_e)) ||
	    (rc = cblock_forward(&w->msg, &c, n, w->tm, w->msg_e, w->msg_n)))
		return rc;

	/* code */
	for (int s = 0; s < 2; s++)
		if ((rc = side_forward(w, &c, b, s, f2)))
			return rc;

	/* features */
	if (cfg->features > 0 && (rc = features_forward(w, &c, b, cfg)))
		return rc;

	/* head */
	w->feat = ss_nn_arena_floats(w->arena, (size_t)n * hin);
	w->h1 = ss_nn_arena_floats(w->arena, (size_t)n * hid);
	w->h1r = ss_nn_arena_floats(w->arena, (size_t)n * hid);
	w->h1d = ss_nn_arena_floats(w->arena, (size_t)n * hid);
	w->z = ss_nn_arena_floats(w->arena, n);
	w->prob = ss_nn_arena_floats(w->arena, n);
	if (!w->feat || !w->h1 || !w->h1r || !w->h1d || !w->z || !w->prob)
		return SS_ENOMEM;
	parts[0] = w->msg.out;
	parts[1] = w->s[0].side_y;
	parts[2] = w->s[1].side_y;
	parts[3] = w->fx_d;
	ss_nn_concat_forward(w->feat, n, nparts, parts, dims);
	w->loss.target = b->label + first;
	w->loss.weight = w->weight;
	w->featd = w->feat;
	if (train && cfg->head_dropout > 0.0f) {
		w->featd = ss_nn_arena_floats(w->arena, (size_t)n * hin);
		if (!w->featd)
			return SS_ENOMEM;
		if ((rc = ss_layer_forward(&w->hd, &c, n, w->feat, w->featd)))
			return rc;
	}
	if ((rc = ss_layer_forward(&w->fc1, &c, n, w->featd, w->h1)) ||
	    (rc = ss_layer_forward(&w->relu1, &c, n, w->h1, w->h1r)) ||
	    (rc = ss_layer_forward(&w->drop, &c, n, w->h1r, w->h1d)) ||
	    (rc = ss_layer_forward(&w->fc2, &c, n, w->h1d, w->z)))
		return rc;
	if (cfg->features > 0 && cfg->wide) {
		float *zw = ss_nn_arena_floats(w->arena, n);

		if (!zw)
			return SS_ENOMEM;
		if ((rc = ss_layer_forward(&w->lw, &c, n, &w->fcsr, zw)))
			return rc;
		for (int i = 0; i < n; i++)
			w->z[i] += zw[i];
	}
	if (cfg->features > 0 && cfg->skip) {
		float *zs = ss_nn_arena_floats(w->arena, n);

		if (!zs)
			return SS_ENOMEM;
		if ((rc = ss_layer_forward(&w->ls, &c, n, w->fx_d, zs)))
			return rc;
		for (int i = 0; i < n; i++)
			w->z[i] += zs[i];
	}
	if ((rc = ss_layer_forward(&w->loss, &c, n, w->z, w->prob)))
		return rc;
	w->loss_val = w->loss.loss;
	return 0;
}

static int side_backward(struct worker *w, const ss_nn_ctx *c, int s, int f2,
			 const float *dside)
{
	struct side *sd = &w->s[s];
	int e = w->code_emb.out, rc;
	float *dside_x = ss_nn_arena_zeros(w->arena, (size_t)w->n * sd->hmax * f2);
	float *dhunk = ss_nn_arena_zeros(w->arena, (size_t)sd->nh * f2);
	float *dhunk_x = ss_nn_arena_zeros(w->arena, (size_t)sd->nh * sd->lmax * f2);
	float *dline = ss_nn_arena_zeros(w->arena, (size_t)sd->nl * f2);
	float *dline_e = ss_nn_arena_zeros(w->arena, (size_t)sd->nl * sd->tl * e);

	if (!dside_x || !dhunk || !dhunk_x || !dline || !dline_e)
		return SS_ENOMEM;
	if ((rc = ss_layer_backward(&w->side_pool[s], c, w->n, sd->side_x, sd->side_y, dside,
				    dside_x)))
		return rc;
	for (int i = 0; i < w->n; i++)
		for (int k = 0; k < sd->side_n[i]; k++) {
			const float *src = dside_x + ((size_t)i * sd->hmax + k) * f2;
			float *dst = dhunk + (size_t)sd->side_row[i * sd->hmax + k] * f2;

			for (int j = 0; j < f2; j++)
				dst[j] += src[j];
		}
	if ((rc = cblock_backward(&w->hunk[s], c, dhunk, dhunk_x)))
		return rc;
	for (int li = 0; li < sd->nl; li++) {
		const float *src = dhunk_x + (size_t)sd->line_row[li] * f2;
		float *dst = dline + (size_t)li * f2;

		for (int j = 0; j < f2; j++)
			dst[j] += src[j];
	}
	if ((rc = cblock_backward(&w->line[s], c, dline, dline_e)))
		return rc;
	/* the embedding is shared by both sides: its length is this side's */
	w->code_emb.t = sd->tl;
	return ss_layer_backward(&w->code_emb, c, sd->nl, sd->line_ids, sd->line_e, dline_e, NULL);
}

/* Backward of the last worker_forward into g (NULL: input gradients only,
 * dfeat_out gets dL/dfeat when not NULL and the loss is replaced by the
 * logit itself). */
static int worker_backward(const ss_patchnet_net *net, struct worker *w, float *g,
			   float *dfeat_out)
{
	const ss_patchnet_config *cfg = &net->cfg;
	int n = w->n, f2 = 2 * cfg->filters, hid = cfg->hidden, hin = head_in(cfg);
	int nparts = cfg->features > 0 ? 4 : 3;
	ss_nn_ctx c = worker_ctx(net, w, g);
	float *dz = ss_nn_arena_zeros(w->arena, n);
	float *dh1d = ss_nn_arena_zeros(w->arena, (size_t)n * hid);
	float *dh1r = ss_nn_arena_zeros(w->arena, (size_t)n * hid);
	float *dh1 = ss_nn_arena_zeros(w->arena, (size_t)n * hid);
	float *dfeat = dfeat_out ? dfeat_out : ss_nn_arena_zeros(w->arena, (size_t)n * hin);
	float *dfeatd = w->featd == w->feat ? NULL : ss_nn_arena_zeros(w->arena, (size_t)n * hin);
	float *dpart[4];
	int dims[4] = { f2, f2, f2, cfg->feat_hidden };
	float *dmsg_e;
	int rc;

	if (!dz || !dh1d || !dh1r || !dh1 || !dfeat || (w->featd != w->feat && !dfeatd))
		return SS_ENOMEM;
	if (dfeat_out) {
		for (int i = 0; i < n; i++)
			dz[i] = 1.0f;
	} else if ((rc = ss_layer_backward(&w->loss, &c, n, w->z, w->prob, NULL, dz))) {
		return rc;
	}
	if (cfg->features > 0 && cfg->wide && !dfeat_out &&
	    (rc = ss_layer_backward(&w->lw, &c, n, &w->fcsr, w->z, dz, NULL)))
		return rc;
	if ((rc = ss_layer_backward(&w->fc2, &c, n, w->h1d, w->z, dz, dh1d)) ||
	    (rc = ss_layer_backward(&w->drop, &c, n, w->h1r, w->h1d, dh1d, dh1r)) ||
	    (rc = ss_layer_backward(&w->relu1, &c, n, w->h1, w->h1r, dh1r, dh1)) ||
	    (rc = ss_layer_backward(&w->fc1, &c, n, w->featd, w->h1, dh1,
				    w->featd == w->feat ? dfeat : dfeatd)))
		return rc;
	if (w->featd != w->feat &&
	    (rc = ss_layer_backward(&w->hd, &c, n, w->feat, w->featd, dfeatd, dfeat)))
		return rc;
	if (dfeat_out)
		return 0;
	for (int k = 0; k < nparts; k++) {
		dpart[k] = ss_nn_arena_zeros(w->arena, (size_t)n * dims[k]);
		if (!dpart[k])
			return SS_ENOMEM;
	}
	ss_nn_concat_backward(dpart, n, nparts, dims, dfeat);
	/* the skip path feeds on the branch's units too */
	if (nparts == 4 && cfg->skip &&
	    (rc = ss_layer_backward(&w->ls, &c, n, w->fx_d, w->z, dz, dpart[3])))
		return rc;
	if (nparts == 4) {
		float *dfx = ss_nn_arena_zeros(w->arena, (size_t)n * cfg->feat_hidden);
		float *dfr = ss_nn_arena_zeros(w->arena, (size_t)n * cfg->feat_hidden);

		if (!dfx || !dfr)
			return SS_ENOMEM;
		if ((rc = ss_layer_backward(&w->fxd, &c, n, w->fx_r, w->fx_d, dpart[3], dfr)) ||
		    (rc = ss_layer_backward(&w->fxr, &c, n, w->fx_y, w->fx_r, dfr, dfx)) ||
		    (rc = ss_layer_backward(&w->fx, &c, n, &w->fcsr, w->fx_y, dfx, NULL)))
			return rc;
	}
	dmsg_e = ss_nn_arena_zeros(w->arena, (size_t)n * w->tm * cfg->embed);
	if (!dmsg_e)
		return SS_ENOMEM;
	if ((rc = cblock_backward(&w->msg, &c, dpart[0], dmsg_e)) ||
	    (rc = ss_layer_backward(&w->msg_emb, &c, n, w->msg_ids, w->msg_e, dmsg_e, NULL)))
		return rc;
	for (int s = 0; s < 2; s++)
		if ((rc = side_backward(w, &c, s, f2, dpart[1 + s])))
			return rc;
	return 0;
}

static void seed_dropout(ss_patchnet_net *net, int t)
{
	/* one stream per (seed, step, worker): reproducible for a thread count */
	ss_rng_seed(&net->w[t].rng, net->cfg.seed * 0x9e3779b97f4a7c15ULL ^
		    ((uint64_t)net->step << 8) ^ (uint64_t)t);
}

int ss_patchnet_net_forward(ss_patchnet_net *net, const ss_patchnet_batch *b,
			    float *prob, int train, double *loss)
{
	struct worker *w = &net->w[0];
	int rc;

	if (b->n < 0 || b->n > b->cap)
		return ss_error_code(SS_EINVALID, "patchnet batch has %d of %d examples", b->n, b->cap);
	seed_dropout(net, 0);
	if ((rc = worker_forward(net, w, b, 0, b->n, train, 1.0f)))
		return rc;
	if (prob)
		memcpy(prob, w->prob, (size_t)b->n * sizeof(float));
	if (loss)
		*loss = w->loss_val;
	return 0;
}

int ss_patchnet_net_backward(ss_patchnet_net *net, const ss_patchnet_batch *b)
{
	if (net->w[0].b != b || net->w[0].n != b->n)
		return ss_error_code(SS_EINVALID, "patchnet backward without its forward");
	return worker_backward(net, &net->w[0], net->p->g, NULL);
}

/* A scoring worker of its own: an idle one, or the layers of worker 0
 * with a new arena. */
static int temp_worker(struct worker **out, const ss_patchnet_net *net)
{
	struct worker *w = NULL;

	*out = NULL;
	pthread_mutex_lock(&net->pool->lock);
	if (net->pool->n)
		w = net->pool->idle[--net->pool->n];
	pthread_mutex_unlock(&net->pool->lock);
	if (!w) {
		w = malloc(sizeof(*w));
		if (!w)
			return ss_error_code(SS_ENOMEM, "out of memory for a patchnet worker");
		*w = net->w[0];
		w->g = NULL;
		w->arena = ss_nn_arena_new();
		if (!w->arena) {
			free(w);
			return SS_ENOMEM;
		}
	}
	*out = w;
	return 0;
}

static void temp_worker_done(const ss_patchnet_net *net, struct worker *w)
{
	pthread_mutex_lock(&net->pool->lock);
	if (net->pool->n < MAX_POOLED) {
		net->pool->idle[net->pool->n++] = w;
		w = NULL;
	}
	pthread_mutex_unlock(&net->pool->lock);
	if (w) {
		ss_nn_arena_free(w->arena);
		free(w);
	}
}

int ss_patchnet_net_predict(const ss_patchnet_net *net, const ss_patchnet_batch *b, float *prob)
{
	struct worker *w;
	int rc;

	if (b->n < 0 || b->n > b->cap)
		return ss_error_code(SS_EINVALID, "patchnet batch has %d of %d examples", b->n, b->cap);
	if ((rc = temp_worker(&w, net)))
		return rc;
	/*
	 * One example per forward, so that every product's shape (padding to
	 * the batch's longest message, line and hunk, and the rows of each
	 * ss_sgemm) comes from the example alone: OpenBLAS picks kernels and
	 * edge code by shape, and a row's float sums then differ in the last
	 * bits with its batch (SS_MODEL_BATCH_TOL in models/model.h).  Scoring
	 * one example costs the same products as its share of a batch.
	 */
	for (int i = 0; i < b->n && !rc; i++)
		if (!(rc = worker_forward(net, w, b, i, 1, 0, 1.0f)))
			prob[i] = w->prob[0];
	temp_worker_done(net, w);
	return rc;
}

struct step_arg {
	ss_patchnet_net *net;
	const ss_patchnet_batch *b;
	int nw;
	int used;               /* workers that ran the batch */
};

static int step_share(void *arg, int t)
{
	struct step_arg *a = arg;
	ss_patchnet_net *net = a->net;
	struct worker *w = &net->w[t];
	int n = a->b->n, first = (int)((long)n * t / a->nw);
	int last = (int)((long)n * (t + 1) / a->nw);
	unsigned ftz;
	int rc;

	if (t && !net->g_clean)
		memset(w->g, 0, net->p->n * sizeof(float));
	/* worker 0 adds into the params' own g: cleared here, beside the
	 * other workers' forward passes rather than before them */
	if (!t)
		ss_params_zero_grad(net->p);
	w->loss_val = 0.0;
	if (last == first)
		return 0;
	seed_dropout(net, t);
	/* subnormals (tiny gradients late in training) made sgemm crawl */
	ftz = ss_nn_ftz_begin();
	if (!(rc = worker_forward(net, w, a->b, first, last - first, 1,
				  (float)(last - first) / (float)n)))
		rc = worker_backward(net, w, t ? w->g : net->p->g, NULL);
	ss_nn_ftz_end(ftz);
	return rc;
}

/* Range t of the parameters: worker gradients added into the params' g
 * in worker order (as one thread would), the Adam update, then the
 * workers' gradients of the range zeroed for the next step (the params'
 * g keeps the batch gradient). */
static int update_share(void *arg, int t)
{
	struct step_arg *a = arg;
	ss_patchnet_net *net = a->net;
	size_t n = net->p->n, from = n * (size_t)t / (size_t)a->nw;
	size_t to = n * (size_t)(t + 1) / (size_t)a->nw;
	float *g = net->p->g;

	for (int u = 1; u < a->used; u++)
		ss_nn_axpy(g + from, net->w[u].g + from, 1.0f, to - from);
	ss_adam_update(net->adam, net->p, from, to);
	for (int u = 1; u < net->nworkers; u++)
		memset(net->w[u].g + from, 0, (to - from) * sizeof(float));
	return 0;
}

int ss_patchnet_net_train_step(ss_patchnet_net *net, const ss_patchnet_batch *b, double *loss)
{
	struct step_arg a = { net, b, net->nworkers, 0 };
	double total = 0.0;
	int rc;

	if (b->n <= 0 || b->n > b->cap)
		return ss_error_code(SS_EINVALID, "patchnet batch has %d of %d examples", b->n, b->cap);
	ss_nn_set_blas_threads(net->cfg.data_parallel || net->cfg.threads < 1 ? 1 :
			       net->cfg.threads);
	if (a.nw > b->n)
		a.nw = b->n;
	rc = ss_model_parallel(a.nw, step_share, &a);
	/* whatever happened, the gradients are dirty now */
	net->g_clean = 0;
	if (rc)
		return rc;
	for (int t = 0; t < a.nw; t++)
		total += net->w[t].loss_val;
	net->step++;
	if (loss)
		*loss = total;
	/* sum, update and clear in parallel, by ranges of the parameters */
	ss_adam_tick(net->adam);
	a.used = a.nw;
	a.nw = net->nworkers;
	if ((rc = ss_model_parallel(a.nw, update_share, &a)))
		return rc;
	net->g_clean = 1;
	return 0;
}

/* ---- explanations ------------------------------------------------------ */

struct credit {
	float contrib, abs;
};

static int cmp_hit(const void *a, const void *b)
{
	const ss_patchnet_hit *x = a, *y = b;

	if (x->share != y->share)
		return x->share > y->share ? -1 : 1;
	if (x->side != y->side)
		return x->side - y->side;
	if (x->file != y->file)
		return x->file - y->file;
	if (x->hunk != y->hunk)
		return x->hunk - y->hunk;
	return x->pos - y->pos;
}

/* Spread contribution v over window positions first .. first + width - 1
 * that are below valid. */
static void spread(struct credit *cr, int first, int width, int valid, float v)
{
	int k = first + width > valid ? valid - first : width;

	if (k <= 0)
		return;
	for (int j = 0; j < k; j++) {
		cr[first + j].contrib += v / k;
		cr[first + j].abs += (v < 0 ? -v : v) / k;
	}
}

/* The explanation itself, on a worker that may be used. */
static int explain(ss_patchnet_hit *out, size_t cap, size_t *n, float *prob,
		   const ss_patchnet_net *net, struct worker *w, const ss_patchnet_batch *b, int i)
{
	const ss_patchnet_config *cfg = &net->cfg;
	int f = cfg->filters, f2 = 2 * f;
	size_t nmsg = (size_t)b->msg_len, per_side = (size_t)b->files * b->hunks * b->lines;
	size_t nslots = nmsg + 2 * per_side, found = 0;
	struct credit *cr;
	float *fc = NULL;       /* per input feature of the example */
	int nfeat = 0;
	ss_patchnet_hit *hits;
	float *dfeat;
	double total = 0.0;
	int rc;

	*n = 0;
	if (i < 0 || i >= b->n)
		return ss_error_code(SS_EINVALID, "no example %d in a batch of %d", i, b->n);
	if ((rc = worker_forward(net, w, b, i, 1, 0, 1.0f)))
		return rc;
	if (prob)
		*prob = w->prob[0];
	dfeat = ss_nn_arena_zeros(w->arena, (size_t)head_in(cfg));
	cr = ss_nn_arena_alloc(w->arena, nslots * sizeof(*cr));
	if (!dfeat || !cr)
		return SS_ENOMEM;
	memset(cr, 0, nslots * sizeof(*cr));
	/* dlogit/dfeat: gradient x input credits each pooled feature */
	if ((rc = worker_backward(net, w, NULL, dfeat)))
		return rc;
	/* each input feature k: x_k * dlogit/dx_k through the branch's ReLU
	 * (gradient x input, as for the pooled features below) */
	if (cfg->features > 0) {
		const float *wx = net->p->w + w->fx.w_off;

		nfeat = (int)(w->fcsr.row[1] - w->fcsr.row[0]);
		fc = ss_nn_arena_zeros(w->arena, nfeat ? (size_t)nfeat : 1);
		if (!fc)
			return SS_ENOMEM;
		for (int k = 0; k < nfeat; k++) {
			int32_t fi = w->fcsr.idx[w->fcsr.row[0] + k];
			float sum = 0.0f;

			for (int o = 0; o < cfg->feat_hidden; o++)
				if (w->fx_y[o] > 0.0f)
					sum += wx[(size_t)o * cfg->features + fi] *
					       (dfeat[3 * f2 + o] +
						(cfg->skip ? net->p->w[w->ls.w_off + o] : 0.0f));
			if (cfg->wide)
				sum += net->p->w[w->lw.w_off + (size_t)fi];
			fc[k] = w->fcsr.val[w->fcsr.row[0] + k] * sum;
		}
	}
	for (int j = 0; j < 3 * f2; j++) {
		float v = w->feat[j] * dfeat[j];
		int part = j / f2, jj = j % f2, width = jj / f;

		if (w->feat[j] <= 0.0f || v == 0.0f)
			continue;   /* a ReLU-zeroed feature carries nothing */
		if (part == 0) {
			int s = w->msg.pool[width].argmax[jj % f];

			if (s >= 0)
				spread(cr, s, width + 1, w->msg_n[0], v);
		} else {
			struct side *sd = &w->s[part - 1];
			int k = w->side_pool[part - 1].argmax[jj], hr, ls, fl, hk;
			struct credit *base;

			if (k < 0)
				continue;
			hr = sd->side_row[k];
			ls = w->hunk[part - 1].pool[width].argmax[(size_t)hr * f + jj % f];
			if (ls < 0)
				continue;
			fl = sd->hunk_where[hr * 3 + 1];
			hk = sd->hunk_where[hr * 3 + 2];
			base = cr + nmsg + (size_t)(part - 1) * per_side +
			       ((size_t)fl * b->hunks + hk) * b->lines;
			/* line slots of the window, mapped back to line indices */
			for (int q = 0; q <= width && ls + q < sd->hunk_n[hr]; q++) {
				int l = sd->hunk_line[hr * sd->lmax + ls + q];
				int k2 = ls + width < sd->hunk_n[hr] ? width + 1 : sd->hunk_n[hr] - ls;

				spread(base, l, 1, b->lines, v / k2);
			}
		}
	}
	for (int k = 0; k < nfeat; k++) {
		total += fc[k] < 0 ? -fc[k] : fc[k];
		found += fc[k] != 0.0f;
	}
	for (size_t k = 0; k < nslots; k++) {
		total += cr[k].abs;
		found += cr[k].abs > 0.0f;
	}
	hits = ss_nn_arena_alloc(w->arena, (found ? found : 1) * sizeof(*hits));
	if (!hits)
		return SS_ENOMEM;
	found = 0;
	for (int k = 0; k < nfeat; k++)
		if (fc[k] != 0.0f)
			hits[found++] = (ss_patchnet_hit){ SS_PATCHNET_FEATURES, -1, -1, k,
							   (float)((fc[k] < 0 ? -fc[k] : fc[k]) / total),
							   fc[k] };
	for (size_t k = 0; k < nslots; k++) {
		ss_patchnet_hit *h = &hits[found];

		if (cr[k].abs <= 0.0f)
			continue;
		if (k < nmsg) {
			*h = (ss_patchnet_hit){ -1, -1, -1, (int)k, 0, 0 };
		} else {
			size_t r = k - nmsg, q = r % per_side;

			h->side = (int)(r / per_side);
			h->file = (int)(q / ((size_t)b->hunks * b->lines));
			h->hunk = (int)(q / b->lines % b->hunks);
			h->pos = (int)(q % b->lines);
		}
		h->share = (float)(cr[k].abs / total);
		h->contrib = cr[k].contrib;
		found++;
	}
	qsort(hits, found, sizeof(*hits), cmp_hit);
	if (cap)
		memcpy(out, hits, (found < cap ? found : cap) * sizeof(*hits));
	*n = found;
	return 0;
}

int ss_patchnet_net_explain(ss_patchnet_hit *out, size_t cap, size_t *n, float *prob,
			    const ss_patchnet_net *net, const ss_patchnet_batch *b, int i)
{
	struct worker *w;
	int rc;

	*n = 0;
	if ((rc = temp_worker(&w, net)))
		return rc;
	rc = explain(out, cap, n, prob, net, w, b, i);
	temp_worker_done(net, w);
	return rc;
}
