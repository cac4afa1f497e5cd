/*
 * explain_commits.h - the commits explain names, found and explained
 * (explain_commits.c): every commit of the sources streams through the
 * history, so that each named one is scored against the commits before
 * it, or, from a repository without revisions, each named commit is read
 * alone; a named one's score and its largest contributions (per feature,
 * or a PatchNet's words, lines and features) go to the front end to be
 * printed.  Moved from cmd/explain.c, which keeps the options, the model
 * chosen, the printing and the exits.
 *
 * Like the rest of src/run/ nothing prints or exits: 0 or a negative
 * SS_E* code with the message set.
 */
#ifndef SS_RUN_EXPLAIN_COMMITS_H
#define SS_RUN_EXPLAIN_COMMITS_H

#include <stddef.h>
#include <stdint.h>

#include "commit/commit.h"
#include "features/history.h"
#include "models/model.h"
#include "models/patchnet_net.h"
#include "run/run.h"
#include "source/source.h"

/* One named commit explained: borrowed for the callback only. */
typedef struct {
	const ss_commit *c;
	float score;
	int patchnet;                        /* a PatchNet kind: reasons, not why */
	const ss_contrib *why;               /* the features' contributions, largest first */
	size_t nwhy;
	const ss_patchnet_reason *reasons;   /* a PatchNet's words, lines, features */
	size_t nreasons;
} ss_run_explained;

typedef struct {
	const ss_model *m;                   /* the model (required) */
	const char *const *want;             /* the ids or prefixes (4 hex digits at least) named */
	size_t nwant;                        /* 0 */
	size_t top;                          /* contributions kept a commit (0: none) */
	const char *repo;                    /* the repository read without specs (NULL) */
	const char *const *specs;            /* the sources (NULL: the repository) */
	size_t nspecs;                       /* 0 */
	/* how they are read (required); from a repository without specs or
	 * revisions each named commit is read alone, its merge the one
	 * the walk of mainline (a ref name) gives */
	const ss_source_options *opts;
	const char *mainline;                /* "HEAD" when NULL */
	void (*explained)(const ss_run_explained *e, void *ud); /* each named commit (required) */
	void *ud;                            /* NULL */
	const ss_run_report *rp;             /* errors of a source's commits, progress (NULL) */
} ss_run_explain_options;

#define SS_RUN_EXPLAIN_OPTIONS_INIT \
	{ NULL, NULL, 0, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL }

/*
 * Read o's commits into hist (the history every commit is added to once
 * read), each one a prefix of o->want names scored and explained to
 * o->explained; found[k] (o->nwant of them, the caller's) set when
 * want[k] was found.  0 or < 0 with the message set ("cannot explain
 * ID: ...").
 */
int ss_run_explain_commits(int *found, ss_history *hist, const ss_run_explain_options *o);

/*
 * The mainline's ref name as the project index of repo (or db; as it
 * was at as_of when not 0; run, which may be NULL, lends it) records it,
 * into out (size bytes): "HEAD" when there is no index or it records
 * none.  0, or < 0 with the message set when the index cannot be read.
 */
int ss_run_mainline_name(char *out, size_t size, ss_run *run, const char *db, const char *repo,
			 int64_t as_of);

/*
 * The model explain scores with, as rank chose it: the file model
 * names (--model), else the project model kept for repo or the one
 * project_model names (run/project_keep.h: ss_project_model_kept; run,
 * which may be NULL, lends the repository), else the built-in one.
 * *out the caller's; *kept the project model's path (malloc'd) when it
 * is that one, else NULL.  0 or < 0 with the message set (a model file
 * that cannot be loaded).
 */
int ss_run_explain_model(ss_model **out, char **kept, const char *model,
			 const char *project_model, const char *repo, ss_run *run,
			 const ss_run_report *rp);

#endif
