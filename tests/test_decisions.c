/*
 * test_decisions.c - the review decisions kept in the index
 * (index/index_decisions.h) and the commands around them (mark, status, rank's
 * hiding and queue), on the repository tests/queuerepo.sh makes: state
 * transitions, a decision found again under another id by its patch id,
 * "backported" set by an index update once the branch takes the commit,
 * a decision for a commit the index does not hold kept and listed, the
 * migration from schema 2, two writers at once (nothing lost) and a lock
 * held too long (one clear line), rank hiding decided candidates and the
 * queue holding exactly the accepted ones, applied with git am.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "index/index_decisions.h"
#include "eval/eval.h"
#include "index/index.h"
#include "util/error.h"
#include "testqueue.h"

static ss_index *open_db(ss_index_mode mode)
{
	char path[4200];
	ss_index *ix;

	snprintf(path, sizeof(path), "%s/r/.git/stablesel/index.db", tmp);
	if (ss_index_open(&ix, path, mode))
		fail_msg("%s", ss_error_last());
	return ix;
}

/* The state of commit on branch, SS_DECISION_NONE when none. */
static ss_decision_state state_of(ss_index *ix, const char *commit, const char *branch)
{
	ss_decision_owned o;
	ss_decision_state s;
	int found;

	assert_int_equal(ss_index_decision_get(&o, &found, ix, commit, branch), 0);
	if (!found)
		return SS_DECISION_NONE;
	s = o.d.state;
	ss_decision_owned_release(&o);
	return s;
}

static void test_store_transitions(void **state)
{
	ss_decision d;
	ss_decision_owned o;
	ss_decision_state s;
	char fix[41], dup[41], copy[41];
	int found, removed;
	ss_index *ix;

	(void)state;
	id_of(fix, "fix-intro");
	ix = open_db(SS_INDEX_WRITE);
	memset(&d, 0, sizeof(d));
	memcpy(d.commit, fix, 41);
	d.branch = "stable";
	d.who = "A <a@example.org>";
	d.note = "first";
	d.until = "";
	d.time = 1000;
	assert_int_equal(state_of(ix, fix, "stable"), SS_DECISION_NONE);
	/* every state can follow every other; the last one holds */
	for (int st = SS_DECISION_ACCEPTED; st < SS_DECISION_NSTATES; st++) {
		d.state = (ss_decision_state)st;
		d.time++;
		assert_int_equal(ss_index_decision_set(ix, &d), 0);
		assert_int_equal(state_of(ix, fix, "stable"), st);
		assert_int_equal(state_of(ix, fix, "stable2"), SS_DECISION_NONE);
	}
	d.state = SS_DECISION_DEFERRED;
	d.until = "2030-01-01";
	assert_int_equal(ss_index_decision_set(ix, &d), 0);
	assert_int_equal(ss_index_decision_get(&o, &found, ix, fix, "stable"), 0);
	assert_int_equal(found, 1);
	assert_string_equal(o.d.until, "2030-01-01");
	assert_string_equal(o.d.who, "A <a@example.org>");
	assert_string_equal(o.d.note, "first");
	assert_string_equal(o.d.subject, "fix-intro");
	assert_int_equal(o.d.known, 1);
	assert_int_equal(strlen(o.d.patch_id), 40);  /* taken from the index */
	ss_decision_owned_release(&o);
	assert_int_equal(ss_index_decision_reset(ix, fix, "stable", &removed), 0);
	assert_int_equal(removed, 1);
	assert_int_equal(ss_index_decision_reset(ix, fix, "stable", &removed), 0);
	assert_int_equal(removed, 0);
	assert_int_equal(state_of(ix, fix, "stable"), SS_DECISION_NONE);

	/* the same patch under another id (stable's cherry-pick of dup, no
	 * backport line) finds dup's decision by its patch id */
	id_of(dup, "dup");
	{
		char *c = test_run_output("git -C '%s/r' log --format=%%H --grep '^d.c: fifteen$' stable", tmp);

		assert_int_equal(strlen(c), 41);
		memcpy(copy, c, 40);
		copy[40] = '\0';
		free(c);
	}
	assert_string_not_equal(copy, dup);
	memcpy(d.commit, dup, 41);
	d.state = SS_DECISION_REJECTED;
	d.until = "";
	assert_int_equal(ss_index_decision_set(ix, &d), 0);
	assert_int_equal(state_of(ix, copy, "stable"), SS_DECISION_REJECTED);

	/* what is refused: no full id, no branch, an unknown state word */
	memcpy(d.commit, "1234", 5);
	assert_int_equal(ss_index_decision_set(ix, &d), SS_EINVALID);
	memcpy(d.commit, dup, 41);
	d.branch = "";
	assert_int_equal(ss_index_decision_set(ix, &d), SS_EINVALID);
	assert_int_equal(ss_decision_state_parse(&s, "acepted"), SS_EINVALID);
	assert_int_equal(ss_decision_state_parse(&s, "failed"), 0);
	assert_int_equal(s, SS_DECISION_FAILED);
	assert_true(ss_decision_is_pick(SS_DECISION_ACCEPTED));
	assert_false(ss_decision_is_pick(SS_DECISION_REJECTED));
	ss_index_free(ix);
}

