/*
 * decisions_status.h - what "stablesel status" shows of the review
 * decisions, as data (decisions_status.c): a branch's decisions counted
 * per state, then walked in the order they are listed (the index's by
 * state, then those of commits the index no longer holds), and the log
 * of every change, of every branch or of those named.
 *
 * Like the rest of src/run/ nothing prints or exits: the front end
 * writes each decision its callback is handed.  0, or < 0 with the
 * message set; a callback's non-zero return stops the walk, which then
 * returns non-zero (index/index_decisions.h's walk says what).
 */
#ifndef SS_RUN_DECISIONS_STATUS_H
#define SS_RUN_DECISIONS_STATUS_H

#include <stddef.h>

#include "index/index.h"
#include "index/index_decisions.h"

/* One decision handed to the front end (index/index_decisions.h's). */
typedef int (*ss_run_decision_fn)(const ss_decision *d, void *ud);

/* A branch's decisions counted. */
typedef struct {
	size_t count[SS_DECISION_NSTATES]; /* decisions in each state */
	size_t unknown;                    /* of them, for commits the index
					      no longer holds */
	size_t total;                      /* those in a state other than
					      SS_DECISION_NONE */
} ss_run_decisions_count;

/* The decisions of branch in ix counted into *out (zeroed first). */
int ss_run_decisions_status_count(ss_run_decisions_count *out, ss_index *ix,
				  const char *branch);

/*
 * The decisions of branch counted as c (ss_run_decisions_status_count())
 * to fn in the order status lists them: those the index holds state by
 * state (from the first after SS_DECISION_NONE; none when c->total is
 * 0), then, when c->unknown, those it no longer holds.
 */
int ss_run_decisions_status_list(ss_index *ix, const char *branch,
				 const ss_run_decisions_count *c, ss_run_decision_fn fn, void *ud);

/*
 * Every change to the decisions, oldest first (resets as
 * SS_DECISION_NONE), to fn: of every branch in one history when nnamed
 * is 0 (no branch was named), else of branches[0..nb) in turn.
 */
int ss_run_decisions_status_log(ss_index *ix, char *const *branches, size_t nb, size_t nnamed,
				ss_run_decision_fn fn, void *ud);

#endif
