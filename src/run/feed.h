/*
 * feed.h - one commit of a run's batch through the steps that read it:
 * the ranking (scored, or history only), the stable branches' verdicts
 * and the history later commits are scored against, in that order.
 */
#ifndef SS_RUN_FEED_H
#define SS_RUN_FEED_H

#include <stdint.h>

#include "commit/commit.h"
#include "features/history.h"
#include "rank/rank.h"
#include "run/branches.h"

/*
 * Whether c is history only: authored before since (0: every commit is
 * ranked).  The history a batch reads first (--history) is fed with
 * since INT64_MAX: every commit of it is history only.
 */
int ss_run_history_only(const ss_commit *c, int64_t since);

/*
 * Feed c (upstream order; the caller keeps and frees it): into r with
 * hist (history only as ss_run_history_only says), then, when it is
 * ranked, to the branches br (NULL: none), then into hist.  0 or < 0
 * with the message set ("cannot rank ID: ...", the branch's check, or
 * "out of memory").
 */
int ss_run_feed(ss_ranking *r, ss_history *hist, ss_run_branches *br, const ss_commit *c,
		int64_t since);

#endif