/* mark through status; the branch takes the commit and the next index
 * update says "backported" by itself; reset removes. */
static void test_backported_by_update(void **state)
{
	char fix[41], *out;
	ss_index *ix;

	(void)state;
	id_of(fix, "fix-intro");
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' accept %.10s --branch stable "
				  "--note 'the old bug' 2>/dev/null", tmp, fix), 0);
	out = test_run_output("./stablesel status --repo '%s/r' --branch stable", tmp);
	assert_non_null(strstr(out, "stable: 1 accepted, 0 rejected"));
	assert_non_null(strstr(out, "Tess Maint <tess@example.org>"));
	assert_non_null(strstr(out, ": the old bug"));
	free(out);
	/* the maintainer applies it; the index update resolves it */
	assert_int_equal(test_run("git -C '%s/r' checkout -q stable && git -C '%s/r' cherry-pick -x %s >/dev/null && "
				  "git -C '%s/r' checkout -q main && ./stablesel index --repo '%s/r' >/dev/null 2>&1",
				  tmp, tmp, fix, tmp, tmp), 0);
	ix = open_db(SS_INDEX_READ);
	assert_int_equal(state_of(ix, fix, "stable"), SS_DECISION_BACKPORTED);
	assert_int_equal(state_of(ix, fix, "stable2"), SS_DECISION_NONE);
	ss_index_free(ix);
	out = test_run_output("./stablesel status --repo '%s/r' --branch stable", tmp);
	assert_non_null(strstr(out, "0 accepted, 0 rejected, 0 deferred, 0 queued, 1 backported"));
	assert_non_null(strstr(out, "stablesel index"));
	assert_non_null(strstr(out, "(line); the old bug"));
	free(out);
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' reset %s --branch stable 2>/dev/null", tmp, fix), 0);
	ix = open_db(SS_INDEX_READ);
	assert_int_equal(state_of(ix, fix, "stable"), SS_DECISION_NONE);
	ss_index_free(ix);
	/* bad input: an unknown verb, a commit nobody has */
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' take %s 2>/dev/null", tmp, fix), 129);
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' accept 0123456789abcdef --branch stable "
				  "2>'%s/err'", tmp, tmp), 1);
	assert_int_equal(test_run("grep -q \"unknown commit '0123456789abcdef'\" '%s/err'", tmp), 0);
}

/* A decision for a commit the index no longer holds is kept and listed. */
static void test_unknown_commit_kept(void **state)
{
	char *out;

	(void)state;
	assert_int_equal(test_run("sqlite3 '%s/r/.git/stablesel/index.db' \"INSERT INTO decision_log(commit_id, branch, "
				  "patch_id, state, until, who, time, note) VALUES("
				  "'00000000000000000000000000000000000000aa', 'stable', NULL, 'accepted', '', "
				  "'X <x@example.org>', 1700000000, 'was rebased away')\"", tmp), 0);
	out = test_run_output("./stablesel status --repo '%s/r' --branch stable", tmp);
	assert_non_null(strstr(out, "1 accepted"));
	assert_non_null(strstr(out, "1 not in the index"));
	assert_non_null(strstr(out, "000000000000 (not in the index)"));
	free(out);
	/* an index update keeps it */
	assert_int_equal(test_run("./stablesel index --repo '%s/r' >/dev/null 2>&1 && "
				  "sqlite3 '%s/r/.git/stablesel/index.db' 'SELECT count(*) FROM decisions' | "
				  "grep -qx 1", tmp, tmp), 0);
}

/* An index of schema 2: readers say what to do, a writer migrates it,
 * keeping every row. */
static void test_schema_2(void **state)
{
	char fix[41], *out;

	(void)state;
	id_of(fix, "fix-intro");
	assert_int_equal(test_run("sqlite3 '%s/r/.git/stablesel/index.db' \"DROP VIEW decisions; "
				  "DROP TABLE decision_log; UPDATE meta SET value = '2' WHERE key = 'schema'\"", tmp), 0);
	assert_int_equal(test_run("./stablesel status --repo '%s/r' 2>'%s/err'", tmp, tmp), 128);
	assert_int_equal(test_run("grep -q \"schema version 2, older than this stablesel's 4 "
				  "(run 'stablesel index' to upgrade it)\" '%s/err'", tmp), 0);
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' reject %s --branch stable 2>/dev/null",
				  tmp, fix), 0);
	out = test_run_output("sqlite3 '%s/r/.git/stablesel/index.db' \"SELECT value FROM meta WHERE "
			      "key = 'schema'; SELECT count(*) > 0 FROM commits; SELECT state FROM decisions\"", tmp);
	assert_string_equal(out, "4\n1\nrejected\n");
	free(out);
}

