/*
 * origin.c - "stablesel origin": which commit a fix fixes, how that was
 * found, and whether the bug ever reached a release.
 *
 * The commits to explain are named by id (a prefix is enough) among the
 * SOURCES, or, with --repo and no SOURCE, by any revision of the
 * repository.  Fixes: targets and reverted commits are looked up in an
 * index over the sources and --history sources (and the repository);
 * releases come from --releases FILE, else from the repository's tags.
 * Without Fixes: or revert, a repository's fix is blamed (SZZ).
 * run/origin_history.c reads the history, the releases and the commits
 * asked for (ss_run_origin_load); this file prints what each fixes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "builtin.h"
#include "history/histidx.h"
#include "run/origin_history.h"
#include "util/error.h"
#include "util/hexid.h"

static const char *const origin_usage[] = {
	"stablesel origin [options] (--repo PATH | SOURCE...) COMMIT...",
	"",
	"For each COMMIT (an id or prefix among the sources, or any revision of",
	"--repo PATH): the commits it fixes (Fixes: tags, reverts, else blame of a",
	"repository's lines), how each was found, and the first release each bug",
	"reached.  Releases come from --releases FILE, else from the repository's",
	"tags.",
	NULL
};

#define MAX_ARGS 256

static void print_date(int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char buf[32];

	if (!gmtime_r(&tt, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%d", &tm))
		snprintf(buf, sizeof(buf), "%lld", (long long)t);
	fputs(buf, stdout);
}

/* "3 days", "14 months", "2.5 years" */
static void print_duration(double days)
{
	if (days < 0)
		days = 0;
	if (days < 60)
		printf("%.0f day%s", days, days >= 0.5 && days < 1.5 ? "" : "s");
	else if (days < 730)
		printf("%.0f months", days / 30.44);
	else
		printf("%.1f years", days / 365.25);
}

static const char *how_name(ss_origin_how how)
{
	switch (how) {
	case SS_ORIGIN_FIXES_TAG:
		return "fixes-tag";
	case SS_ORIGIN_REVERT:
		return "revert";
	case SS_ORIGIN_BLAME:
		return "blame";
	}
	return "?";
}

static void print_target(const ss_histidx_target *t, const ss_releases *rel)
{
	printf("  %-9s  ", how_name(t->how));
	if (!t->found) {
		printf("%-12s  ", t->written);
		if (t->ambiguous)
			printf("ambiguous: %zu commits match%s", t->nmatches,
			       t->quoted ? " and the quoted subject picks none" : "");
		else
			printf("not found in the history");
		if (t->quoted)
			printf("  (\"%.*s\")", (int)t->quoted_len, t->quoted);
		putchar('\n');
		return;
	}
	printf("%.12s  ", t->commit.id);
	print_date(t->commit.time);
	printf("  \"%s\"", t->commit.subject);
	if (t->how == SS_ORIGIN_BLAME)
		printf("  confidence %.2f", t->confidence);
	if (t->by_subject)
		printf("  (%zu commits match '%s', the quoted subject picks this one)", t->nmatches,
		       t->written);
	if (t->subject_mismatch)
		printf("  (quoted subject differs: \"%.*s\")", (int)t->quoted_len, t->quoted);
	if (t->method == SS_RELEASE_NONE) {
		printf("  releases unknown\n");
		return;
	}
	if (t->released)
		printf("  first release %s, %d release%s before the fix", ss_releases_get(rel,
		       (size_t)t->first_release)->tag, t->nreleases, t->nreleases == 1 ? "" : "s");
	else
		printf("  in no release before the fix");
	if (t->method == SS_RELEASE_DATE)
		printf(" (by dates, approximate)");
	else if (t->method == SS_RELEASE_ORDER)
		printf(" (by order of the mail source)");
	putchar('\n');
}

static void print_summary(const ss_histidx_facts *f, int blame_tried)
{
	const ss_histidx_target *p;

	printf("  => ");
	if (!f->target_found) {
		if (!f->ntargets) {
			printf("no Fixes: tag and no revert%s\n",
			       blame_tried ? "; blame found no candidate" : "");
			return;
		}
		p = &f->targets[0];
		printf("%s %s", p->how == SS_ORIGIN_REVERT ? "reverts" : "fixes", p->written);
		if (p->quoted)
			printf(" (\"%.*s\")", (int)p->quoted_len, p->quoted);
		if (p->ambiguous)
			printf(", ambiguous: %zu commits match\n", p->nmatches);
		else
			printf(", not found in the history\n");
		return;
	}
	p = &f->targets[f->primary];
	printf("%s %.12s (\"%s\")", p->how == SS_ORIGIN_REVERT ? "reverts" :
	       p->how == SS_ORIGIN_BLAME ? "probably fixes" : "fixes", p->commit.id, p->commit.subject);
	if (p->how == SS_ORIGIN_BLAME)
		printf(" (blame, confidence %.2f)", p->confidence);
	if (f->method == SS_RELEASE_NONE) {
		printf(", no releases known\n");
		return;
	}
	if (f->released_before_fix) {
		printf(", bug shipped in %s, ", f->first_release_tag);
		print_duration(f->shipped_days);
		printf(" ago");
	} else {
		printf(", bug introduced in this cycle, never released");
	}
	if (f->method == SS_RELEASE_DATE)
		printf(" (by dates)");
	putchar('\n');
}

