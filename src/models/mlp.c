/*
 * mlp.c - Levin's AUTOSEL network on the sparse features: sparse input ->
 * dense hidden ReLU layer (optionally a second one) -> dropout -> one
 * logit -> sigmoid with class-weighted cross-entropy, trained with Adam on
 * shuffled mini-batches, early-stopped on the validation slice's average
 * precision (the best epoch's weights are kept).
 *
 * Threads: each mini-batch is cut into one contiguous share per thread;
 * every thread runs forward and backward on its share with its own layer
 * copies, arena, dropout stream and gradient vector, and the gradients are
 * summed in thread order before the Adam step.  With one thread the run is
 * bit-identical for a seed; with T threads it is identical for (seed, T).
 *
 * Inputs: named features are scaled to [0, 1] by their largest value in the
 * training rows (kept in the model file); flags stay 1.
 *
 * Refit (off by default): retrain from the same seed on all training
 * commits for the best epoch count, the threshold still coming from the
 * validation scores of the early-stopped model.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/impl.h"
#include "nn/nn.h"
#include "util/error.h"

struct mlp {
	int in, h1, h2;   /* widths; h2 == 0: one hidden layer */
	float dropout;
	/* the named features are counts on a log scale (up to ~10) next to
	 * 0/1 flags; each is divided by its largest training value so that
	 * every input starts on the same footing */
	float scale[SS_NDENSE];
	int wide;         /* a linear path from the input to the logit too */
	float in_dropout; /* share of input features dropped in training */
	ss_params *p;
	/* layers: l1 r1 d1 [l2 r2 d2] lo [lw] loss */
	ss_layer l1, r1, d1, l2, r2, d2, lo, lw, loss;
};

static int build_net(struct mlp *net, uint64_t seed)
{
	ss_rng rng;
	int rc;

	ss_rng_seed(&rng, seed);
	net->p = ss_params_new();
	if (!net->p)
		return SS_ENOMEM;
	if ((rc = ss_layer_sparse_dense(&net->l1, net->p, &rng, net->in, net->h1, SS_INIT_HE)))
		return rc;
	ss_layer_relu(&net->r1, net->h1);
	ss_layer_dropout(&net->d1, net->h1, net->dropout);
	if (net->h2) {
		if ((rc = ss_layer_dense(&net->l2, net->p, &rng, net->h1, net->h2, SS_INIT_HE)))
			return rc;
		ss_layer_relu(&net->r2, net->h2);
		ss_layer_dropout(&net->d2, net->h2, net->dropout);
	}
	if ((rc = ss_layer_dense(&net->lo, net->p, &rng, net->h2 ? net->h2 : net->h1, 1,
				 SS_INIT_XAVIER)))
		return rc;
	if (net->wide && (rc = ss_layer_sparse_dense(&net->lw, net->p, &rng, net->in, 1, SS_INIT_ZERO)))
		return rc;
	ss_layer_sigmoid_bce(&net->loss);
	return 0;
}

/* One thread's share of a batch. */
struct worker {
	struct mlp net;      /* layer copies (per-batch state) */
	ss_nn_arena *arena;
	ss_rng rng;
	float *g;            /* gradient vector (thread 0: the params' own) */
	/* the share, set per batch */
	const ss_rows *data;
	const size_t *rows;  /* positions in data */
	int n;
	const float *target, *weight;
	float *prob;         /* when scoring: out[n] */
	double loss;
};

/* Gather rows into a batch CSR in the arena, dropping inputs at rate
 * drop (training only; survivors scaled by 1 / (1 - drop)). */
static int gather(ss_csr *out, struct worker *w, float drop)
{
	size_t nnz = 0, k = 0;
	size_t *row;
	int32_t *idx;
	float *val;
	int i;

	for (i = 0; i < w->n; i++)
		nnz += w->data->row[w->rows[i] + 1] - w->data->row[w->rows[i]];
	row = ss_nn_arena_alloc(w->arena, (size_t)(w->n + 1) * sizeof(*row));
	idx = ss_nn_arena_alloc(w->arena, (nnz ? nnz : 1) * sizeof(*idx));
	val = ss_nn_arena_floats(w->arena, nnz ? nnz : 1);
	if (!row || !idx || !val)
		return SS_ENOMEM;
	row[0] = 0;
	for (i = 0; i < w->n; i++) {
		size_t a = w->data->row[w->rows[i]], b = w->data->row[w->rows[i] + 1], j;

		if (drop > 0) {
			float keep = 1.0f / (1.0f - drop);

			for (j = a; j < b; j++)
				if (ss_rng_uniform(&w->rng) >= drop) {
					idx[k] = w->data->idx[j];
					val[k++] = w->data->val[j] * keep;
				}
		} else {
			memcpy(idx + k, w->data->idx + a, (b - a) * sizeof(*idx));
			memcpy(val + k, w->data->val + a, (b - a) * sizeof(*val));
			k += b - a;
		}
		row[i + 1] = k;
	}
	*out = (ss_csr){ w->n, row, idx, val };
	return 0;
}

