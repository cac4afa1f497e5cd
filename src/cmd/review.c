/*
 * review.c - "stablesel review": the maintainer's interactive review on a
 * terminal (the loop is rank/review.h's; this file reads the keys and
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
#include "decisions.h"
#include "rank/review.h"
#include "review_share.h"
#include "source/ident.h"
#include "util/error.h"
#include "util/strbuf.h"

static const char *const review_usage[] = {
	"stablesel review [options] [SOURCE...]",
	"stablesel review --export FILE | --import FILE [--db FILE | --repo PATH]",
	"stablesel review --failed-mail -o DIR [--branch B] [--repo PATH]",
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
	char **branches;
	size_t nb;
	const char *who;
};

static int on_decide(const ss_review_item *it, const char *state, const char *text,
		     const char *until, void *ud)
{
	struct session *s = ud;
	ss_decision d;
	int rc;

	memset(&d, 0, sizeof(d));
	memcpy(d.commit, it->id, 40);
	if ((rc = ss_decision_state_parse(&d.state, state)))
		return rc;
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

	for (size_t b = 0; b < s->nb; b++)
		if ((rc = ss_index_decision_reset(s->ix, it->id, s->branches[b], NULL)))
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
					     .message = w.message, .diff = w.diff };
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

static void interactive(cli_ranking *k, cli_source_args *src, const char *const *named,
			size_t nnamed)
{
	char *branches[SS_RANK_MAX_BRANCHES], *path = NULL, *who = NULL, line[4096];
	struct session s;
	ss_review_item *items;
	ss_strbuf *bufs, what = SS_STRBUF_INIT;
	ss_review *rv;
	size_t n, nb;
	const char *repo = src->repo ? src->repo : ".";

	if (ss_git_identity(&who, repo))
		die("%s", ss_error_last());
	s.ix = cli_decisions_open(k->hist_args.ix.db, src->repo, 1, &path);
	if (nnamed || !k->nonto) {
		nb = cli_decision_branches(branches, SS_RANK_MAX_BRANCHES, s.ix, path, named, nnamed);
	} else {
		for (nb = 0; nb < k->nonto; nb++)
			if (!(branches[nb] = strdup(ss_run_branches_name(k->br, nb))))
				die("out of memory");
	}
	for (size_t b = 0; b < nb; b++)
		ss_strbuf_addf(&what, "%s%s", b ? ", " : "", branches[b]);
	s.branches = branches;
	s.nb = nb;
	s.who = who;
	n = make_items(&items, &bufs, k);
	if (ss_review_new(&rv, items, n, what.buf, &(ss_review_ops){ on_decide, on_undo }, &s))
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
	for (size_t i = 0; i < S_PER_ITEM * n; i++)
		ss_strbuf_release(&bufs[i]);
	free(bufs);
	free(items);
	ss_strbuf_release(&what);
	for (size_t b = 0; b < nb; b++)
		free(branches[b]);
	ss_index_free(s.ix);
	free(path);
	free(who);
}

int cmd_review(int argc, const char **argv)
{
	const char *named[SS_RANK_MAX_BRANCHES], *export_file = NULL, *import_file = NULL;
	const char *outdir = NULL, *cc = NULL;
	size_t nnamed = 0;
	int nspecs, failed_mail = 0;
	cli_source_args src;
	cli_ranking k;
	struct cli_option options[] = {
		CLI_INCLUDE(k.options),
		CLI_INCLUDE(src.options),
		CLI_GROUP("Review"),
		CLI_STRLIST("branch", named, &nnamed, "BRANCH",
			    "decide for BRANCH (default: the --onto branches, else every live stable "
			    "branch of the index)"),
		CLI_STRING(0, "export", &export_file, "FILE",
			   "write every decision to FILE as JSON (stable order) and stop"),
		CLI_STRING(0, "import", &import_file, "FILE",
			   "merge the decisions of FILE (JSON, from --export) by time, list conflicts, "
			   "and stop"),
		CLI_FLAG(0, "failed-mail", &failed_mail,
			 "write a mail to the author of each failed pick per branch into -o DIR and stop"),
		CLI_STRING(0, "cc", &cc, "ADDR",
			   "--failed-mail: Cc this list (default: git config stablesel.failedCc)"),
		CLI_STRING('o', "output", &outdir, "DIR", "--failed-mail: the folder the mails go to"),
		CLI_END(),
	};

	cli_ranking_init(&k);
	cli_source_args_init(&src);
	k.cmd = "review";
	nspecs = cli_parse_options(argc, argv, options, review_usage);
	if (!!export_file + !!import_file + failed_mail > 1)
		usage_die("--export, --import and --failed-mail are one at a time");
	if (export_file || import_file) {
		if (nspecs)
			usage_die("--export and --import take no SOURCE");
		return review_share(export_file, import_file, k.hist_args.ix.db, src.repo);
	}
	if (failed_mail) {
		if (!outdir)
			usage_die("--failed-mail needs -o DIR");
		return review_failed_mail(outdir, cc, named, nnamed, k.hist_args.ix.db, src.repo);
	}
	if (outdir || cc)
		usage_die("-o and --cc go with --failed-mail");
	if (!isatty(0) || !isatty(1))
		die("review needs a terminal: in scripts use 'stablesel mark accept|reject|defer "
		    "COMMIT... [--branch B]' and 'stablesel status'");
	k.ko.keep = SS_RANK_KEEP_DETAILS;
	/* e shows precedents: vectors kept for the settled history */
	k.ko.precedents = 1;
	cli_ranking_load(&k);
	cli_ranking_run(&k, &src, argv, nspecs);
	interactive(&k, &src, named, nnamed);
	cli_ranking_free(&k);
	return ss_had_error ? SS_EXIT_BADINPUT : 0;
}
