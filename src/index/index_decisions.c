/*
 * index_decisions.c - the review decisions kept in the project index
 * (index_decisions.h): recording, reading, the "backported" an update
 * derives, and merging an imported set, all as rows appended to a log;
 * the branch identity decisions are kept under.
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "index/index_decisions.h"
#include "index/index_impl.h"
#include "util/error.h"
#include "util/hexid.h"
#include "util/suggest.h"
#include "util/strbuf.h"
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

int ss_index_decisions_migrate_4(ss_index *ix)
{
	sqlite3_stmt *st;
	int rc, table;

	if ((rc = ss_index_prepare(&st, ix, "SELECT EXISTS (SELECT 1 FROM sqlite_master"
				   " WHERE name = 'decisions' AND type = 'table')")))
		return rc;
	rc = sqlite3_step(st);
	table = rc == SQLITE_ROW && sqlite3_column_int(st, 0);
	rc = rc == SQLITE_ROW ? 0 : ss_index_sql_error(ix, "read the schema");
	sqlite3_finalize(st);
	if (rc)
		return rc;
	return ss_index_exec(ix, table ? SS_INDEX_DECISIONS_MIGRATE_4 : SS_INDEX_DECISIONS_SCHEMA,
			     "migrate the decisions");
}

/* Whether s is 40 lower-case hex digits: the one spelling of an id kept,
 * so that a commit never has two decisions on a branch. */
static int lower_full_id(const char *s)
{
	size_t n = strlen(s);

	if (!ss_hexid_is_full(s, n))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] >= 'A' && s[i] <= 'F')
			return 0;
	return 1;
}

static int check_decision(ss_index *ix, const ss_decision *d)
{
	(void)ix;
	if (!lower_full_id(d->commit))
		return ss_error_code(SS_EINVALID, "decision for '%.40s': not a full commit id "
				     "(40 lower-case hex digits)", d->commit);
	if (!d->branch || !*d->branch)
		return ss_error_code(SS_EINVALID, "decision for %.12s: no branch", d->commit);
	if (d->state <= SS_DECISION_NONE || d->state >= SS_DECISION_NSTATES)
		return ss_error_code(SS_EINVALID, "decision for %.12s: no state", d->commit);
	if (d->patch_id[0] && !lower_full_id(d->patch_id))
		return ss_error_code(SS_EINVALID, "decision for %.12s: patch id '%.40s' is not 40 "
				     "lower-case hex digits", d->commit, d->patch_id);
	{
		const char *text[4] = { d->branch, d->until, d->who, d->note };
		static const char *const what[4] = { "branch", "until", "who", "note" };

		for (int i = 0; i < 4; i++)
			if (text[i] && !ss_utf8_valid(text[i], strlen(text[i])))
				return ss_error_code(SS_EINVALID, "decision for %.12s: its %s is not "
						     "valid UTF-8", d->commit, what[i]);
	}
	if (d->time < 0 || d->time > SS_DECISION_TIME_MAX)
		return ss_error_code(SS_EINVALID, "decision for %.12s: time %lld is out of range "
				     "(0 to %lld, the end of year 9999)", d->commit, (long long)d->time,
				     (long long)SS_DECISION_TIME_MAX);
	return 0;
}

/* A row appended to the log; the patch id of an indexed commit is the
 * index's (ss_index_decisions_import() refuses another). */
#define APPEND_SQL \
	"INSERT INTO decision_log(commit_id, branch, patch_id, state, until, who, time, note, logged," \
	" undo) VALUES(?1, ?2, COALESCE((SELECT patch_id FROM commits WHERE id = ?1), NULLIF(?3, ''))," \
	" ?4, ?5, ?6, ?7, ?8, ?9, ?10)"

static int put(ss_index *ix, sqlite3_stmt *st, const ss_decision *d)
{
	int64_t now = (int64_t)time(NULL);
	int rc;

	sqlite3_bind_text(st, 1, d->commit, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, d->branch, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, d->patch_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, ss_decision_state_name(d->state), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, d->until ? d->until : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, d->who ? d->who : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, d->time);
	sqlite3_bind_text(st, 8, d->note ? d->note : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 9, d->logged ? d->logged : now);
	sqlite3_bind_int(st, 10, d->undo);
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
	if (!(rc = ss_index_prepare(&st, ix, APPEND_SQL)))
		rc = put(ix, st, d);
	sqlite3_finalize(st);
	/* tests: a writer holding the lock (tests/test_decisions.c) */
	ss_test_point("decision");
	return end(ix, rc);
}

