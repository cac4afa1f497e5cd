/*
 * knn.h - the nearest past commits of a commit: an inverted index over
 * sparse feature vectors, searched by cosine similarity.
 *
 * A maintainer decides a commit much as the nearest settled commits were
 * decided (issue 36, item 5; docs/scores.md, "Nearest past decisions").
 * Items are added once, in any order, each as the unit-normalised copy of
 * its vector's features from index `from` on (the named dense features
 * before it, a commit's counts and flags, are left out: every commit has
 * them, so they would make every pair a little alike and every search
 * read the whole index).  A query adds, for each of its features, the
 * products along that feature's posting list, so its cost is the length
 * of the lists it touches, not the number of items: sub-quadratic on
 * text, where most words are rare.
 *
 * A posting list longer than max_df items is skipped by queries (a word
 * in every other commit tells no neighbours apart); with max_df 0, or
 * while no list has grown past it, a query gives exactly what comparing
 * the query with every item would (tests/test_knn.c checks it against a
 * brute-force search).
 *
 * Not thread-safe: a query writes the index's scratch arrays.  The index
 * owns copies of what is added; vectors passed in stay the caller's.
 */
#ifndef SS_MODELS_KNN_H
#define SS_MODELS_KNN_H

#include <stddef.h>
#include <stdint.h>

#include "features/features.h"

typedef struct ss_knn ss_knn;

typedef struct {
	size_t item;  /* the number ss_knn_add() gave */
	float sim;    /* cosine similarity, in (0, 1] */
} ss_knn_hit;

/* An empty index of dim-dimensional vectors.  0 or SS_ENOMEM. */
int ss_knn_new(ss_knn **out, size_t dim, uint32_t from, size_t max_df);
void ss_knn_free(ss_knn *k);

/* Add v (indices < dim) as the next item; *item (may be NULL) gets its
 * number, 0, 1, 2, ...  A vector with no feature from `from` on is an
 * item no query finds.  0, SS_EINVALID (an index >= dim) or SS_ENOMEM. */
int ss_knn_add(ss_knn *k, const ss_svec *v, size_t *item);

/* Items added so far. */
size_t ss_knn_count(const ss_knn *k);

/*
 * The at most max items most similar to v (similarity > 0) for which
 * keep(ud, item) is non-zero (keep NULL: every item), most similar first,
 * ties to the lower item number, into out[max].  Returns how many; 0
 * too when the search cannot grow its scratch space (out of memory): no
 * neighbour is evidence of nothing, and a score must not fail for it.
 */
size_t ss_knn_query(ss_knn *k, const ss_svec *v, ss_knn_hit *out, size_t max,
		    int (*keep)(void *ud, size_t item), void *ud);

#endif
