/*
 * near.c - a linear model's nearest past decisions (impl.h, ss_near;
 * docs/scores.md, "Nearest past decisions").
 *
 * The memory is the settled commits a model learnt from, each with its
 * fate.  Two commits are near when the features the model weighs are
 * alike: each vector is scaled feature by feature by |w| (the model's
 * own weights, the bias left out) and compared by cosine, so a shared
 * file or word the model ignores makes no neighbours, one it weighs
 * does.  The evidence of a commit is the similarity-weighted share of
 * its SS_NEAR_K nearest that reached stable, pulled toward the memory's
 * base rate by SS_NEAR_PSEUDO commits' worth, as a logit relative to
 * that base rate: 0 when the neighbours look like any commit, positive
 * when they were taken more often.  An identical vector (the commit
 * itself, or a copy of it) is no evidence about it and is skipped.  The
 * features the caller names (the stable tag's own traces) are left out
 * of the |w| space when the memory shows the tag (its flag, skip[0], set
 * on a remembered commit): with the tag visible the model weighs it
 * most, and an untagged commit's nearest would be the untagged ones,
 * whatever else they share (bench/results/near.md).
 *
 * The precedents shown are searched apart, by the plain cosine of the
 * vectors without the named dense block: the same words, files and
 * people, what a maintainer recognises as alike (in the |w| space two
 * fixes of unrelated drivers are near when the model weighs the same
 * few features of both).
 *
 * The search is models/knn.c; the items are kept as given too (one
 * sparse array), for the model file.  A query writes the search's
 * scratch space, so it takes a lock: scoring threads share a model.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "models/impl.h"
#include "models/knn.h"
#include "util/error.h"
#include "util/grow.h"
#include "util/strbuf.h"

/* a neighbour this close is the commit itself, or a copy */
#define SAME_SIM 0.9999f

struct ss_near {
	size_t dim;
	uint32_t k;
	const float *w;          /* the model's weights (borrowed) */
	ss_knn *index;           /* scaled by |w|: the evidence; built on the
				    first ss_near_logit() (NULL before) */
	ss_knn *shown;           /* as given, the named dense block left out:
				    the precedents a maintainer reads; built
				    on the first ss_near_list() (NULL before) */
	uint8_t *label;          /* [n] */
	char (*id)[41];          /* [n], "" when not known */
	size_t *subject;         /* [n], offsets into names */
	ss_strbuf names;
	uint32_t *off;           /* [n + 1] into idx/val */
	uint32_t *idx;
	float *val;
	size_t n, cap, nnz, zcap, npos;
	ss_svec tmp;             /* a weighted vector, under lock */
	uint32_t skip[SS_NEAR_SKIP_MAX]; /* the tag's traces (traces[0] its flag) */
	size_t nskip;            /* how many; 0 once the index is built
				    when no remembered commit has the flag */
	pthread_mutex_t lock;
};

int ss_near_new(ss_near **out, size_t dim, uint32_t k, const float *w, const uint32_t *traces,
		size_t ntraces)
{
	ss_near *nr = calloc(1, sizeof(*nr));

	*out = NULL;
	if (!nr || !(nr->off = calloc(1, sizeof(*nr->off)))) {
		free(nr);
		return SS_ENOMEM;
	}
	nr->dim = dim;
	nr->w = w;
	nr->nskip = ntraces < SS_NEAR_SKIP_MAX ? ntraces : SS_NEAR_SKIP_MAX;
	if (nr->nskip)
		memcpy(nr->skip, traces, nr->nskip * sizeof(*traces));
	nr->k = k ? k : SS_NEAR_K;
	ss_svec_init(&nr->tmp);
	pthread_mutex_init(&nr->lock, NULL);
	*out = nr;
	return 0;
}

