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

#include "cli.h"
#include "rank/rank.h"
#include "util/atomic.h"
#include "util/error.h"

static const char usage[] =
	"stablesel rank [--model MODEL] [SOURCE...] [--repo PATH] [--rev REV...]\n"
	"               [--history SOURCE...] [--releases FILE] [--release-tags GLOB]\n"
	"               [--mask-stable-tags] [--top N] [--min-score P]\n"
	"               [--since DATE] [--budget N] [--untagged-only] [--min-age DAYS] [--now DATE]\n"
	"               [--policy FILE] [--stable SOURCE] [--labels FILE [--label-column C]]\n"
	"               [--threshold T] [--reasons N] [--precedents N] [--branch NAME] [--no-color]\n"
	"               [--format text|tsv|csv|json|mbox] [-o FILE]";

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

static ss_rank_format parse_format(const char *val)
{
	static const char *const names[] = { "text", "tsv", "json", "csv", "mbox" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(val, names[i]))
			return (ss_rank_format)i;
	usage_die(usage, "--format is text, tsv, csv, json or mbox, not '%s'", val);
}

int cmd_rank(int argc, const char **argv)
{
	ss_rank_write_options wo = SS_RANK_WRITE_OPTIONS_INIT;
	const char *specs[256], *output = "-";
	int nspecs = 0, a, no_color = 0;
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
			continue;
		}
		if (!strcmp(arg, "--no-color")) {
			no_color = 1;
			continue;
		}
		if (!val)
			usage_die(usage, "unknown option '%s' or missing value", arg);
		a++;
		if (cli_ranking_arg(&k, arg, val, usage))
			continue;
		if (!strcmp(arg, "--reasons"))
			k.ko.nreasons = cli_parse_count(usage, arg, val, 0, SS_RANK_MAX_REASONS);
		else if (!strcmp(arg, "--precedents"))
			wo.precedents = cli_parse_count(usage, arg, val, 0, SS_RANK_MAX_PRECEDENTS);
		else if (!strcmp(arg, "--branch"))
			wo.branch = val;
		else if (!strcmp(arg, "--format"))
			wo.format = parse_format(val);
		else if (!strcmp(arg, "-o") || !strcmp(arg, "--output"))
			output = val;
		else
			usage_die(usage, "unknown option '%s'", arg);
	}
	out = cli_output_open(output);
	cli_ranking_load(&k);
	wo.color = !no_color && wo.format == SS_RANK_TEXT && !strcmp(output, "-") && isatty(1);
	k.ko.keep = wo.format == SS_RANK_MBOX ? SS_RANK_KEEP_PATCH : SS_RANK_KEEP_NONE;
	k.ko.precedents = wo.precedents > 0 && wo.format != SS_RANK_MBOX;
	cli_ranking_run(&k, &src, specs, nspecs, usage);
	if (wo.format == SS_RANK_MBOX)
		check_patches(k.r);
	if (ss_ranking_write(k.r, ss_atomic_file(out), &wo, k.m)) {
		ss_atomic_abort(out);
		die("%s", ss_error_last());
	}
	cli_output_commit(out, cli_ranking_rows(&k, wo.format == SS_RANK_MBOX), "commits");
	cli_ranking_free(&k);
	return 0;
}
