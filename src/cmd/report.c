/*
 * report.c - "stablesel report": a ranking as one self-contained HTML
 * page (rank/report_html.h): the model's summary, a precision-recall curve when
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

#include "builtin.h"
#include "rank/report_html.h"
#include "rank/rank.h"
#include "util/atomic.h"
#include "util/error.h"

static const char *const report_usage[] = {
	"stablesel report [options] [SOURCE...] -o FILE.html",
	"",
	"Ranks the commits as \"stablesel rank\" does and writes one self-contained",
	"HTML page: the model's summary, a precision-recall curve when labels are",
	"given, and the ranked commits, each opening to its reasons, precedents,",
	"message and diff.",
	NULL
};

int cmd_report(int argc, const char **argv, const struct cli_context *ctx)
{
	ss_report_options ro = SS_REPORT_OPTIONS_INIT;
	const char *output = NULL;
	char sources[1024] = "";
	int nspecs, a;
	cli_source_args src;
	cli_ranking k;
	struct cli_option options[] = {
		CLI_INCLUDE(k.options),
		CLI_INCLUDE(src.options),
		CLI_GROUP("Output"),
		CLI_COUNT("diffs", &ro.diffs, "N", 0, CLI_NO_MAX, "show the diffs of the first N commits (0: all)"),
		CLI_COUNT("diff-lines", &k.ko.diff_cap, "N", 0, CLI_NO_MAX,
			  "keep at most N diff lines a commit (0: no cap)"),
		CLI_OPT_TITLE(&ro.title, "the page's title"),
		CLI_OUTPUT(&output, "write the page to FILE"),
		CLI_END(),
	};
	ss_atomic *out;

	cli_ranking_init(&k);
	cli_source_args_init(&src);
	k.cmd = "report";
	/* the page shows the decided commits too, each with its decisions
	 * ("accepted 21.11"): a maintainer reads what was accepted beside what
	 * is left; a commit rejected everywhere is listed but no pick */
	k.show_decided = 1;
	nspecs = cli_parse_options(ctx, argc, argv, options, report_usage);
	cli_source_default(&src, nspecs, "report", 1);
	for (a = 0; a < nspecs; a++)
		snprintf(sources + strlen(sources), sizeof(sources) - strlen(sources), "%s%s",
			 a ? " " : "", argv[a]);
	if (!output)
		usage_die("name the page with -o FILE.html");
	out = cli_output_open(output);
	cli_ranking_load(&k);
	k.ko.keep = SS_RANK_KEEP_DETAILS;
	k.ko.explain_all = 1;
	ro.sources = nspecs ? sources : src.repo;
	cli_ranking_run(&k, &src, argv, nspecs);
	if (ss_report_write(ss_atomic_file(out), k.st.r, k.st.m, &ro)) {
		ss_atomic_abort(out);
		die("%s", ss_error_last());
	}
	cli_output_commit(out, cli_ranking_rows(&k, 0), "commits");
	cli_ranking_free(&k);
	return 0;
}
