/*
 * decisions.c - the review decisions applied to a ranking (decisions.h).
 * Moved from cmd/decisions.c (cli_decisions_apply, cli_decision_active).
 */
#include "run/decisions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/error.h"
#include "util/strbuf.h"

int ss_run_decision_active(ss_index *ix, const ss_decision *d, int64_t now)
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


int ss_run_decisions_apply(ss_ranking *r, ss_index *ix, const char *path,
			   const ss_run_decisions_options *o)
{
	char *const *names = o->branches;
	size_t nb = o->nbranches, hidden = 0, qb = 0, n = ss_ranking_count(r);
	int queue = 0, rc = 0;
	ss_strbuf text = SS_STRBUF_INIT;

	if (o->queue && nb) {
		for (qb = 0; o->queue_branch && qb < nb; qb++)
			if (!strcmp(o->queue_branch, names[qb]) ||
			    (o->onto && !strcmp(o->queue_branch, o->onto[qb])))
				break;
		if (qb == nb)
			qb = 0;
		if ((rc = ss_index_decisions_any(ix, names[qb], &queue)))
			return ss_run_fail(rc, "cannot read the decisions of '%s'", path);
	}
	for (size_t i = 0; i < n && !rc; i++) {
		size_t decided = 0;
		int pick = 0, keeps = 0;
		ss_rank_row w;

		ss_ranking_row(&w, r, i);
		ss_strbuf_reset(&text);
		for (size_t b = 0; b < nb; b++) {
			ss_decision_owned od;
			int found;

			if ((rc = ss_index_decision_get(&od, &found, ix, w.id, names[b]))) {
				rc = ss_run_fail(rc, "cannot read the decisions of '%s'", path);
				break;
			}
			if (!found)
				continue;
			if (ss_run_decision_active(ix, &od.d, o->now)) {
				decided++;
				keeps |= ss_decision_is_pick(od.d.state);
				if (queue && b == qb)
					pick = ss_decision_is_pick(od.d.state);
				ss_strbuf_addf(&text, "%s%s %s", text.len ? ", " : "",
					       ss_decision_state_name(od.d.state), names[b]);
			} else {
				ss_strbuf_addf(&text, "%sdeferral ended %s", text.len ? ", " : "", names[b]);
			}
			ss_decision_owned_release(&od);
		}
		if (!rc && (rc = ss_ranking_set_review(r, i, text.buf, queue && pick)))
			break;
		if (queue ? !pick : nb && decided == nb && !o->show_decided) {
			hidden += w.shown && !queue;
			ss_ranking_restrict(r, i, 0, 0);
		} else if (!queue && nb && decided == nb && !keeps) {
			/* listed (--all), but rejected or deferred everywhere: no pick */
			ss_ranking_restrict(r, i, 0, 1);
		}
	}
	ss_strbuf_release(&text);
	if (rc)
		return rc;
	if (hidden)
		ss_run_say(o->report, SS_RUN_NOTE, "%zu decided candidates hidden (every branch has a "
			   "decision; --all lists them)", hidden);
	if (queue)
		ss_run_say(o->report, SS_RUN_NOTE, "the queue of %s holds its accepted commits only "
			   "(it has review decisions)", names[qb]);
	return 0;
}
