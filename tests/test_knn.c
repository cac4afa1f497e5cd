/*
 * test_knn.c - the neighbour search (models/knn.c) against brute force:
 * random sparse vectors with a Zipf-like feature frequency (a few common
 * features, many rare ones), items added between queries, a keep filter;
 * every query's hits are the brute-force cosine top-k (similarities
 * within a stated tolerance: float sums in another order), ties broken
 * the same way; then the skipped long posting lists (max_df) leave the
 * similarities of the rest, and a near copy is still found first; and
 * with the dense block searched, both ways a query is summed (sparse:
 * stamped postings; dense: rows of weights by item, models/knn.c) give
 * the very floats of the sum written out in the query's feature order.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/knn.h"

#define DIM 400
#define FROM 20   /* features below it are the dense block: left out */
#define NITEMS 300
#define K 7
/* float products summed in posting order against a double sum */
#define TOL 1e-5

static uint64_t state = 0x9E3779B97F4A7C15ULL;

static uint32_t rnd(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return (uint32_t)(state >> 16);
}

/* A feature: low numbers far more often (Zipf-like), the dense block always. */
static void make(ss_svec *v)
{
	uint8_t seen[DIM] = { 0 };
	size_t n = 2 + rnd() % 12, i;

	v->n = 0;
	for (i = 0; i < FROM; i += 3)
		assert_int_equal(ss_svec_push(v, (uint32_t)i, (float)(1 + rnd() % 5)), 0);
	for (i = 0; i < n; i++) {
		uint32_t f = FROM + (uint32_t)((double)(DIM - FROM) *
					       pow((double)(rnd() % 10000) / 10000.0, 3.0));

		if (f >= DIM || seen[f])
			continue;
		seen[f] = 1;
		assert_int_equal(ss_svec_push(v, f, (float)(1 + rnd() % 3)), 0);
	}
	ss_svec_finish(v);
}

static double cosine(const ss_svec *a, const ss_svec *b)
{
	double dot = 0, na = 0, nb = 0;
	size_t i, j;

	for (i = 0; i < a->n; i++)
		if (a->idx[i] >= FROM)
			na += (double)a->val[i] * a->val[i];
	for (j = 0; j < b->n; j++)
		if (b->idx[j] >= FROM)
			nb += (double)b->val[j] * b->val[j];
	for (i = 0, j = 0; i < a->n && j < b->n;) {
		if (a->idx[i] < b->idx[j])
			i++;
		else if (a->idx[i] > b->idx[j])
			j++;
		else {
			if (a->idx[i] >= FROM)
				dot += (double)a->val[i] * b->val[j];
			i++, j++;
		}
	}
	return na > 0 && nb > 0 ? dot / sqrt(na * nb) : 0.0;
}

static int odd_only(void *ud, size_t item)
{
	(void)ud;
	return item % 2 == 1;
}

/* the brute-force top k of q among items[0..n) (odd ones with filter) */
static size_t brute(const ss_svec *items, size_t n, const ss_svec *q, int filter,
		    size_t *best, double *sim)
{
	size_t i, m = 0, pos;

	for (i = 0; i < n; i++) {
		double s = cosine(&items[i], q);

		if (s <= 0 || (filter && i % 2 == 0))
			continue;
		if (m == K && s <= sim[m - 1])
			continue;
		pos = m < K ? m++ : K - 1;
		while (pos > 0 && sim[pos - 1] < s) {
			best[pos] = best[pos - 1];
			sim[pos] = sim[pos - 1];
			pos--;
		}
		best[pos] = i;
		sim[pos] = s;
	}
	return m;
}

/* hits equal the brute force's, within TOL; where two brute-force
 * similarities are within TOL of each other the order may differ */
static void same(const ss_knn_hit *h, size_t nh, const size_t *best, const double *sim,
		 size_t nb, const ss_svec *items, const ss_svec *q)
{
	size_t i;

	assert_int_equal(nh, nb);
	for (i = 0; i < nh; i++) {
		assert_true(fabs((double)h[i].sim - sim[i]) < TOL);
		assert_true(fabs((double)h[i].sim - cosine(&items[h[i].item], q)) < TOL);
		if (h[i].item != best[i])
			assert_true(fabs(sim[i] - cosine(&items[h[i].item], q)) < TOL);
		if (i)
			assert_true(h[i - 1].sim >= h[i].sim);
	}
}

