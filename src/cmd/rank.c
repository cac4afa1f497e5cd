/*
 * rank.c - "stablesel rank": commits ordered by how likely they belong in
 * stable, with what a reviewer acts on: flags, the features that raised
 * each pick's score, the kernel's stable rules, and precedents.
 *
 * Commits stream through the model and are freed; a ranking keeps one
 * small row each (and, for --format mbox, the message and diff of the
 * commits above the threshold).  Each commit is scored with the history of
 * the commits before it (Fixes: targets, releases, file ages);
 * --history SOURCE primes that history with older commits that are not
 * ranked themselves but serve as precedents; --since DATE does the same
 * with the commits of the sources authored before DATE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "rank/rank.h"
#include "util/atomic.h"
#include "util/error.h"

static const char *const rank_usage[] = {
	"stablesel rank [options] [SOURCE...]",
	"",
	"Scores each commit of the sources (or of --repo PATH) with the model,",
	"against the history of the commits before it, and lists them best first,",
	"each pick with its flags, the features that raised its score, the stable",
	"rules it meets and precedents.",
	NULL
};

/* Say what an mbox cannot carry: nothing proposed, binary files, diffs
 * read capped. */
static void check_patches(const ss_ranking *r)
{
	size_t i, picks = 0;

	for (i = 0; i < ss_ranking_count(r); i++) {
		ss_rank_row w;

		ss_ranking_row(&w, r, i);
		picks += w.pick;
		if (w.pick && (w.flags & (SS_RANK_BINARY | SS_RANK_TRUNCATED))) {
			warning("the patch of %.12s is incomplete (%s)", w.id,
				(w.flags & SS_RANK_BINARY) ? "binary files" : "diff read with --max-lines");
		}
	}
	if (!picks)
		warning("no commit proposed: the mbox is empty");
}

int cmd_rank(int argc, const char **argv, const struct cli_context *ctx)
{
	/* in the order of ss_rank_format */
	static const char *const formats[] = { "text", "tsv", "json", "csv", "mbox", NULL };
	ss_rank_write_options wo = SS_RANK_WRITE_OPTIONS_INIT;
	const char *output = "-";
	int nspecs, no_color = 0, format = SS_RANK_TEXT;
	cli_source_args src;
	cli_ranking k;
	struct cli_option options[] = {
		CLI_INCLUDE(k.options),
		CLI_INCLUDE(src.options),
		CLI_GROUP("Output"),
		CLI_OPT_FORMAT(&format, "text|tsv|csv|json|mbox", formats,
			   "the listing as text, TSV, CSV, JSON, or the picks as an mbox of patches"),
		CLI_COUNT("reasons", &k.ko.nreasons, "N", 0, SS_RANK_MAX_REASONS,
			  "show N reasons for each pick"),
		CLI_COUNT("precedents", &wo.precedents, "N", 0, SS_RANK_MAX_PRECEDENTS,
			  "show N earlier commits like each pick, and whether they reached stable"),
		CLI_STRING(0, "queue-branch", &wo.branch, "NAME",
			   "mbox: subjects \"[PATCH stablesel NAME n/m]\"; with --onto, the branch whose "
			   "queue is written, one of them (default: the first --onto)"),
		/* --branch is the decisions' branch (mark, status, review) */
		CLI_ALIAS(0, "branch", "queue-branch"),
		CLI_FLAG(0, "no-color", &no_color, "no colours, even on a terminal"),
		CLI_OUTPUT(&output, "write the ranking to FILE (default: stdout)"),
		CLI_END(),
	};
	ss_atomic *out;
	char backport[64];

	cli_ranking_init(&k);
	cli_source_args_init(&src);
	k.cmd = "rank";
	nspecs = cli_parse_options(ctx, argc, argv, options, rank_usage);
	cli_source_default(&src, nspecs, "rank", 1);
	wo.format = (ss_rank_format)format;
	out = cli_output_open(output);
	cli_ranking_load(&k);
	wo.color = !no_color && wo.format == SS_RANK_TEXT && !strcmp(output, "-") && isatty(1);
	k.ko.keep = wo.format == SS_RANK_MBOX ? SS_RANK_KEEP_PATCH : SS_RANK_KEEP_NONE;
	if (wo.format == SS_RANK_MBOX && k.st.on.n) {
		/* a queue takes prerequisites and follow-ups whatever they score */
		k.ko.keep = SS_RANK_KEEP_ALL;
		k.queue_extras = 1;
	}
	k.ko.precedents = wo.precedents > 0 && wo.format != SS_RANK_MBOX;
	k.queue_branch = wo.branch;
	cli_ranking_run(&k, &src, argv, nspecs);
	if (wo.format == SS_RANK_MBOX && k.st.on.n) {
		/* resolved once, before the ranking */
		wo.queue_branch = k.st.on.queue_b;
		ss_backport_line(backport, sizeof(backport), ss_carried_style(ss_run_branches_carried(k.st.on.br, wo.queue_branch)),
				 "%s");
		wo.backport_line = backport;
	}
	if (wo.format == SS_RANK_MBOX)
		check_patches(k.st.r);
	if (ss_ranking_write(k.st.r, ss_atomic_file(out), &wo, k.st.m)) {
		ss_atomic_abort(out);
		die("%s", ss_error_last());
	}
	cli_output_commit(out, cli_ranking_rows(&k, wo.format == SS_RANK_MBOX), "commits");
	cli_ranking_free(&k);
	return 0;
}
