/*
 * index_open.h - the project index as a run reads it: which file (--db,
 * else the repository's own), checked to be that repository's, how fresh
 * it is against the repository, and what a run takes from it (the
 * history and releases a ranking scores against, the backports of the
 * stable branches).
 */
#ifndef SS_RUN_INDEX_OPEN_H
#define SS_RUN_INDEX_OPEN_H

#include "features/history.h"
#include "index/index.h"
#include "labels/backports.h"
#include "run/releases.h"
#include "run/run.h"

/*
 * In each function below, rh is NULL or the repository at repo already
 * open (a run's, run.h: ss_run_repo), read instead of opening repo again.
 */

/*
 * Open db, else repo's default index (ss_index_default_path), for
 * reading, into *out and its path (malloc'd) into *path.  *out NULL and
 * 0 when db is NULL and repo is NULL, is no repository, or has no index
 * (then *missing is 1).  A damaged index, a db that does not exist or
 * another repository's index: < 0 with the message set.  A run opens it
 * once through ss_run_index() (run.h).
 */
int ss_run_index_open(ss_index **out, char **path, int *missing, const char *db, const char *repo,
		      ss_repo *rh);

/*
 * Say through rp (as a note) that repo has no project index, what a run
 * reads instead and how to build it: the words of a missing default
 * index (ss_run_index_open's *missing), said whole; once a run
 * (run.h: ss_run_index_read) or, without a run, once as the front end
 * chooses.
 */
void ss_run_index_missing_say(const char *repo, const ss_run_report *rp);

/*
 * When repo's mainline moved past what ix (read from path) read, a
 * warning through rp naming the command that updates it (the commits
 * since are still scored, but the index lacks them as history).
 * Nothing when either tip cannot be read.
 */
void ss_run_index_freshness(ss_index *ix, const char *path, const char *repo, ss_repo *rh,
			    const ss_run_report *rp);

/*
 * Prime h from ix (read from path): the commits and paths it knows, and
 * its releases when ask names none (run/releases.h); then, repo given,
 * the freshness warning through rp.  0 or < 0 with the message set.
 */
int ss_run_history_from_index(ss_history *h, ss_index *ix, const char *path,
			      const ss_releases_ask *ask, const char *repo, ss_repo *rh,
			      const ss_run_report *rp);

/* Add ix's backports (read from path) into l.  0 or < 0. */
int ss_run_backports_from_index(ss_backports *l, ss_index *ix, const char *path);

/*
 * Add the backports of the project index db (else repo's default; as
 * it was at as_of when not 0; run, which may be NULL, lends it:
 * run.h's ss_run_index) into l: *read 1 and *path (may be NULL) the
 * index's path (malloc'd) when there is one, else *read 0 and *path
 * NULL.  0 or < 0 with the message set.
 */
struct ss_run;
int ss_run_backports_index(int *read, char **path, ss_backports *l, struct ss_run *run,
			   const char *db, const char *repo, int64_t as_of);

#endif