static void test_against_brute_force(void **state_)
{
	ss_svec items[NITEMS], q;
	ss_knn *k;
	ss_knn_hit h[K];
	size_t best[K], i, it, nb, nh, queries = 0;
	double sim[K];

	(void)state_;
	assert_int_equal(ss_knn_new(&k, DIM, FROM, 0), 0);
	ss_svec_init(&q);
	for (i = 0; i < NITEMS; i++) {
		ss_svec_init(&items[i]);
		make(&items[i]);
		assert_int_equal(ss_knn_add(k, &items[i], &it), 0);
		assert_int_equal(it, i);
		/* queries between additions see the items so far */
		if (i % 10 == 9) {
			make(&q);
			nb = brute(items, i + 1, &q, 0, best, sim);
			nh = ss_knn_query(k, &q, h, K, NULL, NULL);
			same(h, nh, best, sim, nb, items, &q);
			nb = brute(items, i + 1, &q, 1, best, sim);
			nh = ss_knn_query(k, &q, h, K, odd_only, NULL);
			same(h, nh, best, sim, nb, items, &q);
			queries++;
		}
	}
	assert_int_equal(ss_knn_count(k), NITEMS);
	assert_int_equal(queries, NITEMS / 10);
	/* an item's own vector finds it, at similarity 1 */
	nh = ss_knn_query(k, &items[123], h, K, NULL, NULL);
	assert_true(nh >= 1);
	assert_true(h[0].sim > 1.0f - 1e-5f);
	assert_true(cosine(&items[h[0].item], &items[123]) > 1.0 - TOL);
	/* the dense block alone finds nothing */
	q.n = 0;
	assert_int_equal(ss_svec_push(&q, 0, 1.0f), 0);
	assert_int_equal(ss_knn_query(k, &q, h, K, NULL, NULL), 0);
	/* an index beyond dim is refused */
	q.n = 0;
	assert_int_equal(ss_svec_push(&q, DIM, 1.0f), 0);
	assert_true(ss_knn_add(k, &q, NULL) < 0);
	for (i = 0; i < NITEMS; i++)
		ss_svec_release(&items[i]);
	ss_svec_release(&q);
	ss_knn_free(k);
}

/* With max_df, the longest lists are skipped: a near copy sharing a rare
 * feature is still found first, and a query of common features alone
 * finds nothing. */
static void test_skip_common(void **state_)
{
	ss_svec v, q;
	ss_knn *k;
	ss_knn_hit h[K];
	size_t i, nh;

	(void)state_;
	assert_int_equal(ss_knn_new(&k, DIM, FROM, 50), 0);
	ss_svec_init(&v);
	ss_svec_init(&q);
	for (i = 0; i < 200; i++) {
		v.n = 0;
		/* feature 30 in every item: its list grows past 50 */
		assert_int_equal(ss_svec_push(&v, 30, 1.0f), 0);
		assert_int_equal(ss_svec_push(&v, (uint32_t)(100 + i), 1.0f), 0);
		assert_int_equal(ss_knn_add(k, &v, NULL), 0);
	}
	q.n = 0;
	assert_int_equal(ss_svec_push(&q, 30, 1.0f), 0);
	assert_int_equal(ss_svec_push(&q, 177, 1.0f), 0);
	nh = ss_knn_query(k, &q, h, K, NULL, NULL);
	assert_int_equal(nh, 1);
	assert_int_equal(h[0].item, 77);
	/* the common feature's share of the norm stays in the similarity */
	assert_true(fabs((double)h[0].sim - 0.5) < TOL);
	q.n = 0;
	assert_int_equal(ss_svec_push(&q, 30, 1.0f), 0);
	assert_int_equal(ss_knn_query(k, &q, h, K, NULL, NULL), 0);
	ss_svec_release(&v);
	ss_svec_release(&q);
	ss_knn_free(k);
}

