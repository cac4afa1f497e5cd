/*
 * decisions_json.h - the review decisions (index/index_decisions.h) as the
 * JSON file a team keeps in git (decisions_json.c; docs/review.md): written from
 * an index, read and checked whole, its branches named as the index names
 * them.  cmd/review_share.c opens the files and the index and says what
 * was done.
 */
#ifndef SS_RUN_DECISIONS_JSON_H
#define SS_RUN_DECISIONS_JSON_H

#include <stddef.h>
#include <stdio.h>

#include "index/index_decisions.h"
#include "index/index.h"
#include "run/run.h"

/*
 * Every decision of ix to f, one object a line, by branch then commit,
 * so that a diff of two exports is the decisions that changed; *n: how
 * many.  0 or < 0 with the message set (f then holds part of them).
 */
int ss_run_decisions_export(FILE *f, ss_index *ix, size_t *n);

/* The decisions of a file; d[i]'s strings are owned[i]'s. */
typedef struct {
	ss_decision *d;
	char *(*owned)[5];
	size_t n, cap, ocap;
} ss_run_decision_file;

/*
 * Read and check the file at path whole into *out (released with
 * ss_run_decision_file_release() whatever is returned): 0, or
 * SS_EINVALID with one message naming the file and line.
 */
int ss_run_decisions_read(ss_run_decision_file *out, const char *path);
void ss_run_decision_file_release(ss_run_decision_file *ds);

/*
 * Each decision of ds under ix's name for its branch ("origin/21.11" is
 * "21.11"); a branch ix does not know is imported as it is, a warning
 * through rp once a branch (the index's message, escaped: the name is
 * the file's).  0 or < 0 with the message set.
 */
int ss_run_decisions_identities(ss_run_decision_file *ds, ss_index *ix, const ss_run_report *rp);

#endif
