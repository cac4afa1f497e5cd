/*
 * decisions.c - what mark, status and review share, and the review
 * decisions applied to a ranking (decisions.h; docs/review.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decisions.h"
#include "source/git.h"
#include "util/error.h"
#include "util/hexid.h"
#include "util/strbuf.h"

ss_index *cli_decisions_open(const char *db, const char *repo, int write, char **path)
{
	ss_index *ix = NULL;

	*path = NULL;
	if (db ? !(*path = strdup(db)) : ss_index_default_path(path, repo ? repo : "."))
		die("%s", db ? "out of memory" : ss_error_last());
	if (ss_index_open(&ix, *path, write ? SS_INDEX_WRITE : SS_INDEX_READ))
		die("%s", ss_error_last());
	if (write) {
		int empty = 0;

		/* a file just made, or a build that never finished, holds no
		 * commits to decide on */
		if (ss_index_is_empty(ix, &empty) || empty) {
			ss_index_free(ix);
			die("index '%s' holds no commits: run 'stablesel index' first", *path);
		}
	}
	if (repo && ss_index_check_repository(ix, repo)) {
		char *msg = strdup(ss_error_last());

		ss_index_free(ix);
		die("%s", msg ? msg : "out of memory");
	}
	return ix;
}

size_t cli_decision_branches(char **out, size_t max, ss_index *ix, const char *path,
			     const char *const *named, size_t n)
{
	size_t more = 0;

	if (n) {
		for (size_t i = 0; i < n && i < max; i++)
			if (!(out[i] = strdup(named[i])))
				die("out of memory");
		return n < max ? n : max;
	}
	n = cli_index_branches(out, max, &more, ix, path);
	if (!n)
		die("index '%s' knows no live stable branch: name one with --branch", path);
	if (more)
		warning("%zu more stable branches than %zu: name them with --branch", more, max);
	return n;
}

int cli_decision_commit(char out[41], ss_index *ix, const char *repo, const char *arg)
{
	int rc = ss_hexid_is_prefix(arg) ? ss_index_resolve(out, ix, arg) : SS_ENOTFOUND;

	if (!rc)
		return 0;
	if (rc == SS_ENOTFOUND && repo && !ss_git_resolve(out, repo, arg))
		return 0;
	if (rc == SS_ENOTFOUND)
		error("unknown commit '%s': not in the index%s", arg, repo ? " nor in the repository" : "");
	else
		error("%s", ss_error_last());
	return -1;
}

const char *cli_decision_date(char buf[16], int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	snprintf(buf, 16, "?");
	if (gmtime_r(&tt, &tm))
		strftime(buf, 16, "%Y-%m-%d", &tm);
	return buf;
}

int cli_decision_active(ss_index *ix, const ss_decision *d, int64_t now)
{
	struct tm tm;
	int y, m, day;
	char end;

	if (d->state != SS_DECISION_DEFERRED || !*d->until)
		return 1;
	if (sscanf(d->until, "%4d-%2d-%2d%c", &y, &m, &day, &end) == 3) {
		memset(&tm, 0, sizeof(tm));
		tm.tm_year = y - 1900;
		tm.tm_mon = m - 1;
		tm.tm_mday = day;
		return now < (int64_t)timegm(&tm);
	}
	/* a release: the deferral ends when the index has it */
	{
		ss_index_tag_place t;

		if (ss_index_where_tag(&t, ix, d->until))
			return 1;
		ss_index_tag_place_release(&t);
		return 0;
	}
}

void cli_decisions_apply(cli_ranking *k, const char *repo)
{
	char *names[SS_RANK_MAX_BRANCHES], *path = NULL;
	size_t nb = 0, more = 0, hidden = 0, qb = 0, n = ss_ranking_count(k->r);
	int queue = 0;
	int64_t now = (int64_t)time(NULL);
	ss_strbuf text = SS_STRBUF_INIT;
	ss_index *ix;

	if (k->hist_args.ix.no_index || !(ix = cli_index_open(&k->hist_args.ix, repo, &path)))
		return;
	/* no decision at all: nothing to look up for each row */
	if (ss_index_decisions_any(ix, NULL, &queue))
		die("cannot read the decisions of '%s': %s", path, ss_error_last());
	if (!queue) {
		ss_index_free(ix);
		free(path);
		return;
	}
	queue = 0;
	if (k->nonto) {
		for (nb = 0; nb < k->nonto; nb++)
			if (!(names[nb] = strdup(ss_run_branches_name(k->br, nb))))
				die("out of memory");
	} else {
		nb = cli_index_branches(names, SS_RANK_MAX_BRANCHES, &more, ix, path);
	}
	if (k->queue_extras && nb) {
		for (qb = 0; k->queue_branch && qb < nb; qb++)
			if (!strcmp(k->queue_branch, names[qb]) || !strcmp(k->queue_branch, k->onto[qb]))
				break;
		if (qb == nb)
			qb = 0;
		if (ss_index_decisions_any(ix, names[qb], &queue))
			die("cannot read the decisions of '%s': %s", path, ss_error_last());
	}
	for (size_t i = 0; i < n; i++) {
		size_t decided = 0;
		int pick = 0;
		ss_rank_row w;

		ss_ranking_row(&w, k->r, i);
		ss_strbuf_reset(&text);
		for (size_t b = 0; b < nb; b++) {
			ss_decision_owned o;
			int found;

			if (ss_index_decision_get(&o, &found, ix, w.id, names[b]))
				die("cannot read the decisions of '%s': %s", path, ss_error_last());
			if (!found)
				continue;
			if (cli_decision_active(ix, &o.d, now)) {
				decided++;
				if (queue && b == qb)
					pick = ss_decision_is_pick(o.d.state);
				ss_strbuf_addf(&text, "%s%s %s", text.len ? ", " : "",
					       ss_decision_state_name(o.d.state), names[b]);
			} else {
				ss_strbuf_addf(&text, "%sdeferral ended %s", text.len ? ", " : "", names[b]);
			}
			ss_decision_owned_release(&o);
		}
		if (ss_ranking_set_review(k->r, i, text.buf, queue && pick))
			die("out of memory");
		if (queue ? !pick : nb && decided == nb && !k->show_decided) {
			hidden += w.shown && !queue;
			ss_ranking_restrict(k->r, i, 0, 0);
		}
	}
	if (hidden)
		note("%zu decided candidates hidden (every branch has a decision; --all lists them)",
		     hidden);
	if (queue)
		note("the queue of %s holds its accepted commits only (it has review decisions)",
		     names[qb]);
	ss_strbuf_release(&text);
	for (size_t b = 0; b < nb; b++)
		free(names[b]);
	ss_index_free(ix);
	free(path);
}