/* An index of schema 3 (one row a decision, replaced in place): a writer
 * migrates it into the log without losing a row, a remote-tracking name
 * taken as the branch's local one. */
static void test_schema_3(void **state)
{
	char fix[41], other[41], *out;

	(void)state;
	id_of(fix, "fix-intro");
	id_of(other, "other14");
	assert_int_equal(test_run("sqlite3 '%s/r/.git/stablesel/index.db' \"DROP VIEW decisions; "
				  "DROP TABLE decision_log; CREATE TABLE decisions(commit_id TEXT NOT NULL, "
				  "branch TEXT NOT NULL, patch_id TEXT, state TEXT NOT NULL, until TEXT NOT NULL "
				  "DEFAULT '', who TEXT NOT NULL, time INTEGER NOT NULL, note TEXT NOT NULL DEFAULT '',"
				  " PRIMARY KEY(commit_id, branch)) WITHOUT ROWID; "
				  "INSERT INTO refs VALUES('origin/stable2', '%s', 'stable'); "
				  "INSERT INTO decisions VALUES('%s', 'stable', NULL, 'rejected', '', 'A <a@x>', 1000, "
				  "'breaks ABI'), ('%s', 'origin/stable2', NULL, 'accepted', '', 'B <b@x>', 2000, ''), "
				  "('00000000000000000000000000000000000000aa', 'stable', NULL, 'deferred', "
				  "'2030-01-01', 'C <c@x>', 3000, 'gone'); "
				  "UPDATE meta SET value = '3' WHERE key = 'schema'\"", tmp, other, fix, other), 0);
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' queue %s --branch stable2 2>/dev/null",
				  tmp, fix), 0);
	out = test_run_output("sqlite3 '%s/r/.git/stablesel/index.db' \"SELECT value FROM meta WHERE "
			      "key = 'schema'; SELECT branch || ' ' || state || ' ' || note FROM decision_log "
			      "ORDER BY seq\"", tmp);
	assert_string_equal(out, "4\nstable rejected breaks ABI\nstable2 accepted \nstable deferred gone\n"
			    "stable2 queued \n");
	free(out);
}

/* A shell loop that returns once the index of tmp/r is found locked for
 * writing twice in a row 50 ms apart (a writer paused at its test point,
 * not a short write of its start), 10 s at most: the second writer then
 * meets the lock whatever the load, where a fixed sleep could start it
 * before the first took the lock. */
#define WAIT_LOCKED                                                                         \
	"i=0; n=0; while [ $n -lt 2 ] && [ $i -lt 200 ]; do "                               \
	"if sqlite3 '%s/r/.git/stablesel/index.db' 'BEGIN IMMEDIATE; ROLLBACK' 2>/dev/null; " \
	"then n=0; else n=$((n + 1)); fi; i=$((i + 1)); sleep 0.05; done; "

/* Two writers at once: the second waits, both decisions are kept; a lock
 * held past the busy timeout is one clear line. */
static void test_two_writers(void **state)
{
	char fix[41], other[41], *out;

	(void)state;
	id_of(fix, "fix-intro");
	id_of(other, "other14");
	assert_int_equal(test_run("(SS_TEST_PAUSE_AT=decision SS_TEST_PAUSE_MS=1500 "
				  "./stablesel mark --repo '%s/r' accept %s --branch stable 2>/dev/null & "
				  WAIT_LOCKED "./stablesel mark --repo '%s/r' reject %s --branch stable 2>/dev/null; "
				  "a=$?; wait $!; exit $((a + $?)))", tmp, fix, tmp, tmp, other), 0);
	out = test_run_output("sqlite3 '%s/r/.git/stablesel/index.db' "
			      "\"SELECT substr(commit_id, 1, 40) || ' ' || state FROM decisions ORDER BY state\"", tmp);
	assert_non_null(strstr(out, "accepted"));
	assert_non_null(strstr(out, "rejected"));
	free(out);
	assert_int_equal(test_run("(SS_TEST_PAUSE_AT=decision SS_TEST_PAUSE_MS=12000 "
				  "./stablesel mark --repo '%s/r' defer %s --branch stable 2>/dev/null & "
				  WAIT_LOCKED "./stablesel mark --repo '%s/r' accept %s --branch stable 2>'%s/err'; "
				  "a=$?; wait; exit $a)", tmp, fix, tmp, tmp, other, tmp), 128);
	assert_int_equal(test_run("grep -q 'is locked by another writer' '%s/err' && "
				  "test $(wc -l <'%s/err') = 1", tmp, tmp), 0);
}

