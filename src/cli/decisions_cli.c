/*
 * decisions_cli.c - what mark, status and review share, and the rank/report
 * hook that has run/decisions.c apply the review decisions to a ranking
 * (decisions_cli.h; docs/review.md).  One concept, the review decisions,
 * split across three floors: kept in the index (index/index_decisions.c),
 * opened, named and applied to a ranking (run/decisions_open.c,
 * run/decisions.c), died on and printed here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decisions_cli.h"
#include "run/decisions.h"
#include "run/decisions_open.h"
#include "util/error.h"
#include "util/strbuf.h"

ss_index *cli_decisions_open(const char *db, const char *repo, int write, char **path,
			     ss_run *run)
{
	ss_index *ix;

	if (ss_run_decisions_open(&ix, path, db, repo, write, run))
		die("%s", ss_error_last());
	return ix;
}

void cli_decisions_fail(int rc)
{
	if (rc == SS_ENOTFOUND || rc == SS_EINVALID)
		usage_die("%s", ss_error_last());
	die("%s", ss_error_last());
}

size_t cli_decision_branches(char **out, size_t max, ss_index *ix, const char *path,
			     const char *repo, const char *const *named, size_t n)
{
	size_t kept;
	int rc = ss_run_decision_branches(out, &kept, max, ix, path, repo, named, n,
					  cli_run_report());

	if (rc)
		cli_decisions_fail(rc);
	return kept;
}

int cli_decision_commit(char out[41], ss_index *ix, const char *repo, const char *arg)
{
	if (!ss_run_decision_commit(out, ix, repo, arg))
		return 0;
	error("%s", ss_error_last());
	return -1;
}

/* t (UTC) as fmt says into buf (size bytes), "?" when it is no time. */
static const char *utc(char *buf, size_t size, const char *fmt, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	snprintf(buf, size, "?");
	if (gmtime_r(&tt, &tm))
		strftime(buf, size, fmt, &tm);
	return buf;
}

const char *cli_decision_date(char buf[16], int64_t t)
{
	return utc(buf, 16, "%Y-%m-%d", t);
}

const char *cli_decision_time(char buf[32], int64_t t)
{
	return utc(buf, 32, "%Y-%m-%d %H:%M:%S", t);
}

const char *cli_escaped(ss_strbuf *sb, const char *s)
{
	ss_strbuf_reset(sb);
	if (ss_strbuf_add_escaped(sb, s))
		die("out of memory");
	return sb->buf;
}

const char *cli_decisions_word(size_t n)
{
	return n == 1 ? "decision" : "decisions";
}