void ss_near_free(ss_near *nr)
{
	if (!nr)
		return;
	ss_knn_free(nr->index);
	ss_knn_free(nr->shown);
	free(nr->label);
	free(nr->id);
	free(nr->subject);
	ss_strbuf_release(&nr->names);
	free(nr->off);
	free(nr->idx);
	free(nr->val);
	ss_svec_release(&nr->tmp);
	pthread_mutex_destroy(&nr->lock);
	free(nr);
}

size_t ss_near_count(const ss_near *nr)
{
	return nr ? nr->n : 0;
}

uint32_t ss_near_k(const ss_near *nr)
{
	return nr->k;
}

/* out = x scaled by |w| feature by feature (zeros and skip[] dropped) */
static int weigh(ss_svec *out, const ss_svec *x, const float *w, size_t dim,
		 const uint32_t *skip, size_t nskip)
{
	out->n = 0;
	for (size_t i = 0; i < x->n; i++) {
		size_t j;
		float v;

		if (x->idx[i] >= dim)
			continue;
		for (j = 0; j < nskip && skip[j] != x->idx[i]; j++)
			;
		if (j < nskip)
			continue;
		v = x->val[i] * fabsf(w[x->idx[i]]);
		if (v != 0.0f && ss_svec_push(out, x->idx[i], v))
			return SS_ENOMEM;
	}
	return 0;
}

/* a subject kept: its first line, at most this long */
#define SUBJECT_MAX 200

int ss_near_add(ss_near *nr, const ss_svec *x, int label, const char *id, const char *subject)
{
	size_t i, len;

	if (SS_GROW(nr->label, nr->n + 1, nr->cap) ||
	    ss_grow_to(&nr->off, nr->cap + 1, sizeof(*nr->off)) ||
	    ss_grow_to(&nr->id, nr->cap, sizeof(*nr->id)) ||
	    ss_grow_to(&nr->subject, nr->cap, sizeof(*nr->subject)) ||
	    SS_GROW(nr->idx, nr->nnz + x->n, nr->zcap) ||
	    ss_grow_to(&nr->val, nr->zcap, sizeof(*nr->val)))
		return SS_ENOMEM;
	if (nr->nnz + x->n > UINT32_MAX)
		return ss_error_code(SS_EINVALID, "too many features in the nearest past commits");
	for (i = 0; i < x->n; i++) {
		nr->idx[nr->nnz + i] = x->idx[i];
		nr->val[nr->nnz + i] = x->val[i];
	}
	subject = subject ? subject : "";
	len = strcspn(subject, "\n");
	nr->subject[nr->n] = nr->names.len;
	if (ss_strbuf_add(&nr->names, subject, len < SUBJECT_MAX ? len : SUBJECT_MAX) ||
	    ss_strbuf_add(&nr->names, "", 1))
		return SS_ENOMEM;
	snprintf(nr->id[nr->n], sizeof(nr->id[0]), "%s", id ? id : "");
	nr->nnz += x->n;
	nr->label[nr->n] = label != 0;
	nr->npos += label != 0;
	nr->off[++nr->n] = (uint32_t)nr->nnz;
	return 0;
}

/* Remembered item i as a vector (borrowing the memory's arrays). */
static void item_vector(ss_svec *x, const ss_near *nr, size_t i)
{
	x->idx = nr->idx + nr->off[i];
	x->val = nr->val + nr->off[i];
	x->n = x->cap = nr->off[i + 1] - nr->off[i];
}

/*
 * The two indexes, each built once from the items as remembered, on the
 * first query that needs it (under lock): a run that shows no precedent
 * (a TSV, a training) never builds the plain one.  The evidence's is
 * scaled by |w|, the tag's traces left out when a remembered commit has
 * its flag (the tags were not masked); the precedents' is the vectors as
 * given, the named dense block left out.
 */
