/*
 * index.c - "stablesel index": build or update the project index of a
 * repository (src/index/index.h, docs/index.md).  A first build refused
 * before it wrote anything leaves no file behind (an empty index would
 * pass for one with no history).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "feature_store_cli.h"
#include "index/index.h"
#include "labels/layout.h"
#include "source/git.h"
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

/* A directory holding a git repository (a bare one, or one with .git):
 * an operand that means --repo. */
static int is_repository(const char *path)
{
	struct stat sb;
	char p[4200];

	if (stat(path, &sb) || !S_ISDIR(sb.st_mode))
		return 0;
	snprintf(p, sizeof(p), "%s/.git", path);
	if (!stat(p, &sb))
		return 1;
	snprintf(p, sizeof(p), "%s/HEAD", path);
	if (stat(p, &sb) || !S_ISREG(sb.st_mode))
		return 0;
	snprintf(p, sizeof(p), "%s/objects", path);
	return !stat(p, &sb) && S_ISDIR(sb.st_mode);
}

/* The repository's layout: the one the index at db keeps when the refs
 * are as they were (no walk of the history), else found (dies when no
 * branch stands out as the mainline, before anything is written). */
static ss_layout *find_layout(const ss_index_options *opts, const char *eol, const char *db)
{
	ss_layout_options lo = SS_LAYOUT_OPTIONS_INIT;
	ss_layout *l = NULL;

	lo.mainline = opts->mainline;
	lo.branches = opts->branches;
	lo.release_tags = opts->release_tags;
	lo.eol = eol;
	if ((db && ss_index_layout_kept(&l, db, opts->repo, &lo)) ||
	    (!l && ss_layout_find(&l, opts->repo, &lo)))
		die("%s", ss_error_last());
	return l;
}

/* Say what the update found (and why HEAD is not the mainline) on
 * stderr, once it was recorded: a refused update says only why. */
static void say_layout(const ss_layout *l)
{
	char *what;

	if (l->warning)
		warning("%s", l->warning);
	if (l->note)
		note("%s", l->note);
	if (l->series)
		note("%s", l->series);
	if (l->eol_note)
		note("%s", l->eol_note);
	if ((what = ss_layout_describe(l)))
		note("%s", what);
	free(what);
}

/*
 * The update of the index at db (created by this run; dir too when
 * dir_made, NULL for none) failed: when nothing was written, remove the
 * file (and its WAL), then die with the update's message.
 */
static void refused_build(ss_index *ix, const char *db, const char *dir)
{
	char *msg = strdup(ss_error_last());

	if (!msg)
		die("out of memory");
	ss_index_discard_first_build(ix, db, dir);
	die("%s", msg);
}

/* The update of an index that was there failed: close it (SQLite's side
 * files go with the connection), then die with the update's message. */
static void refused_update(ss_index *ix)
{
	char *msg = strdup(ss_error_last());

	if (!msg)
		die("out of memory");
	ss_index_free(ix);
	die("%s", msg);
}

int cmd_index(int argc, const char **argv, const struct cli_context *ctx)
{
	ss_index_options opts = SS_INDEX_OPTIONS_INIT;
	const char *db = NULL, *eol = NULL;
	char *path = NULL;
	int64_t age;
	ss_index_stats stats;
	ss_index *ix;
	struct stat sb;
	ss_layout *layout = NULL;
	ss_run_feature_parts *parts = NULL;
	char *dir = NULL;
	int nspecs, fresh, no_features = 0;
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
	if (nspecs == 1 && !opts.repo && is_repository(argv[0])) {
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
	if (!db) {
		if (ss_index_default_path(&path, opts.repo))
			die("%s", ss_error_last());
		db = path;
	}
	fresh = stat(db, &sb) != 0;
	if (fresh) {
		/* the folder the index makes when it is missing (<gitdir>/stablesel,
		 * or the one of --db), removed again with a refused first build */
		char *slash;

		if (!(dir = strdup(db)))
			die("out of memory");
		if ((slash = strrchr(dir, '/')))
			*slash = '\0';
		if (!slash || !stat(dir, &sb)) {
			free(dir);
			dir = NULL;
		}
	}
	if (!nspecs)
		opts.layout = layout = find_layout(&opts, eol, fresh ? NULL : db);
	if (ss_index_open(&ix, db, SS_INDEX_WRITE))
		die("%s", ss_error_last());
	/* the features' parts made while the update reads the diffs, so
	 * that the fill after it reads none again */
	if ((!nspecs && !no_features &&
	     ss_run_feature_parts_new(&parts, ix, opts.repo, layout->mtip, &opts)) ||
	    (nspecs ? ss_index_update_mail(ix, argv, (size_t)nspecs, &opts, &stats)
		    : ss_index_update(ix, &opts, &stats))) {
		if (fresh)
			refused_build(ix, db, dir);
		refused_update(ix);
	}
	ss_run_feature_parts_free(parts);
	if (opts.progress)
		progress_done();
	if (layout)
		say_layout(layout);
	/* after the update: the rows are extracted against the whole index */
	if (!nspecs && !no_features)
		cli_feature_store_fill(ix, db, opts.repo, opts.batch);
	/* a first build's pages packed (a failure leaves them as they are) */
	if (fresh && ss_index_compact(ix)) {
		note("%s", ss_error_last());
		ss_error_clear();
	}
	if (stats.mail_reread)
		note("%zu mail sources changed before where the last update ended: read again "
		     "from their start", stats.mail_reread);
	/* as log does on the same input: what was skipped is an error (exit
	 * 1), the rest is indexed */
	if (stats.skipped)
		error("%zu commits could not be read and are not indexed (first: %s)",
		      stats.skipped, stats.first_skip);
	if (stats.repaired)
		note("%zu commit%s indexed while a blob was missing (a partial clone) read whole "
		     "now: patch ids and files complete", stats.repaired,
		     stats.repaired == 1 ? "" : "s");
	if (stats.still_missing)
		note("%zu commit%s indexed without a blob still miss one: fetch the blobs (git "
		     "fetch --refetch, or git rev-list --objects --missing=print --all) and run "
		     "'stablesel index' again to complete them", stats.still_missing,
		     stats.still_missing == 1 ? "" : "s");
	fprintf(stderr, "indexed %zu new commits (%zu refs moved), %zu new backports, "
		"%zu releases: %s\n", stats.commits, stats.refs_walked, stats.backports,
		stats.releases, db);
	ss_index_free(ix);
	ss_layout_free(layout);
	free(dir);
	free(path);
	return 0;
}
