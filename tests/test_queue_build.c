/*
 * test_queue_build.c - the one queue builder (queue/queue.h): which items
 * a branch's queue takes (picks, what they need, transitively, follow-ups
 * only when their verdict lets them travel) and the order git am applies
 * them in (upstream order, ties by time then index; an item read apart
 * just before the earliest item needing it, a chain of them deeper).
 * ss_queue_build_from() (callers' records filled one by one) gives the
 * same queue as the items whole.
 * test_queue.c checks the queue end to end, written and applied.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "queue/queue.h"

#define NONE ((size_t)-1)

static ss_queue_item item(size_t order, int pick)
{
	return (ss_queue_item){ order, 0, pick, pick, 0, NULL, 0, NULL, 0 };
}

/* A pick needing an unpicked earlier commit that needs another; a
 * commit nobody needs stays out. */
static void test_needs_transitive(void **state)
{
	ss_queue_item it[4] = { item(0, 0), item(1, 0), item(2, 0), item(3, 1) };
	size_t n1[] = { 0 }, n3[] = { 1 };
	ss_queue_role roles[4];
	size_t queue[4], nq;

	(void)state;
	it[1].needs = n1, it[1].nneeds = 1;
	it[3].needs = n3, it[3].nneeds = 1;
	assert_int_equal(ss_queue_build(roles, queue, &nq, it, 4), 0);
	assert_int_equal(nq, 3);
	assert_int_equal(queue[0], 0);
	assert_int_equal(queue[1], 1);
	assert_int_equal(queue[2], 3);
	assert_int_equal(roles[3].kind, SS_QUEUE_PICK);
	assert_true(roles[3].of == NONE);
	assert_int_equal(roles[1].kind, SS_QUEUE_NEEDED);
	assert_int_equal(roles[1].of, 3);
	assert_int_equal(roles[0].kind, SS_QUEUE_NEEDED);
	assert_int_equal(roles[0].of, 1);
	assert_int_equal(roles[2].kind, SS_QUEUE_NONE);
}

/* A follow-up travels only when its own verdict lets it; a needed
 * commit goes whatever its verdict. */
static void test_followups_travel(void **state)
{
	ss_queue_item it[4] = { item(0, 1), item(1, 0), item(2, 0), item(3, 0) };
	size_t f0[] = { 1, 2, 3 };
	ss_queue_role roles[4];
	size_t queue[4], nq;

	(void)state;
	it[0].followups = f0, it[0].nfollowups = 3;
	it[1].travels = 1;
	it[3].travels = 1;
	assert_int_equal(ss_queue_build(roles, queue, &nq, it, 4), 0);
	assert_int_equal(nq, 3);
	assert_int_equal(queue[0], 0);
	assert_int_equal(queue[1], 1);
	assert_int_equal(queue[2], 3);
	assert_int_equal(roles[1].kind, SS_QUEUE_FOLLOWUP);
	assert_int_equal(roles[1].of, 0);
	assert_int_equal(roles[2].kind, SS_QUEUE_NONE);
}

/* Items read apart: just before the earliest queued item needing them
 * (two picks need item 3; the later one is walked first), a chain of
 * them one deeper each; out-of-range indices are ignored. */
static void test_apart_placed(void **state)
{
	ss_queue_item it[5] = { item(0, 1), item(1, 0), item(2, 1), item(99, 0), item(98, 0) };
	size_t n0[] = { 3, 42 }, n2[] = { 3 }, n3[] = { 4 };
	ss_queue_role roles[5];
	size_t queue[5], nq;

	(void)state;
	it[0].needs = n0, it[0].nneeds = 2;
	it[2].needs = n2, it[2].nneeds = 1;
	it[3].needs = n3, it[3].nneeds = 1;
	it[3].apart = it[4].apart = 1;
	assert_int_equal(ss_queue_build(roles, queue, &nq, it, 5), 0);
	assert_int_equal(nq, 4);
	assert_int_equal(queue[0], 4);
	assert_int_equal(queue[1], 3);
	assert_int_equal(queue[2], 0);
	assert_int_equal(queue[3], 2);
	assert_int_equal(roles[3].at, 0);
	assert_int_equal(roles[3].before, -1);
	assert_int_equal(roles[4].at, 0);
	assert_int_equal(roles[4].before, -2);
	/* the stack walks the last pick first: it brought item 3 */
	assert_int_equal(roles[3].of, 2);
	assert_int_equal(roles[1].kind, SS_QUEUE_NONE);
}