static int build(ss_near *nr, int evidence)
{
	ss_knn **kp = evidence ? &nr->index : &nr->shown;
	ss_svec x;
	size_t i, j;
	int rc;

	if (*kp)
		return 0;
	if (evidence) {
		for (j = 0; nr->nskip && j < nr->nnz &&
			    !(nr->idx[j] == nr->skip[0] && nr->val[j] != 0.0f); j++)
			;
		if (j == nr->nnz)
			nr->nskip = 0;
	}
	if ((rc = ss_knn_new(kp, nr->dim, evidence ? 0 : SS_NDENSE, 0)))
		return rc;
	for (i = 0; i < nr->n; i++) {
		item_vector(&x, nr, i);
		if (evidence && (rc = weigh(&nr->tmp, &x, nr->w, nr->dim, nr->skip, nr->nskip)))
			break;
		if ((rc = ss_knn_add(*kp, evidence ? &nr->tmp : &x, NULL)))
			break;
	}
	if (rc) {
		ss_knn_free(*kp);
		*kp = NULL;
	}
	return rc;
}

/* x's at most k (SS_NEAR_K_MAX) nearest in the evidence's index or the
 * precedents', an identical vector (the commit itself, a copy) skipped,
 * into hit[k]; how many (0 too when an index cannot be built). */
static size_t nearest(ss_near *nr, int evidence, const ss_svec *x, ss_knn_hit *hit, size_t k)
{
	ss_knn_hit all[SS_NEAR_K_MAX + 4];
	size_t i, n = 0, got = 0;

	if (k > SS_NEAR_K_MAX)
		k = SS_NEAR_K_MAX;
	if (!nr || !nr->n || !k)
		return 0;
	pthread_mutex_lock(&nr->lock);
	if (!build(nr, evidence)) {
		if (!evidence)
			n = ss_knn_query(nr->shown, x, all, k + 4, NULL, NULL);
		else if (!weigh(&nr->tmp, x, nr->w, nr->dim, nr->skip, nr->nskip))
			n = ss_knn_query(nr->index, &nr->tmp, all, k + 4, NULL, NULL);
	}
	pthread_mutex_unlock(&nr->lock);
	for (i = 0; i < n && got < k; i++)
		if (all[i].sim < SAME_SIM)
			hit[got++] = all[i];
	return got;
}

double ss_near_logit(ss_near *nr, const ss_svec *x, size_t *taken, size_t *found)
{
	ss_knn_hit hit[SS_NEAR_K_MAX];
	double sum = 0, pos = 0, base, p;
	size_t i, n, yes = 0;

	if (taken)
		*taken = 0;
	if (found)
		*found = 0;
	if (!nr->n)
		return 0.0;
	n = nearest(nr, 1, x, hit, nr->k);
	for (i = 0; i < n; i++) {
		sum += hit[i].sim;
		if (nr->label[hit[i].item]) {
			pos += hit[i].sim;
			yes++;
		}
	}
	if (taken)
		*taken = yes;
	if (found)
		*found = n;
	base = (double)nr->npos / (double)nr->n;
	base = base < 1e-4 ? 1e-4 : base > 1 - 1e-4 ? 1 - 1e-4 : base;
	p = (pos + SS_NEAR_PSEUDO * base) / (sum + SS_NEAR_PSEUDO);
	p = p < 1e-4 ? 1e-4 : p > 1 - 1e-4 ? 1 - 1e-4 : p;
	return log(p / (1 - p)) - log(base / (1 - base));
}

size_t ss_near_list(ss_near *nr, const ss_svec *x, ss_model_neighbour *out, size_t max)
{
	ss_knn_hit hit[SS_NEAR_K_MAX];
	size_t i, n = nearest(nr, 0, x, hit, max);

	for (i = 0; i < n; i++) {
		out[i].id = nr->id[hit[i].item];
		out[i].subject = nr->names.buf + nr->subject[hit[i].item];
		out[i].similarity = hit[i].sim;
		out[i].label = nr->label[hit[i].item];
		out[i].item = hit[i].item;
		out[i].score = 0.0f;
	}
	return n;
}

