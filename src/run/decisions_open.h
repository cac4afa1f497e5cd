/*
 * decisions_open.h - what the commands of the maintainer's review share
 * before they read or record a decision (mark, status, review, and the
 * decisions rank and report apply): the index opened for the decisions,
 * the branches decided for under the name the decisions are kept under,
 * the commit an argument names (docs/review.md).  Nothing here prints
 * or exits: 0 or a negative SS_E* code with the message set.
 */
#ifndef SS_RUN_DECISIONS_OPEN_H
#define SS_RUN_DECISIONS_OPEN_H

#include <stddef.h>
#include <stdint.h>

#include "index/index.h"
#include "index/index_decisions.h"
#include "rank/rank.h"
#include "run/branches.h"
#include "run/decisions.h"
#include "run/run.h"

/*
 * The index of db, else of the repository repo (NULL: "."), opened to
 * read or write (write 1: writing migrates an older schema; an index
 * that holds no commits is refused) into *out, its path (malloc'd) into
 * *path; given repo, the index must be that repository's.  The
 * repository is read through run's handle (NULL: one opened for the
 * call).
 */
int ss_run_decisions_open(ss_index **out, char **path, const char *db, const char *repo,
			  int write, ss_run *run);

/*
 * The branch name decisions are kept under for name as spelled
 * (ss_index_branch_identity(); a tag or commit of repo, may be NULL, on
 * one branch of the index too) into out (size bytes).  SS_ENOTFOUND or
 * SS_EINVALID (the index's message: the branches it knows, the nearest)
 * when the index knows no such branch: the user's mistake.
 */
int ss_run_decision_identity(char *out, size_t size, ss_index *ix, const char *repo,
			     const char *name);

/*
 * The branches decided for: named[0..n) when n > 0, else the index's
 * (at path) live stable branches (ss_run_index_branches()), each as
 * ss_run_decision_identity() names it, each once, malloc'd into out (at
 * most max), *count how many; more than max is a warning through rp.
 * ss_run_decision_identity()'s codes for a name no branch has; SS_ERROR
 * when the index knows no live stable branch.
 */
int ss_run_decision_branches(char **out, size_t *count, size_t max, ss_index *ix,
			     const char *path, const char *repo, const char *const *named, size_t n,
			     const ss_run_report *rp);

/* The full id of the commit arg names: in the index, else in repo (may
 * be NULL).  SS_ENOTFOUND ("unknown commit ...") when neither knows it. */
int ss_run_decision_commit(char out[41], ss_index *ix, const char *repo, const char *arg);

/* A decision "mark" records (index/index_decisions.h). */
typedef struct {
	ss_decision_state state;   /* SS_DECISION_NONE: reset (SS_DECISION_NONE) */
	const char *who;           /* "Name <mail>" ("") */
	const char *note;          /* ("") */
	const char *until;         /* a deferral's end ("") */
	int skip_carried;          /* a branch the index records commit on
				      already is skipped, said (0) */
} ss_run_decision_mark;

#define SS_RUN_DECISION_MARK_INIT { SS_DECISION_NONE, "", "", "", 0 }

/*
 * Record m for commit on each of branches[0..nb) of ix (a reset removes
 * what each holds), a skipped branch a warning through rp; *done how
 * many were recorded or removed.  0 or < 0 with the message set.
 */
int ss_run_decision_mark_commit(size_t *done, ss_index *ix, const char commit[41],
				char *const *branches, size_t nb, const ss_run_decision_mark *m,
				const ss_run_report *rp);

/* The --onto branches of a ranking, as the decisions are applied to it. */
typedef struct {
	ss_run_branches *br;       /* the branches opened (names where ident has none) */
	char *const *ident;        /* each --onto's identity (NULL entries: br's name) */
	const char *const *onto;   /* the --onto names as given */
	size_t nonto;              /* 0: the index's stable branches */
	const char *onto_repo;     /* the repository they are in (NULL: no replay clock) */
	ss_run *run;               /* lends onto_repo's handle (NULL: opened by the call) */
	int64_t as_of;             /* --as-of: deferrals judged by then (0: none) */
} ss_run_decisions_onto;

/*
 * Apply ix's (at path) decisions to r (run/decisions.h,
 * ss_run_decisions_apply()) for the branches on names: each --onto's
 * identity, else the index's stable branches under theirs; an --onto set
 * back judges deferrals by its own clock (ss_run_replay_clock()), --as-of
 * by its date; o->branches, o->nbranches and o->now are set here.  An
 * index without decisions changes nothing.  0 or < 0 with the message
 * set.
 */
int ss_run_decisions_apply_onto(ss_ranking *r, ss_index *ix, const char *path,
				const ss_run_decisions_onto *on, ss_run_decisions_options *o);

#endif