/* The columns every reader selects, from decisions d (commits c joined). */
#define COLUMNS "d.commit_id, d.patch_id, d.branch, d.state, d.until, d.who, d.time, d.note," \
	" c.id IS NOT NULL, COALESCE(c.subject, ''), d.logged, d.undo"

/* The latest row of commit on branch (a reset's too) into *d, its
 * strings st's; *found 0 when the log has none. */
#define LATEST_SQL "SELECT " COLUMNS " FROM decision_log d LEFT JOIN commits c ON c.id = d.commit_id" \
	" WHERE d.commit_id = ?1 AND d.branch = ?2 ORDER BY d.seq DESC LIMIT 1 OFFSET ?3"

static int read_row(ss_decision *d, ss_index *ix, sqlite3_stmt *st);

/* Row skip back from the latest of commit on branch (0: the latest). */
static int latest(ss_decision *d, int *found, ss_index *ix, sqlite3_stmt *st, const char *commit,
		  const char *branch, int skip)
{
	int rc;

	*found = 0;
	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, commit, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, branch, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, skip);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*found = 1;
		return read_row(d, ix, st);
	}
	return rc == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "read the decisions");
}

/* A reset: a "none" row, when there is a decision to take back. */
static int reset_in(ss_index *ix, const char *commit, const char *branch, int *removed)
{
	sqlite3_stmt *get = NULL, *set = NULL;
	ss_decision d;
	int found, rc;

	*removed = 0;
	if ((rc = ss_index_prepare(&get, ix, LATEST_SQL)) ||
	    (rc = latest(&d, &found, ix, get, commit, branch, 0)) || !found ||
	    d.state == SS_DECISION_NONE)
		goto finalize;
	memset(&d, 0, sizeof(d));
	snprintf(d.commit, sizeof(d.commit), "%s", commit);
	d.branch = branch;
	d.state = SS_DECISION_NONE;
	d.time = (int64_t)time(NULL);
	if (!(rc = ss_index_prepare(&set, ix, APPEND_SQL)) && !(rc = put(ix, set, &d)))
		*removed = 1;
finalize:
	sqlite3_finalize(get);
	sqlite3_finalize(set);
	return rc;
}

int ss_index_decision_reset(ss_index *ix, const char *commit, const char *branch, int *removed)
{
	int gone = 0, rc;

	if (removed)
		*removed = 0;
	if ((rc = begin(ix)))
		return rc;
	rc = reset_in(ix, commit, branch, &gone);
	if (!(rc = end(ix, rc)) && removed)
		*removed = gone;
	return rc;
}

/* Undo: the row before the latest, appended again (its who, time and
 * note: a colleague's decision comes back as it was), else a reset. */
static int undo_in(ss_index *ix, const char *commit, const char *branch, int *restored)
{
	sqlite3_stmt *get = NULL, *set = NULL;
	ss_decision d;
	int found, rc;

	*restored = 0;
	if ((rc = ss_index_prepare(&get, ix, LATEST_SQL)) ||
	    (rc = latest(&d, &found, ix, get, commit, branch, 0)) || !found ||
	    (rc = latest(&d, &found, ix, get, commit, branch, 1)))
		goto finalize;
	if (!found) {
		memset(&d, 0, sizeof(d));
		snprintf(d.commit, sizeof(d.commit), "%s", commit);
		d.branch = branch;
		d.state = SS_DECISION_NONE;
		d.time = (int64_t)time(NULL);
	}
	d.logged = 0;
	d.undo = 1;
	if (!(rc = ss_index_prepare(&set, ix, APPEND_SQL)) && !(rc = put(ix, set, &d)))
		*restored = 1 + (d.state != SS_DECISION_NONE);
finalize:
	sqlite3_finalize(get);
	sqlite3_finalize(set);
	return rc;
}

