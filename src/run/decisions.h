/*
 * decisions.h - the maintainer's review decisions (index/decisions.h) as
 * a run applies them to a ranking (docs/review.md): each row's decisions
 * among its flags, rows decided for every branch hidden, a queue for a
 * branch with decisions holding exactly what was accepted for it.
 */
#ifndef SS_RUN_DECISIONS_H
#define SS_RUN_DECISIONS_H

#include <stddef.h>
#include <stdint.h>

#include "index/decisions.h"
#include "index/index.h"
#include "rank/rank.h"
#include "run/run.h"

/* Whether d still holds at time now: a deferral until a date that has
 * come, or until a release index ix now has, no longer does. */
int ss_run_decision_active(ss_index *ix, const ss_decision *d, int64_t now);

typedef struct {
	char *const *branches;     /* the branches decided for (--onto's short
				      names, else the index's stable ones) */
	const char *const *onto;   /* --onto as given, beside branches (NULL: none) */
	size_t nbranches;
	int queue;                 /* an mbox queue is written (0) */
	const char *queue_branch;  /* --branch (NULL: the first) */
	int show_decided;          /* --all: keep the rows decided everywhere (0) */
	int64_t now;               /* what a deferral's date is compared with */
	const ss_run_report *report; /* the number hidden, the queue's rule (NULL) */
} ss_run_decisions_options;

/*
 * Apply index ix's decisions (read from path, for messages) to r's rows,
 * after the selection and before the verdicts: each row gets them as its
 * review text; a row decided for every branch is hidden (unless
 * show_decided), the number hidden said as a note; a queue for a branch
 * with any decision holds exactly the rows accepted (queued, failed) for
 * it, whatever they score.  An index without decisions changes nothing.
 * 0 or < 0 with the message set.
 */
int ss_run_decisions_apply(ss_ranking *r, ss_index *ix, const char *path,
			   const ss_run_decisions_options *o);

#endif