static void explain(ss_histidx *h, const ss_commit *c, const ss_releases *rel, int blame)
{
	ss_histidx_resolve_options opts = SS_HISTIDX_RESOLVE_OPTIONS_INIT;
	ss_histidx_facts f;
	size_t i;

	opts.blame = blame;
	if (ss_histidx_resolve(&f, h, c, rel, &opts)) {
		error("%s: %s", c->id, ss_error_last());
		return;
	}
	printf("%.12s %s\n", c->id, c->subject);
	for (i = 0; i < f.ntargets; i++)
		print_target(&f.targets[i], rel);
	if (f.ndropped)
		printf("  (%zu more targets not shown)\n", f.ndropped);
	print_summary(&f, blame);
}

int cmd_origin(int argc, const char **argv, const struct cli_context *ctx)
{
	const char *specs[MAX_ARGS];
	ss_run_origin_wanted w[MAX_ARGS];
	int i, nargs, nspecs = 0, nw = 0, no_blame = 0;
	ss_releases *rel = NULL;
	cli_source_args a;
	cli_history_args hist;
	struct cli_option options[] = {
		CLI_INCLUDE(a.options),
		CLI_INCLUDE(hist.options),
		CLI_SET_INT(0, "no-blame", &no_blame, 1,
			    "without Fixes: or revert, do not blame the fix's lines"),
		CLI_END(),
	};
	ss_run_origin_options o = SS_RUN_ORIGIN_OPTIONS_INIT;
	ss_histidx *h;
	ss_run *owner = NULL;   /* the repository and the index of every step */

	cli_source_args_init(&a);
	cli_history_args_init(&hist);
	nargs = cli_parse_options(ctx, argc, argv, options, origin_usage);
	if (nargs > MAX_ARGS)
		usage_die("too many arguments");
	for (i = 0; i < nargs; i++) {
		if (ss_run_origin_is_source(argv[i])) {
			specs[nspecs++] = argv[i];
		} else {
			memset(&w[nw], 0, sizeof(w[nw]));
			w[nw++].arg = argv[i];
		}
	}
	if (!nw)
		usage_die("name at least one COMMIT");
	cli_source_default(&a, nspecs, "origin", 0);
	if (!nspecs && !a.repo)
		usage_die("name the SOURCES the commits are in, or --repo PATH");

	if (nspecs) {
		for (i = 0; i < nw; i++)
			if (!ss_hexid_is_prefix(w[i].arg))
				usage_die("'%s' is neither a source nor a commit id (4 to 40 hex digits)",
					  w[i].arg);
		/* only a repository can be blamed, so only then is the diff read */
		if (!a.repo)
			a.opts.with_diff = 0;
	}

	/* the repository and the index, opened once for every step */
	if (ss_run_new(&owner))
		die("%s", ss_error_last());
	o.repo = a.repo;
	o.db = hist.ix.db;
	o.no_index = hist.ix.no_index;
	o.as_of = hist.ix.as_of;
	o.releases = hist.rel.file;
	o.release_tags = hist.rel.tags;
	o.history = hist.specs;
	o.nhistory = hist.n;
	o.specs = specs;
	o.nspecs = (size_t)nspecs;
	o.opts = &a.opts;
	o.run = owner;
	o.rp = cli_run_report();
	if (ss_run_origin_load(&h, &rel, w, (size_t)nw, &o))
		die("%s", ss_error_last());

	for (i = 0; i < nw; i++) {
		ss_commit *c;
		int rc = ss_run_origin_pick(&c, &w[i], nspecs > 0, h, a.repo, &a.opts,
					    cli_run_report());

		if (rc == SS_ESKIP)
			error("%s", ss_error_last());
		else if (rc)
			die("%s", ss_error_last());
		if (!c)
			continue;
		if (i)
			putchar('\n');
		explain(h, c, rel, a.repo && !no_blame);
	}
	ss_run_origin_wanted_release(w, (size_t)nw);
	ss_releases_free(rel);
	ss_histidx_free(h);
	ss_run_free(owner);
	return ss_had_error ? SS_EXIT_BADINPUT : 0;
}
