/*
 * review.c - "stablesel review": the maintainer's interactive review on a
 * terminal (the loop is rank/review_loop.h's, the session around it
 * run/review_session.h's: the candidates, the decisions recorded, the
 * ranking kept for the next start and reused there; this file reads the
 * keys and prints the screen), and its non-interactive forms: --export and
 * --import of the decisions as JSON (review_share.c), --failed-mail
 * (review_mail.c).  docs/review.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "cli/decisions_cli.h"
#include "rank/review_loop.h"
#include "review_share.h"
#include "run/review_session.h"
#include "util/error.h"
#include "util/strbuf.h"

static const char *const review_usage[] = {
	"stablesel review [options] [SOURCE...]",
	"stablesel review --export FILE | --import FILE [--db FILE | --repo PATH]",
	"stablesel review --failed-mail --mail-dir DIR [--branch B] [--repo PATH]",
	"",
	"Walks the undecided candidates best first, as rank lists them, one at a",
	"time, in the manner of git add -p: its subject, id, author, date, score",
	"and band, each branch's verdict, the reasons in words and the diffstat;",
	"the commits above the threshold that do not apply as they are too.  y",
	"accepts it for the branches, n rejects it (asks why), f records that it",
	"needs a manual backport (failed: --failed-mail writes the mail), d",
	"defers it, s skips, p shows the diff, e the explanation, u undoes, q",
	"quits, ? helps.",
	"Each decision is written to the project index when it is made.  Needs",
	"a terminal; scripts use \"stablesel mark\".",
	NULL
};

/* The loop on the terminal over items[0..n) for the session s. */
static void run_session(ss_run_review_session *s, const ss_review_item *items, size_t n)
{
	ss_strbuf what = SS_STRBUF_INIT;
	char line[4096];
	ss_review *rv;

	/* the ranking's progress line ends before the first candidate */
	progress_done();
	for (size_t b = 0; b < s->nb; b++)
		ss_strbuf_addf(&what, "%s%s", b ? ", " : "", s->branches[b]);
	if (ss_review_new(&rv, items, n, what.buf,
			  &(ss_review_ops){ ss_run_review_decide, ss_run_review_undo }, s))
		die("out of memory");
	for (;;) {
		const char *in;
		int over;

		fputs(ss_review_screen(rv), stdout);
		fflush(stdout);
		in = fgets(line, sizeof(line), stdin);
		if (in)
			line[strcspn(line, "\r\n")] = '\0';
		over = ss_review_input(rv, in ? line : NULL);
		if (over)
			break;
	}
	fputs(ss_review_screen(rv), stdout);
	ss_review_free(rv);
	ss_strbuf_release(&what);
}

/* What a start is kept under: the index, the model files, the command
 * line and its folder, this version. */
static void start_key(ss_review_cache_key out, const ss_run_review_session *s,
		      const cli_ranking *k, const char *cmdline)
{
	if (ss_run_review_key(out, s->ix, s->path, k->model, cmdline))
		die("%s", ss_error_last());
}

/*
 * The candidates kept by the last start under key, without those decided
 * since for every branch (run/review_session.h): 1 and the session run,
 * or 0 when there are none to reuse (none kept, another key, or a row
 * hidden as decided then that is undecided now).
 */
