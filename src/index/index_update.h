/*
 * index_update.h - what the updates of the index share (internal): the
 * updater and its writes (index_update.c), the releases' plan
 * (index_releases.c); used by index_git.c and index_mail.c.
 *
 * Commit rows are written once (INSERT OR IGNORE semantics: a commit read
 * again after an interrupted update keeps its first row), so an update
 * that walks a ref again is harmless.  Derived facts (Fixes: targets,
 * patch-id backports, first releases) are recomputed by set-wise SQL at
 * the end of each update, which makes an incremental update and a fresh
 * build write the same rows.  What could refuse an update (a commit the
 * walk of a moved ref or of the mainline releases cannot take, a releases
 * file) is read before its first batch, so a refused update writes
 * nothing.
 */
#ifndef SS_INDEX_UPDATE_H
#define SS_INDEX_UPDATE_H

#include <stddef.h>

#include <sqlite3.h>

#include "commit/commit.h"
#include "history/histidx.h"
#include "index/index.h"
#include "index/index_impl.h"
#include "labels/layout.h"
#include "labels/upstream.h"
#include "source/source.h"

/* The statements an updater prepares (ss_index_stmt_sql[ST_*]). */
enum {
	ST_HAS_COMMIT, ST_SET_MAINLINE, ST_COMMIT, ST_TRAILER, ST_FILE,
	ST_BRANCH_COMMIT, ST_BACKPORT, ST_NSTMT
};
extern const char *const ss_index_stmt_sql[ST_NSTMT];

/* One update's state; the caller prepares st[] and finalizes them. */
struct updater {
	ss_index *ix;
	const ss_index_options *opts;
	ss_index_stats *stats;
	sqlite3_stmt *st[ST_NSTMT];
	ss_upstream *up;
	const ss_layout *layout;
	ss_repo *repo;    /* opts->repo, opened once for the update's lookups
			   * (NULL when it cannot be: they go by path, as
			   * before, and fail as they did) */
	size_t in_batch;  /* commits written in the open transaction */
	size_t done;      /* commits read in this update */
	int pending;      /* 1: meta "pending" goes in with the next batch,
			   * 2: it is in (see ss_index_done_sql) */
	int last_skipped; /* ss_index_write_source: its last message was skipped (SS_ESKIP) */
	sqlite3_stmt *missing; /* records a commit with a missing blob (git
				* updates; NULL: not recorded) */
	sqlite3_stmt *part;    /* writes a mainline commit's feature part
				* (opts->part; index_git.c), NULL: none */
	ss_strbuf partbuf;
};

/*
 * Commits indexed while a blob of theirs was missing from the object
 * store (a blob-less partial clone: their files unreadable, no patch id),
 * one row each, made by the first git update that needs it (an index
 * made before has none: nothing to revisit).  Each git update reads them
 * again (index_git.c) and completes those whose blobs are there now.
 */
extern const char *const ss_index_missing_sql;

/*
 * The releases of an update, read before anything is written: the
 * releases (tags or --releases), whether the table holds them already,
 * and the mainline releases with their graph when the update needs it
 * (NULL when neither the releases nor any ref moved).
 */
struct rel_plan {
	ss_releases *rel;
	ss_releases *mr;
	int same;
};

/* Derived facts, recomputed set-wise at the end of every update, and
 * what an update that finished clears (index_update.c). */
extern const char *const ss_index_derive_sql;
extern const char *const ss_index_done_sql;

/* Step st, which returns no row, then reset it and clear its bindings. */
int ss_index_step_done(struct updater *u, sqlite3_stmt *st);

/* Record commit c (its row, trailers and files) once; mainline marks a
 * commit read again from the mainline as mainline. */
int ss_index_add_commit(struct updater *u, const ss_commit *c, int mainline);

/* Record c's files, and c in missing_blobs when one of them could not be
 * read and u->missing is set. */
int ss_index_add_files(struct updater *u, const ss_commit *c);

/* Open, commit, roll back the transaction of a batch. */
int ss_index_begin(struct updater *u);
int ss_index_commit_tx(struct updater *u);
void ss_index_rollback(struct updater *u);

/* The tip recorded for ref name ("" when none) and its kind; record one. */
int ss_index_ref_get(ss_index *ix, const char *name, char tip[41], char kind[16]);
int ss_index_ref_set(ss_index *ix, const char *name, const char *tip, const char *kind);

/* Write the commits of src through add, in batches (index_update.c). */
int ss_index_write_source(struct updater *u, ss_source *src, size_t skip, size_t *seen,
			  const char *what, int (*add)(struct updater *, const ss_commit *, void *),
			  void *ctx);

/* The releases (index_releases.c): read before the first batch (plan),
 * written after the last one; the table replaced in the open transaction;
 * its rows counted. */
int ss_index_plan_releases(struct updater *u, struct rel_plan *p, int moved);
int ss_index_write_releases(struct updater *u, const struct rel_plan *p);
void ss_index_plan_free(struct rel_plan *p);
int ss_index_replace_releases(struct updater *u, const ss_releases *rel);
int ss_index_count_releases(ss_index *ix, size_t *out);

#endif
