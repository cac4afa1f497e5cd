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
 * Fixes: or revert target, or none of them in the repository).  A count
 * goes to stderr.
 */
#include <stdio.h>
#include <string.h>

#include "check/check.h"
#include "cli.h"
#include "util/error.h"

static const char usage[] =
	"stablesel check --onto-repo PATH [--onto REV] [--prereqs] [--repo PATH] [--rev REV...]\n"
	"                [--mask-stable-tags] [SOURCE...]";

struct check_run {
	ss_check *ck;
	size_t n[SS_APPLY_UNKNOWN + 1];
	size_t in_branch, bug_absent;
};

/* A TSV field: tabs and newlines would break the row. */
static void put_field(const char *s)
{
	for (; *s; s++)
		putchar(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
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
	r->bug_absent += res.bug_in_branch == 0;
	printf("%.12s\t%s\t", c->id, ss_apply_status_name(res.apply));
	put_field(res.path);
	printf("\t%d\t", res.hunk);
	for (int k = 0; k < res.nneeds; k++)
		printf("%s%.12s", k ? "," : "", res.needs[k]);
	printf("\t%s\t%s\t%.12s\t", res.in_branch ? "yes" : "no",
	       res.bug_in_branch > 0 ? "yes" : res.bug_in_branch == 0 ? "no" : "unknown",
	       res.target);
	put_field(c->subject);
	putchar('\n');
	ss_commit_free(c);
	return 0;
}

int cmd_check(int argc, const char **argv)
{
	struct check_run r = { 0 };
	ss_check_options co = SS_CHECK_OPTIONS_INIT;
	cli_source_args a;
	const char *specs[256], *onto_repo = NULL;
	size_t total;
	int i, nspecs = 0;

	cli_source_args_init(&a);
	for (i = 1; i < argc; i++) {
		if (cli_source_arg(&a, argc, argv, &i, usage))
			continue;
		if (!strcmp(argv[i], "--onto-repo") || !strcmp(argv[i], "--onto")) {
			const char **dst = !strcmp(argv[i], "--onto") ? &co.rev : &onto_repo;

			if (i + 1 >= argc)
				usage_die(usage, "option '%s' needs a value", argv[i]);
			*dst = argv[++i];
		} else if (!strcmp(argv[i], "--prereqs")) {
			co.prereqs = 1;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage_die(usage, NULL);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			usage_die(usage, "unknown option '%s'", argv[i]);
		} else if (nspecs < 256) {
			specs[nspecs++] = argv[i];
		} else {
			usage_die(usage, "too many sources");
		}
	}
	if (!onto_repo)
		usage_die(usage, "--onto-repo is required");
	if (!nspecs && !a.repo)
		usage_die(usage, "no SOURCE and no --repo: nothing to check");
	if (ss_check_open(&r.ck, onto_repo, &co))
		die("%s", ss_error_last());
	fputs("commit\tapply\tpath\thunk\tneeds\tin_branch\tbug\ttarget\tsubject\n", stdout);
	total = cli_for_each_commit(&a, specs, nspecs, check_one, &r);
	fprintf(stderr, "checked %zu commits against %s (%.12s): %zu apply, %zu conflict, "
		"%zu missing a file, %zu adding an existing file, %zu unknown; %zu already "
		"in the branch, %zu fixing a bug the branch does not have\n", total,
		co.rev, ss_check_branch_id(r.ck), r.n[SS_APPLY_CLEAN],
		r.n[SS_APPLY_CONFLICT], r.n[SS_APPLY_MISSING], r.n[SS_APPLY_EXISTS],
		r.n[SS_APPLY_UNKNOWN], r.in_branch, r.bug_absent);
	ss_check_free(r.ck);
	return 0;
}