#define RANK "./stablesel rank --repo '%s/r' --rev main --threshold 0 --since 2023-11-15 "

/* rank hides what is decided for every branch and says how many; --all
 * lists them with their state; a queue for a branch with decisions holds
 * exactly its accepted commits (and their prerequisites), and applies. */
static void test_rank_and_queue(void **state)
{
	char fix[41], fixfix[41], other[41], prep[41], helper[41], *out;

	(void)state;
	id_of(fix, "fix-intro");
	id_of(fixfix, "fix-fix");
	id_of(other, "other14");
	id_of(prep, "fix-prep");
	id_of(helper, "use-helper");
	/* before any decision: other14 and fix-prep are proposed */
	out = test_run_output(RANK "--onto stable --format tsv 2>/dev/null", tmp);
	assert_non_null(strstr(out, "\tother14\t"));
	assert_non_null(strstr(out, "\tfix-prep\t"));
	free(out);
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' reject %s %s --branch stable 2>/dev/null && "
				  "./stablesel mark --repo '%s/r' accept %s %s %s --branch stable 2>/dev/null",
				  tmp, other, prep, tmp, fix, fixfix, helper), 0);
	assert_int_equal(test_run(RANK "--onto stable --format tsv >'%s/v.tsv' 2>'%s/err'", tmp, tmp, tmp), 0);
	assert_int_equal(test_run("! grep -q '\tother14\t' '%s/v.tsv' && ! grep -q '\tfix-prep\t' '%s/v.tsv' "
				  "&& ! grep -q '\tfix-intro\t' '%s/v.tsv' && grep -q '\tfix-feat\t' '%s/v.tsv' "
				  "&& grep -q '^note: 5 decided candidates hidden' '%s/err'", tmp, tmp, tmp, tmp, tmp), 0);
	out = test_run_output(RANK "--onto stable --verdicts yes,no,already,unknown --all --format tsv "
			      "2>/dev/null", tmp);
	assert_non_null(strstr(out, "review: rejected stable"));
	assert_non_null(strstr(out, "review: accepted stable"));
	free(out);
	/* the report shows the decided commits with their decisions (issue 35,
	 * case 18: accepted picks were hidden), a rejected one as no pick */
	assert_int_equal(test_run("./stablesel report --repo '%s/r' --rev main --threshold 0 --since 2023-11-15 "
				  "--onto stable -o '%s/r.html' 2>/dev/null && grep -q 'review: rejected stable' '%s/r.html' && "
				  "grep -q \"<span class='f r'>accepted stable</span>\" '%s/r.html' && "
				  "grep \"<span class='f r'>rejected stable</span>\" '%s/r.html' | grep -q \"^<details class='c' \"",
				  tmp, tmp, tmp, tmp, tmp), 0);
	/* the queue: the accepted ones, with other14, use-helper's
	 * prerequisite, although it was rejected on its own */
	assert_int_equal(test_run(RANK "--onto stable --format mbox -o '%s/q.mbox' 2>'%s/err'", tmp, tmp, tmp), 0);
	out = test_run_output("grep '^Subject:' '%s/q.mbox' | sed 's/.*\\] //'", tmp);
	assert_string_equal(out, "fix-intro\nfix-fix\nother14\nuse-helper\n");
	free(out);
	assert_int_equal(test_run("grep -q 'holds its accepted commits only' '%s/err'", tmp), 0);
	assert_int_equal(test_run("rm -rf '%s/am' && git clone -q -b stable '%s/r' '%s/am' && "
				  "git -C '%s/am' -c user.name=T -c user.email=t@e am -q '%s/q.mbox'",
				  tmp, tmp, tmp, tmp, tmp), 0);
	/* stable2 has no decision: its queue is the ranking's, fix-prep in it */
	out = test_run_output(RANK "--onto stable2 --format mbox 2>/dev/null | grep '^Subject:'", tmp);
	assert_non_null(strstr(out, "] fix-prep\n"));
	free(out);
}

#define DB "sqlite3 '%s/r/.git/stablesel/index.db' "

/* Case 1: --onto at an older point of a branch (a tag on it) is that
 * branch: rank hides what was decided for it, and --branch names it for
 * the queue. */
static void test_onto_older_point(void **state)
{
	char other[41], fix[41], *out;

	(void)state;
	id_of(other, "other14");
	id_of(fix, "fix-intro");
	assert_int_equal(test_run("git -C '%s/r' tag stable-old stable~1 && "
				  "./stablesel mark --repo '%s/r' reject %s --branch stable 2>/dev/null && "
				  "./stablesel mark --repo '%s/r' accept %s --branch stable 2>/dev/null",
				  tmp, tmp, other, tmp, fix), 0);
	out = test_run_output(RANK "--onto stable-old --format tsv 2>/dev/null", tmp);
	assert_null(strstr(out, "\tother14\t"));
	assert_null(strstr(out, "\tfix-intro\t"));
	free(out);
	/* --branch names the branch the tag is on: the queue is its accepted */
	assert_int_equal(test_run(RANK "--onto stable-old --queue-branch stable --format mbox -o '%s/q.mbox' "
				  "2>'%s/err'", tmp, tmp, tmp), 0);
	out = test_run_output("grep '^Subject:' '%s/q.mbox' | sed 's/.*\\] //'", tmp);
	assert_string_equal(out, "fix-intro\n");
	free(out);
	out = test_run_output("./stablesel status --repo '%s/r' --branch stable-old", tmp);
	assert_non_null(strstr(out, "stable: 1 accepted, 1 rejected"));
	free(out);
}

