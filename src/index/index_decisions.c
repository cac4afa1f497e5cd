/*
 * index_decisions.c - the review decisions kept in the project index
 * (index/decisions.h): recording, reading, the "backported" an update
 * derives, and merging an imported set.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/decisions.h"
#include "index/index_impl.h"
#include "util/error.h"
#include "util/hexid.h"
#include "util/testhook.h"

static const char *const state_names[SS_DECISION_NSTATES] = {
	"none", "accepted", "rejected", "deferred", "queued", "backported", "failed"
};

const char *ss_decision_state_name(ss_decision_state s)
{
	return (unsigned)s < SS_DECISION_NSTATES ? state_names[s] : "none";
}

int ss_decision_state_parse(ss_decision_state *out, const char *s)
{
	for (int i = 1; i < SS_DECISION_NSTATES; i++)
		if (s && !strcmp(s, state_names[i])) {
			*out = (ss_decision_state)i;
			return 0;
		}
	return ss_error_code(SS_EINVALID, "unknown decision state '%.40s' (accepted, rejected, "
			     "deferred, queued, backported, failed)", s ? s : "");
}

int ss_decision_is_pick(ss_decision_state s)
{
	return s == SS_DECISION_ACCEPTED || s == SS_DECISION_QUEUED || s == SS_DECISION_FAILED;
}

void ss_decision_owned_release(ss_decision_owned *o)
{
	if (!o)
		return;
	free(o->buf);
	memset(o, 0, sizeof(*o));
}

/* A write transaction; SQLite's busy error says who holds the lock. */
static int begin(ss_index *ix)
{
	return ss_index_exec(ix, "BEGIN IMMEDIATE", "record a decision");
}

static int end(ss_index *ix, int rc)
{
	if (!rc && !(rc = ss_index_exec(ix, "COMMIT", "record a decision")))
		return 0;
	sqlite3_exec(ix->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

static int check_decision(ss_index *ix, const ss_decision *d)
{
	(void)ix;
	if (!ss_hexid_is_full(d->commit, strlen(d->commit)))
		return ss_error_code(SS_EINVALID, "decision for '%.40s': not a full commit id", d->commit);
	if (!d->branch || !*d->branch)
		return ss_error_code(SS_EINVALID, "decision for %.12s: no branch", d->commit);
	if (d->state <= SS_DECISION_NONE || d->state >= SS_DECISION_NSTATES)
		return ss_error_code(SS_EINVALID, "decision for %.12s: no state", d->commit);
	if (d->patch_id[0] && !ss_hexid_is_full(d->patch_id, strlen(d->patch_id)))
		return ss_error_code(SS_EINVALID, "decision for %.12s: patch id '%.40s' is not 40 hex "
				     "digits", d->commit, d->patch_id);
	return 0;
}

#define UPSERT_SQL \
	"INSERT OR REPLACE INTO decisions(commit_id, branch, patch_id, state, until, who, time, note)" \
	" VALUES(?1, ?2, COALESCE(NULLIF(?3, ''), (SELECT patch_id FROM commits WHERE id = ?1))," \
	" ?4, ?5, ?6, ?7, ?8)"

static int put(ss_index *ix, sqlite3_stmt *st, const ss_decision *d)
{
	int rc;

	sqlite3_bind_text(st, 1, d->commit, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, d->branch, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, d->patch_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, ss_decision_state_name(d->state), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, d->until ? d->until : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, d->who ? d->who : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, d->time);
	sqlite3_bind_text(st, 8, d->note ? d->note : "", -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "record a decision");
	sqlite3_reset(st);
	return rc;
}

int ss_index_decision_set(ss_index *ix, const ss_decision *d)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if ((rc = check_decision(ix, d)) || (rc = begin(ix)))
		return rc;
	if (!(rc = ss_index_prepare(&st, ix, UPSERT_SQL)))
		rc = put(ix, st, d);
	sqlite3_finalize(st);
	/* tests: a writer holding the lock (tests/test_decisions.c) */
	ss_test_point("decision");
	return end(ix, rc);
}

int ss_index_decision_reset(ss_index *ix, const char *commit, const char *branch, int *removed)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (removed)
		*removed = 0;
	if ((rc = begin(ix)))
		return rc;
	if (!(rc = ss_index_prepare(&st, ix, "DELETE FROM decisions WHERE commit_id = ? AND branch = ?"))) {
		sqlite3_bind_text(st, 1, commit, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, branch, -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "reset a decision");
		if (!rc && removed)
			*removed = sqlite3_changes(ix->db) > 0;
	}
	sqlite3_finalize(st);
	return end(ix, rc);
}

