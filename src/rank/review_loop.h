/*
 * review_loop.h - the interactive review's logic, in the manner of git add -p
 * (docs/review.md): candidates best first, one at a time, with a key
 * each: y accept, n reject (asks for a note), f needs a manual backport
 * (recorded as failed), d defer (asks until when), s skip, p the diff, e
 * the explanation, u undo, q quit, ? help.
 *
 * It holds no terminal: lines go in (ss_review_input(), a key or the
 * answer asked for), screen text comes out (ss_review_screen()), and
 * decisions go to the caller's callbacks, which record them at once, so
 * that a session stopped at any point (Ctrl-C) keeps every decision
 * made.  cmd/review.c reads the terminal (run/review_session.c records
 * the decisions); tests/test_review.c drives it
 * through a pseudo-terminal.
 */
#ifndef SS_RANK_REVIEW_LOOP_H
#define SS_RANK_REVIEW_LOOP_H

#include <stddef.h>

#include "index/index_decisions.h"
#include "util/strbuf.h"

/* One candidate as the review shows it; strings the caller's, "" none. */
typedef struct {
	const char *id;          /* 40 hex digits */
	const char *subject, *author, *date;
	float score;
	const char *band;        /* the model's band: "yes", "likely", ... */
	const char *verdicts;    /* one "branch: verdict (why)" line each */
	const char *conflict;    /* why it does not apply as it is, "branch: conflict
				    in a.c hunk 1" ("" when it applies everywhere):
				    shown before the prompt, where f is the answer */
	int manual_only;         /* 1: no branch takes it as it is (offered for f only):
				    y is refused with why (0) */
	const char *flags;       /* the reasons in words: "fixes ...; tagged stable" */
	const char *reasons;     /* the features that raised its score, a line each */
	const char *message;     /* the commit message */
	const char *diff;        /* the diff (unified, git's) */
} ss_review_item;

/* What a decision does; 0 or < 0 with the message set (the review says
 * it and stays on the candidate).  state: SS_DECISION_ACCEPTED, _REJECTED,
 * _DEFERRED, _FAILED (f: it needs a manual backport; the note is the
 * item's conflict); note and until "" when none.  undo: remove the decision
 * made for item (the review shows undecided candidates only). */
typedef struct {
	int (*decide)(const ss_review_item *item, ss_decision_state state, const char *note,
		      const char *until, void *ud);
	int (*undo)(const ss_review_item *item, void *ud);
} ss_review_ops;

typedef struct ss_review ss_review;

/* items (borrowed, kept by the caller until ss_review_free) best first;
 * what names the branches decided for in the prompt ("21.11"). */
int ss_review_new(ss_review **out, const ss_review_item *items, size_t n, const char *what,
		  const ss_review_ops *ops, void *ud);
void ss_review_free(ss_review *rv); /* NULL is a no-op */

/* The screen text since the last call (the candidate, answers, the
 * prompt), NUL-terminated; the caller prints it.  Valid until the next
 * call of ss_review_input or ss_review_screen. */
const char *ss_review_screen(ss_review *rv);

/* One line of input (without its newline; NULL: end of input, as q).
 * Returns 1 when the review is over (q, end of input, no candidate left),
 * else 0. */
int ss_review_input(ss_review *rv, const char *line);

/* Counts so far: [0] accepted, [1] rejected, [2] deferred, [3] skipped,
 * [4] failed (a manual backport needed). */
#define SS_REVIEW_NCOUNTS 5
void ss_review_counts(const ss_review *rv, size_t out[SS_REVIEW_NCOUNTS]);

/* "N files changed, A insertions(+), D deletions(-)" and a line per file,
 * as git diff --stat without the bars, of a unified diff. */
void ss_review_diffstat(ss_strbuf *out, const char *diff);

#endif
