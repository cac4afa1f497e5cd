/*
 * queue.h - the queue of one stable branch: which commits go into it and
 * in which order git am applies them.  The one queue builder: check's
 * in-memory run of the queue (check/verdict.c) and rank's mbox of it
 * (rank/rank_write.c) both call ss_queue_build().
 *
 * The queue starts from the picks (items with pick set), then takes,
 * transitively, what each item in it needs first (needs: always) and its
 * follow-ups (followups: only those with travels set, i.e. whose own
 * verdict lets them go).  Each item taken remembers the first item that
 * brought it (of; the items are walked depth first, the last pick first,
 * as a stack pops) and how (kind).
 *
 * Order: upstream order (order, the place a commit was read at: a git
 * source walks oldest first, format-patch mails come oldest first), ties
 * by committer time, then by index.  An item read apart from the batch
 * (apart: a prerequisite from the repository) has no place of its own:
 * it goes just before the earliest queued item that needs it, and before
 * that one's own prerequisite when a chain of them was read apart (at
 * most SS_QUEUE_MAX_DEPTH deep).
 *
 * Items are indices into the caller's array; the builder keeps no pointer
 * to it after returning.
 *
 * A caller whose items live in its own records (check's batch, rank's
 * rows) builds through ss_queue_build_from(): a callback fills each item
 * and names its needs and follow-ups one by one, and the lists' memory
 * is the builder's, so no caller counts room for them.
 */
#ifndef SS_QUEUE_H
#define SS_QUEUE_H

#include <stddef.h>
#include <stdint.h>

/* How deep a chain of prerequisites read apart is placed, at most. */
#define SS_QUEUE_MAX_DEPTH 16

typedef struct {
	size_t order;             /* place in upstream order (apart: unused) */
	int64_t time;             /* committer time: orders equal places */
	int pick;                 /* proposed for the branch: the queue starts here */
	int travels;              /* may go as a follow-up of a queued item */
	int apart;                /* read apart: goes before the item needing it */
	const size_t *needs;      /* items to apply before it (indices) */
	size_t nneeds;
	const size_t *followups;  /* later fixes of it (indices) */
	size_t nfollowups;
} ss_queue_item;

typedef enum {
	SS_QUEUE_NONE = 0,        /* not in the queue */
	SS_QUEUE_PICK = 1,        /* a pick */
	SS_QUEUE_NEEDED = 2,      /* a prerequisite of item of */
	SS_QUEUE_FOLLOWUP = 3     /* a follow-up of item of */
} ss_queue_kind;

typedef struct {
	ss_queue_kind kind;
	size_t of;                /* the item that brought it, (size_t)-1 for a pick
				     or none */
	size_t at;                /* the place it is applied at: order, or for an
				     item read apart the order of the item it goes
				     before */
	int before;               /* 0, or -depth: placed just before at */
} ss_queue_role;

/*
 * Build the queue of items[0..n): roles[i] says whether and why item i is
 * in it (roles has n elements), queue[0..*nqueue) lists the queued items
 * in the order they apply (queue has n elements).  Indices out of range
 * in needs or followups are ignored.  0 or SS_ENOMEM with the message set.
 */
int ss_queue_build(ss_queue_role *roles, size_t *queue, size_t *nqueue,
		   const ss_queue_item *items, size_t n);

/* The needs and follow-ups of the item being filled (ss_queue_build_from). */
typedef struct ss_queue_lists ss_queue_lists;

/*
 * Fill item i: its scalar fields (order, time, pick, travels, apart; the
 * list fields are the builder's and ignored), and its lists through
 * ss_queue_need() / ss_queue_followup().  0, or a negative code that
 * stops the build and is returned as is.
 */
typedef int (*ss_queue_fill_fn)(ss_queue_item *item, ss_queue_lists *lists, size_t i,
				void *ud);

/* Item i (of the ss_queue_build_from() call) is applied before the one
 * being filled / is a later fix of it.  0 or SS_ENOMEM. */
int ss_queue_need(ss_queue_lists *lists, size_t i);
int ss_queue_followup(ss_queue_lists *lists, size_t i);

/*
 * ss_queue_build() over n items that fill(item, lists, i, ud) describes,
 * in index order.  0, fill's code, or SS_ENOMEM with the message set.
 */
int ss_queue_build_from(ss_queue_role *roles, size_t *queue, size_t *nqueue, size_t n,
			ss_queue_fill_fn fill, void *ud);

#endif