/* Forward (and backward when train) over the worker's share. */
static int run_share(struct worker *w, const float *weights, int train, size_t np)
{
	struct mlp *net = &w->net;
	ss_nn_ctx c = { weights, w->g, w->arena, &w->rng, train };
	int n = w->n, H1 = net->h1, H2 = net->h2, rc;
	float *a1, *a2, *a3, *b1 = NULL, *b2 = NULL, *b3 = NULL, *z, *prob;
	const float *top;
	ss_csr x;

	ss_nn_arena_reset(w->arena);
	if (train)
		memset(w->g, 0, np * sizeof(*w->g));
	if (!n)
		return 0;
	if ((rc = gather(&x, w, train ? net->in_dropout : 0.0f)))
		return rc;
	a1 = ss_nn_arena_floats(w->arena, (size_t)n * H1);
	a2 = ss_nn_arena_floats(w->arena, (size_t)n * H1);
	a3 = ss_nn_arena_floats(w->arena, (size_t)n * H1);
	if (H2) {
		b1 = ss_nn_arena_floats(w->arena, (size_t)n * H2);
		b2 = ss_nn_arena_floats(w->arena, (size_t)n * H2);
		b3 = ss_nn_arena_floats(w->arena, (size_t)n * H2);
	}
	z = ss_nn_arena_floats(w->arena, (size_t)n);
	prob = w->prob ? w->prob : ss_nn_arena_floats(w->arena, (size_t)n);
	if (!a1 || !a2 || !a3 || !z || !prob || (H2 && (!b1 || !b2 || !b3)))
		return SS_ENOMEM;
	if ((rc = ss_layer_forward(&net->l1, &c, n, &x, a1)) ||
	    (rc = ss_layer_forward(&net->r1, &c, n, a1, a2)) ||
	    (rc = ss_layer_forward(&net->d1, &c, n, a2, a3)))
		return rc;
	top = a3;
	if (H2) {
		if ((rc = ss_layer_forward(&net->l2, &c, n, a3, b1)) ||
		    (rc = ss_layer_forward(&net->r2, &c, n, b1, b2)) ||
		    (rc = ss_layer_forward(&net->d2, &c, n, b2, b3)))
			return rc;
		top = b3;
	}
	if ((rc = ss_layer_forward(&net->lo, &c, n, top, z)))
		return rc;
	if (net->wide) {
		float *zw = ss_nn_arena_floats(w->arena, (size_t)n);
		int i;

		if (!zw)
			return SS_ENOMEM;
		if ((rc = ss_layer_forward(&net->lw, &c, n, &x, zw)))
			return rc;
		for (i = 0; i < n; i++)
			z[i] += zw[i];
	}
	if (!train) {
		int i;

		for (i = 0; i < n; i++)
			prob[i] = ss_sigmoid(z[i]);
		return 0;
	}
	net->loss.target = w->target;
	net->loss.weight = w->weight;
	if ((rc = ss_layer_forward(&net->loss, &c, n, z, prob)))
		return rc;
	/* the share's part of the batch mean (weights were rescaled) */
	w->loss = net->loss.loss;
	{
		float *dz = ss_nn_arena_zeros(w->arena, (size_t)n);
		float *dtop = ss_nn_arena_zeros(w->arena, (size_t)n * (H2 ? H2 : H1));
		float *da2 = ss_nn_arena_zeros(w->arena, (size_t)n * H1);
		float *da1 = ss_nn_arena_zeros(w->arena, (size_t)n * H1);
		float *da3 = NULL, *db2 = NULL, *db1 = NULL;

		if (H2) {
			da3 = ss_nn_arena_zeros(w->arena, (size_t)n * H1);
			db2 = ss_nn_arena_zeros(w->arena, (size_t)n * H2);
			db1 = ss_nn_arena_zeros(w->arena, (size_t)n * H2);
		}
		if (!dz || !dtop || !da2 || !da1 || (H2 && (!da3 || !db2 || !db1)))
			return SS_ENOMEM;
		if ((rc = ss_layer_backward(&net->loss, &c, n, z, prob, NULL, dz)) ||
		    (rc = ss_layer_backward(&net->lo, &c, n, top, z, dz, dtop)))
			return rc;
		/* the sum z = deep + wide passes dz to both */
		if (net->wide && (rc = ss_layer_backward(&net->lw, &c, n, &x, z, dz, NULL)))
			return rc;
		if (H2) {
			if ((rc = ss_layer_backward(&net->d2, &c, n, b2, b3, dtop, db2)) ||
			    (rc = ss_layer_backward(&net->r2, &c, n, b1, b2, db2, db1)) ||
			    (rc = ss_layer_backward(&net->l2, &c, n, a3, b1, db1, da3)))
				return rc;
		} else {
			da3 = dtop;
		}
		if ((rc = ss_layer_backward(&net->d1, &c, n, a2, a3, da3, da2)) ||
		    (rc = ss_layer_backward(&net->r1, &c, n, a1, a2, da2, da1)) ||
		    (rc = ss_layer_backward(&net->l1, &c, n, &x, a1, da1, NULL)))
			return rc;
	}
	return 0;
}

