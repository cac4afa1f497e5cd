/*
 * label.c - "stablesel label": upstream commits a stable tree carries.
 *
 * Writes a TSV "sha in_stable stable_branches" (one row per upstream sha
 * named by a backport) that "train --labels" takes.
 */
#include <string.h>

#include "builtin.h"
#include "labels/backports.h"
#include "util/atomic.h"
#include "util/error.h"

static const char *const label_usage[] = {
	"stablesel label --stable SOURCE [options]",
	"stablesel label --db FILE | --index --stable REPO",
	"",
	"Reads the stable tree (its branches, or an mbox of its patches) and writes",
	"a TSV \"sha in_stable stable_branches\": one row per upstream commit a",
	"backport names (\"commit SHA upstream.\", \"(cherry picked from commit",
	"SHA)\" or an --upstream-pattern), the input of \"stablesel train --labels\".",
	"With --db FILE or --index, the rows come from the project index instead",
	"(\"stablesel index\"), with the backports it found by equal patch ids too.",
	NULL
};

int cmd_label(int argc, const char **argv, const struct cli_context *ctx)
{
	ss_backports_options opts = SS_BACKPORTS_OPTIONS_INIT;
	const char *patterns[32], *stable[32], *output = "-";
	size_t nstable = 0, skipped = 0, i;
	const char *db = NULL;
	int use_index = 0;
	struct cli_option options[] = {
		CLI_GROUP("Stable tree (--releases names an mbox's series by date; --db reads the backports from that project index)"),
		CLI_OPT_STABLE(stable, &nstable),
		CLI_OPT_BRANCHES(&opts.branches, "all but the mainline"),
		CLI_STRING(0, "upstream-ref", &opts.upstream_ref, "REF",
			   "the mainline ref the stable branches fork from (default: HEAD)"),
		CLI_STRLIST("upstream-pattern", patterns, &opts.npatterns, "REGEX",
			    "a regex whose first group is the upstream sha of a backport"),
		CLI_OPT_RELEASES(&opts.releases),
		CLI_OPT_DB(&db),
		CLI_FLAG(0, "index", &use_index,
			 "read the backports from the project index of the --stable repository"),
		CLI_GROUP("Output"),
		CLI_OUTPUT(&output, "write the labels to FILE (default: stdout)"),
		CLI_END(),
	};
	ss_atomic *out;
	ss_backports *l;

	opts.patterns = patterns;
	if (cli_parse_options(ctx, argc, argv, options, label_usage))
		usage_die("unexpected argument '%s'", argv[0]);
	if (use_index && nstable != 1)
		usage_die("--index reads the index of one --stable repository");
	if (!nstable && !db)
		usage_die("--stable SOURCE or --db FILE is required");
	out = cli_output_open(output);
	if (ss_backports_new(&l, &opts))
		die("%s", ss_error_last());
	if (db || use_index) {
		if (!cli_backports_from_index(l, NULL, db, use_index ? stable[0] : NULL, 0, NULL))
			die("no project index for '%s' (build it with 'stablesel index --repo %s')",
			    stable[0], stable[0]);
		nstable = 0;
	}
	for (i = 0; i < nstable; i++) {
		size_t before = skipped;

		if (ss_backports_read(l, stable[i], &skipped))
			die("%s", ss_error_last());
		if (skipped > before)
			error("%zu malformed messages skipped in '%s' (first: %s)",
			      skipped - before, stable[i], ss_error_last());
	}
	if (ss_backports_write(l, ss_atomic_file(out))) {
		ss_atomic_abort(out);
		die("%s", ss_error_last());
	}
	cli_output_commit(out, ss_backports_count(l), "labels");
	ss_backports_free(l);
	return 0;
}
