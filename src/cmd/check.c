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

#include "check/check.h"
#include "cli.h"
#include "index/index.h"
#include "labels/carried.h"
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

struct check_run {
	ss_check *ck;
	FILE *out;
	size_t n[SS_APPLY_UNKNOWN + 1];
	size_t in_branch, carried, bug_absent;
};

/* A TSV field: tabs and newlines would break the row. */
static void put_field(FILE *out, const char *s)
{
	for (; *s; s++)
		putc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, out);
}

static int check_one(ss_commit *c, void *data)
{
	struct check_run *r = data;
	ss_check_result res;

	if (ss_check_commit(&res, r->ck, c)) {
		error("cannot check commit %s: %s", c->id, ss_error_last());
		ss_commit_free(c);
		return 0;
	}
	r->n[res.apply]++;
	r->in_branch += res.in_branch;
	r->carried += res.carried_as[0] != 0;
	r->bug_absent += res.bug_in_branch == 0;
	fprintf(r->out, "%.12s\t%s\t", c->id, ss_apply_status_name(res.apply));
	put_field(r->out, res.path);
	fprintf(r->out, "\t%d\t", res.hunk);
	for (int k = 0; k < res.nneeds; k++)
		fprintf(r->out, "%s%.12s", k ? "," : "", res.needs[k]);
	if (res.carried_as[0])
		fprintf(r->out, "\tbackport %.12s", res.carried_as);
	else
		fprintf(r->out, "\t%s", res.in_branch ? "yes" : "no");
	fprintf(r->out, "\t%s\t%.12s\t",
	       res.bug_in_branch > 0 ? "yes" : res.bug_in_branch == 0 ? "no" : "unknown",
	       res.target);
	put_field(r->out, c->subject);
	putc('\n', r->out);
	ss_commit_free(c);
	return 0;
}

int cmd_check(int argc, const char **argv, const struct cli_context *ctx)
{
	struct check_run r = { 0 };
	ss_check_options co = SS_CHECK_OPTIONS_INIT;
	cli_source_args a;
	cli_index_args ixa;
	const char *onto_repo = NULL, *output = "-", *upstream = NULL, *onto[1];
	size_t nonto = 0;
	ss_carried *carried = NULL;
	ss_run *run = NULL;
	struct cli_option options[] = {
		CLI_GROUP("Stable branch (--onto: HEAD of --onto-repo unless named; --onto-upstream is read with --prereqs)"),
		CLI_OPT_ONTO_REPO(&onto_repo),
		CLI_OPT_ONTO(onto, &nonto),
		CLI_FLAG(0, "prereqs", &co.prereqs,
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
	size_t total;
	int nspecs;

	cli_source_args_init(&a);
	cli_index_args_init(&ixa);
	nspecs = cli_parse_options(ctx, argc, argv, options, check_usage);
	if (!onto_repo)
		onto_repo = cli_repo_here("check");
	if (!onto_repo)
		usage_die("--onto-repo is required (or run it in a repository)");
	if (nonto)
		co.rev = onto[0];
	if (!nspecs && !a.repo)
		usage_die("no SOURCE and no --repo: nothing to check");
	out = cli_output_open(output);
	/* the branch's repository and its index, opened once */
	if (ss_run_new(&run))
		die("%s", ss_error_last());
	ixa.run = run;
	co.repo = ss_run_repo(run, onto_repo);
	if (ss_check_open(&r.ck, onto_repo, &co))
		die("%s", ss_error_last());
	if (ss_check_ambiguity(r.ck))
		warning("%s", ss_check_ambiguity(r.ck));
	if (co.prereqs) {
		/* what the branch carries: no blame for those, none named; from
		 * the project index when it is up to date with the branch */
		char *ixpath = NULL;
		ss_index *ix = cli_index_open(&ixa, onto_repo, &ixpath);

		carried = cli_carried_load(ix, ixpath, onto_repo, r.ck, upstream, co.rev, NULL);
		ss_check_set_carried(r.ck, carried);
		ss_index_free(ix);
		free(ixpath);
	}
	r.out = ss_atomic_file(out);
	fputs("commit\tapply\tpath\thunk\tneeds\tin_branch\tbug\ttarget\tsubject\n", r.out);
	total = cli_for_each_commit(&a, argv, nspecs, check_one, &r);
	cli_output_commit(out, total, "commits");
	fprintf(stderr, "checked %zu commits against %s (%s %.12s): %zu apply, %zu conflict, "
		"%zu missing a file, %zu adding an existing file, %zu unknown; %zu already "
		"in the branch, %zu carried as backports, %zu fixing a bug the branch does not have\n", total,
		ss_check_branch_name(r.ck), ss_check_branch_ref(r.ck), ss_check_branch_id(r.ck), r.n[SS_APPLY_CLEAN],
		r.n[SS_APPLY_CONFLICT], r.n[SS_APPLY_MISSING], r.n[SS_APPLY_EXISTS],
		r.n[SS_APPLY_UNKNOWN], r.in_branch, r.carried, r.bug_absent);
	ss_check_free(r.ck);
	ss_carried_free(carried);
	ss_run_free(run);
	return 0;
}