struct team {
	struct worker *w;
	int nthreads;
	const float *weights;
	int train;
	size_t np;
};

static int team_worker(void *arg, int t)
{
	struct team *tm = arg;
	/* training under flush-to-zero (nn.h ss_nn_ftz_begin) */
	unsigned ftz = ss_nn_ftz_begin();
	int rc = run_share(&tm->w[t], tm->weights, tm->train, tm->np);

	ss_nn_ftz_end(ftz);
	return rc;
}

static int team_new(struct worker **out, const struct mlp *net, int nthreads, uint64_t seed,
		    int grads)
{
	struct worker *w = calloc((size_t)nthreads, sizeof(*w));
	int t;

	*out = NULL;
	if (!w)
		return SS_ENOMEM;
	for (t = 0; t < nthreads; t++) {
		w[t].net = *net;
		w[t].arena = ss_nn_arena_new();
		ss_rng_seed(&w[t].rng, seed * 0x9e3779b97f4a7c15ULL + (uint64_t)t + 1);
		w[t].g = t && grads ? calloc(net->p->n, sizeof(float)) : net->p->g;
		if (!w[t].arena || !w[t].g) {
			for (; t >= 0; t--) {
				ss_nn_arena_free(w[t].arena);
				if (t && grads)
					free(w[t].g);
			}
			free(w);
			return SS_ENOMEM;
		}
	}
	*out = w;
	return 0;
}

static void team_free(struct worker *w, int nthreads)
{
	int t;

	if (!w)
		return;
	for (t = 0; t < nthreads; t++) {
		ss_nn_arena_free(w[t].arena);
		if (t && w[t].g != w[0].g)
			free(w[t].g);
	}
	free(w);
}

/*
 * One thread's share of the rows, one row per forward: a row's products
 * then have the same shape in every call, whatever else is scored with it.
 * OpenBLAS picks kernels and edge code by shape, so a row inside a batch of
 * another size gets float sums that differ in the last bits
 * (SS_MODEL_BATCH_TOL in models/model.h).
 */
static int score_rows(void *arg, int t)
{
	struct team *tm = arg;
	struct worker *w = &tm->w[t];
	const size_t *rows = w->rows;
	float *prob = w->prob;
	int n = w->n, i, rc = 0;

	for (i = 0; i < n && !rc; i++) {
		w->rows = rows + i;
		w->prob = prob + i;
		w->n = 1;
		rc = run_share(w, tm->weights, 0, tm->np);
	}
	return rc;
}

/* Scores of data rows[0..n) into out, the rows shared by the threads. */
static int predict(const struct mlp *net, const float *weights, const ss_rows *data,
		   const size_t *rows, size_t n, float *out, int nthreads)
{
	struct worker *w;
	struct team tm;
	int t, rc = 0;

	if ((rc = team_new(&w, net, nthreads, 0, 0)))
		return rc;
	tm = (struct team){ w, nthreads, weights, 0, net->p->n };
	for (t = 0; t < nthreads; t++) {
		size_t a = n * (size_t)t / (size_t)nthreads, b = n * (size_t)(t + 1) / (size_t)nthreads;

		w[t].data = data;
		w[t].rows = rows + a;
		w[t].n = (int)(b - a);
		w[t].prob = out + a;
	}
	rc = ss_model_parallel(nthreads, score_rows, &tm);
	team_free(w, nthreads);
	return rc;
}