static int reuse(ss_run_review_session *s, const char *cache, const ss_review_cache_key key,
		 const char *const *named, size_t nnamed, const char *repo)
{
	ss_run_review_reused kept;
	char when[32];
	struct tm tm;
	time_t t;
	int rc, reused;

	if ((rc = ss_run_review_reuse(&kept, s, cache, key, named, nnamed, repo,
				      (int64_t)time(NULL), cli_run_report())))
		cli_decisions_fail(rc);
	if ((reused = kept.items != NULL)) {
		t = (time_t)kept.made;
		snprintf(when, sizeof(when), "?");
		if (localtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
		note("reusing the ranking of %s: the index, the model and the options are "
		     "unchanged (%zu of its %zu candidates undecided; --fresh ranks again)", when,
		     kept.n, kept.nkept);
		run_session(s, kept.items, kept.n);
	}
	ss_run_review_reused_release(&kept);
	return reused;
}

static void interactive(cli_ranking *k, cli_source_args *src, const char *const *named,
			size_t nnamed, int fresh, const char *cmdline, const char **specs, int nspecs)
{
	char *branches[SS_RANK_MAX_BRANCHES], *path = NULL, *who = NULL, *cache = NULL;
	ss_review_cache_key key;
	ss_run_review_session s = { NULL, NULL, NULL, 0, NULL };
	ss_run_review_items *it;
	const ss_review_item *items;
	size_t n, nb;
	int rc;

	if (ss_run_review_open(&s.ix, &path, &who, &cache, k->hist_args.ix.db, src->repo, k->run))
		die("%s", ss_error_last());
	s.path = path;
	s.who = who;
	if (!fresh) {
		start_key(key, &s, k, cmdline);
		if (reuse(&s, cache, key, named, nnamed, src->repo))
			goto free_all;
	}
	cli_ranking_load(k);
	cli_ranking_run(k, src, specs, nspecs);
	if ((rc = ss_run_review_branches(branches, &nb, SS_RANK_MAX_BRANCHES, s.ix, path, src->repo,
					 &(ss_run_review_branch_source){ named, nnamed, NULL,
					 k->st.on.ident, k->st.on.br, k->st.on.n }, cli_run_report())))
		cli_decisions_fail(rc);
	s.branches = branches;
	s.nb = nb;
	if (ss_run_review_items_new(&it, k->st.r))
		die("%s", ss_error_last());
	items = ss_run_review_items_get(it, &n);
	/* the key as the run left the index (it may keep features); a
	 * failure to keep the candidates is said and the review goes on */
	start_key(key, &s, k, cmdline);
	if (ss_run_review_keep(cache, key, k->st.r, items, n, &s))
		warning("cannot keep the ranking for the next review: %s", ss_error_last());
	run_session(&s, items, n);
	ss_run_review_items_free(it);
	for (size_t b = 0; b < nb; b++)
		free(branches[b]);
free_all:
	ss_index_free(s.ix);
	free(cache);
	free(path);
	free(who);
}

int cmd_review(int argc, const char **argv, const struct cli_context *ctx)
{
	const char *named[SS_RANK_MAX_BRANCHES], *export_file = NULL, *import_file = NULL;
	const char *outdir = NULL, *cc = NULL;
	size_t nnamed = 0;
	int nspecs, failed_mail = 0, fresh = 0;
	ss_strbuf cmdline = SS_STRBUF_INIT;
	cli_source_args src;
	cli_ranking k;
	struct cli_option options[] = {
		CLI_INCLUDE(k.options),
		CLI_INCLUDE(src.options),
		CLI_GROUP("Review"),
		CLI_OPT_DECISION_BRANCH(named, &nnamed),
		CLI_STRING(0, "export", &export_file, "FILE",
			   "write every decision to FILE as JSON (stable order) and stop"),
		CLI_STRING(0, "import", &import_file, "FILE",
			   "merge the decisions of FILE (JSON, from --export) by time, list conflicts, "
			   "and stop"),
		CLI_FLAG(0, "failed-mail", &failed_mail,
			 "write a mail to the author of each failed pick per branch into --mail-dir DIR "
			 "and stop"),
		CLI_STRING(0, "cc", &cc, "ADDR",
			   "--failed-mail: Cc this list (default: git config stablesel.failedCc)"),
		CLI_STRING(0, "mail-dir", &outdir, "DIR", "--failed-mail: the folder the mails go to"),
		/* -o is a file everywhere else */
		CLI_ALIAS('o', "output", "mail-dir"),
		CLI_FLAG(0, "fresh", &fresh,
			 "rank again, though the index, the model and the options are those of the "
			 "last review (whose ranking is otherwise reused)"),
		CLI_END(),
	};

	cli_ranking_init(&k);
	cli_source_args_init(&src);
	k.cmd = "review";
	/* the command line as given, before the parser takes the options
	 * out: part of what a kept ranking is kept under */
	for (int i = 0; i < argc; i++)
		ss_strbuf_addf(&cmdline, "%s\n", argv[i]);
	nspecs = cli_parse_options(ctx, argc, argv, options, review_usage);
	if (export_file || import_file || failed_mail)
		ss_strbuf_release(&cmdline);  /* no ranking to keep */
	if (!!export_file + !!import_file + failed_mail > 1)
		usage_die("--export, --import and --failed-mail are one at a time");
	if (export_file || import_file) {
		int rc;

		if (nspecs)
			usage_die("--export and --import take no SOURCE");
		rc = review_share(export_file, import_file, k.hist_args.ix.db, src.repo);
		cli_ranking_free(&k);
		return rc;
	}
	if (failed_mail) {
		int rc;

		if (!outdir)
			usage_die("--failed-mail needs --mail-dir DIR");
		rc = review_failed_mail(outdir, cc, named, nnamed, k.hist_args.ix.db, src.repo);
		cli_ranking_free(&k);
		return rc;
	}
	if (outdir || cc)
		usage_die("--mail-dir and --cc go with --failed-mail");
	if (!isatty(0) || !isatty(1))
		die("review needs a terminal: in scripts use 'stablesel mark accept|reject|defer "
		    "COMMIT... [--branch B]' and 'stablesel status'");
	k.ko.keep = SS_RANK_KEEP_DETAILS;
	/* e shows precedents: vectors kept for the settled history */
	k.ko.precedents = 1;
	/* an --onto at an older point of a branch (a tag) decides for the
	 * branch --branch names */
	k.branch_named = named;
	k.nbranch_named = nnamed;
	interactive(&k, &src, named, nnamed, fresh, cmdline.buf ? cmdline.buf : "", argv, nspecs);
	ss_strbuf_release(&cmdline);
	cli_ranking_free(&k);
	return ss_had_error ? SS_EXIT_BADINPUT : 0;
}