void ss_near_vector(ss_svec *x, const ss_near *nr, size_t item)
{
	item_vector(x, nr, item);
}

void ss_near_save(const ss_near *nr, ss_wbuf *w)
{
	ss_w_u64(w, nr->n);
	ss_w_u64(w, nr->nnz);
	for (size_t i = 0; i < nr->n; i++) {
		ss_w_u8(w, nr->label[i]);
		ss_w_u32(w, nr->off[i + 1] - nr->off[i]);
		ss_w_str(w, nr->id[i]);
		ss_w_str(w, nr->names.buf + nr->subject[i]);
	}
	for (size_t i = 0; i < nr->nnz; i++)
		ss_w_u32(w, nr->idx[i]);
	ss_w_f32s(w, nr->val, nr->nnz);
}

int ss_near_load(ss_near **out, size_t dim, uint32_t k, const float *w, const uint32_t *traces,
		 size_t ntraces, ss_rbuf *r)
{
	uint64_t n = ss_r_u64(r), nnz = ss_r_u64(r), at = 0;
	uint32_t *len = NULL, *idx = NULL;
	uint8_t *label = NULL;
	char (*ids)[41] = NULL;
	char (*subj)[SUBJECT_MAX + 1] = NULL;
	float *val = NULL;
	ss_near *nr = NULL;
	ss_svec x;
	size_t i;
	int rc = SS_EINVALID;

	*out = NULL;
	ss_svec_init(&x);
	/* every count is checked against what is left before it is believed */
	if (r->err || n > (uint64_t)(r->end - r->p) / 5 || nnz > (uint64_t)(r->end - r->p) / 8)
		return ss_error_code(SS_EINVALID, "the nearest past commits are cut short");
	label = malloc((size_t)n + 1);
	len = malloc(((size_t)n + 1) * sizeof(*len));
	ids = malloc(((size_t)n + 1) * sizeof(*ids));
	subj = malloc(((size_t)n + 1) * sizeof(*subj));
	idx = malloc(((size_t)nnz + 1) * sizeof(*idx));
	val = malloc(((size_t)nnz + 1) * sizeof(*val));
	if (!label || !len || !idx || !val || !ids || !subj) {
		rc = SS_ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		label[i] = ss_r_u8(r);
		len[i] = ss_r_u32(r);
		ss_r_str(r, ids[i], sizeof(ids[i]), 64);
		ss_r_str(r, subj[i], sizeof(subj[i]), 4096);
		at += len[i];
	}
	for (i = 0; i < nnz; i++)
		idx[i] = ss_r_u32(r);
	ss_r_f32s(r, val, (size_t)nnz);
	if (r->err || at != nnz) {
		rc = ss_error_code(SS_EINVALID, "the nearest past commits are damaged");
		goto out;
	}
	if ((rc = ss_near_new(&nr, dim, k, w, traces, ntraces)))
		goto out;
	for (i = 0, at = 0; i < n; i++) {
		x.n = 0;
		for (uint32_t j = 0; j < len[i]; j++, at++) {
			if (idx[at] >= dim || !isfinite(val[at]) ||
			    (j && idx[at] <= idx[at - 1])) {
				rc = ss_error_code(SS_EINVALID, "the nearest past commits are damaged");
				goto out;
			}
			if ((rc = ss_svec_push(&x, idx[at], val[at])))
				goto out;
		}
		if (label[i] > 1) {
			rc = ss_error_code(SS_EINVALID, "the nearest past commits are damaged");
			goto out;
		}
		if ((rc = ss_near_add(nr, &x, label[i], ids[i], subj[i])))
			goto out;
	}
	*out = nr;
	nr = NULL;
	rc = 0;
out:
	ss_near_free(nr);
	ss_svec_release(&x);
	free(label);
	free(len);
	free(idx);
	free(val);
	free(ids);
	free(subj);
	return rc;
}
