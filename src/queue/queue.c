/*
 * queue.c - the one queue builder (queue.h): the picks, what they need
 * first and their follow-ups, transitively, in upstream order, with the
 * items read apart placed before the items needing them.
 */
#include "queue/queue.h"

#include <stdlib.h>

#include "util/error.h"
#include "util/grow.h"

/* Take item k into the queue as kind, brought by of, and push it. */
static void take(ss_queue_role *roles, size_t *work, size_t *nwork, size_t k, ss_queue_kind kind,
		 size_t of)
{
	roles[k].kind = kind;
	roles[k].of = of;
	work[(*nwork)++] = k;
}

/* The queued items and their roles, transitively. */
static void members(ss_queue_role *roles, size_t *work, const ss_queue_item *items, size_t n)
{
	size_t nwork = 0;

	for (size_t i = 0; i < n; i++)
		if (items[i].pick)
			take(roles, work, &nwork, i, SS_QUEUE_PICK, (size_t)-1);
	while (nwork) {
		size_t i = work[--nwork];
		const ss_queue_item *it = &items[i];

		for (size_t k = 0; k < it->nneeds; k++) {
			size_t j = it->needs[k];

			if (j < n && !roles[j].kind)
				take(roles, work, &nwork, j, SS_QUEUE_NEEDED, i);
		}
		for (size_t k = 0; k < it->nfollowups; k++) {
			size_t j = it->followups[k];

			if (j < n && !roles[j].kind && items[j].travels)
				take(roles, work, &nwork, j, SS_QUEUE_FOLLOWUP, i);
		}
	}
}

/* Is place (at, before) earlier than (at2, before2)? */
static int earlier(size_t at, int before, size_t at2, int before2)
{
	return at != at2 ? at < at2 : before < before2;
}

/*
 * The place of each queued item: its own order, or for one read apart
 * the place just before the earliest queued item needing it (before 1
 * marks one not placed yet), relaxed until nothing moves: a chain of
 * items read apart moves one link a pass, SS_QUEUE_MAX_DEPTH passes at
 * most.
 */
static void places(ss_queue_role *roles, const ss_queue_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		roles[i].at = items[i].order;
		roles[i].before = items[i].apart ? 1 : 0;
	}
	for (int pass = 0, moved = 1; moved && pass < SS_QUEUE_MAX_DEPTH; pass++) {
		moved = 0;
		for (size_t i = 0; i < n; i++) {
			if (!roles[i].kind || roles[i].before > 0)
				continue;
			for (size_t k = 0; k < items[i].nneeds; k++) {
				size_t j = items[i].needs[k];
				int before = roles[i].before - 1;

				if (j >= n || j == i || !items[j].apart)
					continue;
				if (roles[j].before > 0 || earlier(roles[i].at, before, roles[j].at, roles[j].before)) {
					roles[j].at = roles[i].at;
					roles[j].before = before;
					moved = 1;
				}
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		if (roles[i].before > 0)   /* a pick read apart: no one needs it */
			roles[i].before = 0;
}

struct place {
	size_t at;
	int before;
	int64_t time;
	size_t item;
};

static int cmp_place(const void *a, const void *b)
{
	const struct place *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	if (x->before != y->before)
		return x->before < y->before ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->item < y->item ? -1 : x->item > y->item;
}

int ss_queue_build(ss_queue_role *roles, size_t *queue, size_t *nqueue,
		   const ss_queue_item *items, size_t n)
{
	size_t *work = malloc((n + 1) * sizeof(*work)), k = 0;
	struct place *p = malloc((n + 1) * sizeof(*p));

	*nqueue = 0;
	if (!work || !p) {
		free(work);
		free(p);
		return ss_error_code(SS_ENOMEM, "out of memory for a queue");
	}
	for (size_t i = 0; i < n; i++)
		roles[i] = (ss_queue_role){ SS_QUEUE_NONE, (size_t)-1, 0, 0 };
	members(roles, work, items, n);
	places(roles, items, n);
	for (size_t i = 0; i < n; i++)
		if (roles[i].kind)
			p[k++] = (struct place){ roles[i].at, roles[i].before, items[i].time, i };
	if (k)
		qsort(p, k, sizeof(*p), cmp_place);
	for (size_t i = 0; i < k; i++)
		queue[i] = p[i].item;
	*nqueue = k;
	free(work);
	free(p);
	return 0;
}

/* One growing list of item indices (the needs of every item, or the
 * follow-ups), each item's part found by its start. */
struct ids {
	size_t *v, n, room;
};

struct ss_queue_lists {
	struct ids needs, followups;
};

static int ids_push(struct ids *l, size_t i)
{
	int rc = SS_GROW(l->v, l->n + 1, l->room);

	if (rc)
		return rc;
	l->v[l->n++] = i;
	return 0;
}

int ss_queue_need(ss_queue_lists *lists, size_t i)
{
	return ids_push(&lists->needs, i);
}

int ss_queue_followup(ss_queue_lists *lists, size_t i)
{
	return ids_push(&lists->followups, i);
}

int ss_queue_build_from(ss_queue_role *roles, size_t *queue, size_t *nqueue, size_t n,
			ss_queue_fill_fn fill, void *ud)
{
	ss_queue_item *items = calloc(n + 1, sizeof(*items));
	/* each item's start in the lists, and one past the last */
	size_t *from = malloc(2 * (n + 1) * sizeof(*from));
	ss_queue_lists l = { { NULL, 0, 0 }, { NULL, 0, 0 } };
	int rc = 0;

	*nqueue = 0;
	if (!items || !from) {
		rc = ss_error_code(SS_ENOMEM, "out of memory for a queue");
		goto free_all;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		from[2 * i] = l.needs.n;
		from[2 * i + 1] = l.followups.n;
		rc = fill(&items[i], &l, i, ud);
	}
	if (rc)
		goto free_all;
	from[2 * n] = l.needs.n;
	from[2 * n + 1] = l.followups.n;
	/* the lists are whole now: pointers into them stay put */
	for (size_t i = 0; i < n; i++) {
		items[i].needs = l.needs.v ? l.needs.v + from[2 * i] : NULL;
		items[i].nneeds = from[2 * i + 2] - from[2 * i];
		items[i].followups = l.followups.v ? l.followups.v + from[2 * i + 1] : NULL;
		items[i].nfollowups = from[2 * i + 3] - from[2 * i + 1];
	}
	rc = ss_queue_build(roles, queue, nqueue, items, n);
free_all:
	free(l.needs.v);
	free(l.followups.v);
	free(from);
	free(items);
	return rc;
}