int ss_index_decision_undo(ss_index *ix, const char *commit, const char *branch, int *restored)
{
	int done = 0, rc;

	if (restored)
		*restored = 0;
	if ((rc = begin(ix)))
		return rc;
	rc = undo_in(ix, commit, branch, &done);
	if (!(rc = end(ix, rc)) && restored)
		*restored = done;
	return rc;
}

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
	if (strcmp(ss_index_col_text(st, 3), "none") &&
	    ss_decision_state_parse(&d->state, ss_index_col_text(st, 3))) {
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
	d->logged = ss_index_col_time(st, 10);
	d->undo = sqlite3_column_int(st, 11);
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
	if ((rc = ss_index_prepare(&st, ix, "SELECT " COLUMNS " FROM " SS_INDEX_DECISIONS_CURRENT " d"
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

/* Each row of st's query to cb, then st finalized. */
static int each_row(ss_index *ix, sqlite3_stmt *st, int (*cb)(const ss_decision *d, void *ud),
		    void *ud)
{
	ss_decision d;
	int rc;

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

int ss_index_for_each_decision(ss_index *ix, const char *branch,
			       int (*cb)(const ss_decision *d, void *ud), void *ud)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = ss_index_prepare(&st, ix, "SELECT " COLUMNS " FROM " SS_INDEX_DECISIONS_CURRENT " d"
				   " LEFT JOIN commits c ON c.id = d.commit_id"
				   " WHERE ?1 IS NULL OR d.branch = ?1 ORDER BY d.branch, d.commit_id")))
		return rc;
	if (branch)
		sqlite3_bind_text(st, 1, branch, -1, SQLITE_STATIC);
	return each_row(ix, st, cb, ud);
}

int ss_index_for_each_decision_log(ss_index *ix, const char *branch,
				   int (*cb)(const ss_decision *d, void *ud), void *ud)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = ss_index_prepare(&st, ix, "SELECT " COLUMNS " FROM decision_log d"
				   " LEFT JOIN commits c ON c.id = d.commit_id"
				   " WHERE ?1 IS NULL OR d.branch = ?1 ORDER BY d.seq")))
		return rc;
	if (branch)
		sqlite3_bind_text(st, 1, branch, -1, SQLITE_STATIC);
	return each_row(ix, st, cb, ud);
}

int ss_index_decisions_any(ss_index *ix, const char *branch, int *out)
{
	sqlite3_stmt *st;
	int rc;

	*out = 0;
	if ((rc = ss_index_prepare(&st, ix, "SELECT EXISTS (SELECT 1 FROM " SS_INDEX_DECISIONS_CURRENT
				   " d WHERE ?1 IS NULL OR d.branch = ?1)")))
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
 * patch id, on the branch under any of its names ("origin/21.11" is
 * "21.11"): a row appended, what an update and a fresh build both find. */
static const char *const derive_sql =
	"INSERT INTO decision_log(commit_id, branch, patch_id, state, until, who, time, note, logged)"
	" SELECT up, br, pid, 'backported', until, 'stablesel index', time,"
	" 'taken as ' || substr(bc, 1, 12) || ' (' || how || ')'"
	"  || CASE WHEN note <> '' THEN '; ' || note ELSE '' END, time"
	" FROM (SELECT d.commit_id AS up, d.branch AS br, d.patch_id AS pid, d.until AS until,"
	"  d.note AS note, b.commit_id AS bc, b.how AS how, b.time AS time,"
	"  row_number() OVER (PARTITION BY d.commit_id, d.branch ORDER BY b.time, b.commit_id) AS rn"
	"  FROM " SS_INDEX_DECISIONS_CURRENT " d JOIN backports b"
	"  ON (b.branch = d.branch OR substr(b.branch, instr(b.branch, '/') + 1) = d.branch)"
	"  AND (b.upstream_id = d.commit_id OR b.upstream_id IN"
	"   (SELECT id FROM commits WHERE patch_id = d.patch_id))"
	"  WHERE d.state <> 'backported')"
	" WHERE rn = 1 ORDER BY up, br";

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

/* The patch id the index holds for commit into out ("" when none). */
static int indexed_patch_id(char out[41], sqlite3_stmt *st, const char *commit)
{
	const char *pid;
	int rc;

	out[0] = '\0';
	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, commit, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(st)) != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 : -1;
	pid = ss_index_col_text(st, 0);
	if (ss_hexid_is_full(pid, strlen(pid)))
		snprintf(out, 41, "%s", pid);
	return 0;
}

/* Each imported decision's patch id against the index's for its commit:
 * a mismatch would have the decision answer for another commit. */
