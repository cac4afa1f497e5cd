/*
 * origin_history.h - what "origin" reads before it explains a commit, for any
 * front end (cmd/origin.c prints): the history its Fixes: and reverts are
 * resolved against, and a commit read from the repository with its diff
 * for blame.
 *
 * Nothing here prints or exits: 0 or a negative SS_* code with the
 * message set (util/error.h); one commit that cannot be explained is
 * SS_ESKIP (its message set, the run goes on), anything else stops it.
 */
#ifndef SS_RUN_ORIGIN_HISTORY_H
#define SS_RUN_ORIGIN_HISTORY_H

#include "history/histidx.h"
#include "index/index.h"
#include "run/run.h"
#include "source/source.h"

/*
 * A new history index into *out (the caller frees it with
 * ss_histidx_free()), the repository at repo attached (NULL: none, no
 * blame): rh when not NULL (repo open already, a run's: a reference is
 * taken), else repo opened.
 */
int ss_run_origin_history(ss_histidx **out, const char *repo, ss_repo *rh);

/* Every commit of the project index ix known to h as a target; path
 * names ix in the message when reading it fails. */
int ss_run_origin_known(ss_histidx *h, ss_index *ix, const char *path);

/*
 * The commit rev of the repository at repo, read alone through a git
 * source with opts (its diff too when opts asks: blame needs it) into
 * *out, which the caller owns.  SS_ESKIP when rev names no commit of h,
 * names a merge (it fixes nothing itself) or cannot be read; a message
 * the source skips on the way is said through rp (SS_RUN_ERROR).
 */
int ss_run_origin_commit(ss_commit **out, ss_histidx *h, const char *repo,
			 const ss_source_options *opts, const char *rev, const ss_run_report *rp);

#endif