/* The columns every reader selects, from decisions d (commits c joined). */
#define COLUMNS "d.commit_id, d.patch_id, d.branch, d.state, d.until, d.who, d.time, d.note," \
	" c.id IS NOT NULL, COALESCE(c.subject, '')"

/* Row st into *d (strings st's until its next step). */
static int read_row(ss_decision *d, ss_index *ix, sqlite3_stmt *st)
{
	const char *pid = ss_index_col_text(st, 1);
	int rc;

	memset(d, 0, sizeof(*d));
	if ((rc = ss_index_col_id(d->commit, ix, st, 0, "decision commit")))
		return rc;
	if (*pid && ss_hexid_is_full(pid, strlen(pid)))
		snprintf(d->patch_id, sizeof(d->patch_id), "%s", pid);
	d->branch = ss_index_col_text(st, 2);
	if (ss_decision_state_parse(&d->state, ss_index_col_text(st, 3))) {
		char show[48];

		return ss_index_damaged(ix, "decision state '%s' is unknown",
					ss_index_show(show, ss_index_col_text(st, 3)));
	}
	d->until = ss_index_col_text(st, 4);
	d->who = ss_index_col_text(st, 5);
	d->time = ss_index_col_time(st, 6);
	d->note = ss_index_col_text(st, 7);
	d->known = sqlite3_column_int(st, 8);
	d->subject = ss_index_col_text(st, 9);
	return 0;
}

static int own(ss_decision_owned *out, const ss_decision *d)
{
	const char *s[5] = { d->branch, d->until, d->who, d->note, d->subject };
	size_t len[5], total = 0;
	char *p;

	for (int i = 0; i < 5; i++)
		total += (len[i] = strlen(s[i])) + 1;
	if (!(p = malloc(total)))
		return SS_ENOMEM;
	out->d = *d;
	out->buf = p;
	for (int i = 0; i < 5; i++) {
		memcpy(p, s[i], len[i] + 1);
		s[i] = p;
		p += len[i] + 1;
	}
	out->d.branch = s[0];
	out->d.until = s[1];
	out->d.who = s[2];
	out->d.note = s[3];
	out->d.subject = s[4];
	return 0;
}

int ss_index_decision_get(ss_decision_owned *out, int *found, ss_index *ix, const char *commit,
			  const char *branch)
{
	sqlite3_stmt *st;
	ss_decision d;
	int rc;

	*found = 0;
	if ((rc = ss_index_prepare(&st, ix, "SELECT " COLUMNS " FROM decisions d"
				   " LEFT JOIN commits c ON c.id = d.commit_id"
				   " WHERE d.branch = ?2 AND (d.commit_id = ?1 OR d.patch_id ="
				   " (SELECT patch_id FROM commits WHERE id = ?1))"
				   " ORDER BY d.commit_id = ?1 DESC, d.time DESC, d.commit_id LIMIT 1")))
		return rc;
	sqlite3_bind_text(st, 1, commit, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, branch, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (!(rc = read_row(&d, ix, st)) && !(rc = own(out, &d)))
			*found = 1;
	} else {
		rc = rc == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "read the decisions");
	}
	sqlite3_finalize(st);
	return rc;
}

