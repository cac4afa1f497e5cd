/*
 * review.c - "stablesel review": the maintainer's interactive review on a
 * terminal (the loop is rank/review_loop.h's; this file reads the keys and
 * prints the screen), and its non-interactive forms: --export and
 * --import of the decisions as JSON (review_share.c), --failed-mail
 * (review_mail.c).  docs/review.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "decisions_cli.h"
#include "rank/review_loop.h"
#include "review_share.h"
#include "run/decisions.h"
#include "run/review_cache.h"
#include "source/ident.h"
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

struct session {
	ss_index *ix;
	const char *path;        /* the index's, for messages */
	char **branches;
	size_t nb;
	const char *who;
};

static int on_decide(const ss_review_item *it, ss_decision_state state, const char *text,
		     const char *until, void *ud)
{
	struct session *s = ud;
	ss_decision d;
	int rc;

	memset(&d, 0, sizeof(d));
	memcpy(d.commit, it->id, 40);
	d.state = state;
	/* d's "until when": a real date, a release of the index or one to
	 * come (else the screen says why and asks again) */
	{
		int future;

		if (until && (rc = ss_run_decision_until_check(s->ix, s->path, until, &future)))
			return rc;
	}
	d.who = s->who;
	d.note = text;
	d.until = until;
	d.time = (int64_t)time(NULL);
	for (size_t b = 0; b < s->nb; b++) {
		d.branch = s->branches[b];
		if ((rc = ss_index_decision_set(s->ix, &d)))
			return rc;
	}
	return 0;
}

static int on_undo(const ss_review_item *it, void *ud)
{
	struct session *s = ud;
	int rc;

	/* what each branch held before comes back (a colleague's decision
	 * too): the log keeps it */
	for (size_t b = 0; b < s->nb; b++)
		if ((rc = ss_index_decision_undo(s->ix, it->id, s->branches[b], NULL)))
			return rc;
	return 0;
}

/* Is row w offered: a pick, or above the threshold with a branch it does
 * not apply to as it is (unknown: a conflict, a file missing), which only
 * a manual backport takes (f). */
static int offered(const ss_rank_row *w)
{
	if (!w->shown || (w->flags & SS_RANK_EXTRA))
		return 0;
	if (w->pick)
		return 1;
	if (w->band != SS_BAND_YES && w->band != SS_BAND_LIKELY)
		return 0;
	for (size_t b = 0; b < w->nverdicts; b++)
		if (w->verdicts[b].word == SS_VERDICT_UNKNOWN)
			return 1;
	return 0;
}

enum { S_VERDICTS, S_FLAGS, S_REASONS, S_DATE, S_CONFLICT, S_PER_ITEM };

/* Row i's strings: its verdicts (with the prerequisites accepting it pulls
 * in), flags, the explanation (reasons in words as rank gives them, its
 * precedents from settled history), date, conflicts. */
static void item_text(ss_strbuf *s, const cli_ranking *k, size_t i, const ss_rank_row *w)
{
	ss_rank_precedent pr[3];
	size_t np;
	char date[16];

	for (size_t b = 0; b < w->nverdicts; b++) {
		const ss_verdict_data *v = &w->verdicts[b];

		ss_strbuf_addf(&s[S_VERDICTS], "%s: %s%s%s%s\n", ss_ranking_branch(k->r, b), v->text,
			       *v->detail ? " (" : "", v->detail, *v->detail ? ")" : "");
		if (v->propose && v->nneeds) {
			ss_strbuf_adds(&s[S_VERDICTS], "  accepting it pulls into the queue: ");
			ss_ranking_needs_text(&s[S_VERDICTS], k->r, v);
			ss_strbuf_adds(&s[S_VERDICTS], "\n");
		}
		if (v->word == SS_VERDICT_UNKNOWN)
			ss_strbuf_addf(&s[S_CONFLICT], "%s%s: %s", s[S_CONFLICT].len ? "; " : "",
				       ss_ranking_branch(k->r, b), *v->detail ? v->detail : "unknown");
	}
	ss_rank_flags_text(&s[S_FLAGS], w, "; ");
	if (w->nreasons) {
		ss_strbuf_adds(&s[S_REASONS], "because\n  ");
		ss_rank_reasons_text(&s[S_REASONS], w, w->nreasons, "\n  ");
		ss_strbuf_adds(&s[S_REASONS], "\n");
	}
	np = ss_ranking_precedents(pr, 3, k->r, i);
	for (size_t j = 0; j < np; j++) {
		ss_strbuf_adds(&s[S_REASONS], j ? "      " : "like  ");
		ss_rank_precedent_text(&s[S_REASONS], &pr[j], 0);
		ss_strbuf_adds(&s[S_REASONS], "\n");
	}
	ss_strbuf_adds(&s[S_DATE], cli_decision_date(date, w->author_time));
}