/*
 * The update after a batch, in NCHUNKS fixed ranges of the flat parameter
 * vector shared by the threads: each range sums the threads' gradients in
 * thread order and takes its Adam step (Adam is element-wise, so one Adam
 * state per range is the same optimiser).  The ranges do not depend on the
 * thread count.
 */
#define NCHUNKS 8

struct step_job {
	struct worker *w;
	int nthreads;
	ss_params *p;
	ss_adam **adam;
	const size_t *coff;
};

static int step_worker(void *arg, int t)
{
	struct step_job *j = arg;
	size_t k;
	int s, rc;

	for (k = (size_t)t; k < NCHUNKS; k += (size_t)j->nthreads) {
		size_t a = j->coff[k], b = j->coff[k + 1];
		ss_params view = { j->p->w + a, j->p->g + a, b - a, b - a };

		for (s = 1; s < j->nthreads; s++)
			ss_nn_axpy(j->p->g + a, j->w[s].g + a, 1.0f, b - a);
		if ((rc = ss_adam_step(j->adam[k], &view)))
			return rc;
	}
	return 0;
}

/*
 * Train net on data rows [0, nfit) for at most epochs; when nval, score
 * rows [nfit, nfit + nval) after each epoch, keep the best weights in
 * best_w and their validation scores in val_score.  *best_epoch gets the
 * epoch count of the kept weights.
 */