int ss_index_for_each_decision(ss_index *ix, const char *branch,
			       int (*cb)(const ss_decision *d, void *ud), void *ud)
{
	sqlite3_stmt *st;
	ss_decision d;
	int rc;

	if ((rc = ss_index_prepare(&st, ix, "SELECT " COLUMNS " FROM decisions d"
				   " LEFT JOIN commits c ON c.id = d.commit_id"
				   " WHERE ?1 IS NULL OR d.branch = ?1 ORDER BY d.branch, d.commit_id")))
		return rc;
	if (branch)
		sqlite3_bind_text(st, 1, branch, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if ((rc = read_row(&d, ix, st)) || (rc = cb(&d, ud)))
			break;
	if (rc == SQLITE_DONE)
		rc = 0;
	else if (rc > 0)
		rc = ss_index_sql_error(ix, "read the decisions");
	sqlite3_finalize(st);
	return rc;
}

int ss_index_decisions_any(ss_index *ix, const char *branch, int *out)
{
	sqlite3_stmt *st;
	int rc;

	*out = 0;
	if ((rc = ss_index_prepare(&st, ix, "SELECT EXISTS (SELECT 1 FROM decisions"
				   " WHERE ?1 IS NULL OR branch = ?1)")))
		return rc;
	if (branch)
		sqlite3_bind_text(st, 1, branch, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int(st, 0);
	rc = rc == SQLITE_ROW ? 0 : ss_index_sql_error(ix, "read the decisions");
	sqlite3_finalize(st);
	return rc;
}

/* For each decision not yet backported, the first branch commit (by time,
 * then id) carrying its commit, by that id or by a mainline commit of its
 * patch id: what an update and a fresh build both find. */
static const char *const derive_sql =
	"UPDATE decisions SET state = 'backported', who = 'stablesel index', time = t.time,"
	" note = 'taken as ' || substr(t.bc, 1, 12) || ' (' || t.how || ')'"
	"  || CASE WHEN decisions.note <> '' THEN '; ' || decisions.note ELSE '' END"
	" FROM (SELECT d.commit_id AS up, d.branch AS br, b.commit_id AS bc, b.how AS how,"
	"  b.time AS time, row_number() OVER (PARTITION BY d.commit_id, d.branch"
	"  ORDER BY b.time, b.commit_id) AS rn"
	"  FROM decisions d JOIN backports b ON b.branch = d.branch"
	"  AND (b.upstream_id = d.commit_id OR b.upstream_id IN"
	"   (SELECT id FROM commits WHERE patch_id = d.patch_id))"
	"  WHERE d.state <> 'backported') t"
	" WHERE t.rn = 1 AND decisions.commit_id = t.up AND decisions.branch = t.br";

int ss_index_decisions_derive(ss_index *ix, size_t *changed)
{
	int rc = ss_index_exec(ix, derive_sql, "mark the backported decisions");

	if (!rc && changed)
		*changed = (size_t)sqlite3_changes(ix->db);
	return rc;
}

static int same(const ss_decision *a, const ss_decision *b)
{
	return a->state == b->state && !strcmp(a->until, b->until) && !strcmp(a->note, b->note);
}

int ss_index_decisions_import(ss_index *ix, const ss_decision *decisions, size_t n,
			      void (*conflict)(const ss_decision *theirs, const ss_decision *ours,
					       int theirs_won, void *ud),
			      void *ud, size_t stats[3])
{
	sqlite3_stmt *get = NULL, *set = NULL;
	size_t st3[3] = { 0, 0, 0 };
	size_t i;
	int rc;

	for (i = 0; i < n; i++)
		if ((rc = check_decision(ix, &decisions[i])))
			return rc;
	if ((rc = begin(ix)))
		return rc;
	if ((rc = ss_index_prepare(&get, ix, "SELECT " COLUMNS " FROM decisions d"
				   " LEFT JOIN commits c ON c.id = d.commit_id"
				   " WHERE d.commit_id = ? AND d.branch = ?")) ||
	    (rc = ss_index_prepare(&set, ix, UPSERT_SQL)))
		goto finalize;
	for (i = 0; i < n && !rc; i++) {
		const ss_decision *t = &decisions[i];
		ss_decision o;
		int have = 0, newer = 1;

		sqlite3_bind_text(get, 1, t->commit, -1, SQLITE_STATIC);
		sqlite3_bind_text(get, 2, t->branch, -1, SQLITE_STATIC);
		if ((rc = sqlite3_step(get)) == SQLITE_ROW) {
			if ((rc = read_row(&o, ix, get)))
				break;
			have = 1;
			newer = t->time > o.time;
			if (!same(t, &o) && conflict) {
				conflict(t, &o, newer, ud);
				st3[2]++;
			}
		} else if (rc != SQLITE_DONE) {
			rc = ss_index_sql_error(ix, "read the decisions");
			break;
		}
		rc = 0;
		if (newer && !(have && same(t, &o) && !strcmp(t->who, o.who))) {
			rc = put(ix, set, t);
			st3[0]++;
		} else {
			st3[1]++;
		}
		sqlite3_reset(get);
	}
finalize:
	sqlite3_finalize(get);
	sqlite3_finalize(set);
	if ((rc = end(ix, rc)))
		return rc;
	if (stats)
		memcpy(stats, st3, sizeof(st3));
	return 0;
}
