/*
 * feed.c - one commit of a run's batch through the ranking, the stable
 * branches and the history (feed.h).  Moved from cmd/rank_report.c
 * (feed_one); the reading and the progress are run/rank_stream.c's.
 */
#include "run/feed.h"

#include "util/error.h"

int ss_run_history_only(const ss_commit *c, int64_t since)
{
	return since && c->author.time < since;
}

int ss_run_feed(ss_ranking *r, ss_history *hist, ss_run_branches *br, const ss_commit *c,
		int64_t since)
{
	int history_only = ss_run_history_only(c, since);
	int rc;

	if ((rc = ss_ranking_feed(r, c, hist, history_only)))
		return ss_run_fail(rc, "cannot rank %s", c->id);
	if (!history_only && (rc = ss_run_branches_add(br, c)))
		return rc;
	if (ss_history_add(hist, c))
		return ss_error_code(SS_ENOMEM, "out of memory");
	return 0;
}
