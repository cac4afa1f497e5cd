/*
 * commits.c - reading the commits of a run's sources (commits.h).  Moved
 * from cmd/common.c (iterate, the history's skipped commits, the bottoms
 * of cli_history_source), which keeps the options and the exits.
 */
#include "run/commits.h"

#include <stdio.h>
#include <string.h>

#include "util/error.h"

int ss_run_read_commits(size_t *n, const char *spec, const ss_source_options *opts,
			ss_run_commit_fn fn, void *data, ss_run_skips *skips,
			const ss_run_report *rp)
{
	ss_source *src;
	ss_commit *c;
	int rc;

	*n = 0;
	if ((rc = ss_source_open(&src, spec, opts)))
		return rc;
	for (;;) {
		rc = ss_source_next(&c, src);
		if (rc == SS_ITEROVER) {
			rc = 0;
			break;
		}
		if (rc == SS_ESKIP && skips) {
			if (!skips->n++)
				snprintf(skips->first, sizeof(skips->first), "%s", ss_error_last());
			continue;
		}
		if (rc == SS_ESKIP) {
			ss_run_say(rp, SS_RUN_ERROR, "%s", ss_error_last());
			continue;
		}
		if (rc)
			break;
		++*n;
		ss_run_progress(rp, spec, *n, 0);
		if (fn(c, data))
			break;
	}
	ss_source_free(src);
	return rc;
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