/* Case 2: in a clone with only origin/stable, every spelling is one
 * branch: mark, status, rank and the queue agree. */
static void test_remote_tracking(void **state)
{
	char other[41], fix[41], *out;

	(void)state;
	id_of(other, "other14");
	id_of(fix, "fix-intro");
	assert_int_equal(test_run("git clone -q '%s/r' '%s/c' && git -C '%s/c' config user.name C && "
				  "git -C '%s/c' config user.email c@example.org && "
				  "./stablesel index --repo '%s/c' >/dev/null 2>&1", tmp, tmp, tmp, tmp, tmp), 0);
	assert_int_equal(test_run("./stablesel mark --repo '%s/c' reject %s --branch origin/stable 2>/dev/null && "
				  "./stablesel mark --repo '%s/c' accept %s --branch refs/remotes/origin/stable "
				  "2>/dev/null && ./stablesel mark --repo '%s/c' defer %s --branch stable "
				  "--until 2099-01-01 2>/dev/null",
				  tmp, other, tmp, fix, tmp, other), 0);
	out = test_run_output("sqlite3 '%s/c/.git/stablesel/index.db' 'SELECT DISTINCT branch FROM decision_log'",
			      tmp);
	assert_string_equal(out, "stable\n");
	free(out);
	out = test_run_output("./stablesel status --repo '%s/c' 2>/dev/null", tmp);
	assert_non_null(strstr(out, "stable: 1 accepted, 0 rejected, 1 deferred"));
	assert_null(strstr(out, "origin/stable:"));
	free(out);
	out = test_run_output("./stablesel rank --repo '%s/c' --rev main --threshold 0 --since 2023-11-15 "
			      "--onto origin/stable --format mbox 2>/dev/null | grep '^Subject:' | "
			      "sed 's/.*\\] //'", tmp);
	assert_string_equal(out, "fix-intro\n");
	free(out);
}

/* Case 3: a branch the index does not know is a usage error naming the
 * known ones, with the nearest; nothing is written. */
static void test_unknown_branch(void **state)
{
	char other[41];

	(void)state;
	id_of(other, "other14");
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' reject %s --branch stabel 2>'%s/err'",
				  tmp, other, tmp), 129);
	assert_int_equal(test_run("grep -q \"unknown stable branch 'stabel'; did you mean 'stable'?\" '%s/err' && "
				  "grep -q 'knows: stable, stable2' '%s/err'", tmp, tmp), 0);
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' accept %s --branch 22.12 2>'%s/err'",
				  tmp, other, tmp), 129);
	assert_int_equal(test_run("./stablesel status --repo '%s/r' --branch stabel 2>/dev/null", tmp), 129);
	assert_int_equal(test_run(RANK "--onto stable --queue-branch stabel --format mbox >/dev/null 2>'%s/err'",
				  tmp, tmp), 129);
	assert_int_equal(test_run("grep -q \"did you mean 'stable'\" '%s/err'", tmp), 0);
	assert_int_equal(test_run(DB "'SELECT count(*) FROM decision_log' | grep -qx 0", tmp), 0);
}

/*
 * Case 3b: rank's --queue-branch (--branch, its old spelling) is resolved
 * once, before any work (issue 37: it was checked after the whole run,
 * and the decisions' queue fell back to the first branch silently): a
 * branch the index knows but no --onto names is a usage error on one
 * line naming it and the --onto branches, said before the model is
 * chosen (no "rank: ... model" note), with nothing written.
 */
static void test_queue_branch_fails_fast(void **state)
{
	static const char *const spellings[] = { "--queue-branch", "--branch" };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(test_run(RANK "--onto stable %s stable2 --format mbox -o '%s/q.mbox' "
					  "2>'%s/err'", tmp, spellings[i], tmp, tmp), 129);
		assert_int_equal(test_run("head -n 1 '%s/err' | grep -qx 'error: --queue-branch stable2 is "
					  "none of the --onto branches (stable)' && "
					  "test $(grep -c '^error:' '%s/err') = 1 && "
					  "! grep -q '^rank: ' '%s/err' && test ! -e '%s/q.mbox'",
					  tmp, tmp, tmp, tmp), 0);
	}
	/* an --onto branch: the run goes, the model said, the queue written */
	assert_int_equal(test_run(RANK "--onto stable --onto stable2 --queue-branch stable2 --format mbox "
				  "-o '%s/q.mbox' 2>'%s/err' && grep -q '^rank: .*model' '%s/err' && "
				  "test -e '%s/q.mbox'",
				  tmp, tmp, tmp, tmp, tmp), 0);
}

