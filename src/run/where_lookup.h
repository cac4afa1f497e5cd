/*
 * where_lookup.h - what "stablesel where" reads, for any front end
 * (cmd/where.c prints): the project index opened as the command names
 * it, an argument looked up as a commit or else as a release tag, and
 * the stable branches that fork from the mainline after a release,
 * which the index does not keep (a branch's own commits only) and the
 * repository tells.  Nothing here prints or exits: 0 or a negative
 * SS_E* code with the message set.
 */
#ifndef SS_RUN_WHERE_LOOKUP_H
#define SS_RUN_WHERE_LOOKUP_H

#include <stdint.h>

#include "index/index.h"
#include "util/strbuf.h"

/*
 * The index db (NULL: repo's default, repo NULL: ".") opened to read
 * into *out, as it was at as_of (0: today), its path into *path
 * (malloc'd, the caller's); given repo, the index must be that
 * repository's.
 */
int ss_run_where_open(ss_index **out, char **path, const char *db, const char *repo,
		      int64_t as_of);

typedef enum {
	SS_RUN_WHERE_COMMIT = 1,   /* *p set: release with ss_index_place_release() */
	SS_RUN_WHERE_TAG = 2       /* *t set: release with ss_index_tag_place_release() */
} ss_run_where_kind;

/*
 * What arg names in ix (at path): an id (a full or abbreviated one)
 * first, and a name that is no indexed id may be a release tag.  <0 with
 * the message set ("unknown commit ..." for an id neither knows).
 */
int ss_run_where_lookup(ss_run_where_kind *kind, ss_index_place *p, ss_index_tag_place *t,
			ss_index *ix, const char *path, const char *arg);

/*
 * The stable branches of ix that fork from the mainline after t's
 * commit, asked of the repository at repo (opened once for the call),
 * added to out as "a, b"; *unknown 1 when the repository could not
 * tell.  0, or < 0 when ix's refs cannot be read.
 */
int ss_run_where_forked(ss_strbuf *out, int *unknown, ss_index *ix, const ss_index_tag_place *t,
			const char *repo);

#endif
