/*
 * knn.c - the nearest past commits: an inverted index over sparse
 * vectors (knn.h).
 *
 * Written here because no Debian library searches sparse cosine
 * neighbours with items added between queries (FAISS and Annoy index
 * dense vectors, and need the whole set before the first query).
 *
 * Layout: slot[dim] maps a feature to its posting list (0: none yet,
 * else list number + 1), each list two growing arrays, the items and
 * their weights, in the order added.  A query accumulates dot products
 * in acc[item] and selects with a partial insertion sort into out[max],
 * in one of two ways that give the same sums, added in the same order:
 *  - sparse (the lists it reads hold fewer postings than there are
 *    items): acc is stamped by query so it is never cleared, and the
 *    items touched are kept and selected from;
 *  - dense (the lists hold as many postings as there are items or more,
 *    as in an index whose named dense features are searched, from 0):
 *    acc is cleared and each list added without a stamp's test; a list
 *    holding a quarter of the items or more is kept also as a row of
 *    weights by item (zeros where absent), added four floats at a time,
 *    and every item is selected from.  The neighbours' evidence of a
 *    systemd rank was 3.5 s of its 11 s the sparse way (a scattered
 *    add and a stamp's test per posting).
 * Both give the same hits: the items' sums are the same floats (the
 * first addend added to 0.0f either way, a row's zeros adding nothing,
 * the features in the query's order) and the selection keeps the
 * best max under one total order (similarity, then item), whatever
 * order it sees them in.
 */
#include "models/knn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/grow.h"

struct plist {
	uint32_t *item;        /* [n], ascending: items are added in order */
	float *w;              /* [n] */
	size_t n, cap;
	float *full;           /* dense queries: w by item, 0 where absent, of
				  the nfull items there were (NULL: none yet) */
	size_t nfull;
};

struct ss_knn {
	size_t dim, max_df;
	uint32_t from;
	uint32_t *slot;        /* [dim]: list number + 1, 0 none */
	struct plist *lists;
	size_t nlists, lcap;
	size_t nitems;
	/* query scratch, [nitems] */
	float *acc;
	uint32_t *stamp;
	size_t scap;
	uint32_t query;        /* the current query's stamp */
	uint32_t *touched;
	size_t ntouched, tcap;
};

int ss_knn_new(ss_knn **out, size_t dim, uint32_t from, size_t max_df)
{
	ss_knn *k;

	*out = NULL;
	if (!(k = calloc(1, sizeof(*k))) || !(k->slot = calloc(dim ? dim : 1, sizeof(*k->slot)))) {
		free(k);
		return SS_ENOMEM;
	}
	k->dim = dim;
	k->from = from;
	k->max_df = max_df;
	*out = k;
	return 0;
}

void ss_knn_free(ss_knn *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->nlists; i++) {
		free(k->lists[i].item);
		free(k->lists[i].w);
		free(k->lists[i].full);
	}
	free(k->lists);
	free(k->slot);
	free(k->acc);
	free(k->stamp);
	free(k->touched);
	free(k);
}

size_t ss_knn_count(const ss_knn *k)
{
	return k->nitems;
}

/* The unit norm of v's features from `from` on: 1 / |v|, 0 if none. */
static double inverse_norm(const ss_knn *k, const ss_svec *v)
{
	double s = 0;

	for (size_t i = 0; i < v->n; i++)
		if (v->idx[i] >= k->from)
			s += (double)v->val[i] * v->val[i];
	return s > 0 ? 1.0 / sqrt(s) : 0.0;
}

int ss_knn_add(ss_knn *k, const ss_svec *v, size_t *item)
{
	double inv = inverse_norm(k, v);
	size_t i;

	for (i = 0; i < v->n; i++)
		if (v->idx[i] >= k->dim)
			return ss_error_code(SS_EINVALID, "feature %u beyond the %zu of the "
					     "neighbour index", v->idx[i], k->dim);
	if (k->nitems >= UINT32_MAX)
		return ss_error_code(SS_EINVALID, "too many commits for the neighbour index");
	if (SS_GROW(k->acc, k->nitems + 1, k->scap) ||
	    ss_grow_to(&k->stamp, k->scap, sizeof(*k->stamp)))
		return SS_ENOMEM;
	k->stamp[k->nitems] = 0;
	for (i = 0; inv > 0 && i < v->n; i++) {
		uint32_t f = v->idx[i];
		struct plist *l;

		if (f < k->from || v->val[i] == 0.0f)
			continue;
		if (!k->slot[f]) {
			if (SS_GROW(k->lists, k->nlists + 1, k->lcap))
				return SS_ENOMEM;
			memset(&k->lists[k->nlists], 0, sizeof(k->lists[0]));
			k->slot[f] = (uint32_t)++k->nlists;
		}
		l = &k->lists[k->slot[f] - 1];
		if (l->n + 1 > l->cap) {
			size_t cap = ss_grow_cap(l->cap, l->n + 1);

			if (ss_grow_to(&l->item, cap, sizeof(*l->item)) ||
			    ss_grow_to(&l->w, cap, sizeof(*l->w)))
				return SS_ENOMEM;
			l->cap = cap;
		}
		l->item[l->n] = (uint32_t)k->nitems;
		l->w[l->n] = (float)(v->val[i] * inv);
		l->n++;
	}
	if (item)
		*item = k->nitems;
	k->nitems++;
	return 0;
}