/* Case 4: --until on the real calendar, or a release that can come. */
static void test_until_checked(void **state)
{
	char other[41], *out;

	(void)state;
	id_of(other, "other14");
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' defer %s --branch stable --until 2019-02-30 "
				  "2>'%s/err'", tmp, other, tmp), 129);
	assert_int_equal(test_run("grep -q \"'2019-02-30' is no day of the calendar\" '%s/err'", tmp), 0);
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' defer %s --branch stable --until 2019-13-01 "
				  "2>/dev/null", tmp, other), 129);
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' defer %s --branch stable --until v2.0-typo "
				  "2>'%s/err'", tmp, other, tmp), 129);
	assert_int_equal(test_run("grep -q 'has no release of that name' '%s/err'", tmp), 0);
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' defer %s --branch stable --until 2030-01-15 "
				  "2>/dev/null", tmp, other), 0);
	out = test_run_output(DB "'SELECT until FROM decisions'", tmp);
	assert_string_equal(out, "2030-01-15\n");
	free(out);
}

/* Case 4: a deferral is judged by the replay's clock when --onto is set
 * back (the branch's tip time), by today's otherwise. */
static void test_replay_clock(void **state)
{
	char other[41], *out;

	(void)state;
	id_of(other, "other14");
	assert_int_equal(test_run("git -C '%s/r' tag stable-old stable~1 && "
				  "./stablesel mark --repo '%s/r' defer %s --branch stable --until 2023-11-20 "
				  "2>/dev/null", tmp, tmp, other), 0);
	out = test_run_output(RANK "--onto stable --format tsv 2>/dev/null", tmp);
	assert_non_null(strstr(out, "\tother14\t"));
	free(out);
	out = test_run_output(RANK "--onto stable-old --format tsv 2>'%s/err'", tmp, tmp);
	assert_null(strstr(out, "\tother14\t"));
	free(out);
	/* plural forms */
	assert_int_equal(test_run("grep -q '^note: 1 decided candidate hidden' '%s/err'", tmp), 0);
}

/* Case 5: without --branch, a branch that carries the commit already is
 * skipped and said so; plural forms. */
static void test_reject_skips_carrier(void **state)
{
	char helper[41], other[41], *out;

	(void)state;
	id_of(helper, "helper");
	id_of(other, "other14");
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' reject %s 2>'%s/err'", tmp, helper, tmp), 0);
	assert_int_equal(test_run("grep -q 'skipped on stable, which carries it already' '%s/err' && "
				  "grep -q '^note: 1 decision recorded' '%s/err'", tmp, tmp), 0);
	out = test_run_output(DB "'SELECT branch FROM decisions'", tmp);
	assert_string_equal(out, "stable2\n");
	free(out);
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' reject %s 2>'%s/err' && "
				  "grep -q '^note: 2 decisions recorded' '%s/err'", tmp, other, tmp, tmp), 0);
}

/* Case 6: undo restores what was there before, a colleague's decision
 * and note too; the log keeps every change; status --log lists them. */
static void test_undo_restores(void **state)
{
	ss_decision d;
	ss_decision_owned o;
	char fix[41], *out;
	int found, restored;
	ss_index *ix;

	(void)state;
	id_of(fix, "fix-intro");
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' reject %s --branch stable2 "
				  "--note 'breaks ABI' 2>/dev/null", tmp, fix), 0);
	ix = open_db(SS_INDEX_WRITE);
	memset(&d, 0, sizeof(d));
	memcpy(d.commit, fix, 41);
	d.state = SS_DECISION_ACCEPTED;
	d.who = "Me <me@example.org>";
	d.note = d.until = "";
	d.time = 2000000000;
	d.branch = "stable";
	assert_int_equal(ss_index_decision_set(ix, &d), 0);
	d.branch = "stable2";
	assert_int_equal(ss_index_decision_set(ix, &d), 0);
	assert_int_equal(state_of(ix, fix, "stable2"), SS_DECISION_ACCEPTED);
	assert_int_equal(ss_index_decision_undo(ix, fix, "stable2", &restored), 0);
	assert_int_equal(restored, 2);
	assert_int_equal(ss_index_decision_undo(ix, fix, "stable", &restored), 0);
	assert_int_equal(restored, 1);
	assert_int_equal(state_of(ix, fix, "stable"), SS_DECISION_NONE);
	assert_int_equal(ss_index_decision_get(&o, &found, ix, fix, "stable2"), 0);
	assert_int_equal(found, 1);
	assert_int_equal(o.d.state, SS_DECISION_REJECTED);
	assert_string_equal(o.d.note, "breaks ABI");
	assert_string_equal(o.d.who, "Tess Maint <tess@example.org>");
	ss_decision_owned_release(&o);
	ss_index_free(ix);
	out = test_run_output(DB "'SELECT count(*) FROM decision_log'", tmp);
	assert_string_equal(out, "5\n");
	free(out);
	out = test_run_output("./stablesel status --repo '%s/r' --log --branch stable2", tmp);
	assert_non_null(strstr(out, "stable2  "));
	assert_non_null(strstr(out, "rejected  Tess Maint <tess@example.org>: breaks ABI\n"));
	assert_non_null(strstr(out, "accepted  Me <me@example.org>\n"));
	assert_non_null(strstr(out, "rejected (undo)  Tess Maint"));
	free(out);
}

