/*
 * knn.c - the nearest past commits: an inverted index over sparse
 * vectors (knn.h).
 *
 * Written here because no Debian library searches sparse cosine
 * neighbours with items added between queries (FAISS and Annoy index
 * dense vectors, and need the whole set before the first query).
 *
 * Layout: slot[dim] maps a feature to its posting list (0: none yet,
 * else list number + 1), each list a growing array of (item, weight)
 * in the order added.  A query accumulates dot products in acc[item],
 * stamped by query so the array is never cleared, and keeps the items
 * it touched; selection is a partial insertion sort into out[max].
 */
#include "models/knn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/grow.h"

struct posting {
	uint32_t item;
	float w;
};

struct plist {
	struct posting *p;
	size_t n, cap;
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
	for (size_t i = 0; i < k->nlists; i++)
		free(k->lists[i].p);
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
		if (SS_GROW(l->p, l->n + 1, l->cap))
			return SS_ENOMEM;
		l->p[l->n].item = (uint32_t)k->nitems;
		l->p[l->n].w = (float)(v->val[i] * inv);
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

size_t ss_knn_query(ss_knn *k, const ss_svec *v, ss_knn_hit *out, size_t max,
		    int (*keep)(void *ud, size_t item), void *ud)
{
	double inv = inverse_norm(k, v);
	size_t i, j, n = 0;

	if (!max || inv <= 0 || !k->nitems)
		return 0;
	if (SS_GROW(k->touched, k->nitems, k->tcap))
		return 0;  /* no room to search: no neighbours */
	if (++k->query == 0) {
		/* the stamp wrapped: every item looks unstamped again */
		memset(k->stamp, 0, k->nitems * sizeof(*k->stamp));
		k->query = 1;
	}
	k->ntouched = 0;
	for (i = 0; i < v->n; i++) {
		const struct plist *l;
		float q;

		if (v->idx[i] < k->from || v->idx[i] >= k->dim || !k->slot[v->idx[i]])
			continue;
		l = &k->lists[k->slot[v->idx[i]] - 1];
		if (k->max_df && l->n > k->max_df)
			continue;
		q = (float)(v->val[i] * inv);
		for (j = 0; j < l->n; j++) {
			uint32_t it = l->p[j].item;

			if (k->stamp[it] != k->query) {
				k->stamp[it] = k->query;
				k->acc[it] = 0.0f;
				k->touched[k->ntouched++] = it;
			}
			k->acc[it] += q * l->p[j].w;
		}
	}
	for (i = 0; i < k->ntouched; i++) {
		ss_knn_hit h = { k->touched[i], k->acc[k->touched[i]] };
		size_t pos;

		/* rounding can take a copy's similarity past 1 */
		if (h.sim > 1.0f)
			h.sim = 1.0f;
		if (h.sim <= 0.0f || (n == max && !before(&h, &out[n - 1])))
			continue;
		if (keep && !keep(ud, h.item))
			continue;
		pos = n < max ? n++ : max - 1;
		while (pos > 0 && before(&h, &out[pos - 1])) {
			out[pos] = out[pos - 1];
			pos--;
		}
		out[pos] = h;
	}
	return n;
}