static int fit(struct mlp *net, const ss_rows *data, size_t nfit, size_t nval,
	       const ss_dataset *d, const size_t *ex, const ss_train_options *o, int epochs,
	       float *val_score, int *best_epoch)
{
	int nthreads = o->threads > 0 ? o->threads : 1, B = o->batch > 0 ? o->batch : 128;
	size_t np = net->p->n, i, npos = 0, *perm = NULL, *vrows = NULL;
	float *target = NULL, *weight = NULL, *best_w = NULL, *vs = NULL, wpos = 1, wneg = 1;
	uint8_t *vlabel = NULL;
	ss_adam_opts ao = SS_ADAM_OPTS_INIT;
	struct worker *w = NULL;
	ss_early_stop es = SS_EARLY_STOP_INIT(o->patience);
	ss_adam *adam[NCHUNKS] = { NULL };
	struct step_job sj;
	size_t coff[NCHUNKS + 1];
	ss_rng rng;
	struct team tm;
	int e, rc = SS_ENOMEM;

	ss_rng_seed(&rng, o->seed);
	ao.lr = o->lr;
	ao.weight_decay = o->weight_decay;
	for (i = 0; i <= NCHUNKS; i++)
		coff[i] = np * i / NCHUNKS;
	for (i = 0; i < NCHUNKS; i++)
		if (!(adam[i] = ss_adam_new(coff[i + 1] - coff[i], &ao)))
			goto free_all;
	perm = malloc((nfit ? nfit : 1) * sizeof(*perm));
	target = malloc((nfit ? nfit : 1) * sizeof(*target));
	weight = malloc((nfit ? nfit : 1) * sizeof(*weight));
	vrows = malloc((nval ? nval : 1) * sizeof(*vrows));
	vs = malloc((nval ? nval : 1) * sizeof(*vs));
	vlabel = malloc((nval ? nval : 1) * sizeof(*vlabel));
	best_w = nval ? malloc(np * sizeof(*best_w)) : NULL;
	if (!perm || !target || !weight || !vrows || !vs || !vlabel || (nval && !best_w))
		goto free_all;
	if ((rc = team_new(&w, net, nthreads, o->seed, 1)))
		goto free_all;
	for (i = 0; i < nfit; i++)
		npos += ss_dataset_example(d, ex[i])->label;
	if (o->mlp_balance && npos && npos < nfit) {
		/* each class weighs as much as the other in the loss */
		wpos = (float)((double)nfit / (2.0 * (double)npos));
		wneg = (float)((double)nfit / (2.0 * (double)(nfit - npos)));
	}
	for (i = 0; i < nval; i++) {
		vrows[i] = nfit + i;
		vlabel[i] = ss_dataset_example(d, ex[nfit + i])->label;
	}
	for (i = 0; i < nfit; i++)
		perm[i] = i;
	*best_epoch = epochs;
	tm = (struct team){ w, nthreads, net->p->w, 1, np };
	sj = (struct step_job){ w, nthreads, net->p, adam, coff };
	for (e = 1; e <= epochs; e++) {
		double loss = 0.0;
		size_t nbatches = 0;

		/* Fisher-Yates from the model's own stream: reproducible */
		for (i = nfit; i > 1; i--) {
			size_t j = ss_rng_below(&rng, (uint32_t)i), tmp = perm[i - 1];

			perm[i - 1] = perm[j];
			perm[j] = tmp;
		}
		for (i = 0; i < nfit; i += (size_t)B) {
			size_t m = nfit - i < (size_t)B ? nfit - i : (size_t)B, k;
			int t;

			for (k = 0; k < m; k++) {
				int lab = ss_dataset_example(d, ex[perm[i + k]])->label;

				target[i + k] = (float)lab;
				/* the loss layer divides by its share's rows: rescale
				 * so that the summed gradient is the batch mean */
				weight[i + k] = lab ? wpos : wneg;
			}
			for (t = 0; t < nthreads; t++) {
				size_t a = m * (size_t)t / (size_t)nthreads;
				size_t b = m * (size_t)(t + 1) / (size_t)nthreads;

				w[t].data = data;
				w[t].rows = perm + i + a;
				w[t].n = (int)(b - a);
				w[t].target = target + i + a;
				w[t].weight = weight + i + a;
				w[t].prob = NULL;
				w[t].loss = 0;
				for (k = a; k < b; k++)
					weight[i + k] *= (float)(b - a) / (float)m;
			}
			if ((rc = ss_model_parallel(nthreads, team_worker, &tm)))
				goto free_all;
			for (t = 0; t < nthreads; t++)
				loss += w[t].loss;
			nbatches++;
			if ((rc = ss_model_parallel(nthreads, step_worker, &sj)))
				goto free_all;
		}
		if (!nval) {
			ss_model_logf(o, "mlp: epoch %d loss %.4f", e, loss / (double)(nbatches ? nbatches : 1));
			continue;
		}
		if ((rc = predict(net, net->p->w, data, vrows, nval, vs, nthreads)))
			goto free_all;
		{
			double ap;
			int v = ss_early_stop_epoch(&es, e, vs, vlabel, nval, &ap);

			ss_model_logf(o, "mlp: epoch %d loss %.4f validation PR-AUC %.4f", e,
				      loss / (double)(nbatches ? nbatches : 1), ap);
			if (v == SS_EARLY_STOP_BEST) {
				*best_epoch = e;
				memcpy(best_w, net->p->w, np * sizeof(*best_w));
				memcpy(val_score, vs, nval * sizeof(*vs));
			} else if (v == SS_EARLY_STOP_STOP) {
				break;
			}
		}
	}
	if (nval)
		memcpy(net->p->w, best_w, np * sizeof(*best_w));
	rc = 0;

free_all:
	team_free(w, nthreads);
	for (i = 0; i < NCHUNKS; i++)
		ss_adam_free(adam[i]);
	free(perm);
	free(target);
	free(weight);
	free(vrows);
	free(vs);
	free(vlabel);
	free(best_w);
	return rc;
}

static void net_free(struct mlp *net)
{
	if (!net)
		return;
	ss_params_free(net->p);
	free(net);
}