static int check_patch_ids(ss_index *ix, const ss_decision *decisions, size_t n)
{
	sqlite3_stmt *st;
	char pid[41];
	int rc;

	if ((rc = ss_index_prepare(&st, ix, "SELECT patch_id FROM commits WHERE id = ?")))
		return rc;
	for (size_t i = 0; i < n && !rc; i++) {
		const ss_decision *d = &decisions[i];

		if (indexed_patch_id(pid, st, d->commit))
			rc = ss_index_sql_error(ix, "read the commits");
		else if (*d->patch_id && *pid && strcmp(d->patch_id, pid))
			rc = ss_error_code(SS_EINVALID, "decision for %.12s on %s: patch id %.12s is not "
					   "the commit's (%.12s in the index)", d->commit, d->branch,
					   d->patch_id, pid);
	}
	sqlite3_finalize(st);
	return rc;
}

/* One imported decision t against the log's latest row for it. */
static int import_one(ss_index *ix, sqlite3_stmt *get, sqlite3_stmt *set, const ss_decision *t,
		      void (*conflict)(const ss_decision *theirs, const ss_decision *ours,
				       int theirs_won, void *ud),
		      void *ud, size_t st3[3])
{
	ss_decision o;
	int found, newer = 1, rc;

	if ((rc = latest(&o, &found, ix, get, t->commit, t->branch, 0)))
		return rc;
	if (found) {
		newer = t->time > o.time;
		/* a reset is no decision to conflict with, but its time counts */
		if (o.state != SS_DECISION_NONE && !same(t, &o) && conflict) {
			conflict(t, &o, newer, ud);
			st3[2]++;
		}
	}
	if (newer && !(found && same(t, &o) && !strcmp(t->who, o.who))) {
		ss_decision w = *t;

		w.logged = 0;
		w.undo = 0;
		st3[0]++;
		return put(ix, set, &w);
	}
	st3[1]++;
	return 0;
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
	if ((rc = check_patch_ids(ix, decisions, n)) || (rc = begin(ix)))
		return rc;
	if ((rc = ss_index_prepare(&get, ix, LATEST_SQL)) ||
	    (rc = ss_index_prepare(&set, ix, APPEND_SQL)))
		goto finalize;
	for (i = 0; i < n && !rc; i++)
		rc = import_one(ix, get, set, &decisions[i], conflict, ud, st3);
finalize:
	sqlite3_finalize(get);
	sqlite3_finalize(set);
	if ((rc = end(ix, rc)))
		return rc;
	if (stats)
		memcpy(stats, st3, sizeof(st3));
	return 0;
}

/* The local name of a ref the index lists: "21.11" of "origin/21.11", but
 * a local branch with a '/' in its name ("a/b", recorded "local:a/b" in
 * meta by the layout) is itself. */
static const char *ref_local_of(ss_index *ix, const char *name)
{
	const char *slash = strchr(name, '/');
	char key[1100], v[8];

	if (!slash)
		return name;
	snprintf(key, sizeof(key), "local:%s", name);
	if (ix && ss_index_meta_get(ix, key, v, sizeof(v)) == 0 && v[0])
		return name;
	ss_error_clear();
	return slash + 1;
}

/* name without "refs/heads/", "refs/remotes/". */
static const char *strip_ref(const char *name)
{
	if (!strncmp(name, "refs/heads/", 11))
		return name + 11;
	if (!strncmp(name, "refs/remotes/", 13))
		return name + 13;
	return name;
}

/* The index's stable ref that name spells (its local name into out). */
static int identity_by_name(char *out, size_t size, int *found, ss_index *ix, const char *name)
{
	sqlite3_stmt *st;
	int rc;

	*found = 0;
	if ((rc = ss_index_prepare(&st, ix, "SELECT name FROM refs WHERE kind = 'stable' ORDER BY"
				   " instr(name, '/') > 0, name")))
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && !*found) {
		const char *r = ss_index_col_text(st, 0);

		if (!strcmp(r, name) || !strcmp(ref_local_of(ix, r), name) ||
		    !strcmp(ref_local_of(ix, r), ref_local_of(ix, name))) {
			snprintf(out, size, "%s", ref_local_of(ix, r));
			*found = 1;
		}
	}
	rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "read the refs");
	sqlite3_finalize(st);
	return rc;
}

/* The full id name stands for in the index: a release tag or an indexed
 * commit ("" when neither). */
