/*
 * releases.h - which releases a run uses: the one place that decides it,
 * for every command (rank, report, explain, eval, train through the
 * history features; origin).
 *
 * The priority, first that applies:
 *   1. --releases FILE or --release-tags GLOB: the file (placed with the
 *      repository's graph when there is one) or the repository's tags
 *      matching GLOB (GLOB without a repository: none, see 4);
 *   2. the project index's releases (ix given), when it has some, or
 *      when the run does not fall back (repo_tags 0: then an index
 *      without releases gives an empty list);
 *   3. with repo_tags set and a repository: its release tags;
 *   4. none.
 */
#ifndef SS_RUN_RELEASES_H
#define SS_RUN_RELEASES_H

#include "history/histidx.h"
#include "index/index.h"

typedef struct {
	const char *file;     /* --releases FILE (NULL) */
	const char *tags;     /* --release-tags GLOB (NULL) */
	const char *repo;     /* the repository (NULL) */
	int repo_tags;        /* without 1 or 2, the repository's tags (0) */
} ss_releases_ask;

#define SS_RELEASES_ASK_INIT { NULL, NULL, NULL, 0 }

/* Where the releases came from (or, on failure, where reading failed). */
typedef enum {
	SS_RELEASES_NONE = 0,   /* none: *out is NULL */
	SS_RELEASES_GIVEN = 1,  /* --releases / --release-tags */
	SS_RELEASES_INDEX = 2,  /* the project index */
	SS_RELEASES_REPO = 3    /* the repository's tags, nothing named */
} ss_releases_from;

/* Were --releases or --release-tags given (rule 1)? */
int ss_releases_given(const ss_releases_ask *a);

/*
 * Choose and read the releases (the rules above) into *out (the
 * caller's; NULL for none) and say where from in *from.  ix may be NULL
 * (no index, or not opened yet: rule 2 is skipped).  0, or < 0 with the
 * message set and *from naming the source that failed.
 */
int ss_releases_choose(ss_releases **out, ss_releases_from *from, const ss_releases_ask *a,
		       ss_index *ix);

#endif