/* a before b: more similar, then the older item */
static int before(const ss_knn_hit *a, const ss_knn_hit *b)
{
	return a->sim > b->sim || (a->sim == b->sim && a->item < b->item);
}

/* The list of v's i-th feature a query reads, NULL when none: a feature
 * left out (before `from`, beyond dim, never seen) or too common. */
static struct plist *query_list(const ss_knn *k, const ss_svec *v, size_t i)
{
	struct plist *l;

	if (v->idx[i] < k->from || v->idx[i] >= k->dim || !k->slot[v->idx[i]])
		return NULL;
	l = &k->lists[k->slot[v->idx[i]] - 1];
	return k->max_df && l->n > k->max_df ? NULL : l;
}

/* A list a dense query reads as a full row: a quarter of the items or
 * more (its zeros add nothing: x + 0.0f is x, and no sum is -0.0f). */
#define FULL_SHARE 4

/* l's weights by item, built for the items there are now; NULL when there
 * is no room (the list is then read as postings). */
static const float *full_row(const ss_knn *k, struct plist *l)
{
	if (l->full && l->nfull == k->nitems)
		return l->full;
	free(l->full);
	l->nfull = 0;
	if (!(l->full = calloc(k->nitems, sizeof(*l->full))))
		return NULL;
	for (size_t j = 0; j < l->n; j++)
		l->full[l->item[j]] = l->w[j];
	l->nfull = k->nitems;
	return l->full;
}

/*
 * acc[j] += q * w[j] for j < n, four at a time (GCC's vector extension,
 * which clang has too: -O2 does not vectorise this loop by itself).  Each
 * lane multiplies then adds, as the scalar loop does: the same floats.
 */
typedef float v4f __attribute__((vector_size(16)));

static void add_row(float *acc, const float *w, float q, size_t n)
{
	const v4f q4 = { q, q, q, q };
	size_t j = 0;

	for (; j + 4 <= n; j += 4) {
		v4f a, b;

		memcpy(&a, acc + j, sizeof(a));
		memcpy(&b, w + j, sizeof(b));
		a += q4 * b;
		memcpy(acc + j, &a, sizeof(a));
	}
	for (; j < n; j++)
		acc[j] += q * w[j];
}

/* Offer hit h to out[*n] (at most max, best first); keep as the query's. */
static void offer(ss_knn_hit h, ss_knn_hit *out, size_t *n, size_t max,
		  int (*keep)(void *ud, size_t item), void *ud)
{
	size_t pos;

	/* rounding can take a copy's similarity past 1 */
	if (h.sim > 1.0f)
		h.sim = 1.0f;
	if (h.sim <= 0.0f || (*n == max && !before(&h, &out[*n - 1])))
		return;
	if (keep && !keep(ud, h.item))
		return;
	pos = *n < max ? (*n)++ : max - 1;
	while (pos > 0 && before(&h, &out[pos - 1])) {
		out[pos] = out[pos - 1];
		pos--;
	}
	out[pos] = h;
}

size_t ss_knn_query(ss_knn *k, const ss_svec *v, ss_knn_hit *out, size_t max,
		    int (*keep)(void *ud, size_t item), void *ud)
{
	double inv = inverse_norm(k, v);
	size_t i, j, n = 0, postings = 0;
	struct plist *l;

	if (!max || inv <= 0 || !k->nitems)
		return 0;
	for (i = 0; i < v->n; i++)
		if ((l = query_list(k, v, i)))
			postings += l->n;
	if (postings >= k->nitems) {
		/* dense: every item is read anyway */
		memset(k->acc, 0, k->nitems * sizeof(*k->acc));
		for (i = 0; i < v->n; i++) {
			const float *row;
			float q;

			if (!(l = query_list(k, v, i)))
				continue;
			q = (float)(v->val[i] * inv);
			if (l->n * FULL_SHARE >= k->nitems && (row = full_row(k, l))) {
				add_row(k->acc, row, q, k->nitems);
				continue;
			}
			for (j = 0; j < l->n; j++)
				k->acc[l->item[j]] += q * l->w[j];
		}
		for (j = 0; j < k->nitems; j++)
			offer((ss_knn_hit){ j, k->acc[j] }, out, &n, max, keep, ud);
		return n;
	}
	if (SS_GROW(k->touched, k->nitems, k->tcap))
		return 0;  /* no room to search: no neighbours */
	if (++k->query == 0) {
		/* the stamp wrapped: every item looks unstamped again */
		memset(k->stamp, 0, k->nitems * sizeof(*k->stamp));
		k->query = 1;
	}
	k->ntouched = 0;
	for (i = 0; i < v->n; i++) {
		float q;

		if (!(l = query_list(k, v, i)))
			continue;
		q = (float)(v->val[i] * inv);
		for (j = 0; j < l->n; j++) {
			uint32_t it = l->item[j];

			if (k->stamp[it] != k->query) {
				k->stamp[it] = k->query;
				k->acc[it] = 0.0f;
				k->touched[k->ntouched++] = it;
			}
			k->acc[it] += q * l->w[j];
		}
	}
	for (i = 0; i < k->ntouched; i++)
		offer((ss_knn_hit){ k->touched[i], k->acc[k->touched[i]] }, out, &n, max, keep, ud);
	return n;
}