/* The largest value of each named feature over the fit rows. */
static int mlp_train(ss_model *m, const ss_dataset *d, const size_t *fitx, size_t nfit,
		     const size_t *val, size_t nval, const ss_train_options *o,
		     float *val_score)
{
	struct mlp *net = calloc(1, sizeof(*net));
	size_t *all = NULL;
	ss_rows data;
	int best_epoch, rc, refit = o->refit < 0 ? 0 : o->refit;
	int prev_blas;

	if (!net)
		return SS_ENOMEM;
	m->priv = net;
	net->in = (int)ss_featurizer_dim(&m->feat);
	net->h1 = o->hidden > 0 ? o->hidden : 32;
	net->h2 = o->hidden2 > 0 ? o->hidden2 : 0;
	net->dropout = o->dropout;
	net->wide = o->wide;
	net->in_dropout = o->input_dropout;
	if ((rc = build_net(net, o->seed)))
		return rc;
	if ((rc = ss_rows_fit_scale(net->scale, &m->feat, d, fitx, nfit)))
		return rc;
	all = malloc((nfit + nval) * sizeof(*all));
	if (!all)
		return SS_ENOMEM;
	memcpy(all, fitx, nfit * sizeof(*all));
	memcpy(all + nfit, val, nval * sizeof(*all));
	if ((rc = ss_rows_build(&data, &m->feat, d, all, nfit + nval, net->scale)))
		goto free_all;
	/* our threads split batches; BLAS threads would only add noise */
	prev_blas = ss_nn_set_blas_threads(1);
	rc = fit(net, &data, nfit, nval, d, all, o, o->epochs, val_score, &best_epoch);
	if (!rc && refit && nval) {
		/* same seed, all training rows, the epoch count validation chose */
		ss_params_free(net->p);
		net->p = NULL;
		if (!(rc = build_net(net, o->seed)))
			rc = fit(net, &data, nfit + nval, 0, d, all, o, best_epoch, NULL, &best_epoch);
	}
	ss_nn_set_blas_threads(prev_blas);
	if (!rc)
		snprintf(m->info.params, sizeof(m->info.params),
			 "hidden=%d%s%.0d dropout=%g input-dropout=%g lr=%g weight-decay=%g "
			 "batch=%d epochs=%d%s%s%s", net->h1, net->h2 ? "," : "", net->h2,
			 (double)net->dropout, (double)net->in_dropout, (double)o->lr,
			 (double)o->weight_decay, o->batch, best_epoch, net->wide ? " wide" : "",
			 o->mlp_balance ? " balanced" : "", refit ? " refit" : "");
	ss_rows_free(&data);

free_all:
	free(all);
	return rc;
}

int ss_mlp_get_weights(ss_mlp_weights *out, const ss_model *m)
{
	const struct mlp *net = m->priv;
	const float *w;

	if (m->kind != SS_MODEL_MLP || !net || net->h2 || net->wide)
		return ss_error_code(SS_EINVALID, "not an mlp of one hidden layer");
	w = net->p->w;
	*out = (ss_mlp_weights){ net->in, net->h1, w + net->l1.w_off, w + net->l1.b_off,
				 w + net->lo.w_off, net->scale, w[net->lo.b_off] };
	return 0;
}

static int mlp_score(const ss_model *m, const ss_dataset *d, const size_t *idx, size_t n,
		     float *out)
{
	const struct mlp *net = m->priv;
	size_t *rows, i;
	ss_rows data;
	int rc, prev;

	if ((rc = ss_rows_build(&data, &m->feat, d, idx, n, net->scale)))
		return rc;
	rows = malloc((n ? n : 1) * sizeof(*rows));
	if (!rows) {
		ss_rows_free(&data);
		return SS_ENOMEM;
	}
	for (i = 0; i < n; i++)
		rows[i] = i;
	/* two threads of ours, each calling BLAS: BLAS threads would only
	 * oversubscribe the cores */
	prev = ss_nn_set_blas_threads(1);
	rc = predict(net, net->p->w, &data, rows, n, out, 2);
	ss_nn_set_blas_threads(prev);
	free(rows);
	ss_rows_free(&data);
	return rc;
}

/* Logits of the rows of one small CSR (explain, score_commit). */
static int logits(const struct mlp *net, const ss_rows *data, float *out)
{
	size_t *rows = malloc((data->n ? data->n : 1) * sizeof(*rows)), i;
	int rc;

	if (!rows)
		return SS_ENOMEM;
	for (i = 0; i < data->n; i++)
		rows[i] = i;
	rc = predict(net, net->p->w, data, rows, data->n, out, 1);
	for (i = 0; i < data->n && !rc; i++) {
		float p = out[i];

		/* back to logits; clamped, since sigmoid saturates in float */
		p = p < 1e-7f ? 1e-7f : p > 1 - 1e-7f ? 1 - 1e-7f : p;
		out[i] = logf(p / (1 - p));
	}
	free(rows);
	return rc;
}