/* ---- the dense way: the same floats ---------------------------------- */

#define DDIM 60
#define DNITEMS 240

/* an item or query: dense features 0..9 each in most items (feature f in
 * a share that falls with f: rows and postings both read), some rare */
static void make_dense(ss_svec *v, int rare_only)
{
	uint8_t seen[DDIM] = { 0 };
	size_t i, n = 1 + rnd() % 4;

	v->n = 0;
	for (i = 0; !rare_only && i < 10; i++)
		if (rnd() % 100 < 95 - 9 * i)
			assert_int_equal(ss_svec_push(v, (uint32_t)i,
						      (float)(rnd() % 1000) / 97.0f), 0);
	for (i = 0; i < n; i++) {
		uint32_t f = 10 + rnd() % (DDIM - 10);

		if (seen[f])
			continue;
		seen[f] = 1;
		assert_int_equal(ss_svec_push(v, f, (float)(1 + rnd() % 7) / 3.0f), 0);
	}
	ss_svec_finish(v);
}

/* 1/|v| as the index computes it (double sum, features in order) */
static double inv_norm(const ss_svec *v)
{
	double s = 0;

	for (size_t i = 0; i < v->n; i++)
		s += (double)v->val[i] * v->val[i];
	return s > 0 ? 1.0 / sqrt(s) : 0.0;
}

/* item's similarity to q as floats summed in q's feature order */
static float written_out(const ss_svec *item, const ss_svec *q)
{
	double qi = inv_norm(q), ii = inv_norm(item);
	float acc = 0.0f;

	for (size_t i = 0; i < q->n; i++)
		for (size_t j = 0; j < item->n; j++)
			if (item->idx[j] == q->idx[i]) {
				float w = (float)(item->val[j] * ii), qq = (float)(q->val[i] * qi);

				acc += qq * w;
			}
	return acc > 1.0f ? 1.0f : acc;
}

static void test_dense_same_floats(void **state_)
{
	ss_svec items[DNITEMS], q;
	ss_knn *k;
	ss_knn_hit h[K];
	size_t i, j, nh, dense_queries = 0, sparse_queries = 0;

	(void)state_;
	assert_int_equal(ss_knn_new(&k, DDIM, 0, 0), 0);
	ss_svec_init(&q);
	for (i = 0; i < DNITEMS; i++) {
		ss_svec_init(&items[i]);
		make_dense(&items[i], 0);
		assert_int_equal(ss_knn_add(k, &items[i], NULL), 0);
		/* queries between additions: the rows grow with the items */
		if (i % 20 != 19)
			continue;
		for (int rare = 0; rare < 2; rare++) {
			float best[K];
			size_t bi[K], nb = 0;

			make_dense(&q, rare);
			for (j = 0; j <= i; j++) {
				float s = written_out(&items[j], &q);
				size_t pos;

				if (s <= 0.0f || (nb == K && s <= best[nb - 1]))
					continue;
				pos = nb < K ? nb++ : K - 1;
				while (pos > 0 && best[pos - 1] < s) {
					best[pos] = best[pos - 1];
					bi[pos] = bi[pos - 1];
					pos--;
				}
				best[pos] = s;
				bi[pos] = j;
			}
			nh = ss_knn_query(k, &q, h, K, NULL, NULL);
			assert_int_equal(nh, nb);
			for (j = 0; j < nh; j++) {
				assert_int_equal(h[j].item, bi[j]);
				assert_true(h[j].sim == best[j]);
			}
			if (rare)
				sparse_queries++;
			else
				dense_queries++;
		}
	}
	assert_int_equal(dense_queries, DNITEMS / 20);
	assert_int_equal(sparse_queries, DNITEMS / 20);
	for (i = 0; i < DNITEMS; i++)
		ss_svec_release(&items[i]);
	ss_svec_release(&q);
	ss_knn_free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_brute_force),
		cmocka_unit_test(test_skip_common),
		cmocka_unit_test(test_dense_same_floats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
