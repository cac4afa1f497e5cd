/*
 * replay_cut.c - honest replays (replay_cut.h): ranking onto a
 * stable branch set back to an older point (a copy of 22.11 at v22.11.1)
 * reads what the stable branches carried at that point, not what the
 * project index learnt since.  The flags ("already in stable ..."), the
 * precedents' "stable"/"not in stable" and the rows' labels all come
 * from the index's backports table; a backport committed after the
 * newest --onto tip is left out of it.  ("already" verdicts need no cut:
 * a branch set back is read from the repository, up to its tip.)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/replay_cut.h"

#include "check/check.h"
#include "eval/eval.h"
#include "source/git.h"
#include "util/error.h"

/* Whether the index holds the branch at its tip: then it is no replay. */
struct tip_match {
	const char *ref;    /* "refs/heads/22.11", "refs/remotes/origin/22.11" */
	const char *name;   /* "22.11" */
	const char *tip;
	int found;
};

static int match_tip(const ss_index_ref *r, void *ud)
{
	struct tip_match *m = ud;
	const char *s = m->ref;

	if (!strncmp(s, "refs/heads/", 11))
		s += 11;
	else if (!strncmp(s, "refs/remotes/", 13))
		s += 13;
	if (strcmp(r->tip, m->tip))
		return 0;
	m->found |= !strcmp(r->name, s) || !strcmp(ss_git_branch_local(r->name), m->name);
	return 0;
}

struct cut {
	ss_backports *l;
	int64_t before;     /* backports committed after it are left out */
	size_t kept, dropped;
	int64_t newest;
};

static int add_if_before(const ss_index_backport *b, void *ud)
{
	struct cut *c = ud;

	if (b->time > c->newest)
		c->newest = b->time;
	if (b->time > c->before) {
		c->dropped++;
		return 0;
	}
	c->kept++;
	return ss_backports_add_known(c->l, b->upstream, b->branch);
}

/* The newest committer time of the onto tips (*cut, INT64_MIN when none
 * can be read), which one, and whether any of them is set back from the
 * index's ref. */
struct clock {
	int64_t cut;
	const char *newest_name;
	char newest_tip[41];
	size_t set_back;
};

static int find_cut(struct clock *k, ss_index *ix, const char *path, const char *repo,
		    ss_repo *rh, const char *const *onto, size_t n)
{
	int rc;

	memset(k, 0, sizeof(*k));
	k->cut = INT64_MIN;
	for (size_t b = 0; b < n; b++) {
		ss_check_options co = SS_CHECK_OPTIONS_INIT;
		struct tip_match m;
		ss_check *ck;
		int64_t t = 0;

		co.rev = onto[b];
		co.repo = rh;
		/* a branch that cannot be read is said by the branches' own
		 * reading, later */
		if (ss_check_open(&ck, repo, &co)) {
			k->set_back = 0;
			return 0;
		}
		m.ref = ss_check_branch_ref(ck);
		m.name = ss_check_branch_name(ck);
		m.tip = ss_check_branch_id(ck);
		m.found = 0;
		if ((rc = ss_index_for_each_ref(ix, match_tip, &m))) {
			ss_check_free(ck);
			return ss_run_fail(rc, "cannot read the refs of '%s'", path);
		}
		k->set_back += !m.found;
		if (ss_check_in_branch(ck, m.tip, NULL, &t) == 1 && t > k->cut) {
			k->cut = t;
			k->newest_name = onto[b];
			snprintf(k->newest_tip, sizeof(k->newest_tip), "%s", m.tip);
		}
		ss_check_free(ck);
	}
	return 0;
}

int ss_run_replay_clock(int64_t *out, ss_index *ix, const char *path, const char *repo,
			ss_repo *rh, const char *const *onto, size_t n)
{
	struct clock k;
	int rc;

	*out = 0;
	if ((rc = find_cut(&k, ix, path, repo, rh, onto, n)))
		return rc;
	if (k.set_back && k.cut != INT64_MIN)
		*out = k.cut;
	return 0;
}

int ss_run_replay_cut(ss_backports **out, ss_index *ix, const char *path, const char *repo,
		      ss_repo *rh, const char *const *onto, size_t n, const ss_run_report *rp)
{
	const char *newest_name;
	char date[16], *newest_tip;
	struct clock k;
	int64_t cut;
	struct cut c;
	size_t set_back;
	int rc;

	*out = NULL;
	if ((rc = find_cut(&k, ix, path, repo, rh, onto, n)))
		return rc;
	cut = k.cut;
	set_back = k.set_back;
	newest_name = k.newest_name;
	newest_tip = k.newest_tip;
	if (!set_back || cut == INT64_MIN)
		return 0;
	memset(&c, 0, sizeof(c));
	c.before = cut;
	c.newest = INT64_MIN;
	if ((rc = ss_backports_new(&c.l, NULL)))
		return rc;
	if ((rc = ss_index_for_each_backport(ix, add_if_before, &c))) {
		ss_backports_free(c.l);
		return ss_run_fail(rc, "cannot read the backports from '%s'", path);
	}
	if (!c.dropped) {
		/* nothing the index knows is newer than the branches */
		ss_backports_free(c.l);
		return 0;
	}
	ss_format_date(date, cut);
	ss_run_say(rp, SS_RUN_NOTE, "replay cut at %s: %s is at %.12s, before the newest backports "
		   "of index '%s'; %zu backport%s committed later %s left out of the flags, labels "
		   "and precedents", date, newest_name, newest_tip, path, c.dropped,
		   c.dropped == 1 ? "" : "s", c.dropped == 1 ? "is" : "are");
	*out = c.l;
	return 0;
}