/* The rows to review (picks and the above-threshold rows that need a
 * manual backport, best first) as review items; the strings live in
 * bufs (S_PER_ITEM strbufs per item). */
static size_t make_items(ss_review_item **out, ss_strbuf **bufs, const cli_ranking *k)
{
	size_t n = ss_ranking_count(k->r), m = 0;
	ss_review_item *items = calloc(n + 1, sizeof(*items));
	ss_strbuf *sb = calloc(S_PER_ITEM * (n + 1), sizeof(*sb));

	if (!items || !sb)
		die("out of memory");
	for (size_t i = 0; i < n; i++) {
		ss_strbuf *s = &sb[S_PER_ITEM * m];
		ss_rank_row w;

		ss_ranking_row(&w, k->r, i);
		if (!offered(&w))
			continue;
		for (int j = 0; j < S_PER_ITEM; j++)
			s[j] = (ss_strbuf)SS_STRBUF_INIT;
		item_text(s, k, i, &w);
		items[m] = (ss_review_item){ .id = w.id, .subject = w.subject, .author = w.author,
					     .score = w.score, .band = ss_band_name(w.band),
					     .message = w.message, .diff = w.diff,
					     .manual_only = !w.pick };
		m++;
	}
	/* the strings moved while they grew: take them now */
	for (size_t i = 0; i < m; i++) {
		ss_strbuf *s = &sb[S_PER_ITEM * i];

		items[i].verdicts = s[S_VERDICTS].buf ? s[S_VERDICTS].buf : "";
		items[i].flags = s[S_FLAGS].buf ? s[S_FLAGS].buf : "";
		items[i].reasons = s[S_REASONS].buf ? s[S_REASONS].buf : "";
		items[i].date = s[S_DATE].buf ? s[S_DATE].buf : "";
		items[i].conflict = s[S_CONFLICT].buf ? s[S_CONFLICT].buf : "";
	}
	*out = items;
	*bufs = sb;
	return m;
}

