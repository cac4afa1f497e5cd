/*
 * review_session.c - a review's start, its candidates as the review
 * loop's items, the decisions it records and the ranking it keeps for the
 * next start and reuses there (review_session.h).  Moved from the
 * command side, cmd/review.c, which reads the keys, prints the screen
 * and dies on what these return.
 */
#include "run/review_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "models/bands.h"
#include "run/decisions.h"
#include "run/decisions_open.h"
#include "source/ident.h"
#include "util/error.h"
#include "util/strbuf.h"

int ss_run_review_open(ss_index **ix, char **path, char **who, char **cache, const char *db,
		       const char *repo, ss_run *run)
{
	const char *here = repo ? repo : ".";
	int rc;

	*ix = NULL;
	*path = *who = *cache = NULL;
	if ((rc = ss_run_repo(run, here) ? ss_repo_identity(who, ss_run_repo(run, here))
					 : ss_git_identity(who, here)))
		return rc;
	if ((rc = ss_run_decisions_open(ix, path, db, repo, 1, run)))
		return rc;
	/* the ranking reads the index through the one connection that
	 * writes the decisions (without --db and --repo it reads none) */
	if ((db || repo) && (rc = ss_run_index_use(run, *ix, *path, db, repo)))
		return rc;
	if (ss_review_cache_path(cache, *path))
		return ss_error_code(SS_ENOMEM, "out of memory");
	return 0;
}

