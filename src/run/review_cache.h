/*
 * review_cache.h - a review's ranking kept for the next start
 * (docs/review.md, "A second start").  Ranking a release's commits with
 * verdicts takes most of a review's start (13.6 s on ../shared's DPDK); a maintainer
 * quits and starts again many times in a week while nothing it depends on
 * moved.  The candidates as the review shows them (rank/review_loop.h's items,
 * every string) are written beside the index, under a key: a hash of the
 * index's state (ss_index_state_hash: what updates wrote, decisions left
 * out), the model files (the --model file, the project model kept beside
 * the index), the repository's refs (HEAD, packed-refs, the refs folders)
 * and the command line with its folder.  The next start with the same key
 * reads them back instead of ranking again.
 *
 * Decisions change between two starts without changing the key: a start
 * that reuses the candidates leaves out those decided since for every
 * session branch (ss_review_cache_decided()); a row hidden as decided
 * when the ranking was made that is undecided now (a decision reset, a
 * deferral ended) makes the kept ranking stale: it is ranked again.
 */
#ifndef SS_RUN_REVIEW_CACHE_H
#define SS_RUN_REVIEW_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "index/index.h"
#include "rank/review_loop.h"

/* A key: 16 hex digits and a NUL. */
typedef char ss_review_cache_key[17];

/* What is kept; every pointer borrowed (save) or the cache's (load). */
typedef struct {
	const ss_review_item *items;  /* the candidates, best first */
	size_t n;
	const char *const *branches;  /* the session's branches */
	size_t nbranches;
	const char *const *hidden;    /* ids hidden as decided when it was made */
	size_t nhidden;
	int64_t made;                 /* when it was made (seconds since the epoch) */
} ss_review_cache_data;

typedef struct ss_review_cache ss_review_cache;

/*
 * The key of a start: ix's state, the files beside index_path (the
 * project model, the repository's refs: index_path is
 * <gitdir>/stablesel/index.db, or --db's file, whose folder is looked
 * at alone), model (the --model file, NULL: none) and parts[0..n) (the
 * command line, its folder).  A file that is missing counts as missing.
 * 0 or < 0 with the message set.
 */
int ss_review_cache_key_of(ss_review_cache_key out, ss_index *ix, const char *index_path,
			   const char *model, const char *const *parts, size_t n);

/* Where the ranking kept beside index_path lives (malloc'd):
 * "<folder of the index>/review-ranking". */
int ss_review_cache_path(char **out, const char *index_path);

/* Write d under key to path (util/atomic.h: all or nothing).  0 or < 0
 * with the message set. */
int ss_review_cache_save(const char *path, const ss_review_cache_key key,
			 const ss_review_cache_data *d);

/*
 * Read what path keeps under key: 0 and *out (free with
 * ss_review_cache_free); SS_ENOTFOUND (no message needed) when there is
 * none, it was kept under another key, or the file is not one this
 * version wrote.
 */
int ss_review_cache_load(ss_review_cache **out, const char *path, const ss_review_cache_key key);
const ss_review_cache_data *ss_review_cache_get(const ss_review_cache *c);
void ss_review_cache_free(ss_review_cache *c); /* NULL is a no-op */

/* *out: whether commit id has a decision that holds at now for each of
 * branches[0..nb) (nb 0: never), as rank hides a row decided
 * everywhere. */
int ss_review_cache_decided(int *out, ss_index *ix, const char *id, const char *const *branches,
			    size_t nb, int64_t now);

#endif
