/*
 * replay_cut.c - honest replays (cli.h, cli_replay_cut): ranking onto a
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

#include "cli.h"
#include "check/check.h"
#include "eval/eval.h"
#include "index/index.h"
#include "labels/backports.h"
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

void cli_replay_cut(cli_ranking *k, const char *repo)
{
	const char *onto_repo = k->onto_repo ? k->onto_repo : repo;
	const char *newest_name = NULL;
	char newest_tip[41] = "", *path = NULL, date[16], *msg;
	int64_t cut = INT64_MIN;
	ss_index *ix;
	struct cut c;
	size_t b, set_back = 0;

	/* only the index's table is cut (a --stable tree is the user's) and
	 * only for branches named: the index's own are at their tips */
	if (!k->label || k->stable || !k->nonto || !onto_repo ||
	    !(ix = cli_index_open(&k->hist_args.ix, onto_repo, &path)))
		return;
	for (b = 0; b < k->nonto; b++) {
		ss_check_options co = SS_CHECK_OPTIONS_INIT;
		struct tip_match m;
		ss_check *ck;
		int64_t t = 0;

		co.rev = k->onto[b];
		/* a branch that cannot be read is said by the branches' own
		 * reading, later */
		if (ss_check_open(&ck, onto_repo, &co)) {
			ss_index_free(ix);
			free(path);
			return;
		}
		m.ref = ss_check_branch_ref(ck);
		m.name = ss_check_branch_name(ck);
		m.tip = ss_check_branch_id(ck);
		m.found = 0;
		if (ss_index_for_each_ref(ix, match_tip, &m))
			die("cannot read the refs of '%s': %s", path, ss_error_last());
		set_back += !m.found;
		if (ss_check_in_branch(ck, m.tip, NULL, &t) == 1 && t > cut) {
			cut = t;
			newest_name = k->onto[b];
			snprintf(newest_tip, sizeof(newest_tip), "%s", m.tip);
		}
		ss_check_free(ck);
	}
	if (!set_back || cut == INT64_MIN) {
		ss_index_free(ix);
		free(path);
		return;
	}
	memset(&c, 0, sizeof(c));
	c.before = cut;
	c.newest = INT64_MIN;
	if (ss_backports_new(&c.l, NULL))
		die("out of memory");
	if (ss_index_for_each_backport(ix, add_if_before, &c))
		die("cannot read the backports from '%s': %s", path, ss_error_last());
	ss_index_free(ix);
	if (!c.dropped) {
		/* nothing the index knows is newer than the branches */
		ss_backports_free(c.l);
		free(path);
		return;
	}
	ss_format_date(date, cut);
	if (asprintf(&msg, "replay cut at %s: %s is at %.12s, before the newest backports of index "
		     "'%s'; %zu backport%s committed later %s left out of the flags, labels and "
		     "precedents", date, newest_name, newest_tip, path, c.dropped,
		     c.dropped == 1 ? "" : "s", c.dropped == 1 ? "is" : "are") < 0)
		die("out of memory");
	note("%s", msg);
	free(msg);
	free(path);
	ss_backports_free(k->label);
	k->label = c.l;
	k->ko.stable = c.l;
}
