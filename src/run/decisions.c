/*
 * decisions.c - the review decisions applied to a ranking (decisions.h).
 * Moved from the command side, cmd/decisions_cli.c (cli_decisions_apply,
 * cli_decision_active); the index is opened for a ranking by
 * run/rank_onto.c, and cmd/ prints.
 */
#include "run/decisions.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "history/histidx.h"
#include "util/error.h"
#include "util/strbuf.h"

int ss_run_date_parse(int64_t *out, const char *s)
{
	struct tm tm;
	int y, m, d, len = 0;
	time_t t;

	if (strlen(s) != 10 || sscanf(s, "%4d-%2d-%2d%n", &y, &m, &d, &len) != 3 || len != 10 ||
	    s[4] != '-' || s[7] != '-')
		return ss_error_code(SS_EINVALID, "'%.40s' is no date (YYYY-MM-DD)", s);
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = m - 1;
	tm.tm_mday = d;
	t = timegm(&tm);
	/* timegm moves 2019-02-30 to 03-02: the calendar has no such day */
	if (y < 1970 || tm.tm_year != y - 1900 || tm.tm_mon != m - 1 || tm.tm_mday != d)
		return ss_error_code(SS_EINVALID, "'%.40s' is no day of the calendar", s);
	*out = (int64_t)t;
	return 0;
}

/* Whether s has the shape of a date (digits and dashes), right or wrong. */
static int date_shaped(const char *s)
{
	return strlen(s) >= 8 && strspn(s, "0123456789-") == strlen(s) && isdigit((unsigned char)*s);
}

/* Whether version v is newer than every release of its line in rs, or,
 * its line having none, than the newest release. */
static int release_to_come(const ss_release_version *v, const ss_releases *rs)
{
	const char *newest = NULL;
	int line = 0;

	for (size_t i = 0; i < ss_releases_count(rs); i++) {
		ss_release_version k;

		if (ss_release_version_parse(&k, ss_releases_get(rs, i)->tag))
			continue;
		if (!newest || strverscmp(k.text, newest) > 0)
			newest = ss_releases_get(rs, i)->tag;
		if (!strcmp(k.major, v->major) && !strcmp(k.minor, v->minor)) {
			line = 1;
			if (strverscmp(v->text, k.text) <= 0)
				return 0;
		}
	}
	if (line || !newest)
		return 1;
	{
		ss_release_version n;

		return !ss_release_version_parse(&n, newest) && strverscmp(v->text, n.text) > 0;
	}
}

int ss_run_decision_until_check(ss_index *ix, const char *path, const char *until, int *future)
{
	ss_index_tag_place t;
	ss_release_version v;
	ss_releases *rs = NULL;
	int64_t when;
	int rc, ok;

	*future = 0;
	if (!*until)
		return 0;
	if (date_shaped(until))
		return ss_run_date_parse(&when, until);
	if (!(rc = ss_index_where_tag(&t, ix, until))) {
		ss_index_tag_place_release(&t);
		return 0;
	}
	if (rc != SS_ENOTFOUND)
		return rc;
	if ((rc = ss_index_load_releases(&rs, ix)))
		return ss_run_fail(rc, "cannot read the releases of '%s'", path);
	ok = !ss_release_version_parse(&v, until) && release_to_come(&v, rs);
	ss_releases_free(rs);
	if (!ok)
		return ss_error_code(SS_EINVALID, "--until %.80s: index '%s' has no release of that "
				     "name and it names no release to come (a release tag of the index, "
				     "a newer version, or a date YYYY-MM-DD)", until, path);
	*future = 1;
	return 0;
}

int ss_run_decision_active(ss_index *ix, const ss_decision *d, int64_t now)
{
	ss_index_tag_place t;
	int64_t when;

	if (d->state != SS_DECISION_DEFERRED || !*d->until)
		return 1;
	if (!ss_run_date_parse(&when, d->until))
		return now < when;
	/* a release: the deferral ends when the index has it, released by now
	 * (a replay's clock is older than the index) */
	if (ss_index_where_tag(&t, ix, d->until))
		return 1;
	when = t.time;
	ss_index_tag_place_release(&t);
	return now < when;
}


int ss_run_decisions_apply(ss_ranking *r, ss_index *ix, const char *path,
			   const ss_run_decisions_options *o)
{
	char *const *names = o->branches;
	size_t nb = o->nbranches, hidden = 0, qb = 0, n = ss_ranking_count(r);
	int queue = 0, rc = 0;
	ss_strbuf text = SS_STRBUF_INIT;

	if (o->queue && nb) {
		if ((qb = o->queue_branch) >= nb)
			return ss_error_code(SS_EINVALID, "no stable branch %zu for a queue", qb);
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
		ss_run_say(o->report, SS_RUN_NOTE, "%zu decided candidate%s hidden (every branch has a "
			   "decision; --all lists them)", hidden, hidden == 1 ? "" : "s");
	if (queue)
		ss_run_say(o->report, SS_RUN_NOTE, "the queue of %s holds its accepted commits only "
			   "(it has review decisions)", names[qb]);
	return 0;
}

static int add_rejected(const ss_decision *d, void *ud)
{
	uint32_t id;

	if (d->state != SS_DECISION_REJECTED)
		return 0;
	return ss_strmap_intern(ud, d->commit, strlen(d->commit), &id);
}

int ss_run_decisions_rejected(ss_strmap **out, ss_index *ix, const char *path)
{
	int rc;

	if ((rc = ss_strmap_new(out)))
		return rc;
	if ((rc = ss_index_for_each_decision(ix, NULL, add_rejected, *out))) {
		ss_strmap_free(*out);
		*out = NULL;
		return ss_run_fail(rc, "cannot read the decisions of '%s'", path);
	}
	return 0;
}