static int identity_commit(char out[41], ss_index *ix, const char *name)
{
	sqlite3_stmt *st;
	int rc;

	out[0] = '\0';
	if ((rc = ss_index_prepare(&st, ix, "SELECT commit_id FROM releases WHERE tag = ?")))
		return rc;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		rc = ss_index_col_id(out, ix, st, 0, "release commit");
	else
		rc = rc == SQLITE_DONE ? 0 : ss_index_sql_error(ix, "read the releases");
	sqlite3_finalize(st);
	if (rc || out[0] || !ss_hexid_is_prefix(name))
		return rc;
	rc = ss_index_resolve(out, ix, name);
	if (rc == SS_ENOTFOUND)
		out[0] = '\0';
	return rc == SS_ENOTFOUND ? 0 : rc;
}

/* The one stable branch the index recorded commit on. */
static int identity_by_commit(char *out, size_t size, int *found, ss_index *ix, const char *name,
			      const char *commit)
{
	sqlite3_stmt *st;
	int rc;

	*found = 0;
	if ((rc = ss_index_prepare(&st, ix, "SELECT DISTINCT bc.branch"
				   " FROM branch_commits bc JOIN refs r ON r.name = bc.branch"
				   " AND r.kind = 'stable' WHERE bc.commit_id = ? ORDER BY 1")))
		return rc;
	sqlite3_bind_text(st, 1, commit, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *b = ref_local_of(ix, ss_index_col_text(st, 0));

		/* a branch and its remote-tracking copy are one */
		if (*found && !strcmp(out, b))
			continue;
		if (*found) {
			rc = ss_error_code(SS_EINVALID, "'%.80s' is on several stable branches (%s, %s): "
					   "name the branch with --branch", name, out, b);
			break;
		}
		snprintf(out, size, "%s", b);
		*found = 1;
	}
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		rc = 0;
	else if (rc > 0)
		rc = ss_index_sql_error(ix, "read the stable branches");
	sqlite3_finalize(st);
	return rc;
}

/* Whether name is an entry of the ", "-separated list. */
static int listed(const ss_strbuf *list, const char *name)
{
	const char *p = list->buf, *e;
	size_t n = strlen(name);

	for (; p && *p; p = *e ? e + 2 : e) {
		e = strstr(p, ", ");
		if (!e)
			e = p + strlen(p);
		if ((size_t)(e - p) == n && !strncmp(p, name, n))
			return 1;
	}
	return 0;
}

/* SS_ENOTFOUND: name is no branch of the index; which ones it knows, and
 * the nearest. */
static int unknown_branch(ss_index *ix, const char *name)
{
	ss_strbuf known = SS_STRBUF_INIT;
	const char *best = NULL;
	char *near = NULL;
	size_t dist = SIZE_MAX;
	sqlite3_stmt *st;
	int rc;

	if ((rc = ss_index_prepare(&st, ix, "SELECT name FROM refs WHERE kind = 'stable' ORDER BY 1")))
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *b = ref_local_of(ix, ss_index_col_text(st, 0));

		/* a branch and its remote-tracking copy are named once */
		if (listed(&known, b))
			continue;

		ss_strbuf_addf(&known, "%s%s", known.len ? ", " : "", b);
		best = NULL;
		ss_suggest_consider(&best, &dist, ref_local_of(ix, strip_ref(name)), b);
		if (best) {
			/* the row's text lives until the next step: keep a copy */
			free(near);
			near = strdup(b);
		}
	}
	if (rc == SQLITE_DONE)
		rc = ss_error_code(SS_ENOTFOUND, "unknown stable branch '%.80s'%s%s%s (index '%s' knows: "
				   "%s)", name, near ? "; did you mean '" : "", near ? near : "",
				   near ? "'?" : "", ix->path, known.len ? known.buf : "none");
	else
		rc = ss_index_sql_error(ix, "read the refs");
	sqlite3_finalize(st);
	ss_strbuf_release(&known);
	free(near);
	return rc;
}

int ss_index_branch_identity(char *out, size_t size, ss_index *ix, const char *name,
			     const char *commit)
{
	const char *n = strip_ref(name);
	char id[41];
	int found, rc;

	if ((rc = identity_by_name(out, size, &found, ix, n)) || found)
		return rc;
	if (!commit || !*commit) {
		if ((rc = identity_commit(id, ix, n)))
			return rc;
		commit = id;
	}
	if (*commit && ((rc = identity_by_commit(out, size, &found, ix, name, commit)) || found))
		return rc;
	return unknown_branch(ix, name);
}
