/*
 * index_build.h - "stablesel index" as a run does it, for any front end
 * (docs/index.md): the repository's layout (the one the index keeps when
 * the refs are as they were, else found from the graph), the update from
 * the repository or from mail sources, the project model's features
 * made while the update reads the diffs and filled after it, a first
 * build packed, and a first build refused before it wrote anything left
 * without a file (an empty index would pass for one with no history).
 * Nothing here prints or exits: 0 or a negative SS_E* code with the
 * message set, what it found said through an ss_run_report.
 */
#ifndef SS_RUN_INDEX_BUILD_H
#define SS_RUN_INDEX_BUILD_H

#include <stddef.h>

#include "index/index.h"
#include "run/feature_store.h"
#include "run/run.h"

/* Whether path is a directory holding a git repository (a bare one, or
 * one with .git): an operand of "index" that means --repo. */
int ss_run_index_is_repository(const char *path);

typedef struct {
	ss_index_options *opts;          /* the update's; opts->repo the repository
					    (NULL with mail sources); opts->layout
					    set here (required) */
	const char *db;                  /* the index file (NULL: opts->repo's
					    default, <gitdir>/stablesel/index.db) */
	const char *eol;                 /* --eol AGE (NULL: git config
					    stablesel.eol, else found) */
	const char *const *specs;        /* the mail sources (NULL) */
	size_t nspecs;                   /* 0: the repository is indexed (0) */
	int no_features;                 /* keep no features for the project
					    model (0) */
	const ss_run_history_reader *hr; /* the features' fill walks the
					    history through it (NULL: as a
					    run walks it, history_load.h) */
} ss_run_index_build_options;

#define SS_RUN_INDEX_BUILD_OPTIONS_INIT { NULL, NULL, NULL, NULL, 0, 0, NULL }

/*
 * Build or update the index o names: *stats what the update did, *path
 * the index's path (malloc'd, the caller's, set on error too when
 * known).  Through rp: the update's end of progress, what the layout
 * found (a warning, notes), what the fill kept, a first build that
 * could not be packed (a note), then what stats hold besides the counts:
 * mail read again, commits repaired or still missing a blob (notes),
 * commits that could not be read (an error: the rest is indexed).  A first build refused is removed with
 * its folder when the build made it; the update's message is kept.
 */
int ss_run_index_build(ss_index_stats *stats, char **path, const ss_run_index_build_options *o,
		       const ss_run_report *rp);

#endif