/* The loop on the terminal over items[0..n) for the session s. */
static void run_session(struct session *s, const ss_review_item *items, size_t n)
{
	ss_strbuf what = SS_STRBUF_INIT;
	char line[4096];
	ss_review *rv;

	/* the ranking's progress line ends before the first candidate */
	progress_done();
	for (size_t b = 0; b < s->nb; b++)
		ss_strbuf_addf(&what, "%s%s", b ? ", " : "", s->branches[b]);
	if (ss_review_new(&rv, items, n, what.buf, &(ss_review_ops){ on_decide, on_undo }, s))
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
static void start_key(ss_review_cache_key out, ss_index *ix, const char *path, const cli_ranking *k,
		      const char *cmdline)
{
	char cwd[4096];
	const char *parts[] = { SS_VERSION, getcwd(cwd, sizeof(cwd)) ? cwd : "", cmdline };

	if (ss_review_cache_key_of(out, ix, path, k->model, parts, 3))
		die("%s", ss_error_last());
}

/*
 * The candidates kept by the last start under key, without those decided
 * since for every branch: 1 and the session run, or 0 when there are none
 * to reuse (none kept, another key, or a row hidden as decided then that
 * is undecided now).
 */
static int reuse(struct session *s, const char *cache, const ss_review_cache_key key,
		 const char *const *named, size_t nnamed, const char *path, const char *repo)
{
	char *branches[SS_RANK_MAX_BRANCHES], when[32];
	const ss_review_cache_data *d;
	ss_review_cache *c;
	ss_review_item *items;
	int64_t now = (int64_t)time(NULL);
	size_t m = 0;
	struct tm tm;
	time_t t;
	int rc, decided;

	if ((rc = ss_review_cache_load(&c, cache, key))) {
		if (rc != SS_ENOTFOUND)
			die("%s", ss_error_last());
		return 0;
	}
	d = ss_review_cache_get(c);
	if (nnamed) {
		s->nb = cli_decision_branches(branches, SS_RANK_MAX_BRANCHES, s->ix, path, repo, named,
					      nnamed);
	} else {
		for (s->nb = 0; s->nb < d->nbranches && s->nb < SS_RANK_MAX_BRANCHES; s->nb++)
			if (!(branches[s->nb] = strdup(d->branches[s->nb])))
				die("out of memory");
	}
	s->branches = branches;
	/* a decision taken back since: that row is a candidate again */
	for (size_t i = 0; i < d->nhidden; i++) {
		if (ss_review_cache_decided(&decided, s->ix, d->hidden[i],
					    (const char *const *)branches, s->nb, now))
			die("cannot read the decisions of '%s': %s", path, ss_error_last());
		if (!decided) {
			for (size_t b = 0; b < s->nb; b++)
				free(branches[b]);
			ss_review_cache_free(c);
			return 0;
		}
	}
	if (!(items = calloc(d->n + 1, sizeof(*items))))
		die("out of memory");
	for (size_t i = 0; i < d->n; i++) {
		if (ss_review_cache_decided(&decided, s->ix, d->items[i].id,
					    (const char *const *)branches, s->nb, now))
			die("cannot read the decisions of '%s': %s", path, ss_error_last());
		if (!decided)
			items[m++] = d->items[i];
	}
	t = (time_t)d->made;
	snprintf(when, sizeof(when), "?");
	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	note("reusing the ranking of %s: the index, the model and the options are unchanged "
	     "(%zu of its %zu candidates undecided; --fresh ranks again)", when, m, d->n);
	run_session(s, items, m);
	free(items);
	for (size_t b = 0; b < s->nb; b++)
		free(branches[b]);
	ss_review_cache_free(c);
	return 1;
}

/* Keep the candidates of this start for the next one; a failure to keep
 * them is said and the review goes on. */
static void keep(const char *cache, const ss_review_cache_key key, const cli_ranking *k,
		 const ss_review_item *items, size_t n, char *const *branches, size_t nb)
{
	size_t rows = ss_ranking_count(k->r), nh = 0;
	const char **hidden = calloc(rows + 1, sizeof(*hidden));
	ss_review_cache_data d;

	if (!hidden)
		die("out of memory");
	/* the rows rank hid as decided for every branch */
	for (size_t i = 0; i < rows; i++) {
		ss_rank_row w;

		ss_ranking_row(&w, k->r, i);
		if (!w.shown && *w.review && !(w.flags & SS_RANK_EXTRA))
			hidden[nh++] = w.id;
	}
	d = (ss_review_cache_data){ items, n, (const char *const *)branches, nb, hidden, nh,
				    (int64_t)time(NULL) };
	if (ss_review_cache_save(cache, key, &d))
		warning("cannot keep the ranking for the next review: %s", ss_error_last());
	free(hidden);
}

static void interactive(cli_ranking *k, cli_source_args *src, const char *const *named,
			size_t nnamed, int fresh, const char *cmdline, const char **specs, int nspecs)
{
	char *branches[SS_RANK_MAX_BRANCHES], *path = NULL, *who = NULL, *cache = NULL;
	ss_review_cache_key key;
	struct session s;
	ss_review_item *items;
	ss_strbuf *bufs;
	size_t n, nb;
	const char *repo = src->repo ? src->repo : ".";

	if (ss_run_repo(k->run, repo) ? ss_repo_identity(&who, ss_run_repo(k->run, repo))
				      : ss_git_identity(&who, repo))
		die("%s", ss_error_last());
	s.ix = cli_decisions_open(k->hist_args.ix.db, src->repo, 1, &path, k->run);
	/* the ranking reads the index through the one connection that
	 * writes the decisions (without --db and --repo it reads none) */
	if ((k->hist_args.ix.db || src->repo) &&
	    ss_run_index_use(k->run, s.ix, path, k->hist_args.ix.db, src->repo))
		die("%s", ss_error_last());
	s.path = path;
	s.who = who;
	if (ss_review_cache_path(&cache, path))
		die("out of memory");
	if (!fresh) {
		start_key(key, s.ix, path, k, cmdline);
		if (reuse(&s, cache, key, named, nnamed, path, src->repo))
			goto free_all;
	}
	cli_ranking_load(k);
	cli_ranking_run(k, src, specs, nspecs);
	if (nnamed || !k->nonto) {
		nb = cli_decision_branches(branches, SS_RANK_MAX_BRANCHES, s.ix, path, src->repo,
					   named, nnamed);
	} else {
		for (nb = 0; nb < k->nonto; nb++)
			if (!(branches[nb] = strdup(k->ident[nb] ? k->ident[nb]
						    : ss_run_branches_name(k->br, nb))))
				die("out of memory");
	}
	s.branches = branches;
	s.nb = nb;
	n = make_items(&items, &bufs, k);
	/* the key as the run left the index (it may keep features) */
	start_key(key, s.ix, path, k, cmdline);
	keep(cache, key, k, items, n, branches, nb);
	run_session(&s, items, n);
	for (size_t i = 0; i < S_PER_ITEM * n; i++)
		ss_strbuf_release(&bufs[i]);
	free(bufs);
	free(items);
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