int ss_run_review_decide(const ss_review_item *it, ss_decision_state state, const char *text,
			 const char *until, void *ud)
{
	const ss_run_review_session *s = ud;
	ss_decision d;
	int rc, future;

	memset(&d, 0, sizeof(d));
	memcpy(d.commit, it->id, 40);
	d.state = state;
	/* d's "until when": a real date, a release of the index or one to
	 * come (else the screen says why and asks again) */
	if (until && (rc = ss_run_decision_until_check(s->ix, s->path, until, &future)))
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

int ss_run_review_undo(const ss_review_item *it, void *ud)
{
	const ss_run_review_session *s = ud;
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

struct ss_run_review_items {
	ss_review_item *items;
	ss_strbuf *bufs;        /* S_PER_ITEM a candidate: its strings */
	size_t n;
};

/* Row i's strings: its verdicts (with the prerequisites accepting it pulls
 * in), flags, the explanation (reasons in words as rank gives them, its
 * precedents from settled history), date, conflicts. */
static void item_text(ss_strbuf *s, const ss_ranking *r, size_t i, const ss_rank_row *w)
{
	ss_rank_precedent pr[3];
	size_t np;
	time_t t = (time_t)w->author_time;
	struct tm tm;
	char date[16];

	for (size_t b = 0; b < w->nverdicts; b++) {
		const ss_verdict_data *v = &w->verdicts[b];

		ss_strbuf_addf(&s[S_VERDICTS], "%s: %s%s%s%s\n", ss_ranking_branch(r, b), v->text,
			       *v->detail ? " (" : "", v->detail, *v->detail ? ")" : "");
		if (v->propose && v->nneeds) {
			ss_strbuf_adds(&s[S_VERDICTS], "  accepting it pulls into the queue: ");
			ss_ranking_needs_text(&s[S_VERDICTS], r, v);
			ss_strbuf_adds(&s[S_VERDICTS], "\n");
		}
		if (v->word == SS_VERDICT_UNKNOWN)
			ss_strbuf_addf(&s[S_CONFLICT], "%s%s: %s", s[S_CONFLICT].len ? "; " : "",
				       ss_ranking_branch(r, b), *v->detail ? v->detail : "unknown");
	}
	ss_rank_flags_text(&s[S_FLAGS], w, "; ");
	if (w->nreasons) {
		ss_strbuf_adds(&s[S_REASONS], "because\n  ");
		ss_rank_reasons_text(&s[S_REASONS], w, w->nreasons, "\n  ");
		ss_strbuf_adds(&s[S_REASONS], "\n");
	}
	np = ss_ranking_precedents(pr, 3, r, i);
	for (size_t j = 0; j < np; j++) {
		ss_strbuf_adds(&s[S_REASONS], j ? "      " : "like  ");
		ss_rank_precedent_text(&s[S_REASONS], &pr[j], 0);
		ss_strbuf_adds(&s[S_REASONS], "\n");
	}
	snprintf(date, sizeof(date), "?");
	if (gmtime_r(&t, &tm))
		strftime(date, sizeof(date), "%Y-%m-%d", &tm);
	ss_strbuf_adds(&s[S_DATE], date);
}

int ss_run_review_items_new(ss_run_review_items **out, const ss_ranking *r)
{
	size_t n = ss_ranking_count(r), m = 0;
	ss_run_review_items *it = calloc(1, sizeof(*it));

	*out = NULL;
	if (!it || !(it->items = calloc(n + 1, sizeof(*it->items))) ||
	    !(it->bufs = calloc(S_PER_ITEM * (n + 1), sizeof(*it->bufs)))) {
		ss_run_review_items_free(it);
		return ss_error_code(SS_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		ss_strbuf *s = &it->bufs[S_PER_ITEM * m];
		ss_rank_row w;

		ss_ranking_row(&w, r, i);
		if (!offered(&w))
			continue;
		for (int j = 0; j < S_PER_ITEM; j++)
			s[j] = (ss_strbuf)SS_STRBUF_INIT;
		item_text(s, r, i, &w);
		it->items[m] = (ss_review_item){ .id = w.id, .subject = w.subject, .author = w.author,
						 .score = w.score, .band = ss_band_name(w.band),
						 .message = w.message, .diff = w.diff,
						 .manual_only = !w.pick };
		m++;
	}
	/* the strings moved while they grew: take them now */
	for (size_t i = 0; i < m; i++) {
		ss_strbuf *s = &it->bufs[S_PER_ITEM * i];

		it->items[i].verdicts = s[S_VERDICTS].buf ? s[S_VERDICTS].buf : "";
		it->items[i].flags = s[S_FLAGS].buf ? s[S_FLAGS].buf : "";
		it->items[i].reasons = s[S_REASONS].buf ? s[S_REASONS].buf : "";
		it->items[i].date = s[S_DATE].buf ? s[S_DATE].buf : "";
		it->items[i].conflict = s[S_CONFLICT].buf ? s[S_CONFLICT].buf : "";
	}
	it->n = m;
	*out = it;
	return 0;
}

const ss_review_item *ss_run_review_items_get(const ss_run_review_items *it, size_t *n)
{
	*n = it->n;
	return it->items;
}

void ss_run_review_items_free(ss_run_review_items *it)
{
	if (!it)
		return;
	if (it->bufs)
		for (size_t i = 0; i < S_PER_ITEM * it->n; i++)
			ss_strbuf_release(&it->bufs[i]);
	free(it->bufs);
	free(it->items);
	free(it);
}

int ss_run_review_key(ss_review_cache_key out, ss_index *ix, const char *path, const char *model,
		      const char *cmdline)
{
	char cwd[4096];
	const char *parts[] = { SS_VERSION, getcwd(cwd, sizeof(cwd)) ? cwd : "", cmdline };

	return ss_review_cache_key_of(out, ix, path, model, parts, 3);
}

int ss_run_review_branches(char **out, size_t *n, size_t max, ss_index *ix, const char *path,
			   const char *repo, const ss_run_review_branch_source *src,
			   const ss_run_report *rp)
{
	const char *name;

	*n = 0;
	if (src->nnamed || (!src->kept && !src->nonto))
		return ss_run_decision_branches(out, n, max, ix, path, repo, src->named,
						src->nnamed, rp);
	for (; *n < (src->kept ? src->kept->nbranches : src->nonto) && *n < max; ++*n) {
		name = src->kept ? src->kept->branches[*n]
		     : src->ident[*n] ? src->ident[*n] : ss_run_branches_name(src->br, *n);
		if (!(out[*n] = strdup(name)))
			return ss_error_code(SS_ENOMEM, "out of memory");
	}
	return 0;
}

int ss_run_review_undecided(ss_review_item **out, size_t *n, const ss_review_cache_data *d,
			    const ss_run_review_session *s, int64_t now)
{
	const char *const *branches = (const char *const *)s->branches;
	ss_review_item *items;
	int decided;

	*out = NULL;
	*n = 0;
	/* a decision taken back since: that row is a candidate again */
	for (size_t i = 0; i < d->nhidden; i++) {
		if (ss_review_cache_decided(&decided, s->ix, d->hidden[i], branches, s->nb, now))
			return ss_run_fail(SS_ERROR, "cannot read the decisions of '%s'", s->path);
		if (!decided)
			return 0;
	}
	if (!(items = calloc(d->n + 1, sizeof(*items))))
		return ss_error_code(SS_ENOMEM, "out of memory");
	for (size_t i = 0; i < d->n; i++) {
		if (ss_review_cache_decided(&decided, s->ix, d->items[i].id, branches, s->nb, now)) {
			free(items);
			return ss_run_fail(SS_ERROR, "cannot read the decisions of '%s'", s->path);
		}
		if (!decided)
			items[(*n)++] = d->items[i];
	}
	*out = items;
	return 0;
}

int ss_run_review_reuse(ss_run_review_reused *out, ss_run_review_session *s, const char *cache,
			const ss_review_cache_key key, const char *const *named, size_t nnamed,
			const char *repo, int64_t now, const ss_run_report *rp)
{
	ss_run_review_branch_source from = { named, nnamed, NULL, NULL, NULL, 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	s->branches = NULL;
	s->nb = 0;
	if ((rc = ss_review_cache_load(&out->cache, cache, key)))
		return rc == SS_ENOTFOUND ? 0 : rc;
	from.kept = ss_review_cache_get(out->cache);
	out->nkept = from.kept->n;
	out->made = from.kept->made;
	s->branches = out->branches;
	if ((rc = ss_run_review_branches(out->branches, &s->nb, SS_RANK_MAX_BRANCHES, s->ix,
					 s->path, repo, &from, rp)) ||
	    (rc = ss_run_review_undecided(&out->items, &out->n, from.kept, s, now)) ||
	    !out->items) {
		/* on error too: the branches are read up to the failing one */
		ss_run_review_reused_release(out);
		s->branches = NULL;
		s->nb = 0;
	}
	return rc;
}

void ss_run_review_reused_release(ss_run_review_reused *r)
{
	for (size_t b = 0; b < SS_RANK_MAX_BRANCHES; b++)
		free(r->branches[b]);
	free(r->items);
	ss_review_cache_free(r->cache);
	memset(r, 0, sizeof(*r));
}

int ss_run_review_keep(const char *cache, const ss_review_cache_key key, const ss_ranking *r,
		       const ss_review_item *items, size_t n, const ss_run_review_session *s)
{
	size_t rows = ss_ranking_count(r), nh = 0;
	const char **hidden = calloc(rows + 1, sizeof(*hidden));
	ss_review_cache_data d;
	int rc;

	if (!hidden)
		return ss_error_code(SS_ENOMEM, "out of memory");
	/* the rows rank hid as decided for every branch */
	for (size_t i = 0; i < rows; i++) {
		ss_rank_row w;

		ss_ranking_row(&w, r, i);
		if (!w.shown && *w.review && !(w.flags & SS_RANK_EXTRA))
			hidden[nh++] = w.id;
	}
	d = (ss_review_cache_data){ items, n, (const char *const *)s->branches, s->nb, hidden, nh,
				    (int64_t)time(NULL) };
	rc = ss_review_cache_save(cache, key, &d);
	free(hidden);
	return rc;
}
