/*
 * commits.c - reading the commits of a run's sources (commits.h).  Moved
 * from cmd/common.c (iterate, every source in turn, the history's skipped
 * commits, the revisions of cli_history_source, now ss_run_history_fill's),
 * which kept the options and the exits (now cli/option_groups.c).
 */
#include "run/commits.h"

#include <stdio.h>
#include <string.h>

#include "util/error.h"

/* What one read hands its callbacks. */
struct reading {
	size_t *n;
	const char *spec;
	ss_run_commit_fn fn;
	void *data;
	ss_run_skips *skips;
	const ss_run_report *rp;
};

/* A commit counted, shown and handed on; the caller's non-zero stops
 * the read, which still succeeds (STOP). */
#define STOP 1

static int read_one(ss_commit *c, void *ud)
{
	struct reading *r = ud;

	++*r->n;
	ss_run_progress(r->rp, r->spec, *r->n, 0);
	return r->fn(c, r->data) ? STOP : 0;
}

/* A message skipped: counted (a history's, said once at the end) or
 * said now. */
static int skipped(void *ud)
{
	struct reading *r = ud;

	if (r->skips) {
		if (!r->skips->n++)
			snprintf(r->skips->first, sizeof(r->skips->first), "%s", ss_error_last());
	} else {
		ss_run_say(r->rp, SS_RUN_ERROR, "%s", ss_error_last());
	}
	return 0;
}

int ss_run_read_commits(size_t *n, const char *spec, const ss_source_options *opts,
			ss_run_commit_fn fn, void *data, ss_run_skips *skips,
			const ss_run_report *rp)
{
	struct reading r = { n, spec, fn, data, skips, rp };
	ss_source *src;
	int rc;

	*n = 0;
	if ((rc = ss_source_open(&src, spec, opts)))
		return rc;
	rc = ss_source_each(src, read_one, skipped, &r);
	if (ss_source_stats_get(src)->older)
		ss_run_say(rp, SS_RUN_INFO, "%zu older commits of '%s' were not read: only the newest "
			   "%zu of its walk (merges included)", ss_source_stats_get(src)->older, spec,
			   opts->newest);
	ss_source_free(src);
	return rc == STOP ? 0 : rc;
}

int ss_run_read_sources(size_t *n, const char *repo, const char *const *specs, size_t nspecs,
			const ss_source_options *opts, ss_run_commit_fn fn, void *data,
			ss_run_skips *skips, const ss_run_report *rp)
{
	size_t one;
	int rc;

	*n = 0;
	if (!nspecs)
		return ss_run_read_commits(n, repo, opts, fn, data, skips, rp);
	for (size_t i = 0; i < nspecs; i++) {
		if ((rc = ss_run_read_commits(&one, specs[i], opts, fn, data, skips, rp)))
			return rc;
		*n += one;
	}
	return 0;
}

void ss_run_skips_say(const ss_run_skips *skips, const ss_run_report *rp)
{
	if (skips->n)
		ss_run_say(rp, SS_RUN_WARNING, "%zu commits of the history could not be read and are "
			   "left out (first: %s)", skips->n, skips->first);
}

size_t ss_run_history_bottoms(char (*bottom)[256], size_t max, const char *const *revs,
			      size_t nrevs)
{
	size_t i, n = 0;

	for (i = 0; i < nrevs && n < max; i++) {
		const char *r = revs[i], *dots = strstr(r, "..");

		if (r[0] == '^')
			snprintf(bottom[n], sizeof(bottom[n]), "%s", r + 1);
		else if (dots && dots != r && dots[2] != '.')
			snprintf(bottom[n], sizeof(bottom[n]), "%.*s", (int)(dots - r), r);
		else
			continue;
		n++;
	}
	return n;
}

size_t ss_run_history_revs(const char **out, char (*bottom)[256], size_t max,
			   const char *const *hrevs, size_t nhrevs, const char *const *revs,
			   size_t nrevs)
{
	size_t i, n;

	if (nhrevs) {
		for (i = 0; i < nhrevs && i < max; i++)
			out[i] = hrevs[i];
		return i;
	}
	n = ss_run_history_bottoms(bottom, max, revs, nrevs);
	for (i = 0; i < n; i++)
		out[i] = bottom[i];
	return n;
}