/* Equal places: the earlier time first, then the lower index. */
static void test_ties(void **state)
{
	ss_queue_item it[3] = { item(5, 1), item(5, 1), item(5, 1) };
	ss_queue_role roles[3];
	size_t queue[3], nq;

	(void)state;
	it[0].time = 20;
	it[1].time = 10;
	it[2].time = 20;
	assert_int_equal(ss_queue_build(roles, queue, &nq, it, 3), 0);
	assert_int_equal(nq, 3);
	assert_int_equal(queue[0], 1);
	assert_int_equal(queue[1], 0);
	assert_int_equal(queue[2], 2);
	assert_int_equal(ss_queue_build(roles, queue, &nq, it, 0), 0);
	assert_int_equal(nq, 0);
}

/* Random items with lists (a fixed-seed generator, so a failure repeats). */
struct rand_items {
	ss_queue_item it[300];
	size_t lists[300][8];
};

static unsigned next_rand(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) & 0x7fff;
}

static void rand_items(struct rand_items *r, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++) {
		ss_queue_item *x = &r->it[i];
		size_t k = 0;

		*x = item(next_rand(&seed) % 50, next_rand(&seed) % 5 == 0);
		x->travels = next_rand(&seed) % 2;
		x->apart = next_rand(&seed) % 10 == 0;
		x->time = next_rand(&seed) % 7;
		x->needs = r->lists[i];
		x->nneeds = next_rand(&seed) % 4;
		for (; k < x->nneeds; k++)
			r->lists[i][k] = next_rand(&seed) % (n + 3);   /* some out of range */
		x->followups = r->lists[i] + k;
		x->nfollowups = next_rand(&seed) % 4;
		for (size_t j = 0; j < x->nfollowups; j++)
			r->lists[i][k + j] = next_rand(&seed) % n;
	}
}

/* ss_queue_build_from()'s callback: item i of a rand_items, its lists
 * named one id at a time; fails at item fail_at. */
struct fill_state {
	const struct rand_items *r;
	size_t fail_at;
	size_t filled;
};

static int fill_rand(ss_queue_item *x, ss_queue_lists *l, size_t i, void *ud)
{
	struct fill_state *f = ud;
	const ss_queue_item *src = &f->r->it[i];
	int rc = 0;

	if (i == f->fail_at)
		return -42;
	f->filled++;
	*x = *src;
	x->needs = x->followups = NULL;   /* the builder's: ignored */
	for (size_t k = 0; k < src->nneeds && !rc; k++)
		rc = ss_queue_need(l, src->needs[k]);
	for (size_t k = 0; k < src->nfollowups && !rc; k++)
		rc = ss_queue_followup(l, src->followups[k]);
	return rc;
}

/* Built through callbacks, the queue is the one built from the items
 * whole, role for role; a callback's error stops the build and comes
 * back as is. */
static void test_build_from(void **state)
{
	static struct rand_items r;
	ss_queue_role roles[300], roles2[300];
	size_t queue[300], queue2[300], nq, nq2;

	(void)state;
	for (unsigned seed = 1; seed <= 20; seed++) {
		size_t n = seed == 1 ? 0 : 10 + seed * 14;
		struct fill_state f = { &r, (size_t)-1, 0 };

		rand_items(&r, n, seed);
		assert_int_equal(ss_queue_build(roles, queue, &nq, r.it, n), 0);
		assert_int_equal(ss_queue_build_from(roles2, queue2, &nq2, n, fill_rand, &f), 0);
		assert_int_equal(f.filled, n);
		assert_int_equal(nq2, nq);
		for (size_t i = 0; i < nq; i++)
			assert_int_equal(queue2[i], queue[i]);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(roles2[i].kind, roles[i].kind);
			assert_int_equal(roles2[i].of, roles[i].of);
			assert_int_equal(roles2[i].at, roles[i].at);
			assert_int_equal(roles2[i].before, roles[i].before);
		}
		if (seed == 20) {
			/* the generator gave this set needs, follow-ups and picks */
			assert_true(nq > 10);
			f = (struct fill_state){ &r, 7, 0 };
			assert_int_equal(ss_queue_build_from(roles2, queue2, &nq2, n, fill_rand, &f),
					 -42);
			assert_int_equal(f.filled, 7);
			assert_int_equal(nq2, 0);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_needs_transitive),
		cmocka_unit_test(test_followups_travel),
		cmocka_unit_test(test_apart_placed),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_build_from),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