/* Case 11: what status prints from notes and names is escaped: no line
 * forged, no escape sequence reaches the terminal. */
static void test_status_escapes(void **state)
{
	char fix[41], *out;

	(void)state;
	id_of(fix, "fix-intro");
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' reject %s --branch stable "
				  "--note \"$(printf 'no\\n  accepted   0123456789ab forged\\033[2J')\" 2>/dev/null",
				  tmp, fix), 0);
	out = test_run_output("./stablesel status --repo '%s/r' --branch stable", tmp);
	assert_null(strchr(out, '\033'));
	assert_non_null(strstr(out, ": no\\n  accepted   0123456789ab forged\\x1b[2J\n"));
	assert_null(strstr(out, "\n  accepted"));
	free(out);
	out = test_run_output("./stablesel status --repo '%s/r' --log", tmp);
	assert_null(strchr(out, '\033'));
	assert_non_null(strstr(out, "forged\\x1b[2J\n"));
	free(out);
}

/* An accepted commit the queue cannot carry (the bug is not in the
 * branch) is said on stderr, not dropped silently (issue 35's trial). */
static void test_accepted_left_out(void **state)
{
	char feat[41], fix[41];

	(void)state;
	id_of(feat, "fix-feat");
	id_of(fix, "fix-intro");
	assert_int_equal(test_run("./stablesel mark --repo '%s/r' accept %s %s --branch stable 2>/dev/null",
				  tmp, feat, fix), 0);
	assert_int_equal(test_run(RANK "--onto stable --format mbox -o '%s/q.mbox' 2>'%s/err'", tmp, tmp, tmp), 0);
	assert_int_equal(test_run("grep -q '^Subject: .*fix-intro' '%s/q.mbox' && "
				  "! grep -q '^Subject: .*fix-feat' '%s/q.mbox'", tmp, tmp), 0);
	assert_int_equal(test_run("grep -q \"%.12s (fix-feat) was accepted but is left out of the queue: "
				  "stable: unaffected\" '%s/err' && ! grep -q '(fix-intro) was accepted' '%s/err'",
				  feat, tmp, tmp), 0);
}

static int count_cb(const void *row, void *ud)
{
	(void)row;
	(*(size_t *)ud)++;
	return 0;
}

static int count_backport(const ss_index_backport *b, void *ud)
{
	return count_cb(b, ud);
}

static int count_commit(const ss_histidx_commit *c, void *ud)
{
	return count_cb(c, ud);
}

/*
 * --as-of: what was known at a date.  At 2023-11-15T07:00 (hour 9.5 of
 * queuerepo.sh) main ends at other14, the branches have no backport yet,
 * a release tagged on a later commit does not exist and today's decisions
 * were not made.  Read at the index (ss_index_as_of) and through rank.
 */
