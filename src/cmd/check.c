/*
 * check.c - "stablesel check": each commit read checked against a stable
 * branch of a repository (check/check.h): does its patch apply to the
 * branch's tree, is the commit already in the branch, is the bug it fixes
 * in the branch at all.
 *
 * One TSV row per commit, for scripts and for piping rank's picks in
 * (`stablesel rank --format mbox ... | stablesel check --onto-repo R -`):
 *   commit  apply  path  hunk  needs  in_branch  bug  target  subject
 * apply is applies, conflict (path, hunk), missing (a changed file the
 * branch lacks), exists (an added file the branch has) or unknown
 * (binary, capped or no diff); needs (with --prereqs, for conflicts) the
 * commits to take first, comma-separated; bug is yes, no or unknown (no
 * Fixes: or revert target, or none of them in the repository).  With
 * --prereqs the branch's own commits are read first (labels/carried.h;
 * from the project index, --db or the repository's, when it recorded the
 * branch at its tip):
 * in_branch says "backport <id>" for a commit the branch carries under
 * another id, which is not blamed, and such commits are left out of
 * needs.  A count goes to stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "run/check_commits.h"
#include "util/atomic.h"
#include "util/error.h"

static const char *const check_usage[] = {
	"stablesel check --onto-repo PATH [options] [SOURCE...]",
	"",
	"Checks each commit of the sources (or of --repo PATH) against a stable",
	"branch of a repository: does its patch apply to the branch's tree, is it in",
	"the branch already, is the bug it fixes there at all.  Writes one TSV row a",
	"commit (commit apply path hunk needs in_branch bug target subject) and a",
	"count on stderr.",
	NULL
};

/* A TSV field: tabs and newlines would break the row. */
static void put_field(FILE *out, const char *s)
{
	for (; *s; s++)
		putc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, out);
}

/* One row of the TSV (run/check_commits.h: ss_run_check_fn). */
static int put_row(const ss_commit *c, const ss_check_result *res, void *ud)
{
	FILE *out = ud;

	fprintf(out, "%.12s\t%s\t", c->id, ss_apply_status_name(res->apply));
	put_field(out, res->path);
	fprintf(out, "\t%d\t", res->hunk);
	for (int k = 0; k < res->nneeds; k++)
		fprintf(out, "%s%.12s", k ? "," : "", res->needs[k]);
	if (res->carried_as[0])
		fprintf(out, "\tbackport %.12s", res->carried_as);
	else
		fprintf(out, "\t%s", res->in_branch ? "yes" : "no");
	fprintf(out, "\t%s\t%.12s\t",
	       res->bug_in_branch > 0 ? "yes" : res->bug_in_branch == 0 ? "no" : "unknown",
	       res->target);
	put_field(out, c->subject);
	putc('\n', out);
	return 0;
}

int cmd_check(int argc, const char **argv, const struct cli_context *ctx)
{
	ss_run_check_options co = SS_RUN_CHECK_OPTIONS_INIT;
	ss_run_check_counts n = { 0 };
	ss_run_check *rc = NULL;
	cli_source_args a;
	cli_index_args ixa;
	const char *onto_repo = NULL, *output = "-", *upstream = NULL, *onto[1];
	size_t nonto = 0;
	const ss_check *ck;
	ss_run *run = NULL;
	FILE *f;
	struct cli_option options[] = {
		CLI_GROUP("Stable branch (--onto: HEAD of --onto-repo unless named; --onto-upstream is read with --prereqs)"),
		CLI_OPT_ONTO_REPO(&onto_repo),
		CLI_OPT_ONTO(onto, &nonto),
		CLI_FLAG(0, "prereqs", &co.co.prereqs,
			 "for a conflict, the commits to take first (and which commits the branch "
			 "carries under another id)"),
		CLI_OPT_ONTO_UPSTREAM(&upstream),
		CLI_INCLUDE(a.options),
		CLI_INCLUDE(ixa.options),
		CLI_GROUP("Output"),
		CLI_OUTPUT(&output, "write the rows to FILE (default: stdout)"),
		CLI_END(),
	};
	ss_atomic *out;
	int nspecs;

	cli_source_args_init(&a);
	cli_index_args_init(&ixa);
	nspecs = cli_parse_options(ctx, argc, argv, options, check_usage);
	if (!onto_repo)
		onto_repo = cli_repo_here("check");
	if (!onto_repo)
		usage_die("--onto-repo is required (or run it in a repository)");
	if (nonto)
		co.co.rev = onto[0];
	if (!nspecs && !a.repo)
		usage_die("no SOURCE and no --repo: nothing to check");
	out = cli_output_open(output);
	/* the branch's repository and its index, opened once */
	if (ss_run_new(&run))
		die("%s", ss_error_last());
	co.onto_repo = onto_repo;
	co.upstream = upstream;
	co.db = ixa.db;
	co.no_index = ixa.no_index;
	co.run = run;
	co.rp = cli_run_report();
	if (ss_run_check_new(&rc, &co))
		die("%s", ss_error_last());
	f = ss_atomic_file(out);
	fputs("commit\tapply\tpath\thunk\tneeds\tin_branch\tbug\ttarget\tsubject\n", f);
	if (ss_run_check_commits(rc, &n, a.repo, argv, (size_t)nspecs, &a.opts, put_row, f))
		die("%s", ss_error_last());
	cli_output_commit(out, n.total, "commits");
	ck = ss_run_check_branch(rc);
	fprintf(stderr, "checked %zu commits against %s (%s %.12s): %zu apply, %zu conflict, "
		"%zu missing a file, %zu adding an existing file, %zu unknown; %zu already "
		"in the branch, %zu carried as backports, %zu fixing a bug the branch does not have\n",
		n.total, ss_check_branch_name(ck), ss_check_branch_ref(ck), ss_check_branch_id(ck),
		n.apply[SS_APPLY_CLEAN], n.apply[SS_APPLY_CONFLICT], n.apply[SS_APPLY_MISSING],
		n.apply[SS_APPLY_EXISTS], n.apply[SS_APPLY_UNKNOWN], n.in_branch, n.carried,
		n.bug_absent);
	ss_run_check_free(rc);
	ss_run_free(run);
	return 0;
}
