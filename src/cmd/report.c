/*
 * report.c - "stablesel report": a ranking as one self-contained HTML
 * page (rank/report.h): the model's summary, a precision-recall curve when
 * labels are given, and the ranked commits, each opening to its reasons,
 * precedents, message and (capped) diff.
 *
 * Commits stream through the model as for "stablesel rank"; each row keeps
 * its message and at most --diff-lines diff lines, so that whole histories
 * fit in memory and the page stays quick.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rank/report.h"
#include "rank/rank.h"
#include "util/atomic.h"
#include "util/error.h"

static const char usage[] =
	"stablesel report [--model MODEL] [SOURCE...] [--repo PATH] [--rev REV...] -o FILE.html\n"
	"                 [--history SOURCE...] [--releases FILE] [--release-tags GLOB]\n"
	"                 [--since DATE] [--mask-stable-tags]\n"
	"                 [--labels FILE [--label-column C]] [--stable SOURCE] [--policy FILE]\n"
	"                 [--min-age DAYS] [--now DATE] [--untagged-only] [--top N] [--min-score P]\n"
	"                 [--budget N] [--threshold T] [--diffs N] [--diff-lines N] [--title TEXT]";

int cmd_report(int argc, const char **argv)
{
	ss_report_options ro = SS_REPORT_OPTIONS_INIT;
	const char *specs[256], *output = NULL;
	char sources[1024] = "";
	int nspecs = 0, a;
	cli_source_args src;
	cli_ranking k;
	ss_atomic *out;

	cli_ranking_init(&k);
	cli_source_args_init(&src);
	for (a = 1; a < argc; a++) {
		const char *arg = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;

		if (cli_source_arg(&src, argc, argv, &a, usage) || cli_ranking_flag(&k, arg))
			continue;
		if (!strcmp(arg, "-h") || !strcmp(arg, "--help"))
			usage_die(usage, NULL);
		if (arg[0] != '-' || !strcmp(arg, "-")) {
			if (nspecs == 256)
				usage_die(usage, "too many sources");
			specs[nspecs++] = arg;
			snprintf(sources + strlen(sources), sizeof(sources) - strlen(sources), "%s%s",
				 nspecs > 1 ? " " : "", arg);
			continue;
		}
		if (!val)
			usage_die(usage, "unknown option '%s' or missing value", arg);
		a++;
		if (cli_ranking_arg(&k, arg, val, usage))
			continue;
		if (!strcmp(arg, "--diffs"))
			ro.diffs = cli_parse_count(usage, arg, val, 0, SIZE_MAX); /* 0: all */
		else if (!strcmp(arg, "--diff-lines"))
			k.ko.diff_cap = cli_parse_count(usage, arg, val, 0, SIZE_MAX); /* 0: no cap */
		else if (!strcmp(arg, "--title"))
			ro.title = val;
		else if (!strcmp(arg, "-o") || !strcmp(arg, "--output"))
			output = val;
		else
			usage_die(usage, "unknown option '%s'", arg);
	}
	if (!output)
		usage_die(usage, "name the page with -o FILE.html");
	out = cli_output_open(output);
	cli_ranking_load(&k);
	k.ko.keep = SS_RANK_KEEP_DETAILS;
	k.ko.explain_all = 1;
	ro.sources = nspecs ? sources : src.repo;
	cli_ranking_run(&k, &src, specs, nspecs, usage);
	if (ss_report_write(ss_atomic_file(out), k.r, k.m, &ro)) {
		ss_atomic_abort(out);
		die("%s", ss_error_last());
	}
	cli_output_commit(out, cli_ranking_rows(&k, 0), "commits");
	cli_ranking_free(&k);
	return 0;
}