static void test_as_of(void **state)
{
	char other[41], path[4200], *out;
	size_t n_now = 0, n_then = 0, c_now = 0, c_then = 0;
	ss_releases *rel;
	ss_index *ix;
	int64_t t;
	int any;

	(void)state;
	id_of(other, "other14");
	assert_int_equal(ss_parse_date(&t, "2023-11-15T07:00"), 0);
	assert_int_equal(t, 1699997400 + 9 * 3600 + 1800);
	assert_int_equal(test_run("git -C '%s/r' tag v1.0 $(git -C '%s/r' log --format=%%H -1 --grep='^dup$' main) && "
				  "./stablesel index --repo '%s/r' >/dev/null 2>&1 && "
				  "./stablesel mark --repo '%s/r' reject %s --branch stable 2>/dev/null",
				  tmp, tmp, tmp, tmp, other), 0);
	snprintf(path, sizeof(path), "%s/r/.git/stablesel/index.db", tmp);
	assert_int_equal(ss_index_open(&ix, path, SS_INDEX_READ), 0);
	assert_int_equal(ss_index_for_each_backport(ix, count_backport, &n_now), 0);
	assert_int_equal(ss_index_for_each_commit(ix, count_commit, &c_now), 0);
	assert_int_equal(ss_index_decisions_any(ix, NULL, &any), 0);
	assert_true(any);
	assert_int_equal(ss_index_load_releases(&rel, ix), 0);
	assert_int_equal(ss_releases_count(rel), 1);
	ss_releases_free(rel);
	assert_int_equal(ss_index_as_of(ix, t), 0);
	assert_int_not_equal(ss_index_as_of(ix, t), 0);  /* once */
	assert_int_equal(ss_index_as_of_time(ix), t);
	assert_int_equal(ss_index_for_each_backport(ix, count_backport, &n_then), 0);
	assert_int_equal(ss_index_for_each_commit(ix, count_commit, &c_then), 0);
	assert_true(n_now >= 3);
	assert_int_equal(n_then, 0);
	/* main's base .. other14: ten of fourteen */
	assert_int_equal(c_now - c_then, 4);
	assert_int_equal(ss_index_decisions_any(ix, NULL, &any), 0);
	assert_false(any);
	assert_int_equal(ss_index_load_releases(&rel, ix), 0);
	assert_int_equal(ss_releases_count(rel), 0);
	ss_releases_free(rel);
	ss_index_free(ix);
	/* a writer takes no cut */
	assert_int_equal(ss_index_open(&ix, path, SS_INDEX_WRITE), 0);
	assert_int_not_equal(ss_index_as_of(ix, t), 0);
	ss_index_free(ix);

	/* today: other14 is rejected, so hidden */
	out = test_run_output(RANK "--onto stable --format tsv 2>/dev/null", tmp);
	assert_null(strstr(out, "\tother14\t"));
	assert_non_null(strstr(out, "\tuse-helper\t"));
	free(out);
	/* then: proposed, the later commits unknown, stable at introduce */
	out = test_run_output(RANK "--onto stable --as-of 2023-11-15T07:00 --format tsv 2>'%s/err'",
			      tmp, tmp);
	assert_non_null(strstr(out, "\tother14\t"));
	assert_null(strstr(out, "\tuse-helper\t"));
	assert_null(strstr(out, "\tdup\t"));
	free(out);
	assert_int_equal(test_run("grep -q '^note: as of 2023-11-15: stable is at ' '%s/err' && "
				  "grep -q 'trained afresh\\|training the project model on what was settled then\\|"
				  "built-in' '%s/err'", tmp, tmp), 0);
	/* the kept project model is left as it was */
	assert_int_equal(test_run("! grep -q 'kept the project model' '%s/err'", tmp), 0);
	/* before the branch existed: said, and nothing to place on */
	assert_int_equal(test_run(RANK "--onto stable --as-of 2020-01-01 --format tsv >/dev/null 2>'%s/err'",
				  tmp, tmp), 128);
	assert_int_equal(test_run("grep -q 'none of the stable branches had a commit yet' '%s/err'", tmp), 0);
	/* not a date */
	assert_int_equal(test_run(RANK "--as-of 2023-11-15T25:00 >/dev/null 2>&1", tmp), 129);
	/* status and where read the same cut */
	out = test_run_output("./stablesel status --repo '%s/r' --branch stable", tmp);
	assert_non_null(strstr(out, "stable: 0 accepted, 1 rejected"));
	free(out);
	out = test_run_output("./stablesel status --repo '%s/r' --branch stable --as-of 2023-11-15T07:00", tmp);
	assert_non_null(strstr(out, "stable: 0 accepted, 0 rejected"));
	free(out);
	out = test_run_output("./stablesel where --repo '%s/r' $(git -C '%s/r' log --format=%%h -1 --grep='^prep$' main) "
			      "2>&1", tmp, tmp);
	assert_non_null(strstr(out, "stable: "));
	assert_non_null(strstr(out, "(backport line, "));
	assert_non_null(strstr(out, "v1.0"));
	free(out);
	out = test_run_output("./stablesel where --repo '%s/r' --as-of 2023-11-15T07:00 "
			      "$(git -C '%s/r' log --format=%%h -1 --grep='^prep$' main) 2>&1", tmp, tmp);
	assert_non_null(strstr(out, "stable: none"));
	assert_null(strstr(out, "backport line"));
	assert_null(strstr(out, "v1.0"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_store_transitions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backported_by_update, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_commit_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_schema_2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_schema_3, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_writers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rank_and_queue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_onto_older_point, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remote_tracking, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_branch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_branch_fails_fast, setup, teardown),
		cmocka_unit_test_setup_teardown(test_until_checked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_clock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reject_skips_carrier, setup, teardown),
		cmocka_unit_test_setup_teardown(test_undo_restores, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status_escapes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_as_of, setup, teardown),
		cmocka_unit_test_setup_teardown(test_accepted_left_out, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
