/*
 * index.c - "stablesel index": build or update the project index of a
 * repository (src/index/index.h, docs/index.md): its options, checked,
 * to run/index_build.c, which builds it; what the update did printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "labels/layout.h"
#include "run/index_build.h"
#include "util/error.h"

static const char *const index_usage[] = {
	"stablesel index [--repo PATH] [--db FILE] [options]",
	"stablesel index [--db FILE] [options] REPOSITORY",
	"stablesel index --db FILE [--releases FILE] SOURCE...",
	"",
	"Builds, or brings up to date, one SQLite database of the repository's",
	"commits (patch ids, trailers, files), releases and backports: which",
	"stable branch carries which mainline commit, under which id, found from",
	"a backport line or an equal patch id.  A second run reads only what the",
	"refs gained since the first.  The database is <gitdir>/stablesel/index.db",
	"unless --db names another.  With mail SOURCEs (mboxes, maildirs) the",
	"index --db FILE holds their commits as the mainline, and a second run",
	"reads only the messages added at the end of each source.  The mainline,",
	"the role of each branch and the kind of each release tag are found from",
	"the graph (docs/index.md); --mainline, --branches (or git config",
	"stablesel.branches), --eol (or git config stablesel.eol) and",
	"--release-tags override what is found.",
	NULL
};

int cmd_index(int argc, const char **argv, const struct cli_context *ctx)
{
	ss_index_options opts = SS_INDEX_OPTIONS_INIT;
	ss_run_index_build_options o = SS_RUN_INDEX_BUILD_OPTIONS_INIT;
	const char *db = NULL, *eol = NULL;
	char *path = NULL;
	int64_t age;
	ss_index_stats stats;
	int nspecs, no_features = 0;
	struct cli_option options[] = {
		CLI_GROUP("Index (the releases: --releases FILE, else the tags --release-tags matches, else the version-shaped tags)"),
		CLI_OPT_DB(&db),
		CLI_OPT_REPO(&opts.repo),
		CLI_STRING(0, "mainline", &opts.mainline, "REF",
			   "the mainline branch (default: found from the graph: the branch the "
			   "others fork from, reaching the most commits and release tags)"),
		CLI_OPT_BRANCHES(&opts.branches,
				 "git config stablesel.branches, else every other branch with "
				 "backport lines, staging and end-of-life ones not as targets"),
		CLI_STRING(0, "eol", &eol, "AGE",
			   "a stable branch with no commit for AGE before the newest stable release "
			   "is end of life, no default target: 180d, 18m, 2y, never (default: git "
			   "config stablesel.eol, else a year before the newest branch tip)"),
		CLI_OPT_RELEASES(&opts.releases),
		CLI_OPT_RELEASE_TAGS(&opts.release_tags),
		CLI_COUNT("write-batch", &opts.batch, "N", 1, CLI_NO_MAX,
			  "commits written per transaction (default: 1000)"),
		/* --batch is the training's mini-batch */
		CLI_ALIAS(0, "batch", "write-batch"),
		CLI_FLAG(0, "no-features", &no_features,
			 "do not keep the features the project model learns from (its training "
			 "then reads every diff of the history)"),
		CLI_END(),
	};

	nspecs = cli_parse_options(ctx, argc, argv, options, index_usage);
	/* "index DIR" of a repository means --repo DIR */
	if (nspecs == 1 && !opts.repo && ss_run_index_is_repository(argv[0])) {
		opts.repo = argv[0];
		nspecs = 0;
	}
	if (nspecs && opts.repo)
		usage_die("index either --repo PATH or mail SOURCEs, not both");
	if (nspecs && !db)
		usage_die("an index of mail needs --db FILE");
	if (!nspecs && !opts.repo)
		opts.repo = cli_repo_here("index");
	if (!nspecs && !opts.repo)
		usage_die("--repo PATH or a mail SOURCE is required (or run it in a repository)");
	if (nspecs && (opts.mainline || opts.branches || opts.release_tags || eol))
		usage_die("--mainline, --branches, --eol and --release-tags need --repo PATH");
	if (eol && ss_layout_parse_age(&age, eol))
		usage_die("--eol: %s", ss_error_last());
	if (opts.releases && opts.release_tags)
		usage_die("--releases and --release-tags cannot be used together");
	if (cli_progress_on())
		opts.progress = progress;
	o.opts = &opts;
	o.db = db;
	o.eol = eol;
	o.specs = argv;
	o.nspecs = (size_t)nspecs;
	o.no_features = no_features;
	if (ss_run_index_build(&stats, &path, &o, cli_run_report()))
		die("%s", ss_error_last());
	fprintf(stderr, "indexed %zu new commits (%zu refs moved), %zu new backports, "
		"%zu releases: %s\n", stats.commits, stats.refs_walked, stats.backports,
		stats.releases, path);
	free(path);
	return 0;
}
