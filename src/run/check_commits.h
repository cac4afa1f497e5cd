/*
 * check_commits.h - "check" as run steps (check_commits.c): the stable
 * branch opened on the run's repository (an ambiguous name said), with
 * --prereqs what it carries under other ids (from the project index when
 * it recorded the branch at its tip, run/branches.h), then every commit
 * of the sources checked against it (check/check.h) and counted, each
 * result handed to the front end to write.  Like the rest of src/run/
 * nothing prints or exits: 0 or a negative SS_E* code with the message
 * set, the rest said through rp (a commit that cannot be checked is an
 * SS_RUN_ERROR and the run goes on).
 */
#ifndef SS_RUN_CHECK_COMMITS_H
#define SS_RUN_CHECK_COMMITS_H

#include <stddef.h>

#include "check/check.h"
#include "labels/carried.h"
#include "run/run.h"
#include "source/source.h"

typedef struct {
	const char *onto_repo;      /* the branch's repository (required) */
	ss_check_options co;        /* the branch (--onto in co.rev), --prereqs (SS_CHECK_OPTIONS_INIT) */
	const char *upstream;       /* --onto-upstream (NULL: the index's mainline, else HEAD) */
	const char *db;             /* --db (NULL: the repository's own index) */
	int no_index;               /* --no-index (0) */
	ss_run *run;                /* lends the repository and the index (NULL: each opens) */
	const ss_run_report *rp;    /* NULL: nothing said */
} ss_run_check_options;

#define SS_RUN_CHECK_OPTIONS_INIT { NULL, SS_CHECK_OPTIONS_INIT, NULL, NULL, 0, NULL, NULL }

typedef struct ss_run_check ss_run_check;

/* The branch of o opened into *out (o outlives it).  0 or < 0. */
int ss_run_check_new(ss_run_check **out, const ss_run_check_options *o);
void ss_run_check_free(ss_run_check *rc); /* NULL is a no-op */

/* The branch's check, borrowed (its name, ref and id for messages). */
const ss_check *ss_run_check_branch(const ss_run_check *rc);

/* What the commits checked so far came to. */
typedef struct {
	size_t total;                     /* commits read */
	size_t apply[SS_APPLY_UNKNOWN + 1]; /* by ss_apply_status */
	size_t in_branch, carried, bug_absent;
} ss_run_check_counts;

/* One commit's result, to be written; non-zero stops the reading. */
typedef int (*ss_run_check_fn)(const ss_commit *c, const ss_check_result *res, void *ud);

/*
 * Every commit of specs[0..nspecs) (the repository repo without specs),
 * read with opts, checked: fn(c, result, ud) for each, the counts into
 * *counts (added to).  0 or < 0 when a source cannot be read.
 */
int ss_run_check_commits(ss_run_check *rc, ss_run_check_counts *counts, const char *repo,
			 const char *const *specs, size_t nspecs, const ss_source_options *opts,
			 ss_run_check_fn fn, void *ud);

#endif