static int mlp_score_commit(const ss_model *m, const ss_commit *c, const ss_history *hist,
                            float *out)
{
	const struct mlp *net = m->priv;
	size_t row[2];
	ss_rows data;
	ss_svec v;
	int rc;

	ss_svec_init(&v);
	if ((rc = ss_featurizer_vector(&v, &m->feat, c, hist, NULL)))
		goto free_v;
	ss_rows_scale_vec(&v, net->scale);
	row[0] = 0;
	row[1] = v.n;
	data = (ss_rows){ row, (int32_t *)v.idx, v.val, 1, v.n, 0 };
	{
		size_t r0 = 0;

		rc = predict(net, net->p->w, &data, &r0, 1, out, 1);
	}

free_v:
	ss_svec_release(&v);
	return rc;
}

/* Occlusion: the logit drop when each feature alone is removed. */
static int mlp_explain(const ss_model *m, const ss_svec *x, float *contrib)
{
	const struct mlp *net = m->priv;
	size_t n = x->n + 1, i, k, nnz = 0;
	ss_rows data;
	float *z;
	int rc = SS_ENOMEM;

	memset(&data, 0, sizeof(data));
	data.row = malloc((n + 1) * sizeof(*data.row));
	data.idx = malloc((x->n * n + 1) * sizeof(*data.idx));
	data.val = malloc((x->n * n + 1) * sizeof(*data.val));
	z = malloc(n * sizeof(*z));
	if (!data.row || !data.idx || !data.val || !z)
		goto free_all;
	data.row[0] = 0;
	for (i = 0; i < n; i++) {
		for (k = 0; k < x->n; k++) {
			if (i && k == i - 1)
				continue;
			data.idx[nnz] = (int32_t)x->idx[k];
			data.val[nnz++] = x->idx[k] < SS_NDENSE ? x->val[k] * net->scale[x->idx[k]] :
					  x->val[k];
		}
		data.row[i + 1] = nnz;
	}
	data.n = n;
	data.nnz = nnz;
	if ((rc = logits(net, &data, z)))
		goto free_all;
	for (k = 0; k < x->n; k++)
		contrib[k] = z[0] - z[k + 1];

free_all:
	free(z);
	ss_rows_free(&data);
	return rc;
}

static void mlp_save(const ss_model *m, ss_wbuf *w)
{
	const struct mlp *net = m->priv;

	ss_w_u32(w, (uint32_t)net->in);
	ss_w_u32(w, (uint32_t)net->h1);
	ss_w_u32(w, (uint32_t)net->h2);
	ss_w_f32(w, net->dropout);
	ss_w_u32(w, (uint32_t)net->wide);
	ss_w_f32(w, net->in_dropout);
	ss_w_u32(w, SS_NDENSE);
	ss_w_f32s(w, net->scale, SS_NDENSE);
	ss_w_u64(w, net->p->n);
	ss_w_f32s(w, net->p->w, net->p->n);
}

static int mlp_load(ss_model *m, ss_rbuf *r)
{
	struct mlp *net = calloc(1, sizeof(*net));
	uint64_t n;
	size_t i;
	int rc;

	if (!net)
		return SS_ENOMEM;
	m->priv = net;
	net->in = (int)ss_r_u32(r);
	net->h1 = (int)ss_r_u32(r);
	net->h2 = (int)ss_r_u32(r);
	net->dropout = ss_r_f32(r);
	net->wide = ss_r_u32(r) != 0;
	net->in_dropout = ss_r_f32(r);
	if (ss_r_u32(r) != SS_NDENSE)
		return ss_error_code(SS_EINVALID, "input scales do not match the named features");
	ss_r_f32s(r, net->scale, SS_NDENSE);
	n = ss_r_u64(r);
	if (r->err)
		return SS_EINVALID;
	if ((i = ss_model_nonfinite(net->scale, SS_NDENSE)) < SS_NDENSE)
		return ss_model_nonfinite_error("mlp input scale", i, net->scale[i]);
	if (!(net->dropout >= 0.0f && net->dropout < 1.0f) ||
	    !(net->in_dropout >= 0.0f && net->in_dropout < 1.0f))
		return ss_error_code(SS_EINVALID, "mlp dropout %g or input dropout %g is not in [0, 1)",
				     (double)net->dropout, (double)net->in_dropout);
	if ((size_t)net->in != ss_featurizer_dim(&m->feat) || net->h1 <= 0 || net->h1 > 65536 ||
	    net->h2 < 0 || net->h2 > 65536)
		return ss_error_code(SS_EINVALID, "network shape does not match the feature space");
	if ((rc = build_net(net, 0)))
		return rc;
	if (n != net->p->n)
		return ss_error_code(SS_EINVALID, "%llu weights for a network of %zu",
				     (unsigned long long)n, net->p->n);
	ss_r_f32s(r, net->p->w, net->p->n);
	if (r->err)
		return r->err;
	if ((i = ss_model_nonfinite(net->p->w, net->p->n)) < net->p->n) {
		/* the layers' parameters lie in the order build_net added them */
		const char *layer = net->wide && i >= net->lw.w_off ? "wide path"
				    : i >= net->lo.w_off		  ? "output layer"
				    : net->h2 && i >= net->l2.w_off	  ? "hidden layer 2"
									  : "hidden layer 1";
		char what[64];

		snprintf(what, sizeof(what), "mlp %s: weight", layer);
		return ss_model_nonfinite_error(what, i, net->p->w[i]);
	}
	return 0;
}

