/*
 * decisions_status.c - the review decisions as "stablesel status" shows
 * them (decisions_status.h): counted per state, walked in the order they
 * are listed, and the log of the changes.  Moved from the command side,
 * cmd/status.c, which prints what these hand it.
 */
#include "run/decisions_status.h"

#include <string.h>

static int count_one(const ss_decision *d, void *ud)
{
	ss_run_decisions_count *c = ud;

	c->count[d->state]++;
	c->unknown += !d->known;
	return 0;
}

int ss_run_decisions_status_count(ss_run_decisions_count *out, ss_index *ix,
				  const char *branch)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ss_index_for_each_decision(ix, branch, count_one, out)))
		return rc;
	for (int st = SS_DECISION_NONE + 1; st < SS_DECISION_NSTATES; st++)
		out->total += out->count[st];
	return 0;
}

/* One walk of the list: the index's decisions in one state, or
 * (unknown) those it no longer holds. */
struct listing {
	int unknown;
	ss_decision_state state;
	ss_run_decision_fn fn;
	void *ud;
};

static int list_one(const ss_decision *d, void *ud)
{
	struct listing *l = ud;

	if (l->unknown ? d->known : !d->known || d->state != l->state)
		return 0;
	return l->fn(d, l->ud);
}

int ss_run_decisions_status_list(ss_index *ix, const char *branch,
				 const ss_run_decisions_count *c, ss_run_decision_fn fn, void *ud)
{
	struct listing l = { 0, SS_DECISION_NONE, fn, ud };
	int rc;

	/* one walk a state: the index gives them by commit, status shows
	 * them by state */
	for (int st = SS_DECISION_NONE + 1; st < SS_DECISION_NSTATES && c->total; st++) {
		l.state = (ss_decision_state)st;
		if ((rc = ss_index_for_each_decision(ix, branch, list_one, &l)))
			return rc;
	}
	if (c->unknown) {
		l.unknown = 1;
		if ((rc = ss_index_for_each_decision(ix, branch, list_one, &l)))
			return rc;
	}
	return 0;
}

int ss_run_decisions_status_log(ss_index *ix, char *const *branches, size_t nb, size_t nnamed,
				ss_run_decision_fn fn, void *ud)
{
	int rc;

	/* every branch's changes in one history unless a branch was named */
	if (!nnamed)
		return ss_index_for_each_decision_log(ix, NULL, fn, ud);
	for (size_t b = 0; b < nb; b++)
		if ((rc = ss_index_for_each_decision_log(ix, branches[b], fn, ud)))
			return rc;
	return 0;
}
