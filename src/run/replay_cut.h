/*
 * replay_cut.h - an honest replay: ranking onto a stable branch set back
 * to an older point (a copy of 22.11 at v22.11.1) reads what the stable
 * branches carried at that point, not what the project index learnt
 * since (the flags, the precedents' labels, the rows' labels all come
 * from the index's backports table).
 */
#ifndef SS_RUN_REPLAY_CUT_H
#define SS_RUN_REPLAY_CUT_H

#include <stddef.h>
#include <stdint.h>

#include "index/index.h"
#include "labels/backports.h"
#include "run/run.h"

/*
 * When one of the branches onto[0..n) of repo is not index ix's ref at
 * its tip (set back, or a copy) and ix (read from path) holds backports
 * committed after the newest branch tip's committer time: *out is the
 * index's backports up to that time (new, the caller's), said once as a
 * note through rp.  Else *out is NULL (nothing to cut; a branch that
 * cannot be read is left to the branches' own reading).  0 or < 0 with
 * the message set.  rh: NULL, or repo open (a run's, borrowed), read
 * instead of opening repo again.
 */
int ss_run_replay_cut(ss_backports **out, ss_index *ix, const char *path, const char *repo,
		      ss_repo *rh, const char *const *onto, size_t n, const ss_run_report *rp);

/*
 * The clock a replay judges by (review decisions' deferrals): when one of
 * the branches onto[0..n) of repo is set back from index ix's ref (read
 * from path), the newest of their tips' committer times; else *out is 0
 * (no replay: today).  0 or < 0 with the message set.  rh as above.
 */
int ss_run_replay_clock(int64_t *out, ss_index *ix, const char *path, const char *repo,
			ss_repo *rh, const char *const *onto, size_t n);

#endif