static size_t mlp_nweights(const ss_model *m)
{
	const struct mlp *net = m->priv;

	return net && net->p ? net->p->n : 0;
}

static void mlp_free(ss_model *m)
{
	net_free(m->priv);
	m->priv = NULL;
}

/* ---- gradient check of the assembled network ------------------------- */

struct gc {
	struct worker *w;
	size_t np;
	uint64_t seed;
};

static double gc_loss(void *ud, const float *wts, float *gw, const float *x, float *gx)
{
	struct gc *g = ud;

	(void)x;
	(void)gx;
	/* the same dropout mask on every call */
	ss_rng_seed(&g->w->rng, g->seed);
	if (run_share(g->w, wts, 1, g->np))
		return NAN;
	if (gw)
		memcpy(gw, g->w->g, g->np * sizeof(*gw));
	return g->w->net.loss.loss;
}

int ss_mlp_gradcheck(double *out, ss_model *m, const ss_dataset *d, const size_t *idx, size_t n,
		     size_t max_coords)
{
	struct mlp *net = m->priv;
	ss_gradcheck_opts go = SS_GRADCHECK_OPTS_INIT;
	struct worker *w = NULL;
	ss_rows data;
	size_t *rows = NULL, i;
	float *target = NULL, *weight = NULL;
	struct gc g;
	int rc;

	if ((rc = ss_rows_build(&data, &m->feat, d, idx, n, net->scale)))
		return rc;
	if ((rc = team_new(&w, net, 1, 7, 1)))
		goto free_all;
	rows = malloc(n * sizeof(*rows));
	target = malloc(n * sizeof(*target));
	weight = malloc(n * sizeof(*weight));
	if (!rows || !target || !weight) {
		rc = SS_ENOMEM;
		goto free_all;
	}
	for (i = 0; i < n; i++) {
		rows[i] = i;
		target[i] = (float)ss_dataset_example(d, idx[i])->label;
		weight[i] = target[i] > 0 ? 2.0f : 0.5f;
	}
	w->data = &data;
	w->rows = rows;
	w->n = (int)n;
	w->target = target;
	w->weight = weight;
	w->prob = NULL;
	g = (struct gc){ w, net->p->n, 7 };
	go.max_coords = max_coords;
	/* a small step makes crossing a ReLU kink unlikely; the loss is summed
	 * in double, so rounding stays well under the tolerance.  Unlikely is
	 * not never: a hidden unit whose input is exactly 0 (a dropped-out
	 * row's) turns on for +eps only, and the central difference is then
	 * half a slope the analytic gradient rightly does not have (seen when
	 * the named features grew from 73 to 80 and moved the draws); such a
	 * coordinate, whose one-sided slopes disagree, is skipped as a kink */
	go.eps = 1e-4f;
	go.kink_tol = 0.5;
	rc = ss_nn_gradcheck(out, gc_loss, &g, net->p->w, net->p->n, NULL, 0, &go);

free_all:
	free(rows);
	free(target);
	free(weight);
	team_free(w, 1);
	ss_rows_free(&data);
	return rc;
}

const ss_model_ops ss_mlp_ops = {
	.kind = SS_MODEL_MLP,
	.name = "mlp",
	.uses_features = 1,
	.train = mlp_train,
	.score = mlp_score,
	.score_commit = mlp_score_commit,
	.explain = mlp_explain,
	.save = mlp_save,
	.load = mlp_load,
	.nweights = mlp_nweights,
	.free = mlp_free,
};
