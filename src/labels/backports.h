/*
 * backports.h - which upstream commits a stable tree carries, and on which
 * branches.
 *
 * The labeler reads the stable tree's commits and collects the upstream
 * shas their messages name (upstream.h).  Branch names come from the
 * repository's branches (git), or, for an mbox of format-patch series (one
 * series a branch, as ../shared/data/dpdk has), from the series' release
 * commits ("version: 21.11.1" or "Linux 6.6.12" give "21.11" and "6.6");
 * a series without one is named from the releases file by its commits'
 * median date, or "series-K" without it.
 */
#ifndef SS_LABEL_H
#define SS_LABEL_H

#include <stdio.h>

#include "commit/commit.h"
#include "source/source.h"

typedef struct ss_backports ss_backports;

typedef struct {
	const char *branches;       /* fnmatch glob of branches to read (NULL: all but upstream) */
	const char *upstream_ref;   /* the mainline ref stable branches fork from ("HEAD") */
	const char **patterns;      /* extra upstream-reference regexes (NULL) */
	size_t npatterns;           /* (0) */
	const char *releases;       /* "tag sha date" TSV for naming mbox series (NULL) */
} ss_backports_options;

#define SS_BACKPORTS_OPTIONS_INIT { NULL, "HEAD", NULL, 0, NULL }

int ss_backports_new(ss_backports **out, const ss_backports_options *opts);
void ss_backports_free(ss_backports *l); /* NULL is a no-op */

/*
 * Read a whole stable source: a repository (its branches matching the
 * glob, each walked from the branch down to the upstream ref) or an mbox.
 * Malformed mails are counted in *skipped (may be NULL) and the first
 * message is kept for ss_error_last(); fatal errors return < 0.
 */
int ss_backports_read(ss_backports *l, const char *spec, size_t *skipped);

/* Record one stable commit found on branch (NULL: name by series). */
int ss_backports_add(ss_backports *l, const ss_commit *c, const char *branch);

/*
 * Record that branch carries the upstream commit sha (40 hex digits), as
 * known elsewhere (a project index's backports).  SS_EINVALID, SS_ENOMEM.
 */
int ss_backports_add_known(ss_backports *l, const char *sha, const char *branch);

/* Number of distinct upstream commits found. */
size_t ss_backports_count(const ss_backports *l);

/* Comma-joined branches carrying sha, version-sorted, or NULL if none
 * (or out of memory); the string stays valid until ss_backports_free(). */
const char *ss_backports_branches(ss_backports *l, const char *sha);

/* Write "sha\tin_stable\tstable_branches" rows, in order of discovery. */
int ss_backports_write(ss_backports *l, FILE *f);

#endif
