/*
 * decisions.h - the maintainer's review decisions (index/index_decisions.h) as
 * a run applies them to a ranking (docs/review.md): each row's decisions
 * among its flags, rows decided for every branch hidden, a queue for a
 * branch with decisions holding exactly what was accepted for it.
 */
#ifndef SS_RUN_DECISIONS_H
#define SS_RUN_DECISIONS_H

#include <stddef.h>
#include <stdint.h>

#include "index/index_decisions.h"
#include "index/index.h"
#include "rank/rank.h"
#include "run/run.h"
#include "util/strmap.h"

/* Whether d still holds at time now: a deferral until a date that has
 * come, or until a release index ix has with a date before now (a
 * replay's clock), no longer does. */
int ss_run_decision_active(ss_index *ix, const ss_decision *d, int64_t now);

/* The start (00:00 UTC) of day s, "YYYY-MM-DD" on the real calendar
 * (2019-02-30 is refused) from 1970.  SS_EINVALID (message set). */
int ss_run_date_parse(int64_t *out, const char *s);

/*
 * Whether a deferral's until (mark --until, review's d) can end: "" (no
 * end), a real date, a release tag index ix (at path) holds, or a
 * release version to come (newer than every release of its line, or
 * than the newest when the index has none of its line: *future 1).
 * SS_EINVALID naming what is accepted for anything else ("v2.0-typo",
 * "2019-02-30").
 */
int ss_run_decision_until_check(ss_index *ix, const char *path, const char *until, int *future);

typedef struct {
	char *const *branches;     /* the branches decided for (--onto's short
				      names, else the index's stable ones) */
	size_t nbranches;
	int queue;                 /* an mbox queue is written (0) */
	/* the queue's branch, an index into branches, resolved by the caller
	 * once before the run (cli/rank_report.c: --queue-branch); (0) */
	size_t queue_branch;
	int show_decided;          /* --all: keep the rows decided everywhere (0) */
	int64_t now;               /* what a deferral's date is compared with */
	const ss_run_report *report; /* the number hidden, the queue's rule (NULL) */
} ss_run_decisions_options;

/*
 * The commits rejected in review for some branch (ix at path, as the
 * handle reads it: ss_index_as_of() applies), as a set of 40-digit ids
 * (*out, the caller's): what the project model may learn as negatives
 * of the ranked cycle (--learn-in-cycle).  0 or < 0 with the message set.
 */
int ss_run_decisions_rejected(ss_strmap **out, ss_index *ix, const char *path);

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
